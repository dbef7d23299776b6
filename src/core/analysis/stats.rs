//! Statistics for both modes: mean, Student-t confidence band, quantiles
//! and percentiles (type 7), Jain's fairness index.
//!
//! Every sum runs left to right over the values in repetition order, so the
//! results do not depend on how the repetitions were scheduled.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean and confidence band of one quantity over repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// Sample mean.
    pub mean: f64,
    /// Lower bound of the confidence interval of the mean.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Number of values.
    pub n: usize,
}

/// Mean: the left-to-right sum divided by the count, clamped to the
/// values' [min, max] (0 for no values).
///
/// The clamp only removes rounding error (the exact mean always lies in
/// that range); it makes the mean of identical values exactly that value,
/// so identical repetitions give a mean curve equal to theirs and the same
/// T(θ).
pub fn mean(values: &[f64]) -> f64 {
    MeanFold::of(values.iter().copied()).value()
}

/// [`mean`] folded one value at a time, in the order the values come: the
/// same sum, count and range, so the same bits as [`mean`] over the same
/// values in the same order (it is how [`mean`] is computed).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MeanFold {
    sum: f64,
    lo: f64,
    hi: f64,
    n: usize,
}

impl MeanFold {
    /// Fold `v` in.
    pub fn add(&mut self, v: f64) {
        if self.n == 0 {
            (self.lo, self.hi) = (v, v);
        }
        self.sum += v;
        self.lo = self.lo.min(v);
        self.hi = self.hi.max(v);
        self.n += 1;
    }

    /// The fold of `values`, in order.
    pub fn of(values: impl Iterator<Item = f64>) -> Self {
        let mut m = Self::default();
        values.for_each(|v| m.add(v));
        m
    }

    /// Values folded so far.
    pub fn count(&self) -> usize {
        self.n
    }

    /// The mean of the values folded so far (0 for none).
    pub fn value(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        (self.sum / self.n as f64).clamp(self.lo, self.hi)
    }
}

/// Sample standard deviation s = √(Σ(x − x̄)² / (n − 1)), two-pass; 0 for
/// fewer than two values.
pub fn sample_sd(values: &[f64]) -> f64 {
    sd_of(|| values.iter().copied())
}

/// [`sample_sd`] of the values `values()` yields (called twice: once for
/// the mean, once for the squares, each pass in the same order).
fn sd_of<I: Iterator<Item = f64>>(values: impl Fn() -> I) -> f64 {
    let first = MeanFold::of(values());
    let n = first.count();
    if n < 2 {
        return 0.0;
    }
    let m = first.value();
    let mut ss = 0.0;
    for v in values() {
        ss += (v - m) * (v - m);
    }
    (ss / (n - 1) as f64).sqrt()
}

/// t_{p, df}: the p-quantile of Student's t with `df` degrees of freedom
/// (statrs' inverse CDF). The aggregation asks for the same (p, df) for
/// every band of a scenario, and the inverse CDF is an iterative search (a
/// fifth of an LCDB-sized repetition's aggregation, issue 34): the last
/// answer of each thread is kept and returned for the same arguments, the
/// very value a fresh computation gives.
pub fn t_quantile(p: f64, df: usize) -> f64 {
    thread_local! {
        static LAST: std::cell::Cell<(u64, usize, f64)> = const { std::cell::Cell::new((0, 0, f64::NAN)) };
    }
    let key = p.to_bits();
    LAST.with(|last| {
        let (k, d, q) = last.get();
        if k == key && d == df && df > 0 {
            return q;
        }
        let q = StudentsT::new(0.0, 1.0, df as f64).map_or(f64::NAN, |t| t.inverse_cdf(p));
        last.set((key, df, q));
        q
    })
}

/// Student-t confidence band of the mean at `level` (e.g. 0.95):
/// x̄ ± t_{1−α/2, n−1} · s / √n with α = 1 − level and s the sample
/// standard deviation. With one value (n = 1) there is no spread to
/// estimate: both bounds are the value itself. With no values every figure
/// is 0 and `n` is 0.
///
/// ```
/// use tenantsim::core::analysis::stats::t_band;
/// // x̄ = 2, s = 1, n = 3: half-width t_{0.975, 2} · 1/√3 = 4.302653 / 1.732051.
/// let b = t_band(&[1.0, 2.0, 3.0], 0.95);
/// assert_eq!((b.mean, b.n), (2.0, 3));
/// assert!((b.high - 2.0 - 4.302_652_729_911 / 3f64.sqrt()).abs() < 1e-9);
/// assert!(((b.high - b.mean) - (b.mean - b.low)).abs() < 1e-12);
/// ```
pub fn t_band(values: &[f64], level: f64) -> Band {
    t_band_of(|| values.iter().copied(), level)
}

