//! tenantsim: a discrete-event simulator for multi-tenant machine-learning
//! services.
//!
//! Many users share one GPU cluster; each brings a dataset and candidate
//! models. The simulator replays a [`trace`] (accuracy and runtime per user
//! and model) through the [`engine`] under the user scheduler and model
//! selector a [`scenario`] names, and reports regret curves and time to
//! quality ([`metrics`], [`report`]). The command line in `main.rs` is one
//! user of this library.

pub mod error;
pub mod gp;
pub mod interrupt;
pub mod io_util;
pub mod rng;
#[doc(hidden)]
pub mod testing;
pub mod trace;

pub use error::{Error, ErrorKind, Result};
pub mod aggregate;
pub mod check;
pub mod cli;
pub mod engine;
pub mod experiment;
pub mod jobs;
pub mod metrics;
pub mod plot;
pub mod policy;
pub mod report;
pub mod scenario;
