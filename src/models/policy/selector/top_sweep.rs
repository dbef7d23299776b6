//! What `successive-halving`, `hyperband` and `asha` do once their schedule
//! is over (DESIGN §12.3): train each model not yet trained at its top
//! fidelity there, best last observed accuracy first (ties to the lowest
//! model index), models never observed after them in trace order. So a
//! tenant's loss reaches 0 as under the other selectors, and the early
//! stopping shows in how fast it gets there.

/// The sweep's order of `models` (trace indices) into `out`, reusing its
/// buffer: by `last(k)`, the accuracy of the highest level of k completed
/// so far (`None` if never), best first, ties and unobserved models by
/// model index.
pub fn sweep_order(models: &[usize], last: impl Fn(usize) -> Option<f64>, out: &mut Vec<usize>) {
    out.clear();
    out.extend_from_slice(models);
    out.sort_unstable_by(|&a, &b| match (last(a), last(b)) {
        (Some(x), Some(y)) => y.total_cmp(&x).then(a.cmp(&b)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(&b),
    });
}

/// A tenant's sweep: its order and how far it got.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    order: Vec<usize>,
    next: usize,
    active: bool,
}

impl Sweep {
    /// An inactive sweep with room for `capacity` models.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            order: Vec::with_capacity(capacity),
            next: 0,
            active: false,
        }
    }

    /// Whether the sweep has begun.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Begin the sweep over `models` ordered by [`sweep_order`].
    pub fn begin(&mut self, models: &[usize], last: impl Fn(usize) -> Option<f64>) {
        sweep_order(models, last, &mut self.order);
        self.next = 0;
        self.active = true;
    }

    /// The next model to train at its top level: the first in the order
    /// for which `closed_or_running(k)` is false (the models before it are
    /// skipped for good, since a model once closed stays closed).
    pub fn next(&mut self, closed_or_running: impl Fn(usize) -> bool) -> Option<usize> {
        while let Some(&k) = self.order.get(self.next) {
            if !closed_or_running(k) {
                return Some(k);
            }
            self.next += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_goes_best_observed_first_then_unobserved_in_trace_order() {
        let last = |k: usize| [Some(0.5), None, Some(0.9), Some(0.5), None][k];
        let mut out = Vec::new();
        sweep_order(&[0, 1, 2, 3, 4], last, &mut out);
        assert_eq!(out, vec![2, 0, 3, 1, 4]);
        let mut s = Sweep::with_capacity(5);
        s.begin(&[0, 1, 2, 3, 4], last);
        assert_eq!(s.next(|k| k == 2), Some(0));
        assert_eq!(s.next(|k| k == 2 || k == 0), Some(3));
    }
}
