//! A steppable job-mode run (DESIGN §15.5): events are handled as the batch
//! replay ([`super::replay`]) handles them (DESIGN §9.2's instant order), and
//! each scheduling pass is taken apart into decisions — start a waiting
//! job, preempt a running one, or end the pass — offered one at a time with
//! the choice the scenario's own scheduler would make.
//!
//! How the scheduler's choice is known without changing any scheduler: at
//! the start of a pass the scheduler is forked ([`JobScheduler::fork`]) and
//! its pass is run on a copy of the state and the event queue, recording
//! every operation that changed the state (`PassOp`). The recording is
//! cut into actions (one start with the preemptions that made room for it,
//! or one preemption on its own); the next action is the decision's
//! `policy_choice`. A driver that takes it has the recorded operations
//! replayed verbatim on the run's own state, so a run that always follows
//! is the batch run byte for byte; at the end of such a pass the fork that
//! planned it becomes the run's scheduler (it is in the state the batch
//! scheduler would be in).
//!
//! With a [`Workload`] beside the trace (a shared scenario, DESIGN §15.6)
//! the workload's hooks run as in the batch replay (`handle_event`, then
//! after the instant's pass its `fill` and `after_instant`); a pass the
//! workload asks for from `fill` ([`super::workload::Ctx::pass`]) is
//! offered as decisions too, after which `fill` is called again.
//!
//! A choice off the plan ("a deviation") is checked first (an error
//! changes nothing), then applied by the engine's rules, and the scenario's
//! scheduler is detached for the rest of the run: the [`JobScheduler`] API
//! has no hook to tell a scheduler of starts and preemptions it did not
//! make, so it could not plan from there on consistently. From a deviation
//! on the driver makes every decision and `policy_choice` is `None`.

use std::borrow::Cow;
use std::ops::Range;

use super::engine::Engine;
use super::event::JobEvent;
use super::replay::{JobTable, RawRun, build, finish, handle_event};
use super::rounds::Rounds;
use super::simulation::{
    JobOutcome, JobScheduler, JobSimInput, Pass, PassOp, State, Status, Tentative,
};
use super::workload::{Ctx, Workload};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::held::Held;
use crate::core::sim::time::Micros;
use crate::core::sim::{Component, EventLoop, EventQueue};

/// A decision of a job-mode pass (DESIGN §15.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobChoice {
    /// Start waiting job `j` now, on the type the run's type policy picks
    /// ([`State::choose_type`]); it must fit.
    Start(u32),
    /// Start waiting job `j` on GPU type `t` (one of its allowed types); it
    /// must fit there.
    StartOn(u32, GpuType),
    /// Preempt running job `j` (final: it waits again with the service it
    /// received, as any preemption, DESIGN §9.2).
    Preempt(u32),
    /// End the pass: nothing else starts or stops until the next pass.
    EndPass,
}

/// A decision point: a pass at `now` waits for a [`JobChoice`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobDecision {
    /// Simulated time, µs.
    pub now: Micros,
    /// The waiting jobs the scheduler sees, in job order.
    pub waiting: Vec<u32>,
    /// The running jobs, in job order.
    pub running: Vec<u32>,
    /// Free GPUs in the cluster.
    pub free_gpus: u64,
    /// Free GPUs per GPU type (one entry when untyped).
    pub free_by_type: Vec<u64>,
    /// The scenario's scheduler's next action in this pass (`StartOn` on
    /// a typed cluster, `Start` on an untyped one): taking it replays the
    /// batch run. `None` once the driver deviated (module documentation).
    pub policy_choice: Option<JobChoice>,
    /// The running jobs the policy's action preempts for good besides its
    /// own (a start's victims, chosen by the scheduler).
    pub policy_victims: Vec<u32>,
}

/// One action of a planned pass: its label and its recorded operations.
#[derive(Debug, Clone)]
struct Action {
    choice: JobChoice,
    ops: Range<usize>,
    victims: Vec<u32>,
}

