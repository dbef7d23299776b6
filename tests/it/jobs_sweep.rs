//! Job mode through the shared runner (issue "one core, two modes"): a
//! `[sweep]` over `cluster.nodes` and `policy.0.scheduler`, the terminal
//! summary, and `--json` of the same shape as model mode's.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::common::{RESULTS_MARK, assert_same_result_files, repo, tenantsim, tree};

/// What `--quiet` still prints of the bundled job sweep: warnings, which
/// print under `--quiet` too (`cli::degenerate_setups_warn_on_stderr_and_in_run_json`). At the point
/// `cluster.nodes = 2`, `policy.0.scheduler = "sjf"`, sjf and fifo give
/// the same result on its four sampled jobs (issue 27's job-mode
/// warnings). The points where the swept scheduler is fifo, like
/// the baseline, are configured alike and give none.
const JOBS_SWEEP_WARNING: &str = "warning: `jobs-sweep`: every policy gives the same result (mean JCT 4.9375 s, makespan 9.75 s): the 2 policies cannot be told apart on this workload\n";

fn run_sweep(out: &Path, extra: &[&str]) {
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/jobs-sweep.toml"))
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--no-plots"])
        .args(extra)
        .assert()
        .success()
        .stdout("")
        .stderr(JOBS_SWEEP_WARNING);
}

/// The folders of the grid, in grid order (last key fastest).
fn expected_folders() -> Vec<String> {
    let mut out = Vec::new();
    for nodes in [1, 2] {
        for sched in ["fifo", "sjf", "srtf"] {
            out.push(format!(
                "point-{:03}-cluster.nodes={nodes}+policy.0.scheduler={sched}",
                out.len()
            ));
        }
    }
    out
}

/// Rows of a CSV text as (header, rows of cells).
fn csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let header = lines
        .next()
        .map(|h| h.split(',').map(String::from).collect())
        .unwrap_or_default();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

#[test]
fn a_job_sweep_writes_sweep_csv_and_a_folder_per_point_identical_on_1_and_2_threads() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_sweep(&a, &["--jobs", "--threads", "1"]);
    run_sweep(&b, &["--jobs", "--threads", "2"]);
    let mut folders: Vec<String> = fs::read_dir(&a)
        .expect("sweep folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "sweep.csv" && n != RESULTS_MARK)
        .collect();
    folders.sort();
    assert_eq!(folders, expected_folders());
    for f in &folders {
        for file in [
            "summary.csv",
            "users.csv",
            "utilization.csv",
            "jobs.csv",
            "run.json",
        ] {
            assert!(a.join(f).join(file).is_file(), "{f}/{file} missing");
        }
    }
    assert_same_result_files(&a, &b, "1 and 2 threads");
}

/// `sweep.csv` has one row per (point, policy) and its figures are the
/// means over the repetitions of the point's `summary.csv`, recomputed
/// here from that file.
#[test]
fn job_sweep_csv_rows_are_the_means_of_each_points_summary() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("s");
    run_sweep(&out, &[]);
    let (h, rows) = csv(&fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv"));
    assert_eq!(
        h[..7],
        [
            "point",
            "folder",
            "cluster.nodes",
            "policy.0.scheduler",
            "policy",
            "baseline",
            "reps"
        ]
    );
    assert_eq!(rows.len(), 6 * 2, "one row per point × policy");
    let folders = expected_folders();
    for r in &rows {
        let point: usize = r[0].parse().expect("point");
        assert_eq!(r[1], folders[point]);
        assert_eq!(r[5], "fifo", "the scenario's baseline");
        assert_eq!(r[6], "4", "repetitions");
        let (sh, srows) =
            csv(&fs::read_to_string(out.join(&r[1]).join("summary.csv")).expect("summary.csv"));
        let mine: Vec<&Vec<String>> = srows.iter().filter(|s| s[0] == r[4]).collect();
        assert_eq!(mine.len(), 4, "one summary row per repetition");
        for metric in [
            "mean_jct_s",
            "median_jct_s",
            "p95_jct_s",
            "makespan_s",
            "gpu_utilization",
        ] {
            let c = col(&sh, metric);
            let mean = mine
                .iter()
                .map(|s| s[c].parse::<f64>().expect("number"))
                .sum::<f64>()
                / 4.0;
            let got: f64 = r[col(&h, metric)].parse().expect("number");
            // summary.csv rounds times to microseconds.
            assert!(
                (got - mean).abs() < 1e-5,
                "{metric} of {}: {got} vs {mean}",
                r[1]
            );
        }
    }
    // The swept scheduler is really used: at one node, srtf beats fifo.
    let mean_jct = |point: usize, policy: &str| -> f64 {
        rows.iter()
            .find(|r| r[0] == point.to_string() && r[4] == policy)
            .map(|r| r[col(&h, "mean_jct_s")].parse().expect("number"))
            .expect("row")
    };
    assert!(mean_jct(2, "swept") < mean_jct(2, "fifo"));
    assert_eq!(
        mean_jct(0, "swept"),
        mean_jct(0, "fifo"),
        "fifo against fifo"
    );
}

