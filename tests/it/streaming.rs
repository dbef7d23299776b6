//! `tenantsim run` folds each run into the aggregates as it finishes and
//! streams the per-run rows (issue 14, D7). These tests hold every run in
//! memory instead and compute each result file from the definitions — the
//! rep-order means and two-pass bands of `aggregate::stats`, type-7
//! quantiles of the sorted values, and T(θ) of the mean curve by brute
//! force at every breakpoint of the union — then require the files the
//! streaming run wrote to be the same bytes.

use crate::common;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use common::{repo, tenantsim, tree};
use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::aggregate::{
    Ratio, mean, median_ratio, quantile, t_band, time_grid, time_ratio, value_ratio,
};
use tenantsim::models::experiment::{RunOptions, run_experiment};
use tenantsim::models::metrics::RepResult;
use tenantsim::models::metrics::{LossCurve, THETA_SLACK};
use tenantsim::models::report::{csv_field, jobs_csv, secs_or_inf, summary_csv, tenants_csv};
use tenantsim::models::scenario::{Scenario, load_scenario};
use tenantsim::models::trace::{Micros, micros_to_secs_string};

/// Run `scenario` with `--reps reps` through the command line into `out`.
fn run_cli(scenario: &Path, reps: u32, threads: u32, out: &Path) {
    tenantsim()
        .arg("run")
        .arg(scenario)
        .args([
            "--reps",
            &reps.to_string(),
            "--threads",
            &threads.to_string(),
        ])
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--no-plots"])
        .assert()
        .success();
}

/// T(θ) of M(τ) = mean of the L_r(τ), straight from the definition: M at
/// every breakpoint of any repetition (and at the latest last arrival),
/// the first instant from the latest last arrival on where every
/// repetition is defined and M ≤ θ.
fn brute_mean_time_to(curves: &[&LossCurve], theta: f64) -> Option<Micros> {
    let from = curves.iter().map(|c| c.last_arrival).max().unwrap_or(0);
    let mut times: Vec<Micros> = curves
        .iter()
        .flat_map(|c| c.times().expect("read").clone())
        .collect();
    times.push(from);
    times.sort_unstable();
    times.dedup();
    times.into_iter().filter(|&t| t >= from).find(|&t| {
        let v: Vec<f64> = curves
            .iter()
            .filter_map(|c| c.loss_at(t).expect("read"))
            .collect();
        v.len() == curves.len() && mean(&v) <= theta + THETA_SLACK
    })
}

