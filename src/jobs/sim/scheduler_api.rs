//! The scheduler API of job-trace mode (DESIGN §9): what a cluster
//! scheduler implements, next to the state it reads ([`State`]) and the
//! pass it acts through ([`Pass`]). The simulation calls schedulers
//! through this trait only; it knows no scheduler.

use std::sync::Arc;

use super::simulation::{Pass, State};
use crate::core::error::Result;
use crate::core::sim::time::Micros;
use crate::jobs::trace::Job;

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

/// A boxed scheduler is one (a builder may return a
/// `Box<dyn JobScheduler>`, e.g. [`priority_order`](crate::jobs::policy::priority_order)'s).
impl<S: JobScheduler + ?Sized> JobScheduler for Box<S> {
    fn on_arrival(&mut self, job: u32, now: Micros, state: &State<'_>) {
        (**self).on_arrival(job, now, state);
    }

    fn on_completion(&mut self, job: u32, now: Micros, state: &State<'_>) {
        (**self).on_completion(job, now, state);
    }

    fn on_timer(&mut self, job: u32, now: Micros, state: &State<'_>) -> Option<Micros> {
        (**self).on_timer(job, now, state)
    }

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        (**self).schedule(pass)
    }
}

/// What a factory gets to build the scheduler of one run.
#[derive(Debug, Clone, Copy)]
pub struct SchedInit<'a> {
    /// The jobs of the run.
    pub jobs: &'a [Job],
    /// Number of users.
    pub users: usize,
    /// The scenario's seed (for a scheduler's own random stream, drawn
    /// from `(seed, repetition, purpose)` only, DESIGN §5).
    pub seed: u64,
    /// The repetition, from 0.
    pub repetition: u64,
}

/// Builds the scheduler of each run; an `Err` (a user scheduler that
/// cannot be made) stops the run with it.
pub type JobSchedulerFactory =
    Arc<dyn Fn(&SchedInit<'_>) -> Result<Box<dyn JobScheduler>> + Send + Sync>;
