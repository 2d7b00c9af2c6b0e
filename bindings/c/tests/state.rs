//! The state published by `spool_stream_state_of` is what the query
//! functions answer, after every step of random operation sequences on an
//! owned stream and on a reassembler's view (assignment included). A call
//! that changed a stream without refreshing its state would fail here.

use spool_c::*;

/// Reads every query through the C functions and compares with the state.
///
/// # Safety
///
/// `s` is a live handle.
unsafe fn check(s: *mut SpoolStream, step: usize) {
    // SAFETY: `s` is live (the caller's contract); out-pointers are locals.
    unsafe {
        let state = *spool_stream_state_of(s);
        let (mut front, mut front_len) = (std::ptr::null(), 0usize);
        assert_eq!(spool_stream_peek(s, &mut front, &mut front_len), SPOOL_OK);
        // The address of an empty front carries nothing (the header says
        // so); a non-empty one must be exact.
        assert_eq!(state.front_len, front_len, "front length, step {step}");
        if front_len > 0 {
            assert_eq!(state.front, front, "front, step {step}");
        }
        let count = |f: unsafe extern "C" fn(*const SpoolStream, *mut u64) -> i32| {
            let mut v = u64::MAX;
            assert_eq!(f(s, &mut v), SPOOL_OK);
            v
        };
        let flag = |f: unsafe extern "C" fn(*const SpoolStream, *mut bool) -> i32| {
            let mut v = false;
            assert_eq!(f(s, &mut v), SPOOL_OK);
            v
        };
        let expected = [
            count(spool_stream_bytes_buffered),
            count(spool_stream_bytes_pushed),
            count(spool_stream_bytes_popped),
            count(spool_stream_available_capacity),
        ];
        let got = [
            state.bytes_buffered,
            state.bytes_pushed,
            state.bytes_popped,
            state.available_capacity,
        ];
        assert_eq!(got, expected, "counters, step {step}");
        let flags = [
            flag(spool_stream_is_closed),
            flag(spool_stream_is_finished),
            flag(spool_stream_has_error),
        ];
        assert_eq!(
            [state.closed, state.finished, state.error],
            flags,
            "flags, step {step}"
        );
    }
}

/// xorshift, so the sequence is the same on every run.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// The bytes buffered in `s`, read through the C functions without
/// changing it (front slice, and the rest from a clone).
///
/// # Safety
///
/// `s` is a live handle.
unsafe fn contents(s: *mut SpoolStream) -> Vec<u8> {
    // SAFETY: `s` is live; the clone is freed before returning.
    unsafe {
        let copy = spool_stream_clone(s);
        let mut out = Vec::new();
        loop {
            let state = *spool_stream_state_of(copy);
            if state.front_len == 0 {
                break;
            }
            out.extend_from_slice(std::slice::from_raw_parts(state.front, state.front_len));
            spool_stream_pop(copy, state.front_len as u64);
        }
        spool_stream_free(copy);
        out
    }
}

