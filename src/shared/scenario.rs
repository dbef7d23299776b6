//! The `mode = "shared"` scenario (DESIGN §13.4): its serde model
//! (unknown keys are errors) and its validated form.
//!
//! The service's tables are model mode's ([`crate::models::scenario`]) and
//! the background's and the cluster's job mode's
//! ([`crate::jobs::scenario`]): this loader writes each workload as the
//! scenario of its mode and validates it with that mode's loader, so every
//! key means and is checked what it means there; messages name the keys
//! where they are in the shared file (`[service.split]`, `[jobs].load`).
//!
//! ```toml
//! mode = "shared"
//! name = "automl-on-a-busy-cluster"
//! seed = 1
//! repetitions = 3
//! thresholds = [0.05, 0.02]
//! [cluster]                  # job mode's keys, plus the cluster scheduler
//! nodes = 4
//! gpus_per_node = 2
//! scheduler = "fifo"         # default fifo
//! [jobs]                     # the background: job mode's keys, plus load
//! path = "jobs.csv"
//! load = 0.5                 # submit times ÷ load (default 1)
//! [service]                  # the model-selection service
//! max_gpus = 4               # default: the whole cluster
//! gpus_per_job = 1           # default 1
//! priority = "low"           # equal (default) | low
//! preempt = "checkpoint"     # checkpoint (default) | restart
//! [service.trace]
//! path = "trace.csv"
//! [service.split]
//! prior_fraction = 0.2
//! [workflows]                # workflow DAGs (DESIGN §14), optional
//! path = "workflows.csv"
//! load = 1                   # submit times ÷ load (default 1)
//! [workflows.cache]          # capacity_bytes, max_age_s, restore_s,
//! scope = "global"           #   bandwidth_bytes_per_s, scope
//! [workflows.retry]          # max_retries, backoff_s, resume
//! max_retries = 2
//! [[policy]]
//! name = "ease.ml"
//! scheduler = "gp-ucb"       # the service's, as in model mode
//! selector = "gp-ei"
//! cluster_scheduler = "max-min-fairness"  # optional: overrides [cluster].scheduler
//! cluster = { backfill = true }           # optional: the cluster scheduler's keys
//! cache = "cost"             # the workflows' cache rule: off | lru | cost
//! parallel = "fixed"         # off | fixed | fill, with parallel_k (default 4)
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use crate::core::error::{Error, Result};
use crate::core::io::echo::{shown, shown_number};
use crate::core::io::key_taken::{Refused, with_key_taken};
use crate::core::io::scenario::{
    Overrides, check_common, read_scenario_text, resolve_baseline, toml_error,
};
use crate::core::memory::{Estimate, MemoryBudget, check};
use crate::core::run::identity::sha256_hex;
use crate::core::run::sweep::{Expand, Plan, expand_plan};
use crate::core::sim::time::Micros;
use crate::jobs::policy::JobRegistry;
use crate::jobs::scenario::{
    JobClusterSection, JobOutputSection, JobPolicy, JobPolicySection, JobScenario, JobScenarioFile,
    JobTraceCache, JobsSection, ResolvedCluster, build_job_scenario, resolve_cluster,
    resolve_policy as resolve_job_policy,
};
use crate::jobs::sim::Placement;
use crate::models::policy::registry::ModelRegistry;
use crate::models::scenario::{
    ArrivalsSection, ClusterSection, Embedding, LimitsSection, OutputSection, PolicySection,
    Scenario, ScenarioFile, SplitSection, TraceCache, TraceSection, build_scenario_in,
};
use crate::shared::sim::{MAX_ENGINE_JOBS, Preempt, Priority, WorkflowsInput, workflow_jobs};
use crate::shared::workflows_footprint::{WorkflowRuns, cache_slots};
use crate::workflows::footprint::WorkflowTraceShape;
use crate::workflows::{
    CacheConfig, CacheRule, ParallelRule, Resume, RetryConfig, Scope, WorkflowRegistry,
    WorkflowTrace,
};

/// A shared scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedScenarioFile {
    /// Always `"shared"`.
    pub mode: String,
    /// Label; the default results folder is `results/<name>`.
    pub name: String,
    /// Seed of every random stream (default 0).
    #[serde(default, deserialize_with = "crate::core::io::whole::seed")]
    pub seed: u64,
    /// Independent repetitions (default 1).
    #[serde(
        default = "one",
        deserialize_with = "crate::core::io::whole::repetitions"
    )]
    pub repetitions: u32,
    /// θ values for the service's T(θ) and speedups (default `[0.05,
    /// 0.02, 0.01]`).
    #[serde(default = "default_thresholds")]
    pub thresholds: Vec<f64>,
    /// Stop the service's simulated time here, seconds (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_s: Option<f64>,
    /// The policy the others are compared with (default the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The cluster: job mode's `[cluster]` keys and `scheduler`.
    pub cluster: SharedClusterSection,
    /// The background workload: job mode's `[jobs]` keys and `load`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<SharedJobsSection>,
    /// The model-selection service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceSection>,
    /// The workflows (DESIGN §14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflows: Option<WorkflowsSection>,
    /// The policies (`[[policy]]`, at least one).
    #[serde(rename = "policy", default)]
    pub policies: Vec<SharedPolicySection>,
    /// Model mode's `[output]` (job mode's `plots` and `confidence` are
    /// among its keys).
    #[serde(default)]
    pub output: OutputSection,
    /// Also run every service tenant alone, for the fairness index (model
    /// mode's `fairness`, default true).
    #[serde(default = "yes")]
    pub fairness: bool,
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