/// A pass as the forked scheduler made it.
struct Plan {
    /// The fork after its pass: the run's scheduler once the pass ends as
    /// planned.
    scheduler: Box<dyn JobScheduler>,
    ops: Vec<PassOp>,
    actions: Vec<Action>,
    /// Operations after the last action with no effect of their own (a
    /// preemption undone), replayed when the pass ends.
    tail: Range<usize>,
    /// The next action.
    next: usize,
}

impl Plan {
    fn fork(&self) -> Result<Plan> {
        Ok(Plan {
            scheduler: fork_of(&*self.scheduler)?,
            ops: self.ops.clone(),
            actions: self.actions.clone(),
            tail: self.tail.clone(),
            next: self.next,
        })
    }
}

/// The scheduler of a run after a deviation: it hears nothing and plans
/// nothing.
#[derive(Debug, Clone, Copy)]
struct Detached;

impl JobScheduler for Detached {
    fn on_arrival(&mut self, _job: u32, _now: Micros, _state: &State<'_>) {}
    fn on_completion(&mut self, _job: u32, _now: Micros, _state: &State<'_>) {}
    fn schedule(&mut self, _pass: &mut Pass<'_, '_>) -> Result<()> {
        Ok(())
    }
    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        Some(Box::new(Detached))
    }
}

fn fork_of(s: &dyn JobScheduler) -> Result<Box<dyn JobScheduler>> {
    s.fork().ok_or_else(|| {
        Error::usage(
            "this job scheduler cannot be forked (`JobScheduler::fork` returns None, e.g. a \
             user's priority function): a steppable run needs a forkable scheduler",
        )
    })
}

/// The engine and the workload as a component of the event loop: events
/// and the workload's hooks about them (the batch replay's
/// `handle_event`); the passes and the fill are the stepper's. The jobs of
/// arrivals and completions are noted in `.2` (their status may have
/// changed: [`Lists`]).
struct Events<'e, 'a, W>(&'e mut Engine<'a, 'a>, &'e mut W, &'e mut Vec<u32>);

impl<W: Workload> Component for Events<'_, '_, W> {
    type Event = JobEvent;

    fn on_event(
        &mut self,
        now: Micros,
        event: JobEvent,
        queue: &mut EventQueue<JobEvent>,
    ) -> Result<()> {
        if let JobEvent::Arrival { job } | JobEvent::Completion { job, .. } = event {
            self.2.push(job);
        }
        handle_event(self.0, self.1, now, event, queue)
    }

    fn after_instant(&mut self, _now: Micros, _queue: &mut EventQueue<JobEvent>) -> Result<()> {
        Ok(())
    }
}

/// A job-mode run that stops at each decision of each pass (DESIGN
/// §15.5).
///
/// ```text
/// while let Some(point) = run.next_decision()? {
///     run.decide(point.policy_choice.unwrap_or(JobChoice::EndPass))?;
/// }
/// let outcome = run.into_outcome()?;
/// ```
pub struct JobStepper<'a, W: Workload = ()> {
    engine: Engine<'a, 'a>,
    queue: EventQueue<JobEvent>,
    looper: EventLoop,
    n_trace: usize,
    /// The instant of the pass under way, if one is.
    pass_at: Option<Micros>,
    plan: Option<Plan>,
    /// The decision point, filled in place (its lists are kept up to date
    /// incrementally, [`Lists`]); offered while `pending`.
    point: JobDecision,
    pending: bool,
    lists: Lists,
    detached: bool,
    /// The workload beside the trace (`()` in job mode).
    workload: W,
    /// The instant whose workload fill (and `after_instant`) is due once
    /// its pass has ended (DESIGN §15.6).
    filling: Option<Micros>,
    /// The pass under way was asked for by the workload's fill (no round
    /// clock nor preemption notices after it, as `Engine::pass_now`).
    mid_fill: bool,
    /// The pass under way preempted hidden workload jobs tentatively
    /// first (`Engine::hide`, DESIGN §13.3).
    hiding: bool,
}

/// How the decision point's waiting and running lists (job order) are
/// kept without scanning every job at each decision (DESIGN §15.5,
/// "Per-decision cost"): the jobs whose status may have changed since the
/// last decision point — those of arrivals and completions, and of every
/// start, preemption and undo the run takes — are noted in `touched`, and
/// at the next point each is removed from both sorted lists and put back
/// where its status says (a binary search each). A run with jobs beyond
/// the trace's (a workload beside it) rescans every job instead (`scan`):
/// its statuses change in ways the stepper does not see one by one.
#[derive(Debug, Clone, Default)]
struct Lists {
    touched: Vec<u32>,
    scan: bool,
}

impl Lists {
    /// Bring `point`'s lists up to date with `state`.
    fn refresh(&mut self, state: &State<'_>, point: &mut JobDecision) {
        if self.scan {
            self.touched.clear();
            rescan(state, &mut point.waiting, &mut point.running);
            return;
        }
        for j in self.touched.drain(..) {
            for list in [&mut point.waiting, &mut point.running] {
                if let Ok(k) = list.binary_search(&j) {
                    list.remove(k);
                }
            }
            let list = match state.status[j as usize] {
                _ if !state.visible(j) => continue,
                Status::Waiting => &mut point.waiting,
                Status::Running => &mut point.running,
                Status::Future | Status::Done => continue,
            };
            if let Err(k) = list.binary_search(&j) {
                list.insert(k, j);
            }
        }
        #[cfg(debug_assertions)]
        {
            let (mut w, mut r) = (Vec::new(), Vec::new());
            rescan(state, &mut w, &mut r);
            assert_eq!((&w, &r), (&point.waiting, &point.running), "stepper lists");
        }
    }
}

/// The waiting and running jobs the scheduler sees, in job order, by a
/// scan of every job (into the given buffers).
fn rescan(state: &State<'_>, waiting: &mut Vec<u32>, running: &mut Vec<u32>) {
    waiting.clear();
    running.clear();
    for j in 0..state.jobs.len() as u32 {
        match state.status[j as usize] {
            Status::Waiting if state.visible(j) => waiting.push(j),
            Status::Running if state.visible(j) => running.push(j),
            _ => {}
        }
    }
}

impl<W: Workload> std::fmt::Debug for JobStepper<'_, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobStepper")
            .field("jobs", &self.n_trace)
            .field("pending", &self.pending())
            .field("detached", &self.detached)
            .field("done", &self.looper.is_done())
            .finish_non_exhaustive()
    }
}

