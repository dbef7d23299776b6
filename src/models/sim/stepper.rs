//! A steppable model-selection run (DESIGN §15.1): the run stops at every
//! decision point (a free GPU at an instant), says what the decision needs
//! and the choice the scenario's own scheduler would make, and goes on
//! once it is given a choice. [`super::simulate`] is the driver that always
//! takes the scheduler's choice; a Python environment or a what-if fork is
//! another. A run can be forked at any point (DESIGN §15.2): the copy holds
//! its own state and its own policies and continues independently.

use super::arrival_feed::ArrivalFeed;
use super::decision::{Choice, Decision, Policies, Start};
use super::event::{ARRIVAL, COMPLETION, Event, PATIENCE};
use super::job_log::LogBuilder;
use super::tenants::{EndOfRun, NO_JOB};
use super::{Arrivals, JobSink, RunEndState, TenantUsers};
use super::{EndReason, EventQueue, GpuPool, GpuTypes, JobRecord, RunOutcome, SimConfig, Tenants};
use super::{PrefetchStep, Scheduler, Selector};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::held::{Held, Shared};
use crate::core::sim::policy_clock::PolicyClock;
use crate::core::sim::prefetch::HINT_FROM_LIVE;
use crate::core::sim::{Bits, Component, EventLoop};
use crate::models::trace::{Micros, Trace};
use std::sync::Arc;

/// Room in the event queue for the tenants present at once when the
/// arrivals are drawn as the run goes: 65,536 (2 MiB of events; the queue
/// grows past it, doubling).
const ROOM_FOR_PRESENT: usize = 1 << 16;

/// A decision the run waits for: GPU `gpu` (the lowest free one, of type
/// `gpu_type`) is free at `now`, `free_gpus` GPUs free in all (counting
/// it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecisionPoint {
    /// Simulated time, µs.
    pub now: Micros,
    /// The GPU the decision fills.
    pub gpu: u32,
    /// Its type (0 on an untyped cluster).
    pub gpu_type: GpuType,
    /// Free GPUs, counting `gpu`.
    pub free_gpus: u32,
    /// What the scenario's scheduler picked: taking it replays the
    /// built-in run.
    pub policy_choice: Choice,
}

/// What a choice did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decided {
    /// A job started (its number in the job log, and what it runs).
    Started(u32, Start),
    /// The tenant started nothing (it waits for a job of its own, or its
    /// budget is spent); the next decision is at the same instant.
    Again,
    /// No tenant: the free GPUs stay idle until the next event.
    Idle,
}

/// The state of one model-selection simulation and its policies.
struct ModelSelection<'a> {
    trace: Shared<'a, Trace>,
    types: Shared<'a, GpuTypes>,
    tenants: Tenants,
    pool: GpuPool,
    /// The records of the jobs running (or cancelled and still queued),
    /// each in a slot that is reused once its completion is processed.
    jobs: Vec<JobRecord>,
    /// The job log, written as jobs end (`None` once dropped,
    /// [`ModelRun::drop_log`]).
    log: Option<LogBuilder>,
    /// Slots of `jobs` free for reuse.
    free_slots: Vec<u32>,
    /// Per job slot: the previous and next running job of the same tenant
    /// (a list per tenant, newest first; what a leave cancels).
    prev_job: Vec<u32>,
    next_job: Vec<u32>,
    /// GPU-µs of the jobs completed or cancelled so far, in all, per GPU
    /// type (typed clusters), and below their pair's top level (the
    /// outcome's `busy`, `busy_by_type`, `low_fidelity_busy` with the
    /// jobs still running at the end added).
    busy: Busy,
    scheduler: Held<'a, dyn Scheduler + 'a>,
    selector: Held<'a, dyn Selector + 'a>,
    /// The time inside the policies' calls.
    clock: PolicyClock,
    /// The cumulative regret so far, when asked for ([`ModelRun::track_regret`]).
    regret: Option<RegretMeter>,
    /// The tenants whose state changed, when asked for
    /// ([`ModelRun::track_touched`]).
    touched: Option<Touched>,
    /// The observer of the jobs, when given ([`ModelRun::observe_jobs`]:
    /// the metrics folded as the run goes, DESIGN §2.6).
    fold: Option<Box<dyn JobSink>>,
    /// Arrivals drawn as the run goes, pushed one instant at a time
    /// (`None` when they are listed: one batch at the start).
    feed: Option<ArrivalFeed>,
}

/// The tenants whose state ([`Tenants`]) changed since the list was last
/// cleared, each once, in the order first touched (DESIGN §15.3: an
/// environment re-encodes only these tenants' observation). A tenant's
/// state changes only through the events and decisions of that tenant:
/// its arrival, a completion or cancellation of its job, its leaving, a
/// decision that picked it (a start, a wait or its budget spent); marking
/// there covers every change. Both vectors are allocated once: no
/// allocation per step.
#[derive(Debug, Clone)]
struct Touched {
    /// The touched tenants.
    list: Vec<u32>,
    /// Per tenant: in `list`.
    flag: Vec<bool>,
}

impl Touched {
    fn mark(&mut self, i: usize) {
        if !self.flag[i] {
            self.flag[i] = true;
            self.list.push(i as u32);
        }
    }

    fn clear(&mut self) {
        for &i in &self.list {
            self.flag[i as usize] = false;
        }
        self.list.clear();
    }
}

