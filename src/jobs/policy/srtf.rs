//! `srtf`: shortest remaining time first, preemptive, with oracle
//! durations.
//!
//! Priority: the time a job needs to finish if it ran from now on — for a
//! running job `end − now`, for a waiting job its remaining service plus
//! the restart overhead it owes after a preemption — then submit time, then
//! index. A waiting job preempts a running one only if it would finish
//! strictly sooner. Running jobs keep their relative order over time (all
//! progress at the same rate), so the only decision points are arrivals
//! and completions. On a typed cluster (DESIGN §11.2) the time to finish
//! is in work units (remaining work at the job's `duration_s`, plus
//! restore time), the one scale on which jobs on different types compare;
//! victims are still sought from the latest planned end, which there may
//! differ from the work-unit order (a victim search can then stop early,
//! never preempt a job that needs less). The pass is the shared preemptive pass (see
//! `preemptive.rs`): victims are taken from the job that would finish last.
//!
//! Source: Schrage's SRPT/SRTF rule (Schrage, *Operations Research* 1968);
//! the oracle SRTF baseline of Tiresias (Gu et al., NSDI '19, §6).

use std::sync::Arc;

use super::preemptive::{Preemptive, Priority};
use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::time::Micros;
use crate::jobs::policy::entry::JobSchedulerEntry;
use crate::jobs::sim::simulation::State;
use crate::jobs::sim::{JobSchedulerFactory, Key};

/// Registry entry.
pub fn entry() -> JobSchedulerEntry {
    JobSchedulerEntry::from_parse(
        "srtf",
        "shortest remaining time first (oracle), preemptive",
        parse,
    )
    .preemptive(true)
}

#[derive(Debug, Clone, Copy)]
struct Srtf;

impl Priority for Srtf {
    fn waiting_key(&self, job: u32, now: Micros, state: &State<'_>) -> Key {
        (state.time_to_finish(job, now), state.job(job).submit, job)
    }

    fn running_key(&self, job: u32, _now: Micros, state: &State<'_>) -> Key {
        // end − now orders running jobs the same way at every instant.
        (state.end(job), state.job(job).submit, job)
    }

    fn may_preempt(&self, w: u32, v: u32, now: Micros, state: &State<'_>) -> bool {
        state.time_to_finish(v, now) > state.time_to_finish(w, now)
    }
}

fn parse(_params: &mut Params) -> Result<JobSchedulerFactory> {
    Ok(Arc::new(|init| {
        Ok(Box::new(Preemptive::new(init.jobs.len(), Srtf)))
    }))
}
