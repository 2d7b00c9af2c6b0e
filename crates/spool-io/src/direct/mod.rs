//! Reading and writing large files around the page cache (`O_DIRECT`),
//! where the file system takes it.
//!
//! A file read once or written once gains nothing from the page cache but
//! pays for it: every 4 KiB is a page allocated, filled by a copy, tracked
//! and evicted (or written back) later. With `O_DIRECT` the device reads
//! into, or writes from, a few reused buffers of the process instead. On a
//! VM whose host takes free memory back, a fresh page-cache page can cost
//! far more than the copy (docs/perf/pwned-build.md has the pwned build's
//! measurements).
//!
//! - [`DirectWindows`]: a plain file read window by window of whole lines
//!   into a few reused, page-aligned buffers;
//! - [`DirectWriter`]: bytes staged in page-aligned buffers and written by
//!   a thread of their own while the next buffer fills.
//!
//! Both step aside where direct I/O does not pay or cannot work: a file
//! the page cache holds already is handed back to be read the usual way,
//! and a file system that lives in memory or refuses the flag (tmpfs) gets
//! the same bytes through the page cache. Linux only; elsewhere every file
//! takes the page cache.
//!
//! ```text
//!  read:   disk ──O_DIRECT──► [aligned buffer] ──window of whole lines──► parser
//!  write:  writer ──stage──► [aligned buffer] ──writing thread, O_DIRECT──► disk
//! ```

mod background;
mod os;
mod windows;
mod writer;

pub use os::ALIGN;
pub use windows::{DirectWindows, Window};
pub use writer::{Appender, DirectWriter};
