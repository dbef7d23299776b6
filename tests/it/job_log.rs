//! The job log kept with `--jobs` is written as jobs end (DESIGN §8.5,
//! `models::sim::JobLog`; issue 34): records reach the log in start order
//! once every earlier job has ended, and past a few MiB the log is in a
//! temporary file. These tests check the log an engine writes against
//! what a log in start order must be, and the files of a spilled log
//! against those of one in memory.

use std::collections::BTreeSet;
use std::sync::Arc;

use tenantsim::models::experiment::Episode;
use tenantsim::models::scenario::{Scenario, load_scenario};
use tenantsim::models::sim::{Decided, TenantLimits};

use crate::common::repo;

/// online-lcdb-high-load with tenants that run two jobs at once, leave
/// after half a second without a result (their running jobs cancelled) and a
/// horizon that cuts the jobs still running.
fn busy_scenario() -> Arc<Scenario> {
    let path = repo("scenarios").join("online-lcdb-high-load.toml");
    let mut s = load_scenario(&path, Default::default()).expect("a bundled scenario loads");
    s.config.max_jobs_per_tenant = 2;
    s.config.horizon = Some(4 * 3600 * 1_000_000);
    s.config.limits = TenantLimits {
        patience: Some(500_000),
        ..TenantLimits::default()
    };
    Arc::new(s)
}

/// Regression (the log written as jobs end): a start's number is its
/// place in the log, the log is in start order, each completed job is in
/// the completion order once and in time order, and cancelled and cut
/// jobs are listed, never completed. A log written in the order jobs
/// end, or a start that reported its engine slot, fails here; so does a
/// fork whose log is not the original's copy.
#[test]
fn a_starts_number_is_its_place_in_a_log_kept_in_start_order() {
    let scenario = busy_scenario();
    let (mut cancelled, mut cut, mut reordered) = (0, 0, 0);
    for (rep, policy) in [(0, 0), (1, 1), (2, 2)] {
        let mut ep = Episode::new(Arc::clone(&scenario), rep, policy).expect("an episode");
        let mut starts = Vec::new();
        let mut fork = None;
        while let Some(point) = ep.next_decision().expect("a decision") {
            if let Decided::Started(n, start) = ep.decide(point.policy_choice).expect("a step") {
                starts.push((n, start.tenant as u32, start.model as u32, point.now));
                if starts.len() == 40 {
                    fork = Some((ep.fork().expect("a fork"), starts.clone()));
                }
            }
        }
        let r = ep.finish(true).expect("a result");
        let jobs = r.outcome.jobs.to_vec().expect("the log");
        let label = format!("rep {rep} policy {policy}");
        assert_eq!(jobs.len(), starts.len(), "{label}: one record a start");
        for (k, &(n, tenant, model, now)) in starts.iter().enumerate() {
            assert_eq!(n as usize, k, "{label}: the k-th start is job k");
            let j = &jobs[k];
            assert_eq!(
                (j.tenant, j.model, j.start),
                (tenant, model, now),
                "{label}: job {k}"
            );
        }
        assert!(jobs.windows(2).all(|w| w[0].start <= w[1].start), "{label}");
        // Jobs ended out of start order (what the window reorders).
        let ends: Vec<u64> = jobs.iter().map(|j| j.end).collect();
        reordered += ends.windows(2).filter(|w| w[1] < w[0]).count();
        let order = r.outcome.completion_order.to_vec().expect("the order");
        let completed: BTreeSet<u32> = (0..jobs.len() as u32)
            .filter(|&k| jobs[k as usize].completed)
            .collect();
        assert_eq!(
            order.len(),
            completed.len(),
            "{label}: each completion once"
        );
        assert_eq!(order.iter().copied().collect::<BTreeSet<u32>>(), completed);
        assert!(
            order
                .windows(2)
                .all(|w| jobs[w[0] as usize].end <= jobs[w[1] as usize].end),
            "{label}: completions in time order"
        );
        for j in &jobs {
            assert!(!(j.completed && j.cancelled), "{label}");
            if j.cancelled {
                cancelled += 1;
            } else if !j.completed {
                assert!(
                    j.end > r.outcome.end,
                    "{label}: a cut job ends after the run"
                );
                cut += 1;
            }
        }
        // A fork taken after 40 starts continues to the same log.
        let (mut f, mut fork_starts) = fork.expect("40 starts");
        while let Some(point) = f.next_decision().expect("a decision") {
            if let Decided::Started(n, start) = f.decide(point.policy_choice).expect("a step") {
                fork_starts.push((n, start.tenant as u32, start.model as u32, point.now));
            }
        }
        assert_eq!(fork_starts, starts, "{label}: the fork's starts");
        let fr = f.finish(true).expect("the fork's result");
        assert_eq!(fr.outcome.jobs, r.outcome.jobs, "{label}: the fork's log");
        assert_eq!(fr.outcome.completion_order, r.outcome.completion_order);
    }
    assert!(
        cancelled > 0 && cut > 0 && reordered > 0,
        "the runs cancel ({cancelled}), cut ({cut}) and end jobs out of start order \
         ({reordered})"
    );
}

