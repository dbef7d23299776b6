//! Job-trace mode as the shared runner sees it ([`Mode`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::policy::JobRegistry;
use super::report::{JobRows, Measured, write_job_results};
use super::run::{JobRun, JobRunSummary, simulate_job_run};
use super::run_codec::{decode_job_run, decode_job_run_from, encode_job_run};
use super::scenario::{JobScenario, load_job_plan_with};
use super::summary::{JobSummary, summarize, sweep_csv};
use crate::core::error::{Error, Result};
use crate::core::io::Protected;
use crate::core::io::scenario::Overrides;
use crate::core::run::execution::Execution;
use crate::core::run::identity::{Identity, sha256_debug};
use crate::core::run::mode::{Mode, PointInfo};
use crate::core::run::runner::{run_reports, thread_pool};
use crate::core::run::sweep::{Plan, SweepAxis};
use crate::core::sim::policy_clock::{PolicyTotals, with_policy_times};

/// Job-trace replay: a GPU cluster's job trace under cluster schedulers
/// (DESIGN §9).
#[derive(Debug, Clone, Default)]
pub struct JobMode {
    /// The schedulers scenarios may name (default: the built-ins).
    pub registry: Arc<JobRegistry>,
}

impl JobMode {
    /// Job mode with the schedulers of `registry`.
    pub fn new(registry: Arc<JobRegistry>) -> Self {
        Self { registry }
    }
}

/// Every run of a scenario, folded.
#[derive(Debug)]
pub struct JobExperiment {
    /// Runs, repetition-major, policy-minor.
    pub runs: Vec<JobRunSummary>,
    /// The rows of the per-run files, written as the runs finished.
    pub rows: JobRows,
    /// Per policy, in scenario order: events and time (policy and engine).
    pub totals: Vec<PolicyTotals>,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time of the simulations.
    pub wall: Duration,
}

/// Run every repetition × policy of `scenario` on `threads` threads
/// (default: all cores) through the shared runner
/// ([`crate::core::run::runner::run_scenarios`]), writing each run's rows
/// (`jobs.csv` ones too with `with_jobs`) as it finishes. One run per
/// thread is simulated at a time (a run of a large trace holds every job's
/// outcome) while the previous ones are written.
pub fn run_job_experiment(
    scenario: &JobScenario,
    threads: Option<usize>,
    with_jobs: bool,
) -> Result<JobExperiment> {
    let pool = thread_pool(threads)?;
    let reports = run_reports(&JobMode::default(), &pool, &[scenario], with_jobs, &|| {})?;
    reports
        .folds
        .into_iter()
        .next()
        .map(|r| r.experiment)
        .ok_or_else(|| Error::input("internal: no result for the scenario"))
}

/// A job-mode scenario's runs as they are folded.
#[derive(Debug)]
pub struct JobFold {
    rows: JobRows,
    runs: Vec<JobRunSummary>,
    totals: Vec<PolicyTotals>,
}

/// A job-mode scenario's runs, folded and summarised.
#[derive(Debug)]
pub struct JobReport {
    /// The runs' figures and the per-run files' rows.
    pub experiment: JobExperiment,
    /// Means over repetitions.
    pub summary: JobSummary,
}

impl Mode for JobMode {
    type Scenario = JobScenario;
    type Run = JobRun;
    type Fold = JobFold;
    type Report = JobReport;

    const NAME: &'static str = "jobs";
    // A run of a large trace holds every job's outcome: one per thread is
    // simulated at a time while the previous ones are written.
    const CHUNK_PER_THREAD: usize = 1;

    fn load_plan(&self, path: &Path, overrides: Overrides) -> Result<Plan<JobScenario>> {
        load_job_plan_with(path, overrides, &self.registry)
    }

