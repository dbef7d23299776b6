//! One decision of the model-selection service (DESIGN §2.4), shared by
//! model mode's private pool ([`super::simulate`]) and the service of a
//! shared cluster ([`crate::shared`] builds on it): the scheduler picks a
//! tenant, the selector its model, the choice is checked, its runtime and
//! budget computed; and what follows a start, a completion, an arrival.
//! Policies are called through their traits only.

use super::{GpuTypes, Proposal, Scheduler, Selector, Tenants};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::held::Held;
use crate::core::sim::policy_clock::PolicyClock;
use crate::models::trace::{Micros, Trace};

/// The policies of a run and the clock that times them: borrowed for a
/// batch run, owned by a steppable shared run (DESIGN §15.6).
pub struct Policies<'p> {
    /// Picks a tenant.
    pub scheduler: Held<'p, dyn Scheduler + 'p>,
    /// Picks its model.
    pub selector: Held<'p, dyn Selector + 'p>,
    /// Time inside their calls.
    pub clock: PolicyClock,
}

impl std::fmt::Debug for Policies<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policies").finish_non_exhaustive()
    }
}

/// A job to start: tenant `tenant` trains `model` at `level`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Start {
    /// Tenant index.
    pub tenant: usize,
    /// Trace model index.
    pub model: usize,
    /// Level it trains at (0 on a plain trace).
    pub level: usize,
    /// Whether `level` is the pair's top level.
    pub top: bool,
    /// Its runtime on the decision's GPU type, µs.
    pub runtime: Micros,
    /// The accuracy it reports when it completes.
    pub accuracy: f64,
}

/// What a decision is given: the scheduler's pick, or a driver's choice
/// (DESIGN §15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// No tenant: the GPU stays idle until the next event (no more
    /// decisions at this instant).
    Idle,
    /// This tenant; its selector proposes the model.
    Tenant(usize),
    /// This tenant and this model (trace model index), at the pair's top
    /// level; the selector is not asked.
    Pair(usize, usize),
}

impl Choice {
    /// A scheduler's pick as a choice.
    pub fn of(picked: Option<usize>) -> Self {
        picked.map_or(Self::Idle, Self::Tenant)
    }
}

/// What one decision gave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// The scheduler picked no tenant: no more decisions at this instant.
    Stop,
    /// The picked tenant starts nothing (it waits, or its budget is
    /// spent): decide again.
    Again,
    /// Start this job.
    Start(Start),
}

