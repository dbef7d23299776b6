//! The model-selection service as a workload of the cluster engine
//! (DESIGN §13.2–13.3): model mode's tenants, scheduler and selector
//! ([`Policies`]), deciding requests at the instants model mode decides
//! and submitting them to the cluster as jobs of one more user.

use super::input::{Priority, ServiceInput};
use super::regret::ServiceRegret;
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::held::Held;
use crate::core::sim::time::Micros;
use crate::jobs::sim::simulation::{State, Status};
use crate::jobs::sim::{Ctx, Placement, Workload};
use crate::jobs::trace::Job;
use crate::models::sim::{Decision, GpuTypes, JobRecord, Policies, Tenants};
use crate::models::trace::Trace;

/// Event kinds of the service (DESIGN §13.2): tenant arrivals with job
/// arrivals (kind 1), patience deadlines with timers (kind 2), the
/// horizon after every other event of its instant.
const ARRIVAL: u8 = 1;
const PATIENCE: u8 = 2;
const HORIZON: u8 = 5;

/// Tags of the service's events.
const TAG_ARRIVAL: u8 = 0;
const TAG_PATIENCE: u8 = 1;
const TAG_HORIZON: u8 = 2;

/// No job (end of a per-tenant job chain).
const NO_JOB: u32 = u32::MAX;

/// The service during one run.
pub(super) struct Service<'a> {
    trace: &'a Trace,
    types: &'a GpuTypes,
    /// Each tenant's arrival time, µs (the input's list: the tenants
    /// themselves tell a tenant's time only once it has arrived).
    arrivals: &'a [Micros],
    pub(super) tenants: Tenants,
    pub(super) policies: Policies<'a>,
    /// The engine's index of the service's first job (its job `r` is
    /// engine job `first + r`).
    first: u32,
    /// Placeholder jobs available.
    capacity: usize,
    pub(super) jobs: Vec<JobRecord>,
    /// Per job: its planned runtime, µs.
    runtime: Vec<Micros>,
    prev_job: Vec<u32>,
    last_job: Vec<u32>,
    pub(super) left_at: Vec<Option<Micros>>,
    pub(super) completion_order: Vec<u32>,
    /// Preempted jobs waiting to be started again (priority `low`), in
    /// the order they were preempted.
    resume: std::collections::VecDeque<u32>,
    max_gpus: u64,
    gpus_per_job: u32,
    priority: Priority,
    /// The user index of its jobs in the cluster.
    user: u32,
    horizon: Option<Micros>,
    /// The horizon passed: the service decides nothing more.
    stopped: bool,
    /// The last instant with a service event at or before the horizon,
    /// and whether one came after it (the run is then cut at it).
    pub(super) last_event: Micros,
    /// `last_event` before the latest event (the horizon's own event is
    /// not the service's: it is undone).
    before_last: Micros,
    pub(super) cut: bool,
    /// Service events handled up to the horizon.
    pub(super) events: u64,
    /// GPU index of each node's first GPU (GPUs numbered node by node).
    node_first_gpu: Vec<u32>,
    /// Every GPU type (mask).
    all_types: u64,
    /// The type an `equal` request waits for when no GPU is free.
    default_type: GpuType,
    /// R(τ) of the service's tenants, accrued at its events (DESIGN §2.6,
    /// §15.7; read by [`Self::regret_area`]).
    regret: ServiceRegret,
}

