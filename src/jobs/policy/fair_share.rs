//! `fair-share`: max-min fair share of GPUs across users, non-preemptive.
//!
//! Each user has a first-come-first-served queue (submit time, then
//! index). A pass repeatedly offers GPUs to the user who holds the fewest
//! GPUs right now (then the lowest user index, i.e. order of first
//! appearance in the trace) among users with waiting jobs, and starts that
//! user's oldest waiting job — progressive filling, which converges to the
//! max-min fair allocation of a single resource. If that job does not fit,
//! the pass stops (head-of-line blocking); with backfilling it starts the
//! user's oldest waiting job that fits instead, and if none fits the user
//! sits out the rest of the pass.
//!
//! Source: max-min fairness by progressive filling (Bertsekas & Gallager,
//! *Data Networks*, §6.5.2); DRF on a single resource (Ghodsi et al.,
//! NSDI '11); the Hadoop/YARN Fair Scheduler without preemption.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::core::error::{Error, Result};
use crate::core::params::Params;
use crate::core::sim::heap::IndexedHeap;
use crate::core::sim::time::Micros;
use crate::jobs::policy::entry::JobSchedulerEntry;
use crate::jobs::sim::simulation::{Pass, State};
use crate::jobs::sim::{JobScheduler, JobSchedulerFactory, SchedInit};

/// Registry entry.
pub fn entry() -> JobSchedulerEntry {
    JobSchedulerEntry::from_parse(
        "fair-share",
        "max-min fair share of GPUs across users (fewest GPUs held first), FIFO per user",
        parse,
    )
}

#[derive(Debug, Clone)]
struct FairShare {
    queues: Vec<VecDeque<u32>>,
    held: Vec<u64>,
    /// Users with waiting jobs, keyed by (GPUs held, user).
    users: IndexedHeap<(u64, u32)>,
    sat_out: Vec<u32>,
}

impl FairShare {
    fn new(init: &SchedInit<'_>) -> Self {
        let mut per_user = vec![0usize; init.users];
        for j in init.jobs {
            per_user[j.user as usize] += 1;
        }
        Self {
            queues: per_user
                .iter()
                .map(|&n| VecDeque::with_capacity(n))
                .collect(),
            held: vec![0; init.users],
            users: IndexedHeap::new(init.users),
            sat_out: Vec::with_capacity(init.users),
        }
    }

    fn rekey(&mut self, u: u32) {
        if self.queues[u as usize].is_empty() {
            self.users.remove(u);
        } else {
            self.users.push(u, (self.held[u as usize], u));
        }
    }
}

impl JobScheduler for FairShare {
    /// A copy in the same state (DESIGN §15.5).
    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        Some(Box::new(self.clone()))
    }

    fn on_arrival(&mut self, job: u32, _now: Micros, state: &State<'_>) {
        let u = state.job(job).user;
        self.queues[u as usize].push_back(job);
        self.rekey(u);
    }

    fn on_completion(&mut self, job: u32, _now: Micros, state: &State<'_>) {
        let j = state.job(job);
        self.held[j.user as usize] -= u64::from(j.gpus);
        if self.users.contains(j.user) {
            self.rekey(j.user);
        }
    }

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        self.sat_out.clear();
        while let Some((u, _)) = self.users.peek() {
            if pass.no_room() {
                break;
            }
            let ui = u as usize;
            let pick = if pass.backfill() {
                self.queues[ui].iter().position(|&j| pass.fits(j))
            } else {
                self.queues[ui]
                    .front()
                    .filter(|&&j| pass.fits(j))
                    .map(|_| 0)
            };
            let Some(at) = pick else {
                if !pass.backfill() {
                    break;
                }
                self.users.remove(u);
                self.sat_out.push(u);
                continue;
            };
            let Some(j) = self.queues[ui].remove(at) else {
                break;
            };
            if !pass.start(j)? {
                return Err(Error::input(format!(
                    "internal error: job {j} fits but could not be placed"
                )));
            }
            self.held[ui] += u64::from(pass.gpus(j));
            self.rekey(u);
        }
        for i in 0..self.sat_out.len() {
            let u = self.sat_out[i];
            self.rekey(u);
        }
        Ok(())
    }
}

fn parse(_params: &mut Params) -> Result<JobSchedulerFactory> {
    Ok(Arc::new(|init| Ok(Box::new(FairShare::new(init)))))
}
