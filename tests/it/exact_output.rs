//! Exact output (issue 28): what a person or a script reads from `run`
//! (the terminal summary on stderr, `--json` on stdout) in both modes,
//! `check`'s text, markdown and JUnit reports (the same results, and a
//! drift), `table` in LaTeX, markdown and CSV for a model-mode and a
//! job-mode results folder, and `merge --json`, each compared whole with
//! its insta snapshot under `tests/it/snapshots/` (command line, exit
//! code, stdout and stderr in one file). How to update them: `tests/it/main.rs`.
//!
//! Inputs are small and fixed: the quickstart with 2 repetitions, the job
//! quickstart, `--no-plots` (figures are checked elsewhere), `--no-cache`
//! (whether a task came from the result cache depends on the machine's
//! cache, not on the code), `--threads 1` (the thread count is an input
//! here, not a measurement, so it is pinned rather than filtered), and
//! every command runs in a fresh temporary folder with relative paths, so
//! no temporary path reaches the output. What is still measured is
//! filtered, nothing else: see [`WALL_TIME`], [`JOB_RATE`], [`MEASURED_JSON`]
//! and [`PEAK`].

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::common::{repo, tenantsim};

/// `ran … in 0.066 s on 1 thread(s)`: the wall time of the run (stderr of
/// `run` and `merge`), measured, so filtered.
const WALL_TIME: (&str, &str) = (r"(?m)^(ran .*) in \d+(\.\d+)? s\b", "$1 in [wall time] s");

/// `(1113 jobs/s)`: jobs simulated per second of wall time (job mode's
/// terminal summary), measured, so filtered.
const JOB_RATE: (&str, &str) = (r"\(\d+ jobs/s\)", "([measured] jobs/s)");

/// The `--json` fields that are measurements (DESIGN §10.3, the
/// measurements of `run.json`): `wall_time_s`, each policy's `time` object
/// (`engine_s`, `policy_s`, `policy_share`, `simulation_s`) and the
/// process's `peak_rss_bytes`. Their values are filtered; the keys stay,
/// so a renamed or dropped field still fails.
const MEASURED_JSON: (&str, &str) = (
    r#""(wall_time_s|engine_s|policy_s|policy_share|simulation_s|peak_rss_bytes)": -?[0-9][0-9.eE+-]*"#,
    r#""$1": "[measured]""#,
);

/// `memory: 10.5 MiB at peak (resident)`: the process's peak resident
/// set (stderr of `run`), measured, so filtered; the estimate after it is
/// the scenario's at `--threads 1` and stays.
const PEAK: (&str, &str) = (
    r"(?m)^memory: \d+(\.\d+)? (B|KiB|MiB|GiB) at peak",
    "memory: [peak] at peak",
);

/// One command run by the tests: its command line (the repository path
/// left out, so it reads as run from the repository) and its output.
struct Ran {
    command: String,
    output: Output,
}

/// The command line, exit code, stdout and stderr of one command, as one
/// snapshot text.
fn transcript(ran: &Ran) -> String {
    let out = &ran.output;
    format!(
        "$ {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        ran.command,
        out.status
            .code()
            .map_or_else(|| "killed by a signal".to_string(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    )
}

/// `tenantsim ARGS…` in `dir`.
fn tenantsim_in(dir: &Path, args: &[&str]) -> Ran {
    let output = tenantsim()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("tenantsim runs");
    let root = format!("{}/", repo("").display().to_string().trim_end_matches('/'));
    let command = format!("tenantsim {}", args.join(" ")).replace(&root, "");
    Ran { command, output }
}

/// Assert `$value` against snapshot `$name` with the measured parts
/// filtered ([`WALL_TIME`], [`JOB_RATE`], [`MEASURED_JSON`], [`PEAK`]).
macro_rules! assert_exact {
    ($name:expr, $value:expr) => {{
        let mut settings = insta::Settings::clone_current();
        for (regex, replacement) in [WALL_TIME, JOB_RATE, MEASURED_JSON, PEAK] {
            settings.add_filter(regex, replacement);
        }
        settings.bind(|| insta::assert_snapshot!($name, $value));
    }};
}

/// The scenario files, by path relative to the repository.
const QUICKSTART: &str = "scenarios/quickstart.toml";
const JOBS_QUICKSTART: &str = "scenarios/jobs-quickstart.toml";

/// `tenantsim run SCENARIO --out OUT` in `dir` with the fixed options
/// (2 repetitions for a model-mode scenario, the job quickstart's own 1),
/// and `extra`.
fn run_in(dir: &Path, scenario: &str, out: &str, extra: &[&str]) -> Ran {
    let scenario = repo(scenario);
    let scenario = scenario.to_str().expect("a UTF-8 repository path");
    let mut args = vec![
        "run",
        scenario,
        "--out",
        out,
        "--no-plots",
        "--no-cache",
        "--threads",
        "1",
    ];
    if !scenario.ends_with(JOBS_QUICKSTART) {
        args.extend(["--reps", "2"]);
    }
    args.extend(extra);
    tenantsim_in(dir, &args)
}

/// [`run_in`] that must succeed.
fn ran(dir: &Path, scenario: &str, out: &str) {
    let r = run_in(dir, scenario, out, &["--quiet"]);
    assert!(r.output.status.success(), "{}", transcript(&r));
}

#[test]
fn run_terminal_summary_of_model_mode_is_exact() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_in(tmp.path(), QUICKSTART, "q", &[]);
    assert_exact!("run_models_terminal_summary", transcript(&out));
}

/// With one threshold the summary said "the largest speedup over 200
/// log-spaced θ from 0.1 to 0.1" (found by a first-contact audit,
/// 2026-12-06): it now names the one θ.
#[test]
fn a_single_threshold_summary_spoke_of_200_theta_from_it_to_itself() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo(QUICKSTART))
        .expect("quickstart")
        .replace("thresholds = [0.2, 0.1, 0.05]", "thresholds = [0.1]")
        .replace(
            "path = \"../traces/hand.csv\"",
            &format!("path = {:?}", repo("traces/hand.csv").display().to_string()),
        );
    assert!(text.contains("thresholds = [0.1]"), "{text}");
    fs::write(tmp.path().join("one.toml"), text).expect("write");
    let ran = tenantsim_in(
        tmp.path(),
        &["run", "one.toml", "--out", "o", "--no-plots", "--no-cache"],
    );
    let err = String::from_utf8_lossy(&ran.output.stderr);
    assert!(ran.output.status.success(), "{err}");
    assert!(
        err.contains("up to: the speedup at θ = 0.1, the one threshold (speedups_up_to.csv)"),
        "{err}"
    );
    assert!(!err.contains("log-spaced"), "{err}");
}

