//! A job-mode run ([`JobRun`]) to bytes and back, exactly (the result
//! cache and shard files, [`crate::core::codec`]). The repetition's jobs
//! are not stored: they are drawn again from the scenario
//! ([`JobScenario::rep_jobs`], a function of the seed and repetition).

use super::metrics::JobMetrics;
use super::run::JobRun;
use super::scenario::JobScenario;
use super::sim::{Alloc, JobOutcome, Segment};
use crate::core::cluster::GpuType;
use crate::core::codec::{Dec, Enc};
use crate::core::error::{Error, Result};
use crate::core::policy_clock::PolicyClock;

/// Append `run` to `out`.
pub fn encode_job_run(run: &JobRun, out: &mut Vec<u8>) {
    let mut e = Enc::new(out);
    e.usize(run.policy);
    e.u64(run.rep);
    // Destructured without `..`: a field added to the outcome, a segment or
    // the metrics fails to compile here until it is encoded (and decoded).
    let JobOutcome {
        first_start,
        end,
        preemptions,
        segments,
        segment_allocs,
        events,
        end_time,
        gpus,
        gpus_by_type,
        gpu_type,
        policy_clock,
    } = &run.outcome;
    e.u64s(first_start);
    e.u64s(end);
    e.u32s(preemptions);
    e.seq(segments, |e, s| {
        let Segment {
            job,
            gpus,
            start,
            end,
            overhead,
            alloc_offset,
            alloc_len,
            gpu_type,
        } = *s;
        e.u32(job);
        e.u32(gpus);
        e.u64(start);
        e.u64(end);
        e.u64(overhead);
        e.u32(alloc_offset);
        e.u32(alloc_len);
        e.u32(u32::from(gpu_type));
    });
    e.seq(segment_allocs, |e, a| {
        e.u32(a.node);
        e.u32(a.gpus);
    });
    e.u64(*events);
    e.u64(*end_time);
    e.u64(*gpus);
    e.u64s(gpus_by_type);
    e.seq(gpu_type, |e, &t| e.u32(u32::from(t)));
    e.u64(policy_clock.calls());
    e.duration(policy_clock.estimate());
    let JobMetrics {
        jobs,
        mean_jct,
        median_jct,
        p95_jct,
        p99_jct,
        mean_queueing,
        makespan,
        utilization,
        utilization_by_type,
        jain,
        preemptions,
        events,
    } = &run.metrics;
    e.usize(*jobs);
    for v in [mean_jct, median_jct, p95_jct, p99_jct, mean_queueing] {
        e.f64(*v);
    }
    e.u64(*makespan);
    e.f64(*utilization);
    e.f64s(utilization_by_type);
    e.f64(*jain);
    e.u64(*preemptions);
    e.u64(*events);
    e.duration(run.elapsed);
}

fn gpu_type(d: &mut Dec<'_>) -> Result<GpuType> {
    let t = d.u32()?;
    GpuType::try_from(t)
        .map_err(|_| Error::input(format!("encoded job run: GPU type {t} out of range")))
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
        segments: d.seq(44, |d| {
            Ok(Segment {
                job: d.u32()?,
                gpus: d.u32()?,
                start: d.u64()?,
                end: d.u64()?,
                overhead: d.u64()?,
                alloc_offset: d.u32()?,
                alloc_len: d.u32()?,
                gpu_type: gpu_type(d)?,
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
        gpus_by_type: d.u64s()?,
        gpu_type: d.seq(4, gpu_type)?,
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
        utilization_by_type: d.f64s()?,
        jain: d.f64()?,
        preemptions: d.u64()?,
        events: d.u64()?,
    };
    let elapsed = d.duration()?;
    d.finish()?;
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
