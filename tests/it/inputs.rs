//! Inputs and outputs that used to surprise (issue 14, D8–D10): `run.json`
//! differs between working directories only in the fields it says vary;
//! `check` does not care about row order; a FIFO is rejected instead of
//! read forever.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use common::{repo, tenantsim};
use serde_json::Value;

/// Remove the dotted `path` (`a.b`, or `a[].b` for every element of the
/// list `a`) from `doc`; returns whether anything was there.
fn remove_field(doc: &mut Value, path: &str) -> bool {
    let (head, rest) = match path.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (path, None),
    };
    if let Some(list) = head.strip_suffix("[]") {
        let Some(Value::Array(items)) = doc.get_mut(list) else {
            return false;
        };
        let mut any = false;
        for item in items {
            any |= rest.is_some_and(|r| remove_field(item, r));
        }
        return any;
    }
    match (rest, doc.as_object_mut()) {
        (None, Some(obj)) => obj.remove(head).is_some(),
        (Some(r), Some(obj)) => obj.get_mut(head).is_some_and(|v| remove_field(v, r)),
        _ => false,
    }
}

/// Run `scenario` (a path relative to `cwd`) from `cwd` into `out`, and
/// return its `run.json`.
fn run_from(cwd: &Path, scenario: &str, out: &Path) -> Value {
    tenantsim()
        .current_dir(cwd)
        .args(["run", "--quiet", "--no-plots", scenario, "--out"])
        .arg(out)
        .assert()
        .success();
    let text = fs::read_to_string(out.join("run.json")).expect("run.json");
    serde_json::from_str(&text).expect("run.json is JSON")
}

/// Both documents with their `varying_fields` removed are equal, the list
/// is the same in both, and at least `must_differ` really differ.
fn only_varying_fields_differ(mut a: Value, mut b: Value, must_differ: &[&str]) {
    let fields: Vec<String> = a["varying_fields"]
        .as_array()
        .expect("run.json lists varying_fields")
        .iter()
        .map(|v| v.as_str().expect("a field path").to_string())
        .collect();
    assert_eq!(a["varying_fields"], b["varying_fields"]);
    for f in must_differ {
        assert!(fields.iter().any(|g| g == f), "{f} is listed as varying");
        let path: Vec<&str> = f.split('.').collect();
        let get = |d: &Value| path.iter().fold(d.clone(), |v, k| v[*k].clone());
        assert_ne!(
            get(&a),
            get(&b),
            "{f} differs between the two working directories"
        );
    }
    for f in &fields {
        assert!(remove_field(&mut a, f), "{f} is a field of run.json");
        remove_field(&mut b, f);
    }
    assert_eq!(a, b, "run.json differs outside its varying_fields");
}

#[test]
fn run_json_differs_between_working_directories_only_in_its_varying_fields() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let proj = tmp.path().join("proj");
    fs::create_dir_all(proj.join("scenarios")).expect("mkdir");
    fs::create_dir_all(proj.join("traces")).expect("mkdir");
    fs::copy(repo("traces/hand.csv"), proj.join("traces/hand.csv")).expect("copy trace");
    let scenario = fs::read_to_string(repo("scenarios/quickstart.toml"))
        .expect("quickstart")
        .replace("repetitions = 10", "repetitions = 3")
        + "\n[output]\nplots = false\n";
    fs::write(proj.join("scenarios/q.toml"), scenario).expect("write scenario");
    let a = run_from(&proj, "scenarios/q.toml", &tmp.path().join("a"));
    let b = run_from(&proj.join("scenarios"), "q.toml", &tmp.path().join("b"));
    only_varying_fields_differ(a, b, &["scenario_path", "trace.path"]);
    for f in ["summary.csv", "curves.csv", "speedups.csv"] {
        assert_eq!(
            fs::read(tmp.path().join("a").join(f)).expect("a"),
            fs::read(tmp.path().join("b").join(f)).expect("b"),
            "{f} is the same from both directories"
        );
    }
}

