//! A job-mode run ([`JobRun`]) to bytes and back, exactly (the result
//! cache and shard files, [`crate::core::codec`]). The repetition's jobs
//! are not stored: they are drawn again from the scenario
//! ([`JobScenario::rep_jobs`], a function of the seed and repetition).

use super::metrics::JobMetrics;
use super::run::JobRun;
use super::scenario::JobScenario;
use super::sim::{Alloc, JobOutcome, Segment};
use crate::core::codec::{Dec, Enc};
use crate::core::error::Result;
use crate::core::policy_clock::PolicyClock;

/// Append `run` to `out`.
pub fn encode_job_run(run: &JobRun, out: &mut Vec<u8>) {
    let mut e = Enc::new(out);
    e.usize(run.policy);
    e.u64(run.rep);
    let o = &run.outcome;
    e.u64s(&o.first_start);
    e.u64s(&o.end);
    e.u32s(&o.preemptions);
    e.seq(&o.segments, |e, s| {
        e.u32(s.job);
        e.u32(s.gpus);
        e.u64(s.start);
        e.u64(s.end);
        e.u64(s.overhead);
        e.u32(s.alloc_offset);
        e.u32(s.alloc_len);
    });
    e.seq(&o.segment_allocs, |e, a| {
        e.u32(a.node);
        e.u32(a.gpus);
    });
    e.u64(o.events);
    e.u64(o.end_time);
    e.u64(o.gpus);
    e.u64(o.policy_clock.calls());
    e.duration(o.policy_clock.estimate());
    let m = &run.metrics;
    e.usize(m.jobs);
    for v in [
        m.mean_jct,
        m.median_jct,
        m.p95_jct,
        m.p99_jct,
        m.mean_queueing,
    ] {
        e.f64(v);
    }
    e.u64(m.makespan);
    e.f64(m.utilization);
    e.f64(m.jain);
    e.u64(m.preemptions);
    e.u64(m.events);
    e.duration(run.elapsed);
}

/// The run [`encode_job_run`] wrote into `bytes`, its jobs drawn again
/// from `scenario`.
pub fn decode_job_run(scenario: &JobScenario, bytes: &[u8]) -> Result<JobRun> {
    let mut d = Dec::new(bytes);
    let policy = d.usize()?;
    let rep = d.u64()?;
    let outcome = JobOutcome {
        first_start: d.u64s()?,
        end: d.u64s()?,
        preemptions: d.u32s()?,
        segments: d.seq(40, |d| {
            Ok(Segment {
                job: d.u32()?,
                gpus: d.u32()?,
                start: d.u64()?,
                end: d.u64()?,
                overhead: d.u64()?,
                alloc_offset: d.u32()?,
                alloc_len: d.u32()?,
            })
        })?,
        segment_allocs: d.seq(8, |d| {
            Ok(Alloc {
                node: d.u32()?,
                gpus: d.u32()?,
            })
        })?,
        events: d.u64()?,
        end_time: d.u64()?,
        gpus: d.u64()?,
        policy_clock: PolicyClock::from_estimate(d.u64()?, d.duration()?),
    };
    let metrics = JobMetrics {
        jobs: d.usize()?,
        mean_jct: d.f64()?,
        median_jct: d.f64()?,
        p95_jct: d.f64()?,
        p99_jct: d.f64()?,
        mean_queueing: d.f64()?,
        makespan: d.u64()?,
        utilization: d.f64()?,
        jain: d.f64()?,
        preemptions: d.u64()?,
        events: d.u64()?,
    };
    let elapsed = d.duration()?;
    d.finish()?;
    let jobs = scenario.rep_jobs(rep);
    if jobs.jobs.len() != outcome.end.len() {
        return Err(crate::core::error::Error::input(format!(
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
