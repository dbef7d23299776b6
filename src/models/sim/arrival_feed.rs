//! Arrivals drawn as the run goes, fed to the event queue one instant at
//! a time (DESIGN §2.8 `order = "streamed"`, §2.3).
//!
//! Listed arrivals go to the queue at the start, one batch whose events
//! pop in (time, tenant) order (`EventQueue::push_batch`). A feed keeps
//! the queue holding the arrivals of one instant only: every tenant
//! arriving at that instant, pushed in tenant order; when the last of them
//! pops, the next instant's arrivals are drawn and pushed. The events pop
//! in the same order as the batch's:
//! - arrivals of one instant are pushed in tenant order, so among
//!   themselves (same time, same kind) they pop in tenant order, as the
//!   batch's sequence numbers order them;
//! - against other events, an arrival's key differs in time or kind
//!   (events of one kind and time are all arrivals), so its sequence
//!   number is never compared with theirs;
//! - the next instant is later than every event popped before it is
//!   pushed (they pop at or before the current instant's last arrival),
//!   so it is in the queue before anything of its time could pop.
//!
//! `tests/it/streamed_arrivals.rs` checks the whole outcome, and every
//! call the engine makes in order, against the same times listed.

use super::event::ARRIVAL;
use super::{ArrivalDraws, Event};
use crate::core::sim::EventQueue;
use crate::models::trace::Micros;

/// The arrivals not pushed yet, and how many pushed have not popped.
#[derive(Debug, Clone)]
pub(super) struct ArrivalFeed {
    draws: ArrivalDraws,
    /// The next arrival drawn but not pushed (the first of the next
    /// instant).
    next: Option<(Micros, u32)>,
    /// Arrivals pushed that have not popped yet.
    in_queue: usize,
    /// The tenants of the instant being pushed (reused: no allocation a
    /// step once it has grown to the most tenants arriving at once).
    group: Vec<u32>,
}

impl ArrivalFeed {
    /// A feed of `draws`; its first instant is pushed to `queue`.
    pub(super) fn start(mut draws: ArrivalDraws, queue: &mut EventQueue<Event>) -> Self {
        let next = draws.next();
        let mut feed = Self {
            draws,
            next,
            in_queue: 0,
            group: Vec::new(),
        };
        feed.push_instant(queue);
        feed
    }

    /// An arrival of the feed popped: once the instant's last has, the
    /// next instant's arrivals are pushed.
    pub(super) fn popped(&mut self, queue: &mut EventQueue<Event>) {
        self.in_queue = self.in_queue.saturating_sub(1);
        if self.in_queue == 0 {
            self.push_instant(queue);
        }
    }

    /// Draw every arrival of the next instant and push them, in tenant
    /// order.
    fn push_instant(&mut self, queue: &mut EventQueue<Event>) {
        let Some((t, first)) = self.next.take() else {
            return;
        };
        self.group.clear();
        self.group.push(first);
        loop {
            match self.draws.next() {
                Some((u, i)) if u == t => self.group.push(i),
                other => {
                    self.next = other;
                    break;
                }
            }
        }
        self.group.sort_unstable();
        for &tenant in &self.group {
            queue.push(t, ARRIVAL, Event::Arrival { tenant });
        }
        self.in_queue = self.group.len();
    }
}
