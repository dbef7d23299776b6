//! The cluster and limits of one model-selection simulation.

use super::TenantLimits;
use crate::models::trace::Micros;

/// Cluster and limits of one simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimConfig {
    /// Number of identical GPUs (at least 1).
    pub gpus: u32,
    /// Concurrent jobs allowed per tenant (default 1, DESIGN §2.3).
    pub max_jobs_per_tenant: u32,
    /// Stop simulated time here (µs), if set.
    pub horizon: Option<Micros>,
    /// Per-tenant limits.
    pub limits: TenantLimits,
}

impl Default for SimConfig {
    /// One GPU, one job per tenant at a time, no horizon, no limits.
    fn default() -> Self {
        Self {
            gpus: 1,
            max_jobs_per_tenant: 1,
            horizon: None,
            limits: TenantLimits::default(),
        }
    }
}