impl<'a> JobStepper<'a> {
    /// A run of `input` under `scheduler` (which must be forkable),
    /// event-driven or in rounds of `round` µs; nothing has happened yet.
    pub fn new(
        input: &JobSimInput<'a>,
        round: Option<Micros>,
        scheduler: Box<dyn JobScheduler>,
    ) -> Result<Self> {
        let n = input.jobs.len();
        let table = JobTable {
            jobs: Cow::Borrowed(input.jobs),
            types: input.types.map(|t| Cow::Borrowed(t.jobs)),
            trace_jobs: n,
            second: n,
            hidden: false,
            restart_workload: false,
            extra_events: 0,
        };
        Self::with_table(input, table, round, scheduler)
    }

    /// [`Self::new`] with the run's own copy of the jobs (`table`, whose
    /// jobs and types are `input`'s): a run that outlives its caller's
    /// data (an environment driven from Python).
    pub fn with_table(
        input: &JobSimInput<'_>,
        table: JobTable<'a>,
        round: Option<Micros>,
        scheduler: Box<dyn JobScheduler>,
    ) -> Result<Self> {
        let n = input.jobs.len();
        if table.trace_jobs != n || table.jobs.len() != n {
            return Err(Error::usage(
                "a steppable run takes a job table of the trace's jobs alone (job mode)",
            ));
        }
        JobStepper::with_workload(input, table, round, scheduler, ())
    }
}

