//! Shards and merge (issue 19): `run --shard I/N` for every I, merged,
//! writes the files of the unsharded run byte for byte (run.json but its
//! documented measurements), in model mode and job mode; merge refuses
//! shards of another run, duplicated tasks and missing tasks (listing
//! them), unless `--allow-partial`, which marks the results partial.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{assert_same_result_files, repo, tenantsim, tree};
use serde_json::Value;
use tenantsim::core::testing::scenario_data;

/// The `run.json` fields that may differ between a merged and an
/// unsharded run (docs/DESIGN.md §10.3): measurements (`memory`: the
/// process's peak; a merge states no estimate) and `execution`.
fn without_measurements(mut doc: Value) -> Value {
    if let Some(obj) = doc.as_object_mut() {
        for key in [
            "threads",
            "wall_time_s",
            "execution",
            "scenario_path",
            "memory",
        ] {
            obj.remove(key);
        }
        if let Some(Value::Array(ps)) = obj.get_mut("policies") {
            for p in ps {
                if let Some(p) = p.as_object_mut() {
                    p.remove("time");
                    p.remove("events_per_s");
                }
            }
        }
    }
    doc
}

/// Both folders hold the same files byte for byte, and every `run.json`
/// is the same but for the documented fields.
fn assert_same_results(a: &Path, b: &Path, what: &str) {
    assert_same_result_files(a, b, what);
    let (ta, tb) = (tree(a), tree(b));
    for (rel, bytes) in &ta {
        if rel.file_name().is_some_and(|n| n == "run.json") {
            let parse =
                |b: &[u8]| -> Value { serde_json::from_slice(b).expect("run.json is JSON") };
            assert_eq!(
                without_measurements(parse(bytes)),
                without_measurements(parse(&tb[rel])),
                "{what}: {} differs beyond the documented fields",
                rel.display()
            );
        }
    }
}

fn run(args: &[&str]) -> Output {
    tenantsim().args(args).output().expect("tenantsim runs")
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

fn refused(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Run `scenario` as `count` shards into `dir/shard-I`; their folders.
fn shards(scenario: &Path, dir: &Path, count: u64, extra: &[&str]) -> Vec<PathBuf> {
    (0..count)
        .map(|i| {
            let out = dir.join(format!("shard-{i}"));
            let spec = format!("{i}/{count}");
            let mut args = vec!["run", scenario.to_str().expect("utf-8")];
            let out_s = s(&out);
            args.extend(["--shard", &spec, "--out", &out_s, "--quiet", "--no-cache"]);
            args.extend(extra);
            ok(&run(&args));
            out
        })
        .collect()
}

fn merge(dirs: &[PathBuf], out: &Path, extra: &[&str]) -> Output {
    tenantsim()
        .arg("merge")
        .args(dirs)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("merge runs")
}

fn sharded_merges_equal_the_unsharded_run(scenario: &str, extra: &[&str]) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = repo(scenario);
    let whole = tmp.path().join("whole");
    let mut args = vec!["run", scenario.to_str().expect("utf-8")];
    let whole_s = s(&whole);
    args.extend(["--out", &whole_s, "--quiet", "--no-cache"]);
    args.extend(extra);
    ok(&run(&args));
    for count in [3, 7] {
        let dir = tmp.path().join(format!("by-{count}"));
        let parts = shards(&scenario, &dir, count, extra);
        let merged = dir.join("merged");
        ok(&merge(&parts, &merged, &["--quiet"]));
        assert_same_results(&whole, &merged, &format!("{count} shards"));
        let point = fs::read_dir(&merged)
            .expect("ls")
            .filter_map(Result::ok)
            .find(|e| e.path().is_dir())
            .expect("a point folder")
            .path();
        let doc: Value =
            serde_json::from_slice(&fs::read(point.join("run.json")).expect("run.json"))
                .expect("JSON");
        assert_eq!(
            doc["execution"]["shards_merged"].as_array().map(Vec::len),
            Some(count as usize),
            "run.json lists the shards merged"
        );
        assert!(
            doc.get("partial").is_none(),
            "a complete merge is not partial"
        );
    }
}

#[test]
fn three_and_seven_shards_of_a_model_sweep_merge_to_the_unsharded_results() {
    // --jobs: the job logs travel through the shards too (jobs.csv).
    sharded_merges_equal_the_unsharded_run(
        "scenarios/sweep.toml",
        &["--reps", "3", "--no-plots", "--jobs"],
    );
}

#[test]
fn three_and_seven_shards_of_a_job_sweep_merge_to_the_unsharded_results() {
    sharded_merges_equal_the_unsharded_run(
        "scenarios/jobs-sweep.toml",
        &["--reps", "2", "--no-plots", "--jobs"],
    );
}

/// A typed cluster's results (per-type busy time, each job's GPU type)
/// travel through the shards too.
fn three_shards_of_a_typed_scenario_merge_to_the_unsharded_results(scenario: &str) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = repo(scenario);
    if !scenario_data(&scenario) {
        return;
    }
    let extra = ["--reps", "3", "--no-plots", "--jobs"];
    let whole = tmp.path().join("whole");
    let whole_s = s(&whole);
    let mut args = vec!["run", scenario.to_str().expect("utf-8")];
    args.extend(["--out", &whole_s, "--quiet", "--no-cache"]);
    args.extend(extra);
    ok(&run(&args));
    let parts = shards(&scenario, tmp.path(), 3, &extra);
    let merged = tmp.path().join("merged");
    ok(&merge(&parts, &merged, &["--quiet"]));
    assert_same_results(&whole, &merged, "3 shards of a typed cluster");
}

