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

#[test]
fn owned_stream_state_follows_every_call() {
    // Pushes carry a pop (spool_stream_pop_push) as the C++ wrapper sends
    // them.
    let data = [7u8; 64];
    let mut seed = 0x5EED;
    // SAFETY: every handle is live until freed at the end.
    unsafe {
        let s = spool_stream_new(37);
        let saved = spool_stream_clone(s);
        for step in 0..5_000 {
            match next(&mut seed) % 7 {
                0..=2 => {
                    let len = (next(&mut seed) % 40) as usize;
                    let pop = next(&mut seed) % 3 * 5;
                    let mut taken = usize::MAX;
                    let status = spool_stream_pop_push(s, pop, data.as_ptr(), len, &mut taken);
                    assert_eq!(status, SPOOL_OK);
                    assert!(taken <= len);
                }
                3 | 4 => assert_eq!(spool_stream_pop(s, next(&mut seed) % 30), SPOOL_OK),
                5 => assert_eq!(spool_stream_assign(saved, s), SPOOL_OK),
                _ => match next(&mut seed) % 20 {
                    0 => assert_eq!(spool_stream_close(s), SPOOL_OK),
                    1 => assert_eq!(spool_stream_set_error(s), SPOOL_OK),
                    _ => assert_eq!(spool_stream_assign(s, saved), SPOOL_OK),
                },
            }
            check(s, step);
            check(saved, step);
        }
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
