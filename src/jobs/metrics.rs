//! Metrics of one job-trace run.
//!
//! - JCT = end − submit; queueing delay = first start − submit (DESIGN §9.5).
//! - Percentiles (median, p95, p99 of JCT) use linear interpolation between
//!   closest ranks (Hyndman & Fan type 7, numpy's default): for the sorted
//!   values `x_0 ≤ … ≤ x_{n−1}`, `P(p) = x_⌊h⌋ + (h − ⌊h⌋)(x_⌊h⌋+1 − x_⌊h⌋)`
//!   with `h = (n − 1)·p/100` ([`crate::core::analysis::stats::percentile`]).
//! - Makespan = last completion − first submit.
//! - GPU utilisation = GPU-time held by jobs (restart overhead included) /
//!   (GPUs × makespan); per GPU type the same over that type's GPUs
//!   (DESIGN §11.2).
//! - Slowdown of a job = JCT / duration (≥ 1). Jain's fairness index over
//!   users' average slowdown `x_u`: `(Σ x_u)² / (n · Σ x_u²)`, 1 when every
//!   user is slowed down equally.
//! - Per-user finish-time fairness ρ_u = Σ JCT / Σ duration over the user's
//!   jobs: time in the shared cluster over time in isolation, where each
//!   job would start at once and take its duration (Themis' ρ, per user).

use serde::{Deserialize, Serialize};

use super::sim::JobOutcome;
use super::trace::Job;
use crate::core::analysis::stats::{jain_index, percentile};
use crate::core::error::Result;
use crate::core::io::cluster::GpuType;
use crate::core::sim::time::Micros;

/// The `summary.csv` figures of one run; times in µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobMetrics {
    /// Jobs completed (all of them).
    pub jobs: usize,
    /// Mean JCT.
    pub mean_jct: f64,
    /// Median JCT.
    pub median_jct: f64,
    /// 95th percentile JCT.
    pub p95_jct: f64,
    /// 99th percentile JCT.
    pub p99_jct: f64,
    /// Mean queueing delay (first start − submit).
    pub mean_queueing: f64,
    /// Last completion − first submit.
    pub makespan: Micros,
    /// GPU-time held / (GPUs × makespan).
    pub utilization: f64,
    /// Per GPU type (one entry when untyped): GPU-time held on the type /
    /// (its GPUs × makespan).
    pub utilization_by_type: Vec<f64>,
    /// Jain's index over users' average slowdown.
    pub jain: f64,
    /// Preemptions in the run.
    pub preemptions: u64,
    /// Events the loop handled.
    pub events: u64,
}

/// Per-user figures.
#[derive(Debug, Clone, PartialEq)]
pub struct UserMetrics {
    /// Jobs of the user in the run.
    pub jobs: usize,
    /// Mean JCT, µs.
    pub mean_jct: f64,
    /// Mean slowdown (JCT / duration).
    pub mean_slowdown: f64,
    /// Σ JCT / Σ duration.
    pub ftf_rho: f64,
}

/// Per-user metrics, by user index (users with no job in the run have
/// `jobs = 0` and NaN figures).
pub fn user_metrics(jobs: &[Job], users: usize, outcome: &JobOutcome) -> Vec<UserMetrics> {
    let mut n = vec![0usize; users];
    let mut jct = vec![0u128; users];
    let mut dur = vec![0u128; users];
    let mut slow = vec![0f64; users];
    for (i, j) in jobs.iter().enumerate() {
        let u = j.user as usize;
        let c = outcome.end[i] - j.submit;
        n[u] += 1;
        jct[u] += u128::from(c);
        dur[u] += u128::from(j.duration);
        slow[u] += c as f64 / j.duration as f64;
    }
    (0..users)
        .map(|u| {
            let k = n[u] as f64;
            UserMetrics {
                jobs: n[u],
                mean_jct: jct[u] as f64 / k,
                mean_slowdown: slow[u] / k,
                ftf_rho: jct[u] as f64 / dur[u] as f64,
            }
        })
        .collect()
}

