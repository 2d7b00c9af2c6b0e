//! A run's journal and the steps of its commit, each safe to do again:
//! what a live run does in order, and what `clean` does for a dead one.
//!
//! Objects under `PREFIX/_staging-RUNID/` (a name Hive readers skip):
//!
//! | object | written | holds |
//! |---|---|---|
//! | `begun-N.tsv` | after a batch of uploads is begun, before any of their parts is sent | each upload's key and id |
//! | `journal.tsv` | once every file's upload is filled | each upload's key, id and parts; the run's manifest name; whether it replaces the dataset |
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

/// What `_staging-RUNID/journal.tsv` holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Journal {
    /// The manifest's name (`_partitions.tsv`, `_partitions-ID.tsv`).
    pub manifest: String,
    /// The run replaces the dataset (`--force`).
    pub replace: bool,
    pub uploads: Vec<Upload>,
}

/// The first line of a journal.
const MAGIC: &str = "spool-s3-journal\t2";

impl Journal {
    /// The journal as text: the magic line, `manifest`, `replace`, then
    /// one `upload KEY ID SIZE ETAG,ETAG…` line per upload, tab-separated.
    pub fn to_text(&self) -> String {
        let text = format!(
            "{MAGIC}\nmanifest\t{}\nreplace\t{}\n",
            self.manifest, self.replace
        );
        text + &upload_lines(&self.uploads)
    }

    /// Reads [`to_text`](Self::to_text)'s text back.
    pub fn parse(text: &str) -> Option<Journal> {
        let mut lines = text.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let manifest = lines.next()?.strip_prefix("manifest\t")?.to_owned();
        let replace = lines.next()?.strip_prefix("replace\t")? == "true";
        let uploads = lines.map(parse_upload_line).collect::<Option<Vec<_>>>()?;
        Some(Journal {
            manifest,
            replace,
            uploads,
        })
    }
}

/// `upload KEY ID SIZE ETAG,ETAG…` lines, tab-separated, one per upload.
fn upload_lines(uploads: &[Upload]) -> String {
    let line = |u: &Upload| {
        let parts = u.parts.join(",");
        format!("upload\t{}\t{}\t{}\t{parts}\n", u.key, u.id, u.size)
    };
    uploads.iter().map(line).collect()
}

/// Reads one of [`upload_lines`]' lines back.
fn parse_upload_line(line: &str) -> Option<Upload> {
    let mut fields = line.strip_prefix("upload\t")?.split('\t');
    let (key, id) = (fields.next()?, fields.next()?);
    let (size, parts) = (fields.next()?.parse().ok()?, fields.next()?);
    let parts = parts
        .split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_owned);
    Some(Upload {
        key: key.to_owned(),
        id: id.to_owned(),
        parts: parts.collect(),
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
        format!("{}journal.tsv", self.staging)
    }

    fn committing(&self) -> String {
        format!("{}committing", self.staging)
    }

    /// Writes the journal and the manifest to publish: the run is
    /// uploaded, not committed.
    pub fn write_journal(
        &self,
        store: &Store,
        journal: &Journal,
        manifest: Vec<u8>,
    ) -> std::io::Result<()> {
        store.put(&format!("{}{}", self.staging, journal.manifest), manifest)?;
        store.put(&self.journal(), journal.to_text().into_bytes())
    }

    /// Names the uploads just begun, as begun-segment `segment`, before
    /// any of their parts is sent.
    pub fn write_begun(
        &self,
        store: &Store,
        segment: usize,
        uploads: &[Upload],
    ) -> std::io::Result<()> {
        let key = format!("{}begun-{segment:06}.tsv", self.staging);
        store.put(&key, upload_lines(uploads).into_bytes())
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
            let text = String::from_utf8_lossy(&text);
            match text
                .lines()
                .map(parse_upload_line)
                .collect::<Option<Vec<_>>>()
            {
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
    pub fn read_journal(&self, store: &Store) -> std::io::Result<Option<Journal>> {
        let Some(text) = store.get(&self.journal())? else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&text);
        match Journal::parse(&text) {
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
        journal: &Journal,
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
        journal: &Journal,
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
        journal: &Journal,
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
        let journal = Journal {
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
        assert_eq!(Journal::parse(&journal.to_text()), Some(journal));
        assert_eq!(Journal::parse("something else\n"), None);
    }
}