impl Policies<'_> {
    /// Tenant `i` changed: the scheduler hears of it.
    pub fn changed(&mut self, tenants: &Tenants, i: usize) -> Result<()> {
        let tick = self.clock.start();
        let r = self.scheduler.tenant_changed(tenants, i);
        self.clock.stop(tick);
        r
    }

    /// One decision at `now` for a GPU of type `gpu_type`, `free_gpus`
    /// free (DESIGN §2.4): the scheduler picks a tenant, the selector its
    /// model; a tenant the selector proposes nothing for waits (§12.2), a
    /// job that would cross the tenant's budget is not started and the
    /// tenant stops being eligible (§2.7). A policy's error, or a choice
    /// that breaks the rules, stops the run. It is [`Self::pick`] followed
    /// by [`Self::decide_for`] on the scheduler's pick.
    pub fn decide(
        &mut self,
        trace: &Trace,
        types: &GpuTypes,
        tenants: &mut Tenants,
        now: Micros,
        free_gpus: u32,
        gpu_type: GpuType,
    ) -> Result<Decision> {
        let picked = self.pick(tenants, now, free_gpus, gpu_type)?;
        self.decide_for(trace, types, tenants, gpu_type, Choice::of(picked))
    }

    /// The first half of a decision: the scheduler's pick at `now` for a
    /// GPU of type `gpu_type`, `free_gpus` free (`None`: no tenant, the
    /// GPU stays idle until the next event). Nothing but the scheduler's
    /// own state changes, so a steppable run can offer the pick and take
    /// another choice ([`Self::decide_for`]).
    pub fn pick(
        &mut self,
        tenants: &mut Tenants,
        now: Micros,
        free_gpus: u32,
        gpu_type: GpuType,
    ) -> Result<Option<usize>> {
        tenants.set_now(now);
        tenants.set_free_gpus(free_gpus);
        tenants.set_gpu_type(gpu_type);
        let tick = self.clock.start();
        let picked = self.scheduler.pick(tenants, &mut *self.selector);
        self.clock.stop(tick);
        picked
    }

    /// The second half of a decision, after [`Self::pick`] at the same
    /// instant: `choice` is the scheduler's pick, or another choice of a
    /// driver (DESIGN §15.1). A tenant takes the model its selector
    /// proposes, or `choice`'s model when it names one. A choice that
    /// breaks the rules (a tenant out of range or not eligible, a model
    /// unavailable, tried or at a level not allowed) is an error that
    /// changes nothing: the same decision can be taken again.
    pub fn decide_for(
        &mut self,
        trace: &Trace,
        types: &GpuTypes,
        tenants: &mut Tenants,
        gpu_type: GpuType,
        choice: Choice,
    ) -> Result<Decision> {
        let (i, model) = match choice {
            Choice::Idle => return Ok(Decision::Stop),
            Choice::Tenant(i) => (i, None),
            Choice::Pair(i, k) => (i, Some(k)),
        };
        if i >= tenants.len() || !tenants.is_eligible(i) {
            return Err(Error::policy(format!(
                "the scheduler picked tenant {i}, which is not eligible"
            )));
        }
        let proposal = match model {
            Some(k) => Some(Proposal::plain(k)),
            None => {
                let tick = self.clock.start();
                let proposal = self.selector.propose(tenants, i);
                self.clock.stop(tick);
                proposal?
            }
        };
        let Some(p) = proposal else {
            // Nothing to start now: the tenant waits for one of its jobs
            // to complete (DESIGN §12.2).
            tenants.wait(i);
            self.changed(tenants, i)?;
            return Ok(Decision::Again);
        };
        let u = tenants.user(i);
        if p.model >= trace.n_models()
            || !tenants.is_available(trace, i, p.model)
            || tenants.is_tried(i, p.model)
        {
            return Err(Error::policy(format!(
                "the selector proposed model {} for tenant {i}, which is unavailable or already tried",
                p.model
            )));
        }
        // On a plain trace an available pair (checked above) has the one
        // level 0: no read of the trace's mask, a cache miss per job at
        // 10^6 tenants (docs/PERFORMANCE.md, "Internet scale").
        let top = if trace.is_curve() {
            trace.top_level(u, p.model)
        } else {
            0
        };
        let level = p.level.unwrap_or(top);
        if level > top
            || tenants
                .level_started(i, p.model)
                .is_some_and(|s| level <= s)
        {
            return Err(Error::policy(format!(
                "the selector proposed level {level} of model {} for tenant {i}: expected a level above the highest started so far ({}) and at most the pair's top level {top}",
                p.model,
                tenants
                    .level_started(i, p.model)
                    .map_or("none".to_string(), |s| s.to_string()),
            )));
        }
        let runtime = if trace.is_curve() {
            let cost = trace.cost_us(u, p.model, tenants.level_done(i, p.model), level);
            types.scaled_us(trace, gpu_type, u, p.model, cost)
        } else {
            types.runtime_us(trace, gpu_type, u, p.model)
        };
        if tenants.would_exceed_budget(i, runtime) {
            // The job that would cross the budget is not started; the
            // tenant stops being eligible.
            tenants.exhaust(i);
            self.changed(tenants, i)?;
            return Ok(Decision::Again);
        }
        Ok(Decision::Start(Start {
            tenant: i,
            model: p.model,
            level,
            top: level == top,
            runtime,
            accuracy: trace.level_accuracy(u, p.model, level),
        }))
    }

    /// The job of `start` started (or, on a shared cluster, was
    /// submitted): the tenant's state, then the selector and scheduler.
    pub fn started(&mut self, tenants: &mut Tenants, start: &Start) -> Result<()> {
        let i = start.tenant;
        tenants.start(i, start.model, start.level, start.top, start.runtime);
        let tick = self.clock.start();
        let r = self
            .selector
            .started(i, start.model)
            .and_then(|()| self.scheduler.tenant_changed(tenants, i));
        self.clock.stop(tick);
        r
    }

    /// Tenant `i`'s job on `model` at `level` completed at `now` with
    /// `accuracy`: the tenant's state, the selector observes, the
    /// scheduler hears.
    pub fn completed(
        &mut self,
        tenants: &mut Tenants,
        now: Micros,
        i: usize,
        model: usize,
        level: usize,
        accuracy: f64,
    ) -> Result<()> {
        tenants.set_now(now);
        tenants.complete(i, model, level, accuracy);
        let tick = self.clock.start();
        let r = self
            .selector
            .observe(i, model, accuracy)
            .and_then(|()| self.scheduler.tenant_changed(tenants, i));
        self.clock.stop(tick);
        r
    }

    /// Tenant `i` arrived at `now`.
    pub fn arrived(&mut self, tenants: &mut Tenants, now: Micros, i: usize) -> Result<()> {
        tenants.set_now(now);
        tenants.arrive(i);
        self.changed(tenants, i)
    }
}
