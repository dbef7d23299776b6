//! What the `tenant-regret` figure draws of each policy's regret areas
//! (`tenants.csv`, every repetition pooled), computed while the areas pass
//! in ascending order through runs sorted on disk, so the figure holds no
//! list of them (issue 34: memory by active tenants, DESIGN §8.5;
//! docs/PERFORMANCE.md "Limits from memory").
//!
//! Before 2026-12-07 every area was held in memory and sorted (8 bytes a
//! tenant and repetition: 80 MB of scale-year's 10^7 tenants, whose run
//! with its figures peaked at 157,244 KB against 85,284 KB without). The
//! figure reads of them only values at ranks and folds in rank order, so
//! each is taken here from the sorted stream, bit for bit what it read of
//! the sorted vector:
//! - the quartiles and median (type 7: the values at
//!   [`quantile_ranks`], interpolated by [`quantile_by`]);
//! - the smallest and largest (ranks 0 and n − 1);
//! - the mean, the areas summed in ascending order (`Iterator::sum` over
//!   the stream, as over the vector) divided by n;
//! - the dots, the values at [`ranks`]`(n, MAX_DOTS)`;
//! - the largest (`f64::max` from 0) and the smallest positive area, and
//!   whether some area is not positive, for the axis;
//! - and of every policy's areas together, the median and largest (the
//!   log-axis choice, [`TenantAreas::skewed`]), selected in passes over
//!   the runs ([`select_quantiles`]).

use crate::core::analysis::rank_select::{select_quantiles, total_order_key};
use crate::core::analysis::stats::{quantile_by, quantile_ranks};
use crate::core::error::{Error, Result};
use crate::core::io::sorted_runs::SortedRuns;
use crate::core::memory::{AREAS_IN_MEMORY, AREAS_RUN};

/// Dots drawn per policy at most.
pub const MAX_DOTS: usize = 400;

/// Evenly spaced ranks: `k` of the `n` sorted values (all when n ≤ k):
/// the dots the figure draws.
pub fn ranks(n: usize, k: usize) -> Vec<usize> {
    if n <= k {
        return (0..n).collect();
    }
    (0..k)
        .map(|j| (j * (n - 1) + (k - 1) / 2) / (k - 1))
        .collect()
}

/// One policy's regret areas as the figure draws them. The summary of no
/// areas ([`Default`]) holds the identities of the axis's folds (largest
/// 0, smallest positive infinity), so a policy without rows moves neither
/// end of the axis, as when its areas were an empty list.
#[derive(Debug, Clone, PartialEq)]
pub struct AreaSummary {
    /// Areas (tenants × repetitions).
    pub n: usize,
    /// The smallest and the largest (`total_cmp`'s first and last).
    pub min: f64,
    /// See `min`.
    pub max: f64,
    /// First quartile, median, third quartile (type 7).
    pub q1: f64,
    /// See `q1`.
    pub median: f64,
    /// See `q1`.
    pub q3: f64,
    /// The areas summed in ascending order, over n.
    pub mean: f64,
    /// The values at [`ranks`]`(n, MAX_DOTS)`, ascending.
    pub dots: Vec<f64>,
    /// `f64::max` of 0 and every area.
    pub largest: f64,
    /// The smallest area above 0 (infinity when none is).
    pub smallest_positive: f64,
    /// Whether some area is 0 or below.
    pub any_not_positive: bool,
}

impl Default for AreaSummary {
    fn default() -> Self {
        Self {
            n: 0,
            min: f64::NAN,
            max: f64::NAN,
            q1: f64::NAN,
            median: f64::NAN,
            q3: f64::NAN,
            mean: f64::NAN,
            dots: Vec::new(),
            largest: 0.0,
            smallest_positive: f64::INFINITY,
            any_not_positive: false,
        }
    }
}

/// Every policy's [`AreaSummary`] (by policy index; a policy without
/// rows has none or an empty one) and the median and largest of all the
/// areas together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TenantAreas {
    /// Per policy index.
    pub per_policy: Vec<AreaSummary>,
    /// The median of every area of every policy (type 7; NaN for none).
    pub pooled_median: f64,
    /// The largest of them (`total_cmp`'s last), if any.
    pub pooled_max: Option<f64>,
}

impl TenantAreas {
    /// Whether the areas are skewed enough for a log axis: the largest
    /// above 10 × the median of all of them (a median of 0 stays linear).
    pub fn skewed(&self) -> bool {
        let median = self.pooled_median;
        self.pooled_max
            .is_some_and(|max| median > 0.0 && max > 10.0 * median)
    }
}

