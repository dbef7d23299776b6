//! What-if forks (DESIGN §15.4): `tenantsim whatif` and
//! `models::experiment::whatif`. The unchanged continuation is the plain
//! run, file for file; a change that changes nothing is the identity;
//! GPUs added or removed at a fork act as derived by hand below; every
//! bad input is a clear error.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use tenantsim::models::experiment::whatif::{Change, WhatIf, what_if};
use tenantsim::models::metrics::RepResult;
use tenantsim::models::scenario::{Scenario, load_scenario};
use tenantsim::models::sim::JobRecord;

use crate::common::{assert_same_result_files, repo, tenantsim};

const S: u64 = 1_000_000;

fn load(path: &Path) -> Arc<Scenario> {
    Arc::new(load_scenario(path, Default::default()).expect("the scenario loads"))
}

/// A result without its measurements (wall and policy times) and without
/// its policy index, as JSON.
fn comparable(r: &RepResult) -> Value {
    let mut v = serde_json::to_value(r).expect("serialises");
    let o = v.as_object_mut().expect("an object");
    o.remove("elapsed");
    o.remove("policy_time");
    o.remove("policy");
    if let Some(out) = o.get_mut("outcome").and_then(Value::as_object_mut) {
        out.remove("policy_clock");
    }
    v
}

/// `tenantsim run SCENARIO --reps 1 --jobs --no-plots --out OUT`.
fn run_once(scenario: &Path, out: &Path) {
    tenantsim()
        .args([
            "run",
            "--quiet",
            "--jobs",
            "--no-plots",
            "--reps",
            "1",
            "--out",
        ])
        .arg(out)
        .arg(scenario)
        .assert()
        .success();
}

/// A scenario of one round-robin/in-order policy on `gpus` GPUs over a
/// trace of `users` users with one model each (accuracy 0.5, 0.6, 0.7, …,
/// 10 s each), every tenant arriving at 0, written into `dir`.
fn one_model_each(dir: &Path, users: usize, cluster: &str) -> PathBuf {
    let mut csv = String::from("user,model,accuracy,runtime_s\n");
    for u in 0..users {
        csv.push_str(&format!("u{u},m,{},10\n", 0.5 + 0.1 * u as f64));
    }
    fs::write(dir.join("t.csv"), csv).expect("write trace");
    let toml = format!(
        "name = \"hand\"\nseed = 1\nrepetitions = 1\nthresholds = [0.1]\n\n\
         [trace]\npath = \"t.csv\"\n\n[cluster]\n{cluster}\n\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n"
    );
    let path = dir.join("s.toml");
    fs::write(&path, toml).expect("write scenario");
    path
}

/// (tenant, gpu, start s, end s) of each job.
fn jobs(r: &RepResult) -> Vec<(u32, u32, u64, u64)> {
    r.outcome
        .jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j: JobRecord| (j.tenant, j.gpu, j.start / S, j.end / S))
        .collect()
}

fn only_fork(w: &WhatIf) -> (&RepResult, &RepResult, u64) {
    assert_eq!(w.forks.len(), 1);
    let f = &w.forks[0];
    (&f.baseline, &f.changed, f.at / S)
}

