//! Everything one (repetition, policy) run of model mode produced.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{LossCurve, RunMetrics, TenantAggregate, TenantRows};
use crate::models::scenario::Split;
use crate::models::sim::RunOutcome;
use crate::models::trace::Micros;

/// One (repetition, policy) run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RepResult {
    /// Policy index in the scenario.
    pub policy: usize,
    /// Repetition, from 0.
    pub rep: u64,
    /// The repetition's split.
    pub split: Split,
    /// Arrival time per tenant, µs.
    pub arrivals: crate::models::sim::Arrivals,
    /// The job log (`jobs` and `completion_order` are empty unless the run
    /// kept them, see
    /// [`RunOptions::keep_jobs`](crate::models::experiment::RunOptions::keep_jobs)).
    pub outcome: RunOutcome,
    /// When the first job completed, µs (`None` if none did).
    pub first_completion: Option<Micros>,
    /// L(τ) of the run.
    pub curve: LossCurve,
    /// The same loss as a function of completed jobs
    /// ([`LossCurve::by_jobs`]).
    pub job_curve: LossCurve,
    /// Summary figures.
    pub metrics: RunMetrics,
    /// What each tenant experienced, a row per tenant (on disk past
    /// [`ROWS_IN_MEMORY`](super::ROWS_IN_MEMORY)).
    pub tenants: TenantRows,
    /// Each tenant's regret area alone on the cluster (with `fairness`).
    pub isolated_area: Option<Vec<f64>>,
    /// Aggregates of `tenants`.
    pub tenant_aggregate: TenantAggregate,
    /// Wall-clock time this simulation took on its worker thread (for
    /// events per second in `run.json`; never part of a result file that
    /// must be reproducible).
    pub elapsed: Duration,
    /// Of `elapsed`, the estimated time inside the policies' calls, the
    /// runs of each tenant alone (`fairness`) included (a measurement).
    pub policy_time: Duration,
}
