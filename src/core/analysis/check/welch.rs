//! The formulas behind `check --stat` and `compare`: Welch's two-sample t
//! test and interval, the paired t test, the Holm–Bonferroni step-down
//! correction and Hedges' g. Each is written out next to its code and tested against a
//! hand computation below.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean and unbiased variance (divisor n − 1) of `x`; variance 0 for n < 2.
pub fn mean_var(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    if x.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let m = x.iter().sum::<f64>() / n;
    if x.len() < 2 {
        return (m, 0.0);
    }
    let ss: f64 = x.iter().map(|v| (v - m) * (v - m)).sum();
    (m, ss / (n - 1.0))
}

/// Welch's t statistic for mean(b) − mean(a), its Welch–Satterthwaite
/// degrees of freedom and the two-sided p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    /// mean(b) − mean(a).
    pub diff: f64,
    /// Standard error √(s²a/na + s²b/nb).
    pub se: f64,
    /// t = diff / se (±inf when se = 0 and diff ≠ 0, 0 when both are 0).
    pub t: f64,
    /// ν = (s²a/na + s²b/nb)² / ((s²a/na)²/(na−1) + (s²b/nb)²/(nb−1)).
    pub df: f64,
    /// p = 2·(1 − F_ν(|t|)), F_ν the Student-t CDF; 1 when diff = se = 0,
    /// 0 when se = 0 and diff ≠ 0 (two constant samples that differ).
    pub p: f64,
}

/// Welch's test of `a` against `b` (each at least 2 values).
pub fn welch(a: &[f64], b: &[f64]) -> Welch {
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (qa, qb) = (va / na, vb / nb);
    let se = (qa + qb).sqrt();
    let diff = mb - ma;
    if se == 0.0 {
        let same = diff == 0.0;
        return Welch {
            diff,
            se,
            t: if same {
                0.0
            } else {
                diff.signum() * f64::INFINITY
            },
            df: na + nb - 2.0,
            p: if same { 1.0 } else { 0.0 },
        };
    }
    let df = (qa + qb).powi(2) / (qa * qa / (na - 1.0) + qb * qb / (nb - 1.0));
    let t = diff / se;
    let p = match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => (2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0),
        Err(_) => f64::NAN,
    };
    Welch { diff, se, t, df, p }
}

/// The paired t test of b against a (docs/CI.md "The statistical check"):
/// repetition r of both sides share their random streams, so the sample is
/// the differences dᵣ = bᵣ − aᵣ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    /// d̄ = mean of the differences = mean(b) − mean(a).
    pub diff: f64,
    /// Standard error s_d / √n, s_d the standard deviation of the dᵣ
    /// (divisor n − 1); 0 when the dᵣ are equal (see [`paired`]).
    pub se: f64,
    /// t = d̄ / (s_d / √n) (±inf when se = 0 and d̄ ≠ 0, 0 when both are 0).
    pub t: f64,
    /// ν = n − 1.
    pub df: f64,
    /// p = 2·(1 − F_ν(|t|)), F_ν the Student-t CDF; 1 when every dᵣ is 0,
    /// 0 when se = 0 and d̄ ≠ 0 (a difference that is certain).
    pub p: f64,
}

/// The paired t test of `b` against `a`, matched by position (the same
/// number of values, at least 2): t = d̄ / (s_d / √n) with n − 1 degrees
/// of freedom, two-sided p from Student's t. The differences count as
/// equal (se = 0) when they differ by no more than the rounding of the
/// values they come from: max dᵣ − min dᵣ ≤ 8·ε·maxᵣ max(|aᵣ|, |bᵣ|), ε the
/// f64 machine epsilon (2⁻⁵²). Each dᵣ carries an error of at most about
/// 2·ε·max(|aᵣ|, |bᵣ|) from parsing the two decimals and subtracting, so
/// a column moved by one constant in every repetition is a certain
/// difference (p = 0), not a t of 10¹³ computed from rounding noise.
pub fn paired(a: &[f64], b: &[f64]) -> Paired {
    let n = a.len().min(b.len());
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let (diff, var) = mean_var(&d);
    let nf = n as f64;
    let df = nf - 1.0;
    let scale = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.abs().max(y.abs()))
        .fold(0.0, f64::max);
    let lo = d.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = d.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi - lo <= 8.0 * f64::EPSILON * scale {
        let none = d.iter().all(|&v| v == 0.0);
        return Paired {
            diff,
            se: 0.0,
            t: if none {
                0.0
            } else {
                diff.signum() * f64::INFINITY
            },
            df,
            p: if none { 1.0 } else { 0.0 },
        };
    }
    let se = (var / nf).sqrt();
    let t = diff / se;
    let p = match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => (2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0),
        Err(_) => f64::NAN,
    };
    Paired { diff, se, t, df, p }
}

