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
mod up_to;

use std::borrow::Cow;

use rayon::prelude::*;

pub use crate::core::analysis::stats::{
    Band, Counted, MeanFold, mean, quantile, sample_sd, t_band, t_band_of, t_quantile,
};
pub use compare::{RegretRow, SpeedupRow, regret_ratios, speedups};
pub use grid::time_grid;
pub use mean_curve::{mean_time_to, mean_time_to_reps};
pub use policy::{CurvePoint, PolicyAggregate, RepFigures, TenantFold, TenantSummary};
pub use ratio::{Ratio, median_ratio, time_ratio, value_ratio};
pub use rep_curves::{BitKey, Interned, RepCurves};
pub use up_to::{DEFAULT_POINTS as UP_TO_POINTS, UpTo, dense_thetas, up_to_speedup};

use crate::core::error::Result;
use crate::models::metrics::{LossCurve, TenantAggregate};
use crate::models::scenario::{GridKind, OutputSection, Scenario};
use crate::models::trace::Micros;

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
    /// `speedups_up_to.csv` rows: each policy's largest speedup over the
    /// baseline on a dense θ grid (time axis only; empty on the job axis).
    pub up_to: Vec<UpToRow>,
    /// The same aggregation of the loss as a function of completed jobs
    /// (`curves_by_job.csv`): its `grid` counts jobs, its T(θ) are jobs to
    /// θ. `None` on the job axis itself.
    pub by_jobs: Option<Box<Aggregate>>,
}

/// One `speedups_up_to.csv` row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UpToRow {
    /// Policy index.
    pub policy: usize,
    /// Baseline policy index.
    pub baseline: usize,
    /// The largest finite T_B/T_X and its θ, or `None` if no θ of the grid
    /// has one.
    pub up_to: Option<UpTo>,
    /// The θ range searched, `[low, high]`.
    pub range: (f64, f64),
    /// Points of the θ grid.
    pub points: usize,
}

/// At most this many job counts in the job-axis grid: every count from 0 to
/// the most jobs any run completed when that is ≤ 1,000, else 1,001 evenly
/// spaced counts.
pub const JOB_GRID_POINTS: u32 = 1001;

/// What the aggregates keep of one policy's runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PolicyFold {
    /// Its loss curves, repetition by repetition.
    pub curves: RepCurves,
    /// Its loss curves over completed jobs, repetition by repetition.
    pub job_curves: RepCurves,
    /// Its per-tenant figures, folded.
    pub tenants: TenantFold,
}

/// The aggregates of one scenario's runs, folded one run at a time.
///
/// Runs must be added in (repetition, policy) order (what
/// [`run_grid`](crate::models::run_grid) does, whatever the thread
/// count). To aggregate one more per-run figure, add its state to
/// [`PolicyFold`], fold it in [`RunFold::add`] and finish it in
/// [`aggregate_fold`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFold {
    /// Per policy, in scenario order.
    pub policies: Vec<PolicyFold>,
    /// Earliest first job completion of any run (`None`: none yet).
    first_completion: Option<Micros>,
    /// Latest end of any run.
    last_end: Micros,
    /// Most jobs any run completed.
    most_jobs: Micros,
}

