//! The result cache (issue 19): a sweep killed with SIGKILL and run again
//! gives the uninterrupted results byte for byte and runs fewer tasks; a
//! policy added to a finished scenario runs alone; a damaged entry is
//! never used; the default folder follows `$TENANTSIM_CACHE`,
//! `$XDG_CACHE_HOME` and `--no-cache`.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{assert_same_result_files, repo, tenantsim};
use serde_json::Value;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tenantsim"))
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// `execution` of `dir/run.json`: (ran, from_cache).
fn counts(dir: &Path) -> (u64, u64) {
    let doc: Value =
        serde_json::from_slice(&fs::read(dir.join("run.json")).expect("run.json")).expect("JSON");
    let e = &doc["execution"];
    (
        e["ran"].as_u64().expect("ran"),
        e["from_cache"].as_u64().expect("from_cache"),
    )
}

/// Cache entries written so far.
fn entries(cache: &Path) -> usize {
    let Ok(fans) = fs::read_dir(cache.join("v1")) else {
        return 0;
    };
    fans.filter_map(Result::ok)
        .filter_map(|f| fs::read_dir(f.path()).ok())
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .count()
}

/// Every entry file.
fn entry_files(cache: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(cache.join("v1"))
        .expect("cache")
        .filter_map(Result::ok)
        .flat_map(|f| fs::read_dir(f.path()).expect("fan").filter_map(Result::ok))
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// The quickstart scenario in `dir` with `policies` of the given
/// (name, scheduler, selector), its trace path absolute.
fn scenario_with(dir: &Path, policies: &[(&str, &str, &str)]) -> PathBuf {
    let mut text = format!(
        "name = \"q\"\nseed = 5\nrepetitions = 4\nthresholds = [0.2, 0.1]\n\
         [trace]\npath = \"{}\"\n[cluster]\ngpus = 2\n[output]\nplots = false\n",
        repo("traces/hand.csv").display()
    );
    for (name, scheduler, selector) in policies {
        text.push_str(&format!(
            "[[policy]]\nname = \"{name}\"\nscheduler = \"{scheduler}\"\nselector = \"{selector}\"\n"
        ));
    }
    let path = dir.join("q.toml");
    fs::write(&path, text).expect("write scenario");
    path
}

fn run(scenario: &Path, out: &Path, extra: &[&str]) -> Output {
    tenantsim()
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
#[cfg(unix)]
fn a_cached_sweep_killed_with_sigkill_resumes_byte_identical_running_fewer_tasks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = tmp.path().join("big.csv");
    let gen_ok = Command::new(bin())
        .args([
            "gen", "syn", "--users", "600", "--models", "20", "--seed", "3", "--out",
        ])
        .arg(&trace)
        .stderr(Stdio::null())
        .status()
        .expect("gen runs")
        .success();
    assert!(gen_ok);
    // A sweep of 2 points × 15 repetitions, each a fraction of a second.
    let scenario = tmp.path().join("slow.toml");
    fs::write(
        &scenario,
        "name = \"slow\"\nrepetitions = 15\n[trace]\npath = \"big.csv\"\n[split]\ntenant_count = 400\n\
         [cluster]\ngpus = 4\n[output]\nplots = false\n[sweep]\n\"cluster.gpus\" = [4, 6]\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
    )
    .expect("write scenario");
    let total = 30;
    let cache = tmp.path().join("cache");
    let killed_out = tmp.path().join("resumed");
    let mut child = Command::new(bin())
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&killed_out)
        .arg("--cache")
        .arg(&cache)
        .args(["--threads", "1", "--quiet"])
        .stderr(Stdio::null())
        .spawn()
        .expect("run starts");
    let begun = Instant::now();
    while entries(&cache) < 4 {
        assert!(
            begun.elapsed() < Duration::from_secs(120),
            "no task was cached"
        );
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the run ended before the kill"
        );
        sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    assert!(!status.success(), "killed");
    assert!(
        !killed_out.exists(),
        "a killed run leaves no results folder"
    );
    let cached = entries(&cache);
    assert!(cached < total, "killed before the end ({cached} cached)");

    let err = ok(&run(
        &scenario,
        &killed_out,
        &["--cache", &cache.display().to_string()],
    ));
    assert!(err.contains("from the result cache"), "{err}");
    let whole = tmp.path().join("whole");
    ok(&run(&scenario, &whole, &["--no-cache", "--quiet"]));
    assert_same_result_files(&whole, &killed_out, "resumed sweep");
    let (mut ran, mut from_cache) = (0, 0);
    for e in fs::read_dir(&killed_out)
        .expect("ls")
        .filter_map(Result::ok)
    {
        if e.path().is_dir() {
            let (r, c) = counts(&e.path());
            ran += r;
            from_cache += c;
        }
    }
    assert_eq!(ran + from_cache, total as u64);
    assert!(from_cache >= 4, "the finished tasks came from the cache");
    assert!(
        ran < total as u64,
        "the rerun ran fewer tasks than the whole ({ran})"
    );
}

