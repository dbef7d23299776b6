//! Bounded resources and inputs that never block (issue 33): a sweep's
//! open files do not grow with its points, sizes read from files are
//! checked before anything of that size is allocated, and a FIFO where a
//! data file is expected is an error naming it within seconds, never a
//! hang.

use std::fs;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use crate::common::{assert_same_result_files, repo};

const BIN: &str = env!("CARGO_BIN_EXE_tenantsim");

/// `tenantsim ARGS` in `dir` under `sh -c 'ulimit LIMIT'` (e.g. `-n 256`),
/// killed after `timeout`: (exit code, stderr), `None` for the code when
/// it had to be killed.
fn run_limited(dir: &Path, limit: &str, args: &[&str], timeout: Duration) -> (Option<i32>, String) {
    let mut child = StdCommand::new("sh")
        .arg("-c")
        .arg(format!("ulimit {limit} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        std::io::Read::read_to_string(&mut e, &mut stderr).expect("stderr");
    }
    (status.and_then(|s| s.code()), stderr)
}

/// No ulimit change: the plain binary, with the same timeout.
fn run_within(dir: &Path, args: &[&str], timeout: Duration) -> (Option<i32>, String) {
    run_limited(dir, "-c 0", args, timeout)
}

fn mkfifo(path: &Path) {
    let made = StdCommand::new("mkfifo").arg(path).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "mkfifo (coreutils) is needed to make the FIFO"
    );
}

/// quickstart with its trace's absolute path, `reps` repetitions and
/// `extra` appended, written to `dir/name`.
fn quickstart_in(dir: &Path, name: &str, reps: u32, extra: &str) {
    let text = fs::read_to_string(repo("scenarios/quickstart.toml")).expect("quickstart");
    let trace = repo("traces/hand.csv");
    let text = text
        .replace("../traces/hand.csv", &trace.display().to_string())
        .replace("repetitions = 10", &format!("repetitions = {reps}"));
    assert!(text.contains(&format!("repetitions = {reps}")));
    fs::write(dir.join(name), format!("{text}{extra}")).expect("write scenario");
}

fn shard_folders(dir: &Path, scenario: &str, count: u32) -> Vec<String> {
    (0..count)
        .map(|i| {
            let out = format!("s{i}");
            let (code, stderr) = run_within(
                dir,
                &[
                    "run",
                    scenario,
                    "--no-plots",
                    "--no-cache",
                    "--quiet",
                    "--shard",
                    &format!("{i}/{count}"),
                    "--out",
                    &out,
                ],
                Duration::from_secs(120),
            );
            assert_eq!(code, Some(0), "shard {i}/{count}: {stderr}");
            out
        })
        .collect()
}

/// Issue 33, row 1: every point held two or more spooled files open until
/// the end, so a 600-point sweep failed with `Too many open files` after
/// simulating everything, and the merge of its shards failed the same way.
/// Now the spools share one file: the sweep writes every point under
/// `ulimit -n 256`, and its two shards merge under it into the same files.
#[test]
fn a_600_point_sweep_writes_every_point_and_its_shards_merge_under_ulimit_n_256() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let seeds: Vec<String> = (0..600).map(|s| s.to_string()).collect();
    quickstart_in(
        tmp.path(),
        "sw600.toml",
        1,
        &format!("\n[sweep]\nseed = [{}]\n", seeds.join(",")),
    );
    let (code, stderr) = run_limited(
        tmp.path(),
        "-n 256",
        &[
            "run",
            "sw600.toml",
            "--no-plots",
            "--no-cache",
            "--quiet",
            "--out",
            "whole",
        ],
        Duration::from_secs(300),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let whole = tmp.path().join("whole");
    let points: Vec<_> = fs::read_dir(&whole)
        .expect("sweep folder")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("point-"))
        .collect();
    assert_eq!(points.len(), 600);
    for p in &points {
        for file in ["summary.csv", "tenants.csv", "run.json"] {
            assert!(
                p.path().join(file).is_file(),
                "{}/{file}",
                p.path().display()
            );
        }
    }
    let sweep = fs::read_to_string(whole.join("sweep.csv")).expect("sweep.csv");
    // A header, then one row per (point, policy): 4 policies.
    assert_eq!(sweep.lines().count(), 1 + 600 * 4);

    let shards = shard_folders(tmp.path(), "sw600.toml", 2);
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--out", "merged", "--quiet"]);
    let (code, stderr) = run_limited(tmp.path(), "-n 256", &args, Duration::from_secs(300));
    assert_eq!(code, Some(0), "{stderr}");
    assert_same_result_files(&whole, &tmp.path().join("merged"), "merged shards");
}

