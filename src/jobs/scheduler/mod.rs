//! Cluster schedulers of job-trace mode, behind one small trait and found
//! by name in [`SCHEDULERS`].
//!
//! A scheduler keeps its own queues. The simulation tells it when a job
//! arrives, completes or reaches a priority timer, and once per instant
//! (after every event at that instant) runs [`JobScheduler::schedule`],
//! where it starts and — if preemptive — preempts jobs through a
//! [`Pass`]. Non-preemptive: [`fifo`], [`sjf`], [`fair_share`], [`ftf`];
//! preemptive: [`srtf`], [`las`].

pub mod fair_share;
pub mod fifo;
pub mod ftf;
pub mod las;
mod preemptive;
pub mod sjf;
pub mod srtf;
mod static_order;

use std::sync::Arc;

pub use crate::core::params::Params;

use super::simulation::{Pass, State};
use super::trace::Job;
use crate::core::error::Result;
use crate::core::time::Micros;

/// A queue key: smaller is served first. Every scheduler's key ends with
/// the job index, so keys are unique and ties go to the lowest index.
pub type Key = (u64, u64, u32);

/// Decides which jobs run.
pub trait JobScheduler: Send {
    /// Job `job` was submitted at `now` and is waiting.
    fn on_arrival(&mut self, job: u32, now: Micros, state: &State<'_>);

    /// Running job `job` received all its service at `now`; its GPUs are
    /// free again.
    fn on_completion(&mut self, job: u32, now: Micros, state: &State<'_>);

    /// A timer asked for by [`Pass::schedule_timer`] fired for running job
    /// `job`; return the service after which to fire again, if any.
    fn on_timer(&mut self, _job: u32, _now: Micros, _state: &State<'_>) -> Option<Micros> {
        None
    }

    /// The scheduling pass of one instant.
    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()>;
}

/// What a factory gets to build the scheduler of one run.
#[derive(Debug, Clone, Copy)]
pub struct SchedInit<'a> {
    /// The jobs of the run.
    pub jobs: &'a [Job],
    /// Number of users.
    pub users: usize,
}

/// Builds the scheduler of each run.
pub type JobSchedulerFactory = Arc<dyn Fn(&SchedInit<'_>) -> Box<dyn JobScheduler> + Send + Sync>;

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
