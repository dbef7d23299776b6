//! One cluster, many workloads (DESIGN §13): the model-selection service
//! and a background job trace on one cluster engine
//! ([`crate::jobs::sim`]), under one cluster scheduler.
//!
//! [`simulate_shared`] runs one repetition of one policy. Its outcome holds
//! the service's run in model mode's form
//! ([`RunOutcome`](crate::models::sim::RunOutcome), so every model-mode
//! metric and result file applies unchanged), the background's in job
//! mode's form ([`JobOutcome`](crate::jobs::sim::JobOutcome), about the
//! background jobs alone) and the GPU share of each workload over time
//! ([`ShareStep`]).
//!
//! [`SharedStepper`] is the same run driven one cluster-scheduler decision
//! at a time (DESIGN §15.6).

#[cfg(test)]
mod cases;
mod input;
mod outcome;
mod regret;
mod service;
mod simulate;
mod stepper;
#[cfg(test)]
mod tests;
mod tracked;
#[cfg(test)]
mod workflow_cases;
mod workflows;

pub use input::{
    BackgroundInput, ClusterInput, Preempt, Priority, ServiceInput, SharedInput, WorkflowsInput,
};
pub use outcome::{
    AttemptJob, CacheStats, ServiceSegment, ShareStep, SharedOutcome, StepRecord, StepState,
    WorkflowOutcome, WorkflowRecord, WorkflowState, WorkloadKind,
};
pub use simulate::{PolicyPair, service_jobs, simulate_shared};
pub use stepper::SharedStepper;
pub use workflows::{JOB_BYTES, MAX_ENGINE_JOBS, STEP_BYTES, WORKFLOW_BYTES, workflow_jobs};
