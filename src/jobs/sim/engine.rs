//! The engine of a job simulation (DESIGN §9.2, §13.1): everything but
//! the workload — the state, the cluster scheduler, the trace's arrivals,
//! the round clock — and what it does with one event, one pass, a
//! workload's submission or withdrawal. [`super::replay`] drives it as a
//! component of the event loop.

use super::event::{ARRIVAL, JobEvent, WAIT_OVER};
use super::rounds::Rounds;
use super::simulation::{JobScheduler, Pass, State, Status, Tentative};
use super::type_policy::TypePolicy;
use crate::core::error::Result;
use crate::core::sim::EventQueue;
use crate::core::sim::held::Held;
use crate::core::sim::policy_clock::PolicyClock;
use crate::core::sim::time::Micros;

/// Everything of the simulation but the workload, so a workload's hooks
/// can act on it ([`Ctx`]).
pub(super) struct Engine<'a, 's> {
    pub(super) state: State<'a>,
    /// Borrowed for a batch run, owned by a steppable one (DESIGN §15.5).
    pub(super) scheduler: Held<'s, dyn JobScheduler + 's>,
    pub(super) order: Vec<u32>,
    pub(super) next_arrival: usize,
    pub(super) dirty: bool,
    /// Trace jobs done.
    pub(super) done: usize,
    /// Trace jobs submitted so far.
    pub(super) arrived: usize,
    /// The round clock in rounds mode.
    pub(super) rounds: Option<Rounds>,
    /// Time inside the scheduler's calls.
    pub(super) clock: PolicyClock,
    /// Events about the trace's jobs (arrivals, their completions, timers
    /// and waits, round boundaries when the workload is hidden): what a
    /// run of the trace alone would count.
    pub(super) trace_events: u64,
    /// The last instant with such an event.
    pub(super) trace_end: Micros,
    /// Whether the event just handled was about the trace.
    pub(super) last_was_trace: bool,
    /// Tentative preemptions of hidden workload jobs during a pass.
    pub(super) tentative: Vec<Tentative>,
    /// Hidden workload jobs whose preemption became final in a pass, for
    /// the workload to hear of after it.
    pub(super) preempted: Vec<u32>,
    /// A steppable run's passes are its own (DESIGN §15.6): a workload's
    /// request for a pass ([`Self::pass_now`]) is recorded in
    /// `pass_requested` instead of run, for the stepper to offer.
    pub(super) defer_passes: bool,
    /// A workload asked for a pass while `defer_passes` (event-driven
    /// runs only).
    pub(super) pass_requested: bool,
}

impl Engine<'_, '_> {
    /// Under `fastest-or-wait`, the event at which arriving job `j` may
    /// stop waiting for its fastest type (only if it has another type).
    pub(super) fn push_wait_over(&self, j: u32, queue: &mut EventQueue<JobEvent>) {
        let s = &self.state;
        if let TypePolicy::FastestOrWait { max_wait } = s.type_policy
            && s.types.is_some()
            && s.allowed_types(j).count_ones() > 1
            && max_wait > 0
        {
            let at = s.jobs[j as usize].submit.saturating_add(max_wait);
            queue.push(at, WAIT_OVER, JobEvent::WaitOver { job: j });
        }
    }

    pub(super) fn push_next_arrival(&mut self, queue: &mut EventQueue<JobEvent>) {
        if let Some(&j) = self.order.get(self.next_arrival) {
            self.next_arrival += 1;
            queue.push(
                self.state.jobs[j as usize].submit,
                ARRIVAL,
                JobEvent::Arrival { job: j },
            );
        }
    }

    /// Whether any job the scheduler sees is waiting or running.
    pub(super) fn active(&self) -> bool {
        let s = &self.state;
        self.arrived > self.done
            || (!s.hidden && s.waiting_jobs[1] + s.running_jobs[1] > 0)
            || s.waiting_jobs[2] + s.running_jobs[2] > 0
    }

    /// Whether no job the scheduler sees holds GPUs (a round ends).
    pub(super) fn idle(&self) -> bool {
        let s = &self.state;
        s.held[0] == 0 && (s.hidden || s.held[1] == 0) && s.held[2] == 0
    }

