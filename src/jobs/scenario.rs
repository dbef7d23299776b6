//! The `mode = "jobs"` scenario (DESIGN §9): its serde model (unknown keys
//! are errors) and its validated form.
//!
//! ```toml
//! mode = "jobs"
//! name = "fifo-vs-las"
//! seed = 1                      # default 0
//! repetitions = 1               # default 1
//! [jobs]
//! path = "jobs.csv"             # relative to the scenario file
//! # sample = 1000               # optional: jobs drawn per repetition
//! # arrival_scale = 0.5         # optional: submit times × this (load knob)
//! # speeds = "speeds.csv"       # optional: group,gpu_type,speed (§11.2)
//! [cluster]
//! nodes = 2                     # either nodes × gpus_per_node ...
//! gpus_per_node = 4
//! # nodes = [{type = "v100", count = 2, gpus_per_node = 4}]  # ... typed groups
//! # node_list = "nodes.csv"     # ... or a node list CSV
//! placement = "consolidate"     # or "spread" (default consolidate)
//! backfill = false              # default false
//! # restart_overhead_s = 0.0    # preemptive schedulers: restore time
//! # round_s = 360               # decide in rounds (DESIGN §11.3); default event-driven
//! [[policy]]
//! name = "fifo"
//! scheduler = "fifo"            # fifo | sjf | srtf | las | fair-share | ftf | max-min-fairness
//! # backfill = true            # optional: overrides [cluster].backfill
//! # type_policy = "fastest"     # agnostic (default) | fastest | fastest-or-wait
//! # max_wait_s = 3600           # fastest-or-wait: the wait bound
//! [output]                      # optional
//! plots = true                  # figures in plots/ (default true)
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::seq::index::sample;
use serde::{Deserialize, Serialize};

use super::footprint::{self, JobRuns, JobTraceShape, job_trace_shape};
use super::policy::{JobRegistry, JobSchedulerEntry, Params};
use super::sim::JobSchedulerFactory;
use super::sim::cluster::Placement;
use super::sim::simulation::first_unplaceable;
use super::sim::type_policy::{JobTypes, TypePolicy};
use super::trace::{Job, JobTrace, parse_job_trace};
use super::typing::{load_speed_table, resolve_job_types};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::{
    ClusterSpec, NodesField, check_cpus_per_node, groups_to_spec, load_node_list,
};
use crate::core::io::echo::shown_number;
use crate::core::io::hashed_input::HashedInput;
use crate::core::io::scenario::{
    Overrides, check_common, read_scenario_text, resolve_baseline, toml_error,
};
use crate::core::limits::{MAX_GPUS_PER_NODE, MAX_NODES, grouped};
use crate::core::memory::{Estimate, Held, MemoryBudget, check, check_file_size};
use crate::core::run::identity::hex;
use crate::core::run::sweep::{Expand, Plan, expand_plan};
use crate::core::sim::rng::{Purpose, stream};
use crate::core::sim::time::{MAX_RUNTIME_S, Micros, secs_to_micros};

/// A job-mode scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobScenarioFile {
    /// Always `"jobs"`.
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
    /// The policy the others are compared with (its name; default the
    /// first `[[policy]]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The job trace.
    pub jobs: JobsSection,
    /// The cluster.
    pub cluster: JobClusterSection,
    /// Policies to compare (`[[policy]]`, at least one).
    #[serde(rename = "policy", default)]
    pub policies: Vec<JobPolicySection>,
    /// What the results folder gets besides the CSVs (`[output]`,
    /// optional).
    #[serde(default)]
    pub output: JobOutputSection,
}

fn one() -> u32 {
    1
}

/// `[output]` of a job-mode scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobOutputSection {
    /// Draw the figures (utilisation timeline, and the JCT CDF with
    /// `--jobs`) into the results folder's `plots/` (default true).
    #[serde(default = "yes")]
    pub plots: bool,
    /// Level of the confidence interval of the mean over repetitions in the
    /// terminal summary, `--json` and `sweep.csv` (default 0.95).
    #[serde(default = "level_95")]
    pub confidence: f64,
}

fn level_95() -> f64 {
    0.95
}

fn yes() -> bool {
    true
}

impl Default for JobOutputSection {
    fn default() -> Self {
        Self {
            plots: true,
            confidence: level_95(),
        }
    }
}

