//! One format for every crash journal: an append-only log of checksummed
//! records, read back up to the last whole one.
//!
//! A run that must survive being killed writes down what it has done
//! before it depends on it: a download the ranges it has accepted, an S3
//! commit the uploads it has begun and the objects it will publish, an
//! append run the files it is about to move. Each of them needs the same
//! three things — records appended in order, a way to tell a whole record
//! from one cut off by a crash or damaged on disk, and a replay that stops
//! at the first record it cannot trust — and keeps only its own record
//! types. This module is that shared part.
//!
//! ```text
//!  journal  header record*
//!  header   "SPOOLJNL" | version u8 (1) | kind [u8; 8] | CRC-32C u32
//!  record   payload length u32 | payload | CRC-32C u32
//! ```
//!
//! All integers little-endian. A header's checksum covers its first 17
//! bytes; a record's covers its length and payload. `kind` names the
//! journal's user (`b"download"`, `b"s3commit"`, `b"moves\0\0\0"`), so a
//! file of one kind is never replayed as another. A payload is at most
//! [`MAX_RECORD_LEN`] bytes.
//!
//! # What a replay gives back
//!
//! [`Replay`] (from a file) and [`decode`] (from bytes, such as an object
//! read from a store) yield records in the order they were appended and
//! stop at the first that is not whole: cut short, a length over the
//! limit, or a checksum that fails. Every record yielded is exactly one
//! that was appended; after a crash, what is yielded is a prefix of what
//! was appended, and [`Replay::valid_len`] says where it ends, so the
//! writer can cut the file there and append again ([`Journal::resume`]).
//! A header that is not whole, or of another kind, is an error naming the
//! file: that is not a journal to resume.
//!
//! # When a record is safe
//!
//! - After [`Journal::append`] returns, the record is in a buffer of this
//!   process: a crash of the process loses it.
//! - After [`Journal::flush`], it is in the operating system's page cache:
//!   it survives the process being killed (`kill -9`), not a power cut.
//! - After [`Journal::sync`], it is on the disk (`fdatasync`): it survives
//!   a power cut. A record that a later step depends on across a power cut
//!   (a file moved, an object deleted) is synced before that step; how
//!   often to sync otherwise is the user's choice (a download syncs every
//!   few seconds: a power cut then costs at most those seconds' ranges).
//!
//! # Examples
//!
//! ```
//! use spool_io::journal::{Journal, Replay};
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("run.journal");
//! let mut journal = Journal::create(&path, *b"example\0")?;
//! journal.append(b"first")?;
//! journal.append(b"second")?;
//! journal.sync()?;
//! drop(journal);
//!
//! let mut replay = Replay::open(&path, *b"example\0")?;
//! assert_eq!(replay.next_record()?, Some(&b"first"[..]));
//! let after_first = replay.valid_len();
//! assert_eq!(replay.next_record()?, Some(&b"second"[..]));
//! assert_eq!(replay.next_record()?, None);
//!
//! // Keep only the first record, then go on appending after it.
//! let mut journal = Journal::resume(&path, *b"example\0", after_first)?;
//! journal.append(b"third")?;
//! journal.flush()?;
//! # Ok::<(), std::io::Error>(())
//! ```

mod fields;
mod file;
mod frame;
#[cfg(test)]
mod tests;

pub use fields::{FieldReader, FieldWriter};
pub use file::{Journal, Replay};
pub use frame::{decode, encode, Decoded, Kind, HEADER_LEN, MAX_RECORD_LEN};