    fn name<'a>(&self, scenario: &'a JobScenario) -> &'a str {
        scenario.name()
    }

    fn tasks(&self, scenario: &JobScenario) -> u64 {
        u64::from(scenario.repetitions()) * scenario.policies.len() as u64
    }

    fn inputs<'a>(&self, scenario: &'a JobScenario) -> Vec<Protected<'a>> {
        let mut inputs = vec![Protected {
            what: "the job trace",
            path: &scenario.trace_path,
        }];
        if let Some(nodes) = &scenario.node_list_path {
            inputs.push(Protected {
                what: "the node list",
                path: nodes,
            });
        }
        if let Some(speeds) = &scenario.speeds_path {
            inputs.push(Protected {
                what: "the speed table",
                path: speeds,
            });
        }
        inputs
    }

    fn setup_warnings(&self, scenario: &JobScenario) -> Vec<String> {
        scenario.type_warnings.clone()
    }

    fn start(&self, scenario: &JobScenario, keep_jobs: bool) -> Result<JobFold> {
        Ok(JobFold {
            rows: JobRows::new(scenario, keep_jobs)?,
            runs: Vec::new(),
            totals: vec![PolicyTotals::default(); scenario.policies.len()],
        })
    }

    fn run(&self, scenario: &JobScenario, task: u64, _keep_jobs: bool) -> Result<JobRun> {
        let n_pol = scenario.policies.len().max(1) as u64;
        simulate_job_run(scenario, task / n_pol, (task % n_pol) as usize)
    }

    fn identity(&self, scenario: &JobScenario) -> Identity {
        let resolved = serde_json::to_value(&scenario.file).unwrap_or(Value::Null);
        // The job trace's bytes, the resolved cluster (a node list's nodes
        // and their GPU types) and, on a typed cluster, every job's
        // resolved allowed types and per-type durations (what a speed
        // table file gave them).
        Identity::from_parts(
            resolved,
            &[
                ("job trace", scenario.trace_sha256.clone()),
                ("cluster", sha256_debug(&scenario.cluster)),
                ("job types", sha256_debug(&scenario.job_types)),
            ],
        )
    }

    fn encode_run(
        &self,
        _scenario: &JobScenario,
        run: &JobRun,
        out: &mut dyn std::io::Write,
    ) -> Result<()> {
        encode_job_run(run, out)
    }

    fn decode_run(&self, scenario: &JobScenario, bytes: &[u8]) -> Result<JobRun> {
        decode_job_run(scenario, bytes)
    }

    /// Decoded as it is read: a stored run is not held whole beside the
    /// run made of it (DESIGN §10.2).
    fn decode_run_from(
        &self,
        scenario: &JobScenario,
        input: &mut dyn std::io::Read,
    ) -> Result<JobRun> {
        decode_job_run_from(scenario, input)
    }

    fn fold(&self, scenario: &JobScenario, fold: &mut JobFold, run: JobRun) -> Result<()> {
        fold.rows.add(scenario, &run)?;
        if let Some(t) = fold.totals.get_mut(run.policy) {
            t.add(
                run.outcome.events,
                run.elapsed,
                run.outcome.policy_clock.estimate(),
            );
        }
        fold.runs.push(JobRunSummary {
            policy: run.policy,
            rep: run.rep,
            jobs: run.jobs.jobs.len(),
            metrics: run.metrics,
        });
        Ok(())
    }

    fn finish(
        &self,
        scenario: &JobScenario,
        mut fold: JobFold,
        threads: usize,
        wall: Duration,
    ) -> Result<JobReport> {
        fold.rows.finish()?;
        let summary = summarize(scenario, &fold.runs);
        Ok(JobReport {
            experiment: JobExperiment {
                runs: fold.runs,
                rows: fold.rows,
                totals: fold.totals,
                threads,
                wall,
            },
            summary,
        })
    }

    fn result_warnings(&self, report: &JobReport) -> Vec<String> {
        crate::jobs::warnings::result_warnings(&report.summary)
    }

    fn plots(&self, scenario: &JobScenario) -> bool {
        scenario.file.output.plots
    }

    fn write(
        &self,
        dir: &Path,
        scenario: &JobScenario,
        report: &JobReport,
        keep_jobs: bool,
        point: Option<PointInfo<'_>>,
        execution: &Execution,
    ) -> Result<Vec<&'static str>> {
        let e = &report.experiment;
        let mut warnings = self.setup_warnings(scenario);
        warnings.extend(self.result_warnings(report));
        let measured = Measured {
            totals: &e.totals,
            threads: e.threads,
            wall: e.wall,
            warnings: &warnings,
        };
        write_job_results(
            dir, scenario, &e.rows, &measured, keep_jobs, point, execution,
        )
    }

    fn sweep_csv(&self, axes: &[SweepAxis], points: &[(PointInfo<'_>, &JobReport)]) -> String {
        let rows: Vec<(PointInfo<'_>, &JobSummary)> =
            points.iter().map(|(p, r)| (*p, &r.summary)).collect();
        sweep_csv(axes, &rows)
    }

    fn summary_table(&self, report: &JobReport) -> String {
        report.summary.table()
    }

    fn summary_json(&self, report: &JobReport) -> Value {
        let mut doc = report.summary.json();
        with_policy_times(&mut doc, &report.experiment.totals);
        doc
    }

    fn describe(&self, scenario: &JobScenario, report: &JobReport) -> String {
        let jobs: usize = report.experiment.runs.iter().map(|r| r.jobs).sum();
        let secs = report.experiment.wall.as_secs_f64();
        format!(
            "ran `{}` (jobs mode): {} repetition(s) × {} policies, {} jobs in {:.3} s ({:.0} jobs/s) on {} thread(s)",
            scenario.name(),
            scenario.repetitions(),
            scenario.policies.len(),
            jobs,
            secs,
            jobs as f64 / secs.max(1e-9),
            report.experiment.threads
        )
    }

    fn memory_estimate(&self, scenario: &JobScenario) -> Option<u64> {
        scenario.memory_estimate()
    }
}
