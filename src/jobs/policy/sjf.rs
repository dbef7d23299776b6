//! `sjf`: shortest job first with oracle durations (DESIGN §9.3, exact). The
//! queue is ordered by duration (the trace's service time), then submit
//! time, then job index; non-preemptive, with head-of-line blocking unless
//! backfilling is on.
//!
//! Source: the classic SJF rule (e.g. Silberschatz et al., *Operating System
//! Concepts*); the oracle-duration SJF baseline of Tiresias (Gu et al.,
//! NSDI '19) and Themis (Mahajan et al., NSDI '20).

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
        "sjf",
        "shortest job first (oracle duration), then submit time, then index",
        parse,
    )
}

/// The queue key: (duration, submit, index).
pub fn key(job: &Job, index: u32) -> Key {
    (job.duration, job.submit, index)
}

fn parse(_params: &mut Params) -> Result<JobSchedulerFactory> {
    Ok(Arc::new(|init| Ok(by_key(init.jobs.len(), key))))
}