impl<'a, W: Workload> JobStepper<'a, W> {
    /// A run of `input`'s trace with `table`'s jobs and `workload` beside
    /// it (DESIGN §13.1, §15.6: a shared scenario's service and
    /// workflows), set up as the batch replay sets it up
    /// ([`super::simulate_with`]); the workload's `init` has run, nothing
    /// else has happened yet.
    pub fn with_workload(
        input: &JobSimInput<'_>,
        table: JobTable<'a>,
        round: Option<Micros>,
        scheduler: Box<dyn JobScheduler>,
        mut workload: W,
    ) -> Result<Self> {
        fork_of(&*scheduler)?;
        let rounds = round.map(Rounds::new).transpose()?;
        let n = input.jobs.len();
        let (mut engine, mut queue) = build(input, table, rounds, Held::Owned(scheduler))?;
        engine.defer_passes = true;
        workload.init(&mut Ctx::new(&mut engine, 0, &mut queue))?;
        let mut point = JobDecision {
            now: 0,
            waiting: Vec::new(),
            running: Vec::new(),
            free_gpus: 0,
            free_by_type: Vec::new(),
            policy_choice: None,
            policy_victims: Vec::new(),
        };
        rescan(&engine.state, &mut point.waiting, &mut point.running);
        let lists = Lists {
            touched: Vec::new(),
            scan: engine.state.jobs.len() != n,
        };
        Ok(Self {
            engine,
            queue,
            looper: EventLoop::new(None),
            n_trace: n,
            pass_at: None,
            plan: None,
            point,
            pending: false,
            lists,
            detached: false,
            workload,
            filling: None,
            mid_fill: false,
            hiding: false,
        })
    }

    /// Advance to the next decision point and return it (the same point
    /// again while it is not decided), or `None` once the run has ended.
    /// A pass with no waiting job and nothing left in the scheduler's plan
    /// is not offered: it ends as planned. The point is the run's own,
    /// filled in place (no copy per decision; [`Self::pending`] gives it
    /// again).
    pub fn next_decision(&mut self) -> Result<Option<&JobDecision>> {
        self.advance()?;
        Ok(self.pending())
    }

    /// [`Self::next_decision`]'s stepping: on to a pending decision point
    /// or the end.
    fn advance(&mut self) -> Result<()> {
        loop {
            if self.pending {
                return Ok(());
            }
            if let Some(now) = self.pass_at {
                let planned_left = self.plan.as_ref().is_some_and(|p| p.next < p.actions.len());
                if !planned_left && !self.any_waiting() {
                    self.decide_at(now, JobChoice::EndPass)?;
                    continue;
                }
                self.offer(now);
                continue;
            }
            if let Some(now) = self.filling {
                // After the instant's pass, the workload fills (the batch
                // replay's `after_instant`); a pass it asks for is offered
                // next, then it fills again (DESIGN §15.6).
                self.workload
                    .fill(&mut Ctx::new(&mut self.engine, now, &mut self.queue))?;
                if std::mem::take(&mut self.engine.pass_requested) {
                    self.start_pass(now, true)?;
                    continue;
                }
                self.workload.after_instant(now, &self.engine.state);
                self.filling = None;
                continue;
            }
            match self.looper.next_instant(
                &mut Events(
                    &mut self.engine,
                    &mut self.workload,
                    &mut self.lists.touched,
                ),
                &mut self.queue,
            )? {
                Some(now) => {
                    // Whether a pass runs: DESIGN §9.2 (something happened
                    // at the instant) or §11.3 (a round boundary), as in
                    // the batch replay's `after_instant`.
                    let e = &mut self.engine;
                    let run = match &mut e.rounds {
                        Some(r) => r.take_boundary(),
                        None => e.dirty,
                    };
                    if run {
                        e.dirty = false;
                        self.start_pass(now, false)?;
                    }
                    self.filling = Some(now);
                }
                None => return Ok(()),
            }
        }
    }

    /// Take `choice` at the pending decision point. A choice that breaks
    /// the rules (a job out of range, not waiting or not running as the
    /// choice needs, one that does not fit, a type it may not use) is an
    /// error that changes nothing: the point stays pending.
    pub fn decide(&mut self, choice: JobChoice) -> Result<()> {
        if !self.pending {
            return Err(Error::usage(
                "no decision is pending: call `next_decision` first (or the run has ended)",
            ));
        }
        self.decide_at(self.point.now, choice)
    }

