//! `run.json`, the manifest of a results folder, in both modes: one type
//! ([`RunManifest`]: the fields every run has, and a mode-specific part)
//! rendered by one function ([`RunManifest::render`]). docs/REFERENCE.md
//! "Results folder" lists its fields. Read back through
//! [`ManifestDoc`](crate::core::io::manifest_doc::ManifestDoc), the one
//! reader.
//!
//! The keys of every object are written in sorted order (serde_json's
//! map), whatever the order of the fields below.

use serde::Serialize;
use serde_json::Value;

use crate::core::run::execution::Execution;

/// The git commit the binary was built from, or "unknown".
pub const GIT_COMMIT: &str = env!("TENANTSIM_GIT_COMMIT");

/// The fields of a model-mode `run.json` that may differ between two runs
/// of the same scenario with the same binary, as dotted paths (`[]` =
/// every element of a list): the paths are as given on the command line,
/// so they change with the working directory; the rest measures the run.
/// Every other field is identical. `run.json` lists them under
/// `varying_fields`.
pub const MODEL_VARYING_FIELDS: &[&str] = &[
    "scenario_path",
    "trace.path",
    "threads",
    "wall_time_s",
    "policies[].events_per_s",
    "policies[].time",
    "execution",
    "memory",
];

/// The same for a job-mode `run.json`: paths as given on the command line
/// (they change with the working directory) and measurements of the run.
pub const JOB_VARYING_FIELDS: &[&str] = &[
    "scenario_path",
    "job_trace.path",
    "cluster.node_list",
    "threads",
    "wall_time_s",
    "policies[].time",
    "execution",
    "memory",
];

/// `run.json`: what was run, with what, and how long it took.
#[derive(Debug, Clone, Serialize)]
pub struct RunManifest {
    /// `"tenantsim"`.
    pub tool: &'static str,
    /// The binary's version.
    pub version: &'static str,
    /// The scenario file, as given on the command line.
    pub scenario_path: String,
    /// The resolved scenario (after command-line overrides and sweep
    /// expansion, defaults filled in).
    pub scenario: Value,
    /// Seed.
    pub seed: u64,
    /// Repetitions.
    pub repetitions: u32,
    /// Worker threads used.
    pub threads: usize,
    /// Wall time (in a sweep, of the whole sweep), seconds.
    pub wall_time_s: f64,
    /// The fields that may differ between two runs of the same scenario
    /// ([`MODEL_VARYING_FIELDS`], [`JOB_VARYING_FIELDS`]).
    pub varying_fields: &'static [&'static str],
    /// The run's warnings.
    pub warnings: Vec<String>,
    /// In a sweep: the point's `index`, `folder` and swept `values`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep_point: Option<Value>,
    /// The memory the run took and the one it was estimated to need.
    pub memory: MemoryPart,
    /// What only one mode records.
    #[serde(flatten)]
    pub mode: ModePart,
}

/// The `memory` object of `run.json` (a varying field): what the run took
/// beside what the scenario's estimate said it would need (DESIGN §8.5),
/// so that a team sizing a service reads both from one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MemoryPart {
    /// The process's peak resident set when the folder was written, in
    /// bytes ([`crate::core::resources::peak_rss`]: the figure GNU time's
    /// `%M` gives in KB; in a sweep, of every point run so far; `null`
    /// where the system does not say).
    pub peak_rss_bytes: Option<u64>,
    /// The scenario's memory estimate in bytes (what `validate` states
    /// with the same flags, DESIGN §8.5; `null` where the mode makes none:
    /// a shared scenario's top level,
    /// whose service folder states the service's; and in merged results).
    pub estimate_bytes: Option<u64>,
}

impl MemoryPart {
    /// The peak measured now, beside `estimate` unless the tasks were
    /// merged from shards (`tenantsim merge` simulates nothing; each
    /// shard's folder states its own run's).
    pub fn measure(estimate: Option<u64>, execution: &Execution) -> Self {
        Self {
            peak_rss_bytes: crate::core::resources::peak_rss(),
            estimate_bytes: estimate.filter(|_| execution.merged == 0),
        }
    }
}

/// The mode-specific part of `run.json`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ModePart {
    /// Model mode.
    Models(ModelPart),
    /// Job mode.
    Jobs(JobPart),
}

/// What a model-mode `run.json` adds.
#[derive(Debug, Clone, Serialize)]
pub struct ModelPart {
    /// [`GIT_COMMIT`].
    pub git_commit: &'static str,
    /// The baseline policy's name.
    pub baseline: Option<String>,
    /// The trace.
    pub trace: ModelTrace,
    /// Per policy, in scenario order.
    pub policies: Vec<ModelPolicy>,
}

/// The trace of a model-mode run.
#[derive(Debug, Clone, Serialize)]
pub struct ModelTrace {
    /// As given.
    pub path: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Users.
    pub users: usize,
    /// Models.
    pub models: usize,
    /// (user, model) pairs.
    pub pairs: usize,
}

/// One policy of a model-mode run.
#[derive(Debug, Clone, Serialize)]
pub struct ModelPolicy {
    /// Its name.
    pub name: String,
    /// Events simulated, summed over repetitions.
    pub events: u64,
    /// Events per second of simulation time (`null` without time).
    pub events_per_s: Option<f64>,
    /// Policy and engine time ([`crate::core::sim::policy_clock`]).
    pub time: Value,
}

/// What a job-mode `run.json` adds.
#[derive(Debug, Clone, Serialize)]
pub struct JobPart {
    /// `"jobs"`.
    pub mode: &'static str,
    /// The job trace.
    pub job_trace: JobTrace,
    /// The cluster.
    pub cluster: JobCluster,
    /// Per policy, in scenario order.
    pub policies: Vec<JobPolicy>,
}

