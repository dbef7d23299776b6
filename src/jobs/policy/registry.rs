//! Job mode's cluster schedulers by name (DESIGN §10): the list of
//! built-ins and the [`JobRegistry`] scenarios are loaded with. Adding a
//! built-in scheduler: write its file with a `pub fn entry()` and list it
//! here. The entry type lives in the leaf [`entry`](super::entry).

use std::sync::{Arc, LazyLock};

use super::{fair_share, fifo, ftf, las, max_min_fairness, sjf, srtf};
use crate::core::error::Result;
use crate::core::named::NamedList;

use super::entry::JobSchedulerEntry;

/// Every built-in cluster scheduler, in the order `--help` lists them.
fn builtin_schedulers() -> Vec<JobSchedulerEntry> {
    vec![
        fifo::entry(),
        sjf::entry(),
        srtf::entry(),
        las::entry(),
        fair_share::entry(),
        ftf::entry(),
        max_min_fairness::entry(),
    ]
}

/// The built-ins, made once ([`JobRegistry::builtin`] clones the list's
/// `Arc`s).
static BUILTIN: LazyLock<JobRegistry> = LazyLock::new(|| JobRegistry {
    schedulers: NamedList::new("job scheduler", builtin_schedulers()),
});

/// The built-in scheduler called `name`.
pub fn scheduler(name: &str) -> Option<&'static JobSchedulerEntry> {
    BUILTIN.scheduler(name).map(AsRef::as_ref)
}

/// Every built-in scheduler.
pub fn schedulers() -> impl Iterator<Item = &'static JobSchedulerEntry> {
    BUILTIN.schedulers.iter()
}

/// The cluster schedulers job-mode scenarios can name: the built-ins
/// ([`JobRegistry::builtin`]) and any a user adds; names are unique. Same
/// shape as model mode's
/// [`ModelRegistry`](crate::models::policy::registry::ModelRegistry): a
/// [`NamedList`] per policy kind.
#[derive(Debug, Clone)]
pub struct JobRegistry {
    /// The schedulers, built-ins first, then in the order added.
    pub schedulers: NamedList<JobSchedulerEntry>,
}

impl Default for JobRegistry {
    fn default() -> Self {
        Self::builtin()
    }
}

impl JobRegistry {
    /// Every built-in scheduler.
    pub fn builtin() -> Self {
        BUILTIN.clone()
    }

    /// Add a scheduler; its name must be new and non-empty.
    pub fn add_scheduler(&mut self, entry: JobSchedulerEntry) -> Result<()> {
        self.schedulers.add(entry)
    }

    /// The scheduler called `name`.
    pub fn scheduler(&self, name: &str) -> Option<&Arc<JobSchedulerEntry>> {
        self.schedulers.get(name)
    }
}
