//! What one shared simulation produces (DESIGN §13.5).

use serde::{Deserialize, Serialize};

use crate::core::sim::time::Micros;
use crate::jobs::sim::JobOutcome;
use crate::models::sim::RunOutcome;

/// Which workload a share row is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkloadKind {
    /// The model-selection service.
    Service,
    /// The background job trace.
    Background,
}

impl WorkloadKind {
    /// Its name in `shares.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Service => "service",
            Self::Background => "background",
        }
    }
}

/// From `time` on, `workload` holds `gpus` GPUs (until its next step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareStep {
    /// When the holding changed, µs.
    pub time: Micros,
    /// The workload.
    pub workload: WorkloadKind,
    /// GPUs it holds from then on.
    pub gpus: u64,
}

/// One interval during which a service job held GPUs (`service/jobs.csv`
/// with `--jobs`: one row per segment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceSegment {
    /// Index into the service's [`RunOutcome::jobs`].
    pub job: u32,
    /// First GPU of the segment (GPUs numbered node by node).
    pub gpu: u32,
    /// GPUs held.
    pub gpus: u32,
    /// When the GPUs were taken, µs.
    pub start: Micros,
    /// When they were given back, µs.
    pub end: Micros,
    /// Restore time at the start of the segment, µs.
    pub overhead: Micros,
}

/// What one shared simulation produces.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SharedOutcome {
    /// The service's run, in model mode's form (`None` without a service).
    pub service: Option<RunOutcome>,
    /// Every interval a service job held GPUs, in the order they ended.
    pub service_segments: Vec<ServiceSegment>,
    /// Times each service job (by [`RunOutcome::jobs`] index) was
    /// preempted.
    pub service_preemptions: Vec<u32>,
    /// The background's run, in job mode's form, about the background
    /// jobs alone (`None` without a background).
    pub background: Option<JobOutcome>,
    /// GPUs held by each workload over time: a row whenever a workload's
    /// holding changed at the end of an instant, service before
    /// background at one instant; both start at 0 GPUs at time 0.
    pub shares: Vec<ShareStep>,
    /// GPUs in the cluster.
    pub gpus: u64,
}
