//! What a job-mode cluster scheduler registers as (DESIGN §10): a
//! [`JobSchedulerEntry`]. Each built-in scheduler file exposes its own
//! (`pub fn entry()`), [`registry`](super::registry) lists them, and a user
//! makes one the same way. A leaf: this file imports no scheduler file.
//!
//! ```
//! use tenantsim::jobs::policy::priority_order;
//! use tenantsim::jobs::trace::Job;
//! use tenantsim::prelude::*;
//!
//! // Largest job first (an order fixed by job and time, run through the
//! // library's priority queue).
//! let entry = JobSchedulerEntry::new("largest-first", "most GPUs first", |_params| {
//!     Ok(|init: &SchedInit<'_>| {
//!         Ok(priority_order(init.jobs.len(), |job: &Job, _: u32, _: Micros| {
//!             Ok(-f64::from(job.gpus))
//!         }))
//!     })
//! });
//! assert!(!entry.preemptive);
//! assert!(entry.preemptive(true).preemptive);
//! ```

use std::fmt;
use std::sync::Arc;

use crate::core::error::Result;
use crate::core::named::Named;
use crate::core::params::Params;
use crate::jobs::sim::{JobScheduler, JobSchedulerFactory, SchedInit};

/// Turns a `[[policy]]` table's keys into a job-scheduler factory (keys
/// left over are reported as unknown).
pub type ParseJobScheduler = Arc<dyn Fn(&mut Params) -> Result<JobSchedulerFactory> + Send + Sync>;

/// A cluster scheduler a job-mode scenario can name: built in or
/// registered ([`Registry::add_job_scheduler`](crate::registry::Registry::add_job_scheduler)).
#[derive(Clone)]
pub struct JobSchedulerEntry {
    /// Name used in scenarios.
    pub name: String,
    /// One-line description.
    pub about: String,
    /// Whether it preempts running jobs.
    pub preemptive: bool,
    /// Whether it time-slices in rounds and so needs `[cluster].round_s`
    /// (DESIGN §11.3).
    pub needs_rounds: bool,
    /// Builds the factory from the policy table.
    pub parse: ParseJobScheduler,
}

impl JobSchedulerEntry {
    /// A scheduler called `name`: `parse` reads its keys from the policy
    /// table and returns a builder that makes the scheduler of each run
    /// (from its [`SchedInit`]). Neither preemptive nor in rounds (see the
    /// builder methods).
    pub fn new<B, S>(
        name: impl Into<String>,
        about: impl Into<String>,
        parse: impl Fn(&mut Params) -> Result<B> + Send + Sync + 'static,
    ) -> Self
    where
        B: Fn(&SchedInit<'_>) -> Result<S> + Send + Sync + 'static,
        S: JobScheduler + 'static,
    {
        Self::from_parse(name, about, move |params: &mut Params| {
            let build = parse(params)?;
            let factory: JobSchedulerFactory = Arc::new(move |init: &SchedInit<'_>| {
                Ok(Box::new(build(init)?) as Box<dyn JobScheduler>)
            });
            Ok(factory)
        })
    }

    /// A scheduler called `name` whose `parse` returns the boxed factory
    /// itself (for a scheduler whose concrete type depends on a key, or
    /// one already boxed such as [`priority_order`](super::priority_order)'s).
    pub fn from_parse(
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

    /// This entry, preempting running jobs or not.
    #[must_use]
    pub fn preemptive(mut self, preemptive: bool) -> Self {
        self.preemptive = preemptive;
        self
    }

    /// This entry, time-slicing in rounds or not.
    #[must_use]
    pub fn needs_rounds(mut self, needs_rounds: bool) -> Self {
        self.needs_rounds = needs_rounds;
        self
    }
}

impl fmt::Debug for JobSchedulerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobSchedulerEntry")
            .field("name", &self.name)
            .field("preemptive", &self.preemptive)
            .field("needs_rounds", &self.needs_rounds)
            .finish_non_exhaustive()
    }
}

impl Named for JobSchedulerEntry {
    fn name(&self) -> &str {
        &self.name
    }
}
