//! What a task's result depends on, as hashes: the build of the tool, the
//! resolved point scenario, its inputs' contents, the policy and the
//! repetition (DESIGN §10.2). The result cache's keys and the shard
//! manifests are made of these.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The tool and its build: the crate version and the build identity that
/// `build.rs` computes (SHA-256 of every source file, `Cargo.toml`,
/// `Cargo.lock`, the compiler's version, the profile, target and flags).
/// Two binaries with the same `TOOL_BUILD` compute the same results; a
/// changed line of code gives another one, even when the version number
/// stays.
pub const TOOL_BUILD: &str = concat!(
    "tenantsim ",
    env!("CARGO_PKG_VERSION"),
    " build ",
    env!("TENANTSIM_BUILD_ID")
);

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256 of `value`'s `Debug` text, lower-case hex, hashed as it is
/// formatted (a large resolved input is never held as one string).
pub fn sha256_debug(value: &impl std::fmt::Debug) -> String {
    struct Hashing(Sha256);
    impl std::fmt::Write for Hashing {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.update(s.as_bytes());
            Ok(())
        }
    }
    let mut h = Hashing(Sha256::new());
    let _ = std::fmt::Write::write_fmt(&mut h, format_args!("{value:?}"));
    hex(&h.0.finalize())
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// What every run of one (point) scenario depends on, split so that a
/// task's key names only its own policy: adding a policy, or repetitions,
/// leaves the other tasks' keys unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    /// The resolved scenario (as `run.json` records it) without its
    /// `policy` list, its `repetitions` and `output.plots` (figures are
    /// drawn from the folded results, never from a run).
    pub scenario: Value,
    /// Each policy's table of the resolved scenario, in order.
    pub policies: Vec<Value>,
    /// Content hashes of everything else the runs read (the trace, an
    /// arrivals or node list), as the mode states them.
    pub inputs: String,
    /// SHA-256 of the whole resolved scenario and `inputs` (policies and
    /// repetitions included): the scenario hash of a shard manifest.
    pub full: String,
    /// SHA-256 of the whole resolved scenario alone (without `inputs`).
    pub resolved_sha256: String,
    /// `inputs` by name ("trace", "arrivals"...), when the mode gave them
    /// so ([`Identity::from_parts`]): what `merge` names when one changed.
    pub input_parts: Vec<(String, String)>,
}

impl Identity {
    /// Split `resolved` (an object with a `policy` list, as both modes'
    /// `run.json` `scenario`) into what all tasks share and each policy.
    pub fn from_resolved(resolved: Value, inputs: String) -> Self {
        let text = serde_json::to_string(&resolved).unwrap_or_default();
        let full = sha256_hex(format!("{text}\n{inputs}").as_bytes());
        let resolved_sha256 = sha256_hex(text.as_bytes());
        let mut scenario = resolved;
        let mut policies = Vec::new();
        if let Some(obj) = scenario.as_object_mut() {
            if let Some(Value::Array(list)) = obj.remove("policy") {
                policies = list;
            }
            obj.remove("repetitions");
            if let Some(Value::Object(output)) = obj.get_mut("output") {
                output.remove("plots");
            }
        }
        Self {
            scenario,
            policies,
            inputs,
            full,
            resolved_sha256,
            input_parts: Vec::new(),
        }
    }

    /// [`Identity::from_resolved`] with the inputs given by name and
    /// content hash: `inputs` is `NAME HASH` of each, joined by spaces,
    /// and each is kept apart so that `merge` can name the one that
    /// changed.
    pub fn from_parts(resolved: Value, parts: &[(&str, String)]) -> Self {
        let inputs = parts
            .iter()
            .map(|(name, hash)| format!("{name} {hash}"))
            .collect::<Vec<_>>()
            .join(" ");
        let mut id = Self::from_resolved(resolved, inputs);
        id.input_parts = parts
            .iter()
            .map(|(name, hash)| ((*name).to_string(), hash.clone()))
            .collect();
        id
    }

    /// The key of every task of this scenario: one hasher state per
    /// policy, finished with the repetition ([`TaskKeys::key`]).
    pub fn task_keys(&self, keep_jobs: bool) -> TaskKeys {
        let scenario = serde_json::to_string(&self.scenario).unwrap_or_default();
        let per_policy = self
            .policies
            .iter()
            .map(|p| {
                let mut h = Sha256::new();
                for part in [
                    TOOL_BUILD,
                    crate::core::io::codec::FORMAT,
                    &scenario,
                    &self.inputs,
                    &serde_json::to_string(p).unwrap_or_default(),
                    if keep_jobs { "jobs" } else { "no-jobs" },
                ] {
                    h.update((part.len() as u64).to_le_bytes());
                    h.update(part.as_bytes());
                }
                h
            })
            .collect();
        TaskKeys { per_policy }
    }
}

/// The cache keys of one scenario's tasks.
#[derive(Debug, Clone)]
pub struct TaskKeys {
    per_policy: Vec<Sha256>,
}

impl TaskKeys {
    /// The key of task `task` (repetition `task / policies`, policy
    /// `task % policies`), hex.
    pub fn key(&self, task: u64) -> String {
        let n = self.per_policy.len().max(1) as u64;
        let (rep, policy) = (task / n, (task % n) as usize);
        match self.per_policy.get(policy) {
            Some(state) => {
                let mut h = state.clone();
                h.update(rep.to_le_bytes());
                hex(&h.finalize())
            }
            None => sha256_hex(format!("no policy {policy}").as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn adding_a_policy_or_repetitions_keeps_the_other_tasks_keys() {
        let two = json!({"seed": 1, "repetitions": 2, "output": {"plots": true},
            "policy": [{"name": "a"}, {"name": "b"}]});
        let three = json!({"seed": 1, "repetitions": 5, "output": {"plots": false},
            "policy": [{"name": "a"}, {"name": "b"}, {"name": "c"}]});
        let (k2, k3) = (
            Identity::from_resolved(two.clone(), "t".into()).task_keys(false),
            Identity::from_resolved(three, "t".into()).task_keys(false),
        );
        // Task (rep 1, policy b): 1·2 + 1 with two policies, 1·3 + 1 with three.
        assert_eq!(k2.key(3), k3.key(4));
        assert_eq!(k2.key(0), k3.key(0));
        assert_ne!(k2.key(0), k2.key(1));
        let other_seed = json!({"seed": 2, "repetitions": 2, "policy": [{"name": "a"}]});
        let k = Identity::from_resolved(other_seed, "t".into()).task_keys(false);
        assert_ne!(k.key(0), k2.key(0));
        let other_trace = Identity::from_resolved(two.clone(), "u".into()).task_keys(false);
        assert_ne!(other_trace.key(0), k2.key(0));
        assert_ne!(
            Identity::from_resolved(two, "t".into())
                .task_keys(true)
                .key(0),
            k2.key(0)
        );
    }
}
