//! Acquisition functions (DESIGN §3.5) and the tie-breaking argmax.
//!
//! All functions are pure scalar arithmetic: no allocation, no panics.
//! Accuracy is maximised, so "improvement" means a higher value.

use std::f64::consts::PI;

use statrs::function::erf::erfc;

/// GP-UCB exploration weight β_t = 2 ln(K_i t² π² / (6δ)), for a tenant
/// with `k_i` = K_i available models at step `t` = (completed jobs) + 1 and
/// confidence `delta` = δ (default 0.1, DESIGN §3.4).
///
/// Source: Srinivas, Krause, Kakade, Seeger, "Gaussian Process Optimization
/// in the Bandit Setting: No Regret and Experimental Design", ICML 2010
/// (Theorem 1, finite decision set), as used by ease.ml (Li et al., PVLDB
/// 2018).
///
/// For K_i ≥ 1, t ≥ 1 and δ ∈ (0, 1), β_t ≥ 2 ln(π²/6) > 0.99. Outside that
/// domain the formula's value is returned as is (it can be ≤ 0, −∞ or NaN);
/// callers validate δ.
pub fn beta(k_i: usize, t: usize, delta: f64) -> f64 {
    let t = t as f64;
    2.0 * (k_i as f64 * t * t * PI * PI / (6.0 * delta)).ln()
}

/// Upper confidence bound UCB = μ + √β σ (Srinivas et al. 2010), with
/// posterior mean `mu`, posterior standard deviation `sigma` and
/// `beta` = β_t from [`beta`].
pub fn ucb(mu: f64, sigma: f64, beta: f64) -> f64 {
    mu + beta.sqrt() * sigma
}

/// Cost-aware upper confidence bound UCB_c = μ + √(β / ĉ) σ, where `cost`
/// = ĉ is the believed relative cost of the model (> 0; 1 = average cost),
/// so cheaper models get a wider bonus.
///
/// Source: Li, Zhong, Liu, Wang, Zhang, "Ease.ml: Towards Multi-tenant
/// Resource Sharing for Machine Learning Workloads", PVLDB 11(5), 2018
/// (arXiv 1708.07308), the cost-aware GP-UCB of its multi-tenant setting.
pub fn ucb_cost(mu: f64, sigma: f64, beta: f64, cost: f64) -> f64 {
    mu + (beta / cost).sqrt() * sigma
}

/// Expected improvement over the incumbent `best` with margin `xi` = ξ, in
/// closed form for a Gaussian posterior N(μ, σ²):
///
/// EI = (μ − best − ξ) Φ(z) + σ φ(z), z = (μ − best − ξ) / σ, and for
/// σ ≤ 0, EI = max(μ − best − ξ, 0);
///
/// Φ(z) = ½ erfc(−z/√2) (statrs `erfc`), φ(z) = exp(−z²/2) / √(2π).
/// statrs 0.19's `erfc` is accurate to about 1e-10 relative (truncated
/// interval constants, fixed upstream in statrs-dev/statrs PR #412), so EI
/// carries that error too.
///
/// Source: Jones, Schonlau, Welch, "Efficient Global Optimization of
/// Expensive Black-Box Functions", J. Global Optimization 13, 1998 (eq. 15,
/// written for maximisation).
pub fn expected_improvement(mu: f64, sigma: f64, best: f64, xi: f64) -> f64 {
    let improvement = mu - best - xi;
    if sigma <= 0.0 {
        return improvement.max(0.0);
    }
    let z = improvement / sigma;
    let cdf = 0.5 * erfc(-z / std::f64::consts::SQRT_2);
    let pdf = (-0.5 * z * z).exp() / (2.0 * PI).sqrt();
    improvement * cdf + sigma * pdf
}