    fn decide_at(&mut self, now: Micros, choice: JobChoice) -> Result<()> {
        if let Some(mut plan) = self.plan.take() {
            let follow = match plan.actions.get(plan.next) {
                Some(a) => (a.choice == choice).then(|| a.ops.clone()),
                None => (choice == JobChoice::EndPass).then(|| plan.tail.clone()),
            };
            if let Some(ops) = follow {
                let done = self.replay(now, &plan.ops[ops]);
                if let Err(e) = done {
                    self.plan = Some(plan);
                    return Err(e);
                }
                self.pending = false;
                if plan.next < plan.actions.len() {
                    plan.next += 1;
                    self.plan = Some(plan);
                } else {
                    self.engine.scheduler = Held::Owned(plan.scheduler);
                    self.end_pass(now)?;
                }
                return Ok(());
            }
            self.plan = Some(plan);
        }
        // Off the plan: checked before anything changes.
        self.check(choice, now)?;
        self.plan = None;
        if !self.detached {
            self.detached = true;
            self.engine.scheduler = Held::Owned(Box::new(Detached));
        }
        self.pending = false;
        if let JobChoice::Start(j) | JobChoice::StartOn(j, _) | JobChoice::Preempt(j) = choice {
            self.lists.touched.push(j);
        }
        let mut pass = Pass::new(now, &mut self.engine.state, &mut self.queue);
        match choice {
            JobChoice::Start(j) => {
                if !pass.start(j)? {
                    return Err(Error::input(format!(
                        "internal error: job {j} fitted but did not start"
                    )));
                }
            }
            JobChoice::StartOn(j, t) => {
                if !pass.start_on(j, t)? {
                    return Err(Error::input(format!(
                        "internal error: job {j} fitted on type {t} but did not start"
                    )));
                }
            }
            JobChoice::Preempt(j) => {
                let t = pass.preempt(j)?;
                pass.commit(t);
            }
            JobChoice::EndPass => self.end_pass(now)?,
        }
        Ok(())
    }

    /// Whether `choice` may be taken now; an error naming the choice and
    /// what was allowed if not.
    fn check(&self, choice: JobChoice, now: Micros) -> Result<()> {
        let s = &self.engine.state;
        let n = s.jobs.len();
        let job = |j: u32, verb: &str| -> Result<usize> {
            if (j as usize) < n {
                Ok(j as usize)
            } else {
                Err(Error::usage(format!(
                    "cannot {verb} job {j}: the run has {n} jobs (0..{n})"
                )))
            }
        };
        let waiting = |j: u32, i: usize| -> Result<()> {
            if s.status[i] == Status::Waiting && s.visible(j) {
                Ok(())
            } else {
                Err(Error::usage(format!(
                    "cannot start job {j}: it is {}, not waiting (the waiting jobs are those \
                     of the decision point)",
                    status_name(s.status[i])
                )))
            }
        };
        match choice {
            JobChoice::Start(j) => {
                let i = job(j, "start")?;
                waiting(j, i)?;
                if s.choose_type(j, now).is_none() {
                    return Err(Error::usage(format!(
                        "cannot start job {j}: it needs {} GPUs and {} CPUs and does not fit now \
                         ({} GPUs free, `{}` placement)",
                        s.jobs[i].gpus,
                        s.jobs[i].cpus,
                        s.cluster.free_total(),
                        s.cluster.placement().name()
                    )));
                }
            }
            JobChoice::StartOn(j, t) => {
                let i = job(j, "start")?;
                waiting(j, i)?;
                let types = s.cluster.types();
                if usize::from(t) >= types.min(64) || s.allowed_types(j) & (1 << t) == 0 {
                    return Err(Error::usage(format!(
                        "cannot start job {j} on GPU type {t}: its allowed types are {:?} \
                         (the cluster has types 0..{types})",
                        (0..types.min(64))
                            .filter(|&x| s.allowed_types(j) & (1 << x) != 0)
                            .collect::<Vec<_>>()
                    )));
                }
                if !s.cluster.fits_job_on(s.jobs[i].gpus, s.jobs[i].cpus, t) {
                    return Err(Error::usage(format!(
                        "cannot start job {j} on GPU type {t}: it needs {} GPUs and {} CPUs and \
                         does not fit there now ({} GPUs of the type free)",
                        s.jobs[i].gpus,
                        s.jobs[i].cpus,
                        s.cluster.free_of_type(t)
                    )));
                }
            }
            JobChoice::Preempt(j) => {
                let i = job(j, "preempt")?;
                if s.status[i] != Status::Running || !s.visible(j) {
                    return Err(Error::usage(format!(
                        "cannot preempt job {j}: it is {}, not running",
                        status_name(s.status[i])
                    )));
                }
            }
            JobChoice::EndPass => {}
        }
        Ok(())
    }

