//! A run's journal and the steps of its commit, each safe to do again:
//! what a live run does in order, and what `clean` does for a dead one.
//!
//! Objects under `PREFIX/_staging-RUNID/` (a name Hive readers skip); the
//! journal and the begun-segments are in spool-io's journal format (kind
//! `s3commit`: a record with the manifest's name and `--force`, then one
//! record per upload), each written whole in one request:
//!
//! | object | written | holds |
//! |---|---|---|
//! | `begun-N` | after a batch of uploads is begun, before any of their parts is sent | each upload's key and id |
//! | `journal` | once every file's upload is filled | each upload's key, id and parts; the run's manifest name; whether it replaces the dataset |
//! | `_partitions[-ID].tsv` | with the journal | the manifest the commit publishes |
//! | `committing` | when the commit starts | nothing: from here on, the run goes forward |
//!
//! The commit, in order: `committing`; complete every upload (each object
//! appears under its final name); list the prefix and check that every
//! object is there whole (the `verify` module); with `--force`, delete
//! every object of the prefix the run did not write; the manifest; the
//! staging objects. A run without `committing` is rolled back by `clean`
//! (the uploads its journal and its begun-segments name aborted, its
//! staging objects deleted); a run with it is rolled forward (the same
//! steps again: completing a completed upload is settled by the listing).
//!
//! A commit whose listing lacks an object the store said it completed
//! cannot be finished — the bytes are gone from local disk and from the
//! store — so it is undone instead ([`Committed::Lost`]): the run's
//! objects deleted, its uploads aborted; with `--force` the whole prefix
//! emptied (the run's objects had replaced some of the earlier dataset's,
//! so neither dataset is whole). No manifest ever names an object that
//! is not there.

use super::store::{Listed, Store};
use super::upload::complete_all;
use super::verify::{self, Missing};
use spool_io::journal::{self, FieldReader, FieldWriter, Kind};

/// One file's pending upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Upload {
    /// The object's key.
    pub key: String,
    /// S3's upload id.
    pub id: String,
    /// Each part's ETag, in order.
    pub parts: Vec<String>,
    /// The bytes sent in those parts.
    pub size: u64,
}

/// How a commit ended.
#[derive(Debug)]
#[must_use]
pub(crate) enum Committed {
    /// Every object checked, the manifest written.
    Done,
    /// Objects the store said it completed are not there whole: the run
    /// was undone (see the module docs).
    Lost(Vec<Missing>),
}

/// What a run's commit must do, as its journal (`_staging-RUNID/journal`)
/// holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CommitPlan {
    /// The manifest's name (`_partitions.tsv`, `_partitions-ID.tsv`).
    pub manifest: String,
    /// The run replaces the dataset (`--force`).
    pub replace: bool,
    pub uploads: Vec<Upload>,
}

/// The journal kind of a run's journal and its begun-segments.
const KIND: Kind = *b"s3commit";
/// Record tags: the run's settings, one upload.
const RUN: u8 = 1;
const UPLOAD: u8 = 2;

impl CommitPlan {
    /// The journal as bytes, in spool-io's journal format: a record with
    /// the manifest's name and `replace`, then one record per upload.
    pub fn encode(&self) -> Vec<u8> {
        let mut run = Vec::new();
        FieldWriter(&mut run)
            .u8(RUN)
            .str(&self.manifest)
            .u8(u8::from(self.replace));
        let uploads = self.uploads.iter().map(upload_record);
        journal::encode(
            KIND,
            std::iter::once(run)
                .chain(uploads)
                .collect::<Vec<_>>()
                .iter()
                .map(Vec::as_slice),
        )
    }

    /// Reads [`encode`](Self::encode)'s bytes back; `None` if they are not
    /// a whole journal of a run.
    pub fn decode(bytes: &[u8]) -> Option<CommitPlan> {
        let mut records = whole_records(bytes)?.into_iter();
        let mut run = FieldReader::new(records.next()?);
        if run.u8()? != RUN {
            return None;
        }
        let manifest = run.str()?.to_owned();
        let replace = run.u8()? == 1;
        let uploads = records.map(parse_upload).collect::<Option<Vec<_>>>()?;
        Some(CommitPlan {
            manifest,
            replace,
            uploads,
        })
    }
}

/// Every record of a journal object, if it is whole: an object is written
/// in one request, so a record missing from its end is damage, not a
/// crash's doing.
fn whole_records(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let decoded = journal::decode(bytes, KIND).ok()?;
    (decoded.valid_len == bytes.len()).then_some(decoded.records)
}

