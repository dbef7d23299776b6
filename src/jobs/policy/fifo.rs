//! `fifo`: first in, first out (DESIGN §9.3, exact). The queue is ordered by
//! submit time, then job index; the pass scans it in that order and stops
//! at the first job that does not fit unless backfilling is on.
//!
//! Source: the default of every batch scheduler (Slurm's priority/basic,
//! YARN's FIFO scheduler); the baseline of Tiresias (Gu et al., NSDI '19)
//! and Gavel (Narayanan et al., OSDI '20).

use std::sync::Arc;

use super::static_order::by_key;
use crate::core::error::Result;
use crate::core::params::Params;
use crate::jobs::policy::entry::JobSchedulerEntry;
use crate::jobs::sim::{JobSchedulerFactory, Key};
use crate::jobs::trace::Job;

/// Registry entry.
pub fn entry() -> JobSchedulerEntry {
    JobSchedulerEntry::from_parse(
        "fifo",
        "first in, first out: submit time, then job index",
        parse,
    )
}

/// The queue key: (submit, 0, index).
pub fn key(job: &Job, index: u32) -> Key {
    (job.submit, 0, index)
}

fn parse(_params: &mut Params) -> Result<JobSchedulerFactory> {
    Ok(Arc::new(|init| Ok(by_key(init.jobs.len(), key))))
}