    /// Replay recorded operations on the run's own state and queue.
    fn replay(&mut self, now: Micros, ops: &[PassOp]) -> Result<()> {
        let mut pass = Pass::new(now, &mut self.engine.state, &mut self.queue);
        let touched = &mut self.lists.touched;
        let mut open: Vec<Tentative> = Vec::new();
        let take = |open: &mut Vec<Tentative>, j: u32| {
            open.iter()
                .position(|t| t.job() == j)
                .map(|k| open.swap_remove(k))
                .ok_or_else(|| {
                    Error::input(format!(
                        "internal error: no tentative preemption of job {j}"
                    ))
                })
        };
        for &op in ops {
            match op {
                PassOp::Start(j, _) | PassOp::Preempt(j) | PassOp::Undo(j) => {
                    touched.push(j);
                }
                PassOp::Commit(_) | PassOp::Timer(..) => {}
            }
            match op {
                PassOp::Start(j, t) => {
                    if !pass.start_on(j, t)? {
                        return Err(Error::input(format!(
                            "internal error: the planned start of job {j} did not happen"
                        )));
                    }
                }
                PassOp::Preempt(j) => open.push(pass.preempt(j)?),
                PassOp::Undo(j) => {
                    let t = take(&mut open, j)?;
                    pass.undo(t)?;
                }
                PassOp::Commit(j) => {
                    let t = take(&mut open, j)?;
                    pass.commit(t);
                }
                PassOp::Timer(j, service) => pass.schedule_timer(j, service),
            }
        }
        Ok(())
    }

    /// The scheduler's pass at `now`, made by a fork on copies. The copy
    /// of the state shares what a pass only reads (the jobs and their
    /// types) and leaves out what it only appends to (the segment log):
    /// those are set aside while the rest is cloned (DESIGN §15.5).
    fn make_plan(&mut self, now: Micros) -> Result<Plan> {
        let mut scheduler = fork_of(&*self.engine.scheduler)?;
        let s = &mut self.engine.state;
        let jobs = std::mem::replace(&mut s.jobs, Cow::Borrowed(&[]));
        let types = s.types.take();
        let segments = std::mem::take(&mut s.segments);
        let segment_allocs = std::mem::take(&mut s.segment_allocs);
        let copy = s.clone();
        s.jobs = jobs;
        s.types = types;
        s.segments = segments;
        s.segment_allocs = segment_allocs;
        let s = &self.engine.state;
        let mut state: State<'_> = copy;
        state.jobs = Cow::Borrowed(&s.jobs);
        state.types = s.types.as_deref().map(Cow::Borrowed);
        let mut queue = self.queue.clone();
        let mut ops = Vec::new();
        {
            let mut pass = Pass::new(now, &mut state, &mut queue);
            pass.log = Some(&mut ops);
            let tick = self.engine.clock.start();
            let done = scheduler.schedule(&mut pass);
            self.engine.clock.stop(tick);
            done?;
        }
        let typed = self.engine.state.cluster.types() > 1;
        let (actions, tail) = cut(&ops, typed);
        Ok(Plan {
            scheduler,
            ops,
            actions,
            tail,
            next: 0,
        })
    }

    /// A pass begins at `now` (`mid_fill`: asked for by the workload's
    /// fill): hidden workload jobs are preempted tentatively first
    /// (DESIGN §13.3), then the scheduler's fork plans it.
    fn start_pass(&mut self, now: Micros, mid_fill: bool) -> Result<()> {
        self.hiding = self.engine.hide(now, &mut self.queue)?;
        self.plan = if self.detached {
            None
        } else {
            Some(self.make_plan(now)?)
        };
        self.pass_at = Some(now);
        self.mid_fill = mid_fill;
        Ok(())
    }