/// Compute the summary figures of a run (an error when its segment log,
/// read back as a stream, cannot be).
pub fn job_metrics(jobs: &[Job], users: usize, outcome: &JobOutcome) -> Result<JobMetrics> {
    let n = jobs.len();
    let mut jct: Vec<u64> = jobs
        .iter()
        .zip(&outcome.end)
        .map(|(j, &e)| e - j.submit)
        .collect();
    let sum_jct: u128 = jct.iter().map(|&c| u128::from(c)).sum();
    let sum_wait: u128 = jobs
        .iter()
        .zip(&outcome.first_start)
        .map(|(j, &s)| u128::from(s - j.submit))
        .sum();
    jct.sort_unstable();
    let first = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = outcome.end.iter().copied().max().unwrap_or(0);
    let makespan = last.saturating_sub(first);
    // Integer sums: one pass over the log gives both, in any order.
    let mut busy = 0u128;
    let mut busy_by_type = vec![0u128; outcome.gpus_by_type.len()];
    for s in outcome.segments.iter() {
        let s = s?;
        let held = u128::from(s.end - s.start) * u128::from(s.gpus);
        busy += held;
        if let Some(b) = busy_by_type.get_mut(s.gpu_type as usize) {
            *b += held;
        }
    }
    let capacity = u128::from(outcome.gpus) * u128::from(makespan);
    let utilization_by_type = busy_by_type
        .iter()
        .zip(&outcome.gpus_by_type)
        .map(|(&b, &g)| {
            let c = u128::from(g) * u128::from(makespan);
            if c == 0 { 0.0 } else { b as f64 / c as f64 }
        })
        .collect();
    let slowdowns: Vec<f64> = user_metrics(jobs, users, outcome)
        .iter()
        .filter(|u| u.jobs > 0)
        .map(|u| u.mean_slowdown)
        .collect();
    Ok(JobMetrics {
        jobs: n,
        mean_jct: sum_jct as f64 / n as f64,
        median_jct: percentile(&jct, 50.0),
        p95_jct: percentile(&jct, 95.0),
        p99_jct: percentile(&jct, 99.0),
        mean_queueing: sum_wait as f64 / n as f64,
        makespan,
        utilization: if capacity == 0 {
            0.0
        } else {
            busy as f64 / capacity as f64
        },
        utilization_by_type,
        // 1 when no user has a job (nobody is treated unequally).
        jain: jain_index(&slowdowns).unwrap_or(1.0),
        preemptions: outcome.preemptions.iter().map(|&p| u64::from(p)).sum(),
        events: outcome.events,
    })
}

/// CPU utilisation (DESIGN §14.6): CPU time held by the jobs (restores
/// included) over `cpus` × `makespan`,
///
/// Σ over segments s of (s.end − s.start) × cpus(job of s) / (cpus ×
/// makespan),
///
/// the GPU utilisation's formula with each job's `cpus` for its GPUs
/// (a job holds the same CPUs on every segment). 0 when the cluster has
/// no CPUs or the makespan is 0.
pub fn cpu_utilization(
    jobs: &[Job],
    outcome: &JobOutcome,
    cpus: u64,
    makespan: Micros,
) -> Result<f64> {
    let mut busy = 0u128;
    for s in outcome.segments.iter() {
        let s = s?;
        busy += u128::from(s.end - s.start) * u128::from(jobs[s.job as usize].cpus);
    }
    let capacity = u128::from(cpus) * u128::from(makespan);
    Ok(if capacity == 0 {
        0.0
    } else {
        busy as f64 / capacity as f64
    })
}

/// One point of the utilisation timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtilPoint {
    /// Bucket start, µs.
    pub time: Micros,
    /// Bucket length, µs.
    pub len: Micros,
    /// Time-averaged GPUs held over the bucket.
    pub busy_gpus: f64,
}

/// The utilisation timeline: [first submit, last completion) cut into at
/// most `points` equal buckets (the last may be shorter), each with the
/// time-averaged number of GPUs held. Computed exactly from the segments.
pub fn utilization_timeline(
    jobs: &[Job],
    outcome: &JobOutcome,
    points: usize,
) -> Result<Vec<UtilPoint>> {
    utilization_timeline_of(jobs, outcome, points, None)
}

/// [`utilization_timeline`] counting only the GPUs of type `gpu_type`
/// (all with `None`); the buckets are the same for every type.
pub fn utilization_timeline_of(
    jobs: &[Job],
    outcome: &JobOutcome,
    points: usize,
    gpu_type: Option<GpuType>,
) -> Result<Vec<UtilPoint>> {
    let t0 = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let t1 = outcome.end.iter().copied().max().unwrap_or(0);
    if t1 <= t0 || points == 0 {
        return Ok(Vec::new());
    }
    let span = t1 - t0;
    let w = span.div_ceil(points as u64).max(1);
    let b = span.div_ceil(w) as usize;
    let mut acc = vec![0u128; b];
    let mut diff = vec![0i128; b + 1];
    for s in outcome.segments.iter() {
        let s = s?;
        if s.end <= s.start || gpu_type.is_some_and(|t| t != s.gpu_type) {
            continue;
        }
        let g = u128::from(s.gpus);
        let first = ((s.start - t0) / w) as usize;
        let last = ((s.end - 1 - t0) / w) as usize;
        if first == last {
            acc[first] += u128::from(s.end - s.start) * g;
        } else {
            acc[first] += u128::from(t0 + (first as u64 + 1) * w - s.start) * g;
            acc[last] += u128::from(s.end - (t0 + last as u64 * w)) * g;
            diff[first + 1] += (g * u128::from(w)) as i128;
            diff[last] -= (g * u128::from(w)) as i128;
        }
    }
    let mut run = 0i128;
    Ok((0..b)
        .map(|k| {
            run += diff[k];
            let start = t0 + k as u64 * w;
            let len = w.min(t1 - start);
            let total = acc[k] + run as u128;
            UtilPoint {
                time: start,
                len,
                busy_gpus: total as f64 / len as f64,
            }
        })
        .collect())
}
