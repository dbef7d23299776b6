//! Summary figures of one (policy, repetition) run.

use serde::{Deserialize, Serialize};

use super::LossCurve;
use crate::core::error::Result;
use crate::models::sim::RunOutcome;
use crate::models::trace::Micros;

/// The `summary.csv` figures of one run (DESIGN §6.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// L at the end of the run.
    pub final_loss: f64,
    /// R(end) in accuracy·seconds, or a stalled run's R(stall_end)
    /// ([`LossCurve::reported_regret`], DESIGN §2.6).
    pub cumulative_regret: f64,
    /// T(θ) per configured θ, µs; `None` = never (∞).
    pub time_to: Vec<Option<Micros>>,
    /// Jobs that completed.
    pub jobs: usize,
    /// Busy GPU time / (GPUs × end) (the GPU time the cluster had, when
    /// its size changed: DESIGN §15.4); 0 for a run of length 0.
    pub gpu_busy_fraction: f64,
    /// End of the run, µs.
    pub end: Micros,
    /// Events processed.
    pub events: u64,
}

impl RunMetrics {
    /// Compute the figures from a run's curve, its outcome and the number
    /// of jobs that completed (`completion_order`'s length, or the count
    /// folded online when the log was not kept).
    pub fn compute(
        curve: &LossCurve,
        outcome: &RunOutcome,
        completions: usize,
        thresholds: &[f64],
    ) -> Result<Self> {
        // GPUs × end, or the GPU-µs of a cluster that changed during the
        // run (DESIGN §15.4).
        let capacity = outcome
            .capacity
            .unwrap_or(u128::from(outcome.gpus) * u128::from(outcome.end));
        Ok(Self {
            final_loss: curve.final_loss()?,
            // The curve ends where the run did (`LossCurve::from_outcome`).
            cumulative_regret: curve.reported_regret()?,
            time_to: curve.times_to(thresholds)?,
            jobs: completions,
            gpu_busy_fraction: if capacity == 0 {
                0.0
            } else {
                outcome.busy as f64 / capacity as f64
            },
            end: outcome.end,
            events: outcome.events,
        })
    }
}
