//! `max-min-fairness`: Gavel's heterogeneity-aware, time-sliced max-min fair
//! share of effective throughput (DESIGN §11.3), in rounds
//! (`[cluster] round_s`, required).
//!
//! [`lp`] computes the allocation `X[j][t]`, the fraction of time each
//! active (submitted, unfinished) job should run on each GPU type. It is
//! solved again at the first boundary after the set of active jobs changed
//! (an arrival or a completion), and only then.
//!
//! At each round boundary the scheduler turns `X` into the jobs that run
//! this round, as Gavel's `_schedule_jobs_on_workers` does:
//!
//! 1. Every job that ran in the round just ended is credited the round's
//!    length on its type: `received[j][t] += now − previous boundary`.
//! 2. When the allocation is recomputed, time counts restart (Gavel's
//!    `_reset_time_run_so_far`): each job's deficit on each type grows by
//!    `X[j][t] · (time since the last reset) − (received[j][t] − round/2)`,
//!    and `received[j][t] = round/2` for every active job (Gavel's initial
//!    half round, so no fraction is 0).
//! 3. Priority of job `j` on type `t`: `X[j][t] / (received[j][t] /
//!    Σ_k received[k][t])` (the share of type `t`'s time it should get over
//!    the share it got since the reset); 0 when `X[j][t] = 0`.
//! 4. For each type in order (the order of the types in `[cluster]`; Gavel
//!    uses v100, p100, k80), its entries sorted by priority, then deficit,
//!    then `X[j][t]`, largest first, then lowest job index; the entries are
//!    scanned type after type and a job is picked for type `t` if it is not
//!    picked yet, may run on `t`, and needs no more than the GPUs of `t`
//!    not yet given out this round. A job with `X[j][t] = 0` may still fill
//!    GPUs left over (as in Gavel).
//! 5. Running jobs not picked, or picked for another type, are preempted
//!    (they keep their progress, DESIGN §9.4); picked jobs that are not
//!    running start, largest first (then in pick order), on their type by
//!    the placement rule. Under `consolidate` a picked job that does not fit
//!    any single node of its type waits this round.
//!
//! Not modelled (Gavel has them): space sharing (`_packed`), priority
//! weights other than 1, and Gavel's minimum of 1,920 s between allocation
//! resets (here the allocation is recomputed at every change).

pub mod lp;

use std::sync::Arc;

pub use lp::{Allocation, LpJob, max_min_allocation};

use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::params::Params;
use crate::core::sim::time::Micros;
use crate::jobs::policy::entry::JobSchedulerEntry;
use crate::jobs::sim::Placement;
use crate::jobs::sim::simulation::{Pass, State, Status};
use crate::jobs::sim::{JobScheduler, JobSchedulerFactory, SchedInit};

/// Registry entry.
pub fn entry() -> JobSchedulerEntry {
    JobSchedulerEntry::from_parse(
        "max-min-fairness",
        "Gavel's heterogeneity-aware max-min fair time-slicing (LP per job-set change), in rounds (needs [cluster].round_s)",
        parse,
    )
    .preemptive(true)
    .needs_rounds(true)
}

/// No type chosen.
const NONE: GpuType = GpuType::MAX;

#[derive(Debug, Clone)]
struct MaxMin {
    /// Active jobs in arrival order.
    active: Vec<u32>,
    /// Whether the active set changed since the last allocation.
    changed: bool,
    /// GPU types of the cluster (known at the first pass).
    types: usize,
    /// Per job × type (row `j · types`): allocation, time received since
    /// the last reset (µs), deficit (µs).
    x: Vec<f64>,
    received: Vec<f64>,
    deficit: Vec<f64>,
    /// Type picked for each job this round (`NONE`: not picked).
    picked: Vec<GpuType>,
    last_boundary: Micros,
    last_reset: Micros,
    /// Scratch: (job, type, priority, deficit, allocation) entries.
    entries: Vec<(u32, GpuType, f64, f64, f64)>,
    /// Scratch: jobs to start this round, keyed (most GPUs first, then
    /// pick order).
    starts: Vec<(std::cmp::Reverse<u32>, u32, u32)>,
    /// Scratch: GPUs of each type not yet given out.
    left: Vec<u64>,
    /// GPUs of each type.
    gpus: Vec<u32>,
    /// LPs solved (a measurement, with the allocations computed).
    pub lps: u64,
    /// Allocations computed.
    pub allocations: u64,
    n: usize,
}

