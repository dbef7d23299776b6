//! The event loop shared by every simulation mode: it pops events in
//! `(time, kind, sequence)` order and hands them to a [`Component`]. It knows
//! nothing about GPUs, tenants, jobs or policies.

use std::sync::atomic::{AtomicU64, Ordering};

use super::EventQueue;
use crate::core::error::{Error, Result};
use crate::core::sim::time::Micros;

/// Events handled by every event loop of the process so far, summed over
/// threads, in steps of [`PROGRESS_STEP`] (the rest of a run is added when
/// it ends). For progress displays only (the command line's progress bar
/// shows it during a long task): no simulation ever reads it, so results
/// do not depend on it (DESIGN §5).
pub static EVENTS_HANDLED: AtomicU64 = AtomicU64::new(0);

/// The furthest simulated time (µs) any event loop of the process has
/// reached, updated every [`PROGRESS_STEP`] events (a relaxed `fetch_max`).
/// For progress displays only, like [`EVENTS_HANDLED`]: the progress bar
/// of a one-run scenario shows how far its simulated time has come.
pub static FURTHEST_SIMULATED: AtomicU64 = AtomicU64::new(0);

/// How many events a loop handles between two additions to
/// [`EVENTS_HANDLED`] (a power of two: one relaxed atomic add per 4,096
/// events keeps the hot loop free of contention).
pub const PROGRESS_STEP: u64 = 4096;

/// A simulated system driven by the event loop.
pub trait Component {
    /// The events this component schedules.
    type Event: Copy;

    /// Handle one event at time `now`; may schedule more.
    fn on_event(
        &mut self,
        now: Micros,
        event: Self::Event,
        queue: &mut EventQueue<Self::Event>,
    ) -> Result<()>;

    /// Called once per instant, after every event at `now` was handled and
    /// only while `now` is before the horizon: the place for decisions
    /// (e.g. filling free GPUs).
    fn after_instant(&mut self, now: Micros, queue: &mut EventQueue<Self::Event>) -> Result<()>;
}

/// How an event loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopEnd {
    /// Time of the last instant processed, or the horizon if the run was cut.
    pub end: Micros,
    /// Events handled.
    pub events: u64,
    /// Whether events were left beyond the horizon.
    pub cut: bool,
}

/// Run `component` until the queue is empty or the next event lies beyond
/// `horizon`. Events at the horizon are handled, but
/// [`Component::after_instant`] is not called at or after it.
///
/// A requested stop ([`crate::core::interrupt`]: a signal, or a library
/// caller such as the Python package) ends the loop with an
/// [`Interrupted`](crate::core::error::ErrorKind::Interrupted) error before
/// the next instant's decisions and every [`PROGRESS_STEP`] events, so a
/// stop never waits for a long repetition to finish. The check is one
/// atomic load (no system call); it never changes a result.
pub fn run_events<C: Component>(
    component: &mut C,
    queue: &mut EventQueue<C::Event>,
    horizon: Option<Micros>,
) -> Result<LoopEnd> {
    let mut looper = EventLoop::new(horizon);
    while let Some(now) = looper.next_instant(component, queue)? {
        component.after_instant(now, queue)?;
    }
    Ok(looper.end())
}

/// [`run_events`] one instant at a time, for a caller that makes the
/// decisions of an instant itself, between two calls (a steppable
/// simulation: `models::sim::ModelRun`). The sequence of events handled,
/// the progress counter and the stop checks are those of [`run_events`],
/// which is this loop with [`Component::after_instant`] called at every
/// instant returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventLoop {
    horizon: Option<Micros>,
    events: u64,
    end: Micros,
    cut: bool,
    done: bool,
}

impl EventLoop {
    /// A loop that stops at `horizon`, if set.
    pub fn new(horizon: Option<Micros>) -> Self {
        Self {
            horizon,
            events: 0,
            end: 0,
            cut: false,
            done: false,
        }
    }