/// A scenario whose runs cancel jobs (a patience of 2 s, tenants arriving
/// every 0.18 s), cut jobs (horizon) and end them out of start order (two
/// jobs a tenant, three GPUs).
const BUSY: &str = "name = \"busy\"\nseed = 3\nrepetitions = 3\nthresholds = [0.05]\n\
    horizon_s = 60\n\
    [trace.syn]\nusers = 160\nmodels = 6\nseed = 9\n\
    [split]\nprior_count = 40\n\
    [arrivals]\nkind = \"poisson\"\nrate_per_hour = 20000\n\
    [limits]\npatience_s = 2\n\
    [cluster]\ngpus = 3\nmax_jobs_per_tenant = 2\n\
    [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n\
    [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n";

/// Regression (the log written as jobs end): `jobs.csv` of a log spilled
/// to a temporary file from its first record (`TENANTSIM_SPILL_BYTES=0`)
/// is that of a log in memory, and both go through the result cache
/// (stored spilled and read back in memory, and the other way).
#[test]
fn a_spilled_job_log_writes_the_jobs_csv_of_one_in_memory_through_the_cache_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let scenario = dir.path().join("busy.toml");
    std::fs::write(&scenario, BUSY).expect("write scenario");
    let run = |spill: Option<&str>, cache: &[&str], out: &str| {
        let mut cmd = crate::common::tenantsim();
        if let Some(bytes) = spill {
            cmd.env("TENANTSIM_SPILL_BYTES", bytes);
        }
        let out = dir.path().join(out);
        cmd.arg("run")
            .arg(&scenario)
            .arg("--out")
            .arg(&out)
            .args(["--quiet", "--no-plots", "--jobs"])
            .args(cache)
            .assert()
            .success();
        let mut files = crate::common::tree(&out);
        files.remove(std::path::Path::new("run.json"));
        files
    };
    let memory = run(None, &["--no-cache"], "memory");
    let jobs_csv =
        String::from_utf8(memory[std::path::Path::new("jobs.csv")].clone()).expect("UTF-8");
    let rows = jobs_csv.lines().count() - 1;
    assert!(rows > 500, "{rows} rows");
    // The completed jobs listed, numbered in start order with gaps where
    // a job was cancelled or cut: the runs did both.
    let tenants =
        String::from_utf8(memory[std::path::Path::new("tenants.csv")].clone()).expect("UTF-8");
    let abandoned = tenants
        .lines()
        .filter(|l| l.ends_with(",true,false"))
        .count();
    assert!(abandoned > 10, "{abandoned} tenants left");
    let mut numbers: Vec<(String, u64)> = jobs_csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                format!("{},{}", f[0], f[1]),
                f[2].parse().expect("a job number"),
            )
        })
        .collect();
    let listed = numbers.len();
    assert!(
        numbers
            .windows(2)
            .all(|w| w[0].0 != w[1].0 || w[0].1 < w[1].1),
        "rows in start order within a run"
    );
    numbers.dedup_by(|b, a| a.0 == b.0 && b.1 == a.1 + 1);
    assert!(
        numbers.len() > 6,
        "{} of {listed} rows start a run or follow a gap",
        numbers.len()
    );
    let same = |files: std::collections::BTreeMap<_, _>, what: &str| {
        assert!(files == memory, "{what}: the files differ");
    };
    same(run(Some("0"), &["--no-cache"], "spilled"), "spilled");
    let a = dir.path().join("cache-a");
    let cache_a = ["--cache", a.to_str().expect("utf-8 path")];
    same(run(Some("0"), &cache_a, "cold-spilled"), "cold, spilled");
    same(
        run(None, &cache_a, "warm-memory"),
        "stored spilled, read in memory",
    );
    let b = dir.path().join("cache-b");
    let cache_b = ["--cache", b.to_str().expect("utf-8 path")];
    same(run(None, &cache_b, "cold-memory"), "cold, in memory");
    same(
        run(Some("0"), &cache_b, "warm-spilled"),
        "stored in memory, read spilled",
    );
}
