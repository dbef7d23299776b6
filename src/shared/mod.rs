//! Shared-cluster mode (`mode = "shared"`, DESIGN §13): the model-selection
//! service ([`crate::models`]) and background job traffic
//! ([`crate::jobs`]) on one cluster. A room above both modes: it imports
//! them, neither imports it.
//!
//! [`scenario`] loads a shared scenario through both modes' loaders,
//! [`run`] runs one task through the engine ([`sim`]), [`report`] writes
//! what a shared results folder adds to its workloads' folders, and
//! [`mode`] is the mode as the shared runner sees it; [`workflows_report`]
//! computes and writes the workflows' results (DESIGN §14.7) and
//! [`workflows_footprint`] estimates their memory (DESIGN §8.5).

pub mod episode;
pub mod mode;
pub mod report;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod workflows_footprint;
pub mod workflows_report;

pub use mode::SharedMode;
