//! `spool pwned serve` swapping in a rebuilt index: by SIGHUP under load
//! with no failed request, or by `--watch` (an absolute or a relative
//! path; a replacement that does not open is refused and the old index
//! stays served).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::support::serve::*;
use crate::support::Dir;

/// Asks for one count over and over until `stop`: every answer must be
/// the old index's or the new one's, and never the old after the new.
fn ask(url: String, old: String, new: String, stop: Arc<AtomicBool>) -> (u64, u64, Vec<String>) {
    let client = http();
    let (mut olds, mut news, mut failures) = (0, 0, Vec::new());
    while !stop.load(Ordering::Relaxed) {
        match client
            .get(&url)
            .send()
            .and_then(|r| r.error_for_status())
            .and_then(|r| r.text())
        {
            Ok(count) if count == new => news += 1,
            Ok(count) if count == old && news == 0 => olds += 1,
            Ok(count) => failures.push(format!("count {count} after {news} new")),
            Err(e) => failures.push(e.to_string()),
        }
    }
    (olds, news, failures)
}

#[test]
fn sighup_swaps_a_rebuilt_index_under_load_with_no_failed_request() {
    let dir = Dir::new("serve-sighup");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let mut served = Served::start(&["--sha1", path(&index)]);
    let hash = spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password("sample-1-3"));
    let old = spool_pwned::sample::sample_count(1, 3).to_string();
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (url, old, stop) = (
                format!("{}/check/sha1/{hash}", served.base),
                old.clone(),
                Arc::clone(&stop),
            );
            std::thread::spawn(move || ask(url, old, "0".into(), stop))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // Another sample, built over the served path (temporary name, rename).
    build_sample(&dir, 2, &index);
    served.signal(libc::SIGHUP);
    served.wait_for("reloaded (SIGHUP)");
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        let (olds, news, failures) = client.join().unwrap();
        assert!(failures.is_empty(), "{failures:?}");
        assert!(olds > 0 && news > 0, "{olds} old, {news} new answers");
    }
    assert!(served.terminate().success());
}

#[test]
fn watch_reloads_an_index_renamed_over_the_served_path() {
    let dir = Dir::new("serve-watch");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    let mut served = Served::start(&["--watch", "--sha1", path(&index)]);
    rebuild_and_see_it_served(&mut served, &dir, &index);
    assert!(served.terminate().success());
}

/// With `served` watching `index` (seed 1's sample): seed 2's, built over
/// it, is served once the reload says so. Returns a URL whose answer
/// changed, and the new answer.
fn rebuild_and_see_it_served(served: &mut Served, dir: &Dir, index: &Path) -> (String, String) {
    let hash = spool_pwned::to_hex(&spool_pwned::HashKind::Sha1.hash_password("sample-2-3"));
    let url = format!("{}/check/sha1/{hash}", served.base);
    let client = http();
    assert_eq!(client.get(&url).send().unwrap().text().unwrap(), "0");
    build_sample(dir, 2, index);
    served.wait_for("reloaded (index file replaced)");
    let new = spool_pwned::sample::sample_count(2, 3).to_string();
    assert_eq!(client.get(&url).send().unwrap().text().unwrap(), new);
    (url, new)
}

#[test]
fn watch_reloads_an_index_given_by_a_relative_path() {
    let dir = Dir::new("serve-watch-relative");
    let index = dir.0.join("pwned.idx");
    build_sample(&dir, 1, &index);
    // The server runs in the index's folder and names it relatively, as
    // docs/pwned.md shows.
    let mut child = spool(&["pwned", "serve", "--listen", "127.0.0.1:0"]);
    child
        .args(["--watch", "--sha1", "pwned.idx"])
        .current_dir(&dir.0);
    let mut served = Served::spawn(child);
    let (url, new) = rebuild_and_see_it_served(&mut served, &dir, &index);
    let client = http();
    // A replacement that does not open is refused, said so, and the
    // index served stays.
    std::fs::write(dir.0.join("broken"), b"not an index").unwrap();
    std::fs::rename(dir.0.join("broken"), &index).unwrap();
    served.wait_for("reload (index file replaced) failed, still serving the previous index");
    assert_eq!(client.get(&url).send().unwrap().text().unwrap(), new);
    assert!(served.terminate().success());
}
