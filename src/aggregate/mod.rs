//! Aggregation across repetitions (DESIGN §5–6): L(τ) on a time grid with
//! Student-t and inter-quantile bands, the exact mean curve and its T(θ),
//! speedups and regret ratios against the baseline policy.
//!
//! Each run is folded into a [`RunFold`] as it finishes, in (repetition,
//! policy) order ([`RunFold::add`] is the one place where a run's results
//! enter the aggregates); nothing else of a run is kept. The figures that
//! need every repetition at once (the time grid, known only when every run
//! has ended; quantiles; the exact mean curve) are computed when the fold
//! is finished, from each policy's [`RepCurves`] (every distinct curve
//! once, plus one index per repetition). Sums run over the repetitions in
//! order and are never split across threads, so results are the same for
//! any thread count, and the same bits as aggregating held runs. Policies
//! are aggregated in parallel (each on its own, collected in order).

mod compare;
mod grid;
mod mean_curve;
mod policy;
mod ratio;
mod rep_curves;
mod stats;
mod up_to;

use rayon::prelude::*;

pub use compare::{RegretRow, SpeedupRow, regret_ratios, speedups};
pub use grid::time_grid;
pub use mean_curve::{mean_time_to, mean_time_to_reps};
pub use policy::{CurvePoint, PolicyAggregate, RepFigures, TenantFold, TenantSummary};
pub use ratio::{Ratio, median_ratio, time_ratio, value_ratio};
pub use rep_curves::{BitKey, Interned, RepCurves};
pub use stats::{
    Band, Counted, MeanFold, mean, quantile, sample_sd, t_band, t_band_of, t_quantile,
};
pub use up_to::{DEFAULT_POINTS as UP_TO_POINTS, UpTo, dense_thetas, up_to_speedup};

use crate::experiment::{ExperimentResult, RepResult};
use crate::metrics::LossCurve;
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

/// What the aggregates keep of one policy's runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PolicyFold {
    /// Its loss curves, repetition by repetition.
    pub curves: RepCurves,
    /// Its per-tenant figures, folded.
    pub tenants: TenantFold,
}

/// The aggregates of one scenario's runs, folded one run at a time.
///
/// Runs must be added in (repetition, policy) order (what
/// [`run_grid`](crate::experiment::run_grid) does, whatever the thread
/// count). To aggregate one more per-run figure, add its state to
/// [`PolicyFold`], fold it in [`RunFold::add`] and finish it in
/// [`aggregate`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFold {
    /// Per policy, in scenario order.
    pub policies: Vec<PolicyFold>,
    /// Earliest first job completion of any run (`None`: none yet).
    first_completion: Option<Micros>,
    /// Latest end of any run.
    last_end: Micros,
}

impl RunFold {
    /// An empty fold for `policies` policies.
    pub fn new(policies: usize) -> Self {
        Self {
            policies: vec![PolicyFold::default(); policies],
            ..Self::default()
        }
    }

    /// Fold the next run in.
    pub fn add(&mut self, run: &RepResult) {
        if self.policies.len() <= run.policy {
            self.policies.resize(run.policy + 1, PolicyFold::default());
        }
        let p = &mut self.policies[run.policy];
        p.curves.push(&run.curve);
        p.tenants.add(&run.tenant_aggregate);
        self.last_end = self.last_end.max(run.outcome.end);
        if let Some(t) = run.first_completion {
            self.first_completion = Some(self.first_completion.map_or(t, |f| f.min(t)));
        }
    }

    /// The grid span of the runs: from the first job completion of any
    /// (repetition, policy) to the last event of any (the latest end).
    /// Without any completion the span is the single instant of the latest
    /// end.
    pub fn span(&self) -> (Micros, Micros) {
        (
            self.first_completion.unwrap_or(self.last_end),
            self.last_end,
        )
    }
}

/// Aggregate the repetitions of each policy: `curves[p]` holds policy p's
/// curves in repetition order.
pub fn aggregate_curves(
    names: &[String],
    curves: &[Vec<&LossCurve>],
    spec: &AggregateSpec<'_>,
) -> Aggregate {
    let reps: Vec<RepCurves> = curves
        .iter()
        .map(|c| {
            let mut r = RepCurves::default();
            c.iter().for_each(|c| r.push(c));
            r
        })
        .collect();
    aggregate_reps(names, &reps.iter().collect::<Vec<_>>(), spec)
}

/// [`aggregate_curves`] of each policy's [`RepCurves`].
pub fn aggregate_reps(
    names: &[String],
    reps: &[&RepCurves],
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
        .zip(reps.par_iter())
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
        repetitions: reps.first().map_or(0, |r| r.len()),
        grid,
        policies,
        speedups,
        regret,
    }
}

/// Aggregate a finished experiment of `scenario`.
pub fn aggregate(scenario: &Scenario, result: &ExperimentResult) -> Aggregate {
    aggregate_fold(scenario, &result.fold)
}

/// Aggregate the runs of `scenario` folded into `fold`.
pub fn aggregate_fold(scenario: &Scenario, fold: &RunFold) -> Aggregate {
    let names: Vec<String> = scenario.policies.iter().map(|p| p.name.clone()).collect();
    let empty = RepCurves::default();
    let reps: Vec<&RepCurves> = (0..names.len())
        .map(|p| fold.policies.get(p).map_or(&empty, |f| &f.curves))
        .collect();
    let mut agg = aggregate_reps(
        &names,
        &reps,
        &AggregateSpec {
            thresholds: &scenario.thresholds,
            baseline: scenario.baseline,
            output: scenario.output(),
            span: fold.span(),
        },
    );
    for (p, f) in agg.policies.iter_mut().zip(&fold.policies) {
        p.tenants = Some(f.tenants.finish());
    }
    agg
}
