//! A workload beside the trace (DESIGN §13): jobs that are not in the job
//! trace but submitted while the run goes, by something that decides them
//! then (the model-selection service of a shared scenario). The engine
//! knows no workload: it calls a [`Workload`]'s hooks and lets them act
//! through a [`Ctx`]. Job mode's workload is `()`, which does nothing.
//!
//! A workload owns the job indices `trace_jobs..` of the run's job table,
//! sized up front (a workload says how many jobs it may ever submit), so
//! nothing is allocated per event. Its jobs are ordinary jobs of the
//! cluster: placed by the placement rule, preempted and resumed as any
//! job. With `hidden` (priority `low`) the cluster scheduler never hears
//! of them: the workload starts them itself on GPUs the scheduler left
//! free, and the scheduler's passes see the cluster without them
//! ([`super::simulation`], DESIGN §13.3).

use super::engine::Engine;
use super::event::JobEvent;
use super::simulation::{Pass, State};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::EventQueue;
use crate::core::sim::time::Micros;
use crate::jobs::trace::Job;

/// What a workload beside the trace implements. Every hook has a default
/// that does nothing.
pub trait Workload {
    /// Before the run, at time 0: push its first events.
    fn init(&mut self, _ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        Ok(())
    }

    /// One of its events fired ([`Ctx::push_event`]), after the events of
    /// lower kinds at this instant.
    fn on_event(&mut self, _ctx: &mut Ctx<'_, '_, '_>, _tag: u8, _data: u32) -> Result<()> {
        Ok(())
    }

    /// Its job `job` received all its service now; its GPUs are free.
    fn on_done(&mut self, _ctx: &mut Ctx<'_, '_, '_>, _job: u32) -> Result<()> {
        Ok(())
    }

    /// An event about the workload (its own, or its job's completion,
    /// stale or not) was handled at `now`.
    fn on_own_event(&mut self, _now: Micros) {}

    /// [`Workload::on_own_event`] with the event itself, for a workload
    /// made of parts that routes it to the part it is about (DESIGN
    /// §14.2); the engine calls this one, and its default calls
    /// `on_own_event`.
    fn on_own_event_of(&mut self, now: Micros, _event: &JobEvent) {
        self.on_own_event(now);
    }

    /// Its hidden job `job` was preempted by the scheduler's pass at
    /// `now` (final): it waits again, for the workload to start it.
    fn on_preempted(&mut self, _job: u32, _now: Micros) -> Result<()> {
        Ok(())
    }

    /// After the events of an instant and the scheduler's pass: submit or
    /// start jobs.
    fn fill(&mut self, _ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        Ok(())
    }

    /// The instant is over (every hook of it has run).
    fn after_instant(&mut self, _now: Micros, _state: &State<'_>) {}

    /// An independent copy of the workload, for a fork of a steppable run
    /// (DESIGN §15.6): its state and its own policies forked. The default
    /// is an error: a workload that does not implement it cannot be
    /// forked.
    fn fork(&self) -> Result<Self>
    where
        Self: Sized,
    {
        Err(Error::usage(
            "this workload cannot be forked (`Workload::fork` is not implemented)",
        ))
    }
}

/// Job mode: no workload.
impl Workload for () {
    fn fork(&self) -> Result<Self> {
        Ok(())
    }
}

/// A workload that may be absent.
impl<W: Workload> Workload for Option<W> {
    fn init(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.as_mut().map_or(Ok(()), |w| w.init(ctx))
    }
    fn on_event(&mut self, ctx: &mut Ctx<'_, '_, '_>, tag: u8, data: u32) -> Result<()> {
        self.as_mut().map_or(Ok(()), |w| w.on_event(ctx, tag, data))
    }
    fn on_done(&mut self, ctx: &mut Ctx<'_, '_, '_>, job: u32) -> Result<()> {
        self.as_mut().map_or(Ok(()), |w| w.on_done(ctx, job))
    }
    fn on_own_event(&mut self, now: Micros) {
        if let Some(w) = self {
            w.on_own_event(now);
        }
    }
    fn on_own_event_of(&mut self, now: Micros, event: &JobEvent) {
        if let Some(w) = self {
            w.on_own_event_of(now, event);
        }
    }
    fn on_preempted(&mut self, job: u32, now: Micros) -> Result<()> {
        self.as_mut().map_or(Ok(()), |w| w.on_preempted(job, now))
    }
    fn fill(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.as_mut().map_or(Ok(()), |w| w.fill(ctx))
    }
    fn after_instant(&mut self, now: Micros, state: &State<'_>) {
        if let Some(w) = self {
            w.after_instant(now, state);
        }
    }
    fn fork(&self) -> Result<Self> {
        self.as_ref().map(W::fork).transpose()
    }
}

/// What a workload's hook may do: read the state, submit, start or
/// withdraw its jobs, push its events, run the scheduler's pass.
pub struct Ctx<'e, 'a, 's> {
    engine: &'e mut Engine<'a, 's>,
    queue: &'e mut EventQueue<JobEvent>,
    now: Micros,
}