impl MaxMin {
    fn new(init: &SchedInit<'_>) -> Self {
        let n = init.jobs.len();
        Self {
            active: Vec::with_capacity(n.min(1 << 16)),
            changed: false,
            types: 0,
            x: Vec::new(),
            received: Vec::new(),
            deficit: Vec::new(),
            picked: vec![NONE; n],
            last_boundary: 0,
            last_reset: 0,
            entries: Vec::new(),
            starts: Vec::new(),
            left: Vec::new(),
            gpus: Vec::new(),
            lps: 0,
            allocations: 0,
            n,
        }
    }

    /// Size the per-type tables from the cluster (first pass).
    fn init_types(&mut self, state: &State<'_>) {
        if self.types > 0 {
            return;
        }
        self.gpus = gpus_by_type(state);
        self.types = self.gpus.len();
        let cells = self.n * self.types;
        self.x = vec![0.0; cells];
        self.received = vec![0.0; cells];
        self.deficit = vec![0.0; cells];
        self.left = vec![0; self.types];
    }

    /// Steps 2 and the LP: recompute the allocation of the active jobs.
    fn reallocate(&mut self, now: Micros, half: f64, state: &State<'_>) -> Result<()> {
        let m = self.types;
        let since = (now - self.last_reset) as f64;
        for &j in &self.active {
            let row = j as usize * m;
            for c in row..row + m {
                if self.received[c] > 0.0 {
                    self.deficit[c] += self.x[c] * since - (self.received[c] - half);
                }
            }
        }
        // Jobs of 0 GPUs (CPU-only, DESIGN §14.6) are outside the LP, which
        // shares GPUs: their allocation is 0, so their priority is 0 and
        // each round they are picked after the GPU jobs of their type (they
        // take none of its GPUs) and start if their CPUs fit.
        let jobs: Vec<LpJob> = self
            .active
            .iter()
            .filter(|&&j| state.job(j).gpus > 0)
            .map(|&j| LpJob {
                scale_factor: state.job(j).gpus,
                weight: 1.0,
                throughput: (0..m).map(|t| throughput(state, j, t as GpuType)).collect(),
            })
            .collect();
        let a = if jobs.is_empty() {
            None
        } else {
            Some(max_min_allocation(&jobs, &self.gpus)?)
        };
        if let Some(a) = &a {
            self.lps += u64::from(a.lps);
        }
        self.allocations += 1;
        let mut k = 0;
        for &j in &self.active {
            let row = j as usize * m;
            let lp_row = match &a {
                Some(a) if state.job(j).gpus > 0 => {
                    k += 1;
                    Some(&a.x[k - 1])
                }
                _ => None,
            };
            for t in 0..m {
                self.x[row + t] = lp_row.map_or(0.0, |x| x[t]);
                self.received[row + t] = half;
            }
        }
        self.last_reset = now;
        self.changed = false;
        Ok(())
    }
}

/// GPUs of each type.
fn gpus_by_type(state: &State<'_>) -> Vec<u32> {
    let c = state.cluster();
    (0..c.types())
        .map(|t| u32::try_from(c.total_of_type(t as GpuType)).unwrap_or(u32::MAX))
        .collect()
}

/// Job `j`'s throughput on type `t`: the job (all its work) per second,
/// `1 / duration on t`; 0 where it may not run (not an allowed type, or
/// its GPUs never fit there: more than the largest node of the type under
/// `consolidate`, more than the type under `spread`; with CPUs counted,
/// no node of the type, or not the type in all, has both its GPUs and its
/// CPUs, DESIGN §14.6: so a job is never allotted a type it can never
/// start on).
fn throughput(state: &State<'_>, j: u32, t: GpuType) -> f64 {
    let c = state.cluster();
    let gpus = state.job(j).gpus;
    let room = match c.placement() {
        Placement::Consolidate => u64::from(c.max_capacity_of_type(t)),
        Placement::Spread => c.total_of_type(t),
    };
    if t >= 64 || state.allowed_types(j) & (1 << t) == 0 || u64::from(gpus) > room {
        return 0.0;
    }
    if c.counts_cpus() && !c.could_ever_fit(gpus, state.job(j).cpus, t) {
        return 0.0;
    }
    1.0e6 / state.duration_on(j, t).max(1) as f64
}

