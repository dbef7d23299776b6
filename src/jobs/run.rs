//! One run of a job-mode scenario: a (repetition, policy) task, and what
//! is kept of it once its rows are written.

use std::time::{Duration, Instant};

use super::metrics::{JobMetrics, job_metrics};
use super::scenario::{JobScenario, RepJobs};
use super::sim::SchedInit;
use super::sim::{JobOutcome, JobSimInput, SimTypes, simulate_jobs, simulate_jobs_in_rounds};
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
    /// Wall-clock time of the run on its worker thread (a measurement).
    pub elapsed: Duration,
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

/// Simulate policy `policy` in repetition `rep`.
pub fn simulate_job_run(scenario: &JobScenario, rep: u64, policy: usize) -> Result<JobRun> {
    let started = Instant::now();
    let jobs = scenario.rep_jobs(rep);
    let p = &scenario.policies[policy];
    let users = scenario.trace.users().len();
    let context = || format!("policy `{}`, repetition {rep}", p.name);
    let mut scheduler = (p.make)(&SchedInit {
        jobs: &jobs.jobs,
        users,
        seed: scenario.seed(),
        repetition: rep,
    })
    .map_err(|e| e.context(context()))?;
    let node_types = scenario.cluster.node_types();
    let input = JobSimInput {
        jobs: &jobs.jobs,
        users,
        nodes: &scenario.nodes,
        cpus: &scenario.cpus,
        placement: scenario.placement,
        backfill: p.backfill,
        restart_overhead: scenario.restart_overhead,
        record_allocations: false,
        types: jobs.types.as_ref().map(|t| SimTypes {
            node_types: &node_types,
            jobs: t,
            policy: p.type_policy,
        }),
    };
    let outcome = match scenario.round {
        None => simulate_jobs(&input, scheduler.as_mut()),
        Some(round) => simulate_jobs_in_rounds(&input, round, scheduler.as_mut()),
    }
    .map_err(|e| e.context(context()))?;
    let metrics = job_metrics(&jobs.jobs, users, &outcome);
    Ok(JobRun {
        policy,
        rep,
        jobs,
        outcome,
        metrics,
        elapsed: started.elapsed(),
    })
}