/// Regret areas gathered per policy while `tenants.csv` is read.
#[derive(Debug)]
pub struct AreaGatherer {
    per_policy: Vec<SortedRuns<f64, u64>>,
    /// Areas a run holds; bytes of written runs kept in memory.
    run_records: usize,
    spill_bytes: usize,
}

impl Default for AreaGatherer {
    fn default() -> Self {
        Self::with(AREAS_RUN, AREAS_IN_MEMORY)
    }
}

impl AreaGatherer {
    /// A gatherer sorting runs of `run_records` areas, its written runs
    /// on disk past `spill_bytes` a policy.
    pub fn with(run_records: usize, spill_bytes: usize) -> Self {
        Self {
            per_policy: Vec::new(),
            run_records,
            spill_bytes,
        }
    }

    /// Add `area` of policy `policy`. An error: writing a full run.
    pub fn push(&mut self, policy: usize, area: f64) -> Result<()> {
        while self.per_policy.len() <= policy {
            self.per_policy.push(SortedRuns::new(
                area_key,
                0,
                self.run_records,
                self.spill_bytes,
            ));
        }
        self.per_policy[policy].push(area, [])
    }

    /// The summaries: one merged pass over each policy's runs, then the
    /// passes of the pooled median's selection. An error: reading the
    /// runs back.
    pub fn finish(mut self) -> Result<TenantAreas> {
        let mut per_policy = Vec::with_capacity(self.per_policy.len());
        let mut total = 0usize;
        let mut pooled_max: Option<f64> = None;
        for runs in &mut self.per_policy {
            runs.seal()?;
            let s = summarise(runs)?;
            total += s.n;
            if s.n > 0 {
                pooled_max = Some(match pooled_max {
                    Some(m) if m.total_cmp(&s.max).is_ge() => m,
                    _ => s.max,
                });
            }
            per_policy.push(s);
        }
        let runs = &self.per_policy;
        let median = select_quantiles(total, &[0.5], |f| {
            for r in runs {
                for item in r.merged()? {
                    f(item?.0);
                }
            }
            Ok(())
        })?;
        Ok(TenantAreas {
            per_policy,
            pooled_median: median[0],
            pooled_max,
        })
    }
}

/// A regret area's key in sorted runs: [`f64::total_cmp`]'s order.
fn area_key(area: &f64) -> u64 {
    total_order_key(*area)
}

