//! Job-trace mode (DESIGN §9): replay a GPU-cluster job trace under classic
//! cluster schedulers on the same discrete-event loop as model selection.
//!
//! - [`trace`]: the neutral job CSV `job_id,user,submit_s,duration_s,gpus`
//!   (optional `gpu_type`, `group`), validated with file/line/field errors.
//! - [`sim`]: the cluster (nodes × GPUs, the `consolidate` / `spread`
//!   placement rules, node lists), the simulation driven by the shared
//!   event loop ([`run_events`](crate::core::sim::run_events)) with its
//!   preemption semantics, and the scheduler API ([`sim::JobScheduler`]).
//! - [`policy`]: `fifo`, `sjf`, `srtf`, `las`, `fair-share`, `ftf`, `max-min-fairness`, one
//!   file each, found by name; optional backfilling.
//! - [`metrics`], [`report`], [`summary`]: JCT statistics, utilisation,
//!   fairness; the results folder; the means over repetitions.
//! - [`scenario`], [`run`], [`JobMode`]: the `mode = "jobs"` scenario (and
//!   its `[sweep]`), its repetitions × policies, and the mode as the shared
//!   runner sees it (DESIGN §10). The command line is
//!   [`crate::cli::jobs`].
//! - [`import`]: Alibaba v2023, Philly and Helios logs to the neutral CSV.
//! - [`footprint`]: the memory a job scenario will hold, estimated from
//!   one pass over its trace and checked before the trace is read
//!   (DESIGN §8.5).
//! - [`synthetic`]: a synthetic workload for benchmarks and tests.
//! - [`warnings`]: degenerate runs (an under-loaded cluster, policies that
//!   cannot be told apart), on stderr and in `run.json`.
//!
//! # Example
//!
//! Five jobs on one node of 2 GPUs under `fifo` (the hand example of
//! `tests/it/jobs_hand.rs`): j0 holds both GPUs over 0–10 s; j1 and j2
//! then run over 10–12 and 10–16; j3 needs 2 GPUs and waits for 16–17;
//! j4 waits behind it (no backfilling) for 17–20. The JCTs are 10, 11, 14,
//! 14 and 16 s, a mean of 13 s.
//!
//! ```
//! use tenantsim::core::io::scenario::Overrides;
//! use tenantsim::jobs::run_job_experiment;
//! use tenantsim::jobs::scenario::parse_job_scenario;
//!
//! # fn main() -> tenantsim::Result<()> {
//! let dir = std::env::temp_dir().join(format!("tenantsim-jobs-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(
//!     dir.join("jobs.csv"),
//!     "job_id,user,submit_s,duration_s,gpus
//! j0,alice,0,10,2
//! j1,bob,1,2,1
//! j2,alice,2,6,1
//! j3,carol,3,1,2
//! j4,bob,4,3,1
//! ",
//! )
//! .unwrap();
//! let text = r#"
//! mode = "jobs"
//! name = "hand"
//! [jobs]
//! path = "jobs.csv"
//! [cluster]
//! nodes = 1
//! gpus_per_node = 2
//! [[policy]]
//! name = "fifo"
//! scheduler = "fifo"
//! "#;
//! let scenario = parse_job_scenario(&dir.join("hand.toml"), text, Overrides::default())?;
//! let result = run_job_experiment(&scenario, Some(1), false)?;
//! assert_eq!(result.runs[0].metrics.mean_jct, 13.0e6); // µs
//! assert_eq!(result.runs[0].metrics.makespan, 20_000_000);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok(())
//! # }
//! ```

pub mod episode;
pub mod footprint;
pub mod import;
pub mod metrics;
mod mode;
pub mod policy;
pub mod report;
pub mod run;
pub mod run_codec;
pub mod scenario;
pub mod sim;
pub mod summary;
pub mod synthetic;
pub mod trace;
pub mod typing;
pub mod warnings;

pub use mode::{JobExperiment, JobFold, JobMode, JobReport, run_job_experiment};
pub use sim::{Alloc, Cluster, JobOutcome, JobSimInput, Placement, Segment, simulate_jobs};
pub use trace::{Job, JobRow, JobTrace, load_job_trace, parse_job_trace};
