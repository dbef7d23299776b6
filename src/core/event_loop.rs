//! The event loop shared by every simulation mode: it pops events in
//! `(time, kind, sequence)` order and hands them to a [`Component`]. It knows
//! nothing about GPUs, tenants, jobs or policies.

use super::EventQueue;
use crate::core::error::Result;
use crate::core::time::Micros;

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
pub fn run_events<C: Component>(
    component: &mut C,
    queue: &mut EventQueue<C::Event>,
    horizon: Option<Micros>,
) -> Result<LoopEnd> {
    let mut events = 0u64;
    let mut end = 0;
    while let Some(now) = queue.peek_time() {
        if let Some(h) = horizon.filter(|&h| now > h) {
            return Ok(LoopEnd {
                end: h,
                events,
                cut: true,
            });
        }
        while queue.peek_time() == Some(now) {
            let Some(ev) = queue.pop() else { break };
            events += 1;
            component.on_event(now, ev.payload, queue)?;
        }
        end = now;
        if horizon.is_none_or(|h| now < h) {
            component.after_instant(now, queue)?;
        }
    }
    Ok(LoopEnd {
        end,
        events,
        cut: false,
    })
}
