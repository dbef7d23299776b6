//! The real binary on the bundled scenario.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::str::contains;

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn tenantsim() -> Command {
    Command::cargo_bin("tenantsim").expect("binary built")
}

fn run_quickstart(out: &Path, extra: &[&str]) {
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

#[test]
fn quickstart_writes_its_results_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--jobs")
        .assert()
        .success()
        .stderr(contains("results in"));
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let mut lines = summary.lines();
    assert_eq!(
        lines.next(),
        Some(
            "policy,rep,tenants,final_loss,cumulative_regret,time_to_0.2_s,time_to_0.1_s,\
             time_to_0.05_s,jobs,gpu_busy_fraction,end_s,events,regret_area_mean,regret_area_p50,\
             regret_area_p90,regret_area_max,jain_index,abandoned"
        )
    );
    // 10 repetitions × 4 policies; the first row is the hand-computed run
    // of tests/hand_trace.rs (R = 15.3, end 21 s, busy 41/42); its tenants'
    // regret areas are u1 3.3, u2 1.65, u3 10.35 (mean 5.1, median 3.3).
    assert_eq!(lines.clone().count(), 40);
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with(
            "rr-in-order,0,3,0,15.3,7.000000,20.000000,20.000000,11,0.9761904761904762,21.000000,14,5.1,3.3,"
        ),
        "{first}"
    );
    assert!(first.ends_with(",10.35,0.9848048705840707,0"), "{first}");
    let tenants = fs::read_to_string(out.join("tenants.csv")).expect("tenants.csv");
    assert_eq!(tenants.lines().count(), 1 + 40 * 3);
    let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    assert!(jobs.starts_with("policy,rep,job,gpu,user,model,start_s,end_s,accuracy\n"));
    assert_eq!(jobs.lines().count(), 1 + 40 * 11);
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("run.json is JSON");
    assert_eq!(manifest["seed"], 7);
    assert_eq!(manifest["trace"]["pairs"], 11);
    assert_eq!(manifest["trace"]["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(manifest["scenario"]["name"], "quickstart");
    // No temporary files are left behind.
    for entry in fs::read_dir(&out).expect("results folder") {
        let name = entry.expect("entry").file_name();
        assert!(!name.to_string_lossy().starts_with('.'), "left {name:?}");
    }
}

#[test]
fn same_scenario_gives_byte_identical_results_for_any_thread_count() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    run_quickstart(&a, &["--jobs", "--threads", "1"]);
    run_quickstart(&b, &["--jobs", "--threads", "1"]);
    run_quickstart(&c, &["--jobs", "--threads", "2"]);
    for f in ["summary.csv", "jobs.csv"] {
        let x = fs::read(a.join(f)).expect("read");
        assert_eq!(
            x,
            fs::read(b.join(f)).expect("read"),
            "{f} differs between runs"
        );
        assert_eq!(
            x,
            fs::read(c.join(f)).expect("read"),
            "{f} differs between 1 and 2 threads"
        );
    }
}

#[test]
fn seed_and_reps_overrides_apply() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_quickstart(&a, &["--reps", "3", "--seed", "1"]);
    run_quickstart(&b, &["--reps", "3", "--seed", "2"]);
    let sa = fs::read_to_string(a.join("summary.csv")).expect("read");
    let sb = fs::read_to_string(b.join("summary.csv")).expect("read");
    assert_eq!(sa.lines().count(), 1 + 3 * 4);
    // The deterministic policies agree; the random one differs by seed.
    assert_ne!(sa, sb);
}

#[test]
fn validate_describes_trace_and_scenario() {
    tenantsim()
        .arg("validate")
        .arg(repo("traces/hand.csv"))
        .assert()
        .success()
        .stderr(contains(
            "3 users × 4 models, 11 of 12 pairs available, with model_year, with model_citations",
        ));
    tenantsim()
        .arg("validate")
        .arg(repo("scenarios/quickstart.toml"))
        .assert()
        .success()
        .stderr(contains(
            "policy `random-random`: scheduler random, selector random",
        ));
}

#[test]
fn trace_with_bom_crlf_and_blank_lines_is_accepted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("t.csv");
    fs::write(
        &path,
        "\u{feff}user,model,accuracy,runtime_s\r\na,m,0.5,1\r\n\r\nb,m,0.25,2\r\n",
    )
    .expect("write");
    tenantsim()
        .arg("validate")
        .arg(&path)
        .assert()
        .success()
        .stderr(contains("2 users × 1 models, 2 of 2 pairs"));
}

#[test]
fn help_names_the_commands_and_exit_codes() {
    tenantsim()
        .arg("--help")
        .assert()
        .success()
        .stdout(contains("run"))
        .stdout(contains("validate"))
        .stdout(contains("Exit codes"));
}

#[test]
fn easeml_hand_scenario_runs_every_gp_policy() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/easeml-hand.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success();
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let rows: Vec<Vec<&str>> = summary
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        names,
        [
            "rr-in-order",
            "rr-gp-ucb",
            "ease.ml",
            "hybrid",
            "easeml-proto",
            "greedy-ei-per-second"
        ]
    );
    // Two tenants (u1: 4 models, u3: 4 models), every pair run, loss 0.
    for r in &rows {
        assert_eq!((r[2], r[3], r[8]), ("2", "0", "8"), "{r:?}");
    }
}
