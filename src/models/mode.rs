//! Model-selection mode as the shared runner sees it ([`Mode`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::core::error::Result;
use crate::core::io::Protected;
use crate::core::io::codec;
use crate::core::io::scenario::Overrides;
use crate::core::run::execution::Execution;
use crate::core::run::identity::{Identity, sha256_hex};
use crate::core::run::mode::{Mode, PointInfo};
use crate::core::run::runner::run_scenarios;
use crate::core::run::sweep::{Plan, SweepAxis};
use crate::core::sim::policy_clock::with_policy_times;
use crate::models::aggregate::Aggregate;
use crate::models::experiment::{CHUNK_PER_THREAD, simulate_task};
use crate::models::metrics::RepResult;
use crate::models::policy::registry::ModelRegistry;
use crate::models::report::{
    ExperimentResult, SweepRow, summary_json, summary_table, sweep_csv, write_results,
};
use crate::models::scenario::{Scenario, load_plan_with};
use crate::models::warnings::{result_warnings, setup_warnings};

/// Model selection: tenants train candidate models on a shared cluster
/// (DESIGN §2).
#[derive(Debug, Clone, Default)]
pub struct ModelMode {
    /// The policies scenarios may name (default: the built-ins).
    pub registry: Arc<ModelRegistry>,
}

impl ModelMode {
    /// Model mode with the policies of `registry`.
    pub fn new(registry: Arc<ModelRegistry>) -> Self {
        Self { registry }
    }
}

/// A scenario's runs, folded and aggregated.
#[derive(Debug)]
pub struct ModelReport {
    /// The folded runs and the per-run files' rows.
    pub result: ExperimentResult,
    /// The aggregates over repetitions.
    pub aggregate: Aggregate,
}

impl Mode for ModelMode {
    type Scenario = Scenario;
    type Run = RepResult;
    type Fold = ExperimentResult;
    type Report = ModelReport;

    const NAME: &'static str = "models";
    const CHUNK_PER_THREAD: usize = CHUNK_PER_THREAD;

    fn load_plan(&self, path: &Path, overrides: Overrides) -> Result<Plan<Scenario>> {
        load_plan_with(path, overrides, &self.registry)
    }