/// An upload's record: key, id, size, then its parts' ETags.
fn upload_record(u: &Upload) -> Vec<u8> {
    let mut record = Vec::new();
    let mut fields = FieldWriter(&mut record);
    fields.u8(UPLOAD).str(&u.key).str(&u.id).u64(u.size);
    fields.u32(u32::try_from(u.parts.len()).expect("S3 allows 10,000 parts"));
    for part in &u.parts {
        fields.str(part);
    }
    record
}

/// Reads one of [`upload_record`]'s records back.
fn parse_upload(record: &[u8]) -> Option<Upload> {
    let mut fields = FieldReader::new(record);
    if fields.u8()? != UPLOAD {
        return None;
    }
    let (key, id, size) = (fields.str()?, fields.str()?, fields.u64()?);
    let count = fields.u32()?;
    let parts = (0..count)
        .map(|_| fields.str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()?;
    Some(Upload {
        key: key.to_owned(),
        id: id.to_owned(),
        parts,
        size,
    })
}

/// Where every run's staging objects start in the dataset at `prefix`
/// (`PREFIX/_staging-`): nothing under it is the dataset's.
pub(crate) fn staging_root(prefix: &str) -> String {
    format!("{prefix}{}", crate::append_run::STAGING_PREFIX)
}

/// A run's objects under the dataset's prefix.
pub(crate) struct RunObjects<'a> {
    /// The dataset's prefix: empty, or ending in `/`.
    pub prefix: &'a str,
    /// `PREFIX/_staging-RUNID/`.
    pub staging: String,
}

impl<'a> RunObjects<'a> {
    /// The objects of run `id` in the dataset at `prefix`.
    pub fn new(prefix: &'a str, id: &str) -> Self {
        RunObjects {
            prefix,
            staging: format!("{prefix}{}{id}/", crate::append_run::STAGING_PREFIX),
        }
    }

    fn journal(&self) -> String {
        format!("{}journal", self.staging)
    }

    fn committing(&self) -> String {
        format!("{}committing", self.staging)
    }

    /// Writes the journal and the manifest to publish: the run is
    /// uploaded, not committed.
    pub fn write_journal(
        &self,
        store: &Store,
        journal: &CommitPlan,
        manifest: Vec<u8>,
    ) -> std::io::Result<()> {
        store.put(&format!("{}{}", self.staging, journal.manifest), manifest)?;
        store.put(&self.journal(), journal.encode())
    }

    /// Names the uploads just begun, as begun-segment `segment`, before
    /// any of their parts is sent.
    pub fn write_begun(
        &self,
        store: &Store,
        segment: usize,
        uploads: &[Upload],
    ) -> std::io::Result<()> {
        let key = format!("{}begun-{segment:06}", self.staging);
        let records: Vec<Vec<u8>> = uploads.iter().map(upload_record).collect();
        store.put(
            &key,
            journal::encode(KIND, records.iter().map(Vec::as_slice)),
        )
    }

    /// Every upload the run's begun-segments name.
    pub fn read_begun(&self, store: &Store) -> std::io::Result<Vec<Upload>> {
        let mut uploads = Vec::new();
        let segments = format!("{}begun-", self.staging);
        for Listed { key, .. } in store.list(&self.staging)? {
            if !key.starts_with(&segments) {
                continue;
            }
            let Some(text) = store.get(&key)? else {
                continue;
            };
            let named: Option<Vec<Upload>> = whole_records(&text)
                .and_then(|records| records.into_iter().map(parse_upload).collect());
            match named {
                Some(named) => uploads.extend(named),
                None => {
                    return Err(std::io::Error::other(format!(
                        "{key}: not a list of uploads spool reads"
                    )))
                }
            }
        }
        Ok(uploads)
    }

    /// The run's journal, if it wrote one.
    pub fn read_journal(&self, store: &Store) -> std::io::Result<Option<CommitPlan>> {
        let Some(bytes) = store.get(&self.journal())? else {
            return Ok(None);
        };
        match CommitPlan::decode(&bytes) {
            Some(journal) => Ok(Some(journal)),
            None => Err(std::io::Error::other(format!(
                "{}: not a journal spool reads",
                self.journal()
            ))),
        }
    }

    /// Whether the run's commit has started.
    pub fn is_committing(&self, store: &Store) -> std::io::Result<bool> {
        store.exists(&self.committing())
    }

