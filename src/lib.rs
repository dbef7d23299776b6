//! tenantsim: a discrete-event simulator for multi-tenant machine-learning
//! services.
//!
//! Many users share one GPU cluster; each brings a dataset and candidate
//! models. The simulator replays a [`trace`] (accuracy and runtime per user
//! and model) through the [`engine`] under the user scheduler and model
//! selector a [`scenario`] names, and reports regret curves and time to
//! quality ([`metrics`], [`report`]). The command line in `main.rs` is one
//! user of this library.

pub mod aggregate;
pub mod bench;
pub mod check;
pub mod cli;
pub mod csv_columns;
pub mod echo;
pub mod engine;
pub mod error;
pub mod experiment;
pub mod gp;
pub mod interrupt;
pub mod io_util;
pub mod jobs;
pub mod limits;
pub mod metrics;
pub mod plot;
pub mod policy;
pub mod report;
pub mod rng;
pub mod scenario;
#[doc(hidden)]
pub mod testing;
pub mod trace;
pub mod warnings;

pub use error::{Error, ErrorKind, Result};
