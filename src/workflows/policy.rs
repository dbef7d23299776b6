//! The choices a workflows policy and scenario make (DESIGN §14.3–14.5):
//! the cache's eviction rule and settings, retries, and the
//! auto-parallelisation rule.

use serde::{Deserialize, Serialize};

use crate::core::sim::time::Micros;

use super::rule::{UserEviction, UserParallel};

/// The memo cache's rule (`[[policy]] cache`, DESIGN §14.3): a built-in
/// or a registered rule ([`Registry::add_eviction`](crate::registry::Registry::add_eviction), DESIGN §14.8).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheRule {
    /// No cache: every step runs.
    #[default]
    Off,
    /// Evict the least recently used entry.
    Lru,
    /// Evict the entry saving the least run time per byte.
    Cost,
    /// Evict the entry a registered rule scores lowest.
    User(UserEviction),
}

impl CacheRule {
    /// Every built-in rule, in the order the docs list them.
    pub const ALL: [Self; 3] = [Self::Off, Self::Lru, Self::Cost];

    /// Its name in a scenario.
    pub fn name(&self) -> &str {
        match self {
            Self::Off => "off",
            Self::Lru => "lru",
            Self::Cost => "cost",
            Self::User(u) => &u.name,
        }
    }

    /// The built-in rule of a name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Whether it keeps no cache.
    pub fn is_off(&self) -> bool {
        matches!(self, Self::Off)
    }
}

impl Serialize for ParallelRule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json().serialize(s)
    }
}

/// Whose entries a step may hit (`[workflows.cache] scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Only its own tenant's.
    #[default]
    Tenant,
    /// Every tenant's.
    Global,
}

impl Scope {
    /// Its name in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tenant => "tenant",
            Self::Global => "global",
        }
    }
}

/// The memo cache's settings (`[workflows.cache]`, DESIGN §14.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheConfig {
    /// Bytes it holds at most (`u64::MAX`: unlimited).
    pub capacity_bytes: u64,
    /// An entry's life from its creation, µs (`Micros::MAX`: forever).
    pub max_age: Micros,
    /// Constant part of a hit's restore time, µs.
    pub restore: Micros,
    /// Bytes per second restored (0: unlimited).
    pub bandwidth_bytes_per_s: u64,
    /// Whose entries a step may hit.
    pub scope: Scope,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            capacity_bytes: u64::MAX,
            max_age: Micros::MAX,
            restore: 0,
            bandwidth_bytes_per_s: 0,
            scope: Scope::Tenant,
        }
    }
}

/// What a retry reruns (`[workflows.retry] resume`, DESIGN §14.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resume {
    /// Only the failed step; its parents' outputs are kept.
    #[default]
    Cached,
    /// The whole workflow, each step through the cache again.
    FromScratch,
}

impl Resume {
    /// Its name in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cached => "cached",
            Self::FromScratch => "from-scratch",
        }
    }
}

/// Retries (`[workflows.retry]`, DESIGN §14.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RetryConfig {
    /// Failed attempts a workflow may retry, all steps together.
    pub max_retries: u32,
    /// Wait before a retry, µs.
    pub backoff: Micros,
    /// What a retry reruns.
    pub resume: Resume,
}

/// How a parallelisable step is split (`[[policy]] parallel`, DESIGN
/// §14.5): a built-in or a registered rule
/// ([`Registry::add_parallel`](crate::registry::Registry::add_parallel), DESIGN §14.8).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ParallelRule {
    /// Never split.
    #[default]
    Off,
    /// Always `k` sub-jobs.
    Fixed {
        /// Sub-jobs.
        k: u32,
    },
    /// As many sub-jobs as fit the free GPUs and CPUs, 1 to `cap`.
    Fill {
        /// Most sub-jobs.
        cap: u32,
    },
    /// As many sub-jobs as a registered rule returns, 1 to `max`.
    User {
        /// The rule.
        rule: UserParallel,
        /// Most sub-jobs (the policy's `parallel_k`).
        max: u32,
    },
}

impl ParallelRule {
    /// Its name in a scenario.
    pub fn name(&self) -> &str {
        match self {
            Self::Off => "off",
            Self::Fixed { .. } => "fixed",
            Self::Fill { .. } => "fill",
            Self::User { rule, .. } => &rule.name,
        }
    }

    /// Its form in `run.json`: `"off"`, `{"fixed": {"k": k}}`, `{"fill":
    /// {"cap": cap}}` (serde's form of the built-ins), or `{name: {"max":
    /// max}}` for a registered rule.
    fn json(&self) -> serde_json::Value {
        match self {
            Self::Off => serde_json::json!("off"),
            Self::Fixed { k } => serde_json::json!({ "fixed": { "k": k } }),
            Self::Fill { cap } => serde_json::json!({ "fill": { "cap": cap } }),
            Self::User { rule, max } => {
                let mut m = serde_json::Map::new();
                m.insert(rule.name.to_string(), serde_json::json!({ "max": max }));
                serde_json::Value::Object(m)
            }
        }
    }

    /// The most sub-jobs a step is split into (1: never split).
    pub fn max_parts(&self) -> u32 {
        match *self {
            Self::Off => 1,
            Self::Fixed { k } => k.max(1),
            Self::Fill { cap } => cap.max(1),
            Self::User { max, .. } => max.max(1),
        }
    }
}
