//! The mode-agnostic core: what model-selection mode ([`crate::models`])
//! and job-trace mode ([`crate::jobs`]) share. Nothing here knows either
//! mode (DESIGN §10, the dependency rule).

pub mod cache;
pub mod check;
pub mod choice;
pub mod cluster;
pub mod codec;
pub mod compare;
pub mod csv_columns;
pub mod csv_text;
pub mod echo;
pub mod error;
mod event_loop;
mod event_queue;
pub mod execution;
pub mod heap;
pub mod identity;
pub mod interrupt;
pub mod io;
pub mod limits;
pub mod mode;
pub mod named;
pub mod params;
pub mod policy_clock;
pub mod rng;
pub mod runner;
pub mod scenario;
pub mod schema;
pub mod shard;
pub mod slurm;
pub mod spool;
pub mod stats;
pub mod sweep;
pub mod table;
#[doc(hidden)]
pub mod testing;
pub mod time;

pub use event_loop::{Component, EVENTS_HANDLED, LoopEnd, PROGRESS_STEP, run_events};
pub use event_queue::{EventQueue, QueuedEvent};