/// What the aggregation keeps of one (repetition, policy) run.
///
/// The curves are borrowed or owned: a caller done with the run hands
/// them over ([`Cow::Owned`]) and a new distinct curve is moved into the
/// fold instead of cloned, so a large run's curves are never held twice
/// (issue 34).
#[derive(Debug, Clone)]
pub struct RunFigures<'a> {
    /// Policy index in the scenario.
    pub policy: usize,
    /// L(τ) of the run.
    pub curve: Cow<'a, LossCurve>,
    /// The loss against completed jobs.
    pub job_curve: Cow<'a, LossCurve>,
    /// Aggregates of what each tenant experienced.
    pub tenant_aggregate: &'a TenantAggregate,
    /// When the run ended, µs.
    pub end: Micros,
    /// When its first job completed, µs (`None` if none did).
    pub first_completion: Option<Micros>,
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
    pub fn add(&mut self, run: RunFigures<'_>) {
        if self.policies.len() <= run.policy {
            self.policies.resize(run.policy + 1, PolicyFold::default());
        }
        let p = &mut self.policies[run.policy];
        self.most_jobs = self.most_jobs.max(run.job_curve.end);
        match run.curve {
            Cow::Borrowed(c) => p.curves.push(c),
            Cow::Owned(c) => p.curves.push_owned(c),
        }
        match run.job_curve {
            Cow::Borrowed(c) => p.job_curves.push(c),
            Cow::Owned(c) => p.job_curves.push_owned(c),
        }
        p.tenants.add(run.tenant_aggregate);
        self.last_end = self.last_end.max(run.end);
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
) -> Result<Aggregate> {
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
) -> Result<Aggregate> {
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
        .collect::<Result<_>>()?;
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
    Ok(Aggregate {
        thresholds: spec.thresholds.to_vec(),
        baseline,
        confidence: spec.output.confidence,
        repetitions: reps.first().map_or(0, |r| r.len()),
        grid,
        policies,
        speedups,
        regret,
        up_to: Vec::new(),
        by_jobs: None,
    })
}

/// Aggregate the runs of `scenario` folded into `fold`.
pub fn aggregate_fold(scenario: &Scenario, fold: &RunFold) -> Result<Aggregate> {
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
    )?;
    for (p, f) in agg.policies.iter_mut().zip(&fold.policies) {
        p.tenants = Some(f.tenants.finish());
    }
    let range = up_to_range(scenario);
    agg.up_to = up_to_rows(&reps, agg.baseline, range, UP_TO_POINTS)?;
    // The job axis: the same figures over completed jobs, on a linear grid
    // of job counts from 0 (the loss before any job completes).
    let job_reps: Vec<&RepCurves> = (0..names.len())
        .map(|p| fold.policies.get(p).map_or(&empty, |f| &f.job_curves))
        .collect();
    let job_output = OutputSection {
        grid: GridKind::Linear,
        grid_points: JOB_GRID_POINTS.min(u32::try_from(fold.most_jobs + 1).unwrap_or(u32::MAX)),
        ..scenario.output().clone()
    };
    let jobs = aggregate_reps(
        &names,
        &job_reps,
        &AggregateSpec {
            thresholds: &scenario.thresholds,
            baseline: scenario.baseline,
            output: &job_output,
            span: (0, fold.most_jobs),
        },
    )?;
    agg.by_jobs = Some(Box::new(jobs));
    Ok(agg)
}

/// The θ range of the "up to" speedup: `[output] up_to_thetas`, or from the
/// smallest to the largest of the scenario's thresholds.
fn up_to_range(scenario: &Scenario) -> (f64, f64) {
    if let Some(&[low, high]) = scenario.output().up_to_thetas.as_deref() {
        return (low, high);
    }
    let t = &scenario.thresholds;
    let low = t.iter().copied().fold(f64::INFINITY, f64::min);
    let high = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if low.is_finite() {
        (low, high)
    } else {
        (0.0, 0.0)
    }
}

/// Each policy's [`up_to_speedup`] over `baseline` on `points` θ values of
/// `range` ([`dense_thetas`]), from the exact T(θ) of the mean curves
/// ([`mean_time_to_reps`]).
fn up_to_rows(
    reps: &[&RepCurves],
    baseline: usize,
    range: (f64, f64),
    points: usize,
) -> Result<Vec<UpToRow>> {
    if reps.is_empty() || range.0 <= 0.0 {
        return Ok(Vec::new());
    }
    let thetas = dense_thetas(range.0, range.1, points);
    let times: Vec<Vec<Option<Micros>>> = reps
        .par_iter()
        .map(|r| mean_time_to_reps(r, &thetas))
        .collect::<Result<_>>()?;
    Ok((0..reps.len())
        .map(|p| UpToRow {
            policy: p,
            baseline,
            up_to: up_to_speedup(&thetas, &times[baseline], &times[p]),
            range,
            points,
        })
        .collect())
}
