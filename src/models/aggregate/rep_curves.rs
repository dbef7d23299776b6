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
//!
//! [`Interned`] works for any per-run value with a bitwise identity
//! ([`BitKey`]): another per-run curve (say, loss after each completed job,
//! a `Vec<f64>`) is folded the same way, with its own `Interned` in
//! [`PolicyFold`](super::PolicyFold).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::models::metrics::LossCurve;

/// A per-run value that is interned by its bits: equal keys give the same
/// bits in every figure derived from them.
pub trait BitKey: Clone {
    /// Feed the value's bits to `h`.
    fn bit_hash(&self, h: &mut DefaultHasher);
    /// Whether `self` and `other` are equal bit for bit.
    fn bit_eq(&self, other: &Self) -> bool;
}

/// A curve's points are read as a stream (a spilled curve from its file);
/// one that cannot be read back hashes what was read and equals no other
/// curve, so it is held on its own and the error surfaces where its
/// figures are computed.
impl BitKey for LossCurve {
    fn bit_hash(&self, h: &mut DefaultHasher) {
        self.len().hash(h);
        for p in self.points() {
            let Ok(p) = p else { break };
            (p.time, p.sum_loss.to_bits(), p.arrived).hash(h);
        }
        self.last_arrival.hash(h);
        self.end.hash(h);
        self.stall_end.hash(h);
        self.left_work.hash(h);
    }

    fn bit_eq(&self, other: &Self) -> bool {
        self.equal_by(other, |a, b| {
            (a.time, a.sum_loss.to_bits(), a.arrived) == (b.time, b.sum_loss.to_bits(), b.arrived)
        })
    }
}

impl BitKey for Vec<f64> {
    fn bit_hash(&self, h: &mut DefaultHasher) {
        self.len().hash(h);
        for v in self {
            v.to_bits().hash(h);
        }
    }

    fn bit_eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other)
                .all(|(x, y)| x.to_bits() == y.to_bits())
    }
}

/// One policy's loss curves, repetition by repetition.
pub type RepCurves = Interned<LossCurve>;

/// Per-run values of one policy, repetition by repetition, each distinct
/// value held once.
#[derive(Debug, Clone, PartialEq)]
pub struct Interned<T> {
    /// Each distinct value once, in order of first appearance.
    distinct: Vec<T>,
    /// Copies of each distinct value.
    counts: Vec<u64>,
    /// Per repetition, in order: the index of its value in `distinct`.
    ids: Vec<u32>,
    /// Hash → indices of the distinct values with that hash.
    index: HashMap<u64, Vec<u32>>,
}

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Self {
            distinct: Vec::new(),
            counts: Vec::new(),
            ids: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T: BitKey> Interned<T> {
    /// Append the next repetition's value (cloned only when new).
    pub fn push(&mut self, curve: &T) {
        self.intern(Cow::Borrowed(curve));
    }

    /// Append the next repetition's value, taking it: a new value is
    /// moved in, not cloned, so a large curve is never held twice (issue
    /// 34: at internet scale a run's curves are hundreds of megabytes).
    pub fn push_owned(&mut self, curve: T) {
        self.intern(Cow::Owned(curve));
    }

    fn intern(&mut self, curve: Cow<'_, T>) {
        let mut hasher = DefaultHasher::new();
        curve.bit_hash(&mut hasher);
        let bucket = self.index.entry(hasher.finish()).or_default();
        let id = match bucket
            .iter()
            .copied()
            .find(|&i| self.distinct[i as usize].bit_eq(&curve))
        {
            Some(i) => i,
            None => {
                let i = u32::try_from(self.distinct.len()).unwrap_or(u32::MAX);
                self.distinct.push(curve.into_owned());
                self.counts.push(0);
                bucket.push(i);
                i
            }
        };
        self.counts[id as usize] += 1;
        self.ids.push(id);
    }
}

impl<T> Interned<T> {
    /// Number of repetitions.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The distinct values.
    pub fn distinct(&self) -> &[T] {
        &self.distinct
    }

    /// Copies of each distinct value.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Per repetition, in order, the index of its distinct value.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Per repetition, in order, `per_curve` of its distinct value.
    pub fn each_rep<'a, V: Copy>(&'a self, per_curve: &'a [V]) -> impl Iterator<Item = V> + 'a {
        self.ids.iter().map(move |&i| per_curve[i as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::metrics::Point;

    fn curve(loss: f64) -> LossCurve {
        let point = |time, sum_loss| Point {
            time,
            sum_loss,
            arrived: 1,
        };
        LossCurve::from_points([point(0, 1.0), point(5, loss)], 0, 9).expect("a curve")
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
                    .map(|c| c.sum_loss().expect("read")[1])
                    .collect::<Vec<_>>(),
            )
            .collect();
        assert_eq!(last, [0.5, 0.25, 0.5, 0.5, 0.0, -0.0]);
    }

    #[test]
    fn any_bit_keyed_value_interns_the_same_way() {
        let mut r: Interned<Vec<f64>> = Interned::default();
        for v in [vec![0.5, 0.1], vec![0.5], vec![0.5, 0.1], vec![]] {
            r.push(&v);
        }
        assert_eq!(r.ids(), [0, 1, 0, 2]);
        assert_eq!(r.counts(), [2, 1, 1]);
    }
}
