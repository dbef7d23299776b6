//! Rounds (DESIGN §11.3): `[cluster] round_s` makes the job simulation
//! decide only at round boundaries, as Gavel's round-based scheduler does.
//! Without it the simulation is event-driven (DESIGN §9.2), the default and
//! the exact mode; nothing here runs then.
//!
//! In rounds mode:
//!
//! - **Boundaries.** A round starts at a boundary and lasts `round_s`. The
//!   scheduling pass runs at every boundary and nowhere else (arrivals,
//!   completions and timers between boundaries only update state). After a
//!   pass, if any job is waiting or running, the next boundary is
//!   `round_s` later. A round ends early, at that instant, when its last
//!   running job completes (as Gavel's round ends at the latest finish of
//!   the jobs it ran). With no job waiting or running there is no round;
//!   the next arrival is a boundary at its own instant.
//! - **Arrivals** between boundaries wait for the next boundary.
//! - **Completions** are exact: a job that finishes mid-round completes
//!   then (its JCT is exact) and its GPUs stay idle until the next
//!   boundary.
//! - **Progress** is kept exactly across a boundary. A job that keeps
//!   running in the next round is not interrupted; one the pass preempts
//!   keeps the service it received (DESIGN §9.4) and pays
//!   `restart_overhead_s` (default 0, as Gavel's simulator) when it next
//!   starts.
//! - **Schedulers that do not time-slice** (fifo, sjf, fair-share, ftf, and
//!   the preemptive srtf and las) run their usual pass, only at
//!   boundaries: jobs start (and are preempted) only there. Time-slicing
//!   schedulers (`max-min-fairness`) re-decide every round which jobs run.
//!
//! Boundary events are kind 4, after every other kind at the same instant,
//! so the pass at a boundary sees that instant's completions and arrivals.
//! They carry a sequence number; a boundary moved earlier (a round ended
//! by its last completion) makes the pending one stale.

use super::event::{BOUNDARY, JobEvent};
use crate::core::error::{Error, Result};
use crate::core::sim::EventQueue;
use crate::core::sim::time::Micros;

/// The round clock of one simulation.
#[derive(Debug, Clone)]
pub struct Rounds {
    /// Round length, µs (> 0).
    round: Micros,
    /// Sequence number of the pending boundary event.
    seq: u32,
    /// Whether a boundary event is pending.
    pending: bool,
    /// Whether a current boundary fired at this instant.
    at_boundary: bool,
    /// Boundaries passed (a measurement).
    pub boundaries: u64,
}

impl Rounds {
    /// A round clock of `round` µs.
    pub fn new(round: Micros) -> Result<Self> {
        if round == 0 {
            return Err(Error::input(
                "internal error: a round must last at least 1 µs",
            ));
        }
        Ok(Self {
            round,
            seq: 0,
            pending: false,
            at_boundary: false,
            boundaries: 0,
        })
    }

    /// The round length, µs.
    pub fn round(&self) -> Micros {
        self.round
    }

    fn push(&mut self, at: Micros, queue: &mut EventQueue<JobEvent>) {
        self.seq = self.seq.wrapping_add(1);
        self.pending = true;
        queue.push(at, BOUNDARY, JobEvent::Boundary { seq: self.seq });
    }

    /// A job arrived at `now`: with no round under way, `now` is a
    /// boundary.
    pub fn on_arrival(&mut self, now: Micros, queue: &mut EventQueue<JobEvent>) {
        if !self.pending {
            self.push(now, queue);
        }
    }

    /// A job completed at `now`; `idle` when no job runs any more: the
    /// round ends now.
    pub fn on_completion(&mut self, now: Micros, idle: bool, queue: &mut EventQueue<JobEvent>) {
        if idle {
            self.push(now, queue);
        }
    }

    /// Boundary event `seq` fired: whether it is current (it then makes
    /// this instant a boundary).
    pub fn on_boundary(&mut self, seq: u32) -> bool {
        if !self.pending || seq != self.seq {
            return false;
        }
        self.pending = false;
        self.at_boundary = true;
        self.boundaries += 1;
        true
    }

    /// Whether this instant is a boundary (the pass runs); resets the flag.
    pub fn take_boundary(&mut self) -> bool {
        std::mem::take(&mut self.at_boundary)
    }

    /// After the pass at boundary `now`: the next boundary, if any job is
    /// still waiting or running (`active`).
    pub fn after_pass(
        &mut self,
        now: Micros,
        active: bool,
        queue: &mut EventQueue<JobEvent>,
    ) -> Result<()> {
        if active && !self.pending {
            let at = now
                .checked_add(self.round)
                .ok_or_else(|| Error::input("simulated time overflowed 2^64 µs"))?;
            self.push(at, queue);
        }
        Ok(())
    }
}