fn unit() -> f64 {
    1.0
}

fn default_thresholds() -> Vec<f64> {
    vec![0.05, 0.02, 0.01]
}

fn equal() -> String {
    Priority::Equal.name().into()
}

fn checkpoint() -> String {
    Preempt::Checkpoint.name().into()
}

/// `[cluster]` of a shared scenario: job mode's keys and the cluster
/// scheduler.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedClusterSection {
    /// The cluster scheduler every policy uses unless it names its own
    /// `cluster_scheduler` (default `fifo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
    /// Job mode's keys (unknown keys are errors).
    #[serde(flatten)]
    pub nodes: JobClusterSection,
}

/// `[jobs]` of a shared scenario: job mode's keys and `load`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedJobsSection {
    /// Factor on the arrival rate: submit times are divided by it (finite
    /// and > 0, default 1).
    #[serde(default = "unit")]
    pub load: f64,
    /// Job mode's keys (unknown keys are errors).
    #[serde(flatten)]
    pub trace: JobsSection,
}

impl<'de> Deserialize<'de> for SharedClusterSection {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        const REFUSED: Refused = &[(
            "gpus",
            "[cluster].gpus: not a key of a shared scenario, whose cluster is nodes as in job mode: \
             write G identical GPUs as `nodes = G` and `gpus_per_node = 1`",
        )];
        let (scheduler, nodes) = with_key_taken(d, "scheduler", REFUSED)?;
        Ok(Self { scheduler, nodes })
    }
}

impl<'de> Deserialize<'de> for SharedJobsSection {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let (load, trace) = with_key_taken(d, "load", &[])?;
        Ok(Self {
            load: load.unwrap_or_else(unit),
            trace,
        })
    }
}

/// `[service]`: the model-selection service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSection {
    /// Model mode's `[trace]`.
    pub trace: TraceSection,
    /// Model mode's `[split]`.
    #[serde(default)]
    pub split: SplitSection,
    /// Model mode's `[arrivals]`.
    #[serde(default)]
    pub arrivals: ArrivalsSection,
    /// Model mode's `[limits]`.
    #[serde(default)]
    pub limits: LimitsSection,
    /// GPUs the service may hold at once (default: the whole cluster).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::gpus"
    )]
    pub max_gpus: Option<u64>,
    /// GPUs each of its jobs takes (default 1).
    #[serde(
        default = "one",
        deserialize_with = "crate::core::io::whole::gpus_per_job"
    )]
    pub gpus_per_job: u32,
    /// `equal` (default) or `low`.
    #[serde(default = "equal")]
    pub priority: String,
    /// `checkpoint` (default) or `restart`.
    #[serde(default = "checkpoint")]
    pub preempt: String,
    /// Concurrent jobs per tenant (model mode's
    /// `[cluster].max_jobs_per_tenant`, default 1).
    #[serde(
        default = "one",
        deserialize_with = "crate::core::io::whole::jobs_per_tenant"
    )]
    pub max_jobs_per_tenant: u32,
    /// Per GPU type, the speed factor of the service's models (model
    /// mode's `[cluster.speed]`; typed clusters only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub speed: BTreeMap<String, f64>,
    /// Per GPU type, per model, a speed factor (model mode's
    /// `[cluster.model_speed]`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_speed: BTreeMap<String, BTreeMap<String, f64>>,
}

/// `[workflows]`: the workflow workload (DESIGN §14).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowsSection {
    /// The workflow trace (relative to the scenario's folder).
    pub path: String,
    /// Factor on the arrival rate: submit times are divided by it (finite
    /// and > 0, default 1).
    #[serde(default = "unit")]
    pub load: f64,
    /// Workflows submitted after it are not; at it every unfinished one is
    /// withdrawn, seconds (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_s: Option<f64>,
    /// Added to each sub-job of a split step, seconds (default 0).
    #[serde(default)]
    pub split_overhead_s: f64,
    /// Every step's failure probability instead of its trace's, in
    /// [0, 1) (default: the trace's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_p: Option<f64>,
    /// The memo cache's settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<WorkflowsCacheSection>,
    /// Retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<WorkflowsRetrySection>,
}

/// `[workflows.cache]` (DESIGN §14.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowsCacheSection {
    /// Bytes held at most (default unlimited).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::bytes"
    )]
    pub capacity_bytes: Option<u64>,
    /// An entry's life, seconds (default unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_s: Option<f64>,
    /// Constant part of a hit's restore time, seconds (default 0).
    #[serde(default)]
    pub restore_s: f64,
    /// Bytes per second restored (default 0: unlimited).
    #[serde(default, deserialize_with = "crate::core::io::whole::bytes_per_s")]
    pub bandwidth_bytes_per_s: u64,
    /// `tenant` (default) or `global`.
    #[serde(default = "tenant_scope")]
    pub scope: String,
}

/// `[workflows.retry]` (DESIGN §14.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowsRetrySection {
    /// Failed attempts a workflow may retry, all steps together (default 0).
    #[serde(default, deserialize_with = "crate::core::io::whole::retries")]
    pub max_retries: u32,
    /// Wait before a retry, seconds (default 0).
    #[serde(default)]
    pub backoff_s: f64,
    /// `cached` (default) or `from-scratch`.
    #[serde(default = "cached")]
    pub resume: String,
}

fn tenant_scope() -> String {
    Scope::Tenant.name().into()
}

