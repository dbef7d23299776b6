//! What a model-mode policy registers as (DESIGN §10): a
//! [`SchedulerEntry`] or a [`SelectorEntry`]. Each built-in policy file
//! exposes its own (`pub fn entry()`), [`registry`](super::registry) lists
//! them, and a user makes one the same way. A leaf: this file imports no
//! policy file (the policy files import it; the list imports them).
//!
//! ```
//! use tenantsim::prelude::*;
//!
//! struct LastFirst;
//! impl Scheduler for LastFirst {
//!     fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
//!         Ok((0..tenants.len()).rev().find(|&t| tenants.is_eligible(t)))
//!     }
//! }
//! // A policy without keys: one value per repetition.
//! let short = SchedulerEntry::of("last-first", "highest index first", || LastFirst);
//! // The general form: read keys from the policy table, then build one
//! // policy per repetition from the repetition's context. The builder's
//! // argument type is written out (`&RepContext<'_>`): a closure returned
//! // by a closure gets no signature from the bound, so Rust cannot infer
//! // that it takes a reference of any lifetime.
//! let general = SchedulerEntry::new("last-first", "highest index first", |_params| {
//!     Ok(|_ctx: &RepContext<'_>| Ok(LastFirst))
//! });
//! assert_eq!(short.name, general.name);
//! assert!(!short.needs_acquisition);
//! assert!(short.needs_acquisition(true).needs_acquisition);
//! ```

use std::fmt;
use std::sync::Arc;

use crate::core::error::Result;
use crate::core::named::Named;
use crate::core::params::Params;
use crate::models::sim::{RepContext, Scheduler, SchedulerFactory, Selector, SelectorFactory};
use crate::models::trace::Trace;

/// Turns a `[[policy]]` table's keys into a scheduler factory (an entry's
/// `parse`; it must take every key it uses from the [`Params`]: keys left
/// over are reported as unknown).
pub type ParseScheduler = Arc<dyn Fn(&mut Params) -> Result<SchedulerFactory> + Send + Sync>;

/// Turns a `[[policy]]` table's keys into a selector factory, given the
/// scenario's trace.
pub type ParseSelector = Arc<dyn Fn(&mut Params, &Trace) -> Result<SelectorFactory> + Send + Sync>;

/// A scheduler a scenario can name (`scheduler = "…"`): a built-in one or
/// one a user registered ([`Registry::add_scheduler`](crate::registry::Registry::add_scheduler)).
#[derive(Clone)]
pub struct SchedulerEntry {
    /// Name used in scenarios.
    pub name: String,
    /// One-line description for `--help` and errors.
    pub about: String,
    /// Whether it reads the selector's acquisition values (then the
    /// scenario must pair it with a selector that provides them).
    pub needs_acquisition: bool,
    /// Builds the factory from the policy table.
    pub parse: ParseScheduler,
}

impl SchedulerEntry {
    /// A scheduler called `name`: `parse` reads its keys from the policy
    /// table and returns a builder that makes the scheduler of each
    /// repetition (from its [`RepContext`]). Needs no acquisition values
    /// (see [`SchedulerEntry::needs_acquisition`]).
    pub fn new<B, S>(
        name: impl Into<String>,
        about: impl Into<String>,
        parse: impl Fn(&mut Params) -> Result<B> + Send + Sync + 'static,
    ) -> Self
    where
        B: Fn(&RepContext<'_>) -> Result<S> + Send + Sync + 'static,
        S: Scheduler + 'static,
    {
        Self::from_parse(name, about, move |params: &mut Params| {
            let build = parse(params)?;
            let factory: SchedulerFactory = Arc::new(move |ctx: &RepContext<'_>| {
                Ok(Box::new(build(ctx)?) as Box<dyn Scheduler>)
            });
            Ok(factory)
        })
    }