/// [`t_band`] of the values `values()` yields, without holding them:
/// `values` is called once per pass (mean, then squared deviations) and
/// must yield the same values in the same order each time, which gives the
/// bits of [`t_band`] over those values as a slice.
pub fn t_band_of<I: Iterator<Item = f64>>(values: impl Fn() -> I, level: f64) -> Band {
    let first = MeanFold::of(values());
    let n = first.count();
    let m = first.value();
    if n < 2 {
        return Band {
            mean: m,
            low: m,
            high: m,
            n,
        };
    }
    let s = sd_of(values);
    let half = if s == 0.0 {
        0.0
    } else {
        t_quantile(1.0 - (1.0 - level) / 2.0, n - 1) * s / (n as f64).sqrt()
    };
    Band {
        mean: m,
        low: m - half,
        high: m + half,
        n,
    }
}

/// The p-quantile of `sorted` (ascending, no NaN) by linear interpolation
/// between order statistics (Hyndman & Fan type 7, the default of R and
/// NumPy): h = (n − 1)·p, Q = x_⌊h⌋ + (h − ⌊h⌋)(x_⌊h⌋+1 − x_⌊h⌋), with
/// x indexed from 0. Infinite values are allowed (the median of 3 and ∞ is
/// ∞). Returns NaN for no values.
///
/// ```
/// use tenantsim::core::analysis::stats::quantile;
/// let x = [1.0, 2.0, 4.0, 8.0];
/// assert_eq!(quantile(&x, 0.5), 3.0); // h = 1.5: 2 + 0.5 · (4 − 2)
/// assert!((quantile(&x, 0.9) - 6.8).abs() < 1e-12); // h = 2.7: 4 + 0.7 · (8 − 4)
/// assert_eq!(quantile(&x, 1.0), 8.0);
/// ```
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    quantile_by(sorted.len(), p, |i| sorted[i])
}

/// The `pct`-th percentile (0–100) of `sorted` (ascending): [`quantile`]
/// at `pct / 100`, with `h = (n − 1)·pct/100` computed in that order (job
/// mode's JCT percentiles; dividing last keeps h exact where `pct / 100`
/// would round). Returns NaN for no values.
pub fn percentile(sorted: &[u64], pct: f64) -> f64 {
    let n = sorted.len();
    let h = n.saturating_sub(1) as f64 * pct.clamp(0.0, 100.0) / 100.0;
    type_7(n, h, |i| sorted[i] as f64)
}

/// [`quantile`] of `n` sorted values given by their rank: `at(i)` is the
/// i-th smallest (from 0); it is asked only for [`quantile_ranks`]`(n, p)`.
pub fn quantile_by(n: usize, p: f64, at: impl Fn(usize) -> f64) -> f64 {
    let h = n.saturating_sub(1) as f64 * p.clamp(0.0, 1.0);
    type_7(n, h, at)
}

/// The ranks (from 0) whose values [`quantile`] of `n` values at `p`
/// reads: x_⌊h⌋ and x_⌊h⌋+1, each at most n − 1 (none for no values).
pub fn quantile_ranks(n: usize, p: f64) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let h = n.saturating_sub(1) as f64 * p.clamp(0.0, 1.0);
    let i = h.floor() as usize;
    vec![i.min(n - 1), (i + 1).min(n - 1)]
}

/// The type-7 interpolation at fractional rank `h` (in `0..=n−1`) of `n`
/// sorted values given by their rank; NaN for no values.
fn type_7(n: usize, h: f64, at: impl Fn(usize) -> f64) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    let i = h.floor() as usize;
    let frac = h - h.floor();
    let lo = at(i.min(n - 1));
    let hi = at((i + 1).min(n - 1));
    if frac == 0.0 || lo == hi {
        lo
    } else {
        lo + frac * (hi - lo)
    }
}