/// The job trace of a job-mode run.
#[derive(Debug, Clone, Serialize)]
pub struct JobTrace {
    /// As given.
    pub path: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Jobs.
    pub jobs: usize,
    /// Users.
    pub users: usize,
}

/// The cluster of a job-mode run.
#[derive(Debug, Clone, Serialize)]
pub struct JobCluster {
    /// Nodes.
    pub nodes: usize,
    /// GPUs.
    pub gpus: u64,
    /// The node list file, as given.
    pub node_list: Option<String>,
    /// Placement rule.
    pub placement: &'static str,
    /// Restore time after a preemption, µs.
    pub restart_overhead_us: u64,
    /// On a typed cluster: each type and its GPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_types: Option<Vec<GpuTypeCount>>,
}

/// One GPU type of a typed cluster.
#[derive(Debug, Clone, Serialize)]
pub struct GpuTypeCount {
    /// Type name.
    pub name: String,
    /// Its GPUs.
    pub gpus: u64,
}

/// One policy of a job-mode run.
#[derive(Debug, Clone, Serialize)]
pub struct JobPolicy {
    /// Its name.
    pub name: String,
    /// The scheduler.
    pub scheduler: String,
    /// Whether the scheduler preempts.
    pub preemptive: bool,
    /// Backfilling.
    pub backfill: bool,
    /// Events handled, summed over repetitions.
    pub events: u64,
    /// Policy and engine time ([`crate::core::sim::policy_clock`]).
    pub time: Value,
    /// On a typed cluster: the type policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_policy: Option<&'static str>,
}

impl RunManifest {
    /// The text of `run.json`: the manifest with `execution` (how the
    /// tasks were obtained, and `partial` when some are missing), pretty
    /// JSON with sorted keys and a final newline.
    pub fn render(&self, execution: &Execution) -> String {
        let mut doc = serde_json::to_value(self).unwrap_or(Value::Null);
        execution.insert_into(&mut doc);
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(mode: ModePart, sweep_point: Option<Value>) -> RunManifest {
        RunManifest {
            tool: "tenantsim",
            version: "0.0.0",
            scenario_path: "s.toml".into(),
            scenario: serde_json::json!({"name": "s"}),
            seed: 7,
            repetitions: 2,
            threads: 1,
            wall_time_s: 0.5,
            varying_fields: MODEL_VARYING_FIELDS,
            warnings: vec![],
            sweep_point,
            memory: MemoryPart {
                peak_rss_bytes: Some(3 << 20),
                estimate_bytes: None,
            },
            mode,
        }
    }

    /// The top-level keys of a rendered `run.json`, in order.
    fn keys(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix("  \""))
            .filter_map(|l| l.split_once('"').map(|(k, _)| k.to_string()))
            .collect()
    }

    /// Both modes render one object with sorted keys: the common fields
    /// and the mode's own, `execution` added, the optional parts only when
    /// there (the field lists of the two `run.json` writers before they
    /// shared this type).
    #[test]
    fn both_modes_render_sorted_keys_with_their_own_fields() {
        let models = ModePart::Models(ModelPart {
            git_commit: "abc",
            baseline: Some("p".into()),
            trace: ModelTrace {
                path: "t.csv".into(),
                sha256: "00".into(),
                users: 1,
                models: 2,
                pairs: 2,
            },
            policies: vec![ModelPolicy {
                name: "p".into(),
                events: 3,
                events_per_s: None,
                time: Value::Null,
            }],
        });
        let text = manifest(models, None).render(&Execution::default());
        assert_eq!(
            keys(&text),
            [
                "baseline",
                "execution",
                "git_commit",
                "memory",
                "policies",
                "repetitions",
                "scenario",
                "scenario_path",
                "seed",
                "threads",
                "tool",
                "trace",
                "varying_fields",
                "version",
                "wall_time_s",
                "warnings"
            ]
        );
        assert!(text.contains("\"events_per_s\": null"), "{text}");
        assert!(
            text.contains(
                "\"memory\": {\n    \"estimate_bytes\": null,\n    \"peak_rss_bytes\": 3145728\n  }"
            ),
            "{text}"
        );
        assert!(text.ends_with("}\n"));
        let jobs = ModePart::Jobs(JobPart {
            mode: "jobs",
            job_trace: JobTrace {
                path: "j.csv".into(),
                sha256: "00".into(),
                jobs: 4,
                users: 2,
            },
            cluster: JobCluster {
                nodes: 1,
                gpus: 4,
                node_list: None,
                placement: "pack",
                restart_overhead_us: 0,
                gpu_types: None,
            },
            policies: vec![JobPolicy {
                name: "fifo".into(),
                scheduler: "fifo".into(),
                preemptive: false,
                backfill: false,
                events: 5,
                time: Value::Null,
                type_policy: None,
            }],
        });
        let point = serde_json::json!({"index": 0});
        let text = manifest(jobs, Some(point)).render(&Execution::default());
        assert_eq!(
            keys(&text),
            [
                "cluster",
                "execution",
                "job_trace",
                "memory",
                "mode",
                "policies",
                "repetitions",
                "scenario",
                "scenario_path",
                "seed",
                "sweep_point",
                "threads",
                "tool",
                "varying_fields",
                "version",
                "wall_time_s",
                "warnings"
            ]
        );
        assert!(text.contains("\"node_list\": null"), "{text}");
        assert!(!text.contains("gpu_types") && !text.contains("type_policy"));
    }
}
