//! What one shared simulation produces (DESIGN §13.5).

use serde::{Deserialize, Serialize};

use crate::core::io::sealed::Sealed;
use crate::core::io::spill::Record;
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
    /// The workflows.
    Workflows,
}

impl WorkloadKind {
    /// Every workload, in declaration order (a share step's record stores
    /// its index).
    pub const ALL: [Self; 3] = [Self::Service, Self::Background, Self::Workflows];

    /// Its index in [`Self::ALL`].
    fn index(self) -> u8 {
        match self {
            Self::Service => 0,
            Self::Background => 1,
            Self::Workflows => 2,
        }
    }

    /// The workload of index `i` (an index out of range reads as the
    /// last: indices are only ever made by [`Self::index`]).
    fn of_index(i: u8) -> Self {
        Self::ALL[usize::from(i).min(2)]
    }

    /// Its name in `shares.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Service => "service",
            Self::Background => "background",
            Self::Workflows => "workflows",
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

/// A [`ShareStep`] on file: time, workload (a byte: its index in
/// [`WorkloadKind::ALL`]), GPUs: 17 bytes.
impl Record for ShareStep {
    const BYTES: usize = 17;
    fn encode(&self, out: &mut [u8]) {
        self.time.encode(&mut out[0..8]);
        out[8] = self.workload.index();
        self.gpus.encode(&mut out[9..17]);
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            time: u64::decode(&b[0..8]),
            workload: WorkloadKind::of_index(b[8]),
            gpus: u64::decode(&b[9..17]),
        }
    }
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

/// A [`ServiceSegment`] on file: job, first GPU, GPUs, start, end,
/// overhead: 36 bytes (it takes 40 in memory).
impl Record for ServiceSegment {
    const BYTES: usize = 36;
    fn encode(&self, out: &mut [u8]) {
        self.job.encode(&mut out[0..4]);
        self.gpu.encode(&mut out[4..8]);
        self.gpus.encode(&mut out[8..12]);
        self.start.encode(&mut out[12..20]);
        self.end.encode(&mut out[20..28]);
        self.overhead.encode(&mut out[28..36]);
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            job: u32::decode(&b[0..4]),
            gpu: u32::decode(&b[4..8]),
            gpus: u32::decode(&b[8..12]),
            start: u64::decode(&b[12..20]),
            end: u64::decode(&b[20..28]),
            overhead: u64::decode(&b[28..36]),
        }
    }
}

/// What one shared simulation produces.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SharedOutcome {
    /// The service's run, in model mode's form (`None` without a service).
    pub service: Option<RunOutcome>,
    /// Every interval a service job held GPUs, in the order they ended
    /// (kept only for `service/jobs.csv`, [`ServiceInput::keep_segments`]:
    /// written as they end, in memory up to [`SEGMENTS_IN_MEMORY`] and on
    /// disk past it, `core::io::record_log`).
    ///
    /// [`ServiceInput::keep_segments`]: super::ServiceInput::keep_segments
    /// [`SEGMENTS_IN_MEMORY`]: crate::core::memory::SEGMENTS_IN_MEMORY
    pub service_segments: Sealed<ServiceSegment>,
    /// Times each service job (by [`RunOutcome::jobs`] index) was
    /// preempted.
    pub service_preemptions: Vec<u32>,
    /// The background's run, in job mode's form, about the background
    /// jobs alone (`None` without a background).
    pub background: Option<JobOutcome>,
    /// GPUs held by each workload over time: a row whenever a workload's
    /// holding changed at the end of an instant, service before
    /// background at one instant; both start at 0 GPUs at time 0.
    ///
    /// Written as the run goes, in memory up to [`SHARES_IN_MEMORY`] and
    /// on disk past it (`core::io::record_log`): a preemptive cluster
    /// scheduler changes the holdings at every round.
    ///
    /// [`SHARES_IN_MEMORY`]: crate::core::memory::SHARES_IN_MEMORY
    pub shares: Sealed<ShareStep>,
    /// GPUs in the cluster.
    pub gpus: u64,
    /// The workflows' run (`None` without workflows).
    pub workflows: Option<WorkflowOutcome>,
    /// CPUs in the cluster (0: not counted).
    pub cpus: u64,
}

/// How a workflow ended (`workflows.csv` `state`, DESIGN §14.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum WorkflowState {
    /// Every step done.
    Done,
    /// A step failed with no retry left.
    Failed,
    /// Not done by its deadline.
    Deadline,
    /// Not done by the horizon or the end of the run (or never
    /// submitted).
    #[default]
    Unfinished,
}

impl WorkflowState {
    /// Its name in `workflows.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Deadline => "deadline",
            Self::Unfinished => "unfinished",
        }
    }
}

