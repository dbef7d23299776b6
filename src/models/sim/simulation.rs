//! The model-selection simulation (DESIGN §2), a [`Component`] of the event
//! loop.

use super::decision::{Decision, Policies};
use super::{EventQueue, GpuPool, GpuTypes, JobRecord, RunOutcome, TenantLimits, Tenants};
use super::{Scheduler, Selector};
use crate::core::error::{Error, Result};
use crate::core::sim::policy_clock::PolicyClock;
use crate::core::sim::{Component, run_events};
use crate::models::trace::{Micros, Trace};

/// Cluster and limits of one simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimConfig {
    /// Number of identical GPUs (at least 1).
    pub gpus: u32,
    /// Concurrent jobs allowed per tenant (default 1, DESIGN §2.3).
    pub max_jobs_per_tenant: u32,
    /// Stop simulated time here (µs), if set.
    pub horizon: Option<Micros>,
    /// Per-tenant limits.
    pub limits: TenantLimits,
}

impl Default for SimConfig {
    /// One GPU, one job per tenant at a time, no horizon, no limits.
    fn default() -> Self {
        Self {
            gpus: 1,
            max_jobs_per_tenant: 1,
            horizon: None,
            limits: TenantLimits::default(),
        }
    }
}

/// Everything one simulation reads.
#[derive(Debug, Clone, Copy)]
pub struct SimInput<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// Trace user indices of the tenants, ascending.
    pub tenants: &'a [usize],
    /// Arrival time of each tenant, µs.
    pub arrivals: &'a [Micros],
    /// Cluster and limits.
    pub config: SimConfig,
    /// The GPUs' types and the runtimes on each ([`GpuTypes::untyped`]
    /// for identical GPUs); its GPU count must be `config.gpus`.
    pub gpu_types: &'a GpuTypes,
}

/// Event kinds, in the order they are processed at one instant (DESIGN §2.4:
/// completions, then arrivals, then free GPUs are filled). A patience
/// deadline comes after both, so a job completing exactly at the deadline
/// counts as in time.
const COMPLETION: u8 = 0;
const ARRIVAL: u8 = 1;
const PATIENCE: u8 = 2;

/// An event of the model-selection simulation.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// Job number `job` completes.
    Completion {
        /// Index into the job log.
        job: u32,
    },
    /// Tenant `tenant` arrives.
    Arrival {
        /// Tenant index.
        tenant: u32,
    },
    /// Tenant `tenant`'s patience runs out: it leaves if it has no
    /// completed job.
    Patience {
        /// Tenant index.
        tenant: u32,
    },
}

/// No job (end of a per-tenant job chain).
const NO_JOB: u32 = u32::MAX;

struct ModelSelection<'a> {
    trace: &'a Trace,
    types: &'a GpuTypes,
    tenants: Tenants,
    pool: GpuPool,
    jobs: Vec<JobRecord>,
    /// Per job: the previous job of the same tenant (a chain per tenant).
    prev_job: Vec<u32>,
    /// Per tenant: its latest job.
    last_job: Vec<u32>,
    left_at: Vec<Option<Micros>>,
    completion_order: Vec<u32>,
    /// The policies and the time inside their calls.
    policies: Policies<'a>,
}

/// Run one simulation.
///
/// Events are processed in `(time, kind, sequence)` order. At each instant,
/// once every event at that time has been processed, free GPUs are filled
/// lowest index first, one decision at a time: the scheduler picks an
/// eligible tenant, the selector picks its model, the job starts, and the
/// next decision sees that state. A GPU with no tenant picked stays idle
/// until the next event. The run ends when the queue is empty (no job runs
/// and no arrival is pending) or at the horizon: events at the horizon are
/// processed, no job starts at it, and jobs still running are cut off (their
/// accuracy is never observed; their GPU time up to the horizon counts as
/// busy).
///
/// On a typed cluster ([`SimInput::gpu_types`], DESIGN §11.4) each
/// decision is for the lowest free GPU, whose type the policies read in
/// [`Tenants::gpu_type`]; the job runs the pair's runtime on that type.
///
/// Per event nothing is allocated: the queue, the job log and the pools are
/// sized up front.
pub fn simulate(
    input: &SimInput<'_>,
    scheduler: &mut dyn Scheduler,
    selector: &mut dyn Selector,
) -> Result<RunOutcome> {
    let SimInput {
        trace,
        tenants: users,
        arrivals,
        config,
        gpu_types,
    } = *input;
    if gpu_types.gpus() != config.gpus {
        return Err(Error::input(format!(
            "internal: a cluster of {} typed GPUs for a configuration of {} GPUs",
            gpu_types.gpus(),
            config.gpus
        )));
    }
    if arrivals.len() != users.len() {
        return Err(Error::input(format!(
            "internal: {} arrival times for {} tenants",
            arrivals.len(),
            users.len()
        )));
    }
    let n_jobs_max: usize = users.iter().map(|&u| trace.models_of(u).len()).sum();
    let mut queue = EventQueue::with_capacity(2 * users.len() + config.gpus as usize);
    for (i, &t) in arrivals.iter().enumerate() {
        queue.push(t, ARRIVAL, Event::Arrival { tenant: i as u32 });
    }
    let mut sim = ModelSelection {
        trace,
        types: gpu_types,
        tenants: Tenants::new(
            trace,
            users,
            arrivals,
            config.max_jobs_per_tenant,
            config.limits,
        ),
        pool: GpuPool::new(config.gpus),
        jobs: Vec::with_capacity(n_jobs_max),
        prev_job: Vec::with_capacity(n_jobs_max),
        last_job: vec![NO_JOB; users.len()],
        left_at: vec![None; users.len()],
        completion_order: Vec::with_capacity(n_jobs_max),
        policies: Policies {
            scheduler,
            selector,
            clock: PolicyClock::default(),
        },
    };
    let end = run_events(&mut sim, &mut queue, config.horizon)?;
    let busy = sim
        .jobs
        .iter()
        .map(|j| u128::from(j.end.min(end.end).saturating_sub(j.start)))
        .sum();
    let mut busy_by_type = Vec::new();
    if gpu_types.is_typed() {
        busy_by_type = vec![0; gpu_types.n_types()];
        for j in &sim.jobs {
            busy_by_type[usize::from(gpu_types.type_of(j.gpu))] +=
                u128::from(j.end.min(end.end).saturating_sub(j.start));
        }
    }
    let low_fidelity_busy = if trace.is_curve() {
        sim.jobs
            .iter()
            .filter(|j| {
                (j.level as usize) < trace.top_level(users[j.tenant as usize], j.model as usize)
            })
            .map(|j| u128::from(j.end.min(end.end).saturating_sub(j.start)))
            .sum()
    } else {
        0
    };
    let budget_exhausted = (0..users.len())
        .map(|i| sim.tenants.is_exhausted(i))
        .collect();
    let ended = (0..users.len())
        .map(|i| {
            sim.tenants
                .end_reason(i, sim.policies.selector.schedule_over(i))
        })
        .collect();
    Ok(RunOutcome {
        jobs: sim.jobs,
        completion_order: sim.completion_order,
        end: end.end,
        busy,
        busy_by_type,
        low_fidelity_busy,
        events: end.events,
        gpus: config.gpus,
        left_at: sim.left_at,
        budget_exhausted,
        ended,
        policy_clock: sim.policies.clock,
    })
}