/// The local index with the highest `score(i)` among `0..excluded.len()`
/// where `excluded[i]` is false (e.g. models completed or running), with
/// that score; `None` if every index is excluded.
///
/// Ties are broken by the lowest index (DESIGN §1). A NaN score ranks below
/// every number, −∞ included; among NaN scores the lowest index wins. No
/// allocation; `score` is called once per candidate, in index order.
pub fn argmax_by(excluded: &[bool], mut score: impl FnMut(usize) -> f64) -> Option<(usize, f64)> {
    let candidates = excluded
        .iter()
        .enumerate()
        .map(|(i, &e)| (!e).then(|| (score(i), ())));
    argmax_of(candidates).map(|(i, v, ())| (i, v))
}

/// [`argmax_by`] over candidates given in index order: item `i` is
/// `None` for an excluded index, else its score and a payload the caller
/// wants back for the winner (e.g. the μ and σ the score was made of).
/// The highest score wins, ties by the lowest index, a NaN score ranks
/// below every number (the rule of [`argmax_by`], which is this function
/// over its mask). Lets a caller walk its data in one pass (the GP
/// selectors read a posterior's diagonal in order, DESIGN §3.5) instead of
/// looking every index up.
#[inline]
pub fn argmax_of<P>(candidates: impl Iterator<Item = Option<(f64, P)>>) -> Option<(usize, f64, P)> {
    let mut best: Option<(usize, f64, P)> = None;
    for (i, c) in candidates.enumerate() {
        let Some((v, payload)) = c else {
            continue;
        };
        let better = match &best {
            None => true,
            Some((_, b, _)) => v > *b || (b.is_nan() && !v.is_nan()),
        };
        if better {
            best = Some((i, v, payload));
        }
    }
    best
}