/// A merge reads its shards round-robin: with more shards than half the
/// open-file limit it reopens each shard's file per record instead of
/// holding them all (the fixed threshold of 256 open shards failed under
/// a lower limit). 100 shards merge under `ulimit -n 100` into the files
/// one run writes.
#[test]
fn more_shards_than_the_open_file_limit_allows_still_merge() {
    let tmp = tempfile::tempdir().expect("tempdir");
    quickstart_in(tmp.path(), "q.toml", 25, "");
    let shards = shard_folders(tmp.path(), "q.toml", 100);
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--out", "merged", "--quiet"]);
    let (code, stderr) = run_limited(tmp.path(), "-n 100", &args, Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = run_within(
        tmp.path(),
        &[
            "run",
            "q.toml",
            "--no-plots",
            "--no-cache",
            "--quiet",
            "--out",
            "whole",
        ],
        Duration::from_secs(120),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_same_result_files(
        &tmp.path().join("whole"),
        &tmp.path().join("merged"),
        "100 shards",
    );
}

/// Below the fewest open files a command needs, `run` says so up front
/// instead of failing midway.
#[test]
fn an_open_file_limit_below_64_is_refused_up_front() {
    let tmp = tempfile::tempdir().expect("tempdir");
    quickstart_in(tmp.path(), "q.toml", 1, "");
    let (code, stderr) = run_limited(
        tmp.path(),
        "-n 32",
        &["run", "q.toml", "--no-plots", "--no-cache", "--out", "o"],
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the open-file limit (`ulimit -n`) is 32; tenantsim needs at least 64"),
        "{stderr}"
    );
    assert!(!tmp.path().join("o").exists());
}

fn assert_fifo_refused(dir: &Path, args: &[&str], code: i32, fragment: &str) {
    let start = Instant::now();
    let (got, stderr) = run_within(dir, args, Duration::from_secs(10));
    assert!(got.is_some(), "{args:?} blocked on the FIFO for 10 s");
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(got, Some(code), "{args:?}: {stderr}");
    assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Issue 33, row 3: a FIFO in place of a shard's `runs.bin` blocked
/// `merge` for ever. Now it is refused at once, naming the file.
#[test]
fn a_fifo_as_a_shards_runs_file_is_refused_instead_of_blocking_merge() {
    let tmp = tempfile::tempdir().expect("tempdir");
    quickstart_in(tmp.path(), "q.toml", 2, "");
    let shards = shard_folders(tmp.path(), "q.toml", 2);
    let runs = tmp.path().join(&shards[1]).join("runs.bin");
    fs::remove_file(&runs).expect("remove");
    mkfifo(&runs);
    assert_fifo_refused(
        tmp.path(),
        &["merge", "s0", "s1", "--out", "m"],
        1,
        "shard runs file s1/runs.bin is not a regular file (a FIFO): expected a file",
    );
    assert!(!tmp.path().join("m").exists());
}

/// Issue 33, row 3: a FIFO in place of a cache entry blocked the run
/// (killed by hand after 22 minutes). Now the run stops at once, naming
/// the entry and the way out.
#[test]
fn a_fifo_as_a_cache_entry_is_refused_instead_of_blocking_the_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    quickstart_in(tmp.path(), "q.toml", 2, "");
    let first = ["run", "q.toml", "--no-plots", "--cache", "c", "--quiet"];
    let (code, stderr) = run_within(
        tmp.path(),
        &[&first[..], &["--out", "a"]].concat(),
        Duration::from_secs(120),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let mut entries = Vec::new();
    for fan in fs::read_dir(tmp.path().join("c/v1"))
        .expect("cache")
        .flatten()
    {
        entries.extend(
            fs::read_dir(fan.path())
                .expect("fan")
                .flatten()
                .map(|e| e.path()),
        );
    }
    entries.sort();
    let entry = entries.first().expect("a cache entry").clone();
    fs::remove_file(&entry).expect("remove");
    mkfifo(&entry);
    let rel = entry
        .strip_prefix(tmp.path())
        .expect("inside")
        .display()
        .to_string();
    assert_fifo_refused(
        tmp.path(),
        &[&first[..], &["--out", "b"]].concat(),
        1,
        &format!("result cache entry {rel} is not a regular file (a FIFO)"),
    );
    assert!(!tmp.path().join("b").exists());
}

/// A FIFO as a results folder's `run.json` blocked `compare`; a FIFO as a
/// golden's `summary.csv` was reported as "neither summary.csv nor
/// sweep.csv found" (issue 33, row 7). Both are named now (check keeps its
/// exit code 2 for errors, 1 meaning "differs").
#[test]
fn a_fifo_in_a_results_folder_is_named_by_compare_and_check() {
    let tmp = tempfile::tempdir().expect("tempdir");
    quickstart_in(tmp.path(), "q.toml", 2, "");
    let (code, stderr) = run_within(
        tmp.path(),
        &[
            "run",
            "q.toml",
            "--no-plots",
            "--no-cache",
            "--quiet",
            "--out",
            "a",
        ],
        Duration::from_secs(120),
    );
    assert_eq!(code, Some(0), "{stderr}");
    for (name, file) in [("r", "run.json"), ("g", "summary.csv")] {
        let dir = tmp.path().join(name);
        fs::create_dir(&dir).expect("mkdir");
        for f in fs::read_dir(tmp.path().join("a")).expect("a").flatten() {
            if f.path().is_file() {
                fs::copy(f.path(), dir.join(f.file_name())).expect("copy");
            }
        }
        fs::remove_file(dir.join(file)).expect("remove");
        mkfifo(&dir.join(file));
    }
    assert_fifo_refused(
        tmp.path(),
        &["compare", "a", "r"],
        1,
        "run.json r/run.json is not a regular file (a FIFO)",
    );
    assert_fifo_refused(
        tmp.path(),
        &["check", "a", "--against", "g"],
        2,
        "golden folder's summary.csv g/summary.csv is not a regular file (a FIFO)",
    );
    assert_fifo_refused(
        tmp.path(),
        &["compare", "g", "a"],
        1,
        "first folder's summary.csv g/summary.csv is not a regular file (a FIFO)",
    );
}

/// Issue 33, row 4: sizes read from files or options aborted allocations
/// under a 4 GB address-space cap. Now each exits 1 naming the key or
/// file: a manifest's `total_tasks` of 10^18, a `runs.bin` record whose
/// length field claims more than the file holds, `compare --resamples
/// 1000000000` (at once).
#[test]
fn sizes_from_manifests_records_and_resamples_are_checked_under_a_4_gb_cap() {
    let tmp = tempfile::tempdir().expect("tempdir");
    quickstart_in(tmp.path(), "q.toml", 2, "");
    let shards = shard_folders(tmp.path(), "q.toml", 2);
    let cap = "-v 4194304";
    let long = Duration::from_secs(60);

    // total_tasks = 10^18 in both manifests.
    for s in &shards {
        let copy = tmp.path().join(format!("big-{s}"));
        fs::create_dir(&copy).expect("mkdir");
        for f in ["manifest.json", "runs.bin"] {
            fs::copy(tmp.path().join(s).join(f), copy.join(f)).expect("copy");
        }
        let path = copy.join("manifest.json");
        let mut doc: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).expect("manifest")).expect("json");
        doc["total_tasks"] = serde_json::json!(1_000_000_000_000_000_000u64);
        fs::write(&path, doc.to_string()).expect("write");
    }
    let (code, stderr) = run_limited(
        tmp.path(),
        cap,
        &["merge", "big-s0", "big-s1", "--out", "m1"],
        long,
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "big-s0/manifest.json: `total_tasks` is 1000000000000000000, above the limit"
        ),
        "{stderr}"
    );

    // The first record's length field (bytes 16..24 of the record, after
    // the 8-byte file header) set to 2^40.
    let runs = tmp.path().join("s1/runs.bin");
    let mut bytes = fs::read(&runs).expect("runs.bin");
    bytes[8 + 16..8 + 24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    fs::write(&runs, bytes).expect("write");
    let (code, stderr) = run_limited(tmp.path(), cap, &["merge", "s0", "s1", "--out", "m2"], long);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "s1/runs.bin: record of task 1 at byte 8 is damaged: it claims 1099511627776 bytes"
        ),
        "{stderr}"
    );

    // --resamples past its limit: refused before any folder is read.
    let start = Instant::now();
    let (code, stderr) = run_limited(
        tmp.path(),
        cap,
        &["compare", "s0", "s0", "--resamples", "1000000000"],
        long,
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("--resamples: 1,000,000,000 resamples exceed the limit of 1,000,000"),
        "{stderr}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// A `summary.csv` of `rows` repetitions of one policy, 15 metric values
/// each drawn from a 64-bit LCG seeded with `seed` (about 250 bytes a row).
fn big_summary(dir: &Path, rows: u64, seed: u64) {
    use std::fmt::Write as _;
    fs::create_dir_all(dir).expect("mkdir");
    let mut text = String::from("policy,rep,tenants");
    for i in 0..15 {
        write!(text, ",m{i}").expect("write");
    }
    text.push('\n');
    let mut x = seed;
    for rep in 0..rows {
        write!(text, "p,{rep},3").expect("write");
        for _ in 0..15 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            write!(
                text,
                ",{:.12}",
                (x >> 11) as f64 / (1u64 << 53) as f64 * 100.0
            )
            .expect("write");
        }
        text.push('\n');
    }
    fs::write(dir.join("summary.csv"), text).expect("write summary");
}

