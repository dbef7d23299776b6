//! Job-trace mode (DESIGN §9): replay a GPU-cluster job trace under classic
//! cluster schedulers on the same discrete-event loop as model selection.
//!
//! - [`trace`]: the neutral job CSV `job_id,user,submit_s,duration_s,gpus`
//!   (optional `gpu_type`, `group`), validated with file/line/field errors.
//! - [`cluster`]: nodes × GPUs and the `consolidate` / `spread` placement
//!   rules; node lists.
//! - [`scheduler`]: `fifo`, `sjf`, `srtf`, `las`, `fair-share`, `ftf`
//!   behind one trait, found by name; optional backfilling.
//! - [`simulation`]: the [`Component`](crate::core::Component) driven by
//!   [`run_events`](crate::core::run_events); preemption semantics.
//! - [`metrics`], [`report`]: JCT statistics, utilisation, fairness; the
//!   results folder.
//! - [`scenario`], [`run`], [`cli`]: the `mode = "jobs"` scenario, its
//!   repetitions × policies, and the command line.
//! - [`import`]: Alibaba v2023, Philly and Helios logs to the neutral CSV.
//! - [`synthetic`]: a synthetic workload for benchmarks and tests.

pub mod cluster;
pub mod import;
pub mod metrics;
pub mod report;
pub mod run;
pub mod scenario;
pub mod scheduler;
pub mod simulation;
pub mod synthetic;
pub mod trace;

pub use cluster::{Alloc, Cluster, Placement};
pub use simulation::{JobOutcome, JobSimInput, Segment, simulate_jobs};
pub use trace::{Job, JobRow, JobTrace, load_job_trace, parse_job_trace};
