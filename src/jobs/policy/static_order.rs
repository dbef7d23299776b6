//! The non-preemptive pass over a queue in a fixed order (DESIGN §9.3), shared
//! by `fifo` and `sjf`: scan the queue in key order, start each job that
//! fits; a job that does not fit stops the scan (head-of-line blocking)
//! unless backfilling is on, in which case the scan goes on with later jobs.

use crate::core::error::Result;
use crate::core::heap::IndexedHeap;
use crate::core::time::Micros;
use crate::jobs::sim::simulation::{Pass, State};
use crate::jobs::sim::{JobScheduler, Key};
use crate::jobs::trace::Job;

/// A waiting queue ordered by a key that never changes while a job waits.
#[derive(Debug)]
pub(super) struct StaticOrder {
    key: fn(&Job, u32) -> Key,
    waiting: IndexedHeap<Key>,
    skipped: Vec<u32>,
}

impl StaticOrder {
    pub(super) fn new(jobs: usize, key: fn(&Job, u32) -> Key) -> Self {
        Self {
            key,
            waiting: IndexedHeap::new(jobs),
            skipped: Vec::with_capacity(jobs),
        }
    }
}

impl JobScheduler for StaticOrder {
    fn on_arrival(&mut self, job: u32, _now: Micros, state: &State<'_>) {
        self.waiting.push(job, (self.key)(state.job(job), job));
    }

    fn on_completion(&mut self, _job: u32, _now: Micros, _state: &State<'_>) {}

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        self.skipped.clear();
        while let Some((j, _)) = self.waiting.peek() {
            if pass.free_gpus() == 0 {
                break;
            }
            if pass.start(j)? {
                self.waiting.pop();
                continue;
            }
            if !pass.backfill() {
                break;
            }
            self.waiting.pop();
            self.skipped.push(j);
        }
        for &j in &self.skipped {
            self.waiting.push(j, self.waiting.key(j));
        }
        Ok(())
    }
}