fn cached() -> String {
    Resume::Cached.name().into()
}

/// The validated workflows of a shared scenario.
#[derive(Debug, Clone)]
pub struct Workflows {
    /// The trace file.
    pub path: PathBuf,
    /// The trace.
    pub trace: Arc<WorkflowTrace>,
    /// Its SHA-256.
    pub trace_sha256: String,
    /// `[workflows].load`.
    pub load: f64,
    /// `[workflows].horizon_s`, µs.
    pub horizon: Option<Micros>,
    /// `[workflows].split_overhead_s`, µs.
    pub split_overhead: Micros,
    /// `[workflows].failure_p`.
    pub failure_p: Option<f64>,
    /// `[workflows.cache]`.
    pub cache: CacheConfig,
    /// `[workflows.retry]`.
    pub retry: RetryConfig,
    /// Each policy's cache rule, in policy order.
    pub cache_rules: Vec<CacheRule>,
    /// Each policy's parallelisation rule, in policy order.
    pub parallel: Vec<ParallelRule>,
    /// What one pass over the trace file found (its rows, its text's
    /// bytes), for the memory estimate.
    pub shape: WorkflowTraceShape,
    /// The memory estimate of the workflows (DESIGN §8.5 "Workflows").
    pub memory: Estimate,
}

impl Workflows {
    /// The workflows' input of policy `policy` (DESIGN §14): the
    /// scenario's trace, load, horizon, cache and retry settings and the
    /// policy's cache and parallelisation rules.
    pub fn input(&self, policy: usize, keep_jobs: bool) -> WorkflowsInput<'_> {
        WorkflowsInput {
            trace: &self.trace,
            load: self.load,
            horizon: self.horizon,
            cache: self.cache,
            cache_rule: self.cache_rules.get(policy).cloned().unwrap_or_default(),
            retry: self.retry,
            parallel: self.parallel.get(policy).cloned().unwrap_or_default(),
            split_overhead: self.split_overhead,
            failure_p: self.failure_p,
            keep_jobs,
        }
    }
}

/// One `[[policy]]` of a shared scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedPolicySection {
    /// Label used in every output.
    pub name: String,
    /// The service's scheduler (with a `[service]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
    /// The service's selector (with a `[service]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The cluster scheduler of this policy (default `[cluster].scheduler`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_scheduler: Option<String>,
    /// The cluster scheduler's keys (`backfill`, `type_policy`,
    /// `max_wait_s`, its own parameters).
    #[serde(default, skip_serializing_if = "Table::is_empty")]
    pub cluster: Table,
    /// The workflows' memo-cache rule: `off`, `lru` or `cost` (default
    /// `lru` with a `[workflows.cache]`, else `off`; DESIGN §14.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    /// The workflows' auto-parallelisation rule: `off` (default), `fixed`
    /// or `fill` (DESIGN §14.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<String>,
    /// Sub-jobs of `fixed`, most sub-jobs of `fill` (default 4).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::sub_jobs"
    )]
    pub parallel_k: Option<u32>,
    /// The service's scheduler and selector parameters.
    #[serde(flatten)]
    pub params: BTreeMap<String, Value>,
}

/// The validated service.
#[derive(Debug, Clone)]
pub struct Service {
    /// The service as a model-mode scenario (its policies are the shared
    /// policies' schedulers and selectors, in order); its GPU types are the
    /// whole cluster's, numbered node by node.
    pub scenario: Scenario,
    /// GPUs it may hold at once.
    pub max_gpus: u32,
    /// GPUs per job.
    pub gpus_per_job: u32,
    /// How its jobs compete.
    pub priority: Priority,
    /// What a preempted job keeps.
    pub preempt: Preempt,
}

/// A validated shared scenario, its inputs loaded.
#[derive(Debug, Clone)]
pub struct SharedScenario {
    /// The scenario file.
    pub path: PathBuf,
    /// The file after command-line overrides.
    pub file: SharedScenarioFile,
    /// The cluster.
    pub cluster: ResolvedCluster,
    /// Placement rule.
    pub placement: Placement,
    /// Each policy's cluster scheduler, in policy order.
    pub cluster_policies: Vec<JobPolicy>,
    /// The background as a job-mode scenario (its policies are
    /// [`SharedScenario::cluster_policies`]), if any.
    pub background: Option<JobScenario>,
    /// `[jobs].load`.
    pub load: f64,
    /// The service, if any.
    pub service: Option<Service>,
    /// The workflows, if any.
    pub workflows: Option<Workflows>,
    /// Index of the baseline policy.
    pub baseline: usize,
    /// The memory estimate of the service, the background and the
    /// workflows held at once, which the scenario passed (DESIGN §8.5);
    /// `None` when none makes one (an unscanned trace; before 2026-12-07
    /// a scenario of workflows only made none).
    pub memory: Option<Estimate>,
}