/// `[jobs]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobsSection {
    /// Job trace CSV, relative to the scenario file.
    pub path: PathBuf,
    /// Jobs drawn (uniformly, without replacement) in each repetition;
    /// drawn jobs keep their file order. Default: every job.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::jobs"
    )]
    pub sample: Option<usize>,
    /// Multiply every submit time by this (> 0; < 1 raises the load).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_scale: Option<f64>,
    /// A speed table CSV `group,gpu_type,speed` (relative to the scenario
    /// file; typed clusters only, DESIGN §11.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speeds: Option<PathBuf>,
}

/// `[cluster]` of a job-mode scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobClusterSection {
    /// Number of identical nodes (with `gpus_per_node`; at most
    /// [`crate::core::limits::MAX_NODES`]), or typed node groups
    /// `[{type = "v100", count = 4, gpus_per_node = 8}, …]` (without
    /// `gpus_per_node`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<NodesField>,
    /// GPUs per node (with `nodes`; at most
    /// [`crate::core::limits::MAX_GPUS_PER_NODE`]).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::gpus_per_node"
    )]
    pub gpus_per_node: Option<u64>,
    /// A node list CSV instead (relative to the scenario file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_list: Option<PathBuf>,
    /// CPUs per node (DESIGN §14.6): every node's, unless its group or the
    /// node list gives its own. Absent or 0 (with none given elsewhere):
    /// CPUs are not counted.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::cpus_per_node"
    )]
    pub cpus_per_node: Option<u64>,
    /// Placement rule (default `consolidate`).
    #[serde(default = "consolidate")]
    pub placement: Placement,
    /// Whether a job that does not fit lets later jobs start (default false).
    #[serde(default)]
    pub backfill: bool,
    /// Restore time paid on each resumption after a preemption, seconds.
    #[serde(default)]
    pub restart_overhead_s: f64,
    /// Round length, seconds: schedulers decide only at round boundaries
    /// (DESIGN §11.3). Absent: event-driven (the default, exact mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_s: Option<f64>,
}

fn consolidate() -> Placement {
    Placement::Consolidate
}

/// One `[[policy]]` of a job-mode scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "JobPolicyTable")]
pub struct JobPolicySection {
    /// Label used in every output.
    pub name: String,
    /// Scheduler name.
    pub scheduler: String,
    /// Overrides `[cluster].backfill` for this policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backfill: Option<bool>,
    /// Scheduler parameters; each scheduler rejects keys it does not know.
    #[serde(flatten)]
    pub params: BTreeMap<String, toml::Value>,
}

/// A job-mode `[[policy]]` as read, before its required keys are
/// checked: a misspelt one is then named with what is missing
/// ([`crate::core::io::scenario::missing_policy_key`]).
#[derive(Deserialize)]
struct JobPolicyTable {
    name: Option<String>,
    scheduler: Option<String>,
    #[serde(default)]
    backfill: Option<bool>,
    #[serde(flatten)]
    params: BTreeMap<String, toml::Value>,
}

impl TryFrom<JobPolicyTable> for JobPolicySection {
    type Error = String;

    fn try_from(t: JobPolicyTable) -> std::result::Result<Self, String> {
        let missing = |key: &str| {
            crate::core::io::scenario::missing_policy_key(
                t.name.as_deref(),
                key,
                t.params.keys().map(String::as_str),
            )
        };
        match (&t.name, &t.scheduler) {
            (Some(name), Some(scheduler)) => Ok(Self {
                name: name.clone(),
                scheduler: scheduler.clone(),
                backfill: t.backfill,
                params: t.params,
            }),
            (None, _) => Err(missing("name")),
            (_, None) => Err(missing("scheduler")),
        }
    }
}

/// One validated policy.
#[derive(Clone)]
pub struct JobPolicy {
    /// Label.
    pub name: String,
    /// The scheduler's registry entry.
    pub spec: Arc<JobSchedulerEntry>,
    /// Backfilling for this policy.
    pub backfill: bool,
    /// How a job's GPU type is chosen (`type_policy`, `max_wait_s`).
    pub type_policy: TypePolicy,
    /// Builds the scheduler of each run.
    pub make: JobSchedulerFactory,
}

impl std::fmt::Debug for JobPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobPolicy")
            .field("name", &self.name)
            .field("scheduler", &self.spec.name)
            .field("backfill", &self.backfill)
            .field("type_policy", &self.type_policy)
            .finish_non_exhaustive()
    }
}