#[test]
fn job_mode_run_json_differs_between_working_directories_only_in_its_varying_fields() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let proj = tmp.path().join("proj");
    fs::create_dir_all(proj.join("scenarios")).expect("mkdir");
    fs::create_dir_all(proj.join("traces")).expect("mkdir");
    fs::copy(
        repo("traces/jobs-hand.csv"),
        proj.join("traces/jobs-hand.csv"),
    )
    .expect("copy");
    let scenario = fs::read_to_string(repo("scenarios/jobs-quickstart.toml")).expect("scenario");
    let scenario = if scenario.contains("[output]") {
        scenario
    } else {
        scenario + "\n[output]\nplots = false\n"
    };
    fs::write(proj.join("scenarios/j.toml"), scenario).expect("write scenario");
    let a = run_from(&proj, "scenarios/j.toml", &tmp.path().join("a"));
    let b = run_from(&proj.join("scenarios"), "j.toml", &tmp.path().join("b"));
    only_varying_fields_differ(a, b, &["scenario_path", "job_trace.path"]);
}

#[test]
fn check_passes_when_only_the_row_order_differs() {
    let golden = repo("tests/golden/quickstart");
    let text = fs::read_to_string(golden.join("summary.csv")).expect("golden summary");
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    lines.reverse();
    let shuffled = format!("{header}\n{}\n", lines.join("\n"));
    assert_ne!(shuffled, text, "the order really changed");
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("summary.csv"), shuffled).expect("write");
    tenantsim()
        .arg("check")
        .arg(tmp.path())
        .arg("--against")
        .arg(&golden)
        .assert()
        .success();
    // A policy really missing is still an error, naming it.
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("rr-most-cited,"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(tmp.path().join("summary.csv"), without).expect("write");
    let out = tenantsim()
        .arg("check")
        .arg(tmp.path())
        .arg("--against")
        .arg(&golden)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("policies differ"), "{stderr}");
    assert!(stderr.contains("`rr-most-cited`"), "{stderr}");
}

#[test]
fn a_fifo_as_trace_or_scenario_is_rejected_instead_of_blocking() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fifo = tmp.path().join("trace.csv");
    let made = StdCommand::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "mkfifo (coreutils) is needed to make the FIFO"
    );
    let scenario = tmp.path().join("s.toml");
    fs::write(
        &scenario,
        "name = \"x\"\n[trace]\npath = \"trace.csv\"\n[cluster]\ngpus = 1\n\
         [[policy]]\nname = \"p\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n",
    )
    .expect("write");
    let fifo_toml = tmp.path().join("fifo.toml");
    let made = StdCommand::new("mkfifo").arg(&fifo_toml).status();
    assert!(made.is_ok_and(|s| s.success()));
    let bin = env!("CARGO_BIN_EXE_tenantsim");
    for (args, fragment) in [
        (
            vec!["validate", "trace.csv"],
            "trace trace.csv is not a regular file (a FIFO)",
        ),
        (
            vec!["validate", "s.toml"],
            "trace trace.csv is not a regular file (a FIFO)",
        ),
        (
            vec!["validate", "fifo.toml"],
            "scenario fifo.toml is not a regular file (a FIFO)",
        ),
        (
            vec!["run", "fifo.toml", "--out", "o"],
            "scenario fifo.toml is not a regular file (a FIFO)",
        ),
    ] {
        let mut child = StdCommand::new(bin)
            .args(&args)
            .current_dir(tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait") {
                break Some(s);
            }
            if start.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let status = status.unwrap_or_else(|| panic!("{args:?} blocked on the FIFO"));
        let mut stderr = String::new();
        if let Some(mut e) = child.stderr.take() {
            std::io::Read::read_to_string(&mut e, &mut stderr).expect("stderr");
        }
        assert_eq!(status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    }
}

#[test]
fn a_ten_megabyte_bad_field_gives_a_short_message() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut trace = String::from("user,model,accuracy,runtime_s\nu1,m1,0.5,1\n");
    trace.push_str("u1,m2,");
    trace.push_str(&"7".repeat(10 << 20));
    trace.push_str("\0x,1\n");
    fs::write(tmp.path().join("t.csv"), trace).expect("write");
    let out = tenantsim()
        .current_dir(tmp.path())
        .args(["validate", "t.csv"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.len() < 1024, "message of {} bytes", stderr.len());
    assert!(
        stderr.contains("t.csv: line 3: field `accuracy`: expected a number, got `777"),
        "{stderr}"
    );
    assert!(stderr.contains("(10485762 bytes in all)"), "{stderr}");
}