/// R(τ) = ∫ S dτ of DESIGN §2.6 accrued online, instant by instant: S, the
/// sum of the arrived tenants' losses ℓ_i = A*_i − best_i, is constant
/// between two instants, so before the events of instant `now` the area
/// grows by S × (now − t) and S then changes by each event (an arrival adds
/// A*_i, since best_i is 0 before its first job; a completion that raises
/// best_i subtracts the rise). Plain f64 sums, in event order: it agrees
/// with the metrics' compensated R(end) to rounding (the steppable tests
/// compare them), and is what a learner's reward is made of (DESIGN §15.3).
#[derive(Debug, Clone)]
struct RegretMeter {
    /// A*_i per tenant.
    best_possible: Vec<f64>,
    /// S after the last instant handled.
    sum: f64,
    /// Arrived tenants with a positive loss: none, and S is exactly 0 (as
    /// §2.6's compensated sum is), whatever the rounding of the updates.
    positive: usize,
    /// R up to `at`, accuracy·seconds.
    area: f64,
    /// The instant the area reaches.
    at: Micros,
    /// Whether a completion ever lowered S (a run in which none did, ended
    /// at its last arrival with S > 0, is stalled: DESIGN §2.6).
    fell: bool,
}

impl RegretMeter {
    fn advance(&mut self, now: Micros) {
        if now > self.at {
            self.area += self.sum * crate::core::sim::time::to_seconds(now - self.at);
            self.at = now;
        }
    }

    /// Tenant `i` arrives: its loss is A*_i (best_i = 0).
    fn arrived(&mut self, i: usize) {
        let a = self.best_possible[i];
        if a > 0.0 {
            self.sum += a;
            self.positive += 1;
        }
    }

    /// A job of tenant `i` completes with `acc`, its best so far `before`.
    fn completed(&mut self, i: usize, before: f64, acc: f64) {
        if acc > before {
            let a = self.best_possible[i];
            self.fell = true;
            self.sum -= acc - before;
            if before < a && acc >= a {
                self.positive -= 1;
            }
            if self.positive == 0 {
                self.sum = 0.0;
            }
        }
    }

    fn area_at(&self, t: Micros) -> f64 {
        self.area + self.sum * crate::core::sim::time::to_seconds(t.saturating_sub(self.at))
    }
}

/// A model-selection run that stops at each decision (DESIGN §15.1).
///
/// ```text
/// while let Some(point) = run.next_decision()? {
///     run.decide(point.policy_choice)?;   // or any other choice
/// }
/// let outcome = run.into_outcome()?;
/// ```
pub struct ModelRun<'a> {
    sim: ModelSelection<'a>,
    queue: EventQueue<Event>,
    looper: EventLoop,
    /// The instant whose free GPUs are being filled, if any.
    deciding: Option<Micros>,
    /// The decision the run waits for, once offered.
    pending: Option<DecisionPoint>,
    config: SimConfig,
    /// Changes of the cluster's size (DESIGN §15.4): (instant, GPUs from
    /// then on), in time order; empty when it never changed.
    resized: Vec<(Micros, u32)>,
}

impl std::fmt::Debug for ModelRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRun")
            .field("tenants", &self.sim.tenants.len())
            .field("job_slots", &self.sim.jobs.len())
            .field("pending", &self.pending)
            .field("done", &self.looper.is_done())
            .finish_non_exhaustive()
    }
}

impl<'a> ModelRun<'a> {
    /// A run of trace users `users` (ascending) arriving at `arrivals` on
    /// the cluster of `config` (whose GPU count must be `types`'), under
    /// `scheduler` and `selector`; nothing has happened yet.
    pub fn new(
        trace: Shared<'a, Trace>,
        types: Shared<'a, GpuTypes>,
        users: &TenantUsers,
        arrivals: &[Micros],
        config: SimConfig,
        scheduler: Held<'a, dyn Scheduler + 'a>,
        selector: Held<'a, dyn Selector + 'a>,
    ) -> Result<Self> {
        Self::sharing(
            trace,
            types,
            users.clone(),
            Arrivals::from(arrivals),
            config,
            scheduler,
            selector,
        )
    }

