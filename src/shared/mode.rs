//! Shared-cluster mode as the shared runner sees it ([`Mode`]): each
//! workload is folded, finished and written by its own mode (the service
//! by [`ModelMode`] into `service/`, the background by [`JobMode`] into
//! `background/`), and this mode adds `shares.csv`, the service's
//! segments and the top-level `run.json` (DESIGN §13.5).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::report::{
    SHARES_HEADER, join_sweep_csv, join_workflows_sweep_csv, segment_rows, segments_header,
    shared_manifest, shares_rows,
};
use super::run::{SharedRun, decode_shared_run, encode_shared_run, simulate_shared_run};
use super::scenario::{SharedScenario, load_shared_plan_with};
use super::workflows_report::{
    JOBS_HEADER as WF_JOBS_HEADER, STEPS_HEADER, WORKFLOWS_HEADER, WorkflowMetrics,
    WorkflowSummary, jobs_rows as wf_jobs_rows, steps_rows, summarize as summarize_workflows,
    sweep_csv as workflows_sweep_csv, workflows_rows,
};
use crate::core::error::{Error, Result};
use crate::core::io::scenario::Overrides;
use crate::core::io::spool::Spool;
use crate::core::io::{Protected, write_atomic};
use crate::core::run::execution::Execution;
use crate::core::run::identity::{Identity, sha256_debug, sha256_hex};
use crate::core::run::mode::{Mode, PointInfo};
use crate::core::run::sweep::{Plan, SweepAxis};
use crate::jobs::{JobFold, JobMode, JobReport};
use crate::models::ModelMode;
use crate::models::ModelReport;
use crate::models::report::ExperimentResult;
use crate::present::figures::SHARED_WORKLOADS;
use crate::workflows::WorkflowRegistry;

/// Several workloads on one cluster (DESIGN §13).
#[derive(Debug, Clone, Default)]
pub struct SharedMode {
    /// The service's mode (its registry names the service's policies).
    pub models: ModelMode,
    /// The background's mode (its registry names the cluster schedulers).
    pub jobs: JobMode,
    /// The workflows' cache-eviction and parallelisation rules (DESIGN
    /// §14.8).
    pub workflows: Arc<WorkflowRegistry>,
}

impl SharedMode {
    /// Shared mode with the policies of `models` and `jobs` and the
    /// built-in workflow rules.
    pub fn new(models: ModelMode, jobs: JobMode) -> Self {
        Self {
            models,
            jobs,
            workflows: Arc::default(),
        }
    }

    /// This mode with the workflow rules of `workflows`.
    #[must_use]
    pub fn with_workflows(mut self, workflows: Arc<WorkflowRegistry>) -> Self {
        self.workflows = workflows;
        self
    }
}

/// A shared scenario's runs as they are folded.
#[derive(Debug)]
pub struct SharedFold {
    service: Option<ExperimentResult>,
    background: Option<JobFold>,
    shares: Spool,
    segments: Option<Spool>,
    workflows: Option<WorkflowsFold>,
}

/// The workflows' files and figures as runs are folded.
#[derive(Debug)]
struct WorkflowsFold {
    rows: Spool,
    steps: Option<Spool>,
    jobs: Option<Spool>,
    metrics: Vec<(usize, WorkflowMetrics)>,
}

/// The workflows' results of a shared scenario (DESIGN §14.7).
#[derive(Debug)]
pub struct WorkflowsReport {
    /// Per policy over repetitions.
    pub summary: WorkflowSummary,
    /// Each run's figures, (policy, figures) in task order.
    pub runs: Vec<(usize, WorkflowMetrics)>,
    rows: Spool,
    steps: Option<Spool>,
    jobs: Option<Spool>,
}

/// A shared scenario's runs, folded and summarised per workload.
#[derive(Debug)]
pub struct SharedReport {
    /// The service's report (model mode's).
    pub service: Option<ModelReport>,
    /// The background's report (job mode's).
    pub background: Option<JobReport>,
    /// The workflows' results.
    pub workflows: Option<WorkflowsReport>,
    shares: Spool,
    segments: Option<Spool>,
    threads: usize,
    wall: Duration,
}

/// The folder of the service's files.
pub const SERVICE_DIR: &str = SHARED_WORKLOADS[0];
/// The folder of the background's files.
pub const BACKGROUND_DIR: &str = SHARED_WORKLOADS[1];
/// The folder of the workflows' files.
pub const WORKFLOWS_DIR: &str = "workflows";

impl Mode for SharedMode {
    type Scenario = SharedScenario;
    type Run = SharedRun;
    type Fold = SharedFold;
    type Report = SharedReport;

    const NAME: &'static str = "shared";
    // A run holds the background's every job outcome, like job mode's.
    const CHUNK_PER_THREAD: usize = 1;

