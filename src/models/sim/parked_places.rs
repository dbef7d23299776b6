//! Where each parked tenant's record is among the parked sequences of
//! [`Tenants`](super::Tenants) (issue 34: memory by active tenants;
//! DESIGN §2.6 "Done tenants").
//!
//! Done tenants are parked in the order they are done, so a tenant's place
//! is not its index. A run of up to [`DENSE_UP_TO`] tenants (every bundled
//! scenario but the scale ones) holds each tenant's place densely: 4 bytes
//! a tenant, one read. A larger run holds (tenant, place) pairs in
//! [`SortedRuns`] whose runs are written to a temporary file as they are
//! sorted: what it holds in memory is the open run of [`PLACES_RUN`]
//! pairs (512 KiB, as much again for their order while it is sorted) and
//! a write buffer, whatever the tenants of the run. scale-year's 10^7
//! tenants held 40 MB of places.
//!
//! The price is a lookup: a search of every written run
//! ([`SortedRuns::last_of`]: at 10^7 tenants 153 runs, up to 17
//! positional reads each). Only a policy that reads a done tenant's
//! state back looks a place up: what a decision asks of a done tenant
//! (arrived, eligible, done, running) is answered without its record, the
//! built-in policies of the scenarios checked read none
//! (docs/PERFORMANCE.md "The engine's slot numbers by the tenants
//! present"), and the end of a run reads the records in one pass, not by
//! place.
//!
//! A tenant parked again (its state changed after it was done) has a
//! later place; the later counts, in both forms.

use crate::core::error::{Error, Result};
use crate::core::io::sorted_runs::SortedRuns;
use crate::core::io::spill::Record;
use crate::core::memory::PLACES_RUN;
use crate::core::sim::slot_index::DENSE_UP_TO;

/// No place: the tenant was never parked (the dense form).
const NONE: u32 = u32::MAX;

/// The place of each parked tenant of `0..n`.
#[derive(Debug)]
pub(super) enum ParkedPlaces {
    /// Per tenant: its latest place, or [`NONE`].
    Dense(Vec<u32>),
    /// (tenant, place) pairs, the last pushed for a tenant its place.
    Runs(Box<SortedRuns<Placed, u64>>),
}

/// A tenant and its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Placed {
    tenant: u32,
    place: u32,
}

impl Record for Placed {
    const BYTES: usize = 8;
    fn encode(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.tenant.to_le_bytes());
        out[4..8].copy_from_slice(&self.place.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            tenant: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            place: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        }
    }
}

/// The key a pair is sorted and found by: its tenant.
fn tenant(p: &Placed) -> u64 {
    u64::from(p.tenant)
}

impl ParkedPlaces {
    /// Places for tenants `0..n`, none parked: dense up to
    /// [`DENSE_UP_TO`] tenants, in runs on disk above.
    pub(super) fn new(n: usize) -> Self {
        if n <= DENSE_UP_TO {
            Self::Dense(vec![NONE; n])
        } else {
            Self::in_runs(PLACES_RUN, 0)
        }
    }

    /// Places held in runs of `run_pairs`, whatever the tenants (the form
    /// of a large run; tests use it on small ones).
    pub(super) fn in_runs(run_pairs: usize, spill_bytes: usize) -> Self {
        Self::Runs(Box::new(SortedRuns::new(tenant, 0, run_pairs, spill_bytes)))
    }

    /// Tenant `i` is parked at `place` from now on. An error: writing a
    /// run.
    pub(super) fn set(&mut self, i: u32, place: u32) -> Result<()> {
        match self {
            Self::Dense(places) => {
                if let Some(p) = places.get_mut(i as usize) {
                    *p = place;
                }
                Ok(())
            }
            Self::Runs(runs) => runs.push(Placed { tenant: i, place }, []),
        }
    }

    /// Tenant `i`'s latest place, `None` if it was never parked. An
    /// error: reading a run back.
    pub(super) fn get(&self, i: usize) -> Result<Option<u64>> {
        match self {
            Self::Dense(places) => Ok(places.get(i).filter(|&&p| p != NONE).map(|&p| u64::from(p))),
            Self::Runs(runs) => {
                let Ok(key) = u32::try_from(i) else {
                    return Ok(None);
                };
                Ok(runs.last_of(u64::from(key))?.map(|p| u64::from(p.place)))
            }
        }
    }

    /// An independent copy (a fork of the run); on failure an empty one,
    /// and `failure` says why (if it said nothing yet).
    pub(super) fn copy_or_empty(&self, failure: &mut Option<Error>) -> Self {
        match self {
            Self::Dense(places) => Self::Dense(places.clone()),
            Self::Runs(runs) => Self::Runs(Box::new(runs.copy_or_empty(failure))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::sim::rng::{Purpose, below, stream};

    /// Both forms, in memory and on file, against a map of the last place
    /// set per tenant, after every change: tenants parked in a shuffled
    /// order, some parked again later.
    #[test]
    fn both_forms_answer_the_last_place_set() {
        let n = 500;
        let mut rng = stream(3, 0, Purpose::Arrivals);
        let sets: Vec<(u32, u32)> = (0..900u32)
            .map(|place| (below(&mut rng, n) as u32, place))
            .collect();
        for mut places in [
            ParkedPlaces::new(n),
            ParkedPlaces::in_runs(64, 0),
            ParkedPlaces::in_runs(64, usize::MAX),
            ParkedPlaces::in_runs(1, 0),
        ] {
            let mut want = vec![None; n];
            for (j, &(i, place)) in sets.iter().enumerate() {
                places.set(i, place).expect("set");
                want[i as usize] = Some(u64::from(place));
                if j % 50 == 0 || j == sets.len() - 1 {
                    for (t, w) in want.iter().enumerate() {
                        assert_eq!(places.get(t).expect("read"), *w, "tenant {t}");
                    }
                    assert_eq!(places.get(n).expect("read"), None);
                }
            }
            let mut failure = None;
            let copy = places.copy_or_empty(&mut failure);
            assert!(failure.is_none());
            for (t, w) in want.iter().enumerate() {
                assert_eq!(copy.get(t).expect("read"), *w);
            }
        }
    }

    #[test]
    fn large_runs_hold_their_places_in_runs() {
        assert!(matches!(
            ParkedPlaces::new(DENSE_UP_TO),
            ParkedPlaces::Dense(_)
        ));
        assert!(matches!(
            ParkedPlaces::new(DENSE_UP_TO + 1),
            ParkedPlaces::Runs(_)
        ));
    }
}
