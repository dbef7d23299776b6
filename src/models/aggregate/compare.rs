//! Comparisons with the baseline policy: speedups and regret ratios.

use super::policy::PolicyAggregate;
use super::ratio::{Ratio, median_ratio, time_ratio, value_ratio};
use crate::models::trace::Micros;

/// One row of `speedups.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpeedupRow {
    /// Policy index.
    pub policy: usize,
    /// Index of θ in the scenario's thresholds.
    pub theta: usize,
    /// T_B(θ) of the baseline's mean curve (`None` = ∞).
    pub t_baseline: Option<Micros>,
    /// T_X(θ) of the policy's mean curve.
    pub t_policy: Option<Micros>,
    /// T_B / T_X on the mean curves.
    pub speedup: Ratio,
    /// Median over repetitions r of T_B,r / T_X,r.
    pub median_rep_speedup: Ratio,
}

/// One row of `regret.csv` (the band itself is in [`PolicyAggregate`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegretRow {
    /// Policy index.
    pub policy: usize,
    /// Mean regret of the policy / mean regret of the baseline.
    pub ratio: Ratio,
    /// Median over repetitions r of R_X,r / R_B,r.
    pub median_rep_ratio: Ratio,
}

/// Speedup rows, policy-major then θ in scenario order; repetitions are
/// paired by index (the same split and tenants).
pub fn speedups(policies: &[PolicyAggregate], baseline: usize, n_theta: usize) -> Vec<SpeedupRow> {
    let base = &policies[baseline];
    let mut rows = Vec::with_capacity(policies.len() * n_theta);
    for (p, x) in policies.iter().enumerate() {
        for th in 0..n_theta {
            let per_rep: Vec<Ratio> = base
                .reps
                .time_to(th)
                .zip(x.reps.time_to(th))
                .map(|(b, x)| time_ratio(b, x))
                .collect();
            rows.push(SpeedupRow {
                policy: p,
                theta: th,
                t_baseline: base.time_to[th],
                t_policy: x.time_to[th],
                speedup: time_ratio(base.time_to[th], x.time_to[th]),
                median_rep_speedup: median_ratio(&per_rep),
            });
        }
    }
    rows
}

/// Regret ratios to the baseline, one row per policy.
pub fn regret_ratios(policies: &[PolicyAggregate], baseline: usize) -> Vec<RegretRow> {
    let base = &policies[baseline];
    policies
        .iter()
        .enumerate()
        .map(|(p, x)| {
            let per_rep: Vec<Ratio> = x
                .reps
                .regret()
                .zip(base.reps.regret())
                .map(|(rx, rb)| value_ratio(rx, rb))
                .collect();
            RegretRow {
                policy: p,
                ratio: value_ratio(x.regret.mean, base.regret.mean),
                median_rep_ratio: median_ratio(&per_rep),
            }
        })
        .collect()
}