    /// The cluster scheduler's pass at `now`. With hidden workload jobs
    /// (priority `low`, DESIGN §13.3) the scheduler sees the cluster
    /// without them: each running one is preempted tentatively first, and
    /// after the pass it holds its GPUs again if they are all still free,
    /// else its preemption is final.
    pub(super) fn pass(&mut self, now: Micros, queue: &mut EventQueue<JobEvent>) -> Result<()> {
        let hide = self.hide(now, queue)?;
        let mut pass = Pass::new(now, &mut self.state, queue);
        let tick = self.clock.start();
        let done = self.scheduler.schedule(&mut pass);
        self.clock.stop(tick);
        done?;
        if hide {
            self.unhide(now, queue)?;
        }
        Ok(())
    }

    /// Before a pass with hidden workload jobs (DESIGN §13.3): preempt
    /// every running one tentatively; whether any was.
    pub(super) fn hide(&mut self, now: Micros, queue: &mut EventQueue<JobEvent>) -> Result<bool> {
        let hide = self.state.hidden && self.state.running_jobs[1] > 0;
        if hide {
            self.tentative.clear();
            let mut pass = Pass::new(now, &mut self.state, queue);
            // Every running workload job, in the running list's order
            // (each preemption takes the job out of the list: the last
            // one first keeps the rest in place).
            while let Some(&j) = pass.state.workload_running.last() {
                let t = pass.preempt(j)?;
                self.tentative.push(t);
            }
        }
        Ok(hide)
    }

    /// After a pass that [`Self::hide`] prepared: each tentative
    /// preemption whose GPUs are all still free is undone, the others
    /// become final (the workload hears of them after the pass).
    pub(super) fn unhide(&mut self, now: Micros, queue: &mut EventQueue<JobEvent>) -> Result<()> {
        let mut pass = Pass::new(now, &mut self.state, queue);
        for k in 0..self.tentative.len() {
            let t = self.tentative[k];
            if pass.can_undo(&t) {
                pass.undo(t)?;
            } else {
                pass.commit(t);
                self.preempted.push(t.job());
            }
        }
        self.tentative.clear();
        Ok(())
    }
}

impl Engine<'_, '_> {
    /// Handle one event; returns the workload's job that completed, if
    /// one did (the workload hears of it next).
    pub(super) fn event(
        &mut self,
        now: Micros,
        event: JobEvent,
        queue: &mut EventQueue<JobEvent>,
    ) -> Result<Option<u32>> {
        let trace_event = match event {
            JobEvent::Arrival { .. } => true,
            JobEvent::Completion { job, .. }
            | JobEvent::Timer { job, .. }
            | JobEvent::WaitOver { job } => (job as usize) < self.state.trace_jobs,
            JobEvent::Boundary { .. } => true,
            JobEvent::Workload { .. } => false,
        };
        self.last_was_trace = trace_event;
        if trace_event {
            self.trace_events += 1;
            self.trace_end = now;
        }
        match event {
            JobEvent::Arrival { job } => {
                self.state.status[job as usize] = Status::Waiting;
                self.state.waiting_jobs[0] += 1;
                self.arrived += 1;
                let tick = self.clock.start();
                self.scheduler.on_arrival(job, now, &self.state);
                self.clock.stop(tick);
                self.push_wait_over(job, queue);
                self.push_next_arrival(queue);
                self.dirty = true;
                if let Some(r) = &mut self.rounds {
                    r.on_arrival(now, queue);
                }
            }
            JobEvent::WaitOver { job } => {
                if self.state.status[job as usize] == Status::Waiting {
                    self.dirty = true;
                }
            }
            JobEvent::Completion { job, run } => {
                let s = &mut self.state;
                let i = job as usize;
                if s.run[i] != run || s.status[i] != Status::Running {
                    return Ok(None);
                }
                let visible = s.visible(job);
                s.status[i] = Status::Done;
                s.end[i] = now;
                if s.withdrawn[i] {
                    // A withdrawn job leaves the scheduler's queue.
                    let tick = self.clock.start();
                    self.scheduler.on_completion(job, now, &self.state);
                    self.clock.stop(tick);
                    return Ok(None);
                }
                s.push_segment(i, now);
                s.attained[i] += now - s.progress_start[i];
                s.remaining[i] = 0;
                s.count_done(i);
                let off = s.alloc_offset[i];
                let len = s.alloc_len[i] as usize;
                let (cluster, alloc) = (&mut s.cluster, &s.alloc);
                cluster.release(&alloc[off..off + len])?;
                if i < s.trace_jobs {
                    self.done += 1;
                }
                if visible {
                    let tick = self.clock.start();
                    self.scheduler.on_completion(job, now, &self.state);
                    self.clock.stop(tick);
                    self.dirty = true;
                    if self.rounds.is_some() {
                        let idle = self.idle();
                        if let Some(r) = &mut self.rounds {
                            r.on_completion(now, idle, queue);
                        }
                    }
                }
                if i >= self.state.trace_jobs {
                    return Ok(Some(job));
                }
            }
            JobEvent::Timer { job, run } => {
                let i = job as usize;
                if self.state.run[i] != run || self.state.status[i] != Status::Running {
                    return Ok(None);
                }
                let tick = self.clock.start();
                let next = self.scheduler.on_timer(job, now, &self.state);
                self.clock.stop(tick);
                if let Some(next) = next {
                    let mut pass = Pass::new(now, &mut self.state, queue);
                    pass.schedule_timer(job, next);
                }
                self.dirty = true;
            }
            JobEvent::Boundary { seq } => {
                if let Some(r) = &mut self.rounds {
                    r.on_boundary(seq);
                }
            }
            JobEvent::Workload { .. } => {}
        }
        Ok(None)
    }

