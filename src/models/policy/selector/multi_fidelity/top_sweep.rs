//! What `successive-halving`, `hyperband` and `asha` do once their schedule
//! is over (DESIGN §12.3), the key `after_schedule`:
//!
//! - `"stop"` (default): nothing. The tenant is done, as in the published
//!   algorithms: its best accuracy so far is its result and the GPU time it
//!   no longer asks for goes to the other tenants.
//! - `"sweep"`: train each model not yet trained at its top fidelity, best
//!   last observed accuracy first (ties to the lowest model index), models
//!   never observed after them in trace order. So a tenant's loss reaches 0
//!   as under the other selectors, and the early stopping shows only in how
//!   fast it gets there.

use crate::core::error::Result;
use crate::core::params::Params;

/// The key `after_schedule` of the multi-fidelity selectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AfterSchedule {
    /// The tenant is done once its schedule is over (the published
    /// algorithms).
    #[default]
    Stop,
    /// The tenant then trains every model not yet closed at its top
    /// fidelity ([`sweep_order`]).
    Sweep,
}

impl AfterSchedule {
    /// The key `after_schedule` of `params` (default `"stop"`).
    ///
    /// # Errors
    /// A scenario error naming the key for any other value.
    pub fn parse(params: &mut Params) -> Result<Self> {
        match params.string("after_schedule", "stop")?.as_str() {
            "stop" => Ok(Self::Stop),
            "sweep" => Ok(Self::Sweep),
            other => Err(params.invalid(
                "after_schedule",
                format!("expected `stop` or `sweep`, got `{other}`"),
            )),
        }
    }
}

/// The built-in selectors that take `after_schedule` (DESIGN §12.3).
pub const SCHEDULED_SELECTORS: [&str; 3] = ["successive-halving", "hyperband", "asha"];

/// Whether the policy table of selector `selector` with keys `params` may
/// end a tenant by its schedule: one of [`SCHEDULED_SELECTORS`] without
/// `after_schedule = "sweep"` (so `tenants.csv` gets its `ended` column;
/// a scenario whose every scheduled selector sweeps writes the same files
/// as before the key existed).
pub fn may_end_by_schedule(
    selector: &str,
    params: &std::collections::BTreeMap<String, toml::Value>,
) -> bool {
    SCHEDULED_SELECTORS.contains(&selector)
        && params.get("after_schedule").and_then(toml::Value::as_str) != Some("sweep")
}

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

/// What a tenant does after its schedule: under [`AfterSchedule::Sweep`]
/// its sweep order and how far it got; under [`AfterSchedule::Stop`] an
/// empty order, so [`Sweep::next`] has nothing once the schedule is over.
#[derive(Debug, Clone, Default)]
pub struct Sweep {
    after: AfterSchedule,
    order: Vec<usize>,
    next: usize,
    active: bool,
}

impl Sweep {
    /// An inactive sweep with room for `capacity` models (none under
    /// `Stop`, which never orders any).
    pub fn new(after: AfterSchedule, capacity: usize) -> Self {
        let capacity = match after {
            AfterSchedule::Stop => 0,
            AfterSchedule::Sweep => capacity,
        };
        Self {
            after,
            order: Vec::with_capacity(capacity),
            next: 0,
            active: false,
        }
    }

    /// Whether the schedule is over (the sweep has begun, or under `Stop`
    /// the tenant is done).
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Whether the tenant is done: the schedule is over under `Stop`.
    pub fn is_done(&self) -> bool {
        self.active && self.after == AfterSchedule::Stop
    }

    /// The schedule is over: begin the sweep over `models` ordered by
    /// [`sweep_order`], or under `Stop` order none.
    pub fn begin(&mut self, models: &[usize], last: impl Fn(usize) -> Option<f64>) {
        match self.after {
            AfterSchedule::Stop => self.order.clear(),
            AfterSchedule::Sweep => sweep_order(models, last, &mut self.order),
        }
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
        let mut s = Sweep::new(AfterSchedule::Sweep, 5);
        s.begin(&[0, 1, 2, 3, 4], last);
        assert_eq!(s.next(|k| k == 2), Some(0));
        assert_eq!(s.next(|k| k == 2 || k == 0), Some(3));
    }

    #[test]
    fn under_stop_the_schedule_ends_with_no_model_left_to_train() {
        let last = |k: usize| [Some(0.5), None, Some(0.9)][k];
        let mut s = Sweep::new(AfterSchedule::Stop, 3);
        assert!(!s.is_active());
        s.begin(&[0, 1, 2], last);
        assert!(s.is_active() && s.is_done());
        assert_eq!(s.next(|_| false), None);
    }
}
