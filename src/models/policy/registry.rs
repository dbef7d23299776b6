//! Model mode's policies by name (DESIGN §10): the list of built-ins and
//! the [`ModelRegistry`] scenarios are loaded with. Adding a built-in
//! policy: write its file under `scheduler/` or `selector/` with a
//! `pub fn entry()`, and list it here. The entry types live in the leaf
//! [`entry`](super::entry), which imports no policy file.

use std::sync::{Arc, LazyLock};

use super::{scheduler, selector};
use crate::core::error::Result;
use crate::core::named::NamedList;

pub use super::entry::{ParseScheduler, ParseSelector, SchedulerEntry, SelectorEntry};

/// Every built-in scheduler, in the order `--help` lists them.
fn builtin_schedulers() -> Vec<SchedulerEntry> {
    vec![
        scheduler::round_robin::entry(),
        scheduler::random::entry(),
        scheduler::greedy::entry(),
        scheduler::hybrid::entry(),
        scheduler::easeml_proto::entry(),
    ]
}

/// Every built-in selector, in the order `--help` lists them.
fn builtin_selectors() -> Vec<SelectorEntry> {
    vec![
        selector::fixed_order::in_order(),
        selector::fixed_order::most_recent(),
        selector::fixed_order::most_cited(),
        selector::random::entry(),
        selector::gp::gp_ucb(),
        selector::gp::gp_ucb_cost(),
        selector::gp::gp_ei(),
        selector::gp::gp_ei_per_second(),
        selector::multi_fidelity::successive_halving::entry(),
        selector::multi_fidelity::hyperband::entry(),
        selector::multi_fidelity::asha::entry(),
    ]
}

/// The built-ins, made once (entries are shared, [`ModelRegistry::builtin`]
/// clones the lists' `Arc`s).
static BUILTIN: LazyLock<ModelRegistry> = LazyLock::new(|| ModelRegistry {
    schedulers: NamedList::new("scheduler", builtin_schedulers()),
    selectors: NamedList::new("selector", builtin_selectors()),
});

/// The built-in scheduler called `name`.
pub fn scheduler(name: &str) -> Option<&'static SchedulerEntry> {
    BUILTIN.scheduler(name).map(AsRef::as_ref)
}

/// The built-in selector called `name`.
pub fn selector(name: &str) -> Option<&'static SelectorEntry> {
    BUILTIN.selector(name).map(AsRef::as_ref)
}

/// Every built-in scheduler.
pub fn schedulers() -> impl Iterator<Item = &'static SchedulerEntry> {
    BUILTIN.schedulers.iter()
}

/// Every built-in selector.
pub fn selectors() -> impl Iterator<Item = &'static SelectorEntry> {
    BUILTIN.selectors.iter()
}

/// The schedulers and selectors model-mode scenarios can name: the
/// built-ins ([`ModelRegistry::builtin`]) and any a user adds. Names are
/// unique; a lookup is by exact name. Same shape as the job mode's
/// [`JobRegistry`](crate::jobs::policy::JobRegistry): a
/// [`NamedList`] per policy kind.
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
    /// Every built-in scheduler and selector.
    pub fn builtin() -> Self {
        BUILTIN.clone()
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