    /// The pass at `now` ends, as the batch replay's: hidden jobs get
    /// their GPUs back where still free (DESIGN §13.3); after an
    /// instant's pass (not one the fill asked for) the round clock hears
    /// of it (DESIGN §11.3) and the workload of its final preemptions.
    fn end_pass(&mut self, now: Micros) -> Result<()> {
        self.pass_at = None;
        self.plan = None;
        self.pending = false;
        if std::mem::take(&mut self.hiding) {
            self.engine.unhide(now, &mut self.queue)?;
        }
        if std::mem::take(&mut self.mid_fill) {
            return Ok(());
        }
        let active = self.engine.active();
        if let Some(r) = &mut self.engine.rounds {
            r.after_pass(now, active, &mut self.queue)?;
        }
        for k in 0..self.engine.preempted.len() {
            self.workload.on_preempted(self.engine.preempted[k], now)?;
        }
        self.engine.preempted.clear();
        Ok(())
    }

    /// Whether a job the scheduler sees waits (hidden workload jobs,
    /// DESIGN §13.3, are not offered).
    fn any_waiting(&self) -> bool {
        let s = &self.engine.state;
        s.waiting_jobs[0] > 0 || (!s.hidden && s.waiting_jobs[1] > 0) || s.waiting_jobs[2] > 0
    }

    /// Offer the decision point at `now`: the point filled in place, its
    /// buffers reused.
    fn offer(&mut self, now: Micros) {
        let s = &self.engine.state;
        let p = &mut self.point;
        self.lists.refresh(s, p);
        p.now = now;
        p.free_gpus = s.cluster.free_total();
        p.free_by_type.clear();
        p.free_by_type
            .extend((0..s.cluster.types()).map(|t| s.cluster.free_of_type(t as GpuType)));
        let action = self.plan.as_ref().map(|pl| pl.actions.get(pl.next));
        p.policy_choice = action.map(|a| a.map_or(JobChoice::EndPass, |a| a.choice));
        p.policy_victims.clear();
        if let Some(Some(a)) = action {
            p.policy_victims.extend_from_slice(&a.victims);
        }
        self.pending = true;
    }

    /// An independent copy of the run at this point, with a copy of its
    /// scheduler (and of the pass's plan). Continued with the same choices
    /// it gives the same outcome as the original (DESIGN §15.5). Nothing is
    /// read from or written to a file; the jobs are shared when borrowed.
    pub fn fork(&self) -> Result<JobStepper<'a, W>> {
        let e = &self.engine;
        Ok(JobStepper {
            engine: Engine {
                state: e.state.clone(),
                scheduler: Held::Owned(fork_of(&*e.scheduler)?),
                order: e.order.clone(),
                next_arrival: e.next_arrival,
                dirty: e.dirty,
                done: e.done,
                arrived: e.arrived,
                rounds: e.rounds.clone(),
                clock: e.clock,
                trace_events: e.trace_events,
                trace_end: e.trace_end,
                last_was_trace: e.last_was_trace,
                tentative: e.tentative.clone(),
                preempted: e.preempted.clone(),
                defer_passes: e.defer_passes,
                pass_requested: e.pass_requested,
            },
            queue: self.queue.clone(),
            looper: self.looper,
            n_trace: self.n_trace,
            pass_at: self.pass_at,
            plan: self.plan.as_ref().map(Plan::fork).transpose()?,
            point: self.point.clone(),
            pending: self.pending,
            lists: self.lists.clone(),
            detached: self.detached,
            workload: self.workload.fork()?,
            filling: self.filling,
            mid_fill: self.mid_fill,
            hiding: self.hiding,
        })
    }

    /// The workload beside the trace.
    pub fn workload(&self) -> &W {
        &self.workload
    }

    /// The state of every job and of the cluster.
    pub fn state(&self) -> &State<'a> {
        &self.engine.state
    }

    /// The decision the run waits for, if one was offered.
    pub fn pending(&self) -> Option<&JobDecision> {
        self.pending.then_some(&self.point)
    }

    /// Whether a choice off the scheduler's plan was taken (module
    /// documentation): the scheduler no longer advises.
    pub fn is_detached(&self) -> bool {
        self.detached
    }

    /// Whether the run has ended.
    pub fn is_done(&self) -> bool {
        self.looper.is_done()
    }

    /// Simulated time so far: the last instant handled, µs.
    pub fn now(&self) -> Micros {
        self.looper.end().end
    }

    /// The run's outcome once it has ended ([`Self::next_decision`]
    /// returned `None`).
    pub fn into_outcome(self) -> Result<JobOutcome> {
        if !self.looper.is_done() {
            return Err(Error::usage(
                "the run has not ended: step it until `next_decision` returns None",
            ));
        }
        Ok(self.into_raw()?.outcome)
    }

    /// The run as the batch replay leaves it ([`super::simulate_with`]'s
    /// [`RawRun`]: every job's outcome, the workload) once it has ended.
    pub fn into_raw(self) -> Result<RawRun<W>> {
        if !self.looper.is_done() {
            return Err(Error::usage(
                "the run has not ended: step it until `next_decision` returns None",
            ));
        }
        finish(self.engine, self.looper.end(), self.n_trace, self.workload)
    }
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Future => "not submitted yet",
        Status::Waiting => "waiting",
        Status::Running => "running",
        Status::Done => "done",
    }
}

