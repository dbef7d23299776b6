//! The paper's view of a run: `curves_by_job.csv` (mean loss after each
//! completed job) and `speedups_up_to.csv` (the largest speedup over a dense
//! θ range, with its θ), checked against a computation from `jobs.csv` and
//! the trace alone, written out here from the definitions.

use crate::common;

use std::collections::BTreeMap;
use std::fs;

use common::{repo, tenantsim};

/// The hand trace's best accuracy per user (ΣA* = 2.60; tests/it/hand_trace.rs).
fn best_possible() -> BTreeMap<String, f64> {
    let text = fs::read_to_string(repo("traces/hand.csv")).expect("hand trace");
    let mut best = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let acc: f64 = f[2].parse().expect("accuracy");
        let e = best.entry(f[0].to_string()).or_insert(0.0f64);
        *e = e.max(acc);
    }
    best
}

/// A completed job: (end_s, user, accuracy).
type Job = (f64, String, f64);

/// Per (policy, rep): the jobs by end time.
fn jobs(csv: &str) -> BTreeMap<(String, u64), Vec<Job>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect(n);
    let (p, r, u, e, a) = (
        col("policy"),
        col("rep"),
        col("user"),
        col("end_s"),
        col("accuracy"),
    );
    let mut out: BTreeMap<(String, u64), Vec<Job>> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        out.entry((f[p].to_string(), f[r].parse().expect("rep")))
            .or_default()
            .push((
                f[e].parse().expect("end"),
                f[u].to_string(),
                f[a].parse().expect("acc"),
            ));
    }
    for v in out.values_mut() {
        v.sort_by(|x, y| x.0.total_cmp(&y.0));
    }
    out
}

/// L after each completion (index 0: before any), every tenant arrived at 0.
fn losses(run: &[Job], best_possible: &BTreeMap<String, f64>) -> Vec<(f64, f64)> {
    let mut best: BTreeMap<&str, f64> = BTreeMap::new();
    let n = best_possible.len() as f64;
    let loss = |best: &BTreeMap<&str, f64>| {
        best_possible
            .iter()
            .map(|(u, a)| a - best.get(u.as_str()).copied().unwrap_or(0.0))
            .sum::<f64>()
            / n
    };
    let mut out = vec![(0.0, loss(&best))];
    for (end, user, acc) in run {
        let b = best.entry(user.as_str()).or_insert(0.0);
        *b = b.max(*acc);
        out.push((*end, loss(&best)));
    }
    out
}

#[test]
fn curves_by_job_and_up_to_speedup_match_a_computation_from_the_job_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let scenario = format!(
        r#"name = "paper-view"
seed = 5
repetitions = 12
thresholds = [0.2, 0.1, 0.05]
[trace]
path = "{}"
[cluster]
gpus = 1
[output]
plots = false
[[policy]]
name = "rr-in-order"
scheduler = "round-robin"
selector = "in-order"
[[policy]]
name = "random-random"
scheduler = "random"
selector = "random"
"#,
        repo("traces/hand.csv").display()
    );
    fs::write(dir.path().join("s.toml"), scenario).expect("scenario");
    let out = dir.path().join("out");
    tenantsim()
        .arg("run")
        .arg(dir.path().join("s.toml"))
        .args(["--jobs", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let read = |name: &str| fs::read_to_string(out.join(name)).expect(name);
    let best = best_possible();
    let runs = jobs(&read("jobs.csv"));

    // curves_by_job.csv: the mean over repetitions of L after j jobs (a
    // repetition with fewer jobs holds its final loss).
    let by_job = read("curves_by_job.csv");
    let mut checked = 0;
    for line in by_job.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (policy, j): (&str, usize) = (f[0], f[1].parse().expect("jobs"));
        let mean: f64 = f[2].parse().expect("mean_loss");
        let per_rep: Vec<f64> = (0..12)
            .map(|r| {
                let l = losses(&runs[&(policy.to_string(), r)], &best);
                l[j.min(l.len() - 1)].1
            })
            .collect();
        let want = per_rep.iter().sum::<f64>() / 12.0;
        assert!(
            (mean - want).abs() < 1e-12,
            "{policy} after {j} jobs: {mean} vs {want}"
        );
        assert_eq!(f[5], "12");
        checked += 1;
    }
    // 11 jobs per run on this trace: j = 0..=11 for both policies.
    assert_eq!(checked, 2 * 12);

    // speedups_up_to.csv: T(θ) of the mean curve M(τ) = mean_r L_r(τ), read
    // at every breakpoint of any repetition, on 200 log-spaced θ in
    // [0.05, 0.2]; the largest finite T_rr / T_random and its θ.
    let time_to = |policy: &str, theta: f64| -> Option<f64> {
        let curves: Vec<Vec<(f64, f64)>> = (0..12)
            .map(|r| losses(&runs[&(policy.to_string(), r)], &best))
            .collect();
        let mut times: Vec<f64> = curves.iter().flatten().map(|p| p.0).collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        times.into_iter().find(|&t| {
            let m = curves
                .iter()
                .map(|c| c.iter().rev().find(|p| p.0 <= t).map_or(c[0].1, |p| p.1))
                .sum::<f64>()
                / 12.0;
            m <= theta + 1e-12
        })
    };
    let (low, high, n) = (0.05f64, 0.2f64, 200);
    let mut best_ratio: Option<(f64, f64)> = None;
    for k in 0..n {
        let theta = if k == n - 1 {
            high
        } else {
            low * (high / low).powf(k as f64 / (n - 1) as f64)
        };
        if let (Some(b), Some(x)) = (
            time_to("rr-in-order", theta),
            time_to("random-random", theta),
        ) && x > 0.0
        {
            let s = b / x;
            if best_ratio.is_none_or(|(r, _)| s > r) {
                best_ratio = Some((s, theta));
            }
        }
    }
    let (want_s, want_theta) = best_ratio.expect("some finite ratio");
    let up_to = read("speedups_up_to.csv");
    let row: Vec<&str> = up_to
        .lines()
        .find(|l| l.starts_with("random-random,"))
        .expect("random-random row")
        .split(',')
        .collect();
    assert_eq!(row[1], "rr-in-order");
    let (s, theta): (f64, f64) = (row[2].parse().expect("speedup"), row[3].parse().expect("θ"));
    assert!((s - want_s).abs() < 1e-9, "up to {s} vs {want_s}");
    assert!(
        (theta - want_theta).abs() < 1e-12,
        "at θ {theta} vs {want_theta}"
    );
    assert_eq!(&row[4..], ["0.05", "0.2", "200"]);
}
