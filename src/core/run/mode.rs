//! A simulation mode as the shared runner sees it (DESIGN §10).
//!
//! Model selection ([`crate::models::ModelMode`]) and job-trace replay
//! ([`crate::jobs::JobMode`]) are two implementations of [`Mode`]. The
//! runner ([`crate::core::run::runner`]) owns what they share: expanding the
//! `[sweep]`, the flat task list over points × repetitions × policies on a
//! thread pool, folding every run in task order whatever the thread count,
//! interruption, the staged results folder, `sweep.csv` and the figures
//! hook. A mode only says how to build a scenario, how to run and fold
//! one task, and how to write and summarise what it folded.
//!
//! # Example: a mode of one's own
//!
//! A toy mode whose "simulation" of task k is the number k · step: the
//! runner hands every run to the fold in task order whatever the thread
//! count, then writes the staged results folder. `identity`,
//! `encode_run` and `decode_run` are what the result cache and shards
//! need (DESIGN §10.2–10.3).
//!
//! ```
//! use std::io::Write;
//! use std::path::Path;
//! use std::time::Duration;
//! use serde_json::{Value, json};
//! use tenantsim::Result;
//! use tenantsim::core::io::{Protected, write_atomic};
//! use tenantsim::core::io::codec;
//! use tenantsim::core::run::execution::Execution;
//! use tenantsim::core::run::identity::Identity;
//! use tenantsim::core::run::mode::{Mode, PointInfo};
//! use tenantsim::core::run::runner::{run_reports, thread_pool, write_plan};
//! use tenantsim::core::io::scenario::Overrides;
//! use tenantsim::core::run::sweep::{Plan, SweepAxis};
//!
//! struct Steps { reps: u32, step: u64 }
//! struct StepMode;
//!
//! impl Mode for StepMode {
//!     type Scenario = Steps;
//!     type Run = u64;
//!     type Fold = Vec<u64>;
//!     type Report = Vec<u64>;
//!     const NAME: &'static str = "steps";
//!     const CHUNK_PER_THREAD: usize = 4;
//!     fn load_plan(&self, _: &Path, o: Overrides) -> Result<Plan<Steps>> {
//!         let reps = o.repetitions.unwrap_or(3);
//!         Ok(Plan::Single(Box::new(Steps { reps, step: 10 })))
//!     }
//!     fn name<'a>(&self, _: &'a Steps) -> &'a str { "steps" }
//!     fn tasks(&self, s: &Steps) -> u64 { u64::from(s.reps) } // one policy
//!     fn inputs<'a>(&self, _: &'a Steps) -> Vec<Protected<'a>> { Vec::new() }
//!     fn setup_warnings(&self, _: &Steps) -> Vec<String> { Vec::new() }
//!     fn start(&self, _: &Steps, _: bool) -> Result<Vec<u64>> { Ok(Vec::new()) }
//!     fn run(&self, s: &Steps, task: u64, _: bool) -> Result<u64> { Ok(task * s.step) }
//!     fn identity(&self, s: &Steps) -> Identity {
//!         let resolved = json!({ "step": s.step, "policy": [{ "name": "steps" }] });
//!         Identity::from_resolved(resolved, String::new())
//!     }
//!     fn encode_run(&self, _: &Steps, run: &u64, out: &mut dyn Write) -> Result<()> {
//!         codec::encode_to(run, out)
//!     }
//!     fn decode_run(&self, _: &Steps, bytes: &[u8]) -> Result<u64> { codec::decode(bytes) }
//!     fn fold(&self, _: &Steps, f: &mut Vec<u64>, run: u64) -> Result<()> {
//!         f.push(run);
//!         Ok(())
//!     }
//!     fn finish(&self, _: &Steps, f: Vec<u64>, _: usize, _: Duration) -> Result<Vec<u64>> {
//!         Ok(f)
//!     }
//!     fn result_warnings(&self, _: &Vec<u64>) -> Vec<String> { Vec::new() }
//!     fn plots(&self, _: &Steps) -> bool { false }
//!     fn write(&self, dir: &Path, _: &Steps, r: &Vec<u64>, _: bool, _: Option<PointInfo<'_>>,
//!         _: &Execution) -> Result<Vec<&'static str>> {
//!         let text: String = r.iter().map(|v| format!("{v}\n")).collect();
//!         write_atomic(&dir.join("values.csv"), text.as_bytes())?;
//!         Ok(vec!["values.csv"])
//!     }
//!     fn sweep_csv(&self, _: &[SweepAxis], _: &[(PointInfo<'_>, &Vec<u64>)]) -> String {
//!         String::new()
//!     }
//!     fn summary_table(&self, r: &Vec<u64>) -> String { format!("{r:?}\n") }
//!     fn summary_json(&self, r: &Vec<u64>) -> Value { json!({ "values": r }) }
//!     fn describe(&self, _: &Steps, r: &Vec<u64>) -> String { format!("{} runs", r.len()) }
//! }
//!
//! # fn main() -> tenantsim::Result<()> {
//! let plan = StepMode.load_plan(Path::new("steps.toml"), Overrides::default())?;
//! let pool = thread_pool(Some(2))?;
//! let done = run_reports(&StepMode, &pool, &plan.scenarios(), false, &|| {})?;
//! assert_eq!(done.folds[0], [0, 10, 20]); // task order, whatever the threads
//! let out = std::env::temp_dir().join(format!("tenantsim-steps-{}", std::process::id()));
//! let names = write_plan(&StepMode, &out, &plan, &done.folds, &done.executions, false, &|_| Ok(()))?;
//! assert_eq!(names, ["values.csv"]);
//! assert_eq!(std::fs::read_to_string(out.join("values.csv")).unwrap(), "0\n10\n20\n");
//! # std::fs::remove_dir_all(&out).unwrap();
//! # Ok(())
//! # }
//! ```

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::core::error::{Error, Result};
use crate::core::io::Protected;
use crate::core::io::scenario::Overrides;
use crate::core::run::execution::Execution;
use crate::core::run::identity::Identity;
use crate::core::run::sweep::{Plan, SweepAxis, value_text};