/// A validated job-mode scenario, its trace and node list loaded.
#[derive(Debug, Clone)]
pub struct JobScenario {
    /// The scenario file.
    pub path: PathBuf,
    /// The file after command-line overrides.
    pub file: JobScenarioFile,
    /// The job trace file.
    pub trace_path: PathBuf,
    /// SHA-256 of the job trace file, hex.
    pub trace_sha256: String,
    /// The job trace.
    pub trace: Arc<JobTrace>,
    /// The node list file, if any.
    pub node_list_path: Option<PathBuf>,
    /// GPUs per node.
    pub nodes: Vec<u32>,
    /// CPUs per node (DESIGN §14.6); empty when CPUs are not counted.
    pub cpus: Vec<u32>,
    /// The cluster: nodes, their GPU types and counts (DESIGN §11).
    pub cluster: ClusterSpec,
    /// On a typed cluster: every trace job's allowed types and per-type
    /// durations (by trace index; DESIGN §11.2). `None` when untyped.
    pub job_types: Option<Arc<JobTypes>>,
    /// The speed table file, if any.
    pub speeds_path: Option<PathBuf>,
    /// What the type resolution ignored (unknown type names).
    pub type_warnings: Vec<String>,
    /// Placement rule.
    pub placement: Placement,
    /// Restore time after a preemption, µs.
    pub restart_overhead: Micros,
    /// Round length in rounds mode, µs (`[cluster].round_s`); `None`:
    /// event-driven.
    pub round: Option<Micros>,
    /// Policies in file order.
    pub policies: Vec<JobPolicy>,
    /// Index of the baseline policy (`baseline`, default 0).
    pub baseline: usize,
    /// The memory estimate the scenario passed (DESIGN §8.5,
    /// [`super::footprint`]); `None` where the trace could not be scanned
    /// before it was read (the reader then said why).
    pub memory: Option<Estimate>,
}

/// The jobs of one repetition.
#[derive(Debug, Clone)]
pub struct RepJobs {
    /// Jobs as simulated (sampled, arrival-scaled).
    pub jobs: Vec<Job>,
    /// Trace index of each.
    pub index: Vec<u32>,
    /// Their allowed types and per-type durations (typed clusters).
    pub types: Option<JobTypes>,
}

impl JobScenario {
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
    /// GPUs in the cluster.
    pub fn gpus(&self) -> u64 {
        self.nodes.iter().map(|&g| u64::from(g)).sum()
    }
    /// The bytes of the memory estimate it passed (DESIGN §8.5), if any.
    pub fn memory_estimate(&self) -> Option<u64> {
        self.memory.as_ref().map(Estimate::total)
    }
    /// Whether repetitions differ (something is randomised).
    pub fn is_randomised(&self) -> bool {
        self.file.jobs.sample.is_some()
    }

    /// The jobs of repetition `rep`: the sample of `(seed, rep)` (the
    /// `split` stream; kept in file order), with submit times scaled.
    pub fn rep_jobs(&self, rep: u64) -> RepJobs {
        let all = self.trace.jobs();
        let index: Vec<u32> = match self.file.jobs.sample {
            Some(k) if k < all.len() => {
                let mut rng = stream(self.seed(), rep, Purpose::Split);
                let mut v: Vec<u32> = sample(&mut rng, all.len(), k)
                    .into_iter()
                    .map(|i| i as u32)
                    .collect();
                v.sort_unstable();
                v
            }
            _ => (0..all.len() as u32).collect(),
        };
        let scale = self.file.jobs.arrival_scale;
        let jobs = index
            .iter()
            .map(|&i| {
                let mut j = all[i as usize];
                if let Some(s) = scale {
                    j.submit = (j.submit as f64 * s).round() as Micros;
                }
                j
            })
            .collect();
        let types = self.job_types.as_ref().map(|t| t.select(&index));
        RepJobs { jobs, index, types }
    }
}

/// Read, parse and validate the job-mode scenario at `path`.
pub fn load_job_scenario(path: &Path, overrides: Overrides) -> Result<JobScenario> {
    let text = read_scenario_text(path)?;
    parse_job_scenario(path, &text, overrides)
}

/// Read the job-mode scenario at `path` and expand its `[sweep]`, if any
/// ([`crate::core::run::sweep`]); the points share one copy of each job trace.
pub fn load_job_plan(path: &Path, overrides: Overrides) -> Result<Plan<JobScenario>> {
    load_job_plan_with(path, overrides, &JobRegistry::builtin())
}