/// Each point folder holds what a plain run of its resolved scenario (from
/// its run.json) writes.
#[test]
fn each_job_sweep_point_equals_a_plain_run_of_its_resolved_scenario() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("s");
    run_sweep(&out, &[]);
    let trace = repo("traces/jobs-hand.csv");
    for (i, folder) in expected_folders().iter().enumerate() {
        let dir = out.join(folder);
        let manifest: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("run.json")).expect("run.json"))
                .expect("JSON");
        assert_eq!(manifest["mode"], "jobs");
        assert_eq!(manifest["sweep_point"]["index"], i);
        let mut resolved = manifest["scenario"].clone();
        assert_eq!(
            resolved["cluster"]["nodes"],
            manifest["sweep_point"]["values"]["cluster.nodes"]
        );
        assert_eq!(
            resolved["policy"][0]["scheduler"],
            manifest["sweep_point"]["values"]["policy.0.scheduler"]
        );
        assert!(resolved.get("sweep").is_none());
        resolved["jobs"]["path"] = serde_json::json!(trace.display().to_string());
        let plain_scenario = tmp.path().join(format!("point-{i}.toml"));
        fs::write(
            &plain_scenario,
            toml::to_string(&resolved).expect("scenario as TOML"),
        )
        .expect("write");
        let plain = tmp.path().join(format!("plain-{i}"));
        tenantsim()
            .arg("run")
            .arg(&plain_scenario)
            .arg("--out")
            .arg(&plain)
            .args(["--quiet", "--no-plots"])
            .assert()
            .success();
        assert_same_result_files(&dir, &plain, folder);
    }
}

fn json_of(scenario: &str, out: &Path) -> serde_json::Value {
    let output = tenantsim()
        .arg("run")
        .arg(repo(scenario))
        .arg("--out")
        .arg(out)
        .args(["--json", "--quiet", "--no-plots"])
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = if scenario.ends_with("jobs-sweep.toml") {
        JOBS_SWEEP_WARNING
    } else {
        ""
    };
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        expected,
        "--quiet prints nothing but warnings"
    );
    serde_json::from_slice(&output.stdout).expect("one JSON document on stdout")
}

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn json_of_a_job_run_has_the_top_level_keys_of_a_model_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let model = json_of("scenarios/quickstart.toml", &tmp.path().join("m"));
    let jobs = json_of("scenarios/jobs-quickstart.toml", &tmp.path().join("j"));
    assert_eq!(keys(&jobs), keys(&model));
    assert_eq!(model["mode"], "models");
    assert_eq!(jobs["mode"], "jobs");
    assert_eq!(jobs["scenario"], "jobs-quickstart");
    assert_eq!(jobs["baseline"], "fifo", "the first policy by default");
    assert_eq!(jobs["repetitions"], 1);
    // fifo's mean JCT on the hand example is 13 s (tests/it/jobs_hand.rs),
    // srtf's 6.2 s: a speedup of 13 / 6.2 over the baseline.
    assert_eq!(jobs["policies"][0]["name"], "fifo");
    assert_eq!(jobs["policies"][0]["mean_jct_s"]["mean"], 13.0);
    assert_eq!(jobs["policies"][3]["name"], "srtf");
    for doc in [&model, &jobs] {
        let t = &doc["policies"][0]["time"];
        assert!(
            t["simulation_s"].as_f64().is_some() && t["policy_s"].as_f64().is_some(),
            "every policy reports its time: {t}"
        );
    }
    let speedup = jobs["policies"][3]["speedup"].as_f64().expect("number");
    assert!((speedup - 13.0 / 6.2).abs() < 1e-12, "{speedup}");
    // Sweeps too: the same top-level keys in both modes, and per point the
    // keys of a single run's summary.
    let model_sweep = json_of("scenarios/sweep.toml", &tmp.path().join("ms"));
    let jobs_sweep = json_of("scenarios/jobs-sweep.toml", &tmp.path().join("js"));
    assert_eq!(keys(&jobs_sweep), keys(&model_sweep));
    assert_eq!(jobs_sweep["sweep"].as_array().map(Vec::len), Some(6));
    let point = &jobs_sweep["sweep"][2];
    assert_eq!(point["values"]["policy.0.scheduler"], "srtf");
    for k in [
        "repetitions",
        "baseline",
        "thresholds",
        "confidence",
        "policies",
    ] {
        assert!(point.get(k).is_some(), "sweep point lacks {k}");
    }
}

