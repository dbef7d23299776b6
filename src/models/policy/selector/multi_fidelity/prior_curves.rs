//! The prior users' learning curves summarised per (model, rung): what the
//! multi-fidelity selectors' proposals carry for `greedy` (DESIGN §12.3).
//!
//! For a tenant i with best accuracy so far best_i, a proposal of model k at
//! rung j, continuing from rung j′ (the highest rung whose level of (i, k) is
//! at or below the tenant's highest completed level of k, `None` if none):
//!
//! - gain = (1/P_k) Σ_{p ∈ prior, k available to p} max(0, a_p(k, j) − best_i),
//!   where a_p(k, j) is the accuracy of p's curve of k at p's level of rung j
//!   (the same snapping as the tenant's, [`super::rungs::rung_level`]) and
//!   P_k the number of prior users that have k;
//! - believed_seconds = (1/P_k) Σ_p c_p(k, j′ → j) / 10⁶, with c_p the
//!   trace's cost of that job for p (`Trace::cost_us(p, k, from, to)`
//!   from p's level of rung j′ to p's level of rung j; 0 when they snap to
//!   the same level), at least 1 µs;
//! - believed_cost = believed_seconds / the tenant's mean, over its
//!   available models with prior data, of the prior mean full cost of the
//!   top rung from scratch (so `score = per-relative-cost` measures each
//!   tenant against its own models).
//!
//! With no prior user that has k the proposal is neutral: gain
//! = max(0, 1 − best_i) (nothing is known, the accuracy may reach 1),
//! believed_seconds = believed_cost = 1.
//!
//! The gain is read in O(log P_k): each (k, j) keeps its prior accuracies
//! sorted with suffix sums, so Σ max(0, a − b) = (Σ_{a > b} a) − b·#{a > b}.

use crate::models::trace::Trace;

use super::rungs::rung_level;

/// The prior users' curves of one repetition, per (model, rung).
#[derive(Debug, Clone)]
pub struct PriorCurves {
    n_rungs: usize,
    /// Per model: the range of `acc` / `suffix` of each rung, `[start, end)`
    /// for rung j at `spans[k * n_rungs + j]`.
    spans: Vec<(u32, u32)>,
    /// Prior accuracies, ascending within a (model, rung).
    acc: Vec<f64>,
    /// `suffix[x]` = Σ acc[x..end) of its (model, rung).
    suffix: Vec<f64>,
    /// Mean cost in seconds, at `(k * n_rungs + to) * (n_rungs + 1) + from + 1`
    /// (`from` = −1 for none).
    cost_s: Vec<f64>,
}

impl PriorCurves {
    /// The summaries of the curves of `prior` users on the rungs `nominal`.
    pub fn new(trace: &Trace, nominal: &[f64], prior: &[usize]) -> Self {
        let n_rungs = nominal.len();
        let k_all = trace.n_models();
        let mut spans = Vec::with_capacity(k_all * n_rungs);
        let mut acc = Vec::new();
        let mut suffix = Vec::new();
        let mut cost_s = vec![0.0; k_all * n_rungs * (n_rungs + 1)];
        let mut users: Vec<usize> = Vec::with_capacity(prior.len());
        let mut levels: Vec<usize> = Vec::with_capacity(n_rungs);
        for k in 0..k_all {
            users.clear();
            users.extend(prior.iter().copied().filter(|&p| trace.is_available(p, k)));
            for j in 0..n_rungs {
                let start = acc.len();
                for &p in &users {
                    let l = level(trace, nominal, p, k, j);
                    acc.push(trace.level_accuracy(p, k, l));
                }
                acc[start..].sort_by(f64::total_cmp);
                let mut s = 0.0;
                suffix.resize(acc.len(), 0.0);
                for x in (start..acc.len()).rev() {
                    s += acc[x];
                    suffix[x] = s;
                }
                spans.push((start as u32, acc.len() as u32));
            }
            if users.is_empty() {
                continue;
            }
            let n = users.len() as f64;
            for &p in &users {
                levels.clear();
                levels.extend((0..n_rungs).map(|j| level(trace, nominal, p, k, j)));
                for to in 0..n_rungs {
                    for from in 0..=to {
                        // from = 0 is "none"; from = f + 1 is rung f.
                        let c = if from == 0 {
                            trace.cost_us(p, k, None, levels[to])
                        } else if levels[from - 1] < levels[to] {
                            trace.cost_us(p, k, Some(levels[from - 1]), levels[to])
                        } else {
                            0
                        };
                        cost_s[(k * n_rungs + to) * (n_rungs + 1) + from] += c as f64 / 1e6 / n;
                    }
                }
            }
        }
        Self {
            n_rungs,
            spans,
            acc,
            suffix,
            cost_s,
        }
    }

