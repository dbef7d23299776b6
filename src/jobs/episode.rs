//! One steppable run of a job-mode scenario (DESIGN §15.5): repetition
//! `rep` of policy `policy`, set up exactly as the batch runner sets it up
//! ([`super::run::simulate_job_run`]), owning its jobs so that it lives on
//! by itself (a Python environment, a fork).

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use super::mode::JobMode;
use super::run::{JobRun, run_context, scheduler_for, sim_input};
use super::scenario::JobScenario;
use super::sim::{JobOutcome, JobStepper, JobTable};
use crate::core::error::{Error, Result};
use crate::core::run::execution::Execution;
use crate::core::run::mode::Mode;

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
    let scheduler = scheduler_for(scenario, p, &jobs, rep)?;
    let node_types = scenario.cluster.node_types();
    let input = sim_input(scenario, p, &jobs, &node_types);
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
        .map_err(|e| e.context(run_context(p, rep)))
}

/// The [`JobRun`] of a steppable run's `outcome` (policy `policy`,
/// repetition `rep`): the jobs and metrics `simulate_job_run` would give
/// it, no wall-clock time (nothing was measured).
pub fn job_episode_run(
    scenario: &JobScenario,
    rep: u64,
    policy: usize,
    outcome: JobOutcome,
) -> Result<JobRun> {
    if policy >= scenario.policies.len() {
        return Err(Error::usage(format!(
            "policy {policy} is out of range: the scenario has {} policies",
            scenario.policies.len()
        )));
    }
    let jobs = scenario.rep_jobs(rep);
    JobRun::of(scenario, policy, rep, jobs, outcome, Duration::ZERO)
}

/// Write the results folder `dir` (which must not exist yet) of one
/// finished job-mode episode (DESIGN §15.5): the files `tenantsim run`
/// writes for `scenario` with that run's policy alone (`policy` 0 in every
/// file, the baseline) and that one repetition, through the [`Mode`]
/// fold, `jobs.csv` with `keep_jobs`, no figures. For repetition 0 they
/// are that run's files byte for byte (`run.json` aside: it records
/// timings).
pub fn write_job_episode(
    dir: &Path,
    scenario: &JobScenario,
    run: &JobRun,
    keep_jobs: bool,
) -> Result<()> {
    let policy = scenario
        .policies
        .get(run.policy)
        .ok_or_else(|| Error::usage(format!("no policy {} in the scenario", run.policy)))?;
    let mut alone = scenario.clone();
    alone.policies = vec![policy.clone()];
    alone.file.policies = scenario
        .file
        .policies
        .get(run.policy)
        .cloned()
        .into_iter()
        .collect();
    alone.baseline = 0;
    alone.file.baseline = None;
    alone.file.repetitions = 1;
    crate::core::io::create_new_dir(dir, "the episode's results folder")?;
    let mode = JobMode::default();
    let mut fold = mode.start(&alone, keep_jobs)?;
    let mut run = run.clone();
    run.policy = 0;
    mode.fold(&alone, &mut fold, run)?;
    let report = mode.finish(&alone, fold, 1, Duration::ZERO)?;
    let execution = Execution {
        tasks: 1,
        ran: 1,
        ..Execution::default()
    };
    mode.write(dir, &alone, &report, keep_jobs, None, &execution)?;
    Ok(())
}
