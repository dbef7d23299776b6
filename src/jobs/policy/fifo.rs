//! `fifo`: first in, first out (DESIGN §9.3, exact). The queue is ordered by
//! submit time, then job index; the pass scans it in that order and stops
//! at the first job that does not fit unless backfilling is on.
//!
//! Source: the default of every batch scheduler (Slurm's priority/basic,
//! YARN's FIFO scheduler); the baseline of Tiresias (Gu et al., NSDI '19)
//! and Gavel (Narayanan et al., OSDI '20).

use std::sync::Arc;

use super::static_order::by_key;
use super::{JobSchedulerSpec, Params};
use crate::core::error::Result;
use crate::jobs::sim::{JobSchedulerFactory, Key};
use crate::jobs::trace::Job;

/// Registry entry.
pub const SPEC: JobSchedulerSpec = JobSchedulerSpec {
    name: "fifo",
    about: "first in, first out: submit time, then job index",
    preemptive: false,
    needs_rounds: false,
    parse,
};

/// The queue key: (submit, 0, index).
pub fn key(job: &Job, index: u32) -> Key {
    (job.submit, 0, index)
}

fn parse(_params: &mut Params) -> Result<JobSchedulerFactory> {
    Ok(Arc::new(|init| by_key(init.jobs.len(), key)))
}