#[test]
fn adding_a_policy_to_a_cached_scenario_runs_only_that_policys_tasks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("cache").display().to_string();
    let two = [
        ("rr", "round-robin", "in-order"),
        ("random", "random", "random"),
    ];
    let scenario = scenario_with(tmp.path(), &two);
    let first = tmp.path().join("first");
    ok(&run(
        &scenario,
        &first,
        &["--cache", &cache, "--quiet", "--jobs"],
    ));
    assert_eq!(counts(&first), (8, 0), "4 repetitions × 2 policies ran");

    let three = [two[0], two[1], ("greedy", "round-robin", "random")];
    let scenario = scenario_with(tmp.path(), &three);
    let second = tmp.path().join("second");
    let err = ok(&run(&scenario, &second, &["--cache", &cache, "--jobs"]));
    assert_eq!(counts(&second), (4, 8), "only the new policy's 4 tasks ran");
    assert!(
        err.contains("tasks: 4 ran, 8 from the result cache"),
        "{err}"
    );
    let fresh = tmp.path().join("fresh");
    ok(&run(
        &scenario,
        &fresh,
        &["--no-cache", "--quiet", "--jobs"],
    ));
    assert_same_result_files(&fresh, &second, "with the added policy");

    // More repetitions: only the new ones run.
    let more = tmp.path().join("more");
    ok(&run(
        &scenario,
        &more,
        &["--cache", &cache, "--quiet", "--jobs", "--reps", "6"],
    ));
    assert_eq!(counts(&more), (6, 12));
    // Without --jobs the runs kept no job log: another key.
    let no_jobs = tmp.path().join("no-jobs");
    ok(&run(&scenario, &no_jobs, &["--cache", &cache, "--quiet"]));
    assert_eq!(counts(&no_jobs), (12, 0));
}

#[test]
fn a_damaged_cache_entry_is_ignored_and_its_task_runs_again() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache_dir = tmp.path().join("cache");
    let cache = cache_dir.display().to_string();
    let scenario = scenario_with(tmp.path(), &[("rr", "round-robin", "in-order")]);
    let first = tmp.path().join("first");
    ok(&run(&scenario, &first, &["--cache", &cache, "--quiet"]));
    let files = entry_files(&cache_dir);
    assert_eq!(files.len(), 4);
    // One truncated, one with a flipped byte, one emptied.
    let bytes = fs::read(&files[0]).expect("entry");
    fs::write(&files[0], &bytes[..bytes.len() - 1]).expect("truncate");
    let mut flipped = fs::read(&files[1]).expect("entry");
    flipped[20] ^= 1;
    fs::write(&files[1], &flipped).expect("flip");
    fs::write(&files[2], b"").expect("empty");
    let second = tmp.path().join("second");
    let err = ok(&run(&scenario, &second, &["--cache", &cache]));
    assert_eq!(
        counts(&second),
        (3, 1),
        "the damaged entries' tasks ran again"
    );
    assert!(err.contains("damaged result cache"), "{err}");
    assert_same_result_files(&first, &second, "after damage");
    // Their entries were replaced: all four are served now.
    let third = tmp.path().join("third");
    ok(&run(&scenario, &third, &["--cache", &cache, "--quiet"]));
    assert_eq!(counts(&third), (0, 4));
}

