//! The service's cumulative regret accrued online (DESIGN §2.6, §15.7):
//! what the shared environment's per-step `regret` reward is made of.
//!
//! R(τ) = ∫₀^τ S dτ, S the sum of the arrived tenants' losses
//! ℓ_i = A*_i − best_i. S is constant between two of the service's events,
//! so at the service's event at `now` the area first grows by
//! S × (now − t) (t the previous one), then S changes by the event: an
//! arrival adds A*_i (best_i is 0 before its first job), a completion that
//! raises best_i subtracts the rise. A patience deadline changes nothing
//! (the tenant's loss stays frozen, §2.7). This is model mode's
//! `RegretMeter` (`models/sim/stepper.rs`) over the service's tenants,
//! with plain f64 sums in event order: it agrees with the metrics'
//! compensated R(end) to rounding, and the environment pays the last
//! step the remainder so the return is the reported figure exactly.

use crate::core::sim::time::{Micros, to_seconds};

/// R(τ) of the service's tenants, accrued event by event.
#[derive(Debug, Clone)]
pub(super) struct ServiceRegret {
    /// A*_i per tenant.
    best_possible: Vec<f64>,
    /// S after the last event handled.
    sum: f64,
    /// Arrived tenants with a positive loss: with none, S is exactly 0
    /// (as §2.6's compensated sum is), whatever the rounding of updates.
    positive: usize,
    /// R up to `at`, accuracy·seconds.
    area: f64,
    /// The instant the area reaches.
    at: Micros,
}

impl ServiceRegret {
    /// Nothing arrived yet; `best_possible[i]` = A*_i.
    pub(super) fn new(best_possible: Vec<f64>) -> Self {
        Self {
            best_possible,
            sum: 0.0,
            positive: 0,
            area: 0.0,
            at: 0,
        }
    }

    /// Accrue S × (now − at) before an event at `now` changes S.
    pub(super) fn advance(&mut self, now: Micros) {
        if now > self.at {
            self.area += self.sum * to_seconds(now - self.at);
            self.at = now;
        }
    }

    /// Tenant `i` arrives: its loss is A*_i (best_i = 0).
    pub(super) fn arrived(&mut self, i: usize) {
        let a = self.best_possible.get(i).copied().unwrap_or(0.0);
        if a > 0.0 {
            self.sum += a;
            self.positive += 1;
        }
    }

    /// A job of tenant `i` completes with `acc`, its best so far `before`:
    /// S falls by the rise of best_i, if any.
    pub(super) fn completed(&mut self, i: usize, before: f64, acc: f64) {
        if acc > before {
            let a = self.best_possible.get(i).copied().unwrap_or(0.0);
            self.sum -= acc - before;
            if before < a && acc >= a {
                self.positive = self.positive.saturating_sub(1);
            }
            if self.positive == 0 {
                self.sum = 0.0;
            }
        }
    }

    /// R(t) = area + S × (t − at) for `t` at or after the last event (an
    /// earlier `t` gives the area at the last event).
    pub(super) fn area_at(&self, t: Micros) -> f64 {
        self.area + self.sum * to_seconds(t.saturating_sub(self.at))
    }
}

#[cfg(test)]
mod tests {
    use super::ServiceRegret;

    /// Two tenants (A* = 0.9 and 0.5): the first arrives at 0, the second
    /// at 2 s, the first's job completes at 4 s with 0.9. R(6 s) =
    /// 0.9 × 2 + 1.4 × 2 + 0.5 × 2 = 5.6 accuracy·s, worked by hand.
    #[test]
    fn the_area_is_the_integral_of_the_summed_loss() {
        let mut m = ServiceRegret::new(vec![0.9, 0.5]);
        m.advance(0);
        m.arrived(0);
        m.advance(2_000_000);
        m.arrived(1);
        assert!((m.area_at(2_000_000) - 1.8).abs() < 1e-12);
        m.advance(4_000_000);
        m.completed(0, 0.0, 0.9);
        assert!((m.area_at(4_000_000) - 4.6).abs() < 1e-12);
        assert!((m.area_at(6_000_000) - 5.6).abs() < 1e-12);
        // No tenant with a positive loss: S is exactly 0.
        m.advance(6_000_000);
        m.completed(1, 0.0, 0.5);
        assert_eq!(m.area_at(100_000_000), m.area_at(6_000_000));
    }
}
