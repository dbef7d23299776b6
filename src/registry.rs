//! The policies scenarios can name, in both modes: the built-ins and any
//! a user registers (DESIGN §10). Scenario loading and running take a
//! registry; the command line uses [`Registry::builtin`]. One entry type
//! per policy kind ([`SchedulerEntry`], [`SelectorEntry`],
//! [`JobSchedulerEntry`], and the workflows' [`EvictionEntry`] and
//! [`ParallelEntry`], DESIGN §14.8); every registry is a
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
//! The workflows' cache eviction and parallelisation rules register the
//! same way and are named by `[[policy]] cache = "..."` and `parallel =
//! "..."` of a shared scenario:
//!
//! ```
//! use tenantsim::prelude::*;
//!
//! let mut registry = Registry::builtin();
//! // Evict the largest entry first (lowest score first; ties: `lru`).
//! registry.add_eviction(EvictionEntry::new("largest-first", "largest entry first", || {
//!     Ok(|e: &CacheEntry| Ok(-(e.bytes as f64)))
//! }))?;
//! // Half the free GPUs' worth of sub-jobs, 1 to parallel_k.
//! registry.add_parallel(ParallelEntry::new("half-free", "half the free GPUs", || {
//!     Ok(|s: &SplitStep| {
//!         let fit = s.free_gpus / u64::from(s.gpus.max(1)) / 2;
//!         Ok(fit.clamp(1, u64::from(s.parallel_k)) as u32)
//!     })
//! }))?;
//! assert!(registry.workflows.eviction("lru").is_some()); // built-ins stay
//! // Names are unique per kind.
//! let again = EvictionEntry::new("lru", "", || Ok(|_: &CacheEntry| Ok(0.0)));
//! assert!(registry.add_eviction(again).is_err());
//! let shared = registry.shared_mode(); // scenarios run with them
//! assert!(shared.workflows.parallel("half-free").is_some());
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
use crate::workflows::{EvictionEntry, ParallelEntry, WorkflowRegistry};

/// Every policy scenarios may name: model-mode schedulers and selectors,
/// job-mode schedulers, and the workflows' cache eviction and
/// parallelisation rules.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Model mode's schedulers and selectors.
    pub models: ModelRegistry,
    /// Job mode's cluster schedulers.
    pub jobs: JobRegistry,
    /// The workflows' cache eviction and parallelisation rules.
    pub workflows: WorkflowRegistry,
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

    /// Add a workflows cache eviction rule (its name must be new among
    /// them).
    pub fn add_eviction(&mut self, entry: EvictionEntry) -> Result<()> {
        self.workflows.add_eviction(entry)
    }

    /// Add a workflows parallelisation rule (its name must be new among
    /// them).
    pub fn add_parallel(&mut self, entry: ParallelEntry) -> Result<()> {
        self.workflows.add_parallel(entry)
    }

    /// Model mode with these policies.
    pub fn model_mode(&self) -> ModelMode {
        ModelMode::new(Arc::new(self.models.clone()))
    }

    /// Shared-cluster mode with these policies (the service's, the
    /// cluster schedulers and the workflows' rules).
    pub fn shared_mode(&self) -> SharedMode {
        SharedMode::new(self.model_mode(), self.job_mode())
            .with_workflows(Arc::new(self.workflows.clone()))
    }

    /// Job mode with these schedulers.
    pub fn job_mode(&self) -> JobMode {
        JobMode::new(Arc::new(self.jobs.clone()))
    }
}