impl JobScheduler for MaxMin {
    /// A copy in the same state (DESIGN §15.5).
    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        Some(Box::new(self.clone()))
    }

    fn on_arrival(&mut self, job: u32, _now: Micros, _state: &State<'_>) {
        self.active.push(job);
        self.changed = true;
    }

    fn on_completion(&mut self, job: u32, _now: Micros, _state: &State<'_>) {
        if let Some(k) = self.active.iter().position(|&j| j == job) {
            self.active.remove(k);
        }
        self.changed = true;
    }

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        let now = pass.now();
        let Some(round) = pass.state().round() else {
            return Err(Error::input(
                "scheduler `max-min-fairness` runs in rounds: set [cluster].round_s",
            ));
        };
        self.init_types(pass.state());
        let m = self.types;
        // 1. Credit the round just ended.
        let elapsed = (now - self.last_boundary) as f64;
        for &j in &self.active {
            if pass.state().status(j) == Status::Running {
                let t = usize::from(pass.state().run_type(j));
                self.received[j as usize * m + t] += elapsed;
            }
        }
        self.last_boundary = now;
        // 2. A new allocation when the active jobs changed.
        let half = round as f64 / 2.0;
        if self.changed {
            self.reallocate(now, half, pass.state())?;
        }
        // 3. Priorities.
        self.entries.clear();
        for t in 0..m {
            let total: f64 = self
                .active
                .iter()
                .map(|&j| self.received[j as usize * m + t])
                .sum();
            let first = self.entries.len();
            for &j in &self.active {
                let c = j as usize * m + t;
                if throughput(pass.state(), j, t as GpuType) <= 0.0 || pass.gpus(j) > self.gpus[t] {
                    continue;
                }
                let x = self.x[c];
                let prio = if x <= 0.0 {
                    0.0
                } else {
                    x * total / self.received[c]
                };
                self.entries
                    .push((j, t as GpuType, prio, self.deficit[c], x));
            }
            // 4. Per type: priority, deficit, allocation, largest first.
            // Keys end with the job index: unique, so an unstable sort
            // (which allocates nothing) is deterministic.
            self.entries[first..].sort_unstable_by(|a, b| {
                b.2.total_cmp(&a.2)
                    .then(b.3.total_cmp(&a.3))
                    .then(b.4.total_cmp(&a.4))
                    .then(a.0.cmp(&b.0))
            });
        }
        for (t, l) in self.left.iter_mut().enumerate() {
            *l = u64::from(self.gpus[t]);
        }
        self.starts.clear();
        for &(j, t, ..) in &self.entries {
            let (ti, sf) = (t as usize, u64::from(pass.gpus(j)));
            if self.picked[j as usize] != NONE || self.left[ti] < sf {
                continue;
            }
            self.left[ti] -= sf;
            self.picked[j as usize] = t;
            let order = self.starts.len() as u32;
            self.starts
                .push((std::cmp::Reverse(pass.gpus(j)), order, j));
        }
        // 5. Preempt what does not continue, then start the rest.
        for &j in &self.active {
            if pass.state().status(j) == Status::Running
                && self.picked[j as usize] != pass.state().run_type(j)
            {
                let t = pass.preempt(j)?;
                pass.commit(t);
            }
        }
        self.starts
            .retain(|&(_, _, j)| pass.state().status(j) == Status::Waiting);
        self.starts.sort_unstable();
        for k in 0..self.starts.len() {
            let j = self.starts[k].2;
            pass.start_on(j, self.picked[j as usize])?;
        }
        for &j in &self.active {
            self.picked[j as usize] = NONE;
        }
        Ok(())
    }
}

fn parse(_params: &mut Params) -> Result<JobSchedulerFactory> {
    Ok(Arc::new(|init| Ok(Box::new(MaxMin::new(init)))))
}