    /// A scheduler called `name` with no keys, made by `make` for each
    /// repetition.
    pub fn of<S: Scheduler + 'static>(
        name: impl Into<String>,
        about: impl Into<String>,
        make: impl Fn() -> S + Send + Sync + 'static,
    ) -> Self {
        let make = Arc::new(make);
        Self::new(name, about, move |_params: &mut Params| {
            let make = Arc::clone(&make);
            Ok(move |_ctx: &RepContext<'_>| Ok(make()))
        })
    }

    /// A scheduler called `name` whose `parse` returns the boxed factory
    /// itself (for a policy that picks its concrete type by a key).
    pub fn from_parse(
        name: impl Into<String>,
        about: impl Into<String>,
        parse: impl Fn(&mut Params) -> Result<SchedulerFactory> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            about: about.into(),
            needs_acquisition: false,
            parse: Arc::new(parse),
        }
    }

    /// This entry, reading the selector's acquisition values or not.
    #[must_use]
    pub fn needs_acquisition(mut self, needs: bool) -> Self {
        self.needs_acquisition = needs;
        self
    }
}

impl fmt::Debug for SchedulerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchedulerEntry")
            .field("name", &self.name)
            .field("needs_acquisition", &self.needs_acquisition)
            .finish_non_exhaustive()
    }
}

impl Named for SchedulerEntry {
    fn name(&self) -> &str {
        &self.name
    }
}

/// A model selector a scenario can name (`selector = "…"`): built in or
/// registered ([`Registry::add_selector`](crate::registry::Registry::add_selector)).
#[derive(Clone)]
pub struct SelectorEntry {
    /// Name used in scenarios.
    pub name: String,
    /// One-line description.
    pub about: String,
    /// Whether its proposals carry acquisition values (a GP or
    /// multi-fidelity selector).
    pub provides_acquisition: bool,
    /// Whether it builds a GP prior from the prior users: a scenario then
    /// needs at least one prior user and a trace of at most
    /// `MAX_GP_MODELS` models.
    pub gp_prior: bool,
    /// Builds the factory from the policy table and the trace.
    pub parse: ParseSelector,
}

impl SelectorEntry {
    /// A selector called `name`: `parse` reads its keys from the policy
    /// table (given the trace) and returns a builder that makes the
    /// selector of each repetition. Provides no acquisition values and
    /// builds no GP prior (see the builder methods).
    pub fn new<B, S>(
        name: impl Into<String>,
        about: impl Into<String>,
        parse: impl Fn(&mut Params, &Trace) -> Result<B> + Send + Sync + 'static,
    ) -> Self
    where
        B: Fn(&RepContext<'_>) -> Result<S> + Send + Sync + 'static,
        S: Selector + 'static,
    {
        Self::from_parse(name, about, move |params: &mut Params, trace: &Trace| {
            let build = parse(params, trace)?;
            let factory: SelectorFactory =
                Arc::new(
                    move |ctx: &RepContext<'_>| Ok(Box::new(build(ctx)?) as Box<dyn Selector>),
                );
            Ok(factory)
        })
    }

    /// A selector called `name` with no keys, made by `make` for each
    /// repetition.
    pub fn of<S: Selector + 'static>(
        name: impl Into<String>,
        about: impl Into<String>,
        make: impl Fn() -> S + Send + Sync + 'static,
    ) -> Self {
        let make = Arc::new(make);
        Self::new(name, about, move |_params: &mut Params, _trace: &Trace| {
            let make = Arc::clone(&make);
            Ok(move |_ctx: &RepContext<'_>| Ok(make()))
        })
    }

    /// A selector called `name` whose `parse` returns the boxed factory
    /// itself (for a policy that picks its concrete type by a key).
    pub fn from_parse(
        name: impl Into<String>,
        about: impl Into<String>,
        parse: impl Fn(&mut Params, &Trace) -> Result<SelectorFactory> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            about: about.into(),
            provides_acquisition: false,
            gp_prior: false,
            parse: Arc::new(parse),
        }
    }

    /// This entry, its proposals carrying acquisition values or not.
    #[must_use]
    pub fn provides_acquisition(mut self, provides: bool) -> Self {
        self.provides_acquisition = provides;
        self
    }

    /// This entry, building a GP prior from the prior users or not.
    #[must_use]
    pub fn gp_prior(mut self, gp_prior: bool) -> Self {
        self.gp_prior = gp_prior;
        self
    }
}

impl fmt::Debug for SelectorEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SelectorEntry")
            .field("name", &self.name)
            .field("provides_acquisition", &self.provides_acquisition)
            .field("gp_prior", &self.gp_prior)
            .finish_non_exhaustive()
    }
}

impl Named for SelectorEntry {
    fn name(&self) -> &str {
        &self.name
    }
}