/// An entry whose checksum holds but whose payload is in another run
/// encoding (the hand-written one before postcard, or a later one) is a
/// miss, never an error: its task runs again, the results are the same,
/// and the entry is replaced by one that is served.
#[test]
fn an_entry_in_another_run_encoding_is_a_miss_not_an_error() {
    use tenantsim::core::run::cache::{seal, unseal};
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache_dir = tmp.path().join("cache");
    let cache = cache_dir.display().to_string();
    let scenario = scenario_with(tmp.path(), &[("rr", "round-robin", "in-order")]);
    let first = tmp.path().join("first");
    ok(&run(&scenario, &first, &["--cache", &cache, "--quiet"]));
    let files = entry_files(&cache_dir);
    assert_eq!(files.len(), 4);
    for f in &files {
        let entry = fs::read(f).expect("entry");
        let payload = unseal(&entry).expect("a whole entry");
        // Sealed again: the checksum holds, the run does not decode (one
        // byte short, and one byte too many).
        let other = if f == &files[0] {
            payload[..payload.len() - 1].to_vec()
        } else {
            [payload, &[0]].concat()
        };
        fs::write(f, seal(&other)).expect("rewrite");
    }
    let second = tmp.path().join("second");
    let err = ok(&run(&scenario, &second, &["--cache", &cache]));
    assert_eq!(counts(&second), (4, 0), "every task ran again: {err}");
    assert!(!err.contains("damaged"), "not reported as damage: {err}");
    assert_same_result_files(&first, &second, "after a change of encoding");
    let third = tmp.path().join("third");
    ok(&run(&scenario, &third, &["--cache", &cache, "--quiet"]));
    assert_eq!(counts(&third), (0, 4), "the entries were replaced");
    assert_same_result_files(&first, &third, "served from the cache");
}

#[test]
fn the_default_cache_follows_tenantsim_cache_and_xdg_cache_home() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = scenario_with(tmp.path(), &[("rr", "round-robin", "in-order")]);
    let xdg = tmp.path().join("xdg");
    let with_env = |out: &str, vars: &[(&str, &Path)], extra: &[&str]| {
        let mut c = tenantsim();
        c.env_remove("TENANTSIM_CACHE");
        for (k, v) in vars {
            c.env(k, v);
        }
        c.arg("run")
            .arg(&scenario)
            .arg("--out")
            .arg(tmp.path().join(out))
            .arg("--quiet")
            .args(extra);
        let o = c.output().expect("runs");
        ok(&o);
        counts(&tmp.path().join(out))
    };
    assert_eq!(with_env("a", &[("XDG_CACHE_HOME", &xdg)], &[]), (4, 0));
    assert_eq!(
        entries(&xdg.join("tenantsim")),
        4,
        "under $XDG_CACHE_HOME/tenantsim"
    );
    assert_eq!(with_env("b", &[("XDG_CACHE_HOME", &xdg)], &[]), (0, 4));
    assert_eq!(
        with_env("c", &[("XDG_CACHE_HOME", &xdg)], &["--no-cache"]),
        (4, 0)
    );
    let own = tmp.path().join("own");
    assert_eq!(with_env("d", &[("TENANTSIM_CACHE", &own)], &[]), (4, 0));
    assert_eq!(entries(&own), 4, "$TENANTSIM_CACHE wins");
    let off = Path::new("off");
    assert_eq!(
        with_env(
            "e",
            &[("TENANTSIM_CACHE", off), ("XDG_CACHE_HOME", &xdg)],
            &[]
        ),
        (4, 0)
    );
    let doc: Value =
        serde_json::from_slice(&fs::read(tmp.path().join("e/run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(
        doc["execution"]["cache"],
        Value::Null,
        "TENANTSIM_CACHE=off: no cache"
    );
}

#[test]
fn concurrent_shards_and_runs_share_one_cache_and_merge_to_the_same_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache = tmp.path().join("cache").display().to_string();
    let scenario = scenario_with(
        tmp.path(),
        &[
            ("rr", "round-robin", "in-order"),
            ("random", "random", "random"),
        ],
    );
    // Three shards and a whole run at once, on one empty cache: they
    // write the same keys concurrently.
    let parts: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("s{i}"))).collect();
    let mut children: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(i, out)| {
            Command::new(bin())
                .arg("run")
                .arg(&scenario)
                .arg("--out")
                .arg(out)
                .args(["--cache", &cache, "--quiet", "--shard", &format!("{i}/3")])
                .stderr(Stdio::piped())
                .spawn()
                .expect("shard starts")
        })
        .collect();
    let together = tmp.path().join("together");
    children.push(
        Command::new(bin())
            .arg("run")
            .arg(&scenario)
            .arg("--out")
            .arg(&together)
            .args(["--cache", &cache, "--quiet"])
            .stderr(Stdio::piped())
            .spawn()
            .expect("run starts"),
    );
    for c in children {
        ok(&c.wait_with_output().expect("wait"));
    }
    let merged = tmp.path().join("merged");
    let o = tenantsim()
        .arg("merge")
        .args(&parts)
        .arg("--out")
        .arg(&merged)
        .arg("--quiet")
        .output()
        .expect("merge");
    ok(&o);
    let fresh = tmp.path().join("fresh");
    ok(&run(&scenario, &fresh, &["--no-cache", "--quiet"]));
    assert_same_result_files(&fresh, &merged, "merged from concurrent shards");
    assert_same_result_files(&fresh, &together, "the concurrent whole run");
    // Every entry is whole: a later run takes all 8 tasks from the cache.
    let after = tmp.path().join("after");
    ok(&run(&scenario, &after, &["--cache", &cache, "--quiet"]));
    assert_eq!(counts(&after), (0, 8));
    assert_same_result_files(&fresh, &after, "from the shared cache");
    // And shards of a rerun take theirs from it too.
    let again = tmp.path().join("again");
    ok(&run(
        &scenario,
        &again,
        &["--cache", &cache, "--quiet", "--shard", "1/3"],
    ));
    let m: Value =
        serde_json::from_slice(&fs::read(again.join("manifest.json")).expect("manifest"))
            .expect("JSON");
    assert_eq!(
        (m["ran"].as_u64(), m["from_cache"].as_u64()),
        (Some(0), Some(3))
    );
}