/// Where a results folder sits in a sweep.
#[derive(Debug, Clone, Copy)]
pub struct PointInfo<'a> {
    /// Grid point index.
    pub index: usize,
    /// Folder name.
    pub folder: &'a str,
    /// Swept keys and their values at this point.
    pub values: &'a [(String, toml::Value)],
}

impl PointInfo<'_> {
    /// The `sweep_point` object of `run.json`: index, folder and the swept
    /// values (as JSON; a value JSON cannot hold as its TOML text).
    pub fn to_json(&self) -> Value {
        let values: serde_json::Map<String, Value> = self
            .values
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    serde_json::to_value(v).unwrap_or_else(|_| json!(value_text(v))),
                )
            })
            .collect();
        json!({ "index": self.index, "folder": self.folder, "values": values })
    }
}

/// One simulation mode.
///
/// Task `k` of a scenario is repetition `k / policies`, policy
/// `k % policies`; [`Mode::run`] must give the same result whichever
/// thread runs it and in whatever order (every random choice derives
/// from (seed, repetition, purpose), DESIGN §5).
pub trait Mode: Sync {
    /// A validated scenario (one grid point of a sweep).
    type Scenario: Sync;
    /// The result of one task.
    type Run: Send;
    /// The runs of one scenario, folded in task order.
    type Fold: Send;
    /// What is written and summarised of a scenario: its fold, finished.
    type Report: Send;

    /// `"models"`, `"jobs"` or `"shared"` (the `mode` of `--json` and
    /// `run.json`).
    const NAME: &'static str;
    /// Tasks simulated per worker thread between two folds (bounds the
    /// runs held in memory at once).
    const CHUNK_PER_THREAD: usize;