#[test]
fn shards_of_a_typed_model_scenario_keep_the_per_type_results() {
    three_shards_of_a_typed_scenario_merge_to_the_unsharded_results(
        "scenarios/easeml-dl-mixed.toml",
    );
}

#[test]
fn shards_of_a_typed_job_scenario_keep_the_per_type_results() {
    three_shards_of_a_typed_scenario_merge_to_the_unsharded_results(
        "scenarios/gavel-16-16-16.toml",
    );
}

#[test]
fn merge_refuses_other_runs_duplicates_and_missing_tasks_unless_allow_partial() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = repo("scenarios/sweep.toml");
    let extra = ["--reps", "2", "--no-plots"];
    let parts = shards(&scenario, tmp.path(), 4, &extra);
    let out = tmp.path().join("out");
    // 6 points × 2 repetitions × 2 policies = 24 tasks; shard 2 of 4 holds
    // the tasks k with k mod 4 = 2.
    let missing: Vec<u64> = (0..24).filter(|k| k % 4 == 2).collect();
    let without_2 = [parts[0].clone(), parts[1].clone(), parts[3].clone()];
    let err = refused(&merge(&without_2, &out, &[]));
    assert!(err.contains("6 of 24 tasks are missing"), "{err}");
    assert!(err.contains("task ids 2, 6, 10, 14, 18, 22"), "{err}");
    assert!(err.contains("shard(s) 2/4"), "{err}");
    assert!(!out.exists(), "nothing is written");

    let twice = [
        parts[0].clone(),
        parts[1].clone(),
        parts[2].clone(),
        parts[3].clone(),
        parts[1].clone(),
    ];
    let err = refused(&merge(&twice, &out, &[]));
    assert!(err.contains("is in two shards"), "{err}");

    // A shard of another seed: another scenario.
    let other = tmp.path().join("other-seed");
    let mut args = vec!["run", scenario.to_str().expect("utf-8")];
    let other_s = s(&other);
    args.extend([
        "--shard",
        "2/4",
        "--seed",
        "99",
        "--out",
        &other_s,
        "--quiet",
        "--no-cache",
    ]);
    args.extend(extra);
    ok(&run(&args));
    let mixed = [
        parts[0].clone(),
        parts[1].clone(),
        other.clone(),
        parts[3].clone(),
    ];
    let err = refused(&merge(&mixed, &out, &[]));
    assert!(err.contains("not of the same run"), "{err}");
    assert!(err.contains("different scenario"), "{err}");
    assert!(err.contains("seed 99"), "{err}");
    assert!(!out.exists(), "nothing is written");

    // Even partial, every policy needs a repetition at every point: shard
    // 0 of 4 alone holds only each point's first task (policy 0).
    let err = refused(&merge(&parts[..1], &out, &["--allow-partial"]));
    assert!(err.contains("nothing to aggregate"), "{err}");
    assert!(err.contains("policy `random-random` at point 0"), "{err}");
    assert!(!out.exists(), "nothing is written");

    // --allow-partial: written, and marked partial.
    let o = merge(&without_2, &out, &["--allow-partial", "--json"]);
    let err = ok(&o);
    assert!(err.contains("PARTIAL results"), "{err}");
    let doc: Value = serde_json::from_slice(&o.stdout).expect("--json");
    let listed: Vec<u64> = doc["partial"]["missing_tasks"]
        .as_array()
        .expect("--json lists the missing tasks")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(listed, missing);
    let mut in_points = Vec::new();
    for e in fs::read_dir(&out).expect("ls").filter_map(Result::ok) {
        if e.path().is_dir() {
            let doc: Value =
                serde_json::from_slice(&fs::read(e.path().join("run.json")).expect("run.json"))
                    .expect("JSON");
            in_points.extend(
                doc["partial"]["missing_tasks"]
                    .as_array()
                    .expect("each point's run.json says it is partial")
                    .iter()
                    .filter_map(Value::as_u64),
            );
        }
    }
    in_points.sort_unstable();
    assert_eq!(in_points, missing);
}