    /// [`Self::new`] holding the tenants' users and arrival times shared
    /// with the caller rather than copied (a repetition's runner keeps
    /// both for its results: 16 bytes for each of scale-year's 10^7
    /// tenants, DESIGN §8.5), or arrivals drawn as the run goes
    /// ([`Arrivals::Streamed`]: none held).
    pub fn sharing(
        trace: Shared<'a, Trace>,
        types: Shared<'a, GpuTypes>,
        users: TenantUsers,
        arrivals: Arrivals,
        config: SimConfig,
        scheduler: Held<'a, dyn Scheduler + 'a>,
        selector: Held<'a, dyn Selector + 'a>,
    ) -> Result<Self> {
        if types.gpus() != config.gpus {
            return Err(Error::input(format!(
                "internal: a cluster of {} typed GPUs for a configuration of {} GPUs",
                types.gpus(),
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
        let (queue, feed) = match &arrivals {
            Arrivals::Listed(times) => {
                // The heap holds at most one patience deadline per tenant
                // and one completion per GPU; the arrivals wait in the
                // queue's sorted run.
                let mut queue = EventQueue::with_capacity(users.len() + config.gpus as usize);
                // Every arrival is known now: one batch, sorted once
                // beside the queue's heap (same order as one push each;
                // DESIGN §2.3). One copy of the arrivals, shared by the
                // queue, the tenants and the caller.
                queue.push_batch(Arc::clone(times), ARRIVAL, |i| Event::Arrival { tenant: i });
                (queue, None)
            }
            Arrivals::Streamed(stream) => {
                // The heap holds the patience deadlines of the tenants
                // present, the completions and one instant's arrivals:
                // room for the GPUs and as many tenants present, growing
                // past that (not one event for each of 10^7 tenants).
                let room = config.gpus as usize + users.len().min(ROOM_FOR_PRESENT);
                let mut queue = EventQueue::with_capacity(room);
                let feed = ArrivalFeed::start(stream.draws(), &mut queue);
                (queue, Some(feed))
            }
        };
        let tenants = Tenants::sharing(
            &trace,
            users,
            arrivals,
            config.max_jobs_per_tenant,
            config.limits,
        );
        let busy = Busy::new(types.n_types(), types.is_typed());
        Ok(Self {
            sim: ModelSelection {
                trace,
                types,
                tenants,
                pool: GpuPool::new(config.gpus),
                jobs: Vec::new(),
                log: Some(LogBuilder::new()?),
                free_slots: Vec::new(),
                prev_job: Vec::new(),
                next_job: Vec::new(),
                busy,
                scheduler,
                selector,
                clock: PolicyClock::default(),
                regret: None,
                touched: None,
                fold: None,
                feed,
            },
            queue,
            looper: EventLoop::new(config.horizon),
            deciding: None,
            pending: None,
            config,
            resized: Vec::new(),
        })
    }

    /// Advance to the next decision point and return it (the same point
    /// again while it is not decided), or `None` once the run has ended.
    /// Events are handled as [`super::simulate`] handles them; at each
    /// instant the free GPUs are offered lowest index first, one decision
    /// at a time, after the scheduler picked (its pick is the point's
    /// [`DecisionPoint::policy_choice`]).
    pub fn next_decision(&mut self) -> Result<Option<DecisionPoint>> {
        // A done tenant's state that could not be read back stops the run
        // (never a decision from a wrong state).
        self.sim.tenants.check()?;
        loop {
            if self.pending.is_some() {
                return Ok(self.pending);
            }
            if let Some(now) = self.deciding {
                if let Some(lowest) = self.sim.pool.peek_lowest() {
                    let free = u32::try_from(self.sim.pool.free_count()).unwrap_or(u32::MAX);
                    let gpu_type = self.sim.types.type_of(lowest);
                    // A policy's error stops the run at once (no result is
                    // written).
                    let picked = self
                        .sim
                        .with_policies(|p, tenants, _, _| p.pick(tenants, now, free, gpu_type))?;
                    self.pending = Some(DecisionPoint {
                        now,
                        gpu: lowest,
                        gpu_type,
                        free_gpus: free,
                        policy_choice: Choice::of(picked),
                    });
                    continue;
                }
                self.deciding = None;
            }
            match self.looper.next_instant(&mut self.sim, &mut self.queue)? {
                Some(now) => {
                    self.sim.tenants.set_now(now);
                    self.deciding = Some(now);
                }
                None => return Ok(None),
            }
        }
    }

    /// Take `choice` at the pending decision point. A choice that breaks
    /// the rules (DESIGN §15.1: a tenant out of range or not eligible, a
    /// model unavailable or tried) is an error that changes nothing: the
    /// point stays pending and another choice can be taken. An error of a
    /// policy (its selector or scheduler) ends the run.
    pub fn decide(&mut self, choice: Choice) -> Result<Decided> {
        let Some(point) = self.pending else {
            return Err(Error::usage(
                "no decision is pending: call `next_decision` first (or the run has ended)",
            ));
        };
        let decision = self.sim.with_policies(|p, tenants, trace, types| {
            p.decide_for(trace, types, tenants, point.gpu_type, choice)
        })?;
        if let (Choice::Tenant(i) | Choice::Pair(i, _), Some(t)) = (choice, &mut self.sim.touched) {
            // A start, a wait or a spent budget: only tenant i changed.
            t.mark(i);
        }
        self.pending = None;
        Ok(match decision {
            Decision::Stop => {
                self.deciding = None;
                Decided::Idle
            }
            Decision::Again => Decided::Again,
            Decision::Start(start) => {
                let job = self.sim.start(point.now, &start, &mut self.queue)?;
                Decided::Started(job, start)
            }
        })
    }

    /// Accrue the cumulative regret R(τ) from here on (DESIGN §2.6, §15.3;
    /// [`Self::regret_area`]); call it before the first step, or the
    /// regret before it is missed (an error then).
    pub fn track_regret(&mut self) -> Result<()> {
        if self.looper.end().events > 0 {
            return Err(Error::usage(
                "the regret is tracked from a run's start: call `track_regret` before the first step",
            ));
        }
        let trace: &Trace = &self.sim.trace;
        let best_possible = self
            .sim
            .tenants
            .users()
            .iter()
            .map(|u| trace.best_accuracy(u))
            .collect();
        self.sim.regret = Some(RegretMeter {
            best_possible,
            sum: 0.0,
            positive: 0,
            area: 0.0,
            at: 0,
            fell: false,
        });
        Ok(())
    }

    /// Tell `sink` of every arrival, job start, completion and
    /// cancellation from here on, and of the run's end (DESIGN §2.6: the
    /// metrics folded as the run goes; [`RunOutcome::folded`] holds what
    /// it returns); call it before the first step (an error after).
    pub fn observe_jobs(&mut self, sink: Box<dyn JobSink>) -> Result<()> {
        if self.looper.end().events > 0 {
            return Err(Error::usage(
                "jobs are observed from a run's start: call `observe_jobs` before the first step",
            ));
        }
        self.sim.fold = Some(sink);
        Ok(())
    }

    /// R(τ) = ∫₀^τ S dτ up to `τ` = the last instant handled (the run's
    /// end once it has ended), accuracy·seconds, when tracked
    /// ([`Self::track_regret`]).
    pub fn regret_area(&self) -> Option<f64> {
        self.sim.regret.as_ref().map(|m| m.area_at(self.now()))
    }

    /// When tracked: S, the regret's rate after the last instant handled
    /// (the arrived tenants' summed loss, DESIGN §2.6; exactly 0 when none
    /// has a positive loss), and whether a completion ever lowered it.
    pub fn regret_rate(&self) -> Option<(f64, bool)> {
        self.sim
            .regret
            .as_ref()
            .map(|m| (if m.positive > 0 { m.sum } else { 0.0 }, m.fell))
    }

    /// Why tenant `i` stopped asking for GPUs, were the run to end now
    /// (`tenants.csv`'s `ended`; [`Tenants::end_reason`] with the
    /// selector's schedule).
    pub fn end_reason(&self, i: usize) -> EndReason {
        self.sim
            .tenants
            .end_reason(i, self.sim.selector.schedule_over(i))
    }

    /// Record from here on which tenants' state changes ([`Self::touched`];
    /// DESIGN §15.3: what an environment's observation must re-encode).
    /// Every tenant counts as touched at first. Calling it again changes
    /// nothing.
    pub fn track_touched(&mut self) {
        if self.sim.touched.is_none() {
            let n = self.sim.tenants.len();
            let mut t = Touched {
                list: Vec::with_capacity(n),
                flag: vec![false; n],
            };
            (0..n).for_each(|i| t.mark(i));
            self.sim.touched = Some(t);
        }
    }

    /// The tenants whose state ([`Self::tenants`]) changed since the last
    /// [`Self::clear_touched`] (every tenant before the first), each once;
    /// empty unless tracked ([`Self::track_touched`]). A tenant not listed
    /// reads as it did then, except what depends on the clock alone.
    pub fn touched(&self) -> &[u32] {
        self.sim.touched.as_ref().map_or(&[], |t| &t.list)
    }

    /// Empty the list of [`Self::touched`] tenants.
    pub fn clear_touched(&mut self) {
        if let Some(t) = &mut self.sim.touched {
            t.clear();
        }
    }

    /// The tenants' state (what every policy reads).
    pub fn tenants(&self) -> &Tenants {
        &self.sim.tenants
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        &self.sim.trace
    }

    /// Time the policies' calls as the continuation of `clock` (DESIGN §10
    /// "Policy time"): its calls count toward the first ones timed
    /// exactly, so runs simulated one after another (each tenant alone
    /// under `fairness`) are timed as one long run, about one call in 16
    /// once past them, instead of every call of every short run being timed.
    /// Only the measurement changes: the outcome's `policy_clock` is
    /// `clock` continued.
    pub fn continue_clock(&mut self, clock: PolicyClock) {
        self.sim.clock = clock;
    }

    /// Keep no job log (DESIGN §8.5): only the jobs running are held, and
    /// the outcome's `jobs` and `completion_order` are empty (its metrics
    /// come from [`Self::observe_jobs`]); call it before the first step
    /// (an error after).
    pub fn drop_log(&mut self) -> Result<()> {
        if self.looper.end().events > 0 {
            return Err(Error::usage(
                "the job log is dropped from a run's start: call `drop_log` before the first step",
            ));
        }
        self.sim.log = None;
        Ok(())
    }

    /// The decision the run waits for, if one was offered.
    pub fn pending(&self) -> Option<DecisionPoint> {
        self.pending
    }

    /// Whether the run has ended (no event left before the horizon).
    pub fn is_done(&self) -> bool {
        self.looper.is_done()
    }

    /// Simulated time so far: the last instant handled, µs.
    pub fn now(&self) -> Micros {
        self.looper.end().end
    }

    /// An independent copy of the run at this point, with copies of its
    /// policies ([`Scheduler::fork`], [`Selector::fork`]; an error if one
    /// cannot be forked). Continued with the same choices it gives the
    /// same outcome as the original (DESIGN §15.2). Nothing is read from
    /// or written to a file; the trace and the cluster's types are shared,
    /// not copied.
    pub fn fork(&self) -> Result<ModelRun<'a>> {
        let s = &self.sim;
        Ok(ModelRun {
            sim: ModelSelection {
                trace: s.trace.clone(),
                types: s.types.clone(),
                tenants: s.tenants.clone(),
                pool: s.pool.clone(),
                jobs: s.jobs.clone(),
                log: s.log.as_ref().map(LogBuilder::try_clone).transpose()?,
                free_slots: s.free_slots.clone(),
                prev_job: s.prev_job.clone(),
                next_job: s.next_job.clone(),
                busy: s.busy.clone(),
                scheduler: Held::Owned(s.scheduler.fork()?),
                selector: Held::Owned(s.selector.fork()?),
                clock: s.clock,
                regret: s.regret.clone(),
                touched: s.touched.clone(),
                fold: s.fold.as_ref().map(|f| f.fork()),
                feed: s.feed.clone(),
            },
            queue: self.queue.clone(),
            looper: self.looper,
            deciding: self.deciding,
            pending: self.pending,
            config: self.config,
            resized: self.resized.clone(),
        })
    }

    /// GPUs in the cluster now (busy or free).
    pub fn gpus(&self) -> u32 {
        self.sim.pool.active()
    }

    /// GPUs free now.
    pub fn free_gpus(&self) -> u32 {
        u32::try_from(self.sim.pool.free_count()).unwrap_or(u32::MAX)
    }

    /// Add `n` GPUs at the pending decision's instant (a what-if, DESIGN
    /// §15.4): they are free at once, numbered after every GPU the run
    /// had, and offered at the same instant after the pending decision
    /// (which stays as offered, its `free_gpus` counting them). Only on an
    /// untyped cluster (a typed one is an error), only at a decision point,
    /// and the cluster stays within [`MAX_GPUS`](crate::core::limits::MAX_GPUS).
    /// Adding 0 changes nothing.
    pub fn add_gpus(&mut self, n: u32) -> Result<()> {
        let point = self.resizable("add")?;
        if n == 0 {
            return Ok(());
        }
        let after = u64::from(self.sim.pool.active()) + u64::from(n);
        if after > crate::core::limits::MAX_GPUS
            || u64::from(self.sim.pool.total()) + u64::from(n) > u64::from(u32::MAX)
        {
            return Err(Error::usage(format!(
                "adding {n} GPUs to {} would pass the limit of {} GPUs",
                self.sim.pool.active(),
                crate::core::limits::MAX_GPUS
            )));
        }
        if !self.sim.pool.add(n) {
            return Err(Error::input("internal: GPU numbers overflowed"));
        }
        self.resized(point.now);
        self.pending = Some(DecisionPoint {
            free_gpus: self.free_gpus(),
            ..point
        });
        Ok(())
    }

    /// Remove `n` free GPUs at the pending decision's instant (a what-if,
    /// DESIGN §15.4), the highest-numbered first: a busy GPU is never
    /// removed, so removing more GPUs than are free is an error that
    /// changes nothing, and so is leaving the cluster with none. While a
    /// free GPU is left the pending decision stays as offered (it fills
    /// the lowest free GPU, removed last; its `free_gpus` is updated);
    /// removing every free GPU withdraws it, and the run goes on to the
    /// next event. Only on an untyped cluster; removing 0 changes nothing.
    pub fn remove_gpus(&mut self, n: u32) -> Result<()> {
        let point = self.resizable("remove")?;
        if n == 0 {
            return Ok(());
        }
        let (free, active) = (self.free_gpus(), self.sim.pool.active());
        if n > free {
            return Err(Error::usage(format!(
                "cannot remove {n} GPUs: {free} of the {active} GPUs are free at {} s, \
                 and only free GPUs can be removed",
                crate::core::sim::time::to_seconds(point.now)
            )));
        }
        if n >= active {
            return Err(Error::usage(format!(
                "cannot remove {n} GPUs: the cluster has {active}, and at least one must remain"
            )));
        }
        if !self.sim.pool.remove_free(n) {
            return Err(Error::input("internal: fewer free GPUs than counted"));
        }
        self.resized(point.now);
        self.pending = match self.sim.pool.peek_lowest() {
            Some(gpu) if gpu == point.gpu => Some(DecisionPoint {
                free_gpus: self.free_gpus(),
                ..point
            }),
            Some(_) => return Err(Error::input("internal: the pending GPU was removed")),
            None => {
                // No free GPU is left at this instant: nothing to decide.
                self.deciding = None;
                None
            }
        };
        Ok(())
    }

    /// The pending decision, if the cluster may be resized there (`what`:
    /// "add" or "remove", for the messages).
    fn resizable(&self, what: &str) -> Result<DecisionPoint> {
        if self.sim.types.is_typed() {
            return Err(Error::usage(format!(
                "cannot {what} GPUs on a cluster of typed GPUs (`[cluster] nodes`): \
                 only a cluster of identical GPUs (`[cluster] gpus = N`) can change size"
            )));
        }
        self.pending.ok_or_else(|| {
            Error::usage(format!(
                "GPUs can be {what}ed only at a decision point: call `next_decision` first \
                 (or the run has ended)"
            ))
        })
    }

    /// Record the cluster's size from `now` on.
    fn resized(&mut self, now: Micros) {
        let gpus = self.sim.pool.active();
        match self.resized.last_mut() {
            Some(last) if last.0 == now => last.1 = gpus,
            _ => self.resized.push((now, gpus)),
        }
    }

    /// Replace the policies from this point on (a what-if fork, DESIGN
    /// §15.2). The new scheduler first hears of every tenant's state (as
    /// at an arrival), so an incremental scheduler starts from the run's
    /// state; the new selector sees only the jobs that complete from now
    /// on. A pending decision is withdrawn and offered again, picked by
    /// the new scheduler.
    pub fn replace_policies(
        &mut self,
        scheduler: Held<'a, dyn Scheduler + 'a>,
        selector: Held<'a, dyn Selector + 'a>,
    ) -> Result<()> {
        self.sim.scheduler = scheduler;
        self.sim.selector = selector;
        for i in 0..self.sim.tenants.len() {
            if self.sim.tenants.has_arrived(i) {
                self.sim
                    .with_policies(|p, tenants, _, _| p.changed(tenants, i))?;
            }
        }
        self.pending = None;
        Ok(())
    }

    /// The run's outcome once it has ended ([`Self::next_decision`]
    /// returned `None`): its job log and what the metrics read.
    pub fn into_outcome(self) -> Result<RunOutcome> {
        if !self.looper.is_done() {
            return Err(Error::usage(
                "the run has not ended: step it until `next_decision` returns None",
            ));
        }
        let end = self.looper.end();
        // What only the simulation read goes before the fold builds its
        // rows (the run's peak of memory at 10^7 tenants: docs/
        // PERFORMANCE.md "Internet scale"): the event queue and the
        // policies when the run owns them (borrowed ones are the
        // caller's), once the selector said whose schedule is over; then
        // the tenants' end states are read, in one pass over the parked
        // tenants' state (DESIGN §2.6 "Done tenants"; above 65,536 tenants
        // into sorted runs on disk, read back in tenant order by the
        // fold: `EndStates`), and of the engine's
        // per-tenant state all but the tenants' users and arrival times
        // goes (the fold reads both at the end: the A*_i and the arrival of
        // tenants that never arrived, DESIGN §2.6).
        drop(self.queue);
        let sim = self.sim;
        // One bit a tenant, not a `bool` (DESIGN §8.5).
        let mut over = Bits::new(sim.tenants.len());
        for i in (0..sim.tenants.len()).filter(|&i| sim.selector.schedule_over(i)) {
            over.set(i);
        }
        drop(sim.scheduler);
        drop(sim.selector);
        let EndOfRun {
            states: end_states,
            left_at,
        } = sim.tenants.end_reasons(|i| over.get(i))?;
        drop(over);
        let arrivals = sim.tenants.arrivals();
        let users_of = sim.tenants.into_users();
        let trace: &Trace = &sim.trace;
        let gpu_types: &GpuTypes = &sim.types;
        let users: &TenantUsers = &users_of;
        // The GPU time of the completed and cancelled jobs, and of the
        // jobs still running, up to the end (integer sums: the order of
        // the terms does not matter).
        let mut busy = sim.busy.clone();
        let running = |slot: &usize| {
            let j = &sim.jobs[*slot];
            !j.completed && !j.cancelled
        };
        for slot in (0..sim.jobs.len()).filter(running) {
            busy.add(trace, gpu_types, users, &sim.jobs[slot], end.end);
        }
        // The jobs still running end here, cut: their records are final
        // (DESIGN §2.6: listed in the log, never completed).
        let (jobs, completion_order) = match sim.log {
            Some(mut log) => {
                for slot in (0..sim.jobs.len()).filter(running) {
                    log.ended(slot as u32, &sim.jobs[slot])?;
                }
                log.seal()?
            }
            None => Default::default(),
        };
        let Busy {
            all: busy,
            by_type: busy_by_type,
            low_fidelity: low_fidelity_busy,
        } = busy;
        let capacity = capacity(self.config.gpus, &self.resized, end.end);
        let folded = sim.fold.map(|f| {
            let state = RunEndState {
                end: end.end,
                left_at: &left_at,
                end_states: &end_states,
                limits: self.config.limits,
                arrivals: &arrivals,
            };
            let mut cut = sim
                .jobs
                .iter()
                .filter(|j| !j.completed && !j.cancelled)
                .map(|j| (j.tenant as usize, j.start, j.end));
            f.finish(
                &state,
                &|i| trace.models_of(users.user(i)).len(),
                &|i| trace.best_accuracy(users.user(i)),
                &mut cut,
            )
        });
        Ok(RunOutcome {
            jobs,
            completion_order,
            end: end.end,
            busy,
            busy_by_type,
            low_fidelity_busy,
            events: end.events,
            gpus: self.config.gpus,
            capacity,
            left_at,
            end_states,
            policy_clock: sim.clock,
            folded,
        })
    }
}

/// The GPU-µs a cluster of `gpus` GPUs resized at `resized` (instant, GPUs
/// from then on; DESIGN §15.4) had up to `end`: Σ over the stretches
/// [t_k, t_{k+1}) ∩ [0, end) of (GPUs in stretch k) × (its length), the
/// last stretch reaching `end`. `None` when it was never resized (the
/// capacity is then GPUs × end, [`RunOutcome::capacity`]).
fn capacity(gpus: u32, resized: &[(Micros, u32)], end: Micros) -> Option<u128> {
    if resized.is_empty() {
        return None;
    }
    let (mut total, mut from, mut count) = (0u128, 0, gpus);
    for &(at, after) in resized {
        let at = at.min(end);
        total += u128::from(count) * u128::from(at.saturating_sub(from));
        (from, count) = (at.max(from), after);
    }
    total += u128::from(count) * u128::from(end.saturating_sub(from));
    Some(total)
}

impl Component for ModelSelection<'_> {
    type Event = Event;

    fn on_event(&mut self, now: Micros, event: Event, queue: &mut EventQueue<Event>) -> Result<()> {
        self.tenants.set_now(now);
        if let Some(m) = &mut self.regret {
            m.advance(now);
        }
        match event {
            Event::Completion { job } => {
                let rec = &mut self.jobs[job as usize];
                if rec.cancelled {
                    self.free_slot(job);
                    return Ok(());
                }
                rec.completed = true;
                let rec = *rec;
                let (i, k, acc) = (rec.tenant as usize, rec.model as usize, rec.accuracy);
                self.stopped(job, &rec, now);
                if let Some(t) = &mut self.touched {
                    t.mark(i);
                }
                let level = rec.level as usize;
                self.pool.release(rec.gpu);
                if let Some(log) = &mut self.log {
                    log.ended(job, &rec)?;
                    log.completed(job)?;
                }
                self.free_slot(job);
                if let Some(f) = &mut self.fold {
                    f.completed(i, rec.start, now, acc);
                }
                if let Some(m) = &mut self.regret {
                    m.completed(i, self.tenants.best(i), acc);
                }
                self.with_policies(|p, tenants, _, _| p.completed(tenants, now, i, k, level, acc))?;
                self.tell_if_done(i)?;
                self.prefetch_next(queue);
            }
            Event::Arrival { tenant } => {
                if let Some(feed) = &mut self.feed {
                    feed.popped(queue);
                }
                if let Some(t) = &mut self.touched {
                    t.mark(tenant as usize);
                }
                if let Some(m) = &mut self.regret {
                    m.arrived(tenant as usize);
                }
                if let Some(f) = &mut self.fold {
                    let i = tenant as usize;
                    f.arrived(now, i, self.trace.best_accuracy(self.tenants.user(i)));
                }
                self.with_policies(|p, tenants, _, _| p.arrived(tenants, now, tenant as usize))?;
                if let Some(p) = self.tenants.limits().patience {
                    queue.push(now.saturating_add(p), PATIENCE, Event::Patience { tenant });
                }
            }
            Event::Patience { tenant } => {
                let i = tenant as usize;
                // A parked tenant was parked after a completion or its
                // leave: nothing to do, and nothing to read back.
                if !self.tenants.is_parked(i)
                    && self.tenants.completed(i) == 0
                    && !self.tenants.has_left(i)
                {
                    self.leave(i, now)?;
                }
            }
        }
        Ok(())
    }

    /// The decisions of an instant are taken by [`ModelRun`], between two
    /// instants.
    fn after_instant(&mut self, _now: Micros, _queue: &mut EventQueue<Event>) -> Result<()> {
        Ok(())
    }
}

impl<'a> ModelSelection<'a> {
    /// Prefetch hints for the tenants of the next three completions
    /// (DESIGN §10.4 "Prefetch hints"): the third's slot numbers, the
    /// second's slots and trace row, the next one's posterior. Each
    /// completion moves a tenant one step on, so each step reads what the
    /// step before hinted. Then for the scheduler's next picks
    /// ([`Scheduler::next_picks`]), whose decisions follow this completion
    /// and the next two: the second's slots and trace row, the third's
    /// slot numbers (a decision reads a cached proposal, not the
    /// posterior; the first pick, picked now, had its slots hinted at the
    /// completion before). Changes nothing. Only once
    /// [`HINT_FROM_LIVE`] tenants have been live at once: below, their
    /// state is in the caches.
    fn prefetch_next(&self, queue: &EventQueue<Event>) {
        if self.tenants.high_water() < HINT_FROM_LIVE {
            return;
        }
        let tenant = |e: Option<&Event>| match e {
            Some(Event::Completion { job }) => {
                self.jobs.get(*job as usize).map(|r| r.tenant as usize)
            }
            _ => None,
        };
        let [next, second, third] = queue.next_from_heap().map(tenant);
        // A completion reads the tenant's runtimes (its selector scores
        // its models), a job start one accuracy and one runtime.
        self.hint(third, PrefetchStep::Index, false);
        self.hint(second, PrefetchStep::Record, false);
        self.hint(next, PrefetchStep::Data, false);
        let [_, second, third] = self.scheduler.next_picks();
        self.hint(third, PrefetchStep::Index, true);
        self.hint(second, PrefetchStep::Record, true);
    }

    /// Hint `step` of `tenant`'s state to the engine and both policies;
    /// at [`PrefetchStep::Record`] also its trace row: runtimes, and with
    /// `accuracies` the accuracies too. Nothing for a tenant out of range.
    fn hint(&self, tenant: Option<usize>, step: PrefetchStep, accuracies: bool) {
        let Some(i) = tenant.filter(|&i| i < self.tenants.len()) else {
            return;
        };
        self.tenants.prefetch(i, step);
        self.selector.prefetch(i, step);
        self.scheduler.prefetch(i, step);
        if step == PrefetchStep::Record {
            let u = self.tenants.user(i);
            if accuracies {
                self.trace.prefetch_row(u);
            } else {
                self.trace.prefetch_runtimes(u);
            }
        }
    }

    /// Call `f` with the policies, the tenants, the trace and the types.
    fn with_policies<R>(
        &mut self,
        f: impl FnOnce(&mut Policies<'_>, &mut Tenants, &Trace, &GpuTypes) -> R,
    ) -> R {
        let mut p = Policies {
            scheduler: Held::Borrowed(&mut *self.scheduler),
            selector: Held::Borrowed(&mut *self.selector),
            clock: self.clock,
        };
        let r = f(&mut p, &mut self.tenants, &self.trace, &self.types);
        self.clock = p.clock;
        r
    }

    /// Start `start` at `now` on the lowest free GPU; its number in the
    /// job log.
    fn start(&mut self, now: Micros, start: &Start, queue: &mut EventQueue<Event>) -> Result<u32> {
        let Some(gpu) = self.pool.take_lowest() else {
            return Err(Error::input("internal: a job started with no free GPU"));
        };
        let finish = now.checked_add(start.runtime).ok_or_else(|| {
            Error::input("simulated time overflowed 2^64 µs: runtimes are too large")
        })?;
        let rec = JobRecord {
            tenant: start.tenant as u32,
            model: start.model as u32,
            // Below `MAX_LEVELS` = u16::MAX (models/trace/build.rs).
            level: start.level as u16,
            gpu,
            start: now,
            end: finish,
            accuracy: start.accuracy,
            completed: false,
            cancelled: false,
        };
        let job = match self.free_slots.pop() {
            Some(slot) => {
                self.jobs[slot as usize] = rec;
                slot
            }
            None => {
                let job = u32::try_from(self.jobs.len())
                    .map_err(|_| Error::input("more than 2^32 jobs in one run"))?;
                self.jobs.push(rec);
                self.prev_job.push(NO_JOB);
                self.next_job.push(NO_JOB);
                job
            }
        };
        // Its number in the log (without the log, its slot).
        let number = match &mut self.log {
            Some(log) => log.started(job)?,
            None => job,
        };
        if let Some(f) = &mut self.fold {
            f.started(start.tenant, now, finish);
        }
        // Link it at the head of its tenant's running jobs.
        let head = self.tenants.last_job(start.tenant);
        self.prev_job[job as usize] = head;
        self.next_job[job as usize] = NO_JOB;
        if head != NO_JOB {
            self.next_job[head as usize] = job;
        }
        self.tenants.set_last_job(start.tenant, job);
        self.with_policies(|p, tenants, _, _| p.started(tenants, start))?;
        queue.push(finish, COMPLETION, Event::Completion { job });
        Ok(number)
    }

    /// Job `job` (`rec`) stops at `at`, completed or cancelled: it leaves
    /// its tenant's running jobs and its GPU time counts as busy.
    fn stopped(&mut self, job: u32, rec: &JobRecord, at: Micros) {
        let (p, n) = (self.prev_job[job as usize], self.next_job[job as usize]);
        if n == NO_JOB {
            self.tenants.set_last_job(rec.tenant as usize, p);
        } else {
            self.prev_job[n as usize] = p;
        }
        if p != NO_JOB {
            self.next_job[p as usize] = n;
        }
        let users = self.tenants.users();
        self.busy.add(&self.trace, &self.types, users, rec, at);
    }

    /// Slot `job` may be reused once its completion was processed.
    fn free_slot(&mut self, job: u32) {
        self.free_slots.push(job);
    }

    /// Tenant `i` leaves at `now`: its running jobs are cancelled (their GPUs
    /// freed, their accuracy never observed), it is never eligible again and
    /// its loss stays frozen.
    fn leave(&mut self, i: usize, now: Micros) -> Result<()> {
        if let Some(t) = &mut self.touched {
            t.mark(i);
        }
        self.tenants.leave(i, now);
        let mut j = self.tenants.last_job(i);
        while j != NO_JOB {
            let prev = self.prev_job[j as usize];
            let rec = &mut self.jobs[j as usize];
            if !rec.completed && !rec.cancelled {
                rec.cancelled = true;
                let planned = rec.end - rec.start;
                rec.end = now;
                let rec = *rec;
                if let Some(log) = &mut self.log {
                    log.ended(j, &rec)?;
                }
                if let Some(f) = &mut self.fold {
                    f.cancelled(i, rec.start, now);
                }
                self.stopped(j, &rec, now);
                self.pool.release(rec.gpu);
                self.tenants
                    .cancel_job(i, rec.model as usize, planned, now - rec.start);
            }
            j = prev;
        }
        self.tell_if_done(i)?;
        self.with_policies(|p, tenants, _, _| p.changed(tenants, i))
    }

    /// Tell the fold that tenant `i` is done, if it is, and park its state
    /// (DESIGN §2.6 "Done tenants"). Called after its completion or its
    /// leave, the only events that end a tenant's last job; each tenant is
    /// done once, since no job of it runs after it (no event comes for it
    /// again but its patience deadline, which changes nothing once it
    /// completed a job or left). An error: parking its state (I/O).
    fn tell_if_done(&mut self, i: usize) -> Result<()> {
        if !self.tenants.is_done(i) {
            return Ok(());
        }
        if let Some(f) = &mut self.fold {
            f.done(i);
        }
        self.tenants.park(i)
    }
}

/// GPU-µs of busy time (DESIGN §2.6): in all, per GPU type on a typed
/// cluster, and of jobs below their pair's top level (DESIGN §12.2).
#[derive(Debug, Clone)]
struct Busy {
    all: u128,
    by_type: Vec<u128>,
    low_fidelity: u128,
}

impl Busy {
    fn new(n_types: usize, typed: bool) -> Self {
        Self {
            all: 0,
            by_type: if typed { vec![0; n_types] } else { Vec::new() },
            low_fidelity: 0,
        }
    }

    /// Job `j` ran from its start to `min(j.end, end)`.
    fn add(
        &mut self,
        trace: &Trace,
        types: &GpuTypes,
        users: &TenantUsers,
        j: &JobRecord,
        end: Micros,
    ) {
        let d = u128::from(j.end.min(end).saturating_sub(j.start));
        self.all += d;
        if let Some(t) = self.by_type.get_mut(usize::from(types.type_of(j.gpu))) {
            *t += d;
        }
        if trace.is_curve()
            && (j.level as usize) < trace.top_level(users.user(j.tenant as usize), j.model as usize)
        {
            self.low_fidelity += d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::capacity;

    #[test]
    fn capacity_sums_gpus_over_the_stretches_between_resizes() {
        assert_eq!(capacity(2, &[], 10), None);
        // 2 GPUs on [0, 4), 5 on [4, 6), 1 on [6, 10): 8 + 10 + 4.
        assert_eq!(capacity(2, &[(4, 5), (6, 1)], 10), Some(22));
        // A resize at the end adds nothing; one past it is cut at the end.
        assert_eq!(capacity(2, &[(10, 7)], 10), Some(20));
        assert_eq!(capacity(2, &[(3, 7), (12, 1)], 10), Some(6 + 49));
    }
}
