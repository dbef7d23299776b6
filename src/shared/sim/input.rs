//! What one shared simulation reads (DESIGN §13): the cluster, the
//! background, the service and its rules.

use serde::{Deserialize, Serialize};

use crate::core::io::cluster::GpuType;
use crate::core::sim::time::Micros;
use crate::jobs::sim::{JobTypes, Placement, TypePolicy};
use crate::jobs::trace::Job;
use crate::models::sim::SimInput;
use crate::workflows::{CacheConfig, CacheRule, ParallelRule, RetryConfig, WorkflowTrace};

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
    /// CPUs per node, in node order (DESIGN §14.6); empty when CPUs are
    /// not counted.
    pub cpus: &'a [u32],
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
    /// Record every interval its jobs held GPUs
    /// ([`SharedOutcome::service_segments`](super::SharedOutcome::service_segments)),
    /// what `service/jobs.csv` is written from with `--jobs` when a
    /// service job can be preempted; without, none is kept (40 bytes a
    /// segment, one or more a job).
    pub keep_segments: bool,
}

/// Everything one shared simulation reads.
#[derive(Debug, Clone)]
pub struct SharedInput<'a> {
    /// The cluster.
    pub cluster: ClusterInput<'a>,
    /// The background workload, if any.
    pub background: Option<BackgroundInput<'a>>,
    /// The service, if any.
    pub service: Option<ServiceInput<'a>>,
    /// The workflows, if any.
    pub workflows: Option<WorkflowsInput<'a>>,
}

/// The workflows workload (DESIGN §14): a workflow trace, its cache and
/// retry settings and the policy's rules.
#[derive(Debug, Clone)]
pub struct WorkflowsInput<'a> {
    /// The workflows (submit times as in the trace; `load` divides them).
    pub trace: &'a WorkflowTrace,
    /// Every submit time is divided by it and rounded to the µs (1: the
    /// trace's times exactly).
    pub load: f64,
    /// Workflows submitted after it are not; at it, every unfinished
    /// workflow is withdrawn (µs).
    pub horizon: Option<Micros>,
    /// The memo cache's settings.
    pub cache: CacheConfig,
    /// The policy's eviction rule (`off`: no cache).
    pub cache_rule: CacheRule,
    /// Retries.
    pub retry: RetryConfig,
    /// The policy's auto-parallelisation rule.
    pub parallel: ParallelRule,
    /// Added to each sub-job of a split step, µs.
    pub split_overhead: Micros,
    /// Every step's failure probability instead of its trace's
    /// (`[workflows] failure_p`, DESIGN §14.4); `None`: the trace's.
    pub failure_p: Option<f64>,
    /// Record every job of every attempt ([`WorkflowOutcome::jobs`](super::WorkflowOutcome::jobs)) and
    /// every step ([`WorkflowOutcome::steps`](super::WorkflowOutcome::steps)).
    pub keep_jobs: bool,
}
