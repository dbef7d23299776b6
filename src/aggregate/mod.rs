//! Aggregation across repetitions (DESIGN §5–6): L(τ) on a time grid with
//! Student-t and inter-quantile bands, the exact mean curve and its T(θ),
//! speedups and regret ratios against the baseline policy.
//!
//! Aggregation starts after every repetition has finished and reads the
//! repetitions in order; sums are never split across threads, so results
//! are the same for any thread count. Policies are aggregated in parallel
//! (each on its own, collected in order).

mod compare;
mod grid;
mod mean_curve;
mod policy;
mod ratio;
mod stats;
mod up_to;

use rayon::prelude::*;

pub use compare::{RegretRow, SpeedupRow, regret_ratios, speedups};
pub use grid::time_grid;
pub use mean_curve::mean_time_to;
pub use policy::{CurvePoint, PolicyAggregate, TenantSummary};
pub use ratio::{Ratio, median_ratio, time_ratio, value_ratio};
pub use stats::{Band, mean, quantile, sample_sd, t_band, t_quantile};
pub use up_to::{DEFAULT_POINTS as UP_TO_POINTS, UpTo, dense_thetas, up_to_speedup};

use crate::experiment::ExperimentResult;
use crate::metrics::{LossCurve, TenantAggregate};
use crate::scenario::{OutputSection, Scenario};
use crate::trace::Micros;

/// How to aggregate.
#[derive(Debug, Clone, Copy)]
pub struct AggregateSpec<'a> {
    /// θ values.
    pub thresholds: &'a [f64],
    /// Index of the baseline policy.
    pub baseline: usize,
    /// Grid, confidence level and quantiles.
    pub output: &'a OutputSection,
    /// First and last instant of the time grid, µs.
    pub span: (Micros, Micros),
}

/// Everything the aggregate outputs need.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    /// θ values.
    pub thresholds: Vec<f64>,
    /// Index of the baseline policy.
    pub baseline: usize,
    /// Confidence level of the bands.
    pub confidence: f64,
    /// Repetitions per policy.
    pub repetitions: usize,
    /// The time grid, µs.
    pub grid: Vec<Micros>,
    /// Per policy, in scenario order.
    pub policies: Vec<PolicyAggregate>,
    /// `speedups.csv` rows.
    pub speedups: Vec<SpeedupRow>,
    /// `regret.csv` ratios.
    pub regret: Vec<RegretRow>,
}

/// Aggregate the repetitions of each policy: `curves[p]` holds policy p's
/// curves in repetition order.
pub fn aggregate_curves(
    names: &[String],
    curves: &[Vec<&LossCurve>],
    spec: &AggregateSpec<'_>,
) -> Aggregate {
    let grid = time_grid(
        spec.output.grid,
        spec.output.grid_points,
        spec.span.0,
        spec.span.1,
    );
    let q = [
        spec.output.quantiles.first().copied().unwrap_or(0.25),
        spec.output.quantiles.get(1).copied().unwrap_or(0.75),
    ];
    let policies: Vec<PolicyAggregate> = names
        .par_iter()
        .zip(curves.par_iter())
        .map(|(name, c)| {
            PolicyAggregate::of(name, c, &grid, spec.thresholds, spec.output.confidence, q)
        })
        .collect();
    let baseline = spec.baseline.min(policies.len().saturating_sub(1));
    let speedups = if policies.is_empty() {
        Vec::new()
    } else {
        speedups(&policies, baseline, spec.thresholds.len())
    };
    let regret = if policies.is_empty() {
        Vec::new()
    } else {
        regret_ratios(&policies, baseline)
    };
    Aggregate {
        thresholds: spec.thresholds.to_vec(),
        baseline,
        confidence: spec.output.confidence,
        repetitions: curves.first().map_or(0, Vec::len),
        grid,
        policies,
        speedups,
        regret,
    }
}

/// The grid span of a run: from the first job completion of any
/// (repetition, policy) to the last event of any (the latest end). Without
/// any completion the span is the single instant of the latest end.
pub fn grid_span(result: &ExperimentResult) -> (Micros, Micros) {
    let last = result.runs.iter().map(|r| r.outcome.end).max().unwrap_or(0);
    let first = result
        .runs
        .iter()
        .filter_map(|r| r.first_completion)
        .min()
        .unwrap_or(last);
    (first, last)
}

/// Aggregate a finished experiment of `scenario`.
pub fn aggregate(scenario: &Scenario, result: &ExperimentResult) -> Aggregate {
    let names: Vec<String> = scenario.policies.iter().map(|p| p.name.clone()).collect();
    let mut curves: Vec<Vec<&LossCurve>> = vec![Vec::new(); names.len()];
    let mut tenants: Vec<Vec<&TenantAggregate>> = vec![Vec::new(); names.len()];
    for r in &result.runs {
        curves[r.policy].push(&r.curve);
        tenants[r.policy].push(&r.tenant_aggregate);
    }
    let mut agg = aggregate_curves(
        &names,
        &curves,
        &AggregateSpec {
            thresholds: &scenario.thresholds,
            baseline: scenario.baseline,
            output: scenario.output(),
            span: grid_span(result),
        },
    );
    for (p, t) in agg.policies.iter_mut().zip(&tenants) {
        p.tenants = Some(TenantSummary::of(t));
    }
    agg
}
