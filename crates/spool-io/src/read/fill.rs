//! The read-ahead thread's loop: read into a recycled buffer, cut it after
//! its last whole record, send it on, and carry the cut-off tail into the
//! next buffer. Apart from [`ChunkReader`](super::ChunkReader), which owns
//! the thread, its channels and the blocks handed out, because this is the
//! part that touches the input and the record syntax.

use std::io::{self, Read};

use crossbeam_channel::{select, Receiver, Sender};

use super::block::{Buffer, Message};
use super::cut::Cutter;
use super::options::ReadOptions;

/// The reader thread: fills recycled buffers with whole records.
///
/// Buffers stay at their full initialized length (zeroed once, when first
/// allocated or grown); `filled` says how much of one holds data. Zeroing a
/// 1 MiB buffer before every read cost as much as the read itself.
pub(super) fn fill(
    mut input: impl Read,
    options: &ReadOptions,
    full: &Sender<Message>,
    free: &Receiver<Buffer>,
    stop: &Receiver<()>,
) {
    let mut cutter = Cutter::new(options.format, options.delimiter);
    let mut carry: Vec<u8> = Vec::new();
    let mut offset = 0u64;
    let mut line = 1u64;
    loop {
        let Buffer {
            data: mut buf,
            mut index,
        } = select! {
            recv(free) -> buf => match buf {
                Ok(buf) => buf,
                Err(_) => return,
            },
            recv(stop) -> _ => return,
        };
        index.clear();
        if buf.len() > 2 * options.buffer_len {
            buf = Vec::new(); // a grown buffer: let it go
        }
        let want = options.buffer_len.max(carry.len() + 1);
        if buf.len() < want {
            buf.resize(want, 0);
        }
        buf[..carry.len()].copy_from_slice(&carry);
        let mut filled = carry.len();
        carry.clear();
        // Fill until at least one record is complete or the input ends.
        let mut eof = false;
        let mut scanned = filled; // the carry was scanned: no record ends in it
        let cut = loop {
            match read_more(&mut input, &mut buf[filled..]) {
                Ok(0) => eof = true,
                Ok(n) => {
                    filled += n;
                    if filled < buf.len() {
                        continue;
                    }
                }
                Err(e) => {
                    // Where reading stopped: after the last byte delivered.
                    let at = offset + filled as u64;
                    let at_line = line
                        + memchr::memchr_iter(options.delimiter, &buf[..filled]).count() as u64;
                    let _ = full.send(Err(crate::input::locate(e, at, at_line)));
                    return;
                }
            }
            if eof {
                cutter.last_block(&buf[..filled], &mut index);
                break filled;
            }
            let limit = options.max_record_len;
            match cutter.last_end(&buf[..filled], scanned, offset, limit, &mut index) {
                Ok(Some(end)) => break end,
                Ok(None) => {}
                Err(e) => {
                    let _ = full.send(Err(e));
                    return;
                }
            }
            // No record end in a full buffer: one record longer than it.
            scanned = filled;
            if filled > options.max_record_len {
                let _ = full.send(Err(cutter.too_long(offset, options.max_record_len)));
                return;
            }
            // Room for one byte past the limit: a last record without a
            // delimiter may be exactly the limit long, so only the byte
            // after it tells whether the input ends there.
            let grow = filled.min(options.max_record_len + 1 - filled).max(1);
            buf.resize(filled + grow, 0);
        };
        carry.extend_from_slice(&buf[cut..filled]);
        if cut == 0 {
            return; // end of input, nothing left
        }
        let next_line = cutter.cut(&buf[..filled], cut, line, eof);
        let buffer = Buffer { data: buf, index };
        if full.send(Ok((buffer, cut, offset, line))).is_err() || eof {
            return;
        }
        offset += cut as u64;
        line = next_line;
    }
}

/// Reads into `buf`, retrying on interruption.
fn read_more(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            result => return result,
        }
    }
}
