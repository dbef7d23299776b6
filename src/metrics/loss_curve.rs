//! The exact step function of the global loss.

use super::CompensatedSum;
use crate::engine::RunOutcome;
use crate::trace::{Micros, Trace};

/// The global loss of one run as an exact step function.
///
/// With A*_i the best accuracy of tenant i and best_i(τ) the best accuracy
/// among its jobs completed by τ (0 before the first):
///
/// - ℓ_i(τ) = A*_i − best_i(τ)
/// - S(τ)  = Σ ℓ_i(τ) over tenants arrived by τ
/// - L(τ)  = S(τ) / (number of tenants arrived by τ)      (DESIGN §2)
///
/// `times[j]` is the j-th instant at which S or the arrived count changed;
/// the values hold on `[times[j], times[j+1])`. At an instant, the value is
/// the one after every event at that instant (completions and arrivals).
#[derive(Debug, Clone, PartialEq)]
pub struct LossCurve {
    /// Instants of change, strictly increasing, µs.
    pub times: Vec<Micros>,
    /// S(τ): summed loss of arrived tenants from `times[j]` on.
    pub sum_loss: Vec<f64>,
    /// Tenants arrived by `times[j]`.
    pub arrived: Vec<u32>,
    /// Time of the last arrival, µs.
    pub last_arrival: Micros,
    /// End of the run, µs.
    pub end: Micros,
}

impl LossCurve {
    /// Build the curve of a run of tenants `users` (trace indices) arriving
    /// at `arrivals`.
    ///
    /// S is updated incrementally with Neumaier-compensated summation;
    /// when no arrived tenant has positive loss, S is exactly 0.
    pub fn from_outcome(
        trace: &Trace,
        users: &[usize],
        arrivals: &[Micros],
        outcome: &RunOutcome,
    ) -> Self {
        let best_possible: Vec<f64> = users.iter().map(|&u| trace.best_accuracy(u)).collect();
        let mut best = vec![0.0f64; users.len()];
        let mut arrived_flag = vec![false; users.len()];
        let mut sum = CompensatedSum::default();
        let mut positive = 0usize;
        let mut arrived = 0u32;
        let mut curve = Self {
            times: Vec::new(),
            sum_loss: Vec::new(),
            arrived: Vec::new(),
            last_arrival: arrivals.iter().copied().max().unwrap_or(0),
            end: outcome.end,
        };
        let mut changes = changes_in_order(arrivals, outcome).peekable();
        while let Some(&(now, ..)) = changes.peek() {
            while let Some((_, kind, i, acc)) = changes.next_if(|c| c.0 == now) {
                let loss_before = best_possible[i] - best[i];
                if kind == ARRIVAL {
                    arrived_flag[i] = true;
                    arrived += 1;
                    sum.add(loss_before);
                    if loss_before > 0.0 {
                        positive += 1;
                    }
                } else if acc > best[i] {
                    let old = best[i];
                    best[i] = acc;
                    if arrived_flag[i] {
                        sum.add(old - acc);
                        if loss_before > 0.0 && best_possible[i] - acc <= 0.0 {
                            positive -= 1;
                        }
                    }
                }
            }
            let s = if positive == 0 {
                0.0
            } else {
                sum.value().max(0.0)
            };
            if curve.sum_loss.last() == Some(&s) && curve.arrived.last() == Some(&arrived) {
                continue;
            }
            curve.times.push(now);
            curve.sum_loss.push(s);
            curve.arrived.push(arrived);
        }
        curve
    }

    /// L(τ): mean loss over tenants arrived by τ; `None` before the first
    /// arrival.
    pub fn loss_at(&self, t: Micros) -> Option<f64> {
        let j = self.times.partition_point(|&x| x <= t).checked_sub(1)?;
        Some(self.mean(j))
    }

    /// L on the j-th segment `[times[j], times[j+1])`.
    pub fn loss_of_segment(&self, j: usize) -> f64 {
        self.mean(j)
    }

    fn mean(&self, j: usize) -> f64 {
        if self.arrived[j] == 0 {
            0.0
        } else {
            self.sum_loss[j] / f64::from(self.arrived[j])
        }
    }

    /// Loss at the end of the run.
    pub fn final_loss(&self) -> f64 {
        self.loss_at(self.end).unwrap_or(0.0)
    }

    /// Cumulative regret R(T) = ∫₀ᵀ S(τ) dτ in accuracy·seconds, the exact
    /// integral of the step function up to `until` (DESIGN §2).
    pub fn cumulative_regret(&self, until: Micros) -> f64 {
        let mut area = 0.0;
        for j in 0..self.times.len() {
            let start = self.times[j];
            if start >= until {
                break;
            }
            let stop = self.times.get(j + 1).copied().unwrap_or(until).min(until);
            area += self.sum_loss[j] * (stop - start) as f64;
        }
        area / 1.0e6
    }