/// Regression: the job-mode cache key named the node list's GPU counts
/// and the trace but neither the GPU types nor the speed table file, so a
/// run after editing `speeds.csv` was served the old results. Now the key
/// holds the resolved cluster and every job's resolved per-type durations.
#[test]
fn editing_a_speed_table_or_a_node_lists_types_misses_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    fs::write(
        dir.join("jobs.csv"),
        "job_id,user,submit_s,duration_s,gpus,group\na,u,0,8,1,g\nb,u,1,8,1,g\nc,v,2,8,1,h\n",
    )
    .expect("write");
    fs::write(
        dir.join("nodes.csv"),
        "node,gpus,type\nn0,1,slow\nn1,1,fast\n",
    )
    .expect("write");
    fs::write(dir.join("speeds.csv"), "group,gpu_type,speed\ng,fast,2\n").expect("write");
    fs::write(
        dir.join("s.toml"),
        "mode = \"jobs\"\nname = \"t\"\n[jobs]\npath = \"jobs.csv\"\nspeeds = \"speeds.csv\"\n\
         [cluster]\nnode_list = \"nodes.csv\"\n[[policy]]\nname = \"f\"\nscheduler = \"fifo\"\n\
         type_policy = \"fastest\"\n[output]\nplots = false\n",
    )
    .expect("write");
    let cache = dir.join("cache");
    let run_into = |name: &str| {
        let out = dir.join(name);
        ok(&tenantsim()
            .arg("run")
            .arg(dir.join("s.toml"))
            .arg("--out")
            .arg(&out)
            .arg("--cache")
            .arg(&cache)
            .arg("--quiet")
            .output()
            .expect("runs"));
        out
    };
    let first = run_into("first");
    assert_eq!(counts(&first), (1, 0));
    assert_eq!(
        counts(&run_into("again")),
        (0, 1),
        "an unchanged rerun hits"
    );
    fs::write(dir.join("speeds.csv"), "group,gpu_type,speed\ng,fast,4\n").expect("write");
    let faster = run_into("faster");
    assert_eq!(counts(&faster), (1, 0), "a changed speed table misses");
    let jct = |d: &Path| fs::read_to_string(d.join("summary.csv")).expect("summary");
    assert_ne!(jct(&first), jct(&faster), "and its results are new");
    fs::write(
        dir.join("nodes.csv"),
        "node,gpus,type\nn0,1,fast\nn1,1,slow\n",
    )
    .expect("write");
    assert_eq!(
        counts(&run_into("swapped")),
        (1, 0),
        "node types changed with the same GPU counts miss"
    );
}