/// `curves.csv`, `speedups.csv` and `regret.csv` of the held runs.
fn in_memory_aggregates(s: &Scenario, runs: &[RepResult]) -> [String; 3] {
    let out = s.output();
    let n_pol = s.policies.len();
    let per_policy: Vec<Vec<&LossCurve>> = (0..n_pol)
        .map(|p| {
            runs.iter()
                .filter(|r| r.policy == p)
                .map(|r| &r.curve)
                .collect()
        })
        .collect();
    let last = runs.iter().map(|r| r.outcome.end).max().unwrap_or(0);
    let first = runs
        .iter()
        .filter_map(|r| r.first_completion)
        .min()
        .unwrap_or(last);
    let grid = time_grid(out.grid, out.grid_points, first, last);
    let (ql, qh) = (out.quantiles[0], out.quantiles[1]);

    let mut curves = String::from(tenantsim::models::report::CURVES_HEADER);
    curves.push('\n');
    for (p, cs) in per_policy.iter().enumerate() {
        for &t in &grid {
            let values: Vec<f64> = cs
                .iter()
                .filter_map(|c| c.loss_at(t).expect("read"))
                .collect();
            if values.is_empty() {
                continue;
            }
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let b = t_band(&values, out.confidence);
            let _ = writeln!(
                curves,
                "{},{},{},{},{},{},{},{},{}",
                csv_field(&s.policies[p].name),
                micros_to_secs_string(t),
                b.mean,
                b.low,
                b.high,
                b.n,
                quantile(&sorted, 0.5),
                quantile(&sorted, ql),
                quantile(&sorted, qh)
            );
        }
    }

    let base = s.baseline;
    let mean_t: Vec<Vec<Option<Micros>>> = per_policy
        .iter()
        .map(|cs| {
            s.thresholds
                .iter()
                .map(|&th| brute_mean_time_to(cs, th))
                .collect()
        })
        .collect();
    let baseline = csv_field(&s.policies[base].name);
    let mut speedups = String::from(tenantsim::models::report::SPEEDUPS_HEADER);
    speedups.push('\n');
    for (p, cs) in per_policy.iter().enumerate() {
        for (k, &th) in s.thresholds.iter().enumerate() {
            let per_rep: Vec<Ratio> = per_policy[base]
                .iter()
                .zip(cs)
                .map(|(b, x)| {
                    time_ratio(b.time_to(th).expect("read"), x.time_to(th).expect("read"))
                })
                .collect();
            let _ = writeln!(
                speedups,
                "{},{baseline},{th},{},{},{},{}",
                csv_field(&s.policies[p].name),
                secs_or_inf(mean_t[base][k]),
                secs_or_inf(mean_t[p][k]),
                time_ratio(mean_t[base][k], mean_t[p][k]),
                median_ratio(&per_rep)
            );
        }
    }

    let regrets: Vec<Vec<f64>> = per_policy
        .iter()
        .map(|cs| {
            cs.iter()
                .map(|c| c.cumulative_regret(c.end).expect("read"))
                .collect()
        })
        .collect();
    let mut regret = String::from(tenantsim::models::report::REGRET_HEADER);
    regret.push('\n');
    for (p, rs) in regrets.iter().enumerate() {
        let b = t_band(rs, out.confidence);
        let mut sorted = rs.clone();
        sorted.sort_by(f64::total_cmp);
        let per_rep: Vec<Ratio> = rs
            .iter()
            .zip(&regrets[base])
            .map(|(&x, &b)| value_ratio(x, b))
            .collect();
        let _ = writeln!(
            regret,
            "{},{baseline},{},{},{},{},{},{},{}",
            csv_field(&s.policies[p].name),
            b.n,
            b.mean,
            b.low,
            b.high,
            quantile(&sorted, 0.5),
            value_ratio(b.mean, t_band(&regrets[base], out.confidence).mean),
            median_ratio(&per_rep)
        );
    }
    [curves, speedups, regret]
}

/// `dir/name` holds exactly `want`; otherwise fail naming the first line
/// that differs.
fn same_file(dir: &Path, name: &str, want: &str) {
    let got = fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    if got == want {
        return;
    }
    let (mut g, mut w) = (got.lines(), want.lines());
    for line in 1.. {
        let (a, b) = (g.next(), w.next());
        assert_eq!(a, b, "{name}: line {line} (streamed vs in memory)");
        if a.is_none() {
            break;
        }
    }
    panic!("{name}: differs only in line endings");
}

/// Every result file of the streamed run equals the in-memory one.
fn check_against_in_memory(scenario: &str, reps: u32) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    let path = repo(scenario);
    run_cli(&path, reps, 2, &out);
    let s = load_scenario(
        &path,
        Overrides {
            repetitions: Some(reps),
            ..Overrides::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let held = run_experiment(&s, RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(held.runs.len(), reps as usize * s.policies.len());
    same_file(&out, "summary.csv", &summary_csv(&s, &held.runs));
    same_file(
        &out,
        "tenants.csv",
        &tenants_csv(&s, &held.runs).expect("rows"),
    );
    let [curves, speedups, regret] = in_memory_aggregates(&s, &held.runs);
    same_file(&out, "curves.csv", &curves);
    same_file(&out, "speedups.csv", &speedups);
    same_file(&out, "regret.csv", &regret);
}

#[test]
fn streamed_quickstart_at_1000_reps_equals_the_held_in_memory_results() {
    check_against_in_memory("scenarios/quickstart.toml", 1000);
}

#[test]
fn streamed_online_arrivals_equal_the_held_in_memory_results() {
    // Poisson arrivals: every repetition's curve differs, T(θ) starts at
    // the latest arrival.
    check_against_in_memory("scenarios/online-lcdb-low-load.toml", 4);
}

/// Runs are folded in chunks of 64 per thread; chunk edges and thread
/// counts must not show in any file.
#[test]
fn chunk_edges_and_threads_do_not_change_the_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = repo("scenarios/quickstart.toml");
    let (one, three) = (tmp.path().join("one"), tmp.path().join("three"));
    // 4 policies × 97 reps: 388 runs, chunks of 64 (1 thread) and 192 (3).
    run_cli(&path, 97, 1, &one);
    run_cli(&path, 97, 3, &three);
    let (a, b) = (tree(&one), tree(&three));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "same files"
    );
    for (name, bytes) in &a {
        if name.ends_with("run.json") {
            continue;
        }
        assert!(bytes == &b[name], "{} differs", name.display());
    }
}