    /// T(θ): the first τ at or after the last arrival with L(τ) ≤ θ, or
    /// `None` (∞) if the run never gets there (DESIGN §2). The comparison
    /// allows [`THETA_SLACK`](super::THETA_SLACK) for float rounding.
    pub fn time_to(&self, theta: f64) -> Option<Micros> {
        let from = self
            .times
            .partition_point(|&x| x <= self.last_arrival)
            .checked_sub(1)?;
        (from..self.times.len())
            .find(|&j| self.mean(j) <= theta + super::THETA_SLACK)
            .map(|j| self.times[j].max(self.last_arrival))
    }
}

/// Change kinds, in the order the engine processes them at one instant.
const COMPLETION: u8 = 0;
const ARRIVAL: u8 = 1;

/// One change of the step function: (time, kind, tenant, accuracy).
type Change = (Micros, u8, usize, f64);

/// Every completion and arrival of a run in `(time, kind)` order, stably:
/// completions in the engine's processing order, arrivals in tenant order
/// at equal times, completions before arrivals at one instant.
///
/// The engine processes completions in time order, so `completion_order`
/// is already sorted: the arrivals are sorted (O(n log n) in tenants, O(n)
/// when they all arrive at 0) and merged in, with no sort of every job
/// (2 million at scale). A log whose completions are out of order (not one
/// the engine wrote) is sorted whole instead, which gives the same order.
fn changes_in_order<'a>(
    arrivals: &'a [Micros],
    outcome: &'a RunOutcome,
) -> Box<dyn Iterator<Item = Change> + 'a> {
    let completions = outcome.completion_order.iter().map(|&j| {
        let job = &outcome.jobs[j as usize];
        (job.end, COMPLETION, job.tenant as usize, job.accuracy)
    });
    let arrival = |i: usize| (arrivals[i], ARRIVAL, i, 0.0);
    let sorted = completions
        .clone()
        .zip(completions.clone().skip(1))
        .all(|(a, b)| a.0 <= b.0);
    if !sorted {
        let mut all: Vec<Change> = completions
            .chain((0..arrivals.len()).map(arrival))
            .collect();
        all.sort_by_key(|c| (c.0, c.1));
        return Box::new(all.into_iter());
    }
    let mut order: Vec<usize> = (0..arrivals.len()).collect();
    order.sort_by_key(|&i| arrivals[i]);
    let mut arrivals_in_order = order.into_iter().map(arrival).peekable();
    let mut completions = completions.peekable();
    Box::new(std::iter::from_fn(move || {
        match (completions.peek(), arrivals_in_order.peek()) {
            (Some(c), Some(a)) if a.0 < c.0 => arrivals_in_order.next(),
            (Some(_), _) => completions.next(),
            (None, _) => arrivals_in_order.next(),
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JobRecord;
    use proptest::prelude::*;

    fn outcome(ends: &[(Micros, u32)]) -> RunOutcome {
        let jobs = ends
            .iter()
            .map(|&(end, tenant)| JobRecord {
                tenant,
                model: 0,
                gpu: 0,
                start: 0,
                end,
                accuracy: f64::from(tenant) / 10.0,
                completed: true,
                cancelled: false,
            })
            .collect::<Vec<_>>();
        RunOutcome {
            completion_order: (0..jobs.len() as u32).collect(),
            jobs,
            ..RunOutcome::default()
        }
    }

    /// The reference: every change in one list, stably sorted by (time, kind).
    fn sorted(arrivals: &[Micros], o: &RunOutcome) -> Vec<Change> {
        let mut all: Vec<Change> = o
            .completion_order
            .iter()
            .map(|&j| {
                let job = &o.jobs[j as usize];
                (job.end, COMPLETION, job.tenant as usize, job.accuracy)
            })
            .chain(
                arrivals
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| (t, ARRIVAL, i, 0.0)),
            )
            .collect();
        all.sort_by_key(|c| (c.0, c.1));
        all
    }

    proptest! {
        /// Merging the sorted completions with the sorted arrivals gives
        /// exactly the stable sort of both, for sorted and unsorted logs.
        #[test]
        fn merge_equals_the_stable_sort(
            arrivals in proptest::collection::vec(0u64..6, 0..12),
            mut ends in proptest::collection::vec((0u64..8, 0u32..12), 0..30),
            keep_order in any::<bool>(),
        ) {
            if !keep_order {
                ends.sort_by_key(|e| e.0);
            }
            let o = outcome(&ends);
            let got: Vec<Change> = changes_in_order(&arrivals, &o).collect();
            prop_assert_eq!(got, sorted(&arrivals, &o));
        }
    }
}
