//! The job-trace simulation and its scheduler API (DESIGN §9): the cluster
//! and its placement rules ([`cluster`]), the simulation driven by the
//! shared event loop ([`simulation`]), and the trait schedulers implement
//! ([`JobScheduler`]).

pub mod cluster;
mod engine;
pub mod event;
pub mod replay;
pub mod rounds;
pub mod segment_log;
pub mod simulation;
pub mod stepper;
pub mod type_policy;
pub mod workload;

pub use cluster::{Alloc, Cluster, Placement};
pub use replay::{JobTable, RawRun, simulate_jobs, simulate_jobs_in_rounds, simulate_with};
pub use rounds::Rounds;
pub use segment_log::{Segment, SegmentLog, Segments};
pub use simulation::{
    JobOutcome, JobScheduler, JobSchedulerFactory, JobSimInput, Key, SchedInit, SimTypes,
};
pub use stepper::{JobChoice, JobDecision, JobStepper};
pub use type_policy::{JobTypes, TypePolicy};
pub use workload::{Ctx, Workload};
