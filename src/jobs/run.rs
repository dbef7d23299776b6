//! Running a job-mode scenario: every repetition × policy, fanned out with
//! rayon; each run's rows are written as it finishes, in (repetition,
//! policy) order whatever the thread count, and only its summary figures
//! are kept.

use std::time::Duration;

use super::metrics::{JobMetrics, job_metrics};
use super::mode::JobMode;
use super::report::JobRows;
use super::scenario::{JobScenario, RepJobs};
use super::scheduler::SchedInit;
use super::simulation::{JobOutcome, JobSimInput, simulate_jobs};
use crate::core::error::{Error, Result};
use crate::core::runner::{run_reports, thread_pool};

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
/// (default: all cores) through the shared runner
/// ([`crate::core::runner::run_scenarios`]), writing each run's rows
/// (`jobs.csv` ones too with `with_jobs`) as it finishes. One run per
/// thread is simulated at a time (a run of a large trace holds every job's
/// outcome) while the previous ones are written.
pub fn run_job_experiment(
    scenario: &JobScenario,
    threads: Option<usize>,
    with_jobs: bool,
) -> Result<JobExperiment> {
    let pool = thread_pool(threads)?;
    let reports = run_reports(&JobMode, &pool, &[scenario], with_jobs, &|| {})?;
    reports
        .folds
        .into_iter()
        .next()
        .map(|r| r.experiment)
        .ok_or_else(|| Error::input("internal: no result for the scenario"))
}
