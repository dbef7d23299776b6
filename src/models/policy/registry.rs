//! Policies by name. Adding a policy: write its file under `scheduler/` or
//! `selector/` with a `SPEC`, and list it here.

use std::fmt;
use std::sync::Arc;

use super::{Params, scheduler, selector};
use crate::core::error::Result;
use crate::core::named::{Named, NamedList};
use crate::models::sim::{SchedulerFactory, SelectorFactory};
use crate::models::trace::Trace;

/// A user scheduler known by name.
#[derive(Debug, Clone, Copy)]
pub struct SchedulerSpec {
    /// Name used in scenarios.
    pub name: &'static str,
    /// One-line description for `--help` and errors.
    pub about: &'static str,
    /// Whether it needs a selector that provides acquisition values (a GP
    /// selector).
    pub needs_acquisition: bool,
    /// Take this scheduler's keys from the policy table and make a factory.
    pub parse: fn(&mut Params) -> Result<SchedulerFactory>,
}

/// A model selector known by name.
#[derive(Debug, Clone, Copy)]
pub struct SelectorSpec {
    /// Name used in scenarios.
    pub name: &'static str,
    /// One-line description.
    pub about: &'static str,
    /// Whether its proposals carry acquisition values.
    pub provides_acquisition: bool,
    /// Whether it builds a GP prior from the prior users: a scenario then
    /// needs at least one prior user and a trace of at most
    /// `MAX_GP_MODELS` models.
    pub gp_prior: bool,
    /// Take this selector's keys from the policy table and make a factory.
    pub parse: fn(&mut Params, &Trace) -> Result<SelectorFactory>,
}

/// Every user scheduler.
pub const SCHEDULERS: &[SchedulerSpec] = &[
    scheduler::round_robin::SPEC,
    scheduler::random::SPEC,
    scheduler::greedy::SPEC,
    scheduler::hybrid::SPEC,
    scheduler::easeml_proto::SPEC,
];

/// Every model selector.
pub const SELECTORS: &[SelectorSpec] = &[
    selector::fixed_order::IN_ORDER,
    selector::fixed_order::MOST_RECENT,
    selector::fixed_order::MOST_CITED,
    selector::random::SPEC,
    selector::gp::GP_UCB,
    selector::gp::GP_UCB_COST,
    selector::gp::GP_EI,
    selector::gp::GP_EI_PER_SECOND,
    selector::successive_halving::SPEC,
    selector::hyperband::SPEC,
    selector::asha::SPEC,
];

/// The scheduler called `name`.
pub fn scheduler(name: &str) -> Option<&'static SchedulerSpec> {
    SCHEDULERS.iter().find(|s| s.name == name)
}

/// The selector called `name`.
pub fn selector(name: &str) -> Option<&'static SelectorSpec> {
    SELECTORS.iter().find(|s| s.name == name)
}