/// One policy's summary from its sealed runs.
fn summarise(runs: &SortedRuns<f64, u64>) -> Result<AreaSummary> {
    let n = usize::try_from(runs.len())
        .map_err(|_| Error::input("internal: more regret areas than this machine counts"))?;
    let quartile_ranks: Vec<Vec<usize>> = [0.25, 0.5, 0.75]
        .iter()
        .map(|&p| quantile_ranks(n, p))
        .collect();
    let dot_ranks = ranks(n, MAX_DOTS);
    let mut s = AreaSummary {
        n,
        dots: Vec::with_capacity(dot_ranks.len()),
        ..AreaSummary::default()
    };
    // Values at the quartiles' ranks, by rank (at most six).
    let mut at_rank: Vec<(usize, f64)> = Vec::with_capacity(6);
    let mut next_dot = 0;
    let mut failure = None;
    let mut i = 0usize;
    let sum: f64 = runs
        .merged()?
        .map_while(|item| match item {
            Ok((v, _)) => Some(v),
            Err(e) => {
                failure = Some(e);
                None
            }
        })
        .inspect(|&v| {
            if i == 0 {
                s.min = v;
            }
            if i + 1 == n {
                s.max = v;
            }
            if quartile_ranks.iter().any(|r| r.contains(&i)) {
                at_rank.push((i, v));
            }
            if dot_ranks.get(next_dot) == Some(&i) {
                s.dots.push(v);
                next_dot += 1;
            }
            s.largest = s.largest.max(v);
            if v > 0.0 {
                s.smallest_positive = s.smallest_positive.min(v);
            } else {
                s.any_not_positive = true;
            }
            i += 1;
        })
        .sum();
    if let Some(e) = failure {
        return Err(e);
    }
    if i != n {
        return Err(Error::input(format!(
            "internal: {i} of {n} regret areas read back"
        )));
    }
    let value_at = |r: usize| {
        at_rank
            .iter()
            .find(|&&(k, _)| k == r)
            .map_or(f64::NAN, |&(_, v)| v)
    };
    s.q1 = quantile_by(n, 0.25, value_at);
    s.median = quantile_by(n, 0.5, value_at);
    s.q3 = quantile_by(n, 0.75, value_at);
    s.mean = sum / n as f64;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::stats::{quantile, sort_total};

    /// The summary of the areas pushed in any order, through runs on disk
    /// or not, has the bits the figure computed from the sorted vector
    /// (the code it replaced, inlined here).
    #[test]
    fn the_summary_is_what_the_sorted_areas_gave_bit_for_bit() {
        for (n, run) in [
            (0usize, 4usize),
            (1, 4),
            (7, 4),
            (999, 64),
            (5_000, 1 << 16),
        ] {
            let values: Vec<f64> = (0..n)
                .map(|i| match i % 13 {
                    0 => 0.0,
                    5 => f64::from((i * 7_919 % 101) as u32) * 1e6,
                    _ => f64::from((i * 7_919 % 1_009) as u32) / 7.0,
                })
                .collect();
            // Small runs and no memory for them: the merge from disk.
            let mut g = AreaGatherer::with(run, 0);
            for (k, &v) in values.iter().enumerate() {
                g.push(k % 2, v).expect("push");
            }
            let got = g.finish().expect("summaries");
            let mut all = Vec::new();
            for policy in 0..2 {
                let mut v: Vec<f64> = values.iter().skip(policy).step_by(2).copied().collect();
                all.extend_from_slice(&v);
                sort_total(&mut v);
                let Some(s) = got.per_policy.get(policy) else {
                    assert!(v.is_empty(), "n {n}");
                    continue;
                };
                assert_eq!(s.n, v.len());
                if v.is_empty() {
                    continue;
                }
                let bits = |x: f64| x.to_bits();
                assert_eq!(bits(s.q1), bits(quantile(&v, 0.25)), "n {n}");
                assert_eq!(bits(s.median), bits(quantile(&v, 0.5)), "n {n}");
                assert_eq!(bits(s.q3), bits(quantile(&v, 0.75)), "n {n}");
                assert_eq!(bits(s.min), bits(v[0]));
                assert_eq!(bits(s.max), bits(v[v.len() - 1]));
                let mean = v.iter().sum::<f64>() / v.len() as f64;
                assert_eq!(bits(s.mean), bits(mean), "n {n}");
                let dots: Vec<f64> = ranks(v.len(), MAX_DOTS).into_iter().map(|r| v[r]).collect();
                assert_eq!(s.dots, dots);
                assert_eq!(s.largest, v.iter().copied().fold(0.0, f64::max));
                let lo = v
                    .iter()
                    .copied()
                    .filter(|&x| x > 0.0)
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(s.smallest_positive, lo);
                assert_eq!(s.any_not_positive, v.iter().any(|&x| x <= 0.0));
            }
            sort_total(&mut all);
            assert_eq!(
                got.pooled_median.to_bits(),
                quantile(&all, 0.5).to_bits(),
                "n {n}"
            );
            assert_eq!(got.pooled_max, all.last().copied());
        }
    }

    #[test]
    fn ranks_keep_both_ends_and_spread_evenly() {
        assert_eq!(ranks(3, 5), [0, 1, 2]);
        let r = ranks(1000, 5);
        assert_eq!(r.first(), Some(&0));
        assert_eq!(r.last(), Some(&999));
        assert!(r.windows(2).all(|w| w[0] < w[1]));
    }

    /// A policy without areas (one with none, or one the file lacks)
    /// moves neither end of the axis: its summary holds the folds'
    /// identities, the same as the summary of its empty runs.
    #[test]
    fn no_areas_leave_the_axis_alone() {
        let mut g = AreaGatherer::default();
        g.push(1, 2.5).expect("push");
        let got = g.finish().expect("summaries");
        let none = &got.per_policy[0];
        assert_eq!(none.n, 0);
        assert_eq!((none.largest, none.smallest_positive), (0.0, f64::INFINITY));
        assert!(!none.any_not_positive);
        let d = AreaSummary::default();
        assert_eq!((d.largest, d.smallest_positive), (0.0, f64::INFINITY));
        assert!(d.dots.is_empty() && !d.any_not_positive && d.n == 0);
    }

    /// The log axis is chosen as before: the largest area above 10 × the
    /// median of all of them, and never on a median of 0.
    #[test]
    fn skew_picks_the_log_axis() {
        let skewed = |per: &[&[f64]]| {
            let mut g = AreaGatherer::default();
            for (p, values) in per.iter().enumerate() {
                for &v in *values {
                    g.push(p, v).expect("push");
                }
            }
            g.finish().expect("summaries").skewed()
        };
        assert!(!skewed(&[&[1.0, 2.0, 3.0], &[2.0, 13.0]]));
        assert!(skewed(&[&[1.0, 2.0, 3.0], &[2.0, 31.0]]));
        assert!(!skewed(&[&[0.0, 0.0, 5.0]]), "median 0: stay linear");
    }
}
