//! Policies by name. Adding a policy: write its file under `scheduler/` or
//! `selector/` with a `SPEC`, and list it here.

use super::{Params, scheduler, selector};
use crate::core::error::Result;
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