#[test]
fn the_unchanged_continuation_is_the_plain_run_and_adding_no_gpu_is_too() {
    let tmp = tempfile::tempdir().expect("tmp");
    let plain = tmp.path().join("plain");
    run_once(&repo("scenarios/quickstart.toml"), &plain);
    let out = tmp.path().join("w");
    let assert = tenantsim()
        .arg("whatif")
        .arg(&plain)
        .args(["--at", "5", "--gpus", "+0", "--out"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.starts_with("policy "), "{stdout}");
    assert_eq!(stdout.lines().count(), 1 + 2 * 4, "{stdout}");
    assert_same_result_files(&plain, &out.join("baseline"), "baseline");
    assert_same_result_files(&plain, &out.join("changed"), "gpus +0");
    let w: Value =
        serde_json::from_str(&fs::read_to_string(out.join("whatif.json")).expect("whatif.json"))
            .expect("JSON");
    assert_eq!(w["change"]["gpus"], 0);
    assert_eq!(w["at_s"], 5.0);
    for f in w["forks"].as_array().expect("forks") {
        assert!(f["forked_at_s"].as_f64().expect("a time") >= 5.0);
    }
    // The folder is never written twice.
    tenantsim()
        .arg("whatif")
        .arg(&plain)
        .args(["--at", "5", "--gpus", "1", "--out"])
        .arg(&out)
        .assert()
        .failure()
        .code(2)
        .stderr(predicates::str::contains("already exists"));
}

#[test]
fn the_default_folder_is_inside_the_results_and_each_policy_continues_under_the_named_one() {
    let tmp = tempfile::tempdir().expect("tmp");
    let plain = tmp.path().join("plain");
    run_once(&repo("scenarios/quickstart.toml"), &plain);
    tenantsim()
        .arg("whatif")
        .arg(&plain)
        .args(["--at", "0", "--policy", "rr-most-cited"])
        .assert()
        .success();
    let dir = plain.join("whatif-rep0-at0-policy-rr-most-cited");
    // Switched at the first decision point (only arrivals before it), every
    // run is rr-most-cited's: the changed summary's rows are all its row.
    let summary = fs::read_to_string(dir.join("changed/summary.csv")).expect("summary");
    let base = fs::read_to_string(dir.join("baseline/summary.csv")).expect("summary");
    let strip = |line: &str| line.split_once(',').expect("a row").1.to_string();
    let cited = base
        .lines()
        .find(|l| l.starts_with("rr-most-cited,"))
        .map(strip)
        .expect("its row");
    for line in summary.lines().skip(1) {
        assert_eq!(strip(line), cited, "{line}");
    }
}

#[test]
fn switching_to_the_running_policy_changes_nothing_and_at_the_start_gives_the_other_run() {
    let scenario = load(&repo("scenarios/quickstart.toml"));
    for at in [0, 5 * S, 12 * S] {
        let w = what_if(Arc::clone(&scenario), 0, at, Change::Policy(3)).expect("forks");
        let f = &w.forks[3];
        assert_eq!(comparable(&f.changed), comparable(&f.baseline), "at {at}");
        assert_eq!(f.changed.policy, 3);
        if at == 0 {
            for g in &w.forks {
                assert_eq!(comparable(&g.changed), comparable(&f.baseline));
                // The row stays the policy that ran up to the fork.
                assert_eq!(g.changed.policy, g.policy);
            }
        }
    }
}

#[test]
fn gpus_added_at_the_fork_start_a_waiting_tenant_at_that_instant() {
    // Two tenants (A* = 0.5 and 0.6, one 10 s model each) on one GPU.
    // Plain: u0 runs on GPU 0 over [0, 10), u1 over [10, 20); R(end) =
    // 1.1 × 10 + 0.6 × 10 = 17, GPU busy 20 / 20 = 1. With one GPU added at
    // the first decision (t = 0, GPU 0 pending for u0): u1 starts at 0 on
    // the new GPU 1; R(end) = 1.1 × 10 = 11; capacity 2 GPUs × 10 s, busy
    // 20 GPU-s: 1.
    let tmp = tempfile::tempdir().expect("tmp");
    let scenario = load(&one_model_each(tmp.path(), 2, "gpus = 1"));
    let w = what_if(Arc::clone(&scenario), 0, 0, Change::Gpus(1)).expect("forks");
    let (base, changed, at) = only_fork(&w);
    assert_eq!(at, 0);
    assert_eq!(jobs(base), [(0, 0, 0, 10), (1, 0, 10, 20)]);
    assert_eq!(jobs(changed), [(0, 0, 0, 10), (1, 1, 0, 10)]);
    assert!((base.metrics.cumulative_regret - 17.0).abs() < 1e-9);
    assert!((changed.metrics.cumulative_regret - 11.0).abs() < 1e-9);
    assert_eq!(base.metrics.gpu_busy_fraction, 1.0);
    assert_eq!(changed.metrics.gpu_busy_fraction, 1.0);
    assert_eq!(changed.outcome.capacity, Some(20 * u128::from(S)));
    assert_eq!(base.outcome.capacity, None);
    // Added later (at 10 s, when u1 starts on GPU 0) the new GPU idles:
    // capacity 1 × 10 + 2 × 10 = 30 GPU-s, busy 20: 2/3.
    let w = what_if(scenario, 0, 3 * S, Change::Gpus(1)).expect("forks");
    let (base, changed, at) = only_fork(&w);
    assert_eq!(at, 10);
    assert_eq!(jobs(changed), jobs(base));
    assert!((changed.metrics.gpu_busy_fraction - 2.0 / 3.0).abs() < 1e-12);
}

#[test]
fn gpus_removed_at_the_fork_are_free_ones_and_the_rest_wait() {
    // Three tenants (one 10 s model each) on two GPUs. Plain: u0, u1 on
    // GPUs 0, 1 over [0, 10), u2 on GPU 0 over [10, 20).
    let tmp = tempfile::tempdir().expect("tmp");
    let scenario = load(&one_model_each(tmp.path(), 3, "gpus = 2"));
    // One removed at t = 0 (both free; GPU 1, the highest, goes): the
    // tenants run one after another on GPU 0; capacity 1 × 30, busy 30.
    let w = what_if(Arc::clone(&scenario), 0, 0, Change::Gpus(-1)).expect("forks");
    let (base, changed, _) = only_fork(&w);
    assert_eq!(jobs(base), [(0, 0, 0, 10), (1, 1, 0, 10), (2, 0, 10, 20)]);
    assert_eq!(
        jobs(changed),
        [(0, 0, 0, 10), (1, 0, 10, 20), (2, 0, 20, 30)]
    );
    assert_eq!(changed.metrics.gpu_busy_fraction, 1.0);
    // One removed at 10 s (both free again, u2 pending on GPU 0): the same
    // jobs; capacity 2 × 10 + 1 × 10 = 30, busy 30: 1 (plain: 30 / 40).
    let w = what_if(Arc::clone(&scenario), 0, 10 * S, Change::Gpus(-1)).expect("forks");
    let (base, changed, at) = only_fork(&w);
    assert_eq!(at, 10);
    assert_eq!(jobs(changed), jobs(base));
    assert_eq!(base.metrics.gpu_busy_fraction, 0.75);
    assert_eq!(changed.metrics.gpu_busy_fraction, 1.0);
    // Two would leave no GPU: refused.
    let e = what_if(Arc::clone(&scenario), 0, 0, Change::Gpus(-2)).expect_err("refused");
    assert!(e.message().contains("at least one must remain"), "{e}");
    // Three are more than are free.
    let e = what_if(scenario, 0, 0, Change::Gpus(-3)).expect_err("refused");
    assert!(
        e.message()
            .contains("cannot remove 3 GPUs: 2 of the 2 GPUs are free at 0 s"),
        "{e}"
    );
}

#[test]
fn a_typed_cluster_cannot_change_size() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = one_model_each(
        tmp.path(),
        2,
        "nodes = [{type = \"a\", count = 1}]\n\n[cluster.speed]\na = 1.0",
    );
    let e = what_if(load(&path), 0, 0, Change::Gpus(1)).expect_err("refused");
    assert!(
        e.message()
            .contains("cannot add GPUs on a cluster of typed GPUs"),
        "{e}"
    );
}

