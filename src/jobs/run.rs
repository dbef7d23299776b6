//! Running a job-mode scenario: every repetition × policy, fanned out with
//! rayon; each run's rows are written as it finishes, in (repetition,
//! policy) order whatever the thread count, and only its summary figures
//! are kept.

use std::time::{Duration, Instant};

use super::metrics::{JobMetrics, job_metrics};
use super::report::JobRows;
use super::scenario::{JobScenario, RepJobs};
use super::scheduler::SchedInit;
use super::simulation::{JobOutcome, JobSimInput, simulate_jobs};
use crate::core::error::Result;

/// One (repetition, policy) run.
#[derive(Debug, Clone)]
pub struct JobRun {
    /// Policy index in the scenario.
    pub policy: usize,
    /// Repetition, from 0.
    pub rep: u64,
    /// The jobs of the repetition.
    pub jobs: RepJobs,
    /// What happened.
    pub outcome: JobOutcome,
    /// Summary figures.
    pub metrics: JobMetrics,
}

/// What is kept of a run once its rows are written.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRunSummary {
    /// Policy index in the scenario.
    pub policy: usize,
    /// Repetition, from 0.
    pub rep: u64,
    /// Jobs of the repetition.
    pub jobs: usize,
    /// Summary figures.
    pub metrics: JobMetrics,
}

/// Every run of a scenario, folded.
#[derive(Debug)]
pub struct JobExperiment {
    /// Runs, repetition-major, policy-minor.
    pub runs: Vec<JobRunSummary>,
    /// The rows of the per-run files, written as the runs finished.
    pub rows: JobRows,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time of the simulations.
    pub wall: Duration,
}

/// Simulate policy `policy` in repetition `rep`.
pub fn simulate_job_run(scenario: &JobScenario, rep: u64, policy: usize) -> Result<JobRun> {
    let jobs = scenario.rep_jobs(rep);
    let p = &scenario.policies[policy];
    let users = scenario.trace.users().len();
    let mut scheduler = (p.make)(&SchedInit {
        jobs: &jobs.jobs,
        users,
    });
    let input = JobSimInput {
        jobs: &jobs.jobs,
        users,
        nodes: &scenario.nodes,
        placement: scenario.placement,
        backfill: p.backfill,
        restart_overhead: scenario.restart_overhead,
        record_allocations: false,
    };
    let outcome = simulate_jobs(&input, scheduler.as_mut())
        .map_err(|e| e.context(format!("policy `{}`, repetition {rep}", p.name)))?;
    let metrics = job_metrics(&jobs.jobs, users, &outcome);
    Ok(JobRun {
        policy,
        rep,
        jobs,
        outcome,
        metrics,
    })
}

/// Run every repetition × policy of `scenario` on `threads` threads
/// (default: all cores), writing each run's rows (`jobs.csv` ones too with
/// `with_jobs`) as it finishes. One run per thread is simulated at a time
/// (a run of a large trace holds every job's outcome) while the previous
/// ones are written.
pub fn run_job_experiment(
    scenario: &JobScenario,
    threads: Option<usize>,
    with_jobs: bool,
) -> Result<JobExperiment> {
    let pool = crate::core::runner::thread_pool(threads)?;
    let threads = pool.current_num_threads();
    let n_pol = scenario.policies.len() as u64;
    let tasks = u64::from(scenario.repetitions()) * n_pol;
    let mut rows = JobRows::new(with_jobs)?;
    let mut runs = Vec::new();
    let start = Instant::now();
    crate::core::runner::fold_in_order(
        &pool,
        tasks,
        threads,
        &|t| simulate_job_run(scenario, t / n_pol, (t % n_pol) as usize),
        &mut |r: JobRun| {
            rows.add(scenario, &r)?;
            runs.push(JobRunSummary {
                policy: r.policy,
                rep: r.rep,
                jobs: r.jobs.jobs.len(),
                metrics: r.metrics,
            });
            Ok(())
        },
    )?;
    rows.finish()?;
    Ok(JobExperiment {
        runs,
        rows,
        threads,
        wall: start.elapsed(),
    })
}