#[test]
fn owned_stream_state_follows_every_call() {
    // Pushes, pops, and the deferred protocol the C++ wrapper uses: bytes
    // copied into the published spare region and reported, with pops, by
    // spool_stream_sync_push. A model queue checks the bytes themselves.
    let mut seed = 0x5EED;
    let capacity = 37;
    // SAFETY: every handle is live until freed at the end; writes go only
    // into the spare region published by the last call.
    unsafe {
        let s = spool_stream_new(capacity as u64);
        let fresh = *spool_stream_state_of(s);
        assert_eq!(
            fresh.spare_len, capacity,
            "a new stream publishes its free space"
        );
        let saved = spool_stream_clone(s);
        let mut model: std::collections::VecDeque<u8> = Default::default();
        let mut saved_model = model.clone();
        let mut closed = (false, false);
        for step in 0..5_000 {
            let byte = step as u8;
            match next(&mut seed) % 8 {
                0 | 1 => {
                    let data = vec![byte; (next(&mut seed) % 40) as usize];
                    let mut taken = usize::MAX;
                    let status = spool_stream_push(s, data.as_ptr(), data.len(), &mut taken);
                    assert_eq!(status, SPOOL_OK);
                    let room = if closed.0 { 0 } else { capacity - model.len() };
                    assert_eq!(taken, data.len().min(room));
                    model.extend(&data[..taken]);
                }
                2 | 3 => {
                    let state = *spool_stream_state_of(s);
                    let written = (next(&mut seed) as usize % 20).min(state.spare_len);
                    if written > 0 {
                        std::ptr::write_bytes(state.spare, byte, written);
                    }
                    model.extend(std::iter::repeat_n(byte, written));
                    let consumed = next(&mut seed) % 25;
                    let status = spool_stream_sync_push(
                        s,
                        written,
                        consumed,
                        std::ptr::null(),
                        0,
                        std::ptr::null_mut(),
                    );
                    assert_eq!(status, SPOOL_OK);
                    model.drain(..(consumed as usize).min(model.len()));
                }
                4 => {
                    let n = next(&mut seed) % 30;
                    assert_eq!(spool_stream_pop(s, n), SPOOL_OK);
                    model.drain(..(n as usize).min(model.len()));
                }
                5 => {
                    assert_eq!(spool_stream_assign(saved, s), SPOOL_OK);
                    saved_model = model.clone();
                    closed.1 = closed.0;
                }
                _ => match next(&mut seed) % 10 {
                    0 => {
                        assert_eq!(spool_stream_close(s), SPOOL_OK);
                        closed.0 = true;
                    }
                    1 => assert_eq!(spool_stream_set_error(s), SPOOL_OK),
                    _ => {
                        assert_eq!(spool_stream_assign(s, saved), SPOOL_OK);
                        model = saved_model.clone();
                        closed.0 = closed.1;
                    }
                },
            }
            check(s, step);
            check(saved, step);
            assert_eq!(
                contents(s),
                model.iter().copied().collect::<Vec<_>>(),
                "bytes, step {step}"
            );
            let state = *spool_stream_state_of(s);
            assert_eq!(
                state.spare_len == 0,
                closed.0 || model.len() == capacity,
                "spare, step {step}"
            );
        }
        let state = *spool_stream_state_of(s);
        let too_many = state.spare_len + 1;
        let status =
            spool_stream_sync_push(s, too_many, 0, std::ptr::null(), 0, std::ptr::null_mut());
        assert_eq!(status, SPOOL_E_RANGE);
        spool_stream_free(s);
        spool_stream_free(saved);
    }
}

#[test]
fn reassembler_view_state_follows_inserts_pops_and_assignment() {
    let stream: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let mut seed = 0xC0FFEE;
    // SAFETY: every handle is live until freed at the end; the view is only
    // used while its reassembler lives.
    unsafe {
        let r = spool_reassembler_new(spool_stream_new(300));
        let view = spool_reassembler_stream(r);
        let saved = spool_stream_clone(view);
        let mut pushed_max = 0u64;
        for step in 0..5_000 {
            match next(&mut seed) % 16 {
                0..=8 => {
                    let mut pushed = 0;
                    spool_stream_bytes_pushed(view, &mut pushed);
                    pushed_max = pushed_max.max(pushed);
                    let index = pushed.saturating_sub(20) + next(&mut seed) % 80;
                    let len = (next(&mut seed) % 60) as usize;
                    let at = (index as usize).min(stream.len() - len);
                    let last = at + len == stream.len();
                    let data = stream[at..].as_ptr();
                    let status = match next(&mut seed) % 3 {
                        0 => spool_reassembler_insert(r, at as u64, data, len, last),
                        k => spool_reassembler_pop_insert(r, k * 7, at as u64, data, len, last),
                    };
                    assert_eq!(status, SPOOL_OK);
                }
                9..=13 => assert_eq!(spool_stream_pop(view, next(&mut seed) % 100), SPOOL_OK),
                14 => assert_eq!(spool_stream_assign(saved, view), SPOOL_OK),
                _ => assert_eq!(spool_stream_assign(view, saved), SPOOL_OK),
            }
            check(view, step);
        }
        assert!(pushed_max > 10_000, "the stream moved along ({pushed_max})");
        spool_stream_free(saved);
        spool_reassembler_free(r);
    }
}

#[test]
fn a_commit_into_a_view_is_readonly_and_pops_nothing() {
    // SAFETY: the reassembler is live until freed at the end; the view is
    // used only while it lives.
    unsafe {
        let r = spool_reassembler_new(spool_stream_new(16));
        let view = spool_reassembler_stream(r);
        assert_eq!(
            spool_reassembler_insert(r, 0, b"abc".as_ptr(), 3, false),
            SPOOL_OK
        );
        let null = std::ptr::null();
        let status = spool_stream_sync_push(view, 1, 2, null, 0, std::ptr::null_mut());
        assert_eq!(status, SPOOL_E_READONLY, "the header's answer, not RANGE");
        assert_eq!((*spool_stream_state_of(view)).bytes_buffered, 3);
        // With nothing written, the pop happens, then the push is refused.
        let status = spool_stream_sync_push(view, 0, 2, b"x".as_ptr(), 1, std::ptr::null_mut());
        assert_eq!(status, SPOOL_E_READONLY);
        assert_eq!((*spool_stream_state_of(view)).bytes_buffered, 1);
        spool_reassembler_free(r);
    }
}
