//! What the multi-fidelity selectors share in one repetition (DESIGN
//! §12.3): the keys `eta`, `min_fidelity` and `after_schedule`, the nominal rungs, each
//! tenant's last observed accuracy per model, and the proposals they make
//! (with [`PriorCurves`]' gain and believed cost for `greedy`).

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::models::sim::{Proposal, RepContext, Tenants};
use crate::models::trace::Trace;

use super::prior_curves::PriorCurves;
use super::rungs::{nominal_rungs, rung_level, s_max};
use super::top_sweep::AfterSchedule;

/// Default η of successive halving, Hyperband and ASHA (Li et al. use 3).
pub const DEFAULT_ETA: u64 = 3;

/// The validated keys `eta`, `min_fidelity` and `after_schedule` of a
/// multi-fidelity selector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RungKeys {
    /// η, an integer ≥ 2.
    pub eta: u32,
    /// r₀, the first rung's fidelity: `min_fidelity`, default the trace's
    /// smallest fidelity.
    pub r0: f64,
    /// R, the trace's largest fidelity (the last rung).
    pub max_fidelity: f64,
    /// What a tenant does once its schedule is over (`after_schedule`,
    /// default [`AfterSchedule::Stop`]; DESIGN §12.3).
    pub after: AfterSchedule,
}

impl RungKeys {
    /// Take `eta`, `min_fidelity` and `after_schedule` from `params`.
    /// Errors name the key: η not an integer ≥ 2, r₀ not a finite number
    /// above 0 or above every fidelity of the trace, `after_schedule`
    /// neither `"stop"` nor `"sweep"`.
    pub fn parse(params: &mut Params, trace: &Trace) -> Result<Self> {
        let eta = params.u64("eta", DEFAULT_ETA)?;
        if !(2..=u64::from(u32::MAX)).contains(&eta) {
            return Err(params.invalid(
                "eta",
                format!("expected the reduction factor η, an integer >= 2, got {eta}"),
            ));
        }
        let max_fidelity = trace.max_fidelity();
        let r0 = params.f64("min_fidelity", trace.min_fidelity())?;
        if !(r0.is_finite() && r0 > 0.0) {
            return Err(params.invalid(
                "min_fidelity",
                format!("expected the first rung's fidelity, a finite number > 0, got {r0}"),
            ));
        }
        if r0 > max_fidelity {
            return Err(params.invalid(
                "min_fidelity",
                format!(
                    "{r0} is above every fidelity of {} (the largest is {max_fidelity})",
                    trace.source()
                ),
            ));
        }
        let after = AfterSchedule::parse(params)?;
        Ok(Self {
            eta: eta as u32,
            r0,
            max_fidelity,
            after,
        })
    }

    /// The nominal rungs ([`nominal_rungs`]).
    pub fn nominal(&self) -> Vec<f64> {
        nominal_rungs(self.r0, self.max_fidelity, self.eta)
    }
}

/// A repetition's rungs, observations and prior curves.
#[derive(Debug, Clone)]
pub struct Ladder {
    trace: Arc<Trace>,
    /// The nominal rung fidelities; the last is the top.
    nominal: Vec<f64>,
    eta: u32,
    s_max: usize,
    n_models: usize,
    /// `i * K + k`: the accuracy of tenant i's latest completed job of k
    /// (its highest completed level), NaN before the first.
    last: Vec<f64>,
    prior: PriorCurves,
    /// Per tenant: the denominator of `believed_cost`.
    mean_cost_s: Vec<f64>,
}

impl Ladder {
    /// The ladder of the repetition `ctx` on rungs `keys`.
    pub fn new(keys: RungKeys, ctx: &RepContext<'_>) -> Self {
        let trace = Arc::clone(ctx.trace);
        let nominal = keys.nominal();
        let prior = PriorCurves::new(&trace, &nominal, ctx.prior);
        let top = nominal.len() - 1;
        let mean_cost_s = ctx
            .tenants
            .iter()
            .map(|u| {
                let (mut sum, mut n) = (0.0, 0usize);
                for &k in trace.models_of(u) {
                    if let Some(c) = prior.seconds(k, top, None) {
                        sum += c;
                        n += 1;
                    }
                }
                if n == 0 || sum <= 0.0 {
                    1.0
                } else {
                    sum / n as f64
                }
            })
            .collect();
        let n_models = trace.n_models();
        Self {
            last: vec![f64::NAN; ctx.tenants.len() * n_models],
            trace,
            nominal,
            eta: keys.eta,
            s_max: s_max(keys.r0, keys.max_fidelity, keys.eta),
            n_models,
            prior,
            mean_cost_s,
        }
    }

    /// The trace.
    pub fn trace(&self) -> &Arc<Trace> {
        &self.trace
    }

    /// η.
    pub fn eta(&self) -> u32 {
        self.eta
    }

    /// Number of rungs; the last is the top fidelity.
    pub fn n_rungs(&self) -> usize {
        self.nominal.len()
    }

    /// s_max = ⌊log_η(R / r₀)⌋ ([`s_max`]).
    pub fn s_max(&self) -> usize {
        self.s_max
    }

    /// The level trace user `u` trains model `k` at on rung `rung`.
    pub fn level_of(&self, u: usize, k: usize, rung: usize) -> usize {
        rung_level(&self.nominal, rung, self.trace.n_levels(u, k), |f| {
            self.trace.level_at_least(u, k, f)
        })
    }

    /// Tenant i's highest completed level of k and the accuracy it
    /// observed there.
    pub fn done(&self, tenants: &Tenants, i: usize, k: usize) -> Option<(usize, f64)> {
        let acc = self.last[i * self.n_models + k];
        tenants.level_done(i, k).map(|d| (d, acc))
    }

    /// The accuracy of tenant i's latest completed job of k, if any.
    pub fn last(&self, i: usize, k: usize) -> Option<f64> {
        let a = self.last[i * self.n_models + k];
        (!a.is_nan()).then_some(a)
    }

    /// Record a completed job of tenant i on k. Levels only grow, so the
    /// latest completed job is at the highest completed level.
    pub fn record(&mut self, i: usize, k: usize, accuracy: f64) {
        self.last[i * self.n_models + k] = accuracy;
    }

    /// The proposal of model `k` at rung `rung` for tenant `i`: its level
    /// there, and the gain and believed costs of [`PriorCurves`].
    pub fn proposal(&self, tenants: &Tenants, i: usize, k: usize, rung: usize) -> Proposal {
        let u = tenants.user(i);
        let level = self.level_of(u, k, rung);
        let best = tenants.best(i);
        let from = tenants
            .level_done(i, k)
            .and_then(|d| (0..rung).rev().find(|&j| self.level_of(u, k, j) <= d));
        let mut p = Proposal::plain(k).at_level(level);
        match (
            self.prior.gain(k, rung, best),
            self.prior.seconds(k, rung, from),
        ) {
            (Some(gain), Some(seconds)) => {
                let seconds = seconds.max(1e-6);
                p.gain = Some(gain);
                p.acquisition = best + gain;
                p.believed_seconds = seconds;
                p.believed_cost = seconds / self.mean_cost_s[i];
            }
            _ => {
                let gain = (1.0 - best).max(0.0);
                p.gain = Some(gain);
                p.acquisition = best + gain;
            }
        }
        p
    }
}
