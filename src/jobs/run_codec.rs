//! A job-mode run ([`JobRun`]) to bytes and back, exactly (the result
//! cache and shard files, [`crate::core::io::codec`]). The repetition's jobs
//! are not stored: they are drawn again from the scenario
//! ([`JobScenario::rep_jobs`], a function of the seed and repetition).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::metrics::JobMetrics;
use super::run::JobRun;
use super::scenario::JobScenario;
use super::sim::JobOutcome;
use crate::core::error::{Error, Result};
use crate::core::io::codec;

/// What is stored of a run: all of it but its jobs. Written with borrowed
/// parts (`Stored<&JobOutcome, &JobMetrics>`) and read back owned; one
/// definition, so the two cannot drift apart.
#[derive(Serialize, Deserialize)]
struct Stored<O, M> {
    policy: usize,
    rep: u64,
    outcome: O,
    metrics: M,
    elapsed: Duration,
}

/// Append `run` to `out`.
pub fn encode_job_run(run: &JobRun, out: &mut dyn std::io::Write) -> Result<()> {
    let stored = Stored {
        policy: run.policy,
        rep: run.rep,
        outcome: &run.outcome,
        metrics: &run.metrics,
        elapsed: run.elapsed,
    };
    codec::encode_to(&stored, out)
}

/// The run [`encode_job_run`] wrote into `bytes`, its jobs drawn again
/// from `scenario`.
pub fn decode_job_run(scenario: &JobScenario, bytes: &[u8]) -> Result<JobRun> {
    let Stored {
        policy,
        rep,
        outcome,
        metrics,
        elapsed,
    } = codec::decode::<Stored<JobOutcome, JobMetrics>>(bytes)?;
    let jobs = scenario.rep_jobs(rep);
    if jobs.jobs.len() != outcome.end.len() {
        return Err(Error::input(format!(
            "encoded job run: {} job outcomes for the {} jobs of repetition {rep}",
            outcome.end.len(),
            jobs.jobs.len()
        )));
    }
    Ok(JobRun {
        policy,
        rep,
        jobs,
        outcome,
        metrics,
        elapsed,
    })
}
