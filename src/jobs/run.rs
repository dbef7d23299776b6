//! Running a job-mode scenario: every repetition × policy, fanned out with
//! rayon; results in (repetition, policy) order whatever the thread count.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::metrics::{JobMetrics, job_metrics};
use super::scenario::{JobScenario, RepJobs};
use super::scheduler::SchedInit;
use super::simulation::{JobOutcome, JobSimInput, simulate_jobs};
use crate::error::{Error, Result};

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

/// Every run of a scenario.
#[derive(Debug, Clone)]
pub struct JobExperiment {
    /// Runs, repetition-major, policy-minor.
    pub runs: Vec<JobRun>,
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
/// (default: all cores).
pub fn run_job_experiment(scenario: &JobScenario, threads: Option<usize>) -> Result<JobExperiment> {
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::input(format!("cannot start {threads} worker threads: {e}")))?;
    let n_pol = scenario.policies.len() as u64;
    let tasks = u64::from(scenario.repetitions()) * n_pol;
    let start = Instant::now();
    let runs = pool.install(|| {
        (0..tasks)
            .into_par_iter()
            .map(|t| {
                if crate::interrupt::requested() {
                    return Err(Error::interrupted(
                        "interrupted: the run stopped before finishing; no results were written",
                    ));
                }
                simulate_job_run(scenario, t / n_pol, (t % n_pol) as usize)
            })
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(JobExperiment {
        runs,
        threads,
        wall: start.elapsed(),
    })
}
