//! How a scenario's tasks were obtained: simulated, read from the result
//! cache, or merged from shards (the `execution` object of `run.json`,
//! DESIGN §10.2–10.3). None of it is a result: two runs of the same
//! scenario that differ only here wrote the same result files.

use serde_json::{Value, json};

/// How one scenario's (one sweep point's) tasks were obtained.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Execution {
    /// Tasks of the scenario (repetitions × policies).
    pub tasks: u64,
    /// Simulated by this run (or, merged, by the shards' runs).
    pub ran: u64,
    /// Read from the result cache.
    pub from_cache: u64,
    /// Read from shard folders (`tenantsim merge`; the shards' own runs
    /// say how each was obtained, in their manifests).
    pub merged: u64,
    /// The cache folder, when one was used.
    pub cache: Option<String>,
    /// The shard folders merged (empty when not merged).
    pub shards: Vec<String>,
    /// Flat task ids (over the whole plan) that no shard held: the
    /// results are partial (`merge --allow-partial`).
    pub missing: Vec<u64>,
}

impl Execution {
    /// Whether some task is missing.
    pub fn partial(&self) -> bool {
        !self.missing.is_empty()
    }

    /// The `execution` object of `run.json` (a varying field).
    pub fn to_json(&self) -> Value {
        json!({
            "tasks": self.tasks,
            "ran": self.ran,
            "from_cache": self.from_cache,
            "merged": self.merged,
            "cache": self.cache,
            "shards_merged": self.shards,
        })
    }

    /// Add `execution` (and `partial`, when tasks are missing) to a
    /// `run.json` document.
    pub fn insert_into(&self, doc: &mut Value) {
        if let Some(obj) = doc.as_object_mut() {
            obj.insert("execution".into(), self.to_json());
            if self.partial() {
                obj.insert(
                    "partial".into(),
                    json!({
                        "missing_tasks": self.missing,
                        "note": "merged with --allow-partial: these tasks are missing from every figure",
                    }),
                );
            }
        }
    }
}
