//! Aggregation of one policy's repetitions.

use super::mean_curve::mean_time_to_reps;
use super::rep_curves::RepCurves;
use crate::core::analysis::stats::{Band, Counted, MeanFold, t_band_of};
use crate::core::error::Result;
use crate::models::metrics::stall::Stall;
use crate::models::metrics::{LossCurve, TenantAggregate};
use crate::models::trace::Micros;

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
    /// T(θ) and cumulative regret of each repetition.
    pub reps: RepFigures,
    /// Mean cumulative regret with its band.
    pub regret: Band,
    /// Median cumulative regret.
    pub regret_median: f64,
    /// Mean final loss with its band.
    pub final_loss: Band,
    /// How individual tenants fared, over the repetitions (set by
    /// [`aggregate_fold`](super::aggregate_fold) from the per-tenant metrics).
    pub tenants: Option<TenantSummary>,
}

/// Per-repetition figures of one policy, held per distinct curve (see
/// [`RepCurves`]) with each repetition's curve index.
#[derive(Debug, Clone, PartialEq)]
pub struct RepFigures {
    /// Per repetition, in order: the index of its distinct curve.
    ids: Vec<u32>,
    /// Per distinct curve: T(θ) per θ (`None` = ∞).
    time_to: Vec<Vec<Option<Micros>>>,
    /// Per distinct curve: the reported cumulative regret, accuracy·s.
    regret: Vec<f64>,
    /// Per distinct curve: whether, and how, the run stalled (DESIGN §2.6).
    stalled: Vec<Option<Stall>>,
}

impl RepFigures {
    /// Number of repetitions.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// T(θ) of each repetition for the θ of index `theta`, in order.
    pub fn time_to(&self, theta: usize) -> impl Iterator<Item = Option<Micros>> + '_ {
        self.ids
            .iter()
            .map(move |&i| self.time_to[i as usize][theta])
    }

    /// Cumulative regret of each repetition, in order.
    pub fn regret(&self) -> impl Iterator<Item = f64> + '_ {
        self.ids.iter().map(|&i| self.regret[i as usize])
    }

    /// How many repetitions stalled (DESIGN §2.6) the way `how` says.
    pub fn stalled(&self, how: Stall) -> usize {
        self.ids
            .iter()
            .filter(|&&i| self.stalled[i as usize] == Some(how))
            .count()
    }
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
        let mut fold = TenantFold::default();
        reps.iter().for_each(|a| fold.add(a));
        fold.finish()
    }
}

/// [`TenantSummary`] folded one repetition at a time, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TenantFold {
    area_mean: MeanFold,
    area_p90: MeanFold,
    area_max: MeanFold,
    /// `None` once a repetition had no Jain index.
    jain: Option<MeanFold>,
    abandoned: MeanFold,
}

impl TenantFold {
    /// Fold the next repetition in.
    pub fn add(&mut self, a: &TenantAggregate) {
        let first = self.area_mean.count() == 0;
        self.area_mean.add(a.area_mean);
        self.area_p90.add(a.area_p90);
        self.area_max.add(a.area_max);
        self.abandoned.add(a.abandoned as f64);
        self.jain = match (first, self.jain, a.jain) {
            (true, _, Some(j)) => Some(MeanFold::of(std::iter::once(j))),
            (false, Some(mut m), Some(j)) => {
                m.add(j);
                Some(m)
            }
            _ => None,
        };
    }

    /// The summary of the repetitions folded.
    pub fn finish(&self) -> TenantSummary {
        TenantSummary {
            area_mean: self.area_mean.value(),
            area_p90: self.area_p90.value(),
            area_max: self.area_max.value(),
            jain: self.jain.filter(|j| j.count() > 0).map(|j| j.value()),
            abandoned: self.abandoned.value(),
        }
    }
}

impl PolicyAggregate {
    /// Aggregate `reps` (one curve per repetition, in repetition order).
    pub fn of(
        name: &str,
        reps: &RepCurves,
        grid: &[Micros],
        thresholds: &[f64],
        level: f64,
        quantiles: [f64; 2],
    ) -> Result<Self> {
        let distinct = reps.distinct();
        let counts = reps.counts();
        let mut at: Vec<Option<f64>> = Vec::with_capacity(distinct.len());
        // One cursor per distinct curve: the grid's instants rise, so each
        // curve is read once whatever the number of grid points.
        let mut cursors = distinct
            .iter()
            .map(LossCurve::cursor)
            .collect::<Result<Vec<_>>>()?;
        let mut curve = Vec::with_capacity(grid.len());
        for &t in grid {
            at.clear();
            for c in &mut cursors {
                at.push(c.loss_at(t)?);
            }
            let point = {
                let values = || reps.each_rep(&at).flatten();
                let s = Counted::new(
                    at.iter()
                        .zip(counts)
                        .filter_map(|(v, &c)| v.map(|v| (v, c)))
                        .collect(),
                );
                if s.is_empty() {
                    continue;
                }
                CurvePoint {
                    time: t,
                    band: t_band_of(values, level),
                    median: s.quantile(0.5),
                    q_low: s.quantile(quantiles[0]),
                    q_high: s.quantile(quantiles[1]),
                }
            };
            curve.push(point);
        }
        drop(cursors);
        let time_to = mean_time_to_reps(reps, thresholds)?;
        let regret: Vec<f64> = distinct
            .iter()
            .map(LossCurve::reported_regret)
            .collect::<Result<_>>()?;
        let finals: Vec<f64> = distinct
            .iter()
            .map(LossCurve::final_loss)
            .collect::<Result<_>>()?;
        let counted =
            |per: &[f64]| Counted::new(per.iter().copied().zip(counts.iter().copied()).collect());
        let figures = RepFigures {
            ids: reps.ids().to_vec(),
            time_to: distinct
                .iter()
                .map(|c| c.times_to(thresholds))
                .collect::<Result<_>>()?,
            regret,
            stalled: distinct.iter().map(LossCurve::stall).collect(),
        };
        Ok(Self {
            name: name.to_string(),
            curve,
            time_to,
            regret: t_band_of(|| figures.regret(), level),
            regret_median: counted(&figures.regret).quantile(0.5),
            final_loss: t_band_of(|| reps.each_rep(&finals), level),
            reps: figures,
            tenants: None,
        })
    }
}