/// [`argmax_by`] over a slice of scores: the lowest index of the highest
/// `values[i]` with `excluded[i]` false.
///
/// # Panics
/// If the two slices differ in length.
pub fn argmax(values: &[f64], excluded: &[bool]) -> Option<usize> {
    assert_eq!(
        values.len(),
        excluded.len(),
        "argmax: values and excluded mask differ in length"
    );
    argmax_by(excluded, |i| values[i]).map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    #[test]
    fn beta_by_hand() {
        // K=1, t=1, δ=0.1: π²/0.6 = 9.8696044011/0.6 = 16.4493406685;
        // ln = 2.8002853955; β = 5.6005707909
        assert!(close(beta(1, 1, 0.1), 5.600_570_790_929_582));
        // K=5, t=3, δ=0.1: 5·9·π²/0.6 = 45·16.4493406685 = 740.2203300817;
        // ln = 6.6069478852; β = 13.2138957705
        assert!(close(beta(5, 3, 0.1), 13.213_895_770_470_222));
        // t=2 multiplies the argument by 4: β grows by 2 ln 4.
        assert!(close(beta(5, 2, 0.1) - beta(5, 1, 0.1), 2.0 * 4f64.ln()));
    }

    #[test]
    fn ucb_by_hand() {
        // 0.5 + √4 · 0.2 = 0.5 + 0.4 = 0.9
        assert!(close(ucb(0.5, 0.2, 4.0), 0.9));
        // σ = 0: the mean itself
        assert!(close(ucb(0.5, 0.0, 4.0), 0.5));
    }

    #[test]
    fn ucb_cost_by_hand() {
        // ĉ = 0.25: 0.5 + √(4/0.25)·0.2 = 0.5 + 4·0.2 = 1.3
        assert!(close(ucb_cost(0.5, 0.2, 4.0, 0.25), 1.3));
        // ĉ = 4: 0.5 + √(4/4)·0.2 = 0.7
        assert!(close(ucb_cost(0.5, 0.2, 4.0, 4.0), 0.7));
        // ĉ = 1 is plain UCB
        assert!(close(ucb_cost(0.5, 0.2, 4.0, 1.0), ucb(0.5, 0.2, 4.0)));
    }

    #[test]
    fn expected_improvement_by_hand() {
        // statrs 0.19 `erfc` is good to ~1e-10 relative (see the doc comment).
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-10;
        // μ=0.7, σ=0.1, best=0.6, ξ=0: z = 0.1/0.1 = 1;
        // Φ(1) = 0.8413447461, φ(1) = 0.2419707245;
        // EI = 0.1·0.8413447461 + 0.1·0.2419707245 = 0.1083315471
        assert!(close(
            expected_improvement(0.7, 0.1, 0.6, 0.0),
            0.108_331_547_058_768_64
        ));
        // μ = best: z = 0, EI = σ φ(0) = 0.1 / √(2π) = 0.0398942280
        assert!(close(
            expected_improvement(0.6, 0.1, 0.6, 0.0),
            0.039_894_228_040_143_274
        ));
        // μ=0.5, σ=0.2, best=0.6, ξ=0.05: μ−best−ξ = −0.15, z = −0.75;
        // Φ(−0.75) = 0.2266273524, φ(−0.75) = 0.3011374322;
        // EI = −0.15·0.2266273524 + 0.2·0.3011374322 = 0.0262333836
        assert!(close(
            expected_improvement(0.5, 0.2, 0.6, 0.05),
            0.026_233_383_574_430_648
        ));
        // σ = 0: max(μ − best − ξ, 0): 0.7−0.6−0.05 = 0.05; 0.5−0.6 < 0 → 0
        assert!(close(expected_improvement(0.7, 0.0, 0.6, 0.05), 0.05));
        assert_eq!(expected_improvement(0.5, 0.0, 0.6, 0.0), 0.0);
    }

    #[test]
    fn argmax_breaks_ties_by_lowest_index_and_skips_excluded() {
        let v = [0.5, 0.9, 0.9, 0.1, 0.9];
        let none = [false; 5];
        assert_eq!(argmax(&v, &none), Some(1));
        assert_eq!(argmax(&v, &[false, true, false, false, false]), Some(2));
        assert_eq!(argmax(&v, &[false, true, true, false, false]), Some(4));
        assert_eq!(argmax(&v, &[false, true, true, false, true]), Some(0));
        assert_eq!(argmax(&v, &[true; 5]), None);
        assert_eq!(argmax(&[], &[]), None);
        // All equal: index 0, or the first non-excluded one.
        assert_eq!(argmax(&[0.3; 4], &[false; 4]), Some(0));
        assert_eq!(argmax(&[0.3; 4], &[true, true, false, false]), Some(2));
        // Equal infinities tie too.
        assert_eq!(
            argmax(
                &[f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY],
                &[false; 3]
            ),
            Some(1)
        );
        // argmax_by returns the winning score.
        assert_eq!(argmax_by(&none, |i| v[i]), Some((1, 0.9)));
    }

    #[test]
    fn argmax_of_is_argmax_by_with_payloads() {
        // Independent check: argmax_of over (score, payload) gives the
        // index and score argmax_by gives for the same mask, and the
        // payload of that index.
        let nan = f64::NAN;
        let v = [0.5, nan, 0.9, 0.9, f64::NEG_INFINITY, 0.2];
        for mask in 0u32..64 {
            let excluded: Vec<bool> = (0..6).map(|b| mask & (1 << b) != 0).collect();
            let by = argmax_by(&excluded, |i| v[i]);
            let of = argmax_of(
                excluded
                    .iter()
                    .enumerate()
                    .map(|(i, &e)| (!e).then_some((v[i], 10 * i))),
            );
            assert_eq!(
                by.map(|(i, x)| (i, x.to_bits())),
                of.map(|(i, x, _)| (i, x.to_bits()))
            );
            if let Some((i, _, p)) = of {
                assert_eq!(p, 10 * i);
            }
        }
        assert_eq!(argmax_of::<()>(std::iter::empty()), None);
        assert_eq!(
            argmax_of([None, Some((nan, 'a')), None].into_iter()).map(|(i, _, p)| (i, p)),
            Some((1, 'a'))
        );
    }

    #[test]
    fn argmax_ranks_nan_lowest() {
        let nan = f64::NAN;
        assert_eq!(argmax(&[nan, f64::NEG_INFINITY, nan], &[false; 3]), Some(1));
        assert_eq!(argmax(&[nan, 0.2, 0.2], &[false; 3]), Some(1));
        assert_eq!(argmax(&[nan, nan], &[false; 2]), Some(0));
        assert_eq!(argmax(&[nan, nan], &[true, false]), Some(1));
    }
}