impl<'a> Service<'a> {
    /// The service of `input`, its jobs from engine index `first` on (at
    /// most `capacity` of them), its cluster user `user`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        input: &ServiceInput<'a>,
        policies: Policies<'a>,
        first: u32,
        capacity: usize,
        user: u32,
        nodes: &[u32],
        node_types: &[GpuType],
        placement: Placement,
    ) -> Self {
        let sim = &input.sim;
        let n = sim.tenants.len();
        let mut node_first_gpu = Vec::with_capacity(nodes.len());
        let mut acc = 0u32;
        for &g in nodes {
            node_first_gpu.push(acc);
            acc = acc.saturating_add(g);
        }
        let types = sim.gpu_types.n_types().max(1);
        let all_types = if types >= 64 {
            u64::MAX
        } else {
            (1u64 << types) - 1
        };
        // An `equal` request decided with no GPU free waits for the type
        // of the lowest-index node that can ever hold it.
        let default_type = nodes
            .iter()
            .enumerate()
            .find(|&(_, &g)| g >= input.gpus_per_job || placement == Placement::Spread)
            .map_or(0, |(n, _)| node_types.get(n).copied().unwrap_or(0));
        // A*_i per tenant (its user's best accuracy in the trace).
        let best_possible = sim
            .tenants
            .iter()
            .map(|u| sim.trace.best_accuracy(u))
            .collect();
        Self {
            trace: sim.trace,
            types: sim.gpu_types,
            arrivals: sim.arrivals,
            tenants: Tenants::new(
                sim.trace,
                sim.tenants,
                sim.arrivals,
                sim.config.max_jobs_per_tenant,
                sim.config.limits,
            ),
            policies,
            first,
            capacity,
            jobs: Vec::with_capacity(capacity),
            runtime: Vec::with_capacity(capacity),
            prev_job: Vec::with_capacity(capacity),
            last_job: vec![NO_JOB; n],
            left_at: vec![None; n],
            completion_order: Vec::with_capacity(capacity),
            resume: std::collections::VecDeque::with_capacity(
                (input.max_gpus / input.gpus_per_job.max(1)) as usize + 1,
            ),
            max_gpus: u64::from(input.max_gpus),
            gpus_per_job: input.gpus_per_job,
            priority: input.priority,
            user,
            horizon: sim.config.horizon,
            stopped: false,
            last_event: 0,
            before_last: 0,
            cut: false,
            events: 0,
            node_first_gpu,
            all_types,
            default_type,
            regret: ServiceRegret::new(best_possible),
        }
    }

    /// The service's cumulative regret R = ∫ Σ_i ℓ_i dτ over its tenants
    /// (DESIGN §2.6) up to its latest event handled so far (`last_event`,
    /// the end its run would have were nothing more to happen, §13.5),
    /// accuracy·s, in plain f64 sums: the reported R(end) (compensated,
    /// cut at the horizon, with the stall rule) differs from the last
    /// value by rounding, and by what accrues after the last event (a cut
    /// at the horizon, a stalled run's hold up to H). DESIGN §15.7.
    pub(super) fn regret_area(&self) -> f64 {
        self.regret.area_at(self.last_event)
    }

    /// The GPU index of a node's first GPU.
    pub(super) fn gpu_of_node(&self, node: u32) -> u32 {
        self.node_first_gpu
            .get(node as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    fn engine_job(&self, r: usize) -> u32 {
        self.first + r as u32
    }

    /// Tenant `i` leaves at `now` (patience, DESIGN §2.7): its jobs are
    /// withdrawn (a running one gives its GPUs back; its accuracy is never
    /// observed), it is never eligible again.
    fn leave(&mut self, ctx: &mut Ctx<'_, '_, '_>, i: usize) -> Result<()> {
        let now = ctx.now();
        self.tenants.leave(i, now);
        self.left_at[i] = Some(now);
        let mut r = self.last_job[i];
        while r != NO_JOB {
            let ri = r as usize;
            let rec = &self.jobs[ri];
            if !rec.completed && !rec.cancelled {
                let j = self.engine_job(ri);
                let ran = ctx.state().attained(j, now);
                ctx.withdraw(j)?;
                let rec = &mut self.jobs[ri];
                rec.cancelled = true;
                rec.end = now;
                self.tenants.cancel_job(
                    i,
                    rec.model as usize,
                    self.runtime[ri],
                    ran.min(self.runtime[ri]),
                );
            }
            r = self.prev_job[ri];
        }
        self.resume
            .retain(|&j| ctx.state().status(j) == Status::Waiting);
        self.policies.changed(&self.tenants, i)
    }

    /// The horizon: every job still queued or running is withdrawn (its
    /// accuracy is never observed; its record keeps its planned end), and
    /// the service decides nothing more.
    fn stop(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.stopped = true;
        for r in 0..self.jobs.len() {
            let rec = &self.jobs[r];
            if !rec.completed && !rec.cancelled {
                let j = self.engine_job(r);
                let planned = match ctx.state().status(j) {
                    Status::Running => ctx.state().end(j),
                    _ => rec.start.saturating_add(self.runtime[r]),
                };
                ctx.withdraw(j)?;
                self.jobs[r].end = planned;
            }
        }
        self.resume.clear();
        Ok(())
    }

    /// The type a new request is decided for and whether a GPU of it is
    /// free now: under `consolidate` the type of the best-fit node (the
    /// lowest free GPU on one-GPU nodes, as model mode), under `spread`
    /// the lowest type with room.
    fn request_type(&self, state: &State<'_>) -> Option<GpuType> {
        state
            .cluster()
            .agnostic_type(self.gpus_per_job, self.all_types)
    }

    /// GPUs held or queued by the service.
    fn holding(&self, state: &State<'_>) -> u64 {
        state.held_by(1)
    }
}

impl Workload for Service<'_> {
    /// A copy of the service's state (tenants, job log, resume queue) with
    /// its scheduler and selector forked ([`crate::models::sim::Scheduler::fork`],
    /// [`crate::models::sim::Selector::fork`]; an error if one cannot be),
    /// DESIGN §15.6.
    fn fork(&self) -> Result<Self> {
        Ok(Self {
            trace: self.trace,
            types: self.types,
            arrivals: self.arrivals,
            tenants: self.tenants.clone(),
            policies: Policies {
                scheduler: Held::Owned(self.policies.scheduler.fork()?),
                selector: Held::Owned(self.policies.selector.fork()?),
                clock: self.policies.clock,
            },
            first: self.first,
            capacity: self.capacity,
            jobs: self.jobs.clone(),
            runtime: self.runtime.clone(),
            prev_job: self.prev_job.clone(),
            last_job: self.last_job.clone(),
            left_at: self.left_at.clone(),
            completion_order: self.completion_order.clone(),
            resume: self.resume.clone(),
            max_gpus: self.max_gpus,
            gpus_per_job: self.gpus_per_job,
            priority: self.priority,
            user: self.user,
            horizon: self.horizon,
            stopped: self.stopped,
            last_event: self.last_event,
            before_last: self.before_last,
            cut: self.cut,
            events: self.events,
            node_first_gpu: self.node_first_gpu.clone(),
            all_types: self.all_types,
            default_type: self.default_type,
            regret: self.regret.clone(),
        })
    }

    /// The tenants' arrivals (in tenant order, as model mode pushes them)
    /// and the horizon.
    fn init(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        // The input's list: the tenants' own `arrival` answers only
        // those arrived.
        for (i, &at) in self.arrivals.iter().enumerate() {
            ctx.push_event(at, ARRIVAL, TAG_ARRIVAL, i as u32);
        }
        if let Some(h) = self.horizon {
            ctx.push_event(h, HORIZON, TAG_HORIZON, 0);
        }
        Ok(())
    }

    fn on_event(&mut self, ctx: &mut Ctx<'_, '_, '_>, tag: u8, data: u32) -> Result<()> {
        let now = ctx.now();
        if self.stopped {
            // Past the horizon the service is over (model mode's run ends
            // there): its later events change nothing.
            return Ok(());
        }
        match tag {
            TAG_ARRIVAL => {
                let i = data as usize;
                // S gains A*_i from here on (DESIGN §2.6).
                self.regret.advance(now);
                self.regret.arrived(i);
                self.policies.arrived(&mut self.tenants, now, i)?;
                if let Some(p) = self.tenants.limits().patience {
                    ctx.push_event(now.saturating_add(p), PATIENCE, TAG_PATIENCE, data);
                }
            }
            TAG_PATIENCE => {
                let i = data as usize;
                self.tenants.set_now(now);
                if self.tenants.completed(i) == 0 && !self.tenants.has_left(i) {
                    self.leave(ctx, i)?;
                }
            }
            TAG_HORIZON => {
                // Not an event of model mode's: the run's end is the last
                // event before it (or the horizon, if one comes after).
                self.last_event = self.before_last;
                self.events -= 1;
                self.stop(ctx)?;
            }
            _ => {
                return Err(Error::input(format!(
                    "internal error: unknown service event {tag}"
                )));
            }
        }
        Ok(())
    }

    fn on_own_event(&mut self, now: Micros) {
        match self.horizon {
            Some(h) if now > h => self.cut = true,
            _ => {
                self.before_last = self.last_event;
                self.last_event = now;
                self.events += 1;
            }
        }
    }

    fn on_done(&mut self, ctx: &mut Ctx<'_, '_, '_>, job: u32) -> Result<()> {
        let now = ctx.now();
        let r = (job - self.first) as usize;
        let rec = &mut self.jobs[r];
        if rec.cancelled || rec.completed {
            return Ok(());
        }
        rec.completed = true;
        rec.end = now;
        let (i, k, level, acc) = (
            rec.tenant as usize,
            rec.model as usize,
            rec.level as usize,
            rec.accuracy,
        );
        self.completion_order.push(r as u32);
        // S falls by the rise of best_i, read before the policies record
        // the completion (DESIGN §2.6).
        self.regret.advance(now);
        self.regret.completed(i, self.tenants.best(i), acc);
        self.policies
            .completed(&mut self.tenants, now, i, k, level, acc)
    }

    fn on_preempted(&mut self, job: u32, _now: Micros) -> Result<()> {
        self.resume.push_back(job);
        Ok(())
    }

    fn fill(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        let now = ctx.now();
        if self.stopped || self.horizon.is_some_and(|h| now >= h) {
            return Ok(());
        }
        self.tenants.set_now(now);
        if self.priority == Priority::Low {
            // Preempted jobs first, in the order they were preempted.
            while let Some(&j) = self.resume.front() {
                if ctx.state().status(j) != Status::Waiting || ctx.start(j)? {
                    self.resume.pop_front();
                } else {
                    break;
                }
            }
            if !self.resume.is_empty() {
                return Ok(());
            }
        }
        let gpj = u64::from(self.gpus_per_job);
        loop {
            let state = ctx.state();
            if self.holding(state) + gpj > self.max_gpus {
                break;
            }
            if self.priority == Priority::Equal && state.waiting_of(1) > 0 {
                // One request in the cluster's queue at a time.
                break;
            }
            let gpu_type = match (self.request_type(state), self.priority) {
                (Some(t), _) => t,
                (None, Priority::Equal) => self.default_type,
                (None, Priority::Low) => break,
            };
            let cap_left = self.max_gpus - self.holding(state);
            let free = state.cluster().free_total().min(cap_left);
            let free = u32::try_from(free).unwrap_or(u32::MAX);
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
                Decision::Start(s) => s,
            };
            let r = self.jobs.len();
            if r >= self.capacity {
                return Err(Error::input(
                    "internal error: the service submitted more jobs than it has room for",
                ));
            }
            let j = self.engine_job(r);
            ctx.prepare(
                j,
                Job {
                    submit: now,
                    duration: start.runtime,
                    gpus: self.gpus_per_job,
                    user: self.user,
                    cpus: 0,
                },
                gpu_type,
            )?;
            self.jobs.push(JobRecord {
                tenant: start.tenant as u32,
                model: start.model as u32,
                // Below `MAX_LEVELS` = u16::MAX (models/trace/build.rs).
                level: start.level as u16,
                gpu: u32::MAX,
                start: now,
                end: now.saturating_add(start.runtime),
                accuracy: start.accuracy,
                completed: false,
                cancelled: false,
            });
            self.runtime.push(start.runtime);
            self.prev_job.push(self.last_job[start.tenant]);
            self.last_job[start.tenant] = r as u32;
            self.policies.started(&mut self.tenants, &start)?;
            ctx.submit(j)?;
            match self.priority {
                Priority::Equal => ctx.pass()?,
                Priority::Low => {
                    if !ctx.start(j)? {
                        return Err(Error::input(format!(
                            "internal error: the service's job {r} was decided for a free GPU of type {gpu_type} but does not fit"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}
