//! The progress bar of the long-running commands (`partition`, `pwned
//! build`): one display of [`spool_io::progress::Progress`], which the
//! engines update as they go, redrawn ten times a second on its own thread.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use spool_io::progress::Progress;

/// How often the bar is redrawn.
const REDRAW: Duration = Duration::from_millis(100);

/// The total size of `inputs` when every one is a regular file (what the
/// bar counts towards), `None` otherwise (a pipe, a directory): the bar
/// is then a spinner.
pub fn input_size(inputs: &[PathBuf]) -> Option<u64> {
    inputs
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len())
        })
        .sum()
}

/// Runs `work`, showing `progress` on standard error meanwhile if `show`.
pub fn show_while<T>(
    progress: &Progress,
    total: Option<u64>,
    show: bool,
    work: impl FnOnce() -> T,
) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if show {
            let done = &done;
            scope.spawn(move || draw(progress, total, done));
        }
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    })
}

fn draw(progress: &Progress, total: Option<u64>, done: &AtomicBool) {
    let bar = match total {
        Some(t) => indicatif::ProgressBar::new(t),
        None => indicatif::ProgressBar::new_spinner(),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg:10} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta}) {prefix}",
        )
        .expect("valid template"),
    );
    while !done.load(Ordering::Relaxed) {
        bar.set_message(progress.phase().to_string());
        bar.set_position(progress.raw_bytes.load(Ordering::Relaxed));
        let records = progress.records.load(Ordering::Relaxed);
        let groups = progress.groups.load(Ordering::Relaxed);
        bar.set_prefix(if groups > 0 {
            format!("{records} records, {groups} groups")
        } else {
            format!("{records} records")
        });
        std::thread::sleep(REDRAW);
    }
    bar.finish_and_clear();
}