/// Issue 33, row 4: `check` held both summaries as keyed tables (4.5
/// bytes of memory per input byte when they match, 17.7 when most values
/// drift), so large summaries aborted under an address-space cap. Files
/// that line up are now compared as they are read (two 80 MB summaries
/// under `ulimit -v 700000`, which the tables alone would exceed); files
/// whose comparison needs the tables beyond the cap are refused before
/// they are read, naming them (exit 2, check's code for trouble).
#[test]
fn check_streams_large_summaries_and_refuses_tables_past_the_memory_cap() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rows = 320_000;
    big_summary(&tmp.path().join("a"), rows, 1);
    big_summary(&tmp.path().join("same"), rows, 1);
    big_summary(&tmp.path().join("other"), rows, 2);
    let size = fs::metadata(tmp.path().join("a/summary.csv"))
        .expect("size")
        .len();
    assert!(size > 75_000_000, "{size} bytes");
    let cap = "-v 700000";
    let long = Duration::from_secs(120);
    let (code, stderr) = run_limited(tmp.path(), cap, &["check", "a", "--against", "same"], long);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("ok: {} values", rows * 16)),
        "{stderr}"
    );
    let (code, stderr) = run_limited(tmp.path(), cap, &["check", "a", "--against", "other"], long);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "a/summary.csv (76.0 MiB) and other/summary.csv (76.0 MiB) are compared as keyed tables"
        ) && stderr.contains("this process may use (its address-space limit, `ulimit -v`)"),
        "{stderr}"
    );
}