/// Names of all schedulers, for messages.
pub fn scheduler_names() -> String {
    SCHEDULERS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Names of all selectors, for messages.
pub fn selector_names() -> String {
    SELECTORS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Turns a `[[policy]]` table's keys into a scheduler factory (an entry's
/// `parse`; it must take every key it uses from the [`Params`]).
pub type ParseScheduler = Arc<dyn Fn(&mut Params) -> Result<SchedulerFactory> + Send + Sync>;

/// Turns a `[[policy]]` table's keys into a selector factory, given the
/// scenario's trace.
pub type ParseSelector = Arc<dyn Fn(&mut Params, &Trace) -> Result<SelectorFactory> + Send + Sync>;

/// A scheduler a scenario can name: a built-in one or one a user
/// registered ([`ModelRegistry::add_scheduler`]).
#[derive(Clone)]
pub struct SchedulerEntry {
    /// Name used in scenarios (`scheduler = "…"`).
    pub name: String,
    /// One-line description.
    pub about: String,
    /// Whether it reads the selector's acquisition values (then the
    /// scenario must pair it with a GP selector).
    pub needs_acquisition: bool,
    /// Builds the factory from the policy table.
    pub parse: ParseScheduler,
}

impl SchedulerEntry {
    /// A scheduler called `name` whose factory `parse` makes from the
    /// policy table (needing no acquisition values).
    pub fn new(
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
}

impl fmt::Debug for SchedulerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchedulerEntry")
            .field("name", &self.name)
            .field("needs_acquisition", &self.needs_acquisition)
            .finish_non_exhaustive()
    }
}

impl From<&SchedulerSpec> for SchedulerEntry {
    fn from(s: &SchedulerSpec) -> Self {
        let parse = s.parse;
        Self {
            name: s.name.to_string(),
            about: s.about.to_string(),
            needs_acquisition: s.needs_acquisition,
            parse: Arc::new(parse),
        }
    }
}

/// A model selector a scenario can name: built in or registered
/// ([`ModelRegistry::add_selector`]).
#[derive(Clone)]
pub struct SelectorEntry {
    /// Name used in scenarios (`selector = "…"`).
    pub name: String,
    /// One-line description.
    pub about: String,
    /// Whether its proposals carry acquisition values (a GP or
    /// multi-fidelity selector).
    pub provides_acquisition: bool,
    /// Whether it builds a GP prior from the prior users
    /// ([`SelectorSpec::gp_prior`]).
    pub gp_prior: bool,
    /// Builds the factory from the policy table and the trace.
    pub parse: ParseSelector,
}

impl SelectorEntry {
    /// A selector called `name` whose factory `parse` makes from the policy
    /// table and the trace (providing no acquisition values).
    pub fn new(
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

impl From<&SelectorSpec> for SelectorEntry {
    fn from(s: &SelectorSpec) -> Self {
        let parse = s.parse;
        Self {
            name: s.name.to_string(),
            about: s.about.to_string(),
            provides_acquisition: s.provides_acquisition,
            gp_prior: s.gp_prior,
            parse: Arc::new(parse),
        }
    }
}

/// The schedulers and selectors model-mode scenarios can name: the
/// built-ins ([`ModelRegistry::builtin`]) and any a user adds. Names are
/// unique; a lookup is by exact name.
#[derive(Debug, Clone)]
pub struct ModelRegistry {
    /// The schedulers, built-ins first, then in the order added.
    pub schedulers: NamedList<SchedulerEntry>,
    /// The selectors, built-ins first, then in the order added.
    pub selectors: NamedList<SelectorEntry>,
}

impl Default for ModelRegistry {
    fn default() -> Self {
        Self::builtin()
    }
}

impl ModelRegistry {
    /// Every built-in scheduler and selector ([`SCHEDULERS`],
    /// [`SELECTORS`]).
    pub fn builtin() -> Self {
        Self {
            schedulers: NamedList::new("scheduler", SCHEDULERS.iter().map(SchedulerEntry::from)),
            selectors: NamedList::new("selector", SELECTORS.iter().map(SelectorEntry::from)),
        }
    }

    /// Add a scheduler; its name must be new and non-empty.
    pub fn add_scheduler(&mut self, entry: SchedulerEntry) -> Result<()> {
        self.schedulers.add(entry)
    }

    /// Add a selector; its name must be new and non-empty.
    pub fn add_selector(&mut self, entry: SelectorEntry) -> Result<()> {
        self.selectors.add(entry)
    }

    /// The scheduler called `name`.
    pub fn scheduler(&self, name: &str) -> Option<&Arc<SchedulerEntry>> {
        self.schedulers.get(name)
    }

    /// The selector called `name`.
    pub fn selector(&self, name: &str) -> Option<&Arc<SelectorEntry>> {
        self.selectors.get(name)
    }
}

impl Named for SchedulerEntry {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for SelectorEntry {
    fn name(&self) -> &str {
        &self.name
    }
}