#[test]
fn merge_refuses_a_damaged_shard_a_changed_scenario_and_a_folder_it_did_not_write() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("q.toml");
    let text = fs::read_to_string(repo("scenarios/quickstart.toml"))
        .expect("quickstart")
        .replace("../traces/", &format!("{}/", repo("traces").display()));
    fs::write(&scenario, &text).expect("write");
    let extra = ["--reps", "3", "--no-plots"];
    let parts = shards(&scenario, tmp.path(), 2, &extra);

    // Not tenantsim's folder: left alone.
    let mine = tmp.path().join("mine");
    fs::create_dir(&mine).expect("mkdir");
    fs::write(mine.join("notes.txt"), "mine").expect("write");
    let err = refused(&merge(&parts, &mine, &[]));
    assert!(err.contains("refusing to replace"), "{err}");
    assert_eq!(
        fs::read_to_string(mine.join("notes.txt")).expect("kept"),
        "mine"
    );

    // A damaged record: named, refused.
    let runs = parts[1].join("runs.bin");
    let mut bytes = fs::read(&runs).expect("runs.bin");
    let at = bytes.len() / 2;
    bytes[at] ^= 0x55;
    fs::write(&runs, &bytes).expect("damage");
    let out = tmp.path().join("out");
    let err = refused(&merge(&parts, &out, &[]));
    assert!(
        err.contains("damaged") || err.contains("truncated"),
        "{err}"
    );
    assert!(err.contains("runs.bin"), "names the file: {err}");
    assert!(!out.exists());

    // The scenario file edited after the shards ran.
    let parts = shards(&scenario, &tmp.path().join("again"), 2, &extra);
    fs::write(&scenario, text.replace("seed = ", "seed = 1")).expect("edit");
    let err = refused(&merge(&parts, &out, &[]));
    assert!(
        err.contains("scenario file changed since the shards were run"),
        "{err}"
    );
}

