//! Workflows (DESIGN §14): DAGs of steps with cached outputs, the third
//! workload of a shared scenario (Couler, arXiv 2403.07608).
//!
//! This module holds the data and rules that know no engine: the
//! workflow trace ([`trace`]) and what writes it (the WfFormat importer
//! [`wfformat`], the ML-pipeline generator [`generate`]), the memo cache
//! ([`cache`]) and the policy choices ([`policy`]). The workload that
//! runs them on the cluster engine is `shared::sim::workflows`.

pub mod cache;
pub mod generate;
pub mod policy;
pub mod trace;
pub mod wfformat;

pub use policy::{CacheConfig, CacheRule, ParallelRule, Resume, RetryConfig, Scope};
pub use trace::{Step, WorkflowSpec, WorkflowTrace};
