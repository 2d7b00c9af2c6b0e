//! The system calls behind direct reads and writes: turning `O_DIRECT` on
//! and off, and asking the page cache whether it holds a file already.
//! Linux only; elsewhere every file is read and written through the page
//! cache.

/// Alignment of buffers, file offsets and read and write lengths: the
/// largest logical block size of common devices (512 and 4096 bytes).
pub const ALIGN: usize = 4096;

#[cfg(not(target_os = "linux"))]
pub(super) use elsewhere::{cached, clear, forget, set};
#[cfg(target_os = "linux")]
pub(super) use linux::{cached, clear, forget, set};

#[cfg(target_os = "linux")]
mod linux {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, fstatfs, OFlags};
    use std::fs::File;

    /// File systems whose pages live in memory: the page cache is the file,
    /// so there is nothing to go around.
    const MEMORY_BACKED: [i64; 2] = [0x0102_1994 /* tmpfs */, 0x8584_58f6 /* ramfs */];

    /// Places sampled for [`cached`].
    const SAMPLES: u64 = 16;

    /// Whether the page cache holds most of `file` (of `len` bytes): most
    /// of [`SAMPLES`] bytes spread over it are there, asked for with
    /// `RWF_NOWAIT` (which fails rather than wait for the disk). Read
    /// ahead is turned off meanwhile, so a miss reads at most its page;
    /// the offsets missed are added to `missed`, for [`forget`] to drop
    /// those pages again once read (else the next reader would find them).
    pub fn cached(file: &File, len: u64, missed: &mut Vec<u64>) -> bool {
        use rustix::fs::{fadvise, Advice};
        use rustix::io::{preadv2, ReadWriteFlags};
        let _ = fadvise(file, 0, None, Advice::Random);
        let mut byte = [0u8; 1];
        let mut hits = 0;
        for i in 0..SAMPLES {
            let at = len / SAMPLES * i + len / (2 * SAMPLES);
            let mut bufs = [std::io::IoSliceMut::new(&mut byte)];
            match preadv2(file, &mut bufs, at, ReadWriteFlags::NOWAIT) {
                Ok(1) => hits += 1,
                _ => missed.push(at),
            }
        }
        let _ = fadvise(file, 0, None, Advice::Normal);
        hits * 2 > SAMPLES
    }

    /// Drops the pages holding `offsets` from the page cache (see
    /// [`cached`]); pages still being read stay, which costs nothing but
    /// their memory.
    pub fn forget(file: &File, offsets: &[u64]) {
        let page = super::ALIGN as u64;
        for &at in offsets {
            let len = std::num::NonZeroU64::new(page);
            let _ = rustix::fs::fadvise(file, at / page * page, len, rustix::fs::Advice::DontNeed);
        }
    }

    /// Turns `O_DIRECT` on for `file` (opened by the caller for reading or
    /// writing); false, and the flag unchanged, if its file system lives
    /// in memory or refuses it.
    pub fn set(file: &File) -> bool {
        // `f_type`'s integer type differs between targets.
        #[allow(clippy::unnecessary_cast)]
        let in_memory = fstatfs(file).map_or(true, |s| MEMORY_BACKED.contains(&(s.f_type as i64)));
        let Ok(flags) = fcntl_getfl(file) else {
            return false;
        };
        !in_memory && fcntl_setfl(file, flags | OFlags::DIRECT).is_ok()
    }

    /// Turns `O_DIRECT` off for `file`.
    pub fn clear(file: &File) {
        if let Ok(flags) = fcntl_getfl(file) {
            let _ = fcntl_setfl(file, flags - OFlags::DIRECT);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod elsewhere {
    use std::fs::File;

    pub fn cached(_: &File, _: u64, _: &mut Vec<u64>) -> bool {
        false
    }

    pub fn forget(_: &File, _: &[u64]) {}

    pub fn set(_: &File) -> bool {
        false
    }

    pub fn clear(_: &File) {}
}
