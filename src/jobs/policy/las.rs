//! `las`: Tiresias-style discretised two-dimensional least attained
//! service, preemptive.
//!
//! A job's attained service is GPUs × service received (GPU-seconds: the
//! "2D" of Tiresias). Queue thresholds `T_1 < T_2 < …` (key
//! `queue_thresholds_gpu_s`, default `[3600]`: two queues split at one
//! GPU-hour) put a job with attained service `a` in queue
//! `k = #{T_i ≤ a}`; queue 0 has the highest priority. Within a queue jobs
//! are served first come first served by submit time, then index. A waiting
//! job preempts running jobs only from strictly lower-priority queues
//! (never within its own queue). A running job is demoted the moment its
//! attained service reaches the next threshold (a timer event), which can
//! let waiting jobs of a higher queue preempt it in that instant's pass.
//! The pass is the shared preemptive pass (`preemptive.rs`): victims are
//! taken from the lowest queue, latest submitted first.
//!
//! Not modelled: Tiresias' starvation guard (promotion to queue 0 after
//! waiting too long) and its placement-sensitivity profiling.
//!
//! Source: Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep
//! Learning", NSDI '19, §3.2 (discretised 2D-LAS).

use std::sync::Arc;

use super::preemptive::{Preemptive, Priority};
use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::time::Micros;
use crate::jobs::policy::entry::JobSchedulerEntry;
use crate::jobs::sim::simulation::State;
use crate::jobs::sim::{JobSchedulerFactory, Key};

/// Registry entry.
pub fn entry() -> JobSchedulerEntry {
    JobSchedulerEntry::from_parse(
        "las",
        "Tiresias discretised 2D least attained service (queue_thresholds_gpu_s), preemptive",
        parse,
    )
    .preemptive(true)
}

/// Default queue thresholds, GPU-seconds.
pub const DEFAULT_THRESHOLDS_GPU_S: [f64; 1] = [3600.0];

#[derive(Debug, Clone)]
struct Las {
    /// Thresholds in GPU-µs, strictly increasing.
    thresholds: Vec<u128>,
}

impl Las {
    fn gpu_service(&self, job: u32, now: Micros, state: &State<'_>) -> u128 {
        u128::from(state.attained(job, now)) * u128::from(state.job(job).gpus)
    }

    fn queue(&self, job: u32, now: Micros, state: &State<'_>) -> u64 {
        let a = self.gpu_service(job, now, state);
        self.thresholds.partition_point(|&t| t <= a) as u64
    }
}

impl Priority for Las {
    fn waiting_key(&self, job: u32, now: Micros, state: &State<'_>) -> Key {
        (self.queue(job, now, state), state.job(job).submit, job)
    }

    fn running_key(&self, job: u32, now: Micros, state: &State<'_>) -> Key {
        self.waiting_key(job, now, state)
    }

    fn may_preempt(&self, w: u32, v: u32, now: Micros, state: &State<'_>) -> bool {
        self.queue(v, now, state) > self.queue(w, now, state)
    }

    fn next_change(&self, job: u32, now: Micros, state: &State<'_>) -> Option<Micros> {
        let a = self.gpu_service(job, now, state);
        let next = *self.thresholds.iter().find(|&&t| t > a)?;
        let g = u128::from(state.job(job).gpus);
        if g == 0 {
            // A job of 0 GPUs (CPU-only, DESIGN §14.6) never attains
            // GPU-service: it stays in the first queue, no timer.
            return None;
        }
        Micros::try_from((next - a).div_ceil(g)).ok()
    }
}

/// Parse and check thresholds (GPU-seconds): finite, > 0, strictly
/// increasing; converted to GPU-µs.
fn thresholds(params: &mut Params) -> Result<Vec<u128>> {
    let key = "queue_thresholds_gpu_s";
    let list = params.f64_list(key, &DEFAULT_THRESHOLDS_GPU_S)?;
    let mut out: Vec<u128> = Vec::with_capacity(list.len());
    for (i, &t) in list.iter().enumerate() {
        if !(t.is_finite() && t > 0.0 && t <= 1.0e15) {
            return Err(params.invalid(
                key,
                format!(
                    "threshold #{} must be GPU-seconds > 0 and <= 1e15, got {t}",
                    i + 1
                ),
            ));
        }
        let us = (t * 1.0e6).round() as u128;
        if out.last().is_some_and(|&p| us <= p) {
            return Err(params.invalid(
                key,
                format!("thresholds must be strictly increasing, got {list:?}"),
            ));
        }
        out.push(us);
    }
    Ok(out)
}

fn parse(params: &mut Params) -> Result<JobSchedulerFactory> {
    let las = Las {
        thresholds: thresholds(params)?,
    };
    Ok(Arc::new(move |init| {
        Ok(Box::new(Preemptive::new(init.jobs.len(), las.clone())))
    }))
}
