//! The discrete-event core (DESIGN §2, §7).
//!
//! - [`EventQueue`]: events ordered by `(time, kind, sequence)` with integer
//!   microsecond times, so simultaneous events are truly simultaneous and
//!   their order is exact.
//! - [`Tenants`]: the per-tenant state every policy may read.
//! - [`run_events`]: the event loop every simulation mode shares; a mode is
//!   a [`Component`] that handles events and makes decisions after each
//!   instant.
//! - [`simulate`]: the model-selection mode. It knows nothing of any specific
//!   policy; it talks to a [`Scheduler`](crate::models::policy::Scheduler) and a
//!   [`Selector`](crate::models::policy::Selector) through their traits.

#[doc(hidden)]
pub mod decision_bench;
mod gpu_pool;
mod outcome;
mod simulation;
mod tenants;

pub use crate::core::{Component, EventQueue, LoopEnd, QueuedEvent, run_events};
pub use gpu_pool::GpuPool;
pub use outcome::{JobRecord, RunOutcome};
pub use simulation::{Event, SimConfig, SimInput, simulate};
pub use tenants::{TenantLimits, Tenants};