impl Component for ModelSelection<'_> {
    type Event = Event;

    fn on_event(&mut self, now: Micros, event: Event, queue: &mut EventQueue<Event>) -> Result<()> {
        self.tenants.set_now(now);
        match event {
            Event::Completion { job } => {
                let rec = &mut self.jobs[job as usize];
                if rec.cancelled {
                    return Ok(());
                }
                rec.completed = true;
                let (i, k, acc) = (rec.tenant as usize, rec.model as usize, rec.accuracy);
                let level = rec.level as usize;
                self.pool.release(rec.gpu);
                self.completion_order.push(job);
                self.policies
                    .completed(&mut self.tenants, now, i, k, level, acc)?;
            }
            Event::Arrival { tenant } => {
                self.policies
                    .arrived(&mut self.tenants, now, tenant as usize)?;
                if let Some(p) = self.tenants.limits().patience {
                    queue.push(now.saturating_add(p), PATIENCE, Event::Patience { tenant });
                }
            }
            Event::Patience { tenant } => {
                let i = tenant as usize;
                if self.tenants.completed(i) == 0 && !self.tenants.has_left(i) {
                    self.leave(i, now)?;
                }
            }
        }
        Ok(())
    }

    /// Fill free GPUs lowest index first, one decision at a time.
    fn after_instant(&mut self, now: Micros, queue: &mut EventQueue<Event>) -> Result<()> {
        self.tenants.set_now(now);
        while let Some(lowest) = self.pool.peek_lowest() {
            let free = u32::try_from(self.pool.free_count()).unwrap_or(u32::MAX);
            let gpu_type = self.types.type_of(lowest);
            // A policy's error stops the run at once (no result is written).
            let start = match self.policies.decide(
                self.trace,
                self.types,
                &mut self.tenants,
                now,
                free,
                gpu_type,
            )? {
                Decision::Stop => break,
                Decision::Again => continue,
                Decision::Start(start) => start,
            };
            let Some(gpu) = self.pool.take_lowest() else {
                break;
            };
            let finish = now.checked_add(start.runtime).ok_or_else(|| {
                Error::input("simulated time overflowed 2^64 µs: runtimes are too large")
            })?;
            let job = u32::try_from(self.jobs.len())
                .map_err(|_| Error::input("more than 2^32 jobs in one run"))?;
            self.jobs.push(JobRecord {
                tenant: start.tenant as u32,
                model: start.model as u32,
                level: start.level as u32,
                gpu,
                start: now,
                end: finish,
                accuracy: start.accuracy,
                completed: false,
                cancelled: false,
            });
            self.prev_job.push(self.last_job[start.tenant]);
            self.last_job[start.tenant] = job;
            self.policies.started(&mut self.tenants, &start)?;
            queue.push(finish, COMPLETION, Event::Completion { job });
        }
        Ok(())
    }
}

impl ModelSelection<'_> {
    /// Tenant `i` leaves at `now`: its running jobs are cancelled (their GPUs
    /// freed, their accuracy never observed), it is never eligible again and
    /// its loss stays frozen.
    fn leave(&mut self, i: usize, now: Micros) -> Result<()> {
        self.tenants.leave(i);
        self.left_at[i] = Some(now);
        let mut j = self.last_job[i];
        while j != NO_JOB {
            let rec = &mut self.jobs[j as usize];
            if !rec.completed && !rec.cancelled {
                rec.cancelled = true;
                let planned = rec.end - rec.start;
                rec.end = now;
                self.pool.release(rec.gpu);
                self.tenants
                    .cancel_job(i, rec.model as usize, planned, now - rec.start);
            }
            j = self.prev_job[j as usize];
        }
        self.policies.changed(&self.tenants, i)
    }
}