/// [`load_job_plan`] with the schedulers named in `registry`.
pub fn load_job_plan_with(
    path: &Path,
    overrides: Overrides,
    registry: &JobRegistry,
) -> Result<Plan<JobScenario>> {
    let text = read_scenario_text(path)?;
    let mut docs = JobDocs {
        cache: JobTraceCache::default(),
        registry,
    };
    expand_plan(&mut docs, path, &text, overrides)
}

/// Job-mode scenario documents, their traces read once.
#[derive(Debug)]
struct JobDocs<'a> {
    cache: JobTraceCache,
    registry: &'a JobRegistry,
}

impl Expand<JobScenarioFile, JobScenario> for JobDocs<'_> {
    fn plain(&mut self, path: &Path, text: &str, overrides: Overrides) -> Result<JobScenario> {
        let at = path.display().to_string();
        let file: JobScenarioFile = toml::from_str(text).map_err(|e| toml_error(&at, &e))?;
        build_job_scenario(path, file, overrides, &mut self.cache, self.registry)
    }

    fn deserialize(&mut self, doc: toml::Table) -> Result<JobScenarioFile> {
        JobScenarioFile::deserialize(toml::Value::Table(doc)).map_err(|e| {
            Error::input(crate::core::io::echo::capped_lines(
                &e.to_string().trim_end().replace('\n', " "),
            ))
        })
    }

    fn build(
        &mut self,
        path: &Path,
        file: JobScenarioFile,
        overrides: Overrides,
    ) -> Result<JobScenario> {
        build_job_scenario(path, file, overrides, &mut self.cache, self.registry)
    }
}

/// Parse and validate job-mode scenario `text` as if read from `path`.
pub fn parse_job_scenario(path: &Path, text: &str, overrides: Overrides) -> Result<JobScenario> {
    let at = path.display().to_string();
    let file: JobScenarioFile = toml::from_str(text).map_err(|e| toml_error(&at, &e))?;
    build_job_scenario(
        path,
        file,
        overrides,
        &mut JobTraceCache::default(),
        &JobRegistry::builtin(),
    )
}

/// Job traces already read, by path, so the points of a sweep share one
/// copy of each.
#[derive(Debug, Default)]
pub struct JobTraceCache {
    loaded: HashMap<PathBuf, (Arc<JobTrace>, String)>,
    /// Bytes the points loaded so far keep until the end, by their
    /// estimates (their distinct traces): the memory check of the next
    /// point counts them (DESIGN §8.5).
    earlier: u64,
    /// The shape of each trace scanned so far, by path: the points of a
    /// sweep scan a trace once.
    shapes: HashMap<PathBuf, Option<JobTraceShape>>,
}

impl JobTraceCache {
    /// The memory estimate of a point reading the trace at `path` with
    /// `runs`, checked against `budget` before the trace is read, counting
    /// what earlier points keep (a trace already read is not counted
    /// twice); then remember what this one keeps. `None` when the trace
    /// cannot be scanned (the reader then says why).
    fn check_memory(
        &mut self,
        at: &str,
        path: &Path,
        runs: impl FnOnce(u64) -> JobRuns,
        budget: &MemoryBudget,
    ) -> Result<Option<Estimate>> {
        let shape = match self.shapes.get(path) {
            Some(shape) => *shape,
            None => {
                check_file_size(at, "job trace", path, budget)?;
                let shape = job_trace_shape(path);
                self.shapes.insert(path.to_path_buf(), shape);
                shape
            }
        };
        let Some(shape) = shape else {
            return Ok(None);
        };
        let mut estimate = footprint::estimate(&shape, &runs(shape.rows), budget);
        if self.loaded.contains_key(path) {
            estimate = estimate.without(Held::Shared);
        }
        estimate.add_held(
            "kept by the sweep's earlier points (job traces)",
            self.earlier,
            Held::Shared,
        );
        check(at, &estimate, budget)?;
        self.earlier = estimate.total_held(Held::Shared);
        Ok(Some(estimate))
    }

