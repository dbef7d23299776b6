//! Honest degenerate results (issue 33): a run where no job starts (a
//! `budget_gpu_s` below every job) is flagged on stderr and in run.json
//! `warnings`, and its regret is never below that of a policy that worked
//! (DESIGN §2.6, the stall horizon); it used to be 0.000.

use std::fs;
use std::path::Path;

use super::common::{repo, tenantsim};

/// The `cumulative_regret` of every row of `dir/summary.csv`.
fn regrets(dir: &Path) -> Vec<f64> {
    let text = fs::read_to_string(dir.join("summary.csv")).expect("summary");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let c = header
        .iter()
        .position(|h| *h == "cumulative_regret")
        .expect("column");
    lines
        .map(|l| {
            l.split(',')
                .nth(c)
                .expect("cell")
                .parse()
                .expect("a number")
        })
        .collect()
}

/// quickstart with its trace by absolute path and `extra` appended.
fn quickstart(dir: &Path, extra: &str) -> std::path::PathBuf {
    let text = fs::read_to_string(repo("scenarios/quickstart.toml")).expect("scenario");
    let trace = repo("traces/hand.csv");
    let text = text.replace(
        "path = \"../traces/hand.csv\"",
        &format!("path = {:?}", trace.display().to_string()),
    );
    let path = dir.join(format!("q{}.toml", extra.len()));
    fs::write(&path, text + extra).expect("write");
    path
}

#[test]
fn a_run_where_no_job_starts_is_flagged_and_its_regret_is_not_below_a_working_policys() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = |scenario: &Path, out: &str| {
        let o = tenantsim()
            .arg("run")
            .arg(scenario)
            .args(["--out", out, "--reps", "3", "--no-plots", "--no-cache"])
            .current_dir(tmp.path())
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let worked = tmp.path().join("worked");
    let stderr = run(&quickstart(tmp.path(), ""), "worked");
    assert!(!stderr.contains("ran nothing"), "{stderr}");
    let stalled = tmp.path().join("stalled");
    let stderr = run(
        &quickstart(tmp.path(), "\n[limits]\nbudget_gpu_s = 0.5\n"),
        "stalled",
    );
    // Every policy of the stalled run is flagged, on stderr and in run.json.
    let doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(stalled.join("run.json")).expect("run.json"))
            .expect("JSON");
    let warnings: Vec<&str> = doc["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.contains("ran nothing in 3 of 3 repetition(s)"))
        .collect();
    assert_eq!(warnings.len(), 4, "{:?}", doc["warnings"]);
    for w in &warnings {
        assert!(stderr.contains(w), "{w} not on stderr:\n{stderr}");
    }
    // No job ran, and the regret is above every working policy's.
    let text = fs::read_to_string(stalled.join("summary.csv")).expect("summary");
    assert!(
        text.lines().skip(1).all(|l| l.contains(",0,0,0.000000,")),
        "{text}"
    );
    let best_worked = regrets(&worked).into_iter().fold(f64::MIN, f64::max);
    for r in regrets(&stalled) {
        assert!(r > best_worked, "stalled regret {r} <= {best_worked}");
    }
}
