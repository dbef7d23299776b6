//! Workflows (DESIGN §14): DAGs of steps with cached outputs, the third
//! workload of a shared scenario (Couler, arXiv 2403.07608).
//!
//! This module holds the data and rules that know no engine: the
//! workflow trace ([`trace`], built from [`rows`]) and what writes it (the WfFormat importer
//! [`wfformat`], the ML-pipeline generator [`generate`]), the memo cache
//! ([`cache`]), the memory a trace holds ([`footprint`]), the policy choices ([`policy`]) and the rules a user
//! registers for them ([`rule`], [`entry`], [`registry`]). The workload that
//! runs them on the cluster engine is `shared::sim::workflows`.

pub mod cache;
pub mod entry;
pub mod footprint;
pub mod generate;
pub mod policy;
pub mod registry;
pub mod rows;
pub mod rule;
pub mod trace;
pub mod wfformat;

pub use entry::{EvictionEntry, ParallelEntry};
pub use policy::{CacheConfig, CacheRule, ParallelRule, Resume, RetryConfig, Scope};
pub use registry::WorkflowRegistry;
pub use rule::{CacheEntry, Eviction, Parallelism, SplitStep};
pub use trace::{Step, WorkflowSpec, WorkflowTrace};