/// The rows are spooled to unlinked temporary files: nothing is left in
/// the temporary folder after a run.
#[test]
fn spooled_rows_leave_nothing_in_the_temporary_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spool_dir = tmp.path().join("tmp");
    fs::create_dir(&spool_dir).expect("mkdir");
    let out = tmp.path().join("res");
    tenantsim()
        .env("TMPDIR", &spool_dir)
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .args(["--reps", "50", "--jobs", "--quiet", "--no-plots", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert!(out.join("jobs.csv").is_file());
    assert_eq!(fs::read_dir(&spool_dir).expect("ls").count(), 0);
    // A temporary folder that does not exist is an error naming it.
    tenantsim()
        .env("TMPDIR", tmp.path().join("missing"))
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .args(["--quiet", "--out"])
        .arg(tmp.path().join("res2"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("temporary file for summary.csv"))
        .stderr(predicates::str::contains("missing"));
}

/// While a run is going, its spooled rows are in one open file (shared by
/// every spool, issue 33) whose name is already gone, so even SIGKILL
/// leaves nothing in the temporary folder.
#[cfg(target_os = "linux")]
#[test]
fn killed_run_leaves_no_spool_behind() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spool_dir = tmp.path().join("tmp");
    fs::create_dir(&spool_dir).expect("mkdir");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tenantsim"))
        .env("TMPDIR", &spool_dir)
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .args(["--reps", "1000000", "--quiet", "--out"])
        .arg(tmp.path().join("res"))
        .spawn()
        .expect("spawn");
    // Wait until the process holds its spools open (deleted files in
    // `spool_dir`, seen through /proc).
    let fds = format!("/proc/{}/fd", child.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let open_spools = || {
        fs::read_dir(&fds)
            .map(|d| {
                d.flatten()
                    .filter_map(|e| fs::read_link(e.path()).ok())
                    .filter(|t| t.starts_with(&spool_dir))
                    .inspect(|t| assert!(t.to_string_lossy().ends_with("(deleted)"), "{t:?}"))
                    .count()
            })
            .unwrap_or(0)
    };
    while open_spools() < 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "no spool opened within 30 s"
        );
        assert!(child.try_wait().expect("wait").is_none(), "run ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(fs::read_dir(&spool_dir).expect("ls").count(), 0);
    // One file for the summary, tenants and (here none) jobs rows alike.
    assert_eq!(open_spools(), 1, "the spools share one file");
    child.kill().expect("kill");
    child.wait().expect("wait");
    assert_eq!(fs::read_dir(&spool_dir).expect("ls").count(), 0);
}

/// Regression (issue 34, scale-year's peak of memory): `tenantsim run`
/// formats a run's `tenants.csv` rows 8,192 tenants at a time and its
/// `jobs.csv` rows 16,384 jobs at a time instead of as one text each. A
/// run of 8,300 tenants with 24,900 jobs (two ranges each, the second
/// partial), its log kept (`--jobs`), writes the same bytes as the rows of
/// the run held in memory.
#[test]
fn rows_written_a_range_at_a_time_equal_the_rows_of_the_held_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("s.toml");
    fs::write(
        &path,
        "name = \"ranges\"\nseed = 4\nrepetitions = 1\nfairness = false\n\
         [trace.syn]\nusers = 8320\nmodels = 3\nseed = 5\n\
         [split]\nprior_count = 20\n[cluster]\ngpus = 16\n[output]\nplots = false\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
    )
    .expect("write");
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(&path)
        .args(["--threads", "2", "--jobs", "--quiet", "--no-plots", "--out"])
        .arg(&out)
        .assert()
        .success();
    let s = load_scenario(&path, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    let options = RunOptions {
        keep_jobs: true,
        ..RunOptions::default()
    };
    let held = run_experiment(&s, options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(held.runs[0].tenants.len(), 8300);
    assert_eq!(held.runs[0].outcome.jobs.len(), 24_900);
    same_file(
        &out,
        "tenants.csv",
        &tenants_csv(&s, &held.runs).expect("rows"),
    );
    same_file(&out, "jobs.csv", &jobs_csv(&s, &held.runs).expect("log"));
}
