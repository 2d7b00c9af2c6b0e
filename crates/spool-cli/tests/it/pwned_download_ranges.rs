//! `spool pwned download --ranges DIR`: one file per range, as the API
//! sends it, beside the index. The folder must hold the official API's
//! bodies of the hashes served, build into the same index, and come out the same after
//! `kill -9` and a resume; a folder that is not empty is refused before
//! anything is fetched.

use std::path::Path;
use std::time::Instant;

use crate::support::download::*;
use crate::support::Dir;

/// The body the official API sends for each prefix of the subset, from
/// the sample's text (`HASH:COUNT` lines in hash order): the lines of the
/// prefix without it, CRLF between them, none after the last.
fn expected_bodies(text: &Path) -> Vec<Vec<u8>> {
    let mut bodies = vec![Vec::new(); SUBSET_END as usize];
    for line in std::fs::read_to_string(text).unwrap().lines() {
        let prefix = u32::from_str_radix(&line[..5], 16).unwrap() as usize;
        if let Some(body) = bodies.get_mut(prefix) {
            if !body.is_empty() {
                body.extend_from_slice(b"\r\n");
            }
            body.extend_from_slice(&line.as_bytes()[5..]);
        }
    }
    bodies
}

/// Asserts that `got` holds `PREFIX.txt` for each prefix of the subset,
/// and nothing else, with the expected bodies.
fn same_ranges(got: &Path, expected: &[Vec<u8>]) {
    let names = crate::support::names(got);
    assert_eq!(names.len(), expected.len(), "{}", got.display());
    for (prefix, body) in expected.iter().enumerate() {
        let name = format!("{prefix:05X}.txt");
        let found = std::fs::read(got.join(&name)).unwrap();
        assert!(&found == body, "{name} differs");
    }
}

#[test]
fn the_ranges_folder_holds_the_api_bodies_and_builds_the_same_index() {
    let dir = Dir::new("download-ranges");
    let (text, index) = served_sample(&dir, 400_000, 21, false);
    let sampled = expected_bodies(&text);
    let served = Served::start(&index, false);
    let got = dir.0.join("got.idx");
    let ranges = dir.0.join("ranges");
    let copy = dir.0.join("copy.txt");
    ok(download(
        &served.base,
        &got,
        false,
        false,
        &["--ranges", path(&ranges), "--text", path(&copy)],
    ));
    same_ranges(&ranges, &sampled);
    let part = subset(&dir, &text, "part", SUBSET_END);
    same_bytes(&copy, &part);
    // Other tools read the folder: `build` of it is the index.
    let rebuilt = dir.0.join("rebuilt.idx");
    build(&ranges, &rebuilt, "full", false);
    same_bytes(&rebuilt, &got);

    // A folder that is not empty is refused at once, and left alone.
    std::fs::remove_file(&got).unwrap();
    let out = download(
        &served.base,
        &got,
        false,
        false,
        &["--ranges", path(&ranges)],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(path(&ranges)), "{stderr}");
    assert!(!got.exists());
    same_ranges(&ranges, &sampled);
}

#[test]
fn kill_9_then_resume_gives_the_same_ranges_folder() {
    let dir = Dir::new("download-ranges-resume");
    let (text, index) = served_sample(&dir, 400_000, 23, false);
    let sampled = expected_bodies(&text);
    let served = Served::start(&index, false);
    let got = dir.0.join("got.idx");
    let ranges = dir.0.join("ranges");
    let run = || {
        download(
            &served.base,
            &got,
            false,
            false,
            &["--ranges", path(&ranges)],
        )
    };
    let start = Instant::now();
    ok(run());
    let mut moments = KillMoments::new(start.elapsed(), 0x2545_F491_4F6C_DD1D);
    same_ranges(&ranges, &sampled);
    let expected = dir.0.join("expected.idx");
    std::fs::rename(&got, &expected).unwrap();
    let mut interrupted = 0;
    for _ in 0..6 {
        std::fs::remove_dir_all(&ranges).unwrap();
        let _ = std::fs::remove_file(&got);
        for _ in 0..2 {
            let mut child = run().spawn().unwrap();
            std::thread::sleep(moments.next());
            // SAFETY: kill has no memory-safety preconditions; the pid is
            // our own child's, not reaped yet.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
            if child.wait().unwrap().success() {
                moments.missed();
            } else {
                interrupted += 1;
            }
            // Whole or not there; killed after the folder's rename, the
            // journal is still complete and the next run publishes again.
            if ranges.exists() {
                same_ranges(&ranges, &sampled);
                std::fs::remove_dir_all(&ranges).unwrap();
            }
        }
        ok(run());
        same_ranges(&ranges, &sampled);
        same_bytes(&got, &expected);
    }
    assert!(interrupted >= 6, "only {interrupted} runs were interrupted");
}