/// Cut a pass's recorded operations into actions: an action ends where no
/// tentative preemption is open and the next operation begins another (a
/// start or a preemption). Its label is its first start (`StartOn` with
/// the recorded type when `typed`), else its first final preemption; its
/// other final preemptions are its victims. Operations after the last
/// labelled action (preemptions all undone) are the tail.
fn cut(ops: &[PassOp], typed: bool) -> (Vec<Action>, Range<usize>) {
    let mut actions = Vec::new();
    let (mut from, mut open) = (0, 0usize);
    let mut label: Option<JobChoice> = None;
    let mut victims = Vec::new();
    for (i, &op) in ops.iter().enumerate() {
        if open == 0
            && matches!(op, PassOp::Start(..) | PassOp::Preempt(_))
            && let Some(choice) = label.take()
        {
            actions.push(Action {
                choice,
                ops: from..i,
                victims: std::mem::take(&mut victims),
            });
            from = i;
        }
        match op {
            PassOp::Start(j, t) => {
                if label.is_none_or(|l| matches!(l, JobChoice::Preempt(_))) {
                    if let Some(JobChoice::Preempt(v)) = label {
                        victims.push(v);
                    }
                    label = Some(if typed {
                        JobChoice::StartOn(j, t)
                    } else {
                        JobChoice::Start(j)
                    });
                }
            }
            PassOp::Preempt(_) => open += 1,
            PassOp::Undo(_) => open = open.saturating_sub(1),
            PassOp::Commit(j) => {
                open = open.saturating_sub(1);
                if label.is_none() {
                    label = Some(JobChoice::Preempt(j));
                } else {
                    victims.push(j);
                }
            }
            PassOp::Timer(..) => {}
        }
    }
    match label {
        Some(choice) => {
            actions.push(Action {
                choice,
                ops: from..ops.len(),
                victims,
            });
            (actions, ops.len()..ops.len())
        }
        None => (actions, from..ops.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_takes_its_victims_and_timers_and_a_lone_preemption_is_its_own_action() {
        use PassOp::*;
        // Victims 1 and 2 preempted for 3; 2 put back, 1 final; a timer for
        // 3; then 4 starts; then 5 is preempted on its own.
        let ops = [
            Preempt(1),
            Preempt(2),
            Start(3, 0),
            Undo(2),
            Commit(1),
            Timer(3, 10),
            Start(4, 0),
            Preempt(5),
            Commit(5),
            Preempt(6),
            Undo(6),
        ];
        let (actions, tail) = cut(&ops, false);
        let got: Vec<_> = actions
            .iter()
            .map(|a| (a.choice, a.ops.clone(), a.victims.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (JobChoice::Start(3), 0..6, vec![1]),
                (JobChoice::Start(4), 6..7, vec![]),
                (JobChoice::Preempt(5), 7..9, vec![]),
            ]
        );
        assert_eq!(tail, 9..11);
        let (typed, _) = cut(&ops[6..7], true);
        assert_eq!(typed[0].choice, JobChoice::StartOn(4, 0));
    }
}
