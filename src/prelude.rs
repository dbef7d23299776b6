//! What a policy author needs, in one `use tenantsim::prelude::*;`: the
//! registry, the policy APIs of both modes with the state they read, and
//! the entry points that run a scenario with a registry.
//! `examples/custom_policy.rs` uses it end to end.

pub use crate::core::error::{Error, ErrorKind, Result};
pub use crate::core::io::scenario::Overrides;
pub use crate::core::params::Params;
pub use crate::core::sim::rng::{Purpose, stream};
pub use crate::core::sim::time::Micros;
pub use crate::jobs::policy::JobSchedulerEntry;
pub use crate::jobs::sim::simulation::{Pass, State};
pub use crate::jobs::sim::{JobScheduler, JobSchedulerFactory, Key, SchedInit};
pub use crate::models::policy::registry::{SchedulerEntry, SelectorEntry};
pub use crate::models::sim::{
    PrefetchStep, Proposal, RepContext, Scheduler, SchedulerFactory, Selector, SelectorFactory,
    Tenants,
};
pub use crate::models::trace::Trace;
pub use crate::registry::Registry;
pub use crate::run::{
    Cache, MergeOptions, RunOptions, Runner, merge_shards, run_scenario, run_scenario_with,
};
pub use crate::workflows::{
    CacheEntry, Eviction, EvictionEntry, ParallelEntry, Parallelism, SplitStep,
};
