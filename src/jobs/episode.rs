//! One steppable run of a job-mode scenario (DESIGN §15.5): repetition
//! `rep` of policy `policy`, set up exactly as the batch runner sets it up
//! ([`super::run::simulate_job_run`]), owning its jobs so that it lives on
//! by itself (a Python environment, a fork).

use std::borrow::Cow;

use super::scenario::JobScenario;
use super::sim::{JobSimInput, JobStepper, JobTable, SchedInit, SimTypes};
use crate::core::error::{Error, Result};

/// The steppable run of policy `policy` (its index in the scenario) in
/// repetition `rep`, nothing happened yet. Stepped with the scheduler's
/// choices to its end, its outcome is `simulate_job_run(scenario, rep,
/// policy)`'s.
pub fn job_episode(scenario: &JobScenario, rep: u64, policy: usize) -> Result<JobStepper<'static>> {
    let n_policies = scenario.policies.len();
    let p = scenario.policies.get(policy).ok_or_else(|| {
        Error::usage(format!(
            "policy {policy} is out of range: the scenario has {n_policies} policies (0..{n_policies})"
        ))
    })?;
    let jobs = scenario.rep_jobs(rep);
    let users = scenario.trace.users().len();
    let context = || format!("policy `{}`, repetition {rep}", p.name);
    let scheduler = (p.make)(&SchedInit {
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
    let n = jobs.jobs.len();
    let table = JobTable {
        jobs: Cow::Owned(jobs.jobs.clone()),
        types: jobs.types.clone().map(Cow::Owned),
        trace_jobs: n,
        second: n,
        hidden: false,
        restart_workload: false,
        extra_events: 0,
    };
    JobStepper::with_table(&input, table, scenario.round, scheduler)
        .map_err(|e| e.context(context()))
}
