//! What a cache-eviction or parallelisation rule registers as (DESIGN
//! §14.8): an [`EvictionEntry`] or a [`ParallelEntry`], built in or a
//! user's. [`registry`](super::registry) lists the built-ins.
//!
//! ```
//! use tenantsim::workflows::entry::{EvictionEntry, ParallelEntry};
//! use tenantsim::workflows::rule::{CacheEntry, SplitStep};
//!
//! // Largest entry first: the score is minus its bytes.
//! let largest = EvictionEntry::new("largest-first", "evict the largest entry", || {
//!     Ok(|e: &CacheEntry| Ok(-(e.bytes as f64)))
//! });
//! // Two sub-jobs whatever the cluster holds.
//! let halves = ParallelEntry::new("halves", "two sub-jobs", || Ok(|_: &SplitStep| Ok(2)));
//! assert_eq!(largest.rule().name(), "largest-first");
//! assert_eq!(halves.rule(4).max_parts(), 4);
//! ```

use std::fmt;
use std::sync::Arc;

use crate::core::error::Result;
use crate::core::named::Named;

use super::policy::{CacheRule, ParallelRule};
use super::rule::{Eviction, MakeEviction, MakeParallelism, Parallelism, UserRule};

/// Which eviction an entry stands for.
#[derive(Clone)]
enum EvictionKind {
    Builtin(CacheRule),
    User(MakeEviction),
}

/// A cache-eviction rule a `[[policy]] cache = "..."` can name: built in
/// (`off`, `lru`, `cost`) or registered
/// ([`Registry::add_eviction`](crate::registry::Registry::add_eviction)).
#[derive(Clone)]
pub struct EvictionEntry {
    /// The name scenarios use.
    pub name: Arc<str>,
    /// One-line description (listed when a scenario names an unknown rule).
    pub about: String,
    kind: EvictionKind,
}

impl EvictionEntry {
    /// A user rule called `name`: `make` makes the rule of each run.
    pub fn new<R: Eviction + 'static>(
        name: impl Into<String>,
        about: impl Into<String>,
        make: impl Fn() -> Result<R> + Send + Sync + 'static,
    ) -> Self {
        let make: MakeEviction = Arc::new(move || Ok(Box::new(make()?) as Box<dyn Eviction>));
        Self::from_make(name, about, make)
    }

    /// A user rule whose factory makes the boxed rule itself.
    pub fn from_make(
        name: impl Into<String>,
        about: impl Into<String>,
        make: MakeEviction,
    ) -> Self {
        Self {
            name: Arc::from(name.into()),
            about: about.into(),
            kind: EvictionKind::User(make),
        }
    }

    /// The built-in `rule`.
    pub(super) fn builtin(rule: CacheRule, about: &str) -> Self {
        Self {
            name: Arc::from(rule.name()),
            about: about.into(),
            kind: EvictionKind::Builtin(rule),
        }
    }

    /// The choice of a policy that names it.
    pub fn rule(&self) -> CacheRule {
        match &self.kind {
            EvictionKind::Builtin(r) => r.clone(),
            EvictionKind::User(make) => CacheRule::User(UserRule {
                name: Arc::clone(&self.name),
                make: Arc::clone(make),
            }),
        }
    }
}

impl fmt::Debug for EvictionEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EvictionEntry")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Named for EvictionEntry {
    fn name(&self) -> &str {
        &self.name
    }
}

/// Which parallelisation an entry stands for.
#[derive(Clone)]
enum ParallelKind {
    Off,
    Fixed,
    Fill,
    User(MakeParallelism),
}

/// A parallelisation rule a `[[policy]] parallel = "..."` can name: built
/// in (`off`, `fixed`, `fill`) or registered
/// ([`Registry::add_parallel`](crate::registry::Registry::add_parallel)).
#[derive(Clone)]
pub struct ParallelEntry {
    /// The name scenarios use.
    pub name: Arc<str>,
    /// One-line description (listed when a scenario names an unknown rule).
    pub about: String,
    kind: ParallelKind,
}

impl ParallelEntry {
    /// A user rule called `name`: `make` makes the rule of each run.
    pub fn new<R: Parallelism + 'static>(
        name: impl Into<String>,
        about: impl Into<String>,
        make: impl Fn() -> Result<R> + Send + Sync + 'static,
    ) -> Self {
        let make: MakeParallelism = Arc::new(move || Ok(Box::new(make()?) as Box<dyn Parallelism>));
        Self::from_make(name, about, make)
    }

    /// A user rule whose factory makes the boxed rule itself.
    pub fn from_make(
        name: impl Into<String>,
        about: impl Into<String>,
        make: MakeParallelism,
    ) -> Self {
        Self {
            name: Arc::from(name.into()),
            about: about.into(),
            kind: ParallelKind::User(make),
        }
    }

    /// The built-ins: `off`, `fixed`, `fill`.
    pub(super) fn builtins() -> [Self; 3] {
        let b = |name: &str, about: &str, kind| Self {
            name: Arc::from(name),
            about: about.into(),
            kind,
        };
        [
            b("off", "never split", ParallelKind::Off),
            b("fixed", "parallel_k sub-jobs", ParallelKind::Fixed),
            b(
                "fill",
                "as many as the free GPUs and CPUs allow, up to parallel_k",
                ParallelKind::Fill,
            ),
        ]
    }

    /// Whether it ever splits a step (so `parallel_k` means something).
    pub fn splits(&self) -> bool {
        !matches!(self.kind, ParallelKind::Off)
    }

    /// The choice of a policy that names it with `parallel_k = k`.
    pub fn rule(&self, k: u32) -> ParallelRule {
        match &self.kind {
            ParallelKind::Off => ParallelRule::Off,
            ParallelKind::Fixed => ParallelRule::Fixed { k },
            ParallelKind::Fill => ParallelRule::Fill { cap: k },
            ParallelKind::User(make) => ParallelRule::User {
                rule: UserRule {
                    name: Arc::clone(&self.name),
                    make: Arc::clone(make),
                },
                max: k,
            },
        }
    }
}

impl fmt::Debug for ParallelEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParallelEntry")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Named for ParallelEntry {
    fn name(&self) -> &str {
        &self.name
    }
}