impl SharedScenario {
    /// The bytes of the memory estimate it passed, if any.
    pub fn memory_estimate(&self) -> Option<u64> {
        self.memory.as_ref().map(Estimate::total)
    }
    /// The scenario's name.
    pub fn name(&self) -> &str {
        &self.file.name
    }
    /// Seed after overrides.
    pub fn seed(&self) -> u64 {
        self.file.seed
    }
    /// Repetitions after overrides.
    pub fn repetitions(&self) -> u32 {
        self.file.repetitions
    }
    /// Number of policies.
    pub fn policies(&self) -> usize {
        self.cluster_policies.len()
    }
    /// The policies' names, in order.
    pub fn policy_names(&self) -> Vec<&str> {
        self.file.policies.iter().map(|p| p.name.as_str()).collect()
    }
    /// GPUs in the cluster.
    pub fn gpus(&self) -> u64 {
        self.cluster.cluster.gpus()
    }
    /// Whether a service job can be preempted: with a background, or
    /// under a preemptive cluster scheduler (then `service/jobs.csv` has a
    /// row per segment and the segment columns, DESIGN §13.5).
    pub fn service_segments(&self) -> bool {
        self.background.is_some() || self.cluster_policies.iter().any(|p| p.spec.preemptive)
    }

    /// Whether a run keeps its service's segments: with `--jobs`
    /// (`keep_jobs`) when `service/jobs.csv` is by segment
    /// ([`Self::service_segments`]); no run reads them otherwise.
    pub fn keeps_service_segments(&self, keep_jobs: bool) -> bool {
        keep_jobs && self.service_segments()
    }
}

/// Read the shared scenario at `path` and expand its `[sweep]`, if any.
pub fn load_shared_plan_with(
    path: &Path,
    overrides: Overrides,
    models: &ModelRegistry,
    jobs: &JobRegistry,
    workflows: &WorkflowRegistry,
) -> Result<Plan<SharedScenario>> {
    let text = read_scenario_text(path)?;
    parse_shared_plan_with(path, &text, overrides, models, jobs, workflows)
}

/// [`load_shared_plan_with`] on the scenario `text` as if read from
/// `path`.
pub fn parse_shared_plan_with(
    path: &Path,
    text: &str,
    overrides: Overrides,
    models: &ModelRegistry,
    jobs: &JobRegistry,
    workflows: &WorkflowRegistry,
) -> Result<Plan<SharedScenario>> {
    let mut docs = SharedDocs {
        traces: TraceCache::default(),
        jobs: JobTraceCache::default(),
        workflow_traces: HashMap::new(),
        models,
        job_schedulers: jobs,
        workflow_rules: workflows,
    };
    expand_plan(&mut docs, path, text, overrides)
}

/// Parse and validate one shared scenario (without `[sweep]`) with the
/// built-in policies.
pub fn parse_shared_scenario(
    path: &Path,
    text: &str,
    overrides: Overrides,
) -> Result<SharedScenario> {
    let at = path.display().to_string();
    let file: SharedScenarioFile = toml::from_str(text).map_err(|e| toml_error(&at, &e))?;
    let (models, jobs) = (ModelRegistry::builtin(), JobRegistry::builtin());
    let rules = WorkflowRegistry::builtin();
    let mut docs = SharedDocs {
        traces: TraceCache::default(),
        jobs: JobTraceCache::default(),
        workflow_traces: HashMap::new(),
        models: &models,
        job_schedulers: &jobs,
        workflow_rules: &rules,
    };
    docs.build(path, file, overrides)
}

/// Shared scenario documents, their traces read once.
struct SharedDocs<'a> {
    traces: TraceCache,
    jobs: JobTraceCache,
    workflow_traces: HashMap<PathBuf, (Arc<WorkflowTrace>, String, WorkflowTraceShape)>,
    models: &'a ModelRegistry,
    job_schedulers: &'a JobRegistry,
    workflow_rules: &'a WorkflowRegistry,
}