    /// The job trace at `path` and its SHA-256, read and validated on first
    /// use (`at` names the scenario in messages).
    fn get(&mut self, at: &str, path: &Path) -> Result<(Arc<JobTrace>, String)> {
        if let Some(hit) = self.loaded.get(path) {
            return Ok(hit.clone());
        }
        // Parsed as it is read, and hashed as it passes (the file is
        // never held whole: core/io/hashed_input.rs).
        let mut input = HashedInput::open(path, "job trace")
            .map_err(|e| e.context(format!("{at}: [jobs].path")))?;
        let trace = Arc::new(parse_job_trace(&path.display().to_string(), &mut input)?);
        let sha256 = hex(&input.finish()?);
        self.loaded
            .insert(path.to_path_buf(), (Arc::clone(&trace), sha256.clone()));
        Ok((trace, sha256))
    }
}

/// Validate a deserialised job-mode scenario `file` read from `path`: apply
/// the overrides, check every key, load the job trace (through `cache`)
/// and the node list, and resolve the policies.
pub fn build_job_scenario(
    path: &Path,
    mut file: JobScenarioFile,
    overrides: Overrides,
    cache: &mut JobTraceCache,
    registry: &JobRegistry,
) -> Result<JobScenario> {
    let at = path.display().to_string();
    overrides.apply(
        &mut file.seed,
        &mut file.repetitions,
        &mut file.output.plots,
    );
    check_top_level(&at, &file)?;
    let base = path.parent().unwrap_or(Path::new(""));

    let ResolvedCluster {
        cluster,
        node_list_path,
        nodes,
        cpus,
        restart_overhead,
        round,
    } = resolve_cluster(&at, base, &file.cluster)?;
    let c = &file.cluster;
    let trace_path = base.join(&file.jobs.path);
    // Limits from memory (DESIGN §8.5): the estimate, from one streaming
    // pass over the trace, before it is read.
    let memory = cache.check_memory(
        &at,
        &trace_path,
        |rows| JobRuns {
            jobs: file.jobs.sample.map_or(rows, |k| (k as u64).min(rows)),
            tasks: u64::from(file.repetitions).saturating_mul(file.policies.len() as u64),
            types: cluster.types().len() as u64 * u64::from(cluster.is_typed()),
            // In rounds a scheduler may move a job each round; an unknown
            // scheduler is refused below, counted as preemptive here.
            preemptive: round.is_some()
                || file.policies.iter().any(|p| {
                    registry
                        .scheduler(&p.scheduler)
                        .is_none_or(|s| s.preemptive)
                }),
        },
        &overrides.memory,
    )?;
    let (trace, trace_sha256) = cache.get(&at, &trace_path)?;
    if let Some(k) = file.jobs.sample
        && (k == 0 || k > trace.len())
    {
        return Err(Error::input(format!(
            "{at}: [jobs].sample: expected 1 to {} jobs (the trace has {}), got {k}",
            trace.len(),
            trace.len()
        )));
    }
    if let Some(s) = file.jobs.arrival_scale
        && !(s.is_finite() && s > 0.0 && s <= 1.0e6)
    {
        return Err(Error::input(format!(
            "{at}: [jobs].arrival_scale: expected a factor > 0 and <= 1e6, got {s}"
        )));
    }
    let placement = c.placement;
    let speeds_path = file.jobs.speeds.as_ref().map(|p| base.join(p));
    let (job_types, type_warnings) = if cluster.is_typed() {
        let speeds = match &speeds_path {
            Some(p) => {
                Some(load_speed_table(p).map_err(|e| e.context(format!("{at}: [jobs].speeds")))?)
            }
            None => None,
        };
        let r = resolve_job_types(&trace, &cluster, placement, speeds.as_ref())?;
        (Some(Arc::new(r.jobs)), r.warnings)
    } else {
        if file.jobs.speeds.is_some() {
            return Err(Error::input(format!(
                "{at}: [jobs].speeds: a speed table needs a typed cluster (`nodes = [{{type = …}}]` or a node list with a type column)"
            )));
        }
        (None, Vec::new())
    };
    if job_types.is_none()
        && let Some(j) = first_unplaceable(trace.jobs(), &nodes, placement)
    {
        let largest = nodes.iter().copied().max().unwrap_or(0);
        let total: u64 = nodes.iter().map(|&g| u64::from(g)).sum();
        let why = match placement {
            Placement::Consolidate => format!(
                "the largest node has {largest}: under `consolidate` placement a job's GPUs must all come from one node"
            ),
            Placement::Spread => format!("the cluster has only {total}"),
        };
        return Err(Error::input(format!(
            "{}: line {}: job `{}` needs {} GPUs but {why}",
            trace.source(),
            trace.line(j),
            trace.ids()[j],
            trace.jobs()[j].gpus
        )));
    }
    check_cpu_fit(&trace, &cluster, &cpus, job_types.as_deref(), placement)?;
    let default_backfill = c.backfill;
    let policies = file
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| resolve_policy(&at, i, p, default_backfill, registry))
        .collect::<Result<Vec<_>>>()?;
    let time_sliced = policies
        .iter()
        .enumerate()
        .find(|(_, p)| p.spec.needs_rounds);
    if let (Some(r), Some((i, p))) = (round, time_sliced)
        && restart_overhead >= r
    {
        // A job resumed at a boundary would spend the whole round
        // restoring and could be preempted again without progress, forever.
        return Err(Error::input(format!(
            "{at}: [cluster].restart_overhead_s: {} s is not shorter than round_s = {} s, so [[policy]] #{} (\"{}\", scheduler `{}`, which preempts at every boundary) could make no progress",
            restart_overhead as f64 / 1e6,
            r as f64 / 1e6,
            i + 1,
            crate::core::io::echo::shown(&p.name),
            p.spec.name
        )));
    }
    if round.is_none()
        && let Some((i, p)) = time_sliced
    {
        return Err(Error::input(format!(
            "{at}: [cluster].round_s: [[policy]] #{} (\"{}\") uses scheduler `{}`, which time-slices in rounds: set a round length, e.g. `round_s = 360` (Gavel's default)",
            i + 1,
            crate::core::io::echo::shown(&p.name),
            p.spec.name
        )));
    }
    let names: Vec<&str> = policies.iter().map(|p| p.name.as_str()).collect();
    let baseline = resolve_baseline(&at, file.baseline.as_deref(), &names)?;
    Ok(JobScenario {
        baseline,
        path: path.to_path_buf(),
        file,
        trace_path,
        trace_sha256,
        trace,
        node_list_path,
        nodes,
        cpus,
        cluster,
        job_types,
        speeds_path,
        type_warnings,
        placement,
        restart_overhead,
        round,
        policies,
        memory,
    })
}