#[test]
fn bad_inputs_are_clear_errors() {
    let tmp = tempfile::tempdir().expect("tmp");
    let plain = tmp.path().join("plain");
    run_once(&repo("scenarios/quickstart.toml"), &plain);
    let cases: [(&[&str], i32, &str); 7] = [
        (
            &["--at", "-1", "--gpus", "1"],
            2,
            "--at -1: expected a simulated time in seconds, at least 0",
        ),
        (
            &["--at", "100", "--gpus", "1"],
            2,
            "--at 100: past the end: the run of policy `rr-in-order` (repetition 0) has no \
             decision point at or after it (the last at 21.000000 s; the run ended at 21.000000 s)",
        ),
        (
            &["--at", "1", "--policy", "nope"],
            2,
            "--policy nope: no such policy in the scenario (its policies: rr-in-order, \
             rr-most-recent, rr-most-cited, random-random)",
        ),
        (
            &["--at", "1", "--gpus", "-3"],
            2,
            "policy `rr-in-order`, forked at 1.000000 s: cannot remove 3 GPUs: 1 of the 2 GPUs \
             are free at 1 s, and only free GPUs can be removed",
        ),
        (
            &["--at", "1", "--gpus", "1", "--rep", "1"],
            2,
            "--rep 1: the run has 1 repetition(s) (0 to 0)",
        ),
        (&["--at", "1"], 2, "--policy <NAME>|--gpus <±N>"),
        (
            &["--at", "1", "--gpus", "1", "--policy", "rr-in-order"],
            2,
            "cannot be used with",
        ),
    ];
    for (args, code, message) in cases {
        tenantsim()
            .arg("whatif")
            .arg(&plain)
            .args(args)
            .assert()
            .failure()
            .code(code)
            .stderr(predicates::str::contains(message));
    }
    // Nothing was written into the results folder.
    assert!(
        fs::read_dir(&plain)
            .expect("folder")
            .filter_map(Result::ok)
            .all(|e| !e.file_name().to_string_lossy().contains("whatif")),
    );
    tenantsim()
        .arg("whatif")
        .arg(tmp.path().join("missing"))
        .args(["--at", "1", "--gpus", "1"])
        .assert()
        .failure()
        .code(1)
        .stderr(predicates::str::contains(
            "missing: no such results folder (expected the folder `tenantsim run` wrote)",
        ));
    // A job-mode run.
    let jobs = tmp.path().join("jobs");
    run_once(&repo("scenarios/jobs-quickstart.toml"), &jobs);
    tenantsim()
        .arg("whatif")
        .arg(&jobs)
        .args(["--at", "1", "--gpus", "1"])
        .assert()
        .failure()
        .code(1)
        .stderr(predicates::str::contains(
            "its run.json says `mode` = \"jobs\": what-if forks model-mode runs only",
        ));
}

#[test]
fn a_what_if_is_deterministic() {
    let tmp = tempfile::tempdir().expect("tmp");
    let plain = tmp.path().join("plain");
    run_once(&repo("scenarios/quickstart.toml"), &plain);
    let mut tables = Vec::new();
    for name in ["w1", "w2"] {
        let assert = tenantsim()
            .arg("whatif")
            .arg(&plain)
            .args(["--at", "6", "--policy", "random-random", "--out"])
            .arg(tmp.path().join(name))
            .assert()
            .success();
        tables.push(assert.get_output().stdout.clone());
    }
    assert_eq!(tables[0], tables[1]);
    // Every file byte for byte, but run.json's measurements (as for `run`).
    let (a, b) = (tmp.path().join("w1"), tmp.path().join("w2"));
    assert_same_result_files(&a, &b, "two what-ifs");
    let json = |d: &Path| {
        let mut v: Value =
            serde_json::from_str(&fs::read_to_string(d.join("whatif.json")).expect("read"))
                .expect("JSON");
        v.as_object_mut().expect("object").remove("results");
        v
    };
    assert_eq!(json(&a), json(&b));
}
