//! Cluster schedulers of job-trace mode: one file per scheduler, found by
//! name in [`SCHEDULERS`]; they implement the scheduler API of
//! [`crate::jobs::sim`] ([`JobScheduler`](crate::jobs::sim::JobScheduler)).
//!
//! A scheduler keeps its own queues. The simulation tells it when a job
//! arrives, completes or reaches a priority timer, and once per instant
//! (after every event at that instant) runs
//! [`JobScheduler::schedule`](crate::jobs::sim::JobScheduler::schedule),
//! where it starts and — if preemptive — preempts jobs through a
//! [`Pass`](crate::jobs::sim::simulation::Pass). Non-preemptive: [`fifo`], [`sjf`], [`fair_share`], [`ftf`];
//! preemptive: [`srtf`], [`las`].

pub mod fair_share;
pub mod fifo;
pub mod ftf;
pub mod las;
mod preemptive;
pub mod sjf;
pub mod srtf;
mod static_order;

pub use crate::core::params::Params;

use crate::core::error::Result;
use crate::jobs::sim::JobSchedulerFactory;

/// A cluster scheduler known by name.
#[derive(Debug, Clone, Copy)]
pub struct JobSchedulerSpec {
    /// Name used in scenarios.
    pub name: &'static str,
    /// One-line description.
    pub about: &'static str,
    /// Whether it preempts running jobs.
    pub preemptive: bool,
    /// Take this scheduler's keys from the policy table and make a factory.
    pub parse: fn(&mut Params) -> Result<JobSchedulerFactory>,
}

/// Every cluster scheduler.
pub const SCHEDULERS: &[JobSchedulerSpec] = &[
    fifo::SPEC,
    sjf::SPEC,
    srtf::SPEC,
    las::SPEC,
    fair_share::SPEC,
    ftf::SPEC,
];

/// The scheduler called `name`.
pub fn scheduler(name: &str) -> Option<&'static JobSchedulerSpec> {
    SCHEDULERS.iter().find(|s| s.name == name)
}

/// Names of all schedulers, for messages.
pub fn scheduler_names() -> String {
    SCHEDULERS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}