/// A multiset of values as (value, count), ascending by [`f64::total_cmp`]
/// with each value once: what `sorted` gives, without repeating the
/// copies of a value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counted {
    values: Vec<(f64, u64)>,
    n: u64,
}

impl Counted {
    /// The multiset with `count` copies of each `value` (any order; counts
    /// of 0 are left out).
    pub fn new(mut values: Vec<(f64, u64)>) -> Self {
        values.retain(|&(_, c)| c > 0);
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        values.dedup_by(|b, a| {
            let same = a.0.total_cmp(&b.0).is_eq();
            if same {
                a.1 += b.1;
            }
            same
        });
        let n = values.iter().map(|&(_, c)| c).sum();
        Self { values, n }
    }

    /// Number of values, copies included.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// [`quantile`] of the values with their copies, as if sorted out in
    /// full.
    pub fn quantile(&self, p: f64) -> f64 {
        let n = usize::try_from(self.n).unwrap_or(usize::MAX);
        quantile_by(n, p, |i| self.at(i as u64))
    }

    /// The i-th smallest value (from 0), copies counted.
    fn at(&self, mut i: u64) -> f64 {
        for &(v, c) in &self.values {
            if i < c {
                return v;
            }
            i -= c;
        }
        self.values.last().map_or(f64::NAN, |&(v, _)| v)
    }
}

/// Jain's fairness index J = (Σ x_i)² / (n · Σ x_i²) (Jain, Chiu, Hawe
/// 1984): 1 when all x_i are equal, 1/n when one takes everything. `None`
/// for no values; 1 when every value is 0.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    Some(if sq == 0.0 {
        1.0
    } else {
        sum * sum / (x.len() as f64 * sq)
    })
}

/// `values` sorted ascending (total order; the callers never pass NaN).
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    sort_total(&mut v);
    v
}

