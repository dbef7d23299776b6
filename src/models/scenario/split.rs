//! Splitting users into prior users and tenants, per repetition.

use std::sync::Arc;

use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::core::sim::rng::{Purpose, stream};

/// The users of one repetition: prior (history) users and tenants, each as
/// ascending trace user indices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    /// Prior users (only used to build GP priors).
    pub prior: Vec<usize>,
    /// Tenants (the users being served), shared with the run's engine
    /// rather than copied into it (DESIGN §8.5: 8 bytes a tenant; it
    /// serialises as a list, as the `Vec` it was).
    pub tenants: Arc<[usize]>,
}

/// How to split users, resolved against the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitPlan {
    /// Users listed explicitly as prior users.
    pub fixed_prior: Option<Vec<usize>>,
    /// Users listed explicitly as tenants.
    pub fixed_tenants: Option<Vec<usize>>,
    /// Prior users to sample per repetition from the unlisted users.
    pub prior_count: Option<usize>,
    /// Tenants to sample per repetition from the users left after the prior.
    pub tenant_count: Option<usize>,
    /// Number of users in the trace.
    pub n_users: usize,
}

impl SplitPlan {
    /// Whether the split is the same in every repetition.
    pub fn is_fixed(&self) -> bool {
        self.prior_count.is_none() && self.tenant_count.is_none()
    }

    /// The split of repetition `rep`.
    ///
    /// Users not listed explicitly form a pool in trace order. If anything is
    /// sampled, the pool is shuffled (Fisher–Yates, rand 0.8 `shuffle`) with
    /// the `(seed, rep, split)` stream. The prior users are the explicit list
    /// or the first `prior_count` of the pool; the tenants are the explicit
    /// list, or the next `tenant_count` of the pool, or the rest of the pool.
    /// Both lists are returned sorted, so tenant order is trace order.
    pub fn resolve(&self, seed: u64, rep: u64) -> Split {
        let listed = |u: &usize| {
            self.fixed_prior.as_ref().is_some_and(|p| p.contains(u))
                || self.fixed_tenants.as_ref().is_some_and(|t| t.contains(u))
        };
        let mut pool: Vec<usize> = (0..self.n_users).filter(|u| !listed(u)).collect();
        if !self.is_fixed() {
            pool.shuffle(&mut stream(seed, rep, Purpose::Split));
        }
        let mut taken = 0;
        let mut prior = match (&self.fixed_prior, self.prior_count) {
            (Some(p), _) => p.clone(),
            (None, Some(n)) => {
                taken = n.min(pool.len());
                pool[..taken].to_vec()
            }
            (None, None) => Vec::new(),
        };
        prior.sort_unstable();
        // Sorted in the pool (a set of distinct users: one order whatever
        // the slice), then collected straight into the shared list, one
        // allocation of its length: the pool and the list are the only
        // two copies at once.
        let rest = &mut pool[taken..];
        let tenants: Arc<[usize]> = match (&self.fixed_tenants, self.tenant_count) {
            (Some(t), _) => {
                let mut t = t.clone();
                t.sort_unstable();
                t.into()
            }
            (None, count) => {
                let n = count.map_or(rest.len(), |n| n.min(rest.len()));
                let chosen = &mut rest[..n];
                chosen.sort_unstable();
                chosen.iter().copied().collect()
            }
        };
        Split { prior, tenants }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(prior_count: Option<usize>, tenant_count: Option<usize>) -> SplitPlan {
        SplitPlan {
            fixed_prior: None,
            fixed_tenants: None,
            prior_count,
            tenant_count,
            n_users: 10,
        }
    }

    #[test]
    fn sampled_split_is_disjoint_sorted_and_reproducible() {
        let p = plan(Some(4), Some(3));
        let a = p.resolve(7, 0);
        assert_eq!(a.prior.len(), 4);
        assert_eq!(a.tenants.len(), 3);
        assert!(a.prior.iter().all(|u| !a.tenants.contains(u)));
        assert!(a.prior.is_sorted() && a.tenants.is_sorted());
        assert_eq!(a, p.resolve(7, 0));
        assert_ne!(a, p.resolve(7, 1), "repetitions should differ");
    }

    #[test]
    fn fixed_prior_gives_every_other_user_as_tenant() {
        let mut p = plan(None, None);
        p.fixed_prior = Some(vec![3, 1]);
        let s = p.resolve(0, 5);
        assert_eq!(s.prior, [1, 3]);
        assert_eq!(*s.tenants, [0, 2, 4, 5, 6, 7, 8, 9]);
    }
}
