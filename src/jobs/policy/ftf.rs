//! `ftf`: Themis-style finish-time fairness, non-preemptive.
//!
//! Themis' fairness metric is ρ = T_shared / T_isolated: how much longer a
//! job takes in the shared cluster than alone. In isolation a job starts at
//! once and takes its duration, so if started now its ρ would be
//! `ρ_j(now) = (now − submit_j + duration_j) / duration_j`. Each pass
//! orders the waiting jobs by that ρ, worst (largest) first — a user's ρ is
//! its worst waiting job's, so this serves the user with the worst ρ first,
//! with that job — then submit time, then index, and scans them like
//! `fifo` (head-of-line blocking unless backfilling is on). ρ is compared
//! exactly in integers. Because ρ changes with time, the order is rebuilt
//! at every pass: O(w) per job started without backfilling (a scan for the
//! worst ρ), O(w log w) with backfilling (a sort), for w waiting jobs —
//! the slowest scheduler when a large backlog builds up.
//!
//! Simplified from Themis: no auction, no leases (so no preemption) and no
//! fairness knob f; every waiting job competes in every pass.
//!
//! Source: Mahajan et al., "Themis: Fair and Efficient GPU Cluster
//! Scheduling", NSDI '20, §3 (finish-time fairness).

use std::cmp::Ordering;
use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::time::Micros;
use crate::jobs::policy::entry::JobSchedulerEntry;
use crate::jobs::sim::simulation::{Pass, State};
use crate::jobs::sim::{JobScheduler, JobSchedulerFactory};
use crate::jobs::trace::Job;

/// Registry entry.
pub fn entry() -> JobSchedulerEntry {
    JobSchedulerEntry::from_parse(
        "ftf",
        "Themis finish-time fairness: worst rho = (wait + duration) / duration first",
        parse,
    )
}

const ABSENT: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Ftf {
    waiting: Vec<u32>,
    pos: Vec<u32>,
    order: Vec<u32>,
}

/// Order two waiting jobs at `now`: larger ρ first, then submit, then
/// index. `(now − s_a + d_a)/d_a > (now − s_b + d_b)/d_b` is compared as
/// `(now − s_a + d_a)·d_b > (now − s_b + d_b)·d_a`.
pub fn compare(a: (&Job, u32), b: (&Job, u32), now: Micros) -> Ordering {
    let num = |j: &Job| u128::from(now - j.submit) + u128::from(j.duration);
    let (ja, jb) = (a.0, b.0);
    let lhs = num(ja) * u128::from(jb.duration);
    let rhs = num(jb) * u128::from(ja.duration);
    rhs.cmp(&lhs)
        .then(ja.submit.cmp(&jb.submit))
        .then(a.1.cmp(&b.1))
}

impl Ftf {
    fn remove(&mut self, j: u32) {
        let at = self.pos[j as usize] as usize;
        self.waiting.swap_remove(at);
        if let Some(&moved) = self.waiting.get(at) {
            self.pos[moved as usize] = at as u32;
        }
        self.pos[j as usize] = ABSENT;
    }
}

impl JobScheduler for Ftf {
    /// A copy in the same state (DESIGN §15.5).
    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        Some(Box::new(self.clone()))
    }

    fn on_arrival(&mut self, job: u32, _now: Micros, _state: &State<'_>) {
        self.pos[job as usize] = self.waiting.len() as u32;
        self.waiting.push(job);
    }

    fn on_completion(&mut self, _job: u32, _now: Micros, _state: &State<'_>) {}

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        let now = pass.now();
        if !pass.backfill() {
            // Head-of-line blocking: only the worst-ρ jobs up to the first
            // that does not fit matter; find each by a linear scan.
            while !self.waiting.is_empty() && !pass.no_room() {
                let jobs = pass.state().jobs();
                let mut best = 0;
                for k in 1..self.waiting.len() {
                    let (a, b) = (self.waiting[k], self.waiting[best]);
                    if compare((&jobs[a as usize], a), (&jobs[b as usize], b), now).is_lt() {
                        best = k;
                    }
                }
                let j = self.waiting[best];
                if !pass.start(j)? {
                    break;
                }
                self.remove(j);
            }
            return Ok(());
        }
        if self.waiting.is_empty() || pass.no_room() {
            return Ok(());
        }
        self.order.clear();
        self.order.extend_from_slice(&self.waiting);
        let jobs = pass.state().jobs();
        self.order.sort_unstable_by(|&a, &b| {
            compare((&jobs[a as usize], a), (&jobs[b as usize], b), now)
        });
        for i in 0..self.order.len() {
            let j = self.order[i];
            if pass.no_room() {
                break;
            }
            if pass.start(j)? {
                self.remove(j);
            }
        }
        Ok(())
    }
}

fn parse(_params: &mut Params) -> Result<JobSchedulerFactory> {
    Ok(Arc::new(|init| {
        let n = init.jobs.len();
        Ok(Box::new(Ftf {
            waiting: Vec::with_capacity(n),
            pos: vec![ABSENT; n],
            order: Vec::with_capacity(n),
        }))
    }))
}
