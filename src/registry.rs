//! The policies scenarios can name, in both modes: the built-ins and any
//! a user registers (DESIGN §10). Scenario loading and running take a
//! registry; the command line uses [`Registry::builtin`]. One entry type
//! per policy kind ([`SchedulerEntry`], [`SelectorEntry`],
//! [`JobSchedulerEntry`]); every registry is a
//! [`NamedList`](crate::core::named::NamedList) of them.
//!
//! ```
//! use tenantsim::prelude::*;
//!
//! /// Serves the eligible tenant with the highest index.
//! struct LastFirst;
//! impl Scheduler for LastFirst {
//!     fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
//!         Ok((0..tenants.len()).rev().find(|&t| tenants.is_eligible(t)))
//!     }
//! }
//!
//! let mut registry = Registry::builtin();
//! registry.add_scheduler(SchedulerEntry::of("last-first", "highest index first", || LastFirst))?;
//! assert!(registry.models.scheduler("last-first").is_some());
//! assert!(registry.models.scheduler("round-robin").is_some()); // built-ins stay
//! // A name can be registered once.
//! assert!(registry.add_scheduler(SchedulerEntry::of("last-first", "", || LastFirst)).is_err());
//! # Ok::<(), tenantsim::Error>(())
//! ```
//!
//! A policy with keys reads them and builds one policy per repetition:
//! `SchedulerEntry::new(name, about, |params| { let k = params.f64("k",
//! 1.0)?; Ok(move |ctx: &RepContext<'_>| Ok(MyPolicy::new(ctx, k))) })`.

use std::sync::Arc;

use crate::core::error::Result;
use crate::jobs::JobMode;
use crate::jobs::policy::JobRegistry;
use crate::jobs::policy::entry::JobSchedulerEntry;
use crate::models::ModelMode;
use crate::models::policy::entry::{SchedulerEntry, SelectorEntry};
use crate::models::policy::registry::ModelRegistry;
use crate::shared::SharedMode;

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

    /// Shared-cluster mode with these policies (the service's and the
    /// cluster schedulers).
    pub fn shared_mode(&self) -> SharedMode {
        SharedMode::new(self.model_mode(), self.job_mode())
    }

    /// Job mode with these schedulers.
    pub fn job_mode(&self) -> JobMode {
        JobMode::new(Arc::new(self.jobs.clone()))
    }
}