/// The Welch interval of mean(b) − mean(a) at `level` (e.g. 0.95):
/// diff ± t_{ν, (1+level)/2} · se. A zero se gives the point [diff, diff].
pub fn welch_interval(a: &[f64], b: &[f64], level: f64) -> (f64, f64) {
    let w = welch(a, b);
    if w.se == 0.0 {
        return (w.diff, w.diff);
    }
    let q = match StudentsT::new(0.0, 1.0, w.df) {
        Ok(dist) => dist.inverse_cdf((1.0 + level) / 2.0),
        Err(_) => f64::NAN,
    };
    (w.diff - q * w.se, w.diff + q * w.se)
}

/// Holm–Bonferroni adjusted p-values, in the order of `p`: with the m
/// p-values sorted ascending p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted
/// p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎). Rejecting where p̃ ≤ α is
/// Holm's step-down procedure; it keeps the family-wise error rate ≤ α
/// under any dependence between the tests. Ties keep their input order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]).then(i.cmp(&j)));
    let mut out = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        let adj = ((m - rank) as f64 * p[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}

/// Hedges' g of b against a: Cohen's d = (mean(b) − mean(a)) / s_p with
/// the pooled s_p = √(((na−1)s²a + (nb−1)s²b)/(na+nb−2)), times the
/// small-sample correction J = 1 − 3/(4(na+nb) − 9). With s_p = 0: 0 when
/// the means are equal, ±inf otherwise.
pub fn hedges_g(a: &[f64], b: &[f64]) -> f64 {
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let sp = (((na - 1.0) * va + (nb - 1.0) * vb) / (na + nb - 2.0)).sqrt();
    let diff = mb - ma;
    if sp == 0.0 {
        return if diff == 0.0 {
            0.0
        } else {
            diff.signum() * f64::INFINITY
        };
    }
    let j = 1.0 - 3.0 / (4.0 * (na + nb) - 9.0);
    j * diff / sp
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Welch's first example on Wikipedia ("Welch's t-test", worked
    /// examples): two samples of 15. The expected t = 2.455356 and
    /// ν = 24.98853 come from an independent Python computation with
    /// `statistics.variance`; p = 0.021378 from numerically integrating the
    /// Student-t density (midpoint rule, 200,000 steps) beyond |t|.
    #[test]
    fn welch_on_a_textbook_example() {
        let a1 = [
            27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
            21.4,
        ];
        let a2 = [
            27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
            24.4,
        ];
        // Σa1 = 312.3, Σa2 = 344.8: means 20.82 and 22.98666…
        let w = welch(&a1, &a2);
        assert!((w.diff - (344.8 - 312.3) / 15.0).abs() < 1e-12);
        // s²a1 = (Σx² − (Σx)²/n)/(n−1) = (6590.01 − 312.3²/15)/14.
        let va1 = (a1.iter().map(|x| x * x).sum::<f64>() - 312.3f64.powi(2) / 15.0) / 14.0;
        let va2 = (a2.iter().map(|x| x * x).sum::<f64>() - 344.8f64.powi(2) / 15.0) / 14.0;
        assert!((w.se - (va1 / 15.0 + va2 / 15.0).sqrt()).abs() < 1e-12);
        assert!((w.t - 2.455356).abs() < 1e-6, "{w:?}");
        assert!((w.df - 24.98853).abs() < 1e-5, "{w:?}");
        assert!((w.p - 0.021378).abs() < 1e-6, "{w:?}");
        // Swapping the samples flips the sign only.
        let v = welch(&a2, &a1);
        assert!((v.t + w.t).abs() < 1e-12 && (v.p - w.p).abs() < 1e-12);
    }

    #[test]
    fn welch_interval_closed_form_and_constant_samples() {
        // a = {1, 2, 3}, b = {4, 6, 8}: s²a = 1, s²b = 4, se = √(1/3 + 4/3)
        // = √(5/3), ν = (5/3)² / ((1/3)²/2 + (4/3)²/2) = (25/9)/(17/18)
        // = 50/17; t_{50/17, 0.975} = 3.21876 (bisection on the numerically
        // integrated Student-t tail, in Python).
        let (lo, hi) = welch_interval(&[1.0, 2.0, 3.0], &[4.0, 6.0, 8.0], 0.95);
        let w = welch(&[1.0, 2.0, 3.0], &[4.0, 6.0, 8.0]);
        assert!((w.df - 50.0 / 17.0).abs() < 1e-12);
        let half = 3.21876 * (5.0f64 / 3.0).sqrt();
        assert!((lo - (4.0 - half)).abs() < 1e-4, "{lo}");
        assert!((hi - (4.0 + half)).abs() < 1e-4, "{hi}");
        let same = welch(&[2.0, 2.0], &[2.0, 2.0, 2.0]);
        assert_eq!((same.t, same.p), (0.0, 1.0));
        let apart = welch(&[2.0, 2.0], &[3.0, 3.0]);
        assert_eq!((apart.t, apart.p), (f64::INFINITY, 0.0));
    }

    /// The paired t test in closed form: with ν = 1 Student's t is the
    /// Cauchy distribution, p = 1 − (2/π)·atan|t|; with ν = 2 its CDF is
    /// ½ + t / (2√(t² + 2)), so p = 1 − |t| / √(t² + 2).
    #[test]
    fn paired_t_against_the_closed_forms_for_two_and_three_pairs() {
        // n = 2: d = {1, 3}, d̄ = 2, s_d = √2, se = √2/√2 = 1, t = 2.
        let w = paired(&[0.0, 5.0], &[1.0, 8.0]);
        assert!(
            (w.diff - 2.0).abs() < 1e-12 && (w.se - 1.0).abs() < 1e-12,
            "{w:?}"
        );
        assert_eq!(w.df, 1.0);
        assert!((w.t - 2.0).abs() < 1e-12, "{w:?}");
        let want = 1.0 - 2.0 / std::f64::consts::PI * 2.0f64.atan();
        assert!((w.p - want).abs() < 1e-9, "{} vs {want}", w.p);
        // n = 3: d = {−1, −2, −3} (b below a), d̄ = −2, s_d = 1,
        // t = −2√3, p = 1 − 2√3/√14.
        let w = paired(&[10.0, 20.0, 30.0], &[9.0, 18.0, 27.0]);
        assert_eq!(w.df, 2.0);
        assert!((w.t + 2.0 * 3.0f64.sqrt()).abs() < 1e-12, "{w:?}");
        let want = 1.0 - 2.0 * 3.0f64.sqrt() / 14.0f64.sqrt();
        assert!((w.p - want).abs() < 1e-9, "{} vs {want}", w.p);
        // Welch on the same values sees the spread between repetitions
        // and cannot tell: the pairing is what finds the shift.
        assert!(welch(&[10.0, 20.0, 30.0], &[9.0, 18.0, 27.0]).p > 0.5);
    }

    #[test]
    fn paired_differences_equal_up_to_rounding_are_certain() {
        // Every value nudged by 1e-9 as decimal text: the differences
        // differ in their last bits only.
        let a = [123.456789, 0.5, 98765.4321, 7.25];
        let b: Vec<f64> = [
            "123.456789001",
            "0.500000001",
            "98765.432100001",
            "7.250000001",
        ]
        .iter()
        .map(|s| s.parse().expect("number"))
        .collect();
        let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| y - x).collect();
        assert!(d.iter().any(|v| *v != d[0]), "the rounding is there: {d:?}");
        let w = paired(&a, &b);
        assert_eq!((w.se, w.t, w.p), (0.0, f64::INFINITY, 0.0), "{w:?}");
        assert!((w.diff - 1e-9).abs() < 1e-10, "{w:?}");
        let same = paired(&a, &a);
        assert_eq!((same.diff, same.t, same.p), (0.0, 0.0, 1.0));
        // A real spread of the differences is tested.
        let w = paired(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.5]);
        assert!(w.se > 0.0 && w.p > 0.0 && w.p < 1.0, "{w:?}");
    }

    #[test]
    fn holm_on_a_hand_list() {
        // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06,
        // 0.04·1 = 0.04 → max(0.06, 0.04) = 0.06.
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        let want = [0.03, 0.06, 0.06, 0.02];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-12, "{adj:?}");
        }
        assert_eq!(holm(&[0.5, 0.9]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn hedges_g_by_hand() {
        // Means 2 and 4, both sd 1 → d = 2; J = 1 − 3/(4·6 − 9) = 0.8.
        let g = hedges_g(&[1.0, 2.0, 3.0], &[3.0, 4.0, 5.0]);
        assert!((g - 1.6).abs() < 1e-12, "{g}");
        assert_eq!(hedges_g(&[1.0, 1.0], &[1.0, 1.0]), 0.0);
        assert_eq!(hedges_g(&[1.0, 1.0], &[0.0, 0.0]), f64::NEG_INFINITY);
    }
}
