//! The "up to" speedup: the largest T_B(θ) / T_X(θ) over a dense range of
//! θ, reported with the θ where it occurs (DESIGN §6.6).
//!
//! Papers quote "up to N× faster"; that figure is the maximum of a ratio of
//! two step functions of θ and moves a lot with small changes of the data,
//! so it never travels without its θ, and the fixed-θ speedups stay the
//! primary result.

use super::ratio::{Ratio, time_ratio};
use crate::models::trace::Micros;

/// Default number of θ values in the dense range.
pub const DEFAULT_POINTS: usize = 200;

/// `points` values of θ from `low` to `high` (both included, `low` ≤
/// `high`, both > 0), evenly spaced in log θ:
///
/// θ_k = low · (high / low)^(k / (points − 1)),  k = 0, …, points − 1,
///
/// with θ_0 = low and θ_{points−1} = high exactly. One point gives `[low]`;
/// `low == high` gives `points` copies of it.
pub fn dense_thetas(low: f64, high: f64, points: usize) -> Vec<f64> {
    match points {
        0 => Vec::new(),
        1 => vec![low],
        n => {
            let ratio = high / low;
            (0..n)
                .map(|k| {
                    if k == 0 {
                        low
                    } else if k == n - 1 {
                        high
                    } else {
                        low * ratio.powf(k as f64 / (n - 1) as f64)
                    }
                })
                .collect()
        }
    }
}

/// The largest finite speedup over the θ grid and the θ where it occurs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UpTo {
    /// max over θ of T_B(θ) / T_X(θ), among the finite ratios.
    pub speedup: f64,
    /// The θ of the grid where it occurs (the smallest such θ on a tie).
    pub theta: f64,
}

/// The "up to" speedup of a policy over the baseline given T(θ) of both on
/// the grid `thetas` (ascending), as [`time_ratio`] defines each ratio:
/// only finite ratios count (both reach θ, and the policy not at τ = 0
/// unless the baseline is too), so an `inf` at a θ the baseline never
/// reaches does not become the headline. `None` if no θ has a finite ratio.
///
/// # Panics
/// If the three slices differ in length.
pub fn up_to_speedup(
    thetas: &[f64],
    baseline: &[Option<Micros>],
    policy: &[Option<Micros>],
) -> Option<UpTo> {
    assert!(
        thetas.len() == baseline.len() && thetas.len() == policy.len(),
        "up_to_speedup: slices differ in length"
    );
    let mut best: Option<UpTo> = None;
    for ((&theta, &b), &x) in thetas.iter().zip(baseline).zip(policy) {
        if let Ratio::Finite(s) = time_ratio(b, x)
            && best.is_none_or(|u| s > u.speedup)
        {
            best = Some(UpTo { speedup: s, theta });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_thetas_are_log_spaced_with_exact_ends() {
        // 0.01 → 1 in 3 points: 0.01, 0.1, 1 (the middle is 0.01 · 100^½).
        let t = dense_thetas(0.01, 1.0, 3);
        assert_eq!(t[0], 0.01);
        assert_eq!(t[2], 1.0);
        assert!((t[1] - 0.1).abs() < 1e-15);
        assert_eq!(dense_thetas(0.2, 0.2, 2), vec![0.2, 0.2]);
        assert_eq!(dense_thetas(0.3, 0.5, 1), vec![0.3]);
        assert!(dense_thetas(0.3, 0.5, 0).is_empty());
        let many = dense_thetas(0.001, 0.5, DEFAULT_POINTS);
        assert!(many.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn up_to_by_hand() {
        // θ:          0.01   0.02   0.05   0.1
        // T_B (s):    ∞      400    100    10
        // T_X (s):    900    40     50     0
        // ratio:      0      10     2      inf (policy at τ = 0)
        // → the finite maximum is 10 at θ = 0.02; inf does not count.
        let s = 1_000_000;
        let thetas = [0.01, 0.02, 0.05, 0.1];
        let b = [None, Some(400 * s), Some(100 * s), Some(10 * s)];
        let x = [Some(900 * s), Some(40 * s), Some(50 * s), Some(0)];
        assert_eq!(
            up_to_speedup(&thetas, &b, &x),
            Some(UpTo {
                speedup: 10.0,
                theta: 0.02
            })
        );
        // A tie keeps the smallest θ; no finite ratio gives None.
        let b2 = [Some(20 * s), Some(20 * s), None, None];
        let x2 = [Some(10 * s), Some(10 * s), None, None];
        assert_eq!(
            up_to_speedup(&thetas, &b2, &x2).map(|u| u.theta),
            Some(0.01)
        );
        assert_eq!(up_to_speedup(&thetas, &[None; 4], &x), None);
    }
}