impl Expand<SharedScenarioFile, SharedScenario> for SharedDocs<'_> {
    fn plain(&mut self, path: &Path, text: &str, overrides: Overrides) -> Result<SharedScenario> {
        let at = path.display().to_string();
        let file: SharedScenarioFile = toml::from_str(text).map_err(|e| toml_error(&at, &e))?;
        self.build(path, file, overrides)
    }

    fn deserialize(&mut self, doc: Table) -> Result<SharedScenarioFile> {
        SharedScenarioFile::deserialize(Value::Table(doc)).map_err(|e| {
            Error::input(crate::core::io::echo::capped_lines(
                &e.to_string().trim_end().replace('\n', " "),
            ))
        })
    }

    fn build(
        &mut self,
        path: &Path,
        mut file: SharedScenarioFile,
        overrides: Overrides,
    ) -> Result<SharedScenario> {
        let at = path.display().to_string();
        overrides.apply(
            &mut file.seed,
            &mut file.repetitions,
            &mut file.output.plots,
        );
        check_top_level(&at, &file)?;
        let base = path.parent().unwrap_or(Path::new(""));
        let cluster = resolve_cluster(&at, base, &file.cluster.nodes)?;
        // `[cluster].scheduler` is the default of every policy: an unknown
        // one is the cluster's error, not the first policy's (a typo there
        // was reported as `[[policy]] #1 ("…"): unknown job scheduler`).
        if let Some(name) = &file.cluster.scheduler
            && self.job_schedulers.scheduler(name).is_none()
        {
            return Err(Error::input(format!(
                "{at}: [cluster].scheduler: {}",
                self.job_schedulers.schedulers.unknown(name, &shown(name))
            )));
        }
        let job_sections: Vec<JobPolicySection> = file
            .policies
            .iter()
            .enumerate()
            .map(|(i, p)| cluster_policy_section(&at, i, p, &file.cluster))
            .collect::<Result<_>>()?;
        let (background, cluster_policies, load) = match &file.jobs {
            Some(jobs) => {
                let load = jobs.load;
                if !(load.is_finite() && load > 0.0) {
                    return Err(Error::input(format!(
                        "{at}: [jobs].load: expected a factor on the arrival rate that is finite and > 0 \
                         (1 = the trace's own rate; submit times are divided by it), got {}",
                        shown_number(load)
                    )));
                }
                let job_file = JobScenarioFile {
                    mode: "jobs".into(),
                    name: file.name.clone(),
                    seed: file.seed,
                    repetitions: file.repetitions,
                    baseline: file.baseline.clone(),
                    jobs: jobs.trace.clone(),
                    cluster: file.cluster.nodes.clone(),
                    policies: job_sections,
                    output: JobOutputSection {
                        plots: file.output.plots,
                        confidence: file.output.confidence,
                    },
                };
                // The command's memory budget (`--max-memory`,
                // `--threads`): the background's estimate was checked
                // against the machine alone, whatever `--max-memory` said.
                let s = build_job_scenario(
                    path,
                    job_file,
                    Overrides {
                        memory: overrides.memory,
                        ..Overrides::default()
                    },
                    &mut self.jobs,
                    self.job_schedulers,
                )?;
                let policies = s.policies.clone();
                (Some(s), policies, load)
            }
            None => {
                let policies = job_sections
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        resolve_job_policy(
                            &at,
                            i,
                            p,
                            file.cluster.nodes.backfill,
                            self.job_schedulers,
                        )
                    })
                    .collect::<Result<Vec<_>>>()?;
                check_rounds(&at, &cluster, &policies)?;
                (None, policies, 1.0)
            }
        };
        let service = match &file.service {
            None => None,
            Some(svc) => Some(self.service(path, &file, svc, &cluster, overrides)?),
        };
        let workflows = match &file.workflows {
            None => None,
            Some(w) => Some(self.workflows(&at, base, &file, w, &cluster, &overrides.memory)?),
        };
        let mut workflows = workflows;
        if let Some(w) = &mut workflows {
            let preemptive =
                background.is_some() || cluster_policies.iter().any(|p| p.spec.preemptive);
            w.memory = workflows_estimate(
                &at,
                w,
                u64::from(file.repetitions),
                service.is_some(),
                preemptive,
                &overrides.memory,
            )?;
        }
        let names: Vec<&str> = file.policies.iter().map(|p| p.name.as_str()).collect();
        let baseline = resolve_baseline(&at, file.baseline.as_deref(), &names)?;
        // The service and the background run at once: their estimates,
        // each checked alone above, are checked together (DESIGN §8.5).
        let parts: Vec<(&str, &Estimate)> = [
            (
                "service",
                service.as_ref().and_then(|s| s.scenario.memory.as_ref()),
            ),
            (
                "background",
                background.as_ref().and_then(|b| b.memory.as_ref()),
            ),
            ("workflows", workflows.as_ref().map(|w| &w.memory)),
        ]
        .into_iter()
        .filter_map(|(part, e)| Some((part, e?)))
        .collect();
        let memory = (!parts.is_empty()).then(|| Estimate::combined(&parts));
        if let Some(e) = &memory {
            check(&at, e, &overrides.memory)?;
        }
        Ok(SharedScenario {
            memory,
            workflows,
            path: path.to_path_buf(),
            placement: file.cluster.nodes.placement,
            file,
            cluster,
            cluster_policies,
            background,
            load,
            service,
            baseline,
        })
    }
}

/// The workflows' memory estimate (DESIGN §8.5 "Workflows"), checked
/// alone against `budget`: their trace and `repetitions` runs of each
/// policy, beside a service (whose estimate counts the engine's segment
/// log) or not, `preemptive` when a job may be preempted. A run's jobs
/// are numbered by the engine in a `u32`: workflows that may submit more
/// are refused here, naming the keys that multiply them.
fn workflows_estimate(
    at: &str,
    w: &Workflows,
    repetitions: u64,
    service: bool,
    preemptive: bool,
    budget: &MemoryBudget,
) -> Result<Estimate> {
    let policies = w.cache_rules.len().max(1);
    let jobs = (0..policies)
        .map(|p| workflow_jobs(&w.input(p, false)))
        .max()
        .unwrap_or(0);
    if jobs > MAX_ENGINE_JOBS {
        return Err(Error::input(format!(
            "{at}: [workflows]: a run's workflows may submit up to {} jobs (every step's sub-jobs \
             and every retry counted: [workflows.retry] max_retries = {}, the policies' parallel_k), \
             more than the {} one run can number: lower max_retries or parallel_k",
            crate::core::limits::grouped(jobs),
            w.retry.max_retries,
            crate::core::limits::grouped(MAX_ENGINE_JOBS)
        )));
    }
    let caches = w.cache_rules.iter().any(|r| !r.is_off());
    let runs = WorkflowRuns {
        tasks: repetitions.saturating_mul(policies as u64),
        jobs,
        slots: if caches {
            cache_slots(&w.trace, w.cache.scope)
        } else {
            0
        },
        service,
        preemptive,
    };
    let e = crate::shared::workflows_footprint::estimate(&w.trace, &w.shape, &runs, budget);
    check(at, &e, budget)?;
    Ok(e)
}