/// The CPU checks of a job trace on its cluster (DESIGN §14.6): a job of 0
/// GPUs needs a cluster that counts CPUs, and with CPUs counted every job
/// must fit an empty cluster by both resources
/// ([`first_unfit_cpus`](super::sim::simulation::first_unfit_cpus)).
/// Errors name the trace's line and job and what the cluster has.
pub fn check_cpu_fit(
    trace: &JobTrace,
    cluster: &ClusterSpec,
    cpus: &[u32],
    job_types: Option<&JobTypes>,
    placement: Placement,
) -> Result<()> {
    let at = |j: usize| {
        format!(
            "{}: line {}: job `{}`",
            trace.source(),
            trace.line(j),
            crate::core::io::echo::shown(&trace.ids()[j])
        )
    };
    if cpus.is_empty() {
        if let Some(j) = trace.jobs().iter().position(|j| j.gpus == 0) {
            return Err(Error::input(format!(
                "{} needs 0 GPUs and {} CPUs, but the cluster does not count CPUs: set `[cluster].cpus_per_node` (DESIGN §14.6)",
                at(j),
                trace.jobs()[j].cpus
            )));
        }
        return Ok(());
    }
    let nodes = cluster.capacities();
    let node_types = if cluster.is_typed() {
        cluster.node_types()
    } else {
        Vec::new()
    };
    if let Some(j) = super::sim::simulation::first_unfit_cpus(
        trace.jobs(),
        &nodes,
        cpus,
        &node_types,
        job_types,
        placement,
    ) {
        let job = trace.jobs()[j];
        let why = match placement {
            Placement::Consolidate => {
                let best = cluster
                    .nodes()
                    .iter()
                    .filter(|n| n.gpus >= job.gpus)
                    .map(|n| n.cpus)
                    .max();
                match best {
                    Some(c) => format!(
                        "no node of the types it may use has both: under `consolidate` placement they come from one node, and the nodes with {} GPUs or more have at most {c} CPUs",
                        job.gpus
                    ),
                    None => "no node has that many GPUs".to_string(),
                }
            }
            Placement::Spread => format!(
                "the nodes of the types it may use do not have both: the cluster has {} GPUs and {} CPUs",
                cluster.gpus(),
                cluster.cpus()
            ),
        };
        return Err(Error::input(format!(
            "{} needs {} GPUs and {} CPUs, but {why}",
            at(j),
            job.gpus,
            job.cpus
        )));
    }
    Ok(())
}