#[test]
fn run_terminal_summary_of_job_mode_is_exact() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_in(tmp.path(), JOBS_QUICKSTART, "j", &[]);
    assert_exact!("run_jobs_terminal_summary", transcript(&out));
}

#[test]
fn run_json_of_model_mode_is_exact() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_in(tmp.path(), QUICKSTART, "q", &["--json"]);
    assert_exact!("run_models_json", transcript(&out));
}

#[test]
fn run_json_of_job_mode_is_exact() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_in(tmp.path(), JOBS_QUICKSTART, "j", &["--json"]);
    assert_exact!("run_jobs_json", transcript(&out));
}

/// `check results --against golden` in `dir` in each report format
/// (`text` prints its report on stderr only, the others on stdout too),
/// each against snapshot `check_{case}_{format}`.
fn assert_check_reports_exact(dir: &Path, case: &str) {
    for format in ["text", "markdown", "junit"] {
        let out = tenantsim_in(
            dir,
            &[
                "check",
                "results",
                "--against",
                "golden",
                "--format",
                format,
            ],
        );
        assert_exact!(format!("check_{case}_{format}"), transcript(&out));
    }
}

/// A copy of `from/*` (files only: a run without plots has no folder) in
/// `to`.
fn copy_files(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            fs::copy(&path, to.join(path.file_name().expect("a file name"))).expect("copy");
        }
    }
}

#[test]
fn check_reports_of_the_same_results_are_exact() {
    let tmp = tempfile::tempdir().expect("tempdir");
    ran(tmp.path(), QUICKSTART, "results");
    copy_files(&tmp.path().join("results"), &tmp.path().join("golden"));
    assert_check_reports_exact(tmp.path(), "same");
}

#[test]
fn check_reports_of_a_drift_are_exact() {
    let tmp = tempfile::tempdir().expect("tempdir");
    ran(tmp.path(), QUICKSTART, "results");
    let golden = tmp.path().join("golden");
    copy_files(&tmp.path().join("results"), &golden);
    // Two golden values drift: rr-most-cited repetition 1's cumulative
    // regret (to 20) and random-random repetition 0's T(0.2) (to 9 s).
    let summary = golden.join("summary.csv");
    let text = fs::read_to_string(&summary).expect("summary.csv");
    let mut drifted = Vec::new();
    for line in text.lines() {
        let mut fields: Vec<String> = line.split(',').map(str::to_string).collect();
        match (fields[0].as_str(), fields[1].as_str()) {
            ("rr-most-cited", "1") => fields[4] = "20".to_string(),
            ("random-random", "0") => fields[5] = "9.000000".to_string(),
            _ => {}
        }
        drifted.push(fields.join(","));
    }
    let drifted = drifted.join("\n") + "\n";
    assert_ne!(drifted, text, "the golden rows to perturb exist");
    fs::write(&summary, drifted).expect("write");
    assert_check_reports_exact(tmp.path(), "drift");
}

/// `table RESULTS --format F` for F in latex, markdown, csv, each against
/// snapshot `table_{mode}_{F}`.
fn assert_tables_exact(dir: &Path, results: &str, mode: &str) {
    for format in ["latex", "markdown", "csv"] {
        let out = tenantsim_in(dir, &["table", results, "--format", format]);
        assert_exact!(format!("table_{mode}_{format}"), transcript(&out));
    }
}

#[test]
fn table_of_model_mode_results_is_exact_in_latex_markdown_and_csv() {
    let tmp = tempfile::tempdir().expect("tempdir");
    ran(tmp.path(), QUICKSTART, "q");
    assert_tables_exact(tmp.path(), "q", "models");
}

#[test]
fn table_of_job_mode_results_is_exact_in_latex_markdown_and_csv() {
    let tmp = tempfile::tempdir().expect("tempdir");
    ran(tmp.path(), JOBS_QUICKSTART, "j");
    assert_tables_exact(tmp.path(), "j", "jobs");
}

#[test]
fn merge_json_of_two_shards_is_exact() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (shard, out) in [("0/2", "s0"), ("1/2", "s1")] {
        let r = run_in(tmp.path(), QUICKSTART, out, &["--quiet", "--shard", shard]);
        assert!(r.output.status.success(), "{}", transcript(&r));
    }
    let out = tenantsim_in(
        tmp.path(),
        &[
            "merge",
            "s0",
            "s1",
            "--out",
            "m",
            "--threads",
            "1",
            "--json",
        ],
    );
    assert_exact!("merge_json", transcript(&out));
}