    /// Handle every event of the next instant, then return that instant if
    /// its decisions are due (it lies before the horizon; a requested stop
    /// is an error first); skip instants at the horizon; `None` once the
    /// queue is empty or the next event lies beyond the horizon (the loop
    /// has ended: [`Self::end`]).
    pub fn next_instant<C: Component>(
        &mut self,
        component: &mut C,
        queue: &mut EventQueue<C::Event>,
    ) -> Result<Option<Micros>> {
        while !self.done {
            let Some(now) = queue.peek_time() else {
                self.finish(false);
                break;
            };
            if let Some(h) = self.horizon.filter(|&h| now > h) {
                self.end = h;
                self.finish(true);
                break;
            }
            while queue.peek_time() == Some(now) {
                let Some(ev) = queue.pop() else { break };
                self.events += 1;
                if self.events.is_multiple_of(PROGRESS_STEP) {
                    EVENTS_HANDLED.fetch_add(PROGRESS_STEP, Ordering::Relaxed);
                    FURTHEST_SIMULATED.fetch_max(now, Ordering::Relaxed);
                    stop_if_requested()?;
                }
                component.on_event(now, ev.payload, queue)?;
            }
            self.end = now;
            if self.horizon.is_none_or(|h| now < h) {
                stop_if_requested()?;
                return Ok(Some(now));
            }
        }
        Ok(None)
    }

    /// Whether the loop has ended.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The time of the last instant handled so far (the horizon once a run
    /// is cut), and the events handled.
    pub fn end(&self) -> LoopEnd {
        LoopEnd {
            end: self.end,
            events: self.events,
            cut: self.cut,
        }
    }

    fn finish(&mut self, cut: bool) {
        EVENTS_HANDLED.fetch_add(self.events % PROGRESS_STEP, Ordering::Relaxed);
        self.cut = cut;
        self.done = true;
    }
}

/// The error that ends a repetition once a stop was requested.
fn stop_if_requested() -> Result<()> {
    if crate::core::interrupt::requested() {
        return Err(Error::interrupted(
            "interrupted: the run stopped in the middle of a repetition; no results were written",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `left` events one µs apart; at its 5,000th event it reads
    /// the shared counter.
    struct Chain {
        left: u64,
        handled: u64,
        seen_at_5000: u64,
        furthest_at_5000: u64,
    }

    impl Component for Chain {
        type Event = ();

        fn on_event(&mut self, now: Micros, (): (), queue: &mut EventQueue<()>) -> Result<()> {
            self.handled += 1;
            if self.handled == 5000 {
                self.seen_at_5000 = EVENTS_HANDLED.load(Ordering::Relaxed);
                self.furthest_at_5000 = FURTHEST_SIMULATED.load(Ordering::Relaxed);
            }
            if self.left > 0 {
                self.left -= 1;
                queue.push(now + 1, 0, ());
            }
            Ok(())
        }

        fn after_instant(&mut self, _: Micros, _: &mut EventQueue<()>) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_progress_counter_moves_during_a_run_and_counts_every_event() {
        // Other tests add to the process-wide counter at the same time:
        // the bounds hold whatever they add.
        let before = EVENTS_HANDLED.load(Ordering::Relaxed);
        let mut chain = Chain {
            left: 9_999,
            handled: 0,
            seen_at_5000: 0,
            furthest_at_5000: 0,
        };
        let mut queue = EventQueue::default();
        queue.push(0, 0, ());
        let end = run_events(&mut chain, &mut queue, None).expect("runs");
        assert_eq!(end.events, 10_000);
        assert!(chain.seen_at_5000 >= before + PROGRESS_STEP);
        assert!(EVENTS_HANDLED.load(Ordering::Relaxed) >= before + 10_000);
        // Event k is at k µs: the 4,096th (at 4,095 µs) was the last step
        // before the 5,000th, the 8,192nd (at 8,191 µs) the last of all.
        // Other loops may have gone further.
        assert!(chain.furthest_at_5000 >= 4_095);
        assert!(FURTHEST_SIMULATED.load(Ordering::Relaxed) >= 8_191);
    }
}