/// Issue 33: an entry carries its task's identity inside its checksummed
/// payload, so two entries swapped by hand (each whole, each passing its
/// checksum) are misses: their tasks run again, the results are byte for
/// byte those of a run without a cache, stderr warns, and the entries are
/// replaced by the right ones.
#[test]
fn two_swapped_cache_entries_give_the_uncached_results_and_a_warning() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache_dir = tmp.path().join("cache");
    let cache = cache_dir.display().to_string();
    let scenario = scenario_with(tmp.path(), &[("rr", "round-robin", "random")]);
    let uncached = tmp.path().join("uncached");
    ok(&run(&scenario, &uncached, &["--no-cache", "--quiet"]));
    let first = tmp.path().join("first");
    ok(&run(&scenario, &first, &["--cache", &cache, "--quiet"]));
    let files = entry_files(&cache_dir);
    assert_eq!(files.len(), 4);
    let (a, b) = (
        fs::read(&files[0]).expect("a"),
        fs::read(&files[1]).expect("b"),
    );
    assert_ne!(a, b, "two different tasks' entries");
    fs::write(&files[0], &b).expect("swap");
    fs::write(&files[1], &a).expect("swap");
    let second = tmp.path().join("second");
    let err = ok(&run(&scenario, &second, &["--cache", &cache]));
    assert_eq!(
        counts(&second),
        (2, 2),
        "the swapped entries' tasks ran again: {err}"
    );
    assert!(
        err.contains("2 result cache entr(y/ies)") && err.contains("another task"),
        "warns: {err}"
    );
    assert_same_result_files(&uncached, &second, "after a swap");
    let third = tmp.path().join("third");
    ok(&run(&scenario, &third, &["--cache", &cache, "--quiet"]));
    assert_eq!(counts(&third), (0, 4), "the entries were replaced");
    assert_same_result_files(&uncached, &third, "served after the swap");
}

/// `tenantsim cache --cache DIR [--json]`.
fn cache_cmd(cache: &Path, args: &[&str]) -> Output {
    tenantsim()
        .arg("cache")
        .args(args)
        .arg("--cache")
        .arg(cache)
        .output()
        .expect("cache runs")
}