impl std::fmt::Debug for Ctx<'_, '_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl<'e, 'a, 's> Ctx<'e, 'a, 's> {
    pub(super) fn new(
        engine: &'e mut Engine<'a, 's>,
        now: Micros,
        queue: &'e mut EventQueue<JobEvent>,
    ) -> Self {
        Self { engine, queue, now }
    }

    /// The current time, µs.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// The state of every job and of the cluster.
    pub fn state(&self) -> &State<'a> {
        &self.engine.state
    }

    /// Push one of the workload's events: at `at`, ordered at its instant
    /// by `kind` (DESIGN §9.2's kinds: 0 completions, 1 arrivals, 2
    /// timers, 3 waits over, 4 round boundaries; higher after them).
    pub fn push_event(&mut self, at: Micros, kind: u8, tag: u8, data: u32) {
        self.queue.push(at, kind, JobEvent::Workload { tag, data });
    }

    fn own(&self, j: u32) -> Result<usize> {
        let s = &self.engine.state;
        let i = j as usize;
        if i < s.trace_jobs || i >= s.jobs.len() {
            return Err(Error::input(format!(
                "internal error: job {j} is not the workload's"
            )));
        }
        Ok(i)
    }

    /// Set up the workload's job `j` before submitting it: what it needs
    /// (its `submit` should be now) and the one GPU type it runs on (its
    /// `duration` is its time there).
    pub fn prepare(&mut self, j: u32, job: Job, gpu_type: GpuType) -> Result<()> {
        let i = self.own(j)?;
        let s = &mut self.engine.state;
        if s.status[i] != super::simulation::Status::Future {
            return Err(Error::input(format!(
                "internal error: the workload's job {j} was submitted twice"
            )));
        }
        // The allocation slot was sized from the placeholder: a job of
        // more GPUs (or CPUs, when counted) could overflow it under
        // `spread` (DESIGN §14.6: placeholders are sized with both).
        let slot = s.alloc_offset.get(i + 1).copied().unwrap_or(s.alloc.len()) - s.alloc_offset[i];
        let cpus = if s.cluster.counts_cpus() { job.cpus } else { 0 };
        let needs = match s.cluster.placement() {
            super::cluster::Placement::Consolidate => 1,
            super::cluster::Placement::Spread => {
                (job.gpus as usize + cpus as usize).min(s.cluster.nodes())
            }
        };
        if needs > slot {
            return Err(Error::input(format!(
                "internal error: the workload's job {j} needs {} GPUs and {cpus} CPUs, more than its placeholder was sized for",
                job.gpus
            )));
        }
        s.remaining[i] = job.duration;
        s.zero_gpu_jobs |= job.gpus == 0;
        s.jobs.to_mut()[i] = job;
        if let Some(t) = &mut s.types {
            t.to_mut().pin(i, gpu_type, job.duration);
        }
        Ok(())
    }

    /// Submit the workload's job `j` (prepared): it waits, and the
    /// scheduler hears of it unless the workload is hidden.
    pub fn submit(&mut self, j: u32) -> Result<()> {
        let i = self.own(j)?;
        let s = &mut self.engine.state;
        s.status[i] = super::simulation::Status::Waiting;
        let o = s.owner(i);
        s.waiting_jobs[o] += 1;
        self.engine.announce(j, self.now, self.queue);
        Ok(())
    }

    /// Run the scheduler's pass now (event-driven runs; in rounds mode
    /// jobs start at boundaries only and this does nothing). In a
    /// steppable run the pass is only requested: the stepper offers it
    /// once this hook has returned and then calls [`Workload::fill`]
    /// again (DESIGN §15.6), so a `fill` that asks for a pass must be one
    /// that, called again, continues where it stopped.
    pub fn pass(&mut self) -> Result<()> {
        self.engine.pass_now(self.now, self.queue)
    }

    /// Start the workload's waiting job `j` now on its type, if it fits
    /// (hidden workloads start their jobs themselves); returns whether it
    /// started.
    pub fn start(&mut self, j: u32) -> Result<bool> {
        self.own(j)?;
        let mut pass = Pass::new(self.now, &mut self.engine.state, self.queue);
        pass.start(j)
    }

    /// Withdraw the workload's job `j` now (a tenant left, the service's
    /// horizon): a running job gives its GPUs back (its segment ends now);
    /// a waiting one the scheduler sees leaves its queue the next time the
    /// scheduler starts it (DESIGN §13.2); a hidden waiting one is done.
    pub fn withdraw(&mut self, j: u32) -> Result<()> {
        self.own(j)?;
        self.engine.withdraw(j, self.now, self.queue)
    }
}
