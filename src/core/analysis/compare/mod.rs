//! `tenantsim compare A B`: per (point, policy, metric), the difference of
//! the means over repetitions B − A with a confidence interval. "Is my
//! change better?", where `check` asks "did anything change?".
//!
//! **Paired** when both folders' `run.json` have the same seed and the
//! same trace (SHA-256) and split, and the policy has the same
//! repetitions on both sides: repetition r of A and of B then saw the same
//! tenants and the same split, so the per-repetition differences
//! dᵣ = bᵣ − aᵣ are the sample. The interval is the percentile bootstrap
//! of their mean: `resamples` times, draw n repetitions with replacement
//! (ChaCha8, seeded by `seed` and the row's position, so the output is the
//! same on every run and thread count), take the mean; the interval is the
//! type-7 quantiles (1 − level)/2 and (1 + level)/2 of those means.
//!
//! **Unpaired** otherwise: Welch's interval of mean(b) − mean(a)
//! ([`crate::core::analysis::check::welch::welch_interval`]).
//!
//! A metric with a value that is not a finite number (`inf`, `n/a`) on
//! either side is left out; so are policies and metrics that only one
//! side has.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::core::analysis::check::welch::{mean_var, welch_interval};
use crate::core::analysis::check::{Layout, column, layout, numbers, read_summary};
use crate::core::analysis::stats::quantile;
use crate::core::error::{Error, Result};
use crate::core::io::manifest_doc::ManifestDoc;
use crate::core::limits::{MAX_BOOTSTRAP_DRAWS, MAX_RESAMPLES, grouped};

/// Options of [`compare_folders`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Confidence level of the intervals (e.g. 0.95).
    pub level: f64,
    /// Bootstrap resamples of a paired interval.
    pub resamples: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            level: 0.95,
            resamples: 2000,
            seed: 0,
        }
    }
}

/// One (point, policy, metric).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The sweep point's folder ("" for a single run).
    pub point: String,
    /// Policy label.
    pub policy: String,
    /// Metric column.
    pub metric: String,
    /// Repetitions in A and in B.
    pub n: (usize, usize),
    /// Means over repetitions in A and in B.
    pub mean: (f64, f64),
    /// mean(B) − mean(A).
    pub diff: f64,
    /// Lower end of the interval.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// Whether the interval is paired by repetition.
    pub paired: bool,
}

/// What must match in `run.json` for repetitions to pair: the seed, the
/// trace's content and the split (`None` when `run.json` is absent, or
/// lacks a seed: unpaired). A `run.json` that is there but cannot be read
/// (not a regular file, no permission, not UTF-8, not JSON) is an error
/// naming it: an unreadable file is not an absent one.
fn pairing_key(dir: &Path) -> Result<Option<Value>> {
    let doc = ManifestDoc::read(
        dir,
        "`compare` reads its `seed`, trace and split to pair repetitions",
    )
    .map_err(|e| e.context("cannot compare"))?;
    let Some(doc) = doc else {
        return Ok(None);
    };
    let Some(seed) = doc.value().get("seed").cloned() else {
        return Ok(None);
    };
    let trace = doc.trace_sha256().cloned();
    let split = doc.pointer("/scenario/split").cloned();
    Ok(Some(serde_json::json!([seed, trace, split])))
}

/// The percentile bootstrap interval of the mean of `d` (see the module
/// documentation).
pub fn bootstrap_mean_interval(d: &[f64], level: f64, resamples: usize, seed: u64) -> (f64, f64) {
    let n = d.len();
    if n == 0 || resamples == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut means = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let mut sum = 0.0;
        for _ in 0..n {
            sum += d[rng.gen_range(0..n)];
        }
        means.push(sum / n as f64);
    }
    means.sort_by(f64::total_cmp);
    (
        quantile(&means, (1.0 - level) / 2.0),
        quantile(&means, (1.0 + level) / 2.0),
    )
}

