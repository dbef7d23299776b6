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
//! preemptive: [`srtf`], [`las`]; time-sliced in rounds (DESIGN §11.3):
//! [`max_min_fairness`].

pub mod fair_share;
pub mod fifo;
pub mod ftf;
pub mod las;
pub mod max_min_fairness;
mod preemptive;
pub mod sjf;
pub mod srtf;
mod static_order;

pub use static_order::priority_order;

use std::fmt;
use std::sync::Arc;

pub use crate::core::params::Params;

use crate::core::error::Result;
use crate::core::named::{Named, NamedList};
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
    /// Whether it time-slices in rounds and so needs `[cluster].round_s`
    /// (DESIGN §11.3).
    pub needs_rounds: bool,
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
    max_min_fairness::SPEC,
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

/// Turns a `[[policy]]` table's keys into a job-scheduler factory.
pub type ParseJobScheduler = Arc<dyn Fn(&mut Params) -> Result<JobSchedulerFactory> + Send + Sync>;

/// A cluster scheduler a job-mode scenario can name: built in or
/// registered ([`JobRegistry::add_scheduler`]).
#[derive(Clone)]
pub struct JobSchedulerEntry {
    /// Name used in scenarios.
    pub name: String,
    /// One-line description.
    pub about: String,
    /// Whether it preempts running jobs.
    pub preemptive: bool,
    /// Whether it needs `[cluster].round_s` (DESIGN §11.3).
    pub needs_rounds: bool,
    /// Builds the factory from the policy table.
    pub parse: ParseJobScheduler,
}

impl JobSchedulerEntry {
    /// A non-preemptive scheduler called `name` whose factory `parse` makes
    /// from the policy table.
    pub fn new(
        name: impl Into<String>,
        about: impl Into<String>,
        parse: impl Fn(&mut Params) -> Result<JobSchedulerFactory> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            about: about.into(),
            preemptive: false,
            needs_rounds: false,
            parse: Arc::new(parse),
        }
    }
}

impl fmt::Debug for JobSchedulerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobSchedulerEntry")
            .field("name", &self.name)
            .field("preemptive", &self.preemptive)
            .finish_non_exhaustive()
    }
}

impl From<&JobSchedulerSpec> for JobSchedulerEntry {
    fn from(s: &JobSchedulerSpec) -> Self {
        let parse = s.parse;
        Self {
            name: s.name.to_string(),
            about: s.about.to_string(),
            preemptive: s.preemptive,
            needs_rounds: s.needs_rounds,
            parse: Arc::new(parse),
        }
    }
}

/// The cluster schedulers job-mode scenarios can name: the built-ins
/// ([`JobRegistry::builtin`]) and any a user adds; names are unique.
#[derive(Debug, Clone)]
pub struct JobRegistry {
    /// The schedulers, built-ins first, then in the order added.
    pub schedulers: NamedList<JobSchedulerEntry>,
}

impl Default for JobRegistry {
    fn default() -> Self {
        Self::builtin()
    }
}

impl JobRegistry {
    /// Every built-in scheduler ([`SCHEDULERS`]).
    pub fn builtin() -> Self {
        Self {
            schedulers: NamedList::new(
                "job scheduler",
                SCHEDULERS.iter().map(JobSchedulerEntry::from),
            ),
        }
    }

    /// Add a scheduler; its name must be new and non-empty.
    pub fn add_scheduler(&mut self, entry: JobSchedulerEntry) -> Result<()> {
        self.schedulers.add(entry)
    }

    /// The scheduler called `name`.
    pub fn scheduler(&self, name: &str) -> Option<&Arc<JobSchedulerEntry>> {
        self.schedulers.get(name)
    }
}

impl Named for JobSchedulerEntry {
    fn name(&self) -> &str {
        &self.name
    }
}
