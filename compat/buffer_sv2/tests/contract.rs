//! buffer_sv2's contract on spool's pool, checked against a plain `Vec`
//! model and run under Miri (`cargo +nightly miri test`): the `Buffer`
//! methods, the start offset and the `AeadBuffer` view codec_sv2's Noise
//! path uses (with a real ChaCha20-Poly1305 opening chunks in place), frames
//! that outlive the pool, cross threads and pass 1024 live, and the clone
//! hazard of buffer_sv2's own `Slice`, which must not happen here.

use std::sync::mpsc;
use std::time::Duration;

use buffer_sv2::{AeadBuffer, Buffer, BufferFromSystemMemory, BufferPool, Slice};
use chacha20poly1305::aead::AeadInPlace;
use chacha20poly1305::{ChaCha20Poly1305, KeyInit};
use proptest::prelude::*;

/// Scaled down under Miri, which runs each step thousands of times slower.
fn scaled(n: usize) -> usize {
    if cfg!(miri) {
        n / 50 + 1
    } else {
        n
    }
}

#[derive(Clone, Debug)]
enum Op {
    Write(usize),
    Start(usize),
    WriteView(usize, u8),
    Extend(Vec<u8>),
    Truncate(usize),
    Patch(usize, u8),
    Freeze,
    Clone(usize),
    Drop(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..80usize).prop_map(Op::Write),
        2 => any::<usize>().prop_map(Op::Start),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Op::WriteView(i, b)),
        1 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Op::Extend),
        1 => (0..120usize).prop_map(Op::Truncate),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Op::Patch(i, b)),
        3 => Just(Op::Freeze),
        1 => any::<usize>().prop_map(Op::Clone),
        2 => any::<usize>().prop_map(Op::Drop),
    ]
}

/// Applies `ops` to `buffer` and to a `Vec` model side by side.
fn run<B: Buffer + AeadBuffer>(mut buffer: B, ops: &[Op])
where
    B::Slice: Clone,
{
    let (mut pending, mut start) = (Vec::<u8>::new(), 0usize);
    let mut frames: Vec<(B::Slice, Vec<u8>)> = Vec::new();
    let mut tag = 0u8;
    for op in ops {
        match op {
            Op::Write(n) => {
                tag = tag.wrapping_add(1);
                buffer.get_writable(*n).fill(tag);
                pending.resize(pending.len() + n, tag);
            }
            Op::Start(i) => {
                start = i % (pending.len() + 1);
                buffer.danger_set_start(start);
            }
            Op::WriteView(i, b) if pending.len() > start => {
                let at = i % (pending.len() - start);
                buffer.as_mut()[at] = *b;
                pending[start + at] = *b;
            }
            Op::Extend(bytes) => {
                AeadBuffer::extend_from_slice(&mut buffer, bytes).unwrap();
                pending.extend(bytes);
            }
            Op::Truncate(n) => {
                AeadBuffer::truncate(&mut buffer, *n);
                pending.truncate(start + n);
            }
            Op::Patch(i, b) if !pending.is_empty() => {
                let at = i % pending.len();
                buffer.get_data_by_ref(at + 1)[at] = *b;
                pending[at] = *b;
            }
            Op::Freeze => {
                let frame = buffer.get_data_owned();
                assert_eq!(frame.as_ref(), &pending[..]);
                frames.push((frame, std::mem::take(&mut pending)));
                // As in buffer_sv2, freezing does not reset the start.
                start = 0;
                buffer.danger_set_start(0);
            }
            Op::Clone(i) if !frames.is_empty() => {
                let (frame, want) = &frames[i % frames.len()];
                frames.push((frame.clone(), want.clone()));
            }
            Op::Drop(i) if !frames.is_empty() => {
                frames.swap_remove(i % frames.len());
            }
            _ => {}
        }
        assert_eq!(Buffer::len(&buffer), pending.len());
        assert_eq!(buffer.get_data_by_ref_(usize::MAX), &pending[..]);
        assert_eq!(buffer.get_data_by_ref_(3), &pending[..pending.len().min(3)]);
        assert_eq!(buffer.as_ref(), &pending[start..]);
        for (frame, want) in &frames {
            assert_eq!(frame.as_ref(), &want[..], "a frame changed while held");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 }))]

    #[test]
    fn the_pool_keeps_the_contract(ops in prop::collection::vec(op(), 1..120)) {
        // Small enough that frames wrap, get skipped and spill to the heap.
        run(BufferPool::new(200), &ops);
    }

    #[test]
    fn the_heap_buffer_keeps_the_contract(ops in prop::collection::vec(op(), 1..120)) {
        run(BufferFromSystemMemory::new(0), &ops);
    }
}

