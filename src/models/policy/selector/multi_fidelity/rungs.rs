//! Rung arithmetic of the multi-fidelity selectors (`successive-halving`,
//! `hyperband`, `asha`; DESIGN §12.3).
//!
//! With r₀ = `min_fidelity`, R = the trace's largest fidelity and η = `eta`:
//!
//! - s_max = ⌊log_η(R / r₀)⌋, computed exactly: the largest s with
//!   r₀·η^s ≤ R (relative tolerance 1e-9, so R = r₀·η^s is not lost to
//!   rounding);
//! - the *nominal* rungs are r_j = r₀·η^j for j = 0..=s_max, followed by R
//!   itself when r₀·η^s_max < R; so the last rung is always R;
//! - a pair (u, k) trains rung j at its level `level_at_least(u, k, r_j)`
//!   (the smallest of its fidelities ≥ r_j, its top level when none), and
//!   the last rung at its top level whatever its fidelities;
//! - duplicates after snapping collapse: when a model's level at rung j+1
//!   equals its level at rung j (or one it already trained), reaching rung
//!   j+1 takes that result over with no new job (a (tenant, model,
//!   fidelity) triple runs at most once).
//!
//! These functions are plain arithmetic on numbers and slices, so they are
//! tested here on hand examples; the selectors call them with the trace.

/// Relative tolerance of "r₀·η^s ≤ R".
const TOLERANCE: f64 = 1e-9;

/// s_max = ⌊log_η(R / r₀)⌋: the largest s ≥ 0 with r₀·η^s ≤ R (0 when
/// r₀ ≥ R). `r0 > 0`, `eta ≥ 2`.
pub fn s_max(r0: f64, max_fidelity: f64, eta: u32) -> usize {
    let mut s = 0;
    let mut r = r0;
    loop {
        let next = r * f64::from(eta);
        if !next.is_finite() || next > max_fidelity * (1.0 + TOLERANCE) {
            return s;
        }
        r = next;
        s += 1;
    }
}

/// The nominal rung fidelities r₀·η^j, j = 0..=s_max, then R when the last
/// of them is below R (see the module documentation).
pub fn nominal_rungs(r0: f64, max_fidelity: f64, eta: u32) -> Vec<f64> {
    let s = s_max(r0, max_fidelity, eta);
    let mut rungs = Vec::with_capacity(s + 2);
    let mut r = r0;
    for _ in 0..=s {
        rungs.push(r);
        r *= f64::from(eta);
    }
    let last = rungs[rungs.len() - 1];
    if last < max_fidelity * (1.0 - TOLERANCE) {
        rungs.push(max_fidelity);
    }
    rungs
}

/// The level a pair with `n_levels` levels trains at rung `rung` of
/// `nominal`: its top level at the last rung, else `level_at_least(r_rung)`.
pub fn rung_level(
    nominal: &[f64],
    rung: usize,
    n_levels: usize,
    level_at_least: impl Fn(f64) -> usize,
) -> usize {
    let top = n_levels.saturating_sub(1);
    if rung + 1 >= nominal.len() {
        top
    } else {
        level_at_least(nominal[rung]).min(top)
    }
}

/// ⌈n / η⌉: how many of a completed synchronous rung of n models are
/// promoted (successive halving keeps at least one).
pub fn promoted_count(n: usize, eta: u32) -> usize {
    n.div_ceil(eta as usize)
}

/// n_s = ⌈(s_max + 1)/(s + 1) · η^s⌉, the number of models bracket s of
/// Hyperband starts with (Li et al., JMLR 2018, Algorithm 1), in integer
/// arithmetic (saturating).
pub fn bracket_size(s_max: usize, s: usize, eta: u32) -> usize {
    let mut pow: u128 = 1;
    for _ in 0..s {
        pow = pow.saturating_mul(u128::from(eta));
    }
    let num = (s_max as u128 + 1).saturating_mul(pow);
    usize::try_from(num.div_ceil(s as u128 + 1)).unwrap_or(usize::MAX)
}