impl SharedDocs<'_> {
    /// The `[workflows]`: its trace read once per path, its keys and each
    /// policy's `cache` and `parallel` checked.
    fn workflows(
        &mut self,
        at: &str,
        base: &Path,
        file: &SharedScenarioFile,
        w: &WorkflowsSection,
        cluster: &ResolvedCluster,
        budget: &MemoryBudget,
    ) -> Result<Workflows> {
        let path = base.join(&w.path);
        let (trace, trace_sha256, shape) = match self.workflow_traces.get(&path) {
            Some(hit) => hit.clone(),
            None => {
                // Limits from memory (DESIGN §8.5): the file's size, then
                // the estimate of reading it, before it is read.
                let shape = crate::workflows::footprint::check_trace_file(&path, budget)
                    .map_err(|e| e.context(format!("{at}: [workflows].path")))?
                    .map(|(shape, _)| shape)
                    .unwrap_or_default();
                let bytes = crate::core::io::read_input(&path, "workflow trace")
                    .map_err(|e| e.context(format!("{at}: [workflows].path")))?;
                let trace = Arc::new(WorkflowTrace::read(&path)?);
                let hit = (trace, sha256_hex(&bytes), shape);
                self.workflow_traces.insert(path.clone(), hit.clone());
                hit
            }
        };
        let secs = |key: &str, v: f64, positive: bool| -> Result<Micros> {
            if !v.is_finite() || v < 0.0 || (positive && v == 0.0) || v > MAX_KEY_S {
                return Err(Error::input(format!(
                    "{at}: {key}: expected a finite number of seconds {} and at most {MAX_KEY_S:e}, got {}",
                    if positive { "> 0" } else { "≥ 0" },
                    shown_number(v)
                )));
            }
            Ok(key_micros(v))
        };
        let load = w.load;
        if !(load.is_finite() && load > 0.0) {
            return Err(Error::input(format!(
                "{at}: [workflows].load: expected a factor on the arrival rate that is finite and > 0 \
                 (1 = the trace's own rate; submit times are divided by it), got {}",
                shown_number(load)
            )));
        }
        let horizon = w
            .horizon_s
            .map(|h| secs("[workflows].horizon_s", h, true))
            .transpose()?;
        let split_overhead = secs("[workflows].split_overhead_s", w.split_overhead_s, false)?;
        if let Some(p) = w.failure_p
            && !(0.0..1.0).contains(&p)
        {
            return Err(Error::input(format!(
                "{at}: [workflows].failure_p: expected a probability in [0, 1) that replaces every step's, got {}",
                shown_number(p)
            )));
        }
        let cache = match &w.cache {
            None => CacheConfig::default(),
            Some(c) => CacheConfig {
                capacity_bytes: c.capacity_bytes.unwrap_or(u64::MAX),
                max_age: match c.max_age_s {
                    None => Micros::MAX,
                    Some(a) => secs("[workflows.cache].max_age_s", a, true)?,
                },
                restore: secs("[workflows.cache].restore_s", c.restore_s, false)?,
                bandwidth_bytes_per_s: c.bandwidth_bytes_per_s,
                scope: match c.scope.as_str() {
                    "tenant" => Scope::Tenant,
                    "global" => Scope::Global,
                    other => {
                        return Err(Error::input(format!(
                            "{at}: [workflows.cache].scope: unknown scope `{}`: expected \"tenant\" (a step hits only its own tenant's entries) or \"global\" (every tenant's)",
                            shown(other)
                        )));
                    }
                },
            },
        };
        let retry = match &w.retry {
            None => RetryConfig::default(),
            Some(r) => RetryConfig {
                max_retries: r.max_retries,
                backoff: secs("[workflows.retry].backoff_s", r.backoff_s, false)?,
                resume: match r.resume.as_str() {
                    "cached" => Resume::Cached,
                    "from-scratch" => Resume::FromScratch,
                    other => {
                        return Err(Error::input(format!(
                            "{at}: [workflows.retry].resume: unknown resume `{}`: expected \"cached\" (rerun only the failed step) or \"from-scratch\" (rerun the workflow, each step through the cache)",
                            shown(other)
                        )));
                    }
                },
            },
        };
        let mut cache_rules = Vec::with_capacity(file.policies.len());
        let mut parallel = Vec::with_capacity(file.policies.len());
        for (i, p) in file.policies.iter().enumerate() {
            let context = format!("{at}: [[policy]] #{} (\"{}\")", i + 1, shown(&p.name));
            // Both rules are resolved through the registry (DESIGN §14.8).
            let rules = self.workflow_rules;
            cache_rules.push(match &p.cache {
                None if w.cache.is_some() => CacheRule::Lru,
                None => CacheRule::Off,
                Some(name) => rules.eviction(name).map(|e| e.rule()).ok_or_else(|| {
                    Error::input(format!(
                        "{context}: cache: unknown cache rule `{}`{}: expected {}",
                        shown(name),
                        rules.evictions.hint(name),
                        rules.eviction_choices()
                    ))
                })?,
            });
            let k = p.parallel_k.unwrap_or(4);
            if k == 0 {
                return Err(Error::input(format!(
                    "{context}: parallel_k: expected at least 1 sub-job, got 0"
                )));
            }
            let name = p.parallel.as_deref().unwrap_or("off");
            let Some(entry) = rules.parallel(name) else {
                return Err(Error::input(format!(
                    "{context}: parallel: unknown rule `{}`{}: expected {}",
                    shown(name),
                    rules.parallels.hint(name),
                    rules.parallel_choices()
                )));
            };
            if !entry.splits() && p.parallel_k.is_some() {
                return Err(Error::input(format!(
                    "{context}: parallel_k: only with `parallel = \"fixed\"` or `\"fill\"` (this policy never splits a step)"
                )));
            }
            parallel.push(entry.rule(k));
        }
        check_steps_fit(&path, &trace, cluster, file.cluster.nodes.placement)?;
        Ok(Workflows {
            path,
            trace,
            trace_sha256,
            load,
            horizon,
            split_overhead,
            failure_p: w.failure_p,
            cache,
            retry,
            cache_rules,
            parallel,
            shape,
            memory: Estimate::default(),
        })
    }

    /// The `[service]`, validated by model mode's loader.
    fn service(
        &mut self,
        path: &Path,
        file: &SharedScenarioFile,
        svc: &ServiceSection,
        cluster: &ResolvedCluster,
        overrides: Overrides,
    ) -> Result<Service> {
        let at = path.display().to_string();
        let bad = |key: &str, msg: String| Error::input(format!("{at}: [service].{key}: {msg}"));
        let gpus = cluster.cluster.gpus();
        let max_gpus = svc.max_gpus.unwrap_or(gpus);
        if max_gpus == 0 {
            return Err(bad("max_gpus", "expected at least 1 GPU, got 0".into()));
        }
        if max_gpus > gpus {
            return Err(bad(
                "max_gpus",
                format!(
                    "{max_gpus} GPUs exceed the cluster's {gpus} GPUs ([cluster]): expected at most {gpus}"
                ),
            ));
        }
        let max_gpus = u32::try_from(max_gpus).unwrap_or(u32::MAX);
        let g = svc.gpus_per_job;
        if g == 0 {
            return Err(bad("gpus_per_job", "expected at least 1 GPU, got 0".into()));
        }
        if g > max_gpus {
            return Err(bad(
                "gpus_per_job",
                format!("{g} GPUs per job exceed max_gpus = {max_gpus}: no job could start"),
            ));
        }
        let largest = cluster.nodes.iter().copied().max().unwrap_or(0);
        if file.cluster.nodes.placement == Placement::Consolidate && g > largest {
            return Err(bad(
                "gpus_per_job",
                format!(
                    "{g} GPUs per job, but the largest node has {largest}: under `consolidate` placement a job's GPUs must all come from one node"
                ),
            ));
        }
        let priority = match svc.priority.as_str() {
            "equal" => Priority::Equal,
            "low" => Priority::Low,
            other => {
                return Err(bad(
                    "priority",
                    format!(
                        "unknown priority `{}`: expected \"equal\" (the service's jobs queue with everyone's) or \"low\" (it uses only GPUs no background job is waiting for)",
                        shown(other)
                    ),
                ));
            }
        };
        let preempt = match svc.preempt.as_str() {
            "checkpoint" => Preempt::Checkpoint,
            "restart" => Preempt::Restart,
            other => {
                return Err(bad(
                    "preempt",
                    format!(
                        "unknown preemption `{}`: expected \"checkpoint\" (progress kept) or \"restart\" (progress lost)",
                        shown(other)
                    ),
                ));
            }
        };
        let policies = file
            .policies
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let context = format!("{at}: [[policy]] #{} (\"{}\")", i + 1, shown(&p.name));
                match (&p.scheduler, &p.selector) {
                    (Some(scheduler), Some(selector)) => Ok(PolicySection {
                        name: p.name.clone(),
                        scheduler: scheduler.clone(),
                        selector: selector.clone(),
                        params: p.params.clone(),
                    }),
                    _ => Err(Error::input(format!(
                        "{context}: the [service] needs its `scheduler` and `selector` in every [[policy]] (as in model mode)"
                    ))),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let model_file = ScenarioFile {
            mode: None,
            name: file.name.clone(),
            seed: file.seed,
            repetitions: file.repetitions,
            thresholds: file.thresholds.clone(),
            horizon_s: file.horizon_s,
            baseline: file.baseline.clone(),
            trace: svc.trace.clone(),
            split: svc.split.clone(),
            cluster: ClusterSection {
                gpus: Some(gpus),
                nodes: None,
                speed: svc.speed.clone(),
                model_speed: svc.model_speed.clone(),
                max_jobs_per_tenant: svc.max_jobs_per_tenant,
            },
            output: file.output.clone(),
            policies,
            arrivals: svc.arrivals.clone(),
            limits: svc.limits.clone(),
            fairness: file.fairness,
        };
        let how = Embedding {
            prefix: "service.",
            jobs_key: "[service]",
            cluster: Some(&cluster.cluster),
        };
        // The overrides are already in `file`; the plots one is the
        // output's. The memory check of the service's trace and tenants
        // takes the command's budget.
        let scenario = build_scenario_in(
            path,
            model_file,
            Overrides {
                memory: overrides.memory,
                ..Overrides::default()
            },
            &mut self.traces,
            self.models,
            how,
        )?;
        Ok(Service {
            scenario,
            max_gpus,
            gpus_per_job: g,
            priority,
            preempt,
        })
    }
}