/// Sort `values` ascending in `f64::total_cmp`'s order, in place. An
/// unstable sort, which needs no scratch memory (a stable one takes half
/// the slice again: 40 MB for the 10^7 regret areas of scale-year,
/// docs/PERFORMANCE.md "Internet scale"); the result is the stable
/// sort's, bit for bit, because two values `total_cmp` finds equal have
/// the same bits.
pub fn sort_total(values: &mut [f64]) {
    values.sort_unstable_by(f64::total_cmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unstable sort gives the stable sort's bits: ties (equal
    /// values, both zeros, NaNs of distinct payloads) included.
    #[test]
    fn sorting_in_place_gives_the_stable_sorts_bits() {
        let nan_a = f64::from_bits(0x7ff8_0000_0000_0001);
        let nan_b = f64::from_bits(0xfff8_0000_0000_0002);
        let mut values: Vec<f64> = (0..2_000u32)
            .map(|i| f64::from((i * 7_919) % 97) / 8.0)
            .collect();
        values.extend([
            0.0,
            -0.0,
            nan_a,
            nan_b,
            f64::INFINITY,
            -1.5,
            -0.0,
            0.0,
            nan_a,
        ]);
        let mut stable = values.clone();
        stable.sort_by(f64::total_cmp);
        sort_total(&mut values);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&values), bits(&stable));
    }

    #[test]
    fn t_quantiles_match_tables() {
        // t_{0.975,1} = 12.706204736..., t_{0.975,2} = 4.302652729...,
        // t_{0.975,9} = 2.262157162...
        assert!((t_quantile(0.975, 1) - 12.706_204_736_174_7).abs() < 1e-9);
        assert!((t_quantile(0.975, 2) - 4.302_652_729_749_464).abs() < 1e-9);
        assert!((t_quantile(0.975, 9) - 2.262_157_162_798_205).abs() < 1e-9);
    }

    #[test]
    fn a_repeated_t_quantile_is_the_fresh_computation_bit_for_bit() {
        for (p, df) in [(0.975, 9), (0.975, 9), (0.95, 9), (0.975, 29), (0.975, 9)] {
            let fresh = StudentsT::new(0.0, 1.0, df as f64).map_or(f64::NAN, |t| t.inverse_cdf(p));
            assert_eq!(
                t_quantile(p, df).to_bits(),
                fresh.to_bits(),
                "p {p}, df {df}"
            );
        }
        assert!(t_quantile(0.975, 0).is_nan(), "df 0 has no quantile");
    }

    #[test]
    fn quantile_type_7() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(quantile(&[3.0, f64::INFINITY], 0.5), f64::INFINITY);
        assert_eq!(
            quantile(&[f64::INFINITY, f64::INFINITY], 0.5),
            f64::INFINITY
        );
    }

    #[test]
    fn percentiles_interpolate_linearly_between_ranks() {
        let x = [10, 20, 30, 40];
        assert_eq!(percentile(&x, 50.0), 25.0);
        assert_eq!(percentile(&x, 0.0), 10.0);
        assert_eq!(percentile(&x, 100.0), 40.0);
        // h = 3 · 95 / 100 = 2.85 → 30 + 0.85 · 10.
        assert!((percentile(&x, 95.0) - 38.5).abs() < 1e-9);
        assert_eq!(percentile(&[7], 99.0), 7.0);
        assert!(percentile(&[], 50.0).is_nan());
    }

    #[test]
    fn percentiles_equal_the_textbook_formula_bit_for_bit() {
        // The job-mode formula as it stood before it moved here: h =
        // (n − 1)·p/100, x_⌊h⌋ + (h − ⌊h⌋)(x_⌊h⌋+1 − x_⌊h⌋).
        let textbook = |v: &[u64], p: f64| {
            let n = v.len();
            let h = (n - 1) as f64 * p / 100.0;
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            let (a, b) = (v[lo] as f64, v[hi] as f64);
            a + (h - lo as f64) * (b - a)
        };
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for n in 1..300 {
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state % 1_000_000_007
                })
                .collect();
            v.sort_unstable();
            for p in [0.0, 1.0, 25.0, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0] {
                assert_eq!(
                    percentile(&v, p).to_bits(),
                    textbook(&v, p).to_bits(),
                    "n = {n}, p = {p}"
                );
            }
        }
    }

    #[test]
    fn jain_index_extremes_and_hand_value() {
        assert_eq!(jain_index(&[2.0, 2.0, 2.0]), Some(1.0));
        assert_eq!(jain_index(&[1.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1 + 3)² / (2 · (1 + 9)) = 16 / 20
        assert_eq!(jain_index(&[1.0, 3.0]), Some(0.8));
        assert_eq!(jain_index(&[0.0, 0.0]), Some(1.0));
        assert_eq!(jain_index(&[]), None);
    }

    #[test]
    fn identical_values_give_themselves_and_a_zero_width_band() {
        let v = [2.0 / 3.0; 10];
        let b = t_band(&v, 0.95);
        assert_eq!((b.mean, b.low, b.high), (v[0], v[0], v[0]));
        assert_eq!(mean(&[0.1, 0.2, 0.3]), (0.1 + 0.2 + 0.3) / 3.0);
    }

    #[test]
    fn counted_quantiles_equal_those_of_the_sorted_copies() {
        let v = [0.3, 0.1, 0.3, 0.7, 0.1, 0.1, 0.9, -0.0, 0.0];
        let s = sorted(&v);
        let c = Counted::new(v.iter().map(|&x| (x, 1)).collect());
        assert_eq!(c.len(), 9);
        for p in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] {
            assert_eq!(
                c.quantile(p).to_bits(),
                quantile(&s, p).to_bits(),
                "p = {p}"
            );
        }
        let grouped = Counted::new(vec![
            (0.1, 3),
            (0.3, 2),
            (0.7, 1),
            (0.9, 1),
            (0.0, 1),
            (-0.0, 1),
        ]);
        assert_eq!(grouped, c);
    }

    #[test]
    fn folded_mean_and_band_equal_the_slice_ones() {
        let v = [0.1, 0.7, 0.2, 0.2, 1e-17, 0.3];
        assert_eq!(MeanFold::of(v.iter().copied()).value(), mean(&v));
        let b = t_band_of(|| v.iter().copied(), 0.9);
        assert_eq!(b, t_band(&v, 0.9));
        assert_eq!(MeanFold::default().value(), 0.0);
    }

    #[test]
    fn single_value_band_is_the_value() {
        let b = t_band(&[0.3], 0.95);
        assert_eq!((b.mean, b.low, b.high, b.n), (0.3, 0.3, 0.3, 1));
    }
}
