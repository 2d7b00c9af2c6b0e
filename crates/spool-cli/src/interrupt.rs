//! Ctrl-C (SIGINT) and SIGTERM during commands that write outputs: no
//! temporary or staging name outlives the process.
//!
//! A signal's default action ends the process on the spot, leaving every
//! hidden temporary behind (`.NAME.partial`, a staging directory). These
//! commands catch both signals on a thread of their own (`signal-hook`:
//! the handler itself only records the signal; the thread does the work
//! outside signal context) and then
//!
//! * `spool partition` asks the run to stop ([`cancel_on_signal`]): its
//!   threads finish the block in hand, the staging directory is removed
//!   by the run itself, and the command exits with 128 + the signal;
//! * `spool pwned build` and `sample` exit at once ([`exit_on_signal`])
//!   after removing the output's temporary file
//!   ([`spool_io::write::remove_temporaries`], which also keeps a rename
//!   into place from racing the removal). Spill files have no names (they
//!   are unlinked when made), so exiting removes them.
//!
//! Exit status 130 after SIGINT and 143 after SIGTERM, as a shell reports
//! a process those signals killed. A second signal while cleaning up is
//! ignored: the cleanup takes milliseconds.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Calls `on_signal` with the signal number on a background thread each
/// time SIGINT or SIGTERM arrives. If the handler cannot be installed the
/// signals keep their default action (a warning says so).
fn on_signals(command: &str, mut on_signal: impl FnMut(i32) + Send + 'static) {
    let mut signals = match Signals::new([SIGINT, SIGTERM]) {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("{command}: warning: cannot catch Ctrl-C ({e}); an interrupted run may leave temporary files");
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                on_signal(signal);
            }
        });
    if let Err(e) = spawned {
        eprintln!("{command}: warning: cannot catch Ctrl-C ({e}); an interrupted run may leave temporary files");
    }
}

/// Sets `cancel` on the first SIGINT or SIGTERM; the returned number is
/// that signal (0 while none came), for the exit status.
pub fn cancel_on_signal(command: &str, cancel: Arc<AtomicBool>) -> Arc<AtomicI32> {
    let received = Arc::new(AtomicI32::new(0));
    let seen = received.clone();
    on_signals(command, move |signal| {
        let _ = seen.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
        cancel.store(true, Ordering::SeqCst);
    });
    received
}

/// On SIGINT or SIGTERM removes this process's temporary files, says so
/// and exits with 128 + the signal.
pub fn exit_on_signal(command: &'static str) {
    on_signals(command, move |signal| {
        let gone = spool_io::write::remove_temporaries();
        eprintln!(
            "{command}: {}; {} temporary file(s) removed, no output written",
            name(signal),
            gone.removed.len()
        );
        // Exits holding `gone`: no temporary is made or renamed from here on.
        std::process::exit(i32::from(status(signal)));
    });
}

/// The exit status for a run stopped by `signal`: 143 for SIGTERM, 130
/// for SIGINT (and anything else).
pub fn status(signal: i32) -> u8 {
    if signal == SIGTERM {
        143
    } else {
        130
    }
}

/// What a message calls a run stopped by `signal`.
pub fn name(signal: i32) -> &'static str {
    if signal == SIGTERM {
        "terminated"
    } else {
        "interrupted"
    }
}
