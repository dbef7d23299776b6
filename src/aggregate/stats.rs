//! Statistics over repetitions: mean, Student-t confidence band, quantiles.
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
    let Some(&first) = values.first() else {
        return 0.0;
    };
    let (mut sum, mut lo, mut hi) = (0.0, first, first);
    for &v in values {
        sum += v;
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (sum / values.len() as f64).clamp(lo, hi)
}

/// Sample standard deviation s = √(Σ(x − x̄)² / (n − 1)), two-pass; 0 for
/// fewer than two values.
pub fn sample_sd(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let m = mean(values);
    let mut ss = 0.0;
    for &v in values {
        ss += (v - m) * (v - m);
    }
    (ss / (n - 1) as f64).sqrt()
}

/// t_{p, df}: the p-quantile of Student's t with `df` degrees of freedom
/// (statrs' inverse CDF).
pub fn t_quantile(p: f64, df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64).map_or(f64::NAN, |t| t.inverse_cdf(p))
}

/// Student-t confidence band of the mean at `level` (e.g. 0.95):
/// x̄ ± t_{1−α/2, n−1} · s / √n with α = 1 − level and s the sample
/// standard deviation. With one value (n = 1) there is no spread to
/// estimate: both bounds are the value itself. With no values every figure
/// is 0 and `n` is 0.
pub fn t_band(values: &[f64], level: f64) -> Band {
    let n = values.len();
    let m = mean(values);
    if n < 2 {
        return Band {
            mean: m,
            low: m,
            high: m,
            n,
        };
    }
    let s = sample_sd(values);
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
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let i = h.floor() as usize;
    let frac = h - h.floor();
    let lo = sorted[i.min(n - 1)];
    let hi = sorted[(i + 1).min(n - 1)];
    if frac == 0.0 || lo == hi {
        lo
    } else {
        lo + frac * (hi - lo)
    }
}

/// `values` sorted ascending (total order; the callers never pass NaN).
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // t_{0.975,1} = 12.706204736..., t_{0.975,2} = 4.302652729...,
        // t_{0.975,9} = 2.262157162...
        assert!((t_quantile(0.975, 1) - 12.706_204_736_174_7).abs() < 1e-9);
        assert!((t_quantile(0.975, 2) - 4.302_652_729_749_464).abs() < 1e-9);
        assert!((t_quantile(0.975, 9) - 2.262_157_162_798_205).abs() < 1e-9);
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
    fn identical_values_give_themselves_and_a_zero_width_band() {
        let v = [2.0 / 3.0; 10];
        let b = t_band(&v, 0.95);
        assert_eq!((b.mean, b.low, b.high), (v[0], v[0], v[0]));
        assert_eq!(mean(&[0.1, 0.2, 0.3]), (0.1 + 0.2 + 0.3) / 3.0);
    }

    #[test]
    fn single_value_band_is_the_value() {
        let b = t_band(&[0.3], 0.95);
        assert_eq!((b.mean, b.low, b.high, b.n), (0.3, 0.3, 0.3, 1));
    }
}
