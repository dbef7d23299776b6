//! Aggregation of one policy's repetitions.

use super::mean_curve::mean_time_to;
use super::stats::{Band, mean, quantile, sorted, t_band};
use crate::metrics::{LossCurve, TenantAggregate};
use crate::trace::Micros;

/// L(τ) across repetitions at one grid instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// The instant, µs.
    pub time: Micros,
    /// Mean over the repetitions defined at τ, with its Student-t band
    /// (`band.n` repetitions).
    pub band: Band,
    /// Median over the same repetitions.
    pub median: f64,
    /// Lower quantile of the inter-quantile band.
    pub q_low: f64,
    /// Upper quantile.
    pub q_high: f64,
}

/// Everything aggregated for one policy.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyAggregate {
    /// The policy's label.
    pub name: String,
    /// L(τ) on the time grid (instants where no repetition is defined are
    /// left out).
    pub curve: Vec<CurvePoint>,
    /// T(θ) of the exact mean curve per θ (`None` = ∞).
    pub time_to: Vec<Option<Micros>>,
    /// T(θ) of each repetition: `[rep][θ]`.
    pub rep_time_to: Vec<Vec<Option<Micros>>>,
    /// Cumulative regret R(end) per repetition, accuracy·s.
    pub rep_regret: Vec<f64>,
    /// Mean cumulative regret with its band.
    pub regret: Band,
    /// Median cumulative regret.
    pub regret_median: f64,
    /// Mean final loss with its band.
    pub final_loss: Band,
    /// How individual tenants fared, over the repetitions (set by
    /// [`aggregate`](super::aggregate) from the per-tenant metrics).
    pub tenants: Option<TenantSummary>,
}

/// Per-tenant figures of a policy, averaged over its repetitions (each
/// repetition contributes its own mean, worst and Jain index).
#[derive(Debug, Clone, PartialEq)]
pub struct TenantSummary {
    /// Mean over repetitions of the mean per-tenant regret area, accuracy·s.
    pub area_mean: f64,
    /// Mean over repetitions of the 90th-percentile regret area.
    pub area_p90: f64,
    /// Mean over repetitions of the worst tenant's regret area.
    pub area_max: f64,
    /// Mean over repetitions of Jain's index (None without `fairness`).
    pub jain: Option<f64>,
    /// Mean number of tenants that left per repetition.
    pub abandoned: f64,
}

impl TenantSummary {
    /// Average the per-repetition tenant aggregates (in repetition order).
    pub fn of(reps: &[&TenantAggregate]) -> Self {
        let avg = |f: &dyn Fn(&TenantAggregate) -> f64| {
            mean(&reps.iter().map(|a| f(a)).collect::<Vec<_>>())
        };
        let jains: Option<Vec<f64>> = reps.iter().map(|a| a.jain).collect();
        Self {
            area_mean: avg(&|a| a.area_mean),
            area_p90: avg(&|a| a.area_p90),
            area_max: avg(&|a| a.area_max),
            jain: jains.filter(|j| !j.is_empty()).map(|j| mean(&j)),
            abandoned: avg(&|a| a.abandoned as f64),
        }
    }
}

impl PolicyAggregate {
    /// Aggregate `curves` (one per repetition, in repetition order).
    pub fn of(
        name: &str,
        curves: &[&LossCurve],
        grid: &[Micros],
        thresholds: &[f64],
        level: f64,
        quantiles: [f64; 2],
    ) -> Self {
        let curve = grid
            .iter()
            .filter_map(|&t| {
                let values: Vec<f64> = curves.iter().filter_map(|c| c.loss_at(t)).collect();
                if values.is_empty() {
                    return None;
                }
                let s = sorted(&values);
                Some(CurvePoint {
                    time: t,
                    band: t_band(&values, level),
                    median: quantile(&s, 0.5),
                    q_low: quantile(&s, quantiles[0]),
                    q_high: quantile(&s, quantiles[1]),
                })
            })
            .collect();
        let time_to = mean_time_to(curves, thresholds);
        let rep_time_to = curves
            .iter()
            .map(|c| thresholds.iter().map(|&t| c.time_to(t)).collect())
            .collect();
        let rep_regret: Vec<f64> = curves.iter().map(|c| c.cumulative_regret(c.end)).collect();
        let finals: Vec<f64> = curves.iter().map(|c| c.final_loss()).collect();
        Self {
            name: name.to_string(),
            curve,
            time_to,
            rep_time_to,
            regret: t_band(&rep_regret, level),
            regret_median: quantile(&sorted(&rep_regret), 0.5),
            rep_regret,
            final_loss: t_band(&finals, level),
            tenants: None,
        }
    }
}
