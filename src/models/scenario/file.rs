//! The scenario file as written (serde model; unknown keys are errors).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::core::io::by_name::{ByName, named_in_files};
use crate::core::io::cluster::NodeGroup;

/// A scenario file. See the scenario reference (docs/REFERENCE.md, "Scenario
/// reference") for every key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// `"models"` (the default); `"jobs"` scenarios are read by
    /// [`crate::jobs::scenario`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Label of the experiment; the default results folder is
    /// `results/<name>`.
    pub name: String,
    /// Seed of every random stream (default 0).
    #[serde(default, deserialize_with = "crate::core::io::whole::seed")]
    pub seed: u64,
    /// Independent repetitions (default 1).
    #[serde(
        default = "default_repetitions",
        deserialize_with = "crate::core::io::whole::repetitions"
    )]
    pub repetitions: u32,
    /// θ values for T(θ) and speedups (default `[0.05, 0.02, 0.01]`).
    #[serde(default = "default_thresholds")]
    pub thresholds: Vec<f64>,
    /// Stop simulated time here, seconds (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_s: Option<f64>,
    /// The policy every other is compared with in `speedups.csv`,
    /// `regret.csv` and the terminal summary (default: the first policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Which trace to replay.
    pub trace: TraceSection,
    /// How users split into prior users and tenants.
    #[serde(default)]
    pub split: SplitSection,
    /// The cluster.
    pub cluster: ClusterSection,
    /// How repetitions are aggregated (`[output]`, optional).
    #[serde(default)]
    pub output: OutputSection,
    /// The policies to compare (`[[policy]]`, at least one).
    #[serde(rename = "policy", default)]
    pub policies: Vec<PolicySection>,
    /// When tenants arrive (default: all at t = 0).
    #[serde(default, skip_serializing_if = "ArrivalsSection::is_default")]
    pub arrivals: ArrivalsSection,
    /// Per-tenant limits (default: none).
    #[serde(default, skip_serializing_if = "LimitsSection::is_default")]
    pub limits: LimitsSection,
    /// Also run every tenant alone on the cluster, for the fairness index
    /// over regret areas normalised by the isolated ones (default true).
    #[serde(default = "default_true")]
    pub fairness: bool,
}

fn default_true() -> bool {
    true
}

/// `[arrivals]`: when each tenant arrives. Sampled per repetition from the
/// repetition's own stream, identical for every policy of the repetition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivalsSection {
    /// `at-start` (default), `poisson`, `uniform` or `file`.
    #[serde(default = "default_arrival_kind")]
    pub kind: String,
    /// poisson: arrivals per hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_per_hour: Option<f64>,
    /// poisson: `shuffled` (default: the tenants' order drawn whole at
    /// the start) or `streamed` (drawn as they arrive; DESIGN §2.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// uniform: arrivals uniform over `[0, window_s]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_s: Option<f64>,
    /// file: CSV `user,arrival_s`, relative to the scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

/// `[arrivals] order`'s value for an order drawn as the tenants arrive.
pub const STREAMED: &str = "streamed";

fn default_arrival_kind() -> String {
    "at-start".into()
}

impl Default for ArrivalsSection {
    fn default() -> Self {
        Self {
            kind: default_arrival_kind(),
            rate_per_hour: None,
            order: None,
            window_s: None,
            path: None,
        }
    }
}

impl ArrivalsSection {
    /// Whether the tenants' order is drawn as they arrive (`poisson` with
    /// `order = "streamed"`, DESIGN §2.8); other values are refused when
    /// the section is read (`ArrivalPlan::from_section`).
    pub fn is_streamed(&self) -> bool {
        self.kind == "poisson" && self.order.as_deref() == Some(STREAMED)
    }

    fn is_default(&self) -> bool {
        self.kind == "at-start"
            && self.rate_per_hour.is_none()
            && self.order.is_none()
            && self.window_s.is_none()
            && self.path.is_none()
    }
}

/// `[limits]`: per-tenant limits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    /// GPU-seconds a tenant may use in total (completed plus running).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_gpu_s: Option<f64>,
    /// Jobs a tenant may start in total.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::jobs_per_tenant"
    )]
    pub max_jobs: Option<u32>,
    /// A tenant that completes no job within this many seconds of arriving
    /// leaves (abandons the service).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience_s: Option<f64>,
}

impl LimitsSection {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

fn default_repetitions() -> u32 {
    1
}

fn default_thresholds() -> Vec<f64> {
    vec![0.05, 0.02, 0.01]
}

/// `[trace]`: exactly one of `path` (a canonical trace CSV), `[trace.import]`
/// (convert a published table on the fly) or `[trace.syn]` (generate the
/// ease.ml synthetic workload in memory).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSection {
    /// Canonical trace CSV, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Import a published table when the scenario loads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<TraceImportSection>,
    /// Generate a synthetic trace when the scenario loads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syn: Option<TraceSynSection>,
    /// How a curve trace's `runtime_s` reads: `"from-scratch"` (default)
    /// or `"incremental"` (DESIGN §12.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<String>,
    /// Seconds a job pays to restore a checkpoint when it continues a model
    /// under `cost = "incremental"` (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_s: Option<f64>,
}