/// Compare the results folders `a` and `b` (both one run, or both sweeps
/// with the same points).
pub fn compare_folders(a: &Path, b: &Path, opts: Options) -> Result<Vec<Row>> {
    if !(opts.level > 0.0 && opts.level < 1.0) {
        return Err(Error::usage(format!(
            "--level: expected a confidence level in (0, 1), got {}",
            opts.level
        )));
    }
    if opts.resamples == 0 {
        return Err(Error::usage(
            "--resamples: expected at least 1 bootstrap resample, got 0 (a paired interval needs resamples)",
        ));
    }
    if opts.resamples as u64 > MAX_RESAMPLES {
        return Err(Error::input(format!(
            "--resamples: {} resamples exceed the limit of {}",
            grouped(opts.resamples as u64),
            grouped(MAX_RESAMPLES)
        )));
    }
    let points = match (layout(a, "first")?, layout(b, "second")?) {
        (Layout::Single, Layout::Single) => vec![(String::new(), a.to_path_buf(), b.to_path_buf())],
        (Layout::Sweep(pa), Layout::Sweep(pb)) => {
            if pa != pb {
                return Err(Error::input(format!(
                    "{} and {} are sweeps over other points: compare runs of the same scenario shape",
                    a.display(),
                    b.display()
                )));
            }
            pa.iter()
                .map(|p| (p.clone(), a.join(p), b.join(p)))
                .collect()
        }
        _ => {
            return Err(Error::input(format!(
                "{} and {}: one is a sweep, the other one run",
                a.display(),
                b.display()
            )));
        }
    };
    let mut rows = Vec::new();
    for (point, da, db) in points {
        let (ta, tb) = (read_summary(&da)?, read_summary(&db)?);
        let keys_match = match (pairing_key(&da)?, pairing_key(&db)?) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        };
        for policy in ta.policies.iter().filter(|p| tb.policies.contains(p)) {
            for (i, metric) in ta.metrics.iter().enumerate() {
                let Some(j) = tb.metrics.iter().position(|m| m == metric) else {
                    continue;
                };
                let (ca, cb) = (column(&ta, policy, i), column(&tb, policy, j));
                let (Some(x), Some(y)) = (numbers(&ca), numbers(&cb)) else {
                    continue;
                };
                if x.is_empty() || y.is_empty() {
                    continue;
                }
                let same_reps = ca.len() == cb.len() && ca.iter().zip(&cb).all(|(u, v)| u.0 == v.0);
                let paired = keys_match && same_reps;
                let (ma, mb) = (mean_var(&x).0, mean_var(&y).0);
                let (ci_low, ci_high) = if paired {
                    let d: Vec<f64> = x.iter().zip(&y).map(|(u, v)| v - u).collect();
                    let draws = (opts.resamples as u64).saturating_mul(d.len() as u64);
                    if draws > MAX_BOOTSTRAP_DRAWS {
                        return Err(Error::input(format!(
                            "--resamples: {} resamples of the {} paired repetitions of `{policy}` \
                             ({metric}{}) are {} draws, above the limit of {} for one interval; \
                             use at most {} resamples",
                            grouped(opts.resamples as u64),
                            grouped(d.len() as u64),
                            if point.is_empty() {
                                String::new()
                            } else {
                                format!(", {point}")
                            },
                            grouped(draws),
                            grouped(MAX_BOOTSTRAP_DRAWS),
                            grouped(MAX_BOOTSTRAP_DRAWS / d.len().max(1) as u64)
                        )));
                    }
                    // One stream per row, by its position: the same on every run.
                    let seed = opts.seed ^ (rows.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    bootstrap_mean_interval(&d, opts.level, opts.resamples, seed)
                } else if x.len() >= 2 && y.len() >= 2 {
                    welch_interval(&x, &y, opts.level)
                } else {
                    (f64::NAN, f64::NAN)
                };
                rows.push(Row {
                    point: point.clone(),
                    policy: policy.clone(),
                    metric: metric.clone(),
                    n: (x.len(), y.len()),
                    mean: (ma, mb),
                    diff: mb - ma,
                    ci_low,
                    ci_high,
                    paired,
                });
            }
        }
    }
    if rows.is_empty() {
        return Err(Error::input(format!(
            "{} and {} share no policy with a numeric metric",
            a.display(),
            b.display()
        )));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrap_of_a_constant_difference_is_that_constant() {
        assert_eq!(bootstrap_mean_interval(&[2.0; 5], 0.95, 100, 7), (2.0, 2.0));
    }

    #[test]
    fn bootstrap_is_deterministic_and_brackets_the_mean() {
        let d = [1.0, 3.0, 2.0, 5.0, 4.0, 0.0, 6.0];
        let i = bootstrap_mean_interval(&d, 0.95, 2000, 1);
        assert_eq!(i, bootstrap_mean_interval(&d, 0.95, 2000, 1));
        assert!(i.0 < 3.0 && 3.0 < i.1, "{i:?}");
        // Every resampled mean lies within [min, max] of the data.
        assert!(i.0 >= 0.0 && i.1 <= 6.0);
        // A wider level gives a wider interval.
        let j = bootstrap_mean_interval(&d, 0.5, 2000, 1);
        assert!(j.0 >= i.0 && j.1 <= i.1, "{i:?} {j:?}");
    }

    /// Against the closed form: with n = 2 and d = {0, 1} each resampled
    /// mean is 0, ½ or 1 with probabilities ¼, ½, ¼; the 2.5 % and 97.5 %
    /// quantiles of many resamples are then 0 and 1, the 30 % and 70 %
    /// ones ½.
    #[test]
    fn bootstrap_on_two_values_matches_the_closed_form() {
        let d = [0.0, 1.0];
        assert_eq!(bootstrap_mean_interval(&d, 0.95, 4000, 3), (0.0, 1.0));
        assert_eq!(bootstrap_mean_interval(&d, 0.4, 4000, 3), (0.5, 0.5));
    }
}
