//! Reading large files around the page cache (`O_DIRECT`), where the file
//! system takes it.
//!
//! A file read once gains nothing from the page cache but pays for it:
//! every 4 KiB is a page allocated, filled by a copy, tracked and evicted
//! later. With `O_DIRECT` the device reads into a few reused buffers of
//! the process instead. On a VM whose host takes free memory back, a fresh
//! page-cache page can cost far more than the copy (docs/perf/pwned-build.md
//! has the pwned build's measurements; writing around the page cache was
//! measured too, did not pay, and is gone).
//!
//! [`DirectWindows`] reads a plain file window by window of whole lines
//! into a few reused, page-aligned buffers. It steps aside where direct
//! I/O does not pay or cannot work: a file the page cache holds already is
//! handed back to be read the usual way, and a file system that lives in
//! memory or refuses the flag (tmpfs) gets the same bytes through the page
//! cache. Linux only; elsewhere every file takes the page cache.
//!
//! ```text
//!  disk ──O_DIRECT──► [aligned buffer] ──window of whole lines──► parser
//! ```

mod os;
mod windows;

pub use os::ALIGN;
pub use windows::{DirectWindows, Window};