/// Longest time a `[workflows]` key takes, seconds.
const MAX_KEY_S: f64 = 1.0e12;

/// Seconds → µs, rounded to the nearest (0 stays 0).
fn key_micros(s: f64) -> Micros {
    (s * 1.0e6).round() as Micros
}

/// Every step's GPUs fit the cluster (and, under `consolidate`, one node):
/// else it could never start and its workflow never end.
fn check_steps_fit(
    path: &Path,
    trace: &WorkflowTrace,
    cluster: &ResolvedCluster,
    placement: Placement,
) -> Result<()> {
    let total = cluster.cluster.gpus();
    let largest = u64::from(cluster.nodes.iter().copied().max().unwrap_or(0));
    let limit = if placement == Placement::Consolidate {
        largest
    } else {
        total
    };
    if let Some((s, step)) = trace
        .steps()
        .iter()
        .enumerate()
        .find(|(_, st)| u64::from(st.gpus) > limit)
    {
        let w = step.workflow;
        return Err(Error::input(format!(
            "{}: workflow `{}`, step `{}`: gpus: {} GPUs can never fit the cluster ({}): expected at most {limit}",
            path.display(),
            trace.workflow_id(w),
            trace.step_id(s as u32),
            step.gpus,
            if placement == Placement::Consolidate {
                format!("its largest node has {largest} GPUs under `consolidate` placement")
            } else {
                format!("{total} GPUs")
            }
        )));
    }
    Ok(())
}