#[test]
fn a_job_run_prints_its_summary_table() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let output = tenantsim()
        .arg("run")
        .arg(repo("scenarios/jobs-quickstart.toml"))
        .arg("--out")
        .arg(tmp.path().join("r"))
        .arg("--no-plots")
        .output()
        .expect("runs");
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("baseline `fifo`; means over 1 repetition(s)"),
        "{stderr}"
    );
    let header = stderr
        .lines()
        .find(|l| l.starts_with("policy "))
        .expect("table header");
    for c in ["mean JCT s", "± 95%", "p99 s", "jain", "speedup"] {
        assert!(header.contains(c), "header lacks {c}: {header}");
    }
    let srtf: Vec<&str> = stderr
        .lines()
        .find(|l| l.starts_with("srtf "))
        .expect("srtf row")
        .split_whitespace()
        .collect();
    assert_eq!(srtf[1], "6.200", "srtf's mean JCT by hand");
    assert_eq!(srtf.last(), Some(&"2.097"), "13 / 6.2");
}

#[test]
fn validate_describes_every_point_of_a_job_sweep() {
    tenantsim()
        .arg("validate")
        .arg(repo("scenarios/jobs-sweep.toml"))
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "sweeps 6 point(s) over cluster.nodes (2 values) × policy.0.scheduler (3 values); every point validated",
        ));
}

/// A job-mode scenario with a bad `baseline` or `[output] confidence` is
/// refused before anything runs, naming the key.
#[test]
fn job_scenarios_check_baseline_and_confidence() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/jobs-quickstart.toml")).expect("read");
    let text = text.replace("../traces/", &format!("{}/", repo("traces").display()));
    for (extra, expected) in [
        (
            "baseline = \"nope\"\n",
            "baseline: unknown policy `nope`: expected the name of a [[policy]]",
        ),
        (
            "[output]\nconfidence = 1.5\n",
            "[output].confidence: expected a confidence level strictly between 0 and 1",
        ),
    ] {
        let doc = if extra.starts_with('[') {
            format!("{text}\n{extra}")
        } else {
            text.replacen("repetitions = 1\n", &format!("repetitions = 1\n{extra}"), 1)
        };
        let path = tmp.path().join("s.toml");
        fs::write(&path, doc).expect("write");
        tenantsim()
            .arg("run")
            .arg(&path)
            .arg("--out")
            .arg(tmp.path().join("out"))
            .assert()
            .code(1)
            .stderr(predicates::str::contains(expected));
        assert!(!tmp.path().join("out").exists());
    }
}

/// Interruption is the shared runner's: a job-mode sweep stopped by SIGINT
/// exits 130 and leaves no results folder and no staged leftovers.
#[test]
fn a_job_sweep_stopped_by_sigint_writes_nothing() {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/jobs-sweep.toml")).expect("read");
    let scenario = tmp.path().join("s.toml");
    fs::write(
        &scenario,
        text.replace("../traces/", &format!("{}/", repo("traces").display())),
    )
    .expect("write");
    let out = tmp.path().join("results");
    // 6 points × 2 policies × 200,000 repetitions: far longer than the wait.
    let child = Command::new(env!("CARGO_BIN_EXE_tenantsim"))
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--threads", "1", "--reps", "200000"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    std::thread::sleep(Duration::from_millis(700));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let left: Vec<String> = fs::read_dir(tmp.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["s.toml"], "nothing but the scenario is left");
}

/// Figures of a job sweep: a default run draws the sweep figure and each
/// point's job-mode figures; `tenantsim plot` on a `--no-plots` run draws
/// the same files, byte for byte (regression: `plot` took every sweep
/// point for a model-mode folder and stopped at the missing curves.csv).
#[test]
fn plot_draws_a_job_sweeps_figures_like_the_run_does() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (drawn, later) = (tmp.path().join("drawn"), tmp.path().join("later"));
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/jobs-sweep.toml"))
        .arg("--out")
        .arg(&drawn)
        .arg("--quiet")
        .assert()
        .success();
    run_sweep(&later, &[]);
    assert!(!later.join("plots").exists());
    tenantsim().arg("plot").arg(&later).assert().success();
    let figures = |root: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        tree(root)
            .into_iter()
            .filter(|(rel, _)| rel.components().any(|c| c.as_os_str() == "plots"))
            .collect()
    };
    let (a, b) = (figures(&drawn), figures(&later));
    assert!(
        a.iter()
            .any(|(rel, _)| rel.ends_with("plots/sweep-mean_jct_s.png")),
        "the sweep figure plots the mean JCT: {:?}",
        a.iter().map(|(r, _)| r).collect::<Vec<_>>()
    );
    assert!(
        a.iter()
            .any(|(rel, _)| rel.ends_with("plots/utilization.png")),
        "each point has its utilisation figure"
    );
    assert_eq!(
        a.iter().map(|(r, _)| r).collect::<Vec<_>>(),
        b.iter().map(|(r, _)| r).collect::<Vec<_>>()
    );
    for ((rel, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{} differs", rel.display());
    }
}
