//! The job-trace simulation and its scheduler API (DESIGN §9): the cluster
//! and its placement rules ([`cluster`]), the simulation driven by the
//! shared event loop ([`simulation`]), and the trait schedulers implement
//! ([`JobScheduler`]).

pub mod cluster;
pub mod rounds;
mod scheduler_api;
pub mod simulation;
pub mod type_policy;

pub use cluster::{Alloc, Cluster, Placement};
pub use rounds::simulate_jobs_in_rounds;
pub use scheduler_api::{JobScheduler, JobSchedulerFactory, Key, SchedInit};
pub use simulation::{JobOutcome, JobSimInput, Segment, SimTypes, simulate_jobs};
pub use type_policy::{JobTypes, TypePolicy};