/// codec_sv2's Noise path, on both buffers: a header sealed at start 0,
/// then chunks appended and sealed in place behind the start offset; the
/// receiving side appends each sealed chunk, opens it where it lies and
/// cuts the tag off.
fn noise_round_trip<B: Buffer + AeadBuffer>(mut seal: B, mut open: B) {
    let cipher = ChaCha20Poly1305::new(&[7; 32].into());
    let nonce = |n: u64| {
        let mut bytes = [0u8; 12];
        bytes[4..].copy_from_slice(&n.to_le_bytes());
        bytes.into()
    };
    let plain: Vec<u8> = (0..scaled(3000)).map(|i| i as u8).collect();
    let chunks: Vec<&[u8]> = plain.chunks(if cfg!(miri) { 20 } else { 500 }).collect();
    let mut sealed_lens = Vec::new();
    for (n, chunk) in chunks.iter().enumerate() {
        let at = Buffer::len(&seal);
        seal.get_writable(chunk.len()).copy_from_slice(chunk);
        seal.danger_set_start(at);
        cipher
            .encrypt_in_place(&nonce(n as u64), b"", &mut seal)
            .unwrap();
        sealed_lens.push(Buffer::len(&seal) - at);
    }
    seal.danger_set_start(0);
    let wire = seal.get_data_owned();
    assert_eq!(wire.as_ref().len(), plain.len() + 16 * chunks.len());

    let mut at = 0;
    for (n, len) in sealed_lens.iter().enumerate() {
        let opened = Buffer::len(&open);
        open.get_writable(*len)
            .copy_from_slice(&wire.as_ref()[at..at + len]);
        open.danger_set_start(opened);
        let before = open.as_ref().as_ptr();
        cipher
            .decrypt_in_place(&nonce(n as u64), b"", &mut open)
            .unwrap();
        assert_eq!(open.as_ref().as_ptr(), before, "opened in place");
        at += len;
    }
    open.danger_set_start(0);
    assert_eq!(open.get_data_owned().as_ref(), &plain[..]);

    // A tampered chunk fails and leaves the buffer usable.
    open.get_writable(sealed_lens[0])
        .copy_from_slice(&wire.as_ref()[..sealed_lens[0]]);
    open.get_data_by_ref(1)[0] ^= 1;
    assert!(cipher.decrypt_in_place(&nonce(0), b"", &mut open).is_err());
    open.get_data_owned();
    assert!(Buffer::is_empty(&open));
}

#[test]
fn noise_chunks_open_in_place_on_both_buffers() {
    noise_round_trip(BufferPool::new(1 << 16), BufferPool::new(1 << 16));
    // A pool smaller than the frame: the message spills and still works.
    noise_round_trip(BufferPool::new(256), BufferPool::new(256));
    noise_round_trip(
        BufferFromSystemMemory::new(0),
        BufferFromSystemMemory::new(0),
    );
}

/// Runs `f` on another thread and fails if it has not returned within a
/// minute: buffer_sv2's pool spins forever in `Drop` in these cases.
fn returns<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(Duration::from_secs(60))
        .expect("did not return: a drop is waiting")
}