    /// Run the scheduler's pass now, outside the end of an instant (a
    /// workload submitted a job and wants to know whether it starts). In
    /// rounds mode passes happen only at boundaries: nothing runs.
    pub(super) fn pass_now(&mut self, now: Micros, queue: &mut EventQueue<JobEvent>) -> Result<()> {
        if self.rounds.is_some() {
            return Ok(());
        }
        self.dirty = false;
        if self.defer_passes {
            // The stepper runs it as decision points once the workload's
            // hook has returned (DESIGN §15.6).
            self.pass_requested = true;
            return Ok(());
        }
        self.pass(now, queue)
    }

    /// A workload's job was submitted (the counters moved already): the
    /// scheduler hears of it unless hidden.
    pub(super) fn announce(&mut self, j: u32, now: Micros, queue: &mut EventQueue<JobEvent>) {
        if !self.state.visible(j) {
            return;
        }
        let tick = self.clock.start();
        self.scheduler.on_arrival(j, now, &self.state);
        self.clock.stop(tick);
        self.dirty = true;
        if let Some(r) = &mut self.rounds {
            r.on_arrival(now, queue);
        }
    }

    /// Withdraw a workload's job at `now` (DESIGN §13.3): a running job
    /// gives its GPUs back (its segment ends now) and is done; a waiting
    /// one the scheduler sees leaves its queue at the scheduler's next
    /// start of it ([`Pass::start`]); a hidden waiting one is done.
    pub(crate) fn withdraw(
        &mut self,
        j: u32,
        now: Micros,
        queue: &mut EventQueue<JobEvent>,
    ) -> Result<()> {
        let i = j as usize;
        let visible = self.state.visible(j);
        let s = &mut self.state;
        match s.status[i] {
            Status::Running => {
                s.push_segment(i, now);
                s.attained[i] += now.saturating_sub(s.progress_start[i]);
                s.status[i] = Status::Done;
                s.end[i] = now;
                s.run[i] = s.run[i].wrapping_add(1);
                s.count_done(i);
                let off = s.alloc_offset[i];
                let len = s.alloc_len[i] as usize;
                let (cluster, alloc) = (&mut s.cluster, &s.alloc);
                cluster.release(&alloc[off..off + len])?;
                if visible {
                    let tick = self.clock.start();
                    self.scheduler.on_completion(j, now, &self.state);
                    self.clock.stop(tick);
                    self.dirty = true;
                    if self.rounds.is_some() {
                        let idle = self.idle();
                        if let Some(r) = &mut self.rounds {
                            r.on_completion(now, idle, queue);
                        }
                    }
                }
            }
            Status::Waiting => {
                let o = s.owner(i);
                s.waiting_jobs[o] -= 1;
                if visible {
                    s.withdrawn[i] = true;
                } else {
                    s.status[i] = Status::Done;
                    s.end[i] = now;
                }
            }
            Status::Future | Status::Done => {}
        }
        Ok(())
    }
}
