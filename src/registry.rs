//! The policies scenarios can name, in both modes: the built-ins and any
//! a user registers (DESIGN §10). Scenario loading and running take a
//! registry; the command line uses [`Registry::builtin`].
//!
//! ```
//! use std::sync::Arc;
//! use tenantsim::prelude::*;
//!
//! /// Serves the eligible tenant with the highest index.
//! struct LastFirst;
//! impl Scheduler for LastFirst {
//!     fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Option<usize> {
//!         (0..tenants.len()).rev().find(|&t| tenants.is_eligible(t))
//!     }
//! }
//!
//! let mut registry = Registry::builtin();
//! registry.add_scheduler(SchedulerEntry::new("last-first", "highest index first", |_params| {
//!     let factory: SchedulerFactory = Arc::new(|_ctx| Ok(Box::new(LastFirst) as Box<dyn Scheduler>));
//!     Ok(factory)
//! }))?;
//! assert!(registry.models.scheduler("last-first").is_some());
//! assert!(registry.models.scheduler("round-robin").is_some()); // built-ins stay
//! // A name can be registered once.
//! assert!(registry.add_scheduler(SchedulerEntry::new("last-first", "", |_| unreachable!())).is_err());
//! # Ok::<(), tenantsim::Error>(())
//! ```

use std::sync::Arc;

use crate::core::error::Result;
use crate::jobs::JobMode;
use crate::jobs::policy::{JobRegistry, JobSchedulerEntry};
use crate::models::ModelMode;
use crate::models::policy::registry::{ModelRegistry, SchedulerEntry, SelectorEntry};

/// Every policy scenarios may name: model-mode schedulers and selectors,
/// and job-mode schedulers.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Model mode's schedulers and selectors.
    pub models: ModelRegistry,
    /// Job mode's cluster schedulers.
    pub jobs: JobRegistry,
}

impl Registry {
    /// The built-in policies of both modes.
    pub fn builtin() -> Self {
        Self::default()
    }

    /// Add a model-mode scheduler (its name must be new).
    pub fn add_scheduler(&mut self, entry: SchedulerEntry) -> Result<()> {
        self.models.add_scheduler(entry)
    }

    /// Add a model selector (its name must be new).
    pub fn add_selector(&mut self, entry: SelectorEntry) -> Result<()> {
        self.models.add_selector(entry)
    }

    /// Add a job-mode cluster scheduler (its name must be new).
    pub fn add_job_scheduler(&mut self, entry: JobSchedulerEntry) -> Result<()> {
        self.jobs.add_scheduler(entry)
    }

    /// Model mode with these policies.
    pub fn model_mode(&self) -> ModelMode {
        ModelMode::new(Arc::new(self.models.clone()))
    }

    /// Job mode with these schedulers.
    pub fn job_mode(&self) -> JobMode {
        JobMode::new(Arc::new(self.jobs.clone()))
    }
}