/// `[trace.import]`: the options of `tenantsim import`, with paths relative
/// to the scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceImportSection {
    /// `lcdb`, `fernandez-delgado`, `matrix` or `aslib`.
    pub format: String,
    /// Input files.
    pub inputs: Vec<PathBuf>,
    /// `measured` or `unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// lcdb: `test`, `valid` or `train`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<String>,
    /// lcdb: only data sets with every learner.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub complete_only: bool,
    /// matrix: runtime matrices, one per input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtime_matrix: Vec<PathBuf>,
    /// matrix: row label files, one per input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row_labels: Vec<PathBuf>,
    /// matrix: column label file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub col_labels: Option<PathBuf>,
    /// matrix: the token meaning "missing".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// Any format: a `model,model_year,model_citations` CSV joined on the
    /// imported model ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_metadata: Option<PathBuf>,
    /// aslib: the performance measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<String>,
}

/// `[trace.syn]`: the parameters of `tenantsim gen syn`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSynSection {
    /// Number of users.
    #[serde(deserialize_with = "crate::core::io::whole::users")]
    pub users: usize,
    /// Number of models.
    #[serde(deserialize_with = "crate::core::io::whole::models")]
    pub models: usize,
    /// S: SD of the model means around 0.5 (default 0.1).
    #[serde(default = "default_model_sd")]
    pub model_sd: f64,
    /// U: SD of a user's accuracy around the model mean (default 0.05).
    #[serde(default = "default_user_sd")]
    pub user_sd: f64,
    /// Runtime distribution (default `uniform(0,2)`).
    #[serde(default = "default_cost")]
    pub cost: String,
    /// Generator seed (default 0; independent of the scenario seed).
    #[serde(default, deserialize_with = "crate::core::io::whole::seed")]
    pub seed: u64,
    /// Fidelities per pair (default 1: the plain trace; L > 1: the curve
    /// trace of `gen syn --fidelities L`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::fidelities"
    )]
    pub fidelities: Option<usize>,
    /// How the trace's cells are held (default `auto`): `dense` (matrices,
    /// 17 bytes a pair), `lazy` (each user's row produced from (seed,
    /// user) when read, no byte a user; plain traces only), or `auto`
    /// (lazy above [`LAZY_ABOVE_CELLS`] pairs). Results are the same
    /// either way (DESIGN §1.2 "Per-user rows").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<SynRowsKind>,
}

/// Pairs (users × models) above which `[trace.syn] rows = "auto"` holds
/// the trace lazily: 5 × 10^7, 850 MB of dense cells (scale-1m's 2 × 10^7
/// stay dense, scale-year's 2 × 10^8 are lazy).
pub const LAZY_ABOVE_CELLS: u64 = 50_000_000;

/// `[trace.syn] rows`: how a generated trace's cells are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "lowercase")]
pub enum SynRowsKind {
    /// Lazy above [`LAZY_ABOVE_CELLS`] pairs, dense otherwise.
    Auto,
    /// Matrices held whole.
    Dense,
    /// Each user's row produced when read.
    Lazy,
}

impl ByName for SynRowsKind {
    const VALUES: &'static [Self] = &[Self::Auto, Self::Dense, Self::Lazy];
    const NAMES: &'static [&'static str] = &["auto", "dense", "lazy"];
}

named_in_files!(SynRowsKind);

impl TraceSynSection {
    /// Whether the trace is held lazily: `rows`, or for `auto` more than
    /// [`LAZY_ABOVE_CELLS`] pairs; never a curve trace (`fidelities` > 1).
    pub fn is_lazy(&self) -> bool {
        if self.fidelities.unwrap_or(1) > 1 {
            return false;
        }
        match self.rows.unwrap_or(SynRowsKind::Auto) {
            SynRowsKind::Dense => false,
            SynRowsKind::Lazy => true,
            SynRowsKind::Auto => {
                (self.users as u64).saturating_mul(self.models as u64) > LAZY_ABOVE_CELLS
            }
        }
    }
}

fn default_model_sd() -> f64 {
    0.1
}
fn default_user_sd() -> f64 {
    0.05
}
fn default_cost() -> String {
    "uniform(0,2)".into()
}

/// `[split]`: explicit user lists, or counts sampled afresh per repetition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSection {
    /// Prior (history) users by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior: Option<Vec<String>>,
    /// Tenants by id (default: every user not in the prior).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenants: Option<Vec<String>>,
    /// Fraction of users sampled as prior users in each repetition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_fraction: Option<f64>,
    /// Number of users sampled as prior users in each repetition.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::prior_users"
    )]
    pub prior_count: Option<usize>,
    /// Number of tenants sampled from the non-prior users per repetition.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::tenants"
    )]
    pub tenant_count: Option<usize>,
}

