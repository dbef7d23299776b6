//! The non-preemptive pass over a queue in a fixed order (DESIGN §9.3), shared
//! by `fifo` and `sjf`: scan the queue in key order, start each job that
//! fits; a job that does not fit stops the scan (head-of-line blocking)
//! unless backfilling is on, in which case the scan goes on with later jobs.

use crate::core::error::{Error, Result};
use crate::core::sim::heap::IndexedHeap;
use crate::core::sim::time::Micros;
use crate::jobs::sim::simulation::{Pass, State};
use crate::jobs::sim::{JobScheduler, Key};
use crate::jobs::trace::Job;

/// A waiting queue ordered by a key that never changes while a job waits:
/// `key(job, index, now)` at its arrival. A key function that fails stops
/// the run at the next scheduling pass with its error.
/// Copies a [`StaticOrder`] into a new box.
type Cloner<K> = fn(&StaticOrder<K>) -> Box<dyn JobScheduler>;

#[derive(Debug, Clone)]
pub(super) struct StaticOrder<K> {
    key: K,
    /// How to copy it (DESIGN §15.5): set when the key can be cloned (the
    /// built-in keys); `None` for a user's priority function.
    cloner: Option<Cloner<K>>,
    waiting: IndexedHeap<Key>,
    skipped: Vec<u32>,
    failed: Option<Error>,
}

impl<K: FnMut(&Job, u32, Micros) -> Result<Key>> StaticOrder<K> {
    pub(super) fn new(jobs: usize, key: K) -> Self {
        Self {
            key,
            cloner: None,
            waiting: IndexedHeap::new(jobs),
            skipped: Vec::with_capacity(jobs),
            failed: None,
        }
    }
}

/// A static-order queue of `jobs` jobs with the key function `key`.
pub(super) fn by_key(jobs: usize, key: fn(&Job, u32) -> Key) -> Box<dyn JobScheduler> {
    Box::new(forkable(StaticOrder::new(
        jobs,
        move |j: &Job, i: u32, _now: Micros| Ok(key(j, i)),
    )))
}

/// `s`, able to fork: its key is a plain function, cloned with it.
fn forkable<K>(mut s: StaticOrder<K>) -> StaticOrder<K>
where
    K: FnMut(&Job, u32, Micros) -> Result<Key> + Clone + Send + 'static,
{
    s.cloner = Some(|s: &StaticOrder<K>| Box::new(s.clone()) as Box<dyn JobScheduler>);
    s
}

/// A non-preemptive scheduler that serves waiting jobs by a priority a
/// user function gives each job at its arrival, smallest first; ties by
/// submit time, then job index (DESIGN §9.3). The scan, head-of-line
/// blocking, backfilling and placement are the engine's, as for `fifo`.
/// `priority(job, index, now)` returning NaN or an error stops the run
/// with a policy error at the next pass. This is how a priority function
/// written elsewhere (e.g. in Python) becomes a job scheduler.
pub fn priority_order(
    jobs: usize,
    mut priority: impl FnMut(&Job, u32, Micros) -> Result<f64> + Send + 'static,
) -> Box<dyn JobScheduler> {
    Box::new(StaticOrder::new(
        jobs,
        move |j: &Job, i: u32, now: Micros| {
            let p = priority(j, i, now)?;
            if p.is_nan() {
                return Err(Error::policy(format!(
                    "the priority of job {i} is NaN: expected a number (smaller runs first)"
                )));
            }
            Ok((ordered_bits(p), j.submit, i))
        },
    ))
}

/// The bits of `x` (not NaN) as a `u64` in the order of the floats:
/// −∞ < … < −0.0 = +0.0 < … < +∞.
fn ordered_bits(x: f64) -> u64 {
    let x = if x == 0.0 { 0.0 } else { x };
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

impl<K: FnMut(&Job, u32, Micros) -> Result<Key> + Send> JobScheduler for StaticOrder<K> {
    fn on_arrival(&mut self, job: u32, now: Micros, state: &State<'_>) {
        if self.failed.is_some() {
            return;
        }
        match (self.key)(state.job(job), job, now) {
            Ok(k) => self.waiting.push(job, k),
            Err(e) => self.failed = Some(e),
        }
    }

    fn on_completion(&mut self, _job: u32, _now: Micros, _state: &State<'_>) {}

    /// A copy in the same state when the key can be cloned (DESIGN §15.5).
    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        self.cloner.map(|c| c(self))
    }

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.skipped.clear();
        while let Some((j, _)) = self.waiting.peek() {
            if pass.no_room() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_bits_sort_like_the_floats() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            2.5,
            1e300,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(
                ordered_bits(w[0]) <= ordered_bits(w[1]),
                "{} vs {}",
                w[0],
                w[1]
            );
            assert_eq!(ordered_bits(w[0]) == ordered_bits(w[1]), w[0] == w[1]);
        }
    }
}