/// A `[cluster]` table of job mode's keys, resolved.
#[derive(Debug, Clone)]
pub struct ResolvedCluster {
    /// Nodes, their GPU types and counts.
    pub cluster: ClusterSpec,
    /// The node list file, if any.
    pub node_list_path: Option<PathBuf>,
    /// GPUs per node.
    pub nodes: Vec<u32>,
    /// CPUs per node (DESIGN §14.6); empty when CPUs are not counted.
    pub cpus: Vec<u32>,
    /// Restore time after a preemption, µs.
    pub restart_overhead: Micros,
    /// Round length, µs (`None`: event-driven).
    pub round: Option<Micros>,
}

/// Resolve a `[cluster]` table of job mode's keys (`nodes` and
/// `gpus_per_node`, typed node groups or `node_list`, `restart_overhead_s`,
/// `round_s`); `base` is the scenario's folder. Shared scenarios use it too
/// (DESIGN §13.4).
pub fn resolve_cluster(at: &str, base: &Path, c: &JobClusterSection) -> Result<ResolvedCluster> {
    let at = at.to_string();
    let bad = |field: &str, msg: String| Error::input(format!("{at}: [cluster].{field}: {msg}"));
    let (cluster, node_list_path) = match (&c.nodes, c.gpus_per_node, &c.node_list) {
        (Some(NodesField::Count(n)), Some(g), None) => {
            let n = *n;
            if n == 0 {
                return Err(bad("nodes", "expected at least 1 node, got 0".into()));
            }
            if g == 0 {
                return Err(bad(
                    "gpus_per_node",
                    "expected at least 1 GPU, got 0".into(),
                ));
            }
            if n > MAX_NODES {
                return Err(bad(
                    "nodes",
                    format!(
                        "{} nodes exceed the limit of {} nodes",
                        grouped(n),
                        grouped(MAX_NODES)
                    ),
                ));
            }
            if g > MAX_GPUS_PER_NODE {
                return Err(bad(
                    "gpus_per_node",
                    format!(
                        "{} GPUs per node exceed the limit of {} GPUs per node",
                        grouped(g),
                        grouped(MAX_GPUS_PER_NODE)
                    ),
                ));
            }
            // Both within their limits, so each fits in a u32.
            (ClusterSpec::untyped(&vec![g as u32; n as usize]), None)
        }
        (Some(NodesField::Groups(groups)), None, None) => {
            (groups_to_spec(&at, "[cluster].nodes", groups)?, None)
        }
        (Some(NodesField::Groups(_)), Some(_), _) => {
            return Err(bad(
                "gpus_per_node",
                "with typed node groups, give `gpus_per_node` inside each group: `nodes = [{type = \"v100\", count = 4, gpus_per_node = 8}]`".into(),
            ));
        }
        (None, None, Some(p)) => {
            let p = base.join(p);
            let list =
                load_node_list(&p).map_err(|e| e.context(format!("{at}: [cluster].node_list")))?;
            (list, Some(p))
        }
        _ => {
            return Err(Error::input(format!(
                "{at}: [cluster]: give either `nodes` and `gpus_per_node`, typed node groups `nodes = [{{type = \"v100\", count = 4, gpus_per_node = 8}}, …]`, or `node_list`"
            )));
        }
    };
    let mut cluster = cluster;
    if let Some(c) = c.cpus_per_node {
        cluster.set_default_cpus(check_cpus_per_node(
            &format!("{at}: [cluster].cpus_per_node"),
            c,
        )?);
    }
    let nodes = cluster.capacities();
    let cpus = if cluster.counts_cpus() {
        cluster.cpu_capacities()
    } else {
        Vec::new()
    };
    let o = c.restart_overhead_s;
    if !(o.is_finite() && (0.0..=MAX_RUNTIME_S).contains(&o)) {
        return Err(bad(
            "restart_overhead_s",
            format!(
                "expected seconds >= 0 and <= {MAX_RUNTIME_S:e}, got {}",
                shown_number(o)
            ),
        ));
    }
    let restart_overhead = if o == 0.0 { 0 } else { secs_to_micros(o) };
    let round = match c.round_s {
        None => None,
        Some(r) if (1e-6..=MAX_RUNTIME_S).contains(&r) => Some(secs_to_micros(r)),
        Some(r) => {
            return Err(bad(
                "round_s",
                format!(
                    "expected a round length in seconds >= 1e-6 and <= {MAX_RUNTIME_S:e}, got {r}"
                ),
            ));
        }
    };

    Ok(ResolvedCluster {
        cluster,
        node_list_path,
        nodes,
        cpus,
        restart_overhead,
        round,
    })
}

