//! User schedulers and model selectors: one file per policy, found by
//! name in the [`registry`].
//!
//! A [`Scheduler`](crate::models::sim::Scheduler) decides *which tenant*
//! gets a free GPU; a [`Selector`](crate::models::sim::Selector) decides
//! *which model* that tenant trains next. The two traits are the policy
//! API and live beside the state they read, in [`crate::models::sim`];
//! both are built per repetition by factories found by name here. Adding a
//! policy means one file under `scheduler/` or `selector/` exposing its
//! [`entry`] (`pub fn entry()`) plus one line in the registry's list.

pub mod entry;
pub mod registry;
pub mod scheduler;
pub mod selector;
pub mod tenant_set;

pub use crate::core::params::Params;