/// `[cluster]`: exactly one of `gpus` (identical GPUs) and `nodes` (typed
/// node groups, DESIGN §11.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSection {
    /// Identical GPUs (at least 1, at most [`crate::core::limits::MAX_GPUS`];
    /// read as a 64-bit number so that a huge value is reported against
    /// the limit).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::gpus"
    )]
    pub gpus: Option<u64>,
    /// Typed node groups, `[{type = "v100", count = 8}, {type = "k80",
    /// count = 4, gpus_per_node = 2}]`; GPUs are numbered node by node in
    /// this order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<NodeGroup>>,
    /// `[cluster.speed]`: per GPU type, the speed factor f (runtime on the
    /// type = runtime_s / f; default 1).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub speed: BTreeMap<String, f64>,
    /// `[cluster.model_speed.<type>]`: per GPU type, per model id, a speed
    /// factor that overrides `speed` for that model.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_speed: BTreeMap<String, BTreeMap<String, f64>>,
    /// Concurrent jobs per tenant (default 1: sequential model selection).
    #[serde(
        default = "default_max_jobs",
        deserialize_with = "crate::core::io::whole::jobs_per_tenant"
    )]
    pub max_jobs_per_tenant: u32,
}

fn default_max_jobs() -> u32 {
    1
}

/// One `[[policy]]`: a labelled (scheduler, selector) pair and parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PolicyTable")]
pub struct PolicySection {
    /// Label used in every output.
    pub name: String,
    /// User scheduler name.
    pub scheduler: String,
    /// Model selector name.
    pub selector: String,
    /// Scheduler and selector parameters; each policy rejects keys it does
    /// not know.
    #[serde(flatten)]
    pub params: BTreeMap<String, toml::Value>,
}

/// A `[[policy]]` as read, before its required keys are checked: a
/// misspelt one is then named with what is missing
/// ([`crate::core::io::scenario::missing_policy_key`]).
#[derive(Deserialize)]
struct PolicyTable {
    name: Option<String>,
    scheduler: Option<String>,
    selector: Option<String>,
    #[serde(flatten)]
    params: BTreeMap<String, toml::Value>,
}

impl TryFrom<PolicyTable> for PolicySection {
    type Error = String;

    fn try_from(t: PolicyTable) -> Result<Self, String> {
        let missing = |key: &str| {
            crate::core::io::scenario::missing_policy_key(
                t.name.as_deref(),
                key,
                t.params.keys().map(String::as_str),
            )
        };
        match (&t.name, &t.scheduler, &t.selector) {
            (Some(name), Some(scheduler), Some(selector)) => Ok(Self {
                name: name.clone(),
                scheduler: scheduler.clone(),
                selector: selector.clone(),
                params: t.params,
            }),
            (None, _, _) => Err(missing("name")),
            (_, None, _) => Err(missing("scheduler")),
            (_, _, None) => Err(missing("selector")),
        }
    }
}

/// Spacing of the time grid on which `curves.csv` samples L(τ).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "lowercase")]
pub enum GridKind {
    /// Geometric spacing (the default): equal ratios between neighbours.
    #[default]
    Log,
    /// Equal differences between neighbours.
    Linear,
}

impl ByName for GridKind {
    const VALUES: &'static [Self] = &[Self::Log, Self::Linear];
    const NAMES: &'static [&'static str] = &["log", "linear"];
}

named_in_files!(GridKind);

/// `[output]`: aggregation over repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Spacing of the `curves.csv` time grid (default `log`).
    #[serde(default)]
    pub grid: GridKind,
    /// Points of the time grid (default 100, at least 2).
    #[serde(
        default = "default_grid_points",
        deserialize_with = "crate::core::io::whole::grid_points"
    )]
    pub grid_points: u32,
    /// Level of the Student-t confidence bands (default 0.95, in (0, 1)).
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// Lower and upper quantile of the inter-quantile band in `curves.csv`
    /// (default `[0.25, 0.75]`).
    #[serde(default = "default_quantiles")]
    pub quantiles: Vec<f64>,
    /// Draw the figures (PNG and SVG) into the results folder's `plots/`
    /// at the end of the run (default true).
    #[serde(default = "default_true")]
    pub plots: bool,
    /// `[low, high]`: the θ range of the "up to" speedup
    /// (`speedups_up_to.csv`); default: the smallest to the largest of
    /// `thresholds`. 0 < low ≤ high ≤ 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_to_thetas: Option<Vec<f64>>,
}

impl Default for OutputSection {
    fn default() -> Self {
        Self {
            grid: GridKind::default(),
            grid_points: default_grid_points(),
            confidence: default_confidence(),
            quantiles: default_quantiles(),
            plots: true,
            up_to_thetas: None,
        }
    }
}

fn default_grid_points() -> u32 {
    100
}

fn default_confidence() -> f64 {
    0.95
}

fn default_quantiles() -> Vec<f64> {
    vec![0.25, 0.75]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_values_agree_with_the_derived_encoding() {
        crate::core::io::by_name::check::agrees::<SynRowsKind>();
        crate::core::io::by_name::check::agrees::<GridKind>();
    }
}
