//! Crash-safe outputs: a run stopped by SIGINT exits non-zero with a message
//! and writes nothing that looks complete; a run killed by SIGKILL leaves
//! either the previous complete folder or none.
#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tenantsim"))
}

/// A scenario slow enough (seconds) to be interrupted mid-run.
fn slow_scenario(dir: &Path) -> PathBuf {
    let trace = dir.join("big.csv");
    let status = Command::new(bin())
        .args([
            "gen", "syn", "--users", "2000", "--models", "30", "--seed", "3", "--out",
        ])
        .arg(&trace)
        .stderr(Stdio::null())
        .status()
        .expect("gen runs");
    assert!(status.success());
    let scenario = dir.join("slow.toml");
    fs::write(
        &scenario,
        "name = \"slow\"\nrepetitions = 400\n[trace]\npath = \"big.csv\"\n[split]\ntenant_count = 1500\n\
         [cluster]\ngpus = 8\n[[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
    )
    .expect("write scenario");
    scenario
}

fn start(scenario: &Path, out: &Path) -> Child {
    Command::new(bin())
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(["--threads", "1", "--quiet"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("run starts")
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("kill runs")
        .success();
    assert!(ok, "kill {sig} failed");
}

/// Entries of `dir` whose names do not start with a dot.
fn visible(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|it| {
            it.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigint_stops_the_run_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = slow_scenario(tmp.path());
    let out = tmp.path().join("results");
    let child = start(&scenario, &out);
    sleep(Duration::from_millis(700));
    signal(&child, "-INT");
    let begun = Instant::now();
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("interrupted"), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(
        begun.elapsed() < Duration::from_secs(30),
        "stopping took too long"
    );
    assert!(
        !out.exists(),
        "an interrupted run must not leave a results folder"
    );
    // Nothing half-written is left beside it either.
    let all: Vec<_> = fs::read_dir(tmp.path())
        .expect("ls")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(all.len(), 2, "only the trace and scenario remain: {all:?}");
}

#[test]
fn interrupted_rerun_keeps_the_previous_complete_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = slow_scenario(tmp.path());
    let out = tmp.path().join("results");
    let quick = Command::new(bin())
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .args(["--reps", "1", "--quiet"])
        .status()
        .expect("run");
    assert!(quick.success());
    let before = fs::read(out.join("summary.csv")).expect("summary");
    let child = start(&scenario, &out);
    sleep(Duration::from_millis(700));
    signal(&child, "-INT");
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(fs::read(out.join("summary.csv")).expect("summary"), before);
}

#[test]
fn sigkill_leaves_a_complete_folder_or_none() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = slow_scenario(tmp.path());
    let out = tmp.path().join("results");
    let mut child = start(&scenario, &out);
    sleep(Duration::from_millis(700));
    signal(&child, "-KILL");
    let _ = child.wait();
    if out.exists() {
        let mut names = visible(&out);
        names.sort();
        assert_eq!(
            names,
            ["run.json", "summary.csv"],
            "a results folder must be complete"
        );
    }
    // Whatever was left while staging is hidden (dot-named), never under the final name.
    assert!(
        visible(tmp.path())
            .iter()
            .all(|n| n == "big.csv" || n == "slow.toml" || n == "results")
    );
}
