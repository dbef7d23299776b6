//! The mean of the repetitions' loss step functions, exactly.

use super::stats::mean;
use crate::metrics::LossCurve;
use crate::trace::Micros;

/// M(τ) = mean over repetitions of L_r(τ), as an exact step function.
///
/// The mean of step functions is a step function whose breakpoints are the
/// union of the repetitions' breakpoints; at each one, M is the
/// mean ([`mean`]: left-to-right sum in repetition order over their number,
/// clamped to their range) of the defined L_r. A repetition is defined from its first arrival on; with every
/// tenant arriving at 0 (the only arrival mode so far) all are defined
/// everywhere.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanCurve {
    /// Breakpoints, strictly increasing, µs.
    pub times: Vec<Micros>,
    /// M on `[times[j], times[j+1])`.
    pub mean: Vec<f64>,
    /// Repetitions averaged at `times[j]`.
    pub reps: Vec<u32>,
    /// The latest last arrival of any repetition, µs: T(θ) is searched from
    /// here on (DESIGN §2).
    pub from: Micros,
}

impl MeanCurve {
    /// The mean of `curves` (in repetition order).
    pub fn of(curves: &[&LossCurve]) -> Self {
        let mut times: Vec<Micros> = curves
            .iter()
            .flat_map(|c| c.times.iter().copied())
            .collect();
        times.sort_unstable();
        times.dedup();
        let mut next = vec![0usize; curves.len()];
        let mut means = Vec::with_capacity(times.len());
        let mut reps = Vec::with_capacity(times.len());
        let mut values = Vec::with_capacity(curves.len());
        for &t in &times {
            values.clear();
            for (c, k) in curves.iter().zip(next.iter_mut()) {
                while *k < c.times.len() && c.times[*k] <= t {
                    *k += 1;
                }
                if *k > 0 {
                    values.push(c.loss_of_segment(*k - 1));
                }
            }
            means.push(mean(&values));
            reps.push(values.len() as u32);
        }
        Self {
            times,
            mean: means,
            reps,
            from: curves.iter().map(|c| c.last_arrival).max().unwrap_or(0),
        }
    }

    /// M(τ), or `None` before any repetition is defined.
    pub fn value_at(&self, t: Micros) -> Option<f64> {
        let j = self.times.partition_point(|&x| x <= t).checked_sub(1)?;
        (self.reps[j] > 0).then(|| self.mean[j])
    }

    /// T(θ) of the mean curve: the first τ at or after [`Self::from`] with
    /// M(τ) ≤ θ, or `None` (∞).
    pub fn time_to(&self, theta: f64) -> Option<Micros> {
        let start = self
            .times
            .partition_point(|&x| x <= self.from)
            .checked_sub(1)?;
        (start..self.times.len())
            .find(|&j| self.reps[j] > 0 && self.mean[j] <= theta)
            .map(|j| self.times[j].max(self.from))
    }
}
