//! The model-selection simulation and its policy API (DESIGN §2, §7).
//!
//! - [`Tenants`]: the per-tenant state every policy may read.
//! - [`Scheduler`], [`Selector`], [`Proposal`]: the policy API, beside that
//!   state; policies implement it ([`crate::models::policy`]).
//! - [`simulate`]: one run. It knows nothing of any specific policy; it
//!   talks to a [`Scheduler`] and a [`Selector`] through their traits, as a
//!   [`Component`] of the shared event loop ([`run_events`], with the
//!   [`EventQueue`] ordered by `(time, kind, sequence)` in integer
//!   microseconds, so simultaneous events are exactly simultaneous).

mod arrival_feed;
mod arrival_times;
mod config;
mod decision;
#[doc(hidden)]
pub mod decision_bench;
mod end_states;
mod event;
mod gpu_pool;
mod gpu_types;
mod job_log;
mod job_sink;
mod left_at;
mod outcome;
mod parked_places;
mod policy_api;
mod simulation;
mod stepper;
mod tenant_users;
mod tenants;
mod threaded_sink;

pub use crate::core::sim::{Component, EventQueue, LoopEnd, QueuedEvent, run_events};
pub use arrival_times::{
    ArrivalDraws, Arrivals, MAX_ARRIVAL_S, PoissonStream, PoissonTimes, Unarrived, beyond_limit,
    secs_to_us,
};
pub use config::SimConfig;
pub use decision::{Choice, Decision, Policies, Start};
pub(crate) use end_states::EndStatesBuilder;
pub use end_states::{EndReason, EndState, EndStates, EndStatesIter};
pub use event::Event;
pub use gpu_pool::GpuPool;
pub use gpu_types::{GpuTypes, SpeedTable};
pub use job_sink::{JobSink, RunEndState};
pub(crate) use left_at::LeftAtBuilder;
pub use left_at::{LeftAt, LeftAtIter};
pub use outcome::{CompletionOrder, JobLog, JobRecord, RunOutcome};
pub use policy_api::{
    PrefetchStep, Proposal, RepContext, Scheduler, SchedulerFactory, Selector, SelectorFactory,
};
pub use simulation::{
    SharedInput, SimInput, simulate, simulate_continuing, simulate_observed,
    simulate_observed_owned, simulate_observed_shared,
};
pub use stepper::{Decided, DecisionPoint, ModelRun};
pub use tenant_users::{TenantUsers, UserList};
pub use tenants::{TenantLimits, Tenants, TriedModels};
pub use threaded_sink::ThreadedSink;
