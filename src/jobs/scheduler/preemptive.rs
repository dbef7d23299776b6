//! The preemptive pass shared by `srtf` and `las`.
//!
//! The waiting queue is scanned in priority order (smallest key first).
//! For each job `w`:
//!
//! 1. if it fits, it starts;
//! 2. otherwise running jobs that `w` may preempt (strictly lower priority,
//!    as the [`Priority`] says) are preempted one at a time, lowest
//!    priority first, until `w` fits; if it still cannot fit once every
//!    such job is preempted, every preemption is undone and `w` counts as
//!    not fitting;
//! 3. once `w` has started, the victims whose GPUs it did not take are put
//!    back at once, highest priority first, as if never preempted (no
//!    overhead, same GPUs); the others are preempted for good and wait;
//! 4. a job that does not fit stops the scan (head-of-line blocking) unless
//!    backfilling is on, in which case the scan goes on with later jobs.
//!
//! A preemption only ever replaces a job by one of strictly higher
//! priority, so a pass terminates and never preempts a job it started.
//! With backfilling the pass leaves no waiting job that fits: a skipped job
//! `x` could not fit even with every job it may preempt gone, and any later
//! (lower-priority) job only preempts a subset of those, so the GPUs it
//! leaves free never make `x` fit (checked by the property tests).

use std::cmp::Reverse;

use super::{JobScheduler, Key};
use crate::error::{Error, Result};
use crate::jobs::heap::IndexedHeap;
use crate::jobs::simulation::{Pass, State, Tentative};
use crate::trace::Micros;

/// The priority rule of a preemptive scheduler.
pub(super) trait Priority: Send {
    /// Key of a waiting job (smaller = served first).
    fn waiting_key(&self, job: u32, now: Micros, state: &State<'_>) -> Key;
    /// Key of a running job (larger = preempted first).
    fn running_key(&self, job: u32, now: Micros, state: &State<'_>) -> Key;
    /// Whether waiting job `w` may preempt running job `v`.
    fn may_preempt(&self, w: u32, v: u32, now: Micros, state: &State<'_>) -> bool;
    /// Service after which a running job's priority next changes.
    fn next_change(&self, _job: u32, _now: Micros, _state: &State<'_>) -> Option<Micros> {
        None
    }
}

/// A preemptive scheduler driven by a [`Priority`].
#[derive(Debug)]
pub(super) struct Preemptive<P> {
    prio: P,
    waiting: IndexedHeap<Key>,
    running: IndexedHeap<Reverse<Key>>,
    skipped: Vec<u32>,
    victims: Vec<Tentative>,
}

impl<P: Priority> Preemptive<P> {
    pub(super) fn new(jobs: usize, prio: P) -> Self {
        Self {
            prio,
            waiting: IndexedHeap::new(jobs),
            running: IndexedHeap::new(jobs),
            skipped: Vec::with_capacity(jobs),
            victims: Vec::with_capacity(64),
        }
    }

    fn started(&mut self, pass: &mut Pass<'_, '_>, j: u32) {
        let now = pass.now();
        let k = self.prio.running_key(j, now, pass.state());
        self.running.push(j, Reverse(k));
        if let Some(service) = self.prio.next_change(j, now, pass.state()) {
            pass.schedule_timer(j, service);
        }
    }

    /// Start `w`, preempting lower-priority jobs if needed.
    fn try_start(&mut self, pass: &mut Pass<'_, '_>, w: u32) -> Result<bool> {
        if pass.start(w)? {
            self.started(pass, w);
            return Ok(true);
        }
        let now = pass.now();
        self.victims.clear();
        while let Some((v, _)) = self.running.peek() {
            if !self.prio.may_preempt(w, v, now, pass.state()) {
                break;
            }
            self.running.pop();
            self.victims.push(pass.preempt(v)?);
            if pass.fits(w) {
                break;
            }
        }
        if !pass.fits(w) {
            while let Some(t) = self.victims.pop() {
                let v = t.job();
                pass.undo(t)?;
                self.running.push(v, self.running.key(v));
            }
            return Ok(false);
        }
        if !pass.start(w)? {
            return Err(Error::input(format!(
                "internal error: job {w} fits but could not be placed"
            )));
        }
        self.started(pass, w);
        while let Some(t) = self.victims.pop() {
            let v = t.job();
            if pass.can_undo(&t) {
                pass.undo(t)?;
                self.running.push(v, self.running.key(v));
            } else {
                pass.commit(t);
                let k = self.prio.waiting_key(v, now, pass.state());
                self.waiting.push(v, k);
            }
        }
        Ok(true)
    }
}

impl<P: Priority> JobScheduler for Preemptive<P> {
    fn on_arrival(&mut self, job: u32, now: Micros, state: &State<'_>) {
        self.waiting
            .push(job, self.prio.waiting_key(job, now, state));
    }

    fn on_completion(&mut self, job: u32, _now: Micros, _state: &State<'_>) {
        self.running.remove(job);
    }

    fn on_timer(&mut self, job: u32, now: Micros, state: &State<'_>) -> Option<Micros> {
        self.running
            .push(job, Reverse(self.prio.running_key(job, now, state)));
        self.prio.next_change(job, now, state)
    }

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        self.skipped.clear();
        while let Some((w, _)) = self.waiting.peek() {
            self.waiting.pop();
            if self.try_start(pass, w)? {
                continue;
            }
            self.skipped.push(w);
            if !pass.backfill() {
                break;
            }
        }
        for &j in &self.skipped {
            self.waiting.push(j, self.waiting.key(j));
        }
        Ok(())
    }
}
