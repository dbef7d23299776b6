//! Cluster schedulers of job-trace mode: one file per scheduler, found by
//! name in the [`registry`] (each file exposes its [`entry`]); they implement the scheduler API of
//! [`crate::jobs::sim`] ([`JobScheduler`](crate::jobs::sim::JobScheduler)).
//!
//! A scheduler keeps its own queues. The simulation tells it when a job
//! arrives, completes or reaches a priority timer, and once per instant
//! (after every event at that instant) runs
//! [`JobScheduler::schedule`](crate::jobs::sim::JobScheduler::schedule),
//! where it starts and — if preemptive — preempts jobs through a
//! [`Pass`](crate::jobs::sim::simulation::Pass). Non-preemptive: [`fifo`], [`sjf`], [`fair_share`], [`ftf`];
//! preemptive: [`srtf`], [`las`]; time-sliced in rounds (DESIGN §11.3):
//! [`max_min_fairness`].

pub mod entry;
pub mod fair_share;
pub mod fifo;
pub mod ftf;
pub mod las;
pub mod max_min_fairness;
mod preemptive;
pub mod registry;
pub mod sjf;
pub mod srtf;
mod static_order;

pub use static_order::priority_order;

pub use crate::core::params::Params;

pub use entry::{JobSchedulerEntry, ParseJobScheduler};
pub use registry::{JobRegistry, scheduler, schedulers};