#[test]
fn a_shard_folder_defaults_to_results_name_shard_i_of_n() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let o = tenantsim()
        .current_dir(tmp.path())
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .args(["--shard", "1/2", "--reps", "2", "--no-plots", "--no-cache"])
        .output()
        .expect("runs");
    let err = ok(&o);
    let dir = tmp.path().join("results/quickstart.shard-1-of-2");
    assert!(dir.join("manifest.json").is_file(), "{err}");
    let m: Value = serde_json::from_slice(&fs::read(dir.join("manifest.json")).expect("manifest"))
        .expect("JSON");
    assert_eq!(m["shard"]["index"], 1);
    assert_eq!(m["shard"]["count"], 2);
    let tasks: Vec<u64> = m["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    let total = m["total_tasks"].as_u64().expect("total");
    assert_eq!(tasks, (0..total).filter(|k| k % 2 == 1).collect::<Vec<_>>());
    for key in ["scenario_sha256", "trace_sha256", "tool"] {
        assert!(m[key].as_str().is_some_and(|v| !v.is_empty()), "{key}");
    }
}

/// Encode, decode, encode again: the same bytes; every cut of the
/// encoding is an error, never a panic or a run.
fn round_trips<M: tenantsim::core::run::mode::Mode>(mode: &M, scenario: &str, keep_jobs: bool) {
    use tenantsim::core::io::scenario::Overrides;
    if !scenario_data(&repo(scenario)) {
        return;
    }
    let plan = mode
        .load_plan(&repo(scenario), Overrides::default())
        .expect("scenario loads");
    let scenarios = plan.scenarios();
    let s = scenarios[0];
    for task in 0..mode.tasks(s).min(4) {
        let run = mode.run(s, task, keep_jobs).expect("runs");
        let mut bytes = Vec::new();
        mode.encode_run(s, &run, &mut bytes).expect("encodes");
        let back = mode.decode_run(s, &bytes).expect("decodes");
        let mut again = Vec::new();
        mode.encode_run(s, &back, &mut again).expect("encodes");
        assert!(bytes == again, "{scenario} task {task}: not the same bytes");
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            assert!(
                mode.decode_run(s, &bytes[..cut]).is_err(),
                "{scenario} task {task}: a cut at {cut} of {} decoded",
                bytes.len()
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(
            mode.decode_run(s, &longer).is_err(),
            "a longer encoding decoded"
        );
    }
}

#[test]
fn a_run_of_either_mode_encodes_exactly_and_a_cut_encoding_is_an_error() {
    use tenantsim::jobs::JobMode;
    use tenantsim::models::ModelMode;
    // The sweep has fairness (isolated areas); --jobs keeps the job log.
    round_trips(&ModelMode::default(), "scenarios/sweep.toml", true);
    round_trips(&ModelMode::default(), "scenarios/quickstart.toml", false);
    // A typed cluster: per-type busy time and the GPU type of each job.
    round_trips(
        &ModelMode::default(),
        "scenarios/easeml-dl-mixed.toml",
        true,
    );
    round_trips(&JobMode::default(), "scenarios/jobs-sweep.toml", true);
    round_trips(&JobMode::default(), "scenarios/jobs-quickstart.toml", false);
    round_trips(&JobMode::default(), "scenarios/gavel-16-16-16.toml", true);
}

#[test]
fn shards_of_one_scenario_read_from_two_paths_merge() {
    // Two machines may mount the shared folder in different places: the
    // scenario's content decides, not its path.
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/quickstart.toml"))
        .expect("quickstart")
        .replace("../traces/", &format!("{}/", repo("traces").display()));
    let extra = ["--reps", "2", "--no-plots"];
    let mut parts = Vec::new();
    for (i, place) in ["a", "b"].iter().enumerate() {
        let dir = tmp.path().join(place);
        fs::create_dir(&dir).expect("mkdir");
        let scenario = dir.join("q.toml");
        fs::write(&scenario, &text).expect("write");
        let out = dir.join("shard");
        let (spec, out_s) = (format!("{i}/2"), s(&out));
        let mut args = vec!["run", scenario.to_str().expect("utf-8")];
        args.extend(["--shard", &spec, "--out", &out_s, "--quiet", "--no-cache"]);
        args.extend(extra);
        ok(&run(&args));
        parts.push(out);
    }
    let merged = tmp.path().join("merged");
    ok(&merge(&parts, &merged, &["--quiet"]));
    let whole = tmp.path().join("whole");
    let scenario = tmp.path().join("a/q.toml");
    let whole_s = s(&whole);
    let mut args = vec!["run", scenario.to_str().expect("utf-8")];
    args.extend(["--out", &whole_s, "--quiet", "--no-cache"]);
    args.extend(extra);
    ok(&run(&args));
    assert_same_results(&whole, &merged, "shards from two paths");
}

#[test]
fn merge_names_the_input_that_changed_not_the_scenario_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = tmp.path().join("t.csv");
    let original = fs::read_to_string(repo("traces/hand.csv")).expect("trace");
    fs::write(&trace, &original).expect("write");
    let scenario = tmp.path().join("q.toml");
    let text = fs::read_to_string(repo("scenarios/quickstart.toml"))
        .expect("scenario")
        .replace("path = \"../traces/hand.csv\"", "path = \"t.csv\"");
    fs::write(&scenario, &text).expect("write");
    let extra = ["--reps", "2"];
    let parts = shards(&scenario, &tmp.path().join("a"), 2, &extra);
    // One accuracy of the trace edited after the shards ran: the trace is
    // named, not the scenario file (which did not change).
    let edited = original.replacen("0.70", "0.75", 1);
    assert_ne!(edited, original);
    fs::write(&trace, &edited).expect("edit");
    let out = tmp.path().join("out");
    let err = refused(&merge(&parts, &out, &[]));
    assert!(
        err.contains("the trace (its content) changed since the shards were run"),
        "{err}"
    );
    assert!(!err.contains("scenario file"), "{err}");
    assert!(!out.exists());
    // A shard run on the edited trace beside one of the original: the
    // trace is the difference named.
    let other = shards(&scenario, &tmp.path().join("b"), 2, &extra);
    let err = refused(&merge(&[parts[0].clone(), other[1].clone()], &out, &[]));
    assert!(err.contains("different trace (its content): "), "{err}");
    assert!(!err.contains("different scenario"), "{err}");
}