/// "Best first, ties to the lowest model index": the order of rung results.
pub fn better(a: (usize, f64), b: (usize, f64)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// Insert `(model, accuracy)` into `sorted` (kept best first, ties lowest
/// model index) without allocating when its capacity suffices.
pub fn insert_sorted(sorted: &mut Vec<(usize, f64)>, entry: (usize, f64)) {
    let at = sorted.partition_point(|&e| better(e, entry).is_lt());
    sorted.insert(at, entry);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Level of the first fidelity ≥ f in `fids`, the top when none.
    fn snap(fids: &[f64]) -> impl Fn(f64) -> usize + '_ {
        move |f| fids.iter().position(|&x| x >= f).unwrap_or(fids.len() - 1)
    }

    #[test]
    fn s_max_is_the_floor_of_the_log() {
        // log_3(81/1) = 4 exactly; log_3(80) = 3.99.
        assert_eq!(s_max(1.0, 81.0, 3), 4);
        assert_eq!(s_max(1.0, 80.0, 3), 3);
        assert_eq!(s_max(16.0, 16.0, 2), 0);
        assert_eq!(s_max(20.0, 16.0, 2), 0);
        // 0.1·3² = 0.9000000000000001 > 0.9 in floats: the tolerance keeps it.
        assert_eq!(s_max(0.1, 0.9, 3), 2);
    }

    #[test]
    fn nominal_rungs_end_at_the_largest_fidelity() {
        assert_eq!(nominal_rungs(1.0, 9.0, 3), vec![1.0, 3.0, 9.0]);
        assert_eq!(nominal_rungs(1.0, 10.0, 3), vec![1.0, 3.0, 9.0, 10.0]);
        assert_eq!(nominal_rungs(5.0, 5.0, 3), vec![5.0]);
        assert_eq!(nominal_rungs(16.0, 100.0, 2), vec![16.0, 32.0, 64.0, 100.0]);
    }

    #[test]
    fn rungs_snap_to_the_next_fidelity_and_the_last_is_the_top() {
        // A pair with fidelities 16, 50, 100, 400 on rungs 16, 48, 144, 432
        // (η = 3, R = 432): 16 → 0, 48 → 50 (1), 144 → 400 (3), last → 3.
        let fids = [16.0, 50.0, 100.0, 400.0];
        let nominal = nominal_rungs(16.0, 432.0, 3);
        assert_eq!(nominal, vec![16.0, 48.0, 144.0, 432.0]);
        let levels: Vec<usize> = (0..nominal.len())
            .map(|j| rung_level(&nominal, j, fids.len(), snap(&fids)))
            .collect();
        assert_eq!(levels, vec![0, 1, 3, 3]);
        // A pair whose fidelities stop below R still ends at its top level.
        let short = [16.0, 30.0];
        let levels: Vec<usize> = (0..nominal.len())
            .map(|j| rung_level(&nominal, j, short.len(), snap(&short)))
            .collect();
        assert_eq!(levels, vec![0, 1, 1, 1]);
        // A one-level pair (a plain trace) trains every rung at level 0.
        assert_eq!(rung_level(&nominal, 0, 1, |_| 0), 0);
    }

    #[test]
    fn promotions_keep_the_ceiling_of_n_over_eta() {
        assert_eq!(promoted_count(3, 3), 1);
        assert_eq!(promoted_count(4, 3), 2);
        assert_eq!(promoted_count(1, 3), 1);
        assert_eq!(promoted_count(9, 3), 3);
        assert_eq!(promoted_count(5, 2), 3);
    }

    #[test]
    fn hyperband_bracket_sizes_follow_li_et_al() {
        // Li et al. 2018, Table 1 (R = 81, η = 3, s_max = 4): n = 81, 34,
        // 15, 8, 5 for s = 4..0.
        let n: Vec<usize> = (0..=4).rev().map(|s| bracket_size(4, s, 3)).collect();
        assert_eq!(n, vec![81, 34, 15, 8, 5]);
        // s_max = 2, η = 3: s = 2 → ⌈3/3·9⌉ = 9, s = 1 → ⌈3/2·3⌉ = 5,
        // s = 0 → 3.
        let n: Vec<usize> = (0..=2).rev().map(|s| bracket_size(2, s, 3)).collect();
        assert_eq!(n, vec![9, 5, 3]);
    }

    #[test]
    fn rung_results_sort_best_first_ties_to_the_lowest_model() {
        let mut v = Vec::with_capacity(4);
        for e in [(2, 0.5), (0, 0.7), (3, 0.7), (1, 0.5)] {
            insert_sorted(&mut v, e);
        }
        assert_eq!(v, vec![(0, 0.7), (3, 0.7), (1, 0.5), (2, 0.5)]);
    }
}