fn cache_json(cache: &Path, args: &[&str]) -> Value {
    let o = cache_cmd(cache, &[args, &["--json"]].concat());
    ok(&o);
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn set_used(path: &Path, days_ago: u64) {
    let f = fs::File::options().append(true).open(path).expect("entry");
    let t = std::time::SystemTime::now() - Duration::from_secs(days_ago * 86_400);
    f.set_modified(t).expect("set mtime");
}

/// Issue 33: `tenantsim cache` tells the folder, entries and size;
/// `cache prune` removes by age, by size (least recently used first: a
/// served entry counts as used) or everything, and never touches a file
/// that is not an entry; bad ages and sizes are usage errors.
#[test]
fn tenantsim_cache_describes_and_prunes_by_age_and_by_size() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cache_dir = tmp.path().join("cache");
    let cache = cache_dir.display().to_string();
    let scenario = scenario_with(tmp.path(), &[("rr", "round-robin", "in-order")]);
    ok(&run(
        &scenario,
        &tmp.path().join("a"),
        &["--cache", &cache, "--quiet"],
    ));
    let files = entry_files(&cache_dir);
    let sizes: Vec<u64> = files
        .iter()
        .map(|f| fs::metadata(f).expect("meta").len())
        .collect();
    let doc = cache_json(&cache_dir, &[]);
    assert_eq!(doc["entries"], 4);
    assert_eq!(doc["bytes"], sizes.iter().sum::<u64>());
    assert_eq!(doc["cache"], cache.as_str());
    let text = String::from_utf8(cache_cmd(&cache_dir, &[]).stdout).expect("utf-8");
    assert!(
        text.contains("entries: 4") && text.contains(&cache),
        "{text}"
    );

    // Ages: 40, 30, 20 and 10 days since last used; a file of the user's
    // own in the cache folder stays.
    for (f, days) in files.iter().zip([40, 30, 20, 10]) {
        set_used(f, days);
    }
    let foreign = files[1].with_file_name("README");
    fs::write(&foreign, "mine").expect("write");
    let pruned = cache_json(&cache_dir, &["prune", "--older-than", "35d"]);
    assert_eq!(pruned["removed_entries"], 1);
    assert!(!files[0].exists() && files[1].exists());
    // Serving an entry makes it the most recently used: files[1] (30 d).
    let served_by = files[1]
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let rerun = tmp.path().join("b");
    ok(&run(&scenario, &rerun, &["--cache", &cache, "--quiet"]));
    assert_eq!(
        counts(&rerun),
        (1, 3),
        "files[0]'s task ran again, the rest served"
    );
    for f in &files[2..] {
        set_used(f, 5);
    }
    set_used(&files[0], 6);
    // Room for one entry: the most recently used (served, touched now) stays.
    let largest = sizes.iter().max().copied().expect("sizes");
    let pruned = cache_json(&cache_dir, &["prune", "--max-size", &largest.to_string()]);
    assert_eq!(pruned["removed_entries"], 3, "{pruned}");
    assert_eq!(pruned["entries"], 1);
    let left: Vec<_> = entry_files(&cache_dir)
        .iter()
        .filter(|p| p.is_file())
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .filter(|n| n != "README")
        .collect();
    assert_eq!(left, [served_by], "the least recently used went first");
    let pruned = cache_json(&cache_dir, &["prune", "--all"]);
    assert_eq!(
        (pruned["removed_entries"].clone(), pruned["entries"].clone()),
        (1.into(), 0.into())
    );
    assert_eq!(fs::read_to_string(&foreign).expect("kept"), "mine");

    // Usage errors (exit 2) say what was expected.
    for (args, expected) in [
        (&["prune"][..], "--older-than"),
        (&["prune", "--older-than", "5y"][..], "30d"),
        (&["prune", "--max-size", "lots"][..], "500M"),
    ] {
        let o = cache_cmd(&cache_dir, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    // Pruning a folder that is no cache is an input error naming it.
    let none = tmp.path().join("none");
    let o = cache_cmd(&none, &["prune", "--all"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("none") && err.contains("no result cache"),
        "{err}"
    );
    assert!(!none.exists(), "nothing created");
}

/// Issue 33: every run keeps its cache within `$TENANTSIM_CACHE_MAX_SIZE`
/// (default 1 GiB), removing the least recently used entries, and says
/// so; the results are those of an uncached run. A cap that is no size is
/// a usage error before anything runs.
#[test]
fn every_run_trims_its_cache_to_the_size_cap() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = scenario_with(tmp.path(), &[("rr", "round-robin", "in-order")]);
    let uncached = tmp.path().join("uncached");
    ok(&run(&scenario, &uncached, &["--no-cache", "--quiet"]));
    let big = tmp.path().join("big");
    let measure = tmp.path().join("measure");
    ok(&run(
        &scenario,
        &measure,
        &["--cache", &big.display().to_string(), "--quiet"],
    ));
    let mut sizes: Vec<u64> = entry_files(&big)
        .iter()
        .map(|f| fs::metadata(f).expect("meta").len())
        .collect();
    sizes.sort_unstable();
    // Room for the two smallest entries, never for three.
    let cap = sizes[0] + sizes[1];
    let small = tmp.path().join("small");
    let out = tmp.path().join("capped");
    let o = tenantsim()
        .env("TENANTSIM_CACHE_MAX_SIZE", cap.to_string())
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .arg("--cache")
        .arg(&small)
        .output()
        .expect("runs");
    let err = ok(&o);
    assert!(err.contains("size cap"), "{err}");
    let kept: u64 = entry_files(&small)
        .iter()
        .map(|f| fs::metadata(f).expect("meta").len())
        .sum();
    let n = entries(&small);
    assert!(
        kept <= cap && (1..=2).contains(&n),
        "{n} entries, {kept} bytes, cap {cap}"
    );
    assert_same_result_files(&uncached, &out, "a capped cache");

    let o = tenantsim()
        .env("TENANTSIM_CACHE_MAX_SIZE", "lots")
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(tmp.path().join("never"))
        .arg("--cache")
        .arg(&small)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("TENANTSIM_CACHE_MAX_SIZE"), "{err}");
    assert!(!tmp.path().join("never").exists());
}
