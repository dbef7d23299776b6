//! The scenario file as written (serde model; unknown keys are errors).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A scenario file. See the README's scenario reference for every key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Label of the experiment; the default results folder is
    /// `results/<name>`.
    pub name: String,
    /// Seed of every random stream (default 0).
    #[serde(default)]
    pub seed: u64,
    /// Independent repetitions (default 1).
    #[serde(default = "default_repetitions")]
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
}

fn default_repetitions() -> u32 {
    1
}

fn default_thresholds() -> Vec<f64> {
    vec![0.05, 0.02, 0.01]
}

/// `[trace]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSection {
    /// Canonical trace CSV, relative to the scenario file.
    pub path: PathBuf,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_count: Option<usize>,
    /// Number of tenants sampled from the non-prior users per repetition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_count: Option<usize>,
}

/// `[cluster]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSection {
    /// Identical GPUs (at least 1).
    pub gpus: u32,
    /// Concurrent jobs per tenant (default 1: sequential model selection).
    #[serde(default = "default_max_jobs")]
    pub max_jobs_per_tenant: u32,
}

fn default_max_jobs() -> u32 {
    1
}

/// One `[[policy]]`: a labelled (scheduler, selector) pair and parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// Spacing of the time grid on which `curves.csv` samples L(τ).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GridKind {
    /// Geometric spacing (the default): equal ratios between neighbours.
    #[default]
    Log,
    /// Equal differences between neighbours.
    Linear,
}

/// `[output]`: aggregation over repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Spacing of the `curves.csv` time grid (default `log`).
    #[serde(default)]
    pub grid: GridKind,
    /// Points of the time grid (default 100, at least 2).
    #[serde(default = "default_grid_points")]
    pub grid_points: u32,
    /// Level of the Student-t confidence bands (default 0.95, in (0, 1)).
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// Lower and upper quantile of the inter-quantile band in `curves.csv`
    /// (default `[0.25, 0.75]`).
    #[serde(default = "default_quantiles")]
    pub quantiles: Vec<f64>,
}

impl Default for OutputSection {
    fn default() -> Self {
        Self {
            grid: GridKind::default(),
            grid_points: default_grid_points(),
            confidence: default_confidence(),
            quantiles: default_quantiles(),
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
