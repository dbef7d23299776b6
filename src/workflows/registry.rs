//! The workflows' policy choices by name (DESIGN §14.8): the built-in
//! cache-eviction and parallelisation rules and the [`WorkflowRegistry`]
//! shared scenarios are loaded with.

use std::sync::{Arc, LazyLock};

use crate::core::error::Result;
use crate::core::named::NamedList;

use super::entry::{EvictionEntry, ParallelEntry};
use super::policy::CacheRule;

/// The built-ins, made once.
static BUILTIN: LazyLock<WorkflowRegistry> = LazyLock::new(|| WorkflowRegistry {
    evictions: NamedList::new(
        "cache eviction rule",
        [
            EvictionEntry::builtin(CacheRule::Off, "no cache"),
            EvictionEntry::builtin(CacheRule::Lru, "evict the least recently used entry"),
            EvictionEntry::builtin(
                CacheRule::Cost,
                "evict the entry saving the least run time per byte",
            ),
        ],
    ),
    parallels: NamedList::new("parallelisation rule", ParallelEntry::builtins()),
});

/// The cache-eviction and parallelisation rules a shared scenario's
/// `[[policy]]` can name (`cache = "..."`, `parallel = "..."`): the
/// built-ins and any a user adds; names are unique within a kind.
#[derive(Debug, Clone)]
pub struct WorkflowRegistry {
    /// Eviction rules, built-ins (`off`, `lru`, `cost`) first.
    pub evictions: NamedList<EvictionEntry>,
    /// Parallelisation rules, built-ins (`off`, `fixed`, `fill`) first.
    pub parallels: NamedList<ParallelEntry>,
}

impl Default for WorkflowRegistry {
    fn default() -> Self {
        Self::builtin()
    }
}

impl WorkflowRegistry {
    /// The built-in rules.
    pub fn builtin() -> Self {
        BUILTIN.clone()
    }

    /// Add an eviction rule; its name must be new and non-empty.
    pub fn add_eviction(&mut self, entry: EvictionEntry) -> Result<()> {
        self.evictions.add(entry)
    }

    /// Add a parallelisation rule; its name must be new and non-empty.
    pub fn add_parallel(&mut self, entry: ParallelEntry) -> Result<()> {
        self.parallels.add(entry)
    }

    /// The eviction rule called `name`.
    pub fn eviction(&self, name: &str) -> Option<&Arc<EvictionEntry>> {
        self.evictions.get(name)
    }

    /// The parallelisation rule called `name`.
    pub fn parallel(&self, name: &str) -> Option<&Arc<ParallelEntry>> {
        self.parallels.get(name)
    }

    /// `"a" (about a), "b" (about b) or "c" (about c)`: the eviction rules,
    /// for messages.
    pub fn eviction_choices(&self) -> String {
        choices(self.evictions.iter().map(|e| (&*e.name, &*e.about)))
    }

    /// The parallelisation rules as [`WorkflowRegistry::eviction_choices`].
    pub fn parallel_choices(&self) -> String {
        choices(self.parallels.iter().map(|e| (&*e.name, &*e.about)))
    }
}

/// `"a" (x), "b" (y) or "c" (z)`.
fn choices<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let items: Vec<String> = items
        .map(|(name, about)| {
            if about.is_empty() {
                format!("\"{name}\"")
            } else {
                format!("\"{name}\" ({about})")
            }
        })
        .collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}