    fn load_plan(&self, path: &Path, overrides: Overrides) -> Result<Plan<SharedScenario>> {
        load_shared_plan_with(
            path,
            overrides,
            &self.models.registry,
            &self.jobs.registry,
            &self.workflows,
        )
    }

    fn name<'a>(&self, s: &'a SharedScenario) -> &'a str {
        s.name()
    }

    fn tasks(&self, s: &SharedScenario) -> u64 {
        u64::from(s.repetitions()) * s.policies() as u64
    }

    fn inputs<'a>(&self, s: &'a SharedScenario) -> Vec<Protected<'a>> {
        let mut inputs = Vec::new();
        if let Some(svc) = &s.service {
            inputs.extend(self.models.inputs(&svc.scenario));
        }
        if let Some(b) = &s.background {
            inputs.extend(self.jobs.inputs(b));
        } else if let Some(p) = &s.cluster.node_list_path {
            inputs.push(Protected {
                what: "the node list",
                path: p,
            });
        }
        if let Some(w) = &s.workflows {
            inputs.push(Protected {
                what: "the workflow trace",
                path: &w.path,
            });
        }
        inputs
    }

    fn setup_warnings(&self, s: &SharedScenario) -> Vec<String> {
        let mut w = Vec::new();
        if let Some(svc) = &s.service {
            w.extend(
                self.models
                    .setup_warnings(&svc.scenario)
                    .into_iter()
                    .map(|m| format!("service: {m}")),
            );
        }
        if let Some(b) = &s.background {
            w.extend(
                self.jobs
                    .setup_warnings(b)
                    .into_iter()
                    .map(|m| format!("background: {m}")),
            );
        }
        w
    }

    fn start(&self, s: &SharedScenario, keep_jobs: bool) -> Result<SharedFold> {
        let segmented = s.keeps_service_segments(keep_jobs);
        Ok(SharedFold {
            // With segments, the service's jobs.csv is this mode's.
            service: s
                .service
                .as_ref()
                .map(|svc| self.models.start(&svc.scenario, keep_jobs && !segmented))
                .transpose()?,
            background: s
                .background
                .as_ref()
                .map(|b| self.jobs.start(b, keep_jobs))
                .transpose()?,
            shares: Spool::new("shares.csv", SHARES_HEADER)?,
            segments: match segments_header(s) {
                Some(h) if segmented => Some(Spool::new("jobs.csv", &h)?),
                _ => None,
            },
            workflows: match &s.workflows {
                None => None,
                Some(_) => Some(WorkflowsFold {
                    rows: Spool::new("workflows.csv", WORKFLOWS_HEADER)?,
                    steps: keep_jobs
                        .then(|| Spool::new("steps.csv", STEPS_HEADER))
                        .transpose()?,
                    jobs: keep_jobs
                        .then(|| Spool::new("jobs.csv", WF_JOBS_HEADER))
                        .transpose()?,
                    metrics: Vec::new(),
                }),
            },
        })
    }

    fn run(&self, s: &SharedScenario, task: u64, keep_jobs: bool) -> Result<SharedRun> {
        let n_pol = s.policies().max(1) as u64;
        simulate_shared_run(s, task / n_pol, (task % n_pol) as usize, keep_jobs)
    }

    fn identity(&self, s: &SharedScenario) -> Identity {
        let resolved = serde_json::to_value(&s.file).unwrap_or(Value::Null);
        let mut parts = vec![("cluster", sha256_debug(&s.cluster.cluster))];
        if let Some(svc) = &s.service {
            parts.push(("service trace", svc.scenario.trace_sha256.hex().to_owned()));
            parts.push((
                "service arrivals",
                sha256_hex(format!("{:?}", svc.scenario.arrivals).as_bytes()),
            ));
        }
        if let Some(b) = &s.background {
            parts.push(("job trace", b.trace_sha256.clone()));
            parts.push(("job types", sha256_debug(&b.job_types)));
        }
        if let Some(w) = &s.workflows {
            parts.push(("workflow trace", w.trace_sha256.clone()));
        }
        Identity::from_parts(resolved, &parts)
    }

    fn encode_run(
        &self,
        _s: &SharedScenario,
        run: &SharedRun,
        out: &mut dyn std::io::Write,
    ) -> Result<()> {
        encode_shared_run(run, out)
    }

    fn decode_run(&self, s: &SharedScenario, bytes: &[u8]) -> Result<SharedRun> {
        decode_shared_run(s, bytes)
    }

    fn fold(&self, s: &SharedScenario, fold: &mut SharedFold, run: SharedRun) -> Result<()> {
        shares_rows(&mut fold.shares, s, &run)?;
        if let Some(spool) = &mut fold.segments {
            segment_rows(spool, s, &run)?;
        }
        match (&s.workflows, &mut fold.workflows, &run.workflows) {
            (Some(w), Some(f), Some(o)) => {
                workflows_rows(&mut f.rows, s, run.policy, run.rep, o)?;
                if let Some(spool) = &mut f.steps {
                    steps_rows(spool, s, run.policy, run.rep, o)?;
                }
                if let Some(spool) = &mut f.jobs {
                    wf_jobs_rows(spool, s, run.policy, run.rep, o)?;
                }
                f.metrics.push((
                    run.policy,
                    WorkflowMetrics::of(o, s.gpus(), run.cpus, w.horizon),
                ));
            }
            (None, None, None) => {}
            _ => return Err(Error::input("internal: a run without its workflows part")),
        }
        match (&s.service, &mut fold.service, run.service) {
            (Some(svc), Some(f), Some(r)) => self.models.fold(&svc.scenario, f, r)?,
            (None, None, None) => {}
            _ => return Err(Error::input("internal: a run without its service part")),
        }
        match (&s.background, &mut fold.background, run.background) {
            (Some(b), Some(f), Some(r)) => self.jobs.fold(b, f, r)?,
            (None, None, None) => {}
            _ => return Err(Error::input("internal: a run without its background part")),
        }
        Ok(())
    }

    fn finish(
        &self,
        s: &SharedScenario,
        mut fold: SharedFold,
        threads: usize,
        wall: Duration,
    ) -> Result<SharedReport> {
        fold.shares.finish()?;
        if let Some(spool) = &mut fold.segments {
            spool.finish()?;
        }
        let service = match (&s.service, fold.service) {
            (Some(svc), Some(f)) => Some(self.models.finish(&svc.scenario, f, threads, wall)?),
            _ => None,
        };
        let background = match (&s.background, fold.background) {
            (Some(b), Some(f)) => Some(self.jobs.finish(b, f, threads, wall)?),
            _ => None,
        };
        let workflows = match fold.workflows {
            None => None,
            Some(mut f) => {
                f.rows.finish()?;
                for spool in [&mut f.steps, &mut f.jobs].into_iter().flatten() {
                    spool.finish()?;
                }
                // Task order: the summary's means run in repetition order.
                f.metrics.sort_by_key(|(p, _)| *p);
                Some(WorkflowsReport {
                    summary: summarize_workflows(
                        &s.policy_names(),
                        s.baseline,
                        &f.metrics,
                        s.file.output.confidence,
                    ),
                    runs: f.metrics,
                    rows: f.rows,
                    steps: f.steps,
                    jobs: f.jobs,
                })
            }
        };
        Ok(SharedReport {
            service,
            background,
            workflows,
            shares: fold.shares,
            segments: fold.segments,
            threads,
            wall,
        })
    }

    fn result_warnings(&self, report: &SharedReport) -> Vec<String> {
        let mut w = Vec::new();
        if let Some(r) = &report.service {
            w.extend(
                self.models
                    .result_warnings(r)
                    .into_iter()
                    .map(|m| format!("service: {m}")),
            );
        }
        if let Some(r) = &report.background {
            w.extend(
                self.jobs
                    .result_warnings(r)
                    .into_iter()
                    .map(|m| format!("background: {m}")),
            );
        }
        w
    }

    fn plots(&self, s: &SharedScenario) -> bool {
        s.file.output.plots
    }

    fn write(
        &self,
        dir: &Path,
        s: &SharedScenario,
        report: &SharedReport,
        keep_jobs: bool,
        point: Option<PointInfo<'_>>,
        execution: &Execution,
    ) -> Result<Vec<&'static str>> {
        let mut names = Vec::new();
        if let (Some(svc), Some(r)) = (&s.service, &report.service) {
            let sub = dir.join(SERVICE_DIR);
            make_dir(&sub)?;
            let segmented = report.segments.is_some();
            self.models.write(
                &sub,
                &svc.scenario,
                r,
                keep_jobs && !segmented,
                point,
                execution,
            )?;
            if let Some(spool) = &report.segments {
                spool.copy_to(&sub.join("jobs.csv"))?;
            }
            names.push("service/");
        }
        if let (Some(b), Some(r)) = (&s.background, &report.background) {
            let sub = dir.join(BACKGROUND_DIR);
            make_dir(&sub)?;
            self.jobs.write(&sub, b, r, keep_jobs, point, execution)?;
            names.push("background/");
        }
        if let Some(w) = &report.workflows {
            let sub = dir.join(WORKFLOWS_DIR);
            make_dir(&sub)?;
            w.rows.copy_to(&sub.join("workflows.csv"))?;
            write_atomic(&sub.join("summary.csv"), w.summary.csv().as_bytes())?;
            if let Some(spool) = &w.steps {
                spool.copy_to(&sub.join("steps.csv"))?;
            }
            if let Some(spool) = &w.jobs {
                spool.copy_to(&sub.join("jobs.csv"))?;
            }
            names.push("workflows/");
        }
        report.shares.copy_to(&dir.join("shares.csv"))?;
        names.push("shares.csv");
        let mut warnings = self.setup_warnings(s);
        warnings.extend(self.result_warnings(report));
        let manifest = shared_manifest(
            s,
            report.threads,
            report.wall.as_secs_f64(),
            &warnings,
            point,
            execution,
        );
        write_atomic(
            &dir.join(crate::core::io::manifest_doc::FILE),
            manifest.as_bytes(),
        )?;
        names.push(crate::core::io::manifest_doc::FILE);
        Ok(names)
    }

    fn sweep_csv(&self, axes: &[SweepAxis], points: &[(PointInfo<'_>, &SharedReport)]) -> String {
        let service: Vec<(PointInfo<'_>, &ModelReport)> = points
            .iter()
            .filter_map(|(p, r)| r.service.as_ref().map(|s| (*p, s)))
            .collect();
        let background: Vec<(PointInfo<'_>, &JobReport)> = points
            .iter()
            .filter_map(|(p, r)| r.background.as_ref().map(|b| (*p, b)))
            .collect();
        let workflows: Vec<(PointInfo<'_>, &WorkflowSummary)> = points
            .iter()
            .filter_map(|(p, r)| r.workflows.as_ref().map(|w| (*p, &w.summary)))
            .collect();
        let lead = 2 + axes.len() + 2;
        let joined = join_sweep_csv(
            (!service.is_empty()).then(|| self.models.sweep_csv(axes, &service)),
            (!background.is_empty()).then(|| self.jobs.sweep_csv(axes, &background)),
            lead,
        );
        join_workflows_sweep_csv(
            joined,
            (!workflows.is_empty()).then(|| workflows_sweep_csv(axes, &workflows)),
            lead,
        )
    }

    fn summary_table(&self, report: &SharedReport) -> String {
        let mut out = String::new();
        if let Some(r) = &report.service {
            out.push_str("service (model selection):\n");
            out.push_str(&self.models.summary_table(r));
        }
        if let Some(r) = &report.background {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("background (job trace):\n");
            out.push_str(&self.jobs.summary_table(r));
        }
        if let Some(w) = &report.workflows {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("workflows:\n");
            out.push_str(&w.summary.table());
        }
        out
    }

    fn summary_json(&self, report: &SharedReport) -> Value {
        let service = report.service.as_ref().map(|r| self.models.summary_json(r));
        let background = report
            .background
            .as_ref()
            .map(|r| self.jobs.summary_json(r));
        // The common keys are the service's (else the background's, else
        // the workflows': DESIGN §13.5).
        let workflows = report.workflows.as_ref().map(|w| w.summary.common_json());
        let first = service
            .as_ref()
            .or(background.as_ref())
            .or(workflows.as_ref());
        let key = |k: &str| first.and_then(|d| d.get(k)).cloned().unwrap_or(Value::Null);
        let mut doc = json!({
            "repetitions": key("repetitions"),
            "baseline": key("baseline"),
            "confidence": key("confidence"),
            "thresholds": key("thresholds"),
            "policies": key("policies"),
            "service": service,
            "background": background,
        });
        // `workflows` only with workflows (the other scenarios' documents
        // stay as they were).
        if let (Some(w), Some(obj)) = (&report.workflows, doc.as_object_mut()) {
            obj.insert("workflows".into(), w.summary.json());
        }
        doc
    }

    fn describe(&self, s: &SharedScenario, report: &SharedReport) -> String {
        let mut parts = Vec::new();
        if let Some(svc) = &s.service {
            parts.push(format!(
                "service on up to {} GPU(s), priority {}",
                svc.max_gpus,
                svc.priority.name()
            ));
        }
        if let Some(b) = &s.background {
            let jobs = match b.file.jobs.sample {
                Some(k) if k < b.trace.len() => {
                    format!("{k} of the trace's {} job(s) per repetition", b.trace.len())
                }
                _ => format!("{} job(s)", b.trace.len()),
            };
            parts.push(format!("background of {jobs} at load {}", s.load));
        }
        if let Some(w) = &s.workflows {
            parts.push(format!(
                "{} workflow(s) of {} step(s) at load {}",
                w.trace.workflows().len(),
                w.trace.steps().len(),
                w.load
            ));
        }
        format!(
            "ran `{}` (shared mode, {} GPUs: {}): {} repetition(s) × {} policies in {:.3} s on {} thread(s)",
            s.name(),
            s.gpus(),
            parts.join("; "),
            s.repetitions(),
            s.policies(),
            report.wall.as_secs_f64(),
            report.threads
        )
    }

    fn memory_estimate(&self, scenario: &SharedScenario) -> Option<u64> {
        scenario.memory_estimate()
    }
}

fn make_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::input(format!("{}: cannot create: {e}", dir.display())))
}