    /// Read the scenario at `path` and expand its `[sweep]`, if any.
    fn load_plan(&self, path: &Path, overrides: Overrides) -> Result<Plan<Self::Scenario>>;
    /// The scenario's name (its default results folder).
    fn name<'a>(&self, scenario: &'a Self::Scenario) -> &'a str;
    /// Repetitions × policies.
    fn tasks(&self, scenario: &Self::Scenario) -> u64;
    /// The files the scenario reads (besides the scenario file itself).
    fn inputs<'a>(&self, scenario: &'a Self::Scenario) -> Vec<Protected<'a>>;
    /// Degenerate set-ups, said before the run (they never change a
    /// result).
    fn setup_warnings(&self, scenario: &Self::Scenario) -> Vec<String>;
    /// An empty fold (with the job log's rows when `keep_jobs`).
    fn start(&self, scenario: &Self::Scenario, keep_jobs: bool) -> Result<Self::Fold>;
    /// Simulate task `task`; drop the job log unless `keep_jobs`.
    fn run(&self, scenario: &Self::Scenario, task: u64, keep_jobs: bool) -> Result<Self::Run>;
    /// What every run of `scenario` depends on (the result cache's keys
    /// and the shard manifests, DESIGN §10.2): the resolved scenario with
    /// its `policy` list ([`Identity::from_resolved`]) and the content
    /// hashes of every input the runs read.
    fn identity(&self, scenario: &Self::Scenario) -> Identity;
    /// Write `run` to `out`, exactly: [`Mode::decode_run`] gives back a
    /// run whose fold writes the same bytes (f64 as bit patterns, the job
    /// log when the run kept it; see [`crate::core::io::codec`]). Written
    /// as it is encoded ([`crate::core::io::codec::encode_to`]): the
    /// result cache streams it to its entry's file, never holding it
    /// whole (DESIGN §10.2); a `Vec<u8>` is a writer too.
    fn encode_run(
        &self,
        scenario: &Self::Scenario,
        run: &Self::Run,
        out: &mut dyn std::io::Write,
    ) -> Result<()>;
    /// The run [`Mode::encode_run`] wrote; an error (never a panic) for
    /// bytes it did not write.
    fn decode_run(&self, scenario: &Self::Scenario, bytes: &[u8]) -> Result<Self::Run>;
    /// [`Mode::decode_run`] of the bytes `input` yields (a stored run,
    /// read from the result cache's file as it is decoded, DESIGN §10.2):
    /// the same run, or an error for bytes [`Mode::encode_run`] did not
    /// write. By default the bytes are read whole, then decoded; a mode
    /// whose runs are large decodes them as it reads
    /// ([`crate::core::io::codec::decode_from`]).
    fn decode_run_from(
        &self,
        scenario: &Self::Scenario,
        input: &mut dyn std::io::Read,
    ) -> Result<Self::Run> {
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| Error::input(format!("cannot read a stored run: {e}")))?;
        self.decode_run(scenario, &bytes)
    }
    /// Fold the next run (runs come in task order).
    fn fold(&self, scenario: &Self::Scenario, fold: &mut Self::Fold, run: Self::Run) -> Result<()>;
    /// Every run is in: flush, record `threads` and `wall` and aggregate.
    fn finish(
        &self,
        scenario: &Self::Scenario,
        fold: Self::Fold,
        threads: usize,
        wall: Duration,
    ) -> Result<Self::Report>;
    /// What the results say that a reader should know (never a change of
    /// a result).
    fn result_warnings(&self, report: &Self::Report) -> Vec<String>;
    /// Whether the scenario asks for figures (`[output] plots`).
    fn plots(&self, scenario: &Self::Scenario) -> bool;
    /// Write the result files and `run.json` into the (staged) folder
    /// `dir`; the names of the files written. `run.json` records
    /// `execution` ([`Execution::insert_into`]).
    fn write(
        &self,
        dir: &Path,
        scenario: &Self::Scenario,
        report: &Self::Report,
        keep_jobs: bool,
        point: Option<PointInfo<'_>>,
        execution: &Execution,
    ) -> Result<Vec<&'static str>>;
    /// `sweep.csv`: one row per (point, policy), the columns `point,folder`,
    /// the swept keys, `policy,baseline` and the mode's figures.
    fn sweep_csv(&self, axes: &[SweepAxis], points: &[(PointInfo<'_>, &Self::Report)]) -> String;
    /// The terminal summary table.
    fn summary_table(&self, report: &Self::Report) -> String;
    /// The summary as JSON: an object with at least `repetitions`,
    /// `baseline`, `confidence` and `policies`.
    fn summary_json(&self, report: &Self::Report) -> Value;
    /// One line about the run ("ran `x`: 3 repetition(s) × 2 policies").
    fn describe(&self, scenario: &Self::Scenario, report: &Self::Report) -> String;
    /// The scenario's memory estimate in bytes (DESIGN §8.5), stated
    /// beside the peak the run measured (`run.json`'s `memory`, the run's
    /// summary); `None` (the default) where the mode makes none.
    fn memory_estimate(&self, scenario: &Self::Scenario) -> Option<u64> {
        let _ = scenario;
        None
    }
}