    fn name<'a>(&self, scenario: &'a Scenario) -> &'a str {
        scenario.name()
    }

    fn tasks(&self, scenario: &Scenario) -> u64 {
        u64::from(scenario.repetitions()) * scenario.policies.len() as u64
    }

    fn inputs<'a>(&self, scenario: &'a Scenario) -> Vec<Protected<'a>> {
        vec![Protected {
            what: "the trace",
            path: &scenario.trace_path,
        }]
    }

    fn setup_warnings(&self, scenario: &Scenario) -> Vec<String> {
        setup_warnings(scenario)
    }

    fn start(&self, scenario: &Scenario, keep_jobs: bool) -> Result<ExperimentResult> {
        ExperimentResult::new(scenario, keep_jobs)
    }

    fn run(&self, scenario: &Scenario, task: u64, keep_jobs: bool) -> Result<RepResult> {
        simulate_task(scenario, task, keep_jobs)
    }

    fn identity(&self, scenario: &Scenario) -> Identity {
        let resolved = serde_json::to_value(&scenario.file).unwrap_or(Value::Null);
        // The trace's bytes (or its canonical CSV when imported or
        // generated) and the resolved arrivals (an arrivals file's times).
        Identity::from_parts(
            resolved,
            &[
                ("trace", scenario.trace_sha256.hex().to_owned()),
                (
                    "arrivals",
                    sha256_hex(format!("{:?}", scenario.arrivals).as_bytes()),
                ),
            ],
        )
    }

    /// Every field of the run, the job log too when it kept it
    /// ([`crate::core::io::codec`]).
    fn encode_run(
        &self,
        _scenario: &Scenario,
        run: &RepResult,
        out: &mut dyn std::io::Write,
    ) -> Result<()> {
        codec::encode_to(run, out)
    }

    fn decode_run(&self, _scenario: &Scenario, bytes: &[u8]) -> Result<RepResult> {
        codec::decode(bytes)
    }

    /// Decoded as it is read: a run's rows and curves spill as they are
    /// decoded, so a stored run of 10^6 tenants (150 MB) is never held
    /// whole (DESIGN §10.2).
    fn decode_run_from(
        &self,
        _scenario: &Scenario,
        input: &mut dyn std::io::Read,
    ) -> Result<RepResult> {
        codec::decode_from(input)
    }

    fn fold(&self, scenario: &Scenario, fold: &mut ExperimentResult, run: RepResult) -> Result<()> {
        fold.add_owned(scenario, run)
    }

    fn finish(
        &self,
        scenario: &Scenario,
        mut fold: ExperimentResult,
        threads: usize,
        wall: Duration,
    ) -> Result<ModelReport> {
        fold.finish(threads, wall)?;
        let aggregate = fold.aggregate(scenario)?;
        Ok(ModelReport {
            result: fold,
            aggregate,
        })
    }

    fn result_warnings(&self, report: &ModelReport) -> Vec<String> {
        result_warnings(&report.aggregate)
    }

    fn plots(&self, scenario: &Scenario) -> bool {
        scenario.output().plots
    }

    fn write(
        &self,
        dir: &Path,
        scenario: &Scenario,
        report: &ModelReport,
        keep_jobs: bool,
        point: Option<PointInfo<'_>>,
        execution: &Execution,
    ) -> Result<Vec<&'static str>> {
        write_results(
            dir,
            scenario,
            &report.result,
            &report.aggregate,
            keep_jobs,
            point,
            execution,
        )
    }

    fn sweep_csv(&self, axes: &[SweepAxis], points: &[(PointInfo<'_>, &ModelReport)]) -> String {
        let rows: Vec<SweepRow<'_>> = points
            .iter()
            .map(|(p, r)| SweepRow {
                index: p.index,
                folder: p.folder,
                values: p.values,
                aggregate: &r.aggregate,
            })
            .collect();
        sweep_csv(axes, &rows)
    }

    fn summary_table(&self, report: &ModelReport) -> String {
        summary_table(&report.aggregate)
    }

    fn summary_json(&self, report: &ModelReport) -> Value {
        let mut doc = summary_json(&report.aggregate);
        with_policy_times(&mut doc, &report.result.totals);
        doc
    }

    fn describe(&self, scenario: &Scenario, report: &ModelReport) -> String {
        format!(
            "ran `{}`: {} repetition(s) × {} policies in {:.3} s on {} thread(s)",
            scenario.name(),
            scenario.repetitions(),
            scenario.policies.len(),
            report.result.wall.as_secs_f64(),
            report.result.threads,
        )
    }

    fn memory_estimate(&self, scenario: &Scenario) -> Option<u64> {
        scenario.memory_estimate()
    }
}

/// Run every (scenario, repetition, policy) of `scenarios` on `pool` as one
/// flat list of tasks, calling `on_done` after each task (progress), and
/// fold each run into its scenario's [`ExperimentResult`] as it finishes,
/// in (repetition, policy) order whatever the thread count
/// ([`crate::core::run::runner::run_scenarios`]); job logs are written to
/// `jobs.csv` rows only with `keep_jobs`. Every result's `wall` is the wall
/// time of the whole call. Memory does not grow with the number of
/// repetitions except for what the fold keeps (see
/// [`RunFold`](crate::models::aggregate::RunFold)).
pub fn run_grid(
    pool: &rayon::ThreadPool,
    scenarios: &[&Scenario],
    keep_jobs: bool,
    on_done: &(dyn Fn() + Sync),
) -> Result<Vec<ExperimentResult>> {
    let folded = run_scenarios(&ModelMode::default(), pool, scenarios, keep_jobs, on_done)?;
    let mut results = folded.folds;
    for r in &mut results {
        r.finish(folded.threads, folded.wall)?;
    }
    Ok(results)
}
