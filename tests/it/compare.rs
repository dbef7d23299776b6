//! `tenantsim compare A B`: B − A per policy and metric with an interval,
//! paired by repetition when the seeds match.

use crate::common;
use common::{repo, tenantsim};

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn run_into(scenario: &Path, out: &Path, extra: &[&str]) {
    tenantsim()
        .args(["run", "--quiet", "--no-plots", "--out"])
        .arg(out)
        .args(extra)
        .arg(scenario)
        .assert()
        .success();
}

/// The quickstart with rr-most-cited scheduling and selecting at random
/// (its name kept), the trace path made absolute.
fn changed_scenario(dir: &Path) -> PathBuf {
    let text = fs::read_to_string(repo("scenarios/quickstart.toml")).expect("scenario");
    let text = text.replace(
        "\"../traces/hand.csv\"",
        &format!("{:?}", repo("traces/hand.csv").display().to_string()),
    );
    let changed = text.replacen(
        "name = \"rr-most-cited\"\nscheduler = \"round-robin\"\nselector = \"most-cited\"",
        "name = \"rr-most-cited\"\nscheduler = \"random\"\nselector = \"random\"",
        1,
    );
    assert_ne!(changed, text, "the policy to change exists");
    let path = dir.join("changed.toml");
    fs::write(&path, changed).expect("write");
    path
}

fn compare(a: &Path, b: &Path, format: &str) -> Vec<u8> {
    let out = tenantsim()
        .arg("compare")
        .arg(a)
        .arg(b)
        .args(["--format", format])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn paired_interval_excludes_zero_only_for_the_changed_policy_and_is_thread_independent() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = repo("scenarios/quickstart.toml");
    let changed = changed_scenario(tmp.path());
    let reps = ["--reps", "20", "--seed", "1"];
    let dir = |n: &str| tmp.path().join(n);
    run_into(
        &base,
        &dir("a1"),
        &[&reps[..], &["--threads", "1"]].concat(),
    );
    run_into(
        &changed,
        &dir("b1"),
        &[&reps[..], &["--threads", "1"]].concat(),
    );
    run_into(
        &base,
        &dir("a2"),
        &[&reps[..], &["--threads", "2"]].concat(),
    );
    run_into(
        &changed,
        &dir("b2"),
        &[&reps[..], &["--threads", "2"]].concat(),
    );
    let json = compare(&dir("a1"), &dir("b1"), "json");
    for format in ["json", "csv", "text"] {
        assert_eq!(
            compare(&dir("a1"), &dir("b1"), format),
            compare(&dir("a2"), &dir("b2"), format),
            "{format} differs between 1 and 2 threads"
        );
    }
    // The text table printed floats at full precision (`15.309999999999999`,
    // a first-contact audit, 2026-12-06): every number there has at most
    // three decimals (or is scientific), as in the run summaries.
    let text = String::from_utf8(compare(&dir("a1"), &dir("b1"), "text")).expect("utf8");
    for cell in text.lines().skip(1).flat_map(str::split_whitespace) {
        if let Some((_, decimals)) = cell.split_once('.')
            && cell.parse::<f64>().is_ok()
            && !cell.contains('e')
        {
            assert!(decimals.len() <= 3, "`{cell}` in\n{text}");
        }
    }
    let rows: Vec<Value> = serde_json::from_slice(&json).expect("JSON rows");
    let row = |policy: &str, metric: &str| -> &Value {
        rows.iter()
            .find(|r| r["policy"] == policy && r["metric"] == metric)
            .expect("row")
    };
    for r in &rows {
        for key in ["policy", "metric", "diff", "ci_low", "ci_high", "paired"] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
        assert_eq!(r["paired"], true, "{r}");
    }
    // rr-most-cited reaches loss 0.1 sooner when random (20 s → 16.45 s
    // on average over these 20 repetitions): the interval excludes 0.
    let moved = row("rr-most-cited", "time_to_0.1_s");
    let (lo, hi) = (
        moved["ci_low"].as_f64().expect("lo"),
        moved["ci_high"].as_f64().expect("hi"),
    );
    assert!(hi < 0.0, "{moved}");
    assert!(lo <= moved["diff"].as_f64().expect("diff") && lo < hi);
    for policy in ["rr-in-order", "rr-most-recent", "random-random"] {
        for metric in ["cumulative_regret", "time_to_0.1_s", "final_loss"] {
            let r = row(policy, metric);
            let (lo, hi) = (
                r["ci_low"].as_f64().expect("lo"),
                r["ci_high"].as_f64().expect("hi"),
            );
            assert!(lo <= 0.0 && 0.0 <= hi, "{r}");
        }
    }
}

#[test]
fn different_seeds_give_an_unpaired_welch_interval() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = repo("scenarios/quickstart.toml");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_into(&base, &a, &["--reps", "20", "--seed", "1"]);
    run_into(&base, &b, &["--reps", "20", "--seed", "2"]);
    let rows: Vec<Value> = serde_json::from_slice(&compare(&a, &b, "json")).expect("JSON");
    assert!(rows.iter().all(|r| r["paired"] == false));
    let r = rows
        .iter()
        .find(|r| r["policy"] == "random-random" && r["metric"] == "cumulative_regret")
        .expect("row");
    let (lo, hi, diff) = (
        r["ci_low"].as_f64().expect("lo"),
        r["ci_high"].as_f64().expect("hi"),
        r["diff"].as_f64().expect("diff"),
    );
    // Welch's interval is symmetric about the difference.
    assert!(((hi - diff) - (diff - lo)).abs() < 1e-9, "{r}");
    // CSV: one header and one line per JSON row.
    let csv = String::from_utf8(compare(&a, &b, "csv")).expect("utf8");
    assert_eq!(csv.lines().count(), rows.len() + 1);
    assert!(
        csv.starts_with("point,policy,metric,n_a,n_b,mean_a,mean_b,diff,ci_low,ci_high,paired\n")
    );
}

#[test]
fn compare_of_a_sweep_and_a_run_is_an_error() {
    tenantsim()
        .arg("compare")
        .arg(repo("tests/golden/sweep"))
        .arg(repo("tests/golden/quickstart"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "one is a sweep, the other one run",
        ));
}