    /// The number of prior users that have model `k`.
    pub fn users_of(&self, k: usize) -> usize {
        let (a, b) = self.spans[k * self.n_rungs];
        (b - a) as usize
    }

    /// gain = mean over the prior users of k of max(0, a_p(k, rung) − best);
    /// `None` when no prior user has k.
    pub fn gain(&self, k: usize, rung: usize, best: f64) -> Option<f64> {
        let (a, b) = self.spans[k * self.n_rungs + rung];
        let (a, b) = (a as usize, b as usize);
        if a == b {
            return None;
        }
        let first_above = a + self.acc[a..b].partition_point(|&x| x <= best);
        let above = (b - first_above) as f64;
        let sum = if first_above < b {
            self.suffix[first_above]
        } else {
            0.0
        };
        Some(((sum - best * above) / (b - a) as f64).max(0.0))
    }

    /// The prior users' mean cost in seconds of training k at `to`,
    /// continuing from rung `from`; `None` when no prior user has k.
    pub fn seconds(&self, k: usize, to: usize, from: Option<usize>) -> Option<f64> {
        if self.users_of(k) == 0 {
            return None;
        }
        let f = from.map_or(0, |f| f.min(to) + 1);
        Some(self.cost_s[(k * self.n_rungs + to) * (self.n_rungs + 1) + f])
    }
}

/// Prior user p's level of rung `j` of model k.
fn level(trace: &Trace, nominal: &[f64], p: usize, k: usize, j: usize) -> usize {
    rung_level(nominal, j, trace.n_levels(p, k), |f| {
        trace.level_at_least(p, k, f)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::trace::{CostMode, parse_trace};

    /// Prior users p (fidelities 1, 2, 4) and q (1, 4 only: its rungs 1 and
    /// 2 snap to the same level) of m0; m1 only the tenant t has.
    const CSV: &str = "user,model,fidelity,accuracy,runtime_s\n\
        p,m0,1,0.6,1\np,m0,2,0.7,1\np,m0,4,0.8,1\n\
        q,m0,1,0.2,3\nq,m0,4,0.4,5\n\
        t,m0,1,0.5,1\nt,m0,4,0.5,1\nt,m1,1,0.5,1\n";

    fn curves(cost: CostMode, restore_us: u64) -> PriorCurves {
        let mut t = parse_trace("c.csv", CSV.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        t.set_cost_mode(cost, restore_us);
        // η = 2 from 1 to 4: rungs 1, 2, 4.
        PriorCurves::new(&t, &[1.0, 2.0, 4.0], &[0, 1])
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-12)
    }

    #[test]
    fn gain_is_the_mean_positive_improvement_over_best() {
        let c = curves(CostMode::FromScratch, 0);
        // Rung 1: p at f = 2 (0.7), q at f = 4 (0.4). best 0.5: (0.2 + 0)/2.
        assert!(close(c.gain(0, 1, 0.5), 0.1));
        // Rung 0: 0.6 and 0.2 over best 0.1: (0.5 + 0.1)/2.
        assert!(close(c.gain(0, 0, 0.1), 0.3));
        // Nobody beats 0.9.
        assert!(close(c.gain(0, 2, 0.9), 0.0));
        // A model no prior user has: no belief.
        assert_eq!((c.gain(1, 0, 0.0), c.seconds(1, 0, None)), (None, None));
        assert_eq!((c.users_of(0), c.users_of(1)), (2, 0));
    }

    #[test]
    fn believed_seconds_are_the_prior_mean_cost_of_that_job() {
        let c = curves(CostMode::FromScratch, 0);
        // Top rung from scratch: p 1 s, q 5 s.
        assert!(close(c.seconds(0, 2, None), 3.0));
        let c = curves(CostMode::Incremental, 500_000);
        // No checkpoint, top: p 1 + 1 + 1, q 3 + 5 → 5.5.
        assert!(close(c.seconds(0, 2, None), 5.5));
        // Rung 1 → 2: p 1 + 0.5 restore; q's rungs 1 and 2 are one level:
        // nothing to run, 0 → 0.75.
        assert!(close(c.seconds(0, 2, Some(1)), 0.75));
        // Rung 0 → 1: p 1 + 0.5, q 5 + 0.5 → 3.5.
        assert!(close(c.seconds(0, 1, Some(0)), 3.5));
    }
}
