//! The builder of a loss step function (DESIGN §2.6): the one place the
//! arithmetic of S(τ) lives, fed either by a finished run's log
//! ([`LossCurve::from_outcome`](super::LossCurve::from_outcome),
//! [`LossCurve::by_jobs`](super::LossCurve::by_jobs)) or by the engine as
//! it processes events ([`super::RunFold`]); the same changes in the same
//! order give the same bits.

use super::CompensatedSum;
use super::curve_point::{Point, Steps, curve_points};
use crate::core::error::{Error, Result};
use crate::models::trace::Micros;

/// Change kinds, in the order the engine processes them at one instant.
pub(super) const COMPLETION: u8 = 0;
pub(super) const ARRIVAL: u8 = 1;

/// One change of the step function: (axis value, kind, key, value). The
/// key names the tenant: its index, or any number its caller keeps for it
/// while it has changes to come (the online fold gives its slot, so the
/// builder holds nothing per tenant of the run: issue 34). The value is
/// A*_i for an arrival and the job's accuracy for a completion.
pub(super) type Change = (Micros, u8, usize, f64);

/// What the builder keeps per key: best_i, A*_i (from its arrival) and
/// whether it arrived. A key with none reads (0, 0, no): a tenant's state
/// before its arrival.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    best: f64,
    a_star: f64,
    arrived: bool,
}

/// S(τ) built change by change, in `(axis, kind)` order.
///
/// An arrival of a tenant whose best accuracy is A*_i adds ℓ_i = A*_i −
/// best_i to S (Neumaier-compensated, [`CompensatedSum`]); a completion
/// that raises best_i of an arrived tenant subtracts the rise. After every
/// change of an instant, the point (instant, S, arrived) is appended unless
/// it repeats the last one; S is exactly 0 when no arrived tenant has a
/// positive loss.
#[derive(Debug)]
pub(super) struct StepBuilder {
    /// Per key (grown to the largest key seen): its entry. A key released
    /// (its tenant done, its changes over) reads as fresh, so the online
    /// fold's slots, reused, hold the tenants present (issue 34).
    tenants: Vec<Entry>,
    sum: CompensatedSum,
    positive: usize,
    arrived: u32,
    /// The instant whose changes are being applied, if any.
    current: Option<Micros>,
    /// The points so far: in memory, or in a temporary file past the spill
    /// threshold ([`Spill`]); the next is appended only if it differs from
    /// the last.
    steps: Steps,
    /// Why the points cannot be trusted (a spill threshold that does not
    /// parse, an I/O error of the spilled file): reported by `finish`.
    failure: Option<Error>,
}

impl StepBuilder {
    /// An empty curve.
    pub(super) fn new() -> Self {
        let (steps, failure) = curve_points();
        Self {
            tenants: Vec::new(),
            sum: CompensatedSum::default(),
            positive: 0,
            arrived: 0,
            current: None,
            steps: Steps::new(steps),
            failure,
        }
    }

    /// Apply change `(now, kind, key, value)`; `now` is at or after the
    /// last change's.
    pub(super) fn push(&mut self, (now, kind, key, value): Change) {
        if self.current.is_some_and(|c| c != now) {
            self.flush();
        }
        self.current = Some(now);
        if key >= self.tenants.len() {
            self.tenants.resize(key + 1, Entry::default());
        }
        let Entry {
            best,
            a_star,
            arrived,
        } = &mut self.tenants[key];
        if kind == ARRIVAL {
            *a_star = value;
        }
        let a_star = *a_star;
        let loss_before = a_star - *best;
        if kind == ARRIVAL {
            *arrived = true;
            self.arrived += 1;
            self.sum.add(loss_before);
            if loss_before > 0.0 {
                self.positive += 1;
            }
        } else if value > *best {
            let acc = value;
            let old = *best;
            *best = acc;
            if *arrived {
                self.sum.add(old - acc);
                if loss_before > 0.0 && a_star - acc <= 0.0 {
                    self.positive -= 1;
                }
            }
        }
    }

    /// Key `key` will have no change again (its tenant is done, DESIGN
    /// §2.6 "Done tenants"): its entry is fresh again, for the next tenant
    /// its caller gives the key to.
    pub(super) fn release(&mut self, key: usize) {
        if let Some(e) = self.tenants.get_mut(key) {
            *e = Entry::default();
        }
    }

    /// Append the point of the instant whose changes were applied.
    fn flush(&mut self) {
        let Some(now) = self.current.take() else {
            return;
        };
        let s = if self.positive == 0 {
            0.0
        } else {
            self.sum.value().max(0.0)
        };
        if self
            .steps
            .last
            .is_some_and(|p| p.sum_loss == s && p.arrived == self.arrived)
        {
            return;
        }
        let point = Point {
            time: now,
            sum_loss: s,
            arrived: self.arrived,
        };
        if self.failure.is_none()
            && let Err(e) = self.steps.push(point)
        {
            self.failure = Some(e);
        }
    }

    /// An independent copy (a fork of a run, DESIGN §15.2): spilled points
    /// are copied into a file of their own; a copy that fails carries the
    /// failure to its `finish`.
    pub(super) fn fork(&self) -> Self {
        let mut failure = self.failure.clone();
        let steps = self.steps.copy(&mut failure);
        Self {
            tenants: self.tenants.clone(),
            sum: self.sum,
            positive: self.positive,
            arrived: self.arrived,
            current: self.current,
            steps,
            failure,
        }
    }

    /// The points, once every change was pushed, or why they cannot be
    /// had.
    pub(super) fn finish(mut self) -> Result<Steps> {
        self.flush();
        match self.failure {
            Some(e) => Err(e),
            None => Ok(self.steps),
        }
    }
}