/// The job-mode `[[policy]]` of shared policy `p`: its cluster scheduler
/// (`cluster_scheduler`, else `[cluster].scheduler`, else `fifo`) and the
/// keys of its `cluster` table.
fn cluster_policy_section(
    at: &str,
    index: usize,
    p: &SharedPolicySection,
    cluster: &SharedClusterSection,
) -> Result<JobPolicySection> {
    let context = format!("{at}: [[policy]] #{} (\"{}\")", index + 1, shown(&p.name));
    let scheduler = p
        .cluster_scheduler
        .clone()
        .or_else(|| cluster.scheduler.clone())
        .unwrap_or_else(|| "fifo".into());
    let mut params: BTreeMap<String, Value> = p.cluster.clone().into_iter().collect();
    let backfill = match params.remove("backfill") {
        None => None,
        Some(Value::Boolean(b)) => Some(b),
        Some(other) => {
            return Err(Error::input(format!(
                "{context}: cluster.backfill: expected true or false, got `{}`",
                shown(&other.to_string())
            )));
        }
    };
    for key in ["name", "scheduler"] {
        if params.contains_key(key) {
            return Err(Error::input(format!(
                "{context}: cluster.{key}: not a key of the cluster scheduler's table (name the cluster scheduler with `cluster_scheduler`)"
            )));
        }
    }
    Ok(JobPolicySection {
        name: p.name.clone(),
        scheduler,
        backfill,
        params,
    })
}

/// Round-based cluster schedulers need `round_s`, and a restore shorter
/// than a round (job mode's checks, for a scenario without `[jobs]`).
fn check_rounds(at: &str, cluster: &ResolvedCluster, policies: &[JobPolicy]) -> Result<()> {
    let Some((i, p)) = policies
        .iter()
        .enumerate()
        .find(|(_, p)| p.spec.needs_rounds)
    else {
        return Ok(());
    };
    match cluster.round {
        None => Err(Error::input(format!(
            "{at}: [cluster].round_s: [[policy]] #{} (\"{}\") uses cluster scheduler `{}`, which time-slices in rounds: set a round length, e.g. `round_s = 360` (Gavel's default)",
            i + 1,
            shown(&p.name),
            p.spec.name
        ))),
        Some(r) if cluster.restart_overhead >= r => Err(Error::input(format!(
            "{at}: [cluster].restart_overhead_s: {} s is not shorter than round_s = {} s, so [[policy]] #{} (\"{}\", cluster scheduler `{}`, which preempts at every boundary) could make no progress",
            cluster.restart_overhead as f64 / 1e6,
            r as f64 / 1e6,
            i + 1,
            shown(&p.name),
            p.spec.name
        ))),
        Some(_) => Ok(()),
    }
}

fn check_top_level(at: &str, f: &SharedScenarioFile) -> Result<()> {
    if f.mode != "shared" {
        return Err(Error::input(format!(
            "{at}: mode: expected \"shared\" in a shared-cluster scenario, got \"{}\"",
            shown(&f.mode)
        )));
    }
    let names: Vec<&str> = f.policies.iter().map(|p| p.name.as_str()).collect();
    check_common(
        at,
        &f.name,
        f.repetitions,
        &names,
        "name, the service's scheduler and selector, and optionally cluster_scheduler",
    )?;
    if f.service.is_none() && f.jobs.is_none() && f.workflows.is_none() {
        return Err(Error::input(format!(
            "{at}: expected a [service] (the model-selection service), a [jobs] (the background job trace), a [workflows] (workflow DAGs) or several: the cluster has no workload"
        )));
    }
    if f.workflows.is_none()
        && let Some((i, p, key)) = f.policies.iter().enumerate().find_map(|(i, p)| {
            [
                ("cache", p.cache.is_some()),
                ("parallel", p.parallel.is_some()),
                ("parallel_k", p.parallel_k.is_some()),
            ]
            .into_iter()
            .find(|(_, set)| *set)
            .map(|(k, _)| (i, p, k))
        })
    {
        return Err(Error::input(format!(
            "{at}: [[policy]] #{} (\"{}\"): {key}: a key of the workflows, and this scenario has no [workflows]",
            i + 1,
            shown(&p.name)
        )));
    }
    if f.service.is_none()
        && let Some((i, p)) =
            f.policies.iter().enumerate().find(|(_, p)| {
                p.scheduler.is_some() || p.selector.is_some() || !p.params.is_empty()
            })
    {
        return Err(Error::input(format!(
            "{at}: [[policy]] #{} (\"{}\"): `scheduler`, `selector` and their keys are the service's, and this scenario has no [service]: give `cluster_scheduler` (and its keys in `cluster = {{…}}`)",
            i + 1,
            shown(&p.name)
        )));
    }
    Ok(())
}
