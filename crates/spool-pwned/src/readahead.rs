//! Read-ahead line splitting: a reader thread fills a small ring of
//! recycled 1 MiB buffers (decompressing on the way, when the input is
//! compressed) while the caller's thread splits lines and parses them, so
//! reading overlaps parsing. Lines are handed out as views into the buffer;
//! only a line that straddles two buffers is copied (into a carry buffer).

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Buffers in flight between the reader thread and the parser.
const BUFFERS: usize = 4;
/// Size of each buffer.
const BUFFER_LEN: usize = 1 << 20;

/// Calls `f(line, line_number, byte_offset)` for every line of `input`
/// (without its `\n`; a last line without one is included), reading ahead
/// on another thread. Stops at the first error `f` returns.
///
/// # Errors
///
/// Read errors, and whatever `f` returns.
pub fn for_each_line<E: From<io::Error>>(
    input: Box<dyn Read + Send>,
    mut f: impl FnMut(&[u8], u64, u64) -> Result<(), E>,
) -> Result<(), E> {
    let (full_tx, full_rx) = sync_channel::<io::Result<Vec<u8>>>(BUFFERS);
    let (free_tx, free_rx) = sync_channel::<Vec<u8>>(BUFFERS);
    for _ in 0..BUFFERS {
        free_tx
            .send(Vec::with_capacity(BUFFER_LEN))
            .expect("room for every buffer");
    }
    let reader = spawn_reader(input, full_tx, free_rx);
    let result = split_lines(&full_rx, &free_tx, &mut f);
    // Stop the reader (it sees the closed channels) and reap it.
    drop(full_rx);
    drop(free_tx);
    let _ = reader.join();
    result
}

fn spawn_reader(
    mut input: Box<dyn Read + Send>,
    full: SyncSender<io::Result<Vec<u8>>>,
    free: Receiver<Vec<u8>>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        for mut buf in free {
            buf.clear();
            buf.resize(BUFFER_LEN, 0);
            let mut filled = 0;
            let result = loop {
                match input.read(&mut buf[filled..]) {
                    Ok(0) => break Ok(()),
                    Ok(n) => {
                        filled += n;
                        if filled == BUFFER_LEN {
                            break Ok(());
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            buf.truncate(filled);
            let done = filled == 0 || result.is_err();
            let msg = result.map(|()| buf);
            if full.send(msg).is_err() || done {
                return;
            }
        }
    })
}

fn split_lines<E: From<io::Error>>(
    full: &Receiver<io::Result<Vec<u8>>>,
    free: &SyncSender<Vec<u8>>,
    f: &mut impl FnMut(&[u8], u64, u64) -> Result<(), E>,
) -> Result<(), E> {
    let mut carry: Vec<u8> = Vec::new();
    let mut line_no = 0u64;
    let mut offset = 0u64;
    loop {
        let buf = match full.recv() {
            Ok(Ok(buf)) => buf,
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => break, // the reader finished
        };
        if buf.is_empty() {
            break;
        }
        let mut rest = &buf[..];
        if !carry.is_empty() {
            match memchr::memchr(b'\n', rest) {
                Some(i) => {
                    carry.extend_from_slice(&rest[..i]);
                    line_no += 1;
                    f(&carry, line_no, offset)?;
                    offset += carry.len() as u64 + 1;
                    carry.clear();
                    rest = &rest[i + 1..];
                }
                None => {
                    carry.extend_from_slice(rest);
                    rest = &[];
                }
            }
        }
        while let Some(i) = memchr::memchr(b'\n', rest) {
            line_no += 1;
            f(&rest[..i], line_no, offset)?;
            offset += i as u64 + 1;
            rest = &rest[i + 1..];
        }
        carry.extend_from_slice(rest);
        // Give the buffer back; if the reader is gone, just drop it.
        let _ = free.try_send(buf);
    }
    if !carry.is_empty() {
        line_no += 1;
        f(&carry, line_no, offset)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(data: Vec<u8>) -> Vec<(Vec<u8>, u64, u64)> {
        let mut out = Vec::new();
        for_each_line::<io::Error>(Box::new(io::Cursor::new(data)), |l, n, o| {
            out.push((l.to_vec(), n, o));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn lines_across_buffer_edges_keep_numbers_and_offsets() {
        // Lines of varying length so many straddle the 1 MiB edges.
        let mut data = Vec::new();
        let mut want = Vec::new();
        for i in 0..300_000u64 {
            let line = format!("{i}:{}", "x".repeat((i % 37) as usize)).into_bytes();
            want.push((line.clone(), i + 1, data.len() as u64));
            data.extend(line);
            data.push(b'\n');
        }
        data.extend(b"last-without-newline");
        want.push((
            b"last-without-newline".to_vec(),
            300_001,
            data.len() as u64 - 20,
        ));
        assert_eq!(lines_of(data), want);
    }

    #[test]
    fn empty_and_tiny_inputs() {
        assert_eq!(lines_of(Vec::new()), vec![]);
        assert_eq!(lines_of(b"\n".to_vec()), vec![(vec![], 1, 0)]);
        assert_eq!(lines_of(b"a".to_vec()), vec![(b"a".to_vec(), 1, 0)]);
    }

    #[test]
    fn a_line_longer_than_a_buffer() {
        let mut data = vec![b'y'; 3 * BUFFER_LEN + 5];
        data.push(b'\n');
        data.extend(b"z\n");
        let got = lines_of(data);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), 3 * BUFFER_LEN + 5);
        assert_eq!((got[1].1, got[1].2), (2, 3 * BUFFER_LEN as u64 + 6));
    }
}
