//! tenantsim: a discrete-event simulator for multi-tenant machine-learning
//! services.
//!
//! Many users share one GPU cluster; each brings a dataset and candidate
//! models. The simulator replays a [trace](models::trace) (accuracy and
//! runtime per user and model) through the [simulation](models::sim) under
//! the user scheduler and model selector a [scenario](models::scenario)
//! names, and reports regret curves and time to quality
//! ([`models::metrics`], [`models::aggregate`], [`models::report`]). A
//! second mode, [`jobs`], replays GPU-cluster job traces under classic
//! cluster schedulers. The command line ([`cli`], `main.rs`) is one user of
//! this library.
//!
//! # Running a scenario from Rust
//!
//! [`run::run_scenario`] does what `tenantsim run` does: it reads a
//! scenario file (either mode, any sweep), runs it as [`run::RunOptions`]
//! say and writes the results folder; it returns the `--json` document.
//! The options have a `Default` and one setter per option; their bounds
//! are checked by the library, whoever the caller (DESIGN §10).
//!
//! ```
//! use tenantsim::run::{RunOptions, run_scenario};
//!
//! # fn main() -> tenantsim::Result<()> {
//! let dir = tempfile::tempdir().map_err(|e| tenantsim::Error::input(e.to_string()))?;
//! let out = dir.path().join("quickstart");
//! let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/quickstart.toml");
//! let options = RunOptions::default()
//!     .out(&out)
//!     .reps(2)
//!     .plots(false)
//!     .quiet(true);
//! let summary = run_scenario(scenario.as_ref(), &options)?;
//! assert_eq!(summary["mode"], "models");
//! assert_eq!(summary["repetitions"], 2);
//! assert!(out.join("summary.csv").is_file());
//!
//! // A bound is the library's: the error names the option.
//! let e = run_scenario(scenario.as_ref(), &options.threads(0)).unwrap_err();
//! assert_eq!(e.kind(), tenantsim::ErrorKind::Usage);
//! assert!(e.to_string().starts_with("threads: "));
//! # Ok(())
//! # }
//! ```
//!
//! With policies of your own, register them in a [`registry::Registry`]
//! and call [`run::run_scenario_with`], or give your binary every
//! subcommand (`run`, `merge`, `plot`, `table`, `check`...) with
//! [`cli::main_with`]; `examples/custom_policy.rs` is such a binary, and
//! [`prelude`] has what it imports.
//!
//! The rules are written down in the repository's `docs/DESIGN.md`; a
//! comment that cites "DESIGN §N" means section N of that file.
//!
//! # Definitions
//!
//! For tenant *i* with best possible accuracy A\*ᵢ and bestᵢ(τ), the highest
//! accuracy among its jobs completed by simulated time τ (0 before the
//! first), the loss is ℓᵢ(τ) = A\*ᵢ − bestᵢ(τ) (DESIGN §2.6), and
//!
//! - **L(τ)**, the global loss, is the mean of ℓᵢ(τ) over the tenants that
//!   have arrived by τ (a step function; at an instant, its value after
//!   every event at that instant);
//! - **R(T)**, the cumulative regret, is ∫₀ᵀ Σᵢ ℓᵢ(τ) dτ over arrived
//!   tenants, the exact integral of the step function in accuracy·seconds;
//!   results report R at the end of the run;
//! - **T(θ)**, the time to quality, is the first τ at or after the last
//!   arrival with L(τ) ≤ θ (within 1e-12 for float rounding), ∞ if never;
//! - the **speedup** of policy X over baseline B at θ is T_B(θ) / T_X(θ),
//!   with T read off the mean loss curve over repetitions (DESIGN §6.5).
//!
//! # Determinism contract
//!
//! The same scenario and seed give byte-identical result files whatever
//! the thread count (DESIGN §5):
//!
//! - simulated time is integer microseconds ([`core::sim::time::Micros`]); runtimes
//!   are rounded once at load, so simultaneous events are exactly
//!   simultaneous (DESIGN §7);
//! - events at one instant are processed in (time, kind, sequence) order
//!   and every tie is broken by the lowest index (DESIGN §2.4);
//! - every random choice draws from a stream derived only from (seed,
//!   repetition, purpose) ([`core::sim::rng::stream`]);
//! - runs are handed to the aggregation in (repetition, policy) order and
//!   every sum over repetitions runs in repetition order
//!   ([`core::run::runner::fold_in_order`]).
//!
//! Only the `run.json` fields it lists under `varying_fields` (paths,
//! thread count, wall times) differ between two runs (DESIGN §6.9).
//!
//! # Modules
//!
//! The folders show the architecture. [`core`] knows neither mode; the two
//! modes, [`models`] (model selection) and [`jobs`] (job-trace replay),
//! have the same shape and never import each other; [`present`] shows a
//! results folder (figures, HTML report, tables); [`run`] runs a scenario
//! with a registry (the library entry point) and [`cli`] turns
//! command-line arguments into its options. The dependency rule, `cli →
//! run → {models, jobs, present} → core`, is checked by a test
//! (`tests/it/architecture.rs`, DESIGN §10), which also checks that the
//! files of every folder import each other without a circle. Both modes
//! implement one trait, [`core::run::mode::Mode`]; the shared
//! [`core::run::runner`] runs either through the same flat task list,
//! sweeps, staged results folders and interruption handling, and draws
//! figures through a hook [`run`] injects.
//!
//! | module | holds |
//! |---|---|
//! | [`core`] | what both modes share, in rooms by layer: |
//! | [`core::sim`] | the simulation kernel: time, the event queue and loop, the indexed heap, RNG streams, the policy clock |
//! | [`core::io`] | input and output: atomic writes, results folders, CSV helpers, scenario basics, node lists, the run codec, text tables |
//! | [`core::analysis`] | statistics, the golden comparison (`check`), `compare` |
//! | [`core::run`] | orchestration: the runner, sweep expansion, the result cache, shards, Slurm scripts, task identity |
//! | [`models`] | model traces and importers, the scenario, the simulation and its policy API, the policies (multi-fidelity selectors in [`models::policy::selector::multi_fidelity`]), GP priors, L(τ)/R(T)/T(θ), aggregation, the results folder |
//! | [`jobs`] | job traces and importers, the job scenario, cluster and placement, the schedulers, JCT metrics, the results folder |
//! | [`shared`] | `mode = "shared"` (DESIGN §13): the model-selection service and a background job trace on one cluster, each workload loaded, written and summarised by its own mode |
//! | [`present`] | the figures ([`present::figures`]), the HTML report and the tables of a results folder |
//! | [`run`] | running a scenario, merging shards, validating a file: [`run::RunOptions`], [`run::Runner`] |
//! | [`cli`] | the command line, [`cli::main_with`] |
//!
//! # Example
//!
//! Two tenants, two models each, one GPU, `round-robin` users and
//! `in-order` models:
//!
//! | user | m1 (acc, s) | m2 (acc, s) | A\* |
//! |------|-------------|-------------|-----|
//! | a    | 0.5, 1      | 0.9, 2      | 0.9 |
//! | b    | 0.8, 1      | 0.6, 3      | 0.8 |
//!
//! The summed loss starts at S = 0.9 + 0.8 = 1.7. At 0, a starts m1; at 1 it
//! completes (S = 0.4 + 0.8 = 1.2) and b starts m1; at 2 that completes
//! (S = 0.4 + 0 = 0.4) and a starts m2; at 4 it completes (S = 0) and b
//! starts m2, which completes at 7 and changes nothing. So
//! R = 1.7·1 + 1.2·1 + 0.4·2 = 3.7 accuracy·s, L = S/2 is 0.2 from τ = 2 s,
//! hence T(0.25) = 2 s, and the run ends at 7 s after 4 jobs.
//!
//! ```
//! use std::path::Path;
//! use tenantsim::models::experiment::simulate_one;
//! use tenantsim::core::io::scenario::Overrides;
//! use tenantsim::models::scenario::parse_scenario;
//! use tenantsim::models::trace::parse_trace;
//!
//! # fn main() -> tenantsim::Result<()> {
//! let csv = "user,model,accuracy,runtime_s
//! a,m1,0.5,1
//! a,m2,0.9,2
//! b,m1,0.8,1
//! b,m2,0.6,3
//! ";
//! let trace = parse_trace("tiny.csv", csv.as_bytes())?;
//! assert_eq!((trace.n_users(), trace.n_models()), (2, 2));
//! assert_eq!(trace.runtime_us(1, 1), 3_000_000); // µs, rounded at load
//!
//! // A scenario reads its trace from a file next to it.
//! let dir = std::env::temp_dir().join(format!("tenantsim-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).map_err(|e| tenantsim::Error::input(e.to_string()))?;
//! std::fs::write(dir.join("tiny.csv"), csv).map_err(|e| tenantsim::Error::input(e.to_string()))?;
//! let toml = r#"
//! name = "tiny"
//! thresholds = [0.25]
//! [trace]
//! path = "tiny.csv"
//! [cluster]
//! gpus = 1
//! [[policy]]
//! name = "rr"
//! scheduler = "round-robin"
//! selector = "in-order"
//! "#;
//! let scenario = parse_scenario(&dir.join("tiny.toml"), toml, Overrides::default());
//! std::fs::remove_dir_all(&dir).map_err(|e| tenantsim::Error::input(e.to_string()))?;
//! let scenario = scenario?;
//!
//! let run = simulate_one(&scenario, 0, 0)?; // repetition 0, policy 0
//! let m = &run.metrics;
//! assert!((m.cumulative_regret - 3.7).abs() < 1e-12);
//! assert_eq!(m.time_to, [Some(2_000_000)]);
//! assert_eq!((m.final_loss, m.jobs, m.end), (0.0, 4, 7_000_000));
//! # Ok(())
//! # }
//! ```

pub mod cli;
pub mod core;
pub mod jobs;
pub mod models;
pub mod prelude;
pub mod present;
pub mod registry;
pub mod run;
pub mod shared;
pub mod workflows;

pub use crate::core::error::{Error, ErrorKind, Result};
