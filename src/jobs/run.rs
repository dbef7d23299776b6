//! One run of a job-mode scenario: a (repetition, policy) task, and what
//! is kept of it once its rows are written.

use std::time::{Duration, Instant};

use super::metrics::{JobMetrics, job_metrics};
use super::scenario::{JobPolicy, JobScenario, RepJobs};
use super::sim::{
    JobOutcome, JobScheduler, JobSimInput, SchedInit, SimTypes, simulate_jobs,
    simulate_jobs_in_rounds,
};
use crate::core::error::Result;
use crate::core::io::cluster::GpuType;

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

/// The scheduler of policy `p` for repetition `rep` of `scenario`, built as
/// every run of it builds it: the batch run ([`simulate_job_run`]) and a
/// stepped one ([`super::episode::job_episode`]) alike.
pub(super) fn scheduler_for(
    scenario: &JobScenario,
    p: &JobPolicy,
    jobs: &RepJobs,
    rep: u64,
) -> Result<Box<dyn JobScheduler>> {
    (p.make)(&SchedInit {
        jobs: &jobs.jobs,
        users: scenario.trace.users().len(),
        seed: scenario.seed(),
        repetition: rep,
    })
    .map_err(|e| e.context(run_context(p, rep)))
}

/// The simulation input of policy `p` over a repetition's `jobs`
/// (`node_types`: the cluster's, [`crate::core::io::cluster::Cluster::node_types`]).
pub(super) fn sim_input<'a>(
    scenario: &'a JobScenario,
    p: &JobPolicy,
    jobs: &'a RepJobs,
    node_types: &'a [GpuType],
) -> JobSimInput<'a> {
    JobSimInput {
        jobs: &jobs.jobs,
        users: scenario.trace.users().len(),
        nodes: &scenario.nodes,
        cpus: &scenario.cpus,
        placement: scenario.placement,
        backfill: p.backfill,
        restart_overhead: scenario.restart_overhead,
        record_allocations: false,
        types: jobs.types.as_ref().map(|t| SimTypes {
            node_types,
            jobs: t,
            policy: p.type_policy,
        }),
    }
}

/// What an error of run (`p`, `rep`) is prefixed with.
pub(super) fn run_context(p: &JobPolicy, rep: u64) -> String {
    format!("policy `{}`, repetition {rep}", p.name)
}

/// Simulate policy `policy` in repetition `rep`.
pub fn simulate_job_run(scenario: &JobScenario, rep: u64, policy: usize) -> Result<JobRun> {
    let started = Instant::now();
    let jobs = scenario.rep_jobs(rep);
    let p = &scenario.policies[policy];
    let mut scheduler = scheduler_for(scenario, p, &jobs, rep)?;
    let node_types = scenario.cluster.node_types();
    let input = sim_input(scenario, p, &jobs, &node_types);
    let outcome = match scenario.round {
        None => simulate_jobs(&input, scheduler.as_mut()),
        Some(round) => simulate_jobs_in_rounds(&input, round, scheduler.as_mut()),
    }
    .map_err(|e| e.context(run_context(p, rep)))?;
    JobRun::of(scenario, policy, rep, jobs, outcome, started.elapsed())
}

impl JobRun {
    /// Run (`policy`, `rep`) with its `outcome` over the repetition's
    /// `jobs`, its metrics computed from them: a batch run's and a stepped
    /// one's ([`super::episode::job_episode_run`]).
    pub(super) fn of(
        scenario: &JobScenario,
        policy: usize,
        rep: u64,
        jobs: RepJobs,
        outcome: JobOutcome,
        elapsed: Duration,
    ) -> Result<Self> {
        let metrics = job_metrics(&jobs.jobs, scenario.trace.users().len(), &outcome)
            .map_err(|e| e.context(run_context(&scenario.policies[policy], rep)))?;
        Ok(JobRun {
            policy,
            rep,
            jobs,
            outcome,
            metrics,
            elapsed,
        })
    }
}
