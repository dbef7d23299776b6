//! One policy's loss curves over the repetitions, each distinct curve held
//! once.
//!
//! Aggregation needs every repetition's L_r(τ): the grid is only known once
//! every run has ended, quantiles need every value and the exact mean curve
//! every breakpoint. Many repetitions repeat a curve (a deterministic policy
//! on a fixed trace gives the same one every time; a random one draws from
//! a finite set of schedules), so the curves are interned: each distinct
//! curve (bit for bit) is stored once with its number of copies, and the
//! repetitions keep only the index of theirs, in repetition order. Sums
//! still run over the repetitions in order (through the indices), so every
//! figure has the bits of the held-in-memory computation.
//!
//! Memory: 4 bytes per repetition plus the distinct curves (~20 bytes per
//! step each); when every repetition differs (random arrival times), that
//! is the curves themselves.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::metrics::LossCurve;

/// The curves of one policy, repetition by repetition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepCurves {
    /// Each distinct curve once, in order of first appearance.
    distinct: Vec<LossCurve>,
    /// Copies of each distinct curve.
    counts: Vec<u64>,
    /// Per repetition, in order: the index of its curve in `distinct`.
    ids: Vec<u32>,
    /// Curve hash → indices of the distinct curves with that hash.
    index: HashMap<u64, Vec<u32>>,
}

impl RepCurves {
    /// Append the next repetition's curve (cloned only when new).
    pub fn push(&mut self, curve: &LossCurve) {
        let h = curve_hash(curve);
        let bucket = self.index.entry(h).or_default();
        let id = match bucket
            .iter()
            .copied()
            .find(|&i| same_curve(&self.distinct[i as usize], curve))
        {
            Some(i) => i,
            None => {
                let i = u32::try_from(self.distinct.len()).unwrap_or(u32::MAX);
                self.distinct.push(curve.clone());
                self.counts.push(0);
                bucket.push(i);
                i
            }
        };
        self.counts[id as usize] += 1;
        self.ids.push(id);
    }

    /// Number of repetitions.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The distinct curves.
    pub fn distinct(&self) -> &[LossCurve] {
        &self.distinct
    }

    /// Copies of each distinct curve.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Per repetition, in order, the index of its distinct curve.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Per repetition, in order, `per_curve` of its curve.
    pub fn each_rep<'a, T: Copy>(&'a self, per_curve: &'a [T]) -> impl Iterator<Item = T> + 'a {
        self.ids.iter().map(move |&i| per_curve[i as usize])
    }
}

fn curve_hash(c: &LossCurve) -> u64 {
    let mut h = DefaultHasher::new();
    c.times.hash(&mut h);
    for v in &c.sum_loss {
        v.to_bits().hash(&mut h);
    }
    c.arrived.hash(&mut h);
    c.last_arrival.hash(&mut h);
    c.end.hash(&mut h);
    h.finish()
}

/// Equal bit for bit (so every figure derived from them is too).
fn same_curve(a: &LossCurve, b: &LossCurve) -> bool {
    a.times == b.times
        && a.arrived == b.arrived
        && a.last_arrival == b.last_arrival
        && a.end == b.end
        && a.sum_loss.len() == b.sum_loss.len()
        && a.sum_loss
            .iter()
            .zip(&b.sum_loss)
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(loss: f64) -> LossCurve {
        LossCurve {
            times: vec![0, 5],
            sum_loss: vec![1.0, loss],
            arrived: vec![1, 1],
            last_arrival: 0,
            end: 9,
        }
    }

    #[test]
    fn repeats_are_held_once_and_order_is_kept() {
        let mut r = RepCurves::default();
        for l in [0.5, 0.25, 0.5, 0.5, 0.0, -0.0] {
            r.push(&curve(l));
        }
        assert_eq!(r.len(), 6);
        assert_eq!(r.distinct().len(), 4, "0.0 and -0.0 differ in bits");
        assert_eq!(r.ids(), [0, 1, 0, 0, 2, 3]);
        assert_eq!(r.counts(), [3, 1, 1, 1]);
        let last: Vec<f64> = r
            .each_rep(
                &r.distinct()
                    .iter()
                    .map(|c| c.sum_loss[1])
                    .collect::<Vec<_>>(),
            )
            .collect();
        assert_eq!(last, [0.5, 0.25, 0.5, 0.5, 0.0, -0.0]);
    }
}
