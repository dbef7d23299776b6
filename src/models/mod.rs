//! Model-selection mode: tenants share a GPU cluster and each trains its
//! candidate models one after another (DESIGN §1–§8).

pub mod aggregate;
pub mod bench;
pub mod experiment;
pub mod gp;
pub mod import;
pub mod metrics;
mod mode;
pub mod policy;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod trace;
pub mod warnings;

pub use mode::{ModelMode, ModelReport, run_grid};