fn check_top_level(at: &str, f: &JobScenarioFile) -> Result<()> {
    let bad = |field: &str, msg: String| Err(Error::input(format!("{at}: {field}: {msg}")));
    if f.mode != "jobs" {
        return bad(
            "mode",
            format!(
                "expected \"jobs\" in a job-trace scenario, got \"{}\"",
                f.mode
            ),
        );
    }
    let names: Vec<&str> = f.policies.iter().map(|p| p.name.as_str()).collect();
    check_common(at, &f.name, f.repetitions, &names, "name and scheduler")?;
    resolve_baseline(at, f.baseline.as_deref(), &names)?;
    let c = f.output.confidence;
    if !(c > 0.0 && c < 1.0) {
        return bad(
            "[output].confidence",
            format!(
                "expected a confidence level strictly between 0 and 1 (e.g. 0.95), got {}",
                shown_number(c)
            ),
        );
    }
    Ok(())
}

/// Resolve the `index`-th `[[policy]]` of a job-mode scenario (or the
/// cluster scheduler of a shared scenario's policy, DESIGN §13.4); `at`
/// names the scenario in messages.
pub fn resolve_policy(
    at: &str,
    index: usize,
    p: &JobPolicySection,
    default_backfill: bool,
    registry: &JobRegistry,
) -> Result<JobPolicy> {
    let context = format!(
        "{at}: [[policy]] #{} (\"{}\")",
        index + 1,
        crate::core::io::echo::shown(&p.name)
    );
    let spec = registry.scheduler(&p.scheduler).cloned().ok_or_else(|| {
        let shown = crate::core::io::echo::shown(&p.scheduler);
        Error::input(format!(
            "{context}: {}",
            registry.schedulers.unknown(&p.scheduler, &shown)
        ))
    })?;
    let mut params =
        Params::new(context, p.params.clone()).with_table_keys(&["name", "scheduler", "backfill"]);
    let type_policy = parse_type_policy(&mut params)?;
    let make = (spec.parse)(&mut params)?;
    params.finish(&format!("scheduler `{}`", spec.name))?;
    Ok(JobPolicy {
        name: p.name.clone(),
        spec,
        backfill: p.backfill.unwrap_or(default_backfill),
        type_policy,
        make,
    })
}

/// `type_policy` (default `agnostic`) and, for `fastest-or-wait`,
/// `max_wait_s` of a `[[policy]]` table.
fn parse_type_policy(params: &mut Params) -> Result<TypePolicy> {
    let name = params.string("type_policy", "agnostic")?;
    let max_wait = params.opt_f64("max_wait_s")?;
    let policy = match name.as_str() {
        "agnostic" => TypePolicy::Agnostic,
        "fastest" => TypePolicy::Fastest,
        "fastest-or-wait" => {
            let Some(w) = max_wait else {
                return Err(params.invalid(
                    "max_wait_s",
                    "`fastest-or-wait` needs `max_wait_s`, the seconds a job waits for its fastest GPU type",
                ));
            };
            if !(w.is_finite() && (0.0..=MAX_RUNTIME_S).contains(&w)) {
                return Err(params.invalid(
                    "max_wait_s",
                    format!(
                        "expected seconds >= 0 and <= {MAX_RUNTIME_S:e}, got {}",
                        shown_number(w)
                    ),
                ));
            }
            TypePolicy::FastestOrWait {
                max_wait: if w == 0.0 { 0 } else { secs_to_micros(w) },
            }
        }
        other => {
            return Err(params.invalid(
                "type_policy",
                format!(
                    "unknown type policy `{}`: expected agnostic, fastest or fastest-or-wait",
                    crate::core::io::echo::shown(other)
                ),
            ));
        }
    };
    if max_wait.is_some() && !matches!(policy, TypePolicy::FastestOrWait { .. }) {
        return Err(params.invalid(
            "max_wait_s",
            "only `type_policy = \"fastest-or-wait\"` takes `max_wait_s`",
        ));
    }
    Ok(policy)
}