/// One workflow's run (`workflows.csv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WorkflowRecord {
    /// When it was submitted, µs (after `load`).
    pub submit: Micros,
    /// When its last step was done, µs (`NEVER` unless done).
    pub end: Micros,
    /// How it ended.
    pub state: WorkflowState,
    /// Failed attempts retried.
    pub retries: u32,
    /// Steps that hit the cache.
    pub cache_hits: u32,
    /// GPU-µs its attempts held (failed ones and restores included).
    pub gpu_us: u128,
    /// CPU-µs likewise.
    pub cpu_us: u128,
    /// GPU-µs its hits saved (`gpus × runtime` of each hit step).
    pub gpu_us_saved: u128,
    /// CPU-µs likewise.
    pub cpu_us_saved: u128,
}

/// How a step ended (`steps.csv` `state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StepState {
    /// Ran to completion.
    Done,
    /// Done by a cache hit.
    Hit,
    /// Its last attempt failed.
    Failed,
    /// Never done (its workflow failed or ended first).
    #[default]
    NotDone,
}

impl StepState {
    /// Its name in `steps.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Hit => "hit",
            Self::Failed => "failed",
            Self::NotDone => "not-done",
        }
    }
}

/// One step's run (`steps.csv`, with `--jobs`): its last readiness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StepRecord {
    /// When it last became ready, µs (`NEVER`: never).
    pub ready: Micros,
    /// When its last attempt first started, µs (`NEVER`: never, or a
    /// hit).
    pub start: Micros,
    /// When it was last done or failed, µs (`NEVER`: neither).
    pub end: Micros,
    /// How it ended.
    pub state: StepState,
    /// Attempts submitted to the cluster.
    pub attempts: u32,
    /// Sub-jobs of its last attempt (1 unless split).
    pub parts: u32,
}

/// One job of one attempt of a step (`workflows/jobs.csv`, with
/// `--jobs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptJob {
    /// Global step index.
    pub step: u32,
    /// Attempt of the step, from 0 (counting every readiness that missed).
    pub attempt: u32,
    /// Sub-job, from 0.
    pub part: u32,
    /// Submitted, µs.
    pub submit: Micros,
    /// First start, µs (`NEVER`: never started).
    pub start: Micros,
    /// Ended (done, failed or withdrawn), µs (`NEVER`: never).
    pub end: Micros,
    /// GPUs it held.
    pub gpus: u32,
    /// CPUs it held.
    pub cpus: u32,
    /// Its attempt failed.
    pub failed: bool,
    /// Withdrawn before it ended (its workflow failed, restarted or ran
    /// out of time).
    pub withdrawn: bool,
}

/// The memo cache over one run (DESIGN §14.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CacheStats {
    /// Ready steps with a key that hit.
    pub hits: u64,
    /// Ready steps with a key that missed.
    pub misses: u64,
    /// Entries stored.
    pub stored: u64,
    /// Entries evicted for capacity.
    pub evicted: u64,
    /// Entries removed because they expired.
    pub expired: u64,
    /// Outputs not stored because larger than the capacity.
    pub too_large: u64,
    /// Bytes held at the end of the run.
    pub bytes_end: u64,
    /// Most bytes held at once.
    pub bytes_max: u64,
}

/// What the workflows workload produced in one run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WorkflowOutcome {
    /// Per workflow, in trace order.
    pub workflows: Vec<WorkflowRecord>,
    /// Per step, in trace order (empty unless `keep_jobs`).
    pub steps: Vec<StepRecord>,
    /// Every job of every attempt, in submission order (empty unless
    /// `keep_jobs`).
    pub jobs: Vec<AttemptJob>,
    /// Every interval a job of [`WorkflowOutcome::jobs`] held GPUs, in
    /// the order they ended; `job` indexes `jobs` (empty unless
    /// `keep_jobs`). Written as they are taken from the engine's log, in
    /// memory up to [`SEGMENTS_IN_MEMORY`] and on disk past it
    /// (`core::io::record_log`): a preemptive cluster scheduler records
    /// as many as it preempts (before 2026-12-07 a vector that grew with
    /// them).
    ///
    /// [`SEGMENTS_IN_MEMORY`]: crate::core::memory::SEGMENTS_IN_MEMORY
    pub segments: crate::jobs::sim::segment_log::Segments,
    /// The cache.
    pub cache: CacheStats,
    /// GPU-µs the workflows' jobs held.
    pub busy_gpu_us: u128,
    /// CPU-µs likewise.
    pub busy_cpu_us: u128,
    /// The last instant with a workflows event, µs.
    pub end: Micros,
}