    /// The commit (see the module docs); safe to do again from any point
    /// once `committing` is written.
    pub fn commit(
        &self,
        store: &Store,
        journal: &CommitPlan,
        in_flight: usize,
    ) -> std::io::Result<Committed> {
        store.put(&self.committing(), Vec::new())?;
        self.roll_forward(store, journal, in_flight)
    }

    /// The commit's steps after `committing`. An error leaves the commit
    /// started, for `clean` to take up again.
    pub fn roll_forward(
        &self,
        store: &Store,
        journal: &CommitPlan,
        in_flight: usize,
    ) -> std::io::Result<Committed> {
        let refused = complete_all(store, &journal.uploads, in_flight)?;
        let listing = store.list(self.prefix)?;
        let missing = verify::missing(&journal.uploads, &listing, &refused);
        if !missing.is_empty() {
            self.undo_commit(store, journal, &listing)?;
            return Ok(Committed::Lost(missing));
        }
        if journal.replace {
            let ours: std::collections::HashSet<&str> =
                journal.uploads.iter().map(|u| u.key.as_str()).collect();
            let staging_root = staging_root(self.prefix);
            // The old manifest of the same name stays until the new one
            // replaces it: a reader always finds one.
            let manifest = format!("{}{}", self.prefix, journal.manifest);
            for Listed { key, .. } in listing {
                let keep = ours.contains(key.as_str()) || key == manifest;
                if !keep && !key.starts_with(&staging_root) {
                    store.delete(&key)?;
                }
            }
        }
        let staged_manifest = format!("{}{}", self.staging, journal.manifest);
        if let Some(manifest) = store.get(&staged_manifest)? {
            store.put(&format!("{}{}", self.prefix, journal.manifest), manifest)?;
        } else if !store.exists(&format!("{}{}", self.prefix, journal.manifest))? {
            return Err(std::io::Error::other(format!(
                "{staged_manifest} is missing"
            )));
        }
        self.delete_staging(store)?;
        Ok(Committed::Done)
    }

    /// Undoes a started commit that cannot be finished: deletes the run's
    /// objects, aborts its uploads, deletes its staging objects. A run
    /// replacing the dataset (`--force`) had begun to overwrite it, so
    /// every data object and manifest of the prefix (`listing`) goes too:
    /// the prefix is left empty rather than holding a mix no manifest
    /// describes.
    fn undo_commit(
        &self,
        store: &Store,
        journal: &CommitPlan,
        listing: &[Listed],
    ) -> std::io::Result<()> {
        let manifest = format!("{}{}", self.prefix, journal.manifest);
        if journal.replace {
            let staging_root = staging_root(self.prefix);
            let old = listing.iter().map(|o| &o.key);
            for key in old.filter(|key| !key.starts_with(&staging_root)) {
                store.delete(key)?;
            }
        }
        store.delete(&manifest)?;
        for upload in &journal.uploads {
            store.delete(&upload.key)?;
        }
        self.roll_back(store, &journal.uploads)
    }

    /// Aborts the uploads of `journal` and deletes the staging objects: no
    /// object of the run is left (a run that has not started its commit).
    pub fn roll_back(&self, store: &Store, uploads: &[Upload]) -> std::io::Result<()> {
        for upload in uploads {
            store.abort(&upload.key, &upload.id)?;
        }
        self.delete_staging(store)
    }

    /// Deletes every object under the run's staging prefix, the journal
    /// last.
    fn delete_staging(&self, store: &Store) -> std::io::Result<()> {
        let journal = self.journal();
        for Listed { key, .. } in store.list(&self.staging)? {
            if key != journal {
                store.delete(&key)?;
            }
        }
        store.delete(&journal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_reads_back() {
        let journal = CommitPlan {
            manifest: "_partitions-t1.tsv".into(),
            replace: true,
            uploads: vec![
                Upload {
                    key: "d/c=a/part-t1-00000.tsv".into(),
                    id: "Zm9v+/bar".into(),
                    parts: vec!["\"e1\"".into(), "\"e2\"".into()],
                    size: 9 << 20,
                },
                Upload {
                    key: "d/c=b/part-t1-00000.tsv".into(),
                    id: "x".into(),
                    parts: vec![],
                    size: 0,
                },
            ],
        };
        let bytes = journal.encode();
        assert_eq!(CommitPlan::decode(&bytes), Some(journal));
        assert_eq!(CommitPlan::decode(b"something else\n"), None);
        assert_eq!(CommitPlan::decode(&bytes[..bytes.len() - 1]), None);
    }
}