/// The hazard of buffer_sv2's `Slice`: its derived `Clone` copies the
/// handle, so after the original drops the pool writes the next message
/// ("BBBB") under the live clone, and its bookkeeping bit is left set so
/// the pool's `Drop` spins forever. Here the clone holds the bytes.
#[test]
fn a_clone_keeps_its_bytes_and_nothing_spins() {
    let mut pool = BufferPool::new(1 << 16);
    pool.get_writable(4).copy_from_slice(b"AAAA");
    let original = pool.get_data_owned();
    let clone = original.clone();
    drop(original);
    pool.get_writable(4).copy_from_slice(b"BBBB");
    let next = pool.get_data_owned();
    assert_eq!(clone.as_ref(), b"AAAA");
    assert_eq!(next.as_ref(), b"BBBB");
    // buffer_sv2 spins in the pool's drop after exactly this order.
    drop(clone);
    drop(next);
    assert!(pool.is_droppable());
    returns(move || drop(pool));
}

#[test]
fn frames_outlive_the_pool_past_1024_live_and_on_other_threads() {
    let mut pool = BufferPool::new(1 << 16);
    let count = scaled(3000);
    let frames: Vec<Slice> = (0..count)
        .map(|i| {
            pool.get_writable(1 + i % 50).fill(i as u8);
            pool.get_data_owned()
        })
        .collect();
    // The pool's slots (1024) ran out: the rest went to the heap.
    assert_eq!(
        frames.iter().filter(|f| f.is_pooled()).count(),
        count.min(1024)
    );
    returns(move || drop(pool));
    let threads: Vec<_> = frames
        .chunks(count / 4 + 1)
        .map(|chunk| {
            let chunk: Vec<Slice> = chunk.to_vec(); // clones, shared
            std::thread::spawn(move || {
                chunk
                    .iter()
                    .all(|f| f.as_ref().iter().all(|&b| b == f.as_ref()[0]))
            })
        })
        .collect();
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f.as_ref(), &vec![i as u8; 1 + i % 50][..]);
        assert_eq!(f.len(), 1 + i % 50, "the frame's length, not 0");
    }
    drop(frames);
    assert!(threads.into_iter().all(|t| t.join().unwrap()));
}

#[test]
fn a_frame_larger_than_the_pool_goes_to_the_heap() {
    let mut pool = BufferPool::new(64);
    pool.get_writable(60).fill(1);
    assert!(pool.is_back_mode());
    pool.get_writable(60).fill(2);
    assert!(pool.is_alloc_mode());
    let big = pool.get_data_owned();
    assert_eq!(big.len(), 120);
    assert!(!big.is_pooled());
    pool.get_writable(8).fill(3);
    assert!(pool.is_back_mode(), "the next message is back in the arena");
    assert!(pool.get_data_owned().is_pooled());
}

#[test]
fn thread_safety_matches_or_exceeds_buffer_sv2() {
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<BufferPool<BufferFromSystemMemory>>();
    sync::<BufferPool<BufferFromSystemMemory>>();
    send::<BufferFromSystemMemory>();
    sync::<BufferFromSystemMemory>();
    send::<Slice>();
    sync::<Slice>();
}

/// buffer_sv2's `Slice` implements `Index` for `usize`, `Range`,
/// `RangeFrom` and `RangeFull` and `IndexMut` for the first three: code
/// bounded on those impls takes this crate's `Slice` too, and a write
/// through one of a shared frame's handles copies it first.
#[test]
fn slice_has_buffer_sv2s_seven_index_impls() {
    use core::ops::{Index, IndexMut, Range, RangeFrom, RangeFull};

    fn generic<S>(s: &mut S)
    where
        S: Index<usize, Output = u8>
            + IndexMut<usize>
            + Index<RangeFrom<usize>, Output = [u8]>
            + IndexMut<RangeFrom<usize>>
            + Index<Range<usize>, Output = [u8]>
            + IndexMut<Range<usize>>
            + Index<RangeFull, Output = [u8]>,
    {
        s[0] = b'h';
        s[1..3].copy_from_slice(b"el");
        s[3..].copy_from_slice(b"lo");
        assert_eq!((s[4], &s[..]), (b'o', &b"hello"[..]));
    }

    let mut pool = BufferPool::new(64);
    pool.get_writable(5).copy_from_slice(b"-----");
    let mut frame = pool.get_data_owned();
    let shared = frame.clone();
    generic(&mut frame);
    assert_eq!(
        (shared.as_ref(), frame.as_ref()),
        (&b"-----"[..], &b"hello"[..])
    );
    generic(&mut Slice::from(vec![0; 5]));
}
