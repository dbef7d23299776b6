//! One cluster, many workloads (DESIGN §13): the model-selection service
//! and a background job trace on one cluster engine
//! ([`crate::jobs::sim`]), under one cluster scheduler.
//!
//! [`simulate_shared`] runs one repetition of one policy. Its outcome holds
//! the service's run in model mode's form ([`RunOutcome`], so every
//! model-mode metric and result file applies unchanged), the background's
//! in job mode's form ([`JobOutcome`], about the background jobs alone) and
//! the GPU share of each workload over time ([`ShareStep`]).

use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::time::Micros;
use crate::jobs::sim::{JobOutcome, JobSchedulerFactory, JobTypes, Placement, TypePolicy};
use crate::jobs::trace::Job;
use crate::models::sim::{RunOutcome, Scheduler, Selector, SimInput};

/// How the service's jobs compete with the background's (`[service]
/// priority`, DESIGN §13.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Priority {
    /// Its requests queue with every other job under the cluster
    /// scheduler, as the jobs of one more user.
    #[default]
    Equal,
    /// It runs only on GPUs the background leaves idle: the cluster
    /// scheduler decides for the background as if the service were not
    /// there, and a service job on GPUs it takes is preempted.
    Low,
}

impl Priority {
    /// Its name in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            Self::Equal => "equal",
            Self::Low => "low",
        }
    }
}

/// What a preempted service job keeps (`[service] preempt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Preempt {
    /// Progress is kept; `restart_overhead_s` is paid on resume.
    #[default]
    Checkpoint,
    /// Progress is lost; the job runs again from its start.
    Restart,
}

impl Preempt {
    /// Its name in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            Self::Checkpoint => "checkpoint",
            Self::Restart => "restart",
        }
    }
}

/// The cluster every workload shares.
#[derive(Debug, Clone, Copy)]
pub struct ClusterInput<'a> {
    /// GPUs per node, in node order.
    pub nodes: &'a [u32],
    /// Each node's GPU type (empty: untyped, every node type 0).
    pub node_types: &'a [GpuType],
    /// Number of GPU types (1 when untyped).
    pub types: usize,
    /// Placement rule.
    pub placement: Placement,
    /// Whether the cluster scheduler backfills.
    pub backfill: bool,
    /// Restore time paid on each resumption after a checkpointed
    /// preemption, µs.
    pub restart_overhead: Micros,
    /// Round length in rounds mode (DESIGN §11.3), µs.
    pub round: Option<Micros>,
    /// Record each segment's per-node allocation (for tests).
    pub record_allocations: bool,
}

/// The background workload: a job trace (its submit times already divided
/// by `[jobs] load`).
#[derive(Debug, Clone, Copy)]
pub struct BackgroundInput<'a> {
    /// The jobs, indexed as in the trace.
    pub jobs: &'a [Job],
    /// Number of users of the trace.
    pub users: usize,
    /// Each job's allowed types and per-type durations (typed clusters).
    pub types: Option<&'a JobTypes>,
    /// How a background job's type is chosen.
    pub type_policy: TypePolicy,
}

/// The model-selection service: model mode's input plus how it uses the
/// cluster. `sim.config.gpus` and `sim.gpu_types` describe the whole
/// cluster's GPUs (numbered node by node).
#[derive(Debug, Clone, Copy)]
pub struct ServiceInput<'a> {
    /// Trace, tenants, arrivals, limits, GPU types and runtimes.
    pub sim: SimInput<'a>,
    /// GPUs the service may hold at once.
    pub max_gpus: u32,
    /// GPUs each of its jobs takes.
    pub gpus_per_job: u32,
    /// How its jobs compete with the background's.
    pub priority: Priority,
    /// What a preempted job keeps.
    pub preempt: Preempt,
}

/// Everything one shared simulation reads.
#[derive(Debug, Clone, Copy)]
pub struct SharedInput<'a> {
    /// The cluster.
    pub cluster: ClusterInput<'a>,
    /// The background workload, if any.
    pub background: Option<BackgroundInput<'a>>,
    /// The service, if any.
    pub service: Option<ServiceInput<'a>>,
}

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

/// Run one shared simulation: the background's jobs and the service's
/// requests on `input.cluster` under the cluster scheduler `cluster` (built
/// here from its factory, with `seed` and `repetition` for its own random
/// stream), the service deciding with `service`'s scheduler and selector.
pub fn simulate_shared(
    input: &SharedInput<'_>,
    cluster: &JobSchedulerFactory,
    seed: u64,
    repetition: u64,
    service: Option<(&mut dyn Scheduler, &mut dyn Selector)>,
) -> Result<SharedOutcome> {
    let _ = (input, cluster, seed, repetition, service);
    Err(Error::input("internal: the shared engine is being written"))
}