/// Issue 33: a shard record carries its task's identity inside its
/// checksummed entry, so two records of one shard whose runs are swapped
/// (ids kept, each entry whole) are refused by merge, naming the file and
/// the task, and nothing is written.
#[test]
fn merge_refuses_shard_records_whose_runs_were_swapped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = repo("scenarios/quickstart.toml");
    let parts = shards(&scenario, tmp.path(), 2, &["--reps", "3", "--no-plots"]);
    let runs = parts[0].join("runs.bin");
    let bytes = fs::read(&runs).expect("runs.bin");
    // TSSHARD2, then per record: id (8), TSCACHE2 (8), length (8),
    // payload, SHA-256 (32).
    let mut records = Vec::new();
    let mut at = 8;
    while at < bytes.len() {
        let len = u64::from_le_bytes(bytes[at + 16..at + 24].try_into().expect("8 bytes"));
        let end = at + 24 + usize::try_from(len).expect("length") + 32;
        records.push((at, end));
        at = end;
    }
    assert_eq!(at, bytes.len());
    assert!(records.len() >= 2);
    let entry = |(from, to): (usize, usize)| bytes[from + 8..to].to_vec();
    let mut swapped = bytes[..records[0].0].to_vec();
    swapped.extend_from_slice(&bytes[records[0].0..records[0].0 + 8]);
    swapped.extend_from_slice(&entry(records[1]));
    swapped.extend_from_slice(&bytes[records[1].0..records[1].0 + 8]);
    swapped.extend_from_slice(&entry(records[0]));
    swapped.extend_from_slice(&bytes[records[1].1..]);
    assert_eq!(swapped.len(), bytes.len());
    fs::write(&runs, &swapped).expect("swap");
    let out = tmp.path().join("out");
    let err = refused(&merge(&parts, &out, &["--quiet"]));
    assert!(err.contains("runs.bin"), "names the file: {err}");
    assert!(err.contains("another task"), "says why: {err}");
    assert!(!out.exists());
}
