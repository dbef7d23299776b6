//! Splitting users into prior users and tenants, per repetition.

use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::core::sim::rng::{Purpose, stream};
use crate::models::sim::TenantUsers;

/// The users of one repetition: prior (history) users and tenants, each as
/// ascending trace user indices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    /// Prior users (only used to build GP priors).
    pub prior: Vec<usize>,
    /// Tenants (the users being served), shared with the run's engine
    /// rather than copied into it; every user but the prior ones, when
    /// that is what they are, is held as such (DESIGN §8.5: not 8 bytes
    /// a tenant; it serialises as a list, as the `Vec` it was).
    pub tenants: TenantUsers,
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
    /// When the tenants are every user but the prior ones, they are held
    /// as that ([`TenantUsers::all_but`]), not listed.
    ///
    /// The pool holds its users as `u32` when they fit (4 bytes a user,
    /// not 8: 40 MB of scale-year's 10^7 while the split is drawn): the
    /// shuffle draws each place from the slice's length alone, whatever
    /// its items, so the split is the same.
    pub fn resolve(&self, seed: u64, rep: u64) -> Split {
        if u32::try_from(self.n_users).is_ok() {
            self.resolve_in::<u32>(seed, rep)
        } else {
            self.resolve_in::<usize>(seed, rep)
        }
    }

    /// [`Self::resolve`] with a pool of users held as `U`.
    fn resolve_in<U: PoolUser>(&self, seed: u64, rep: u64) -> Split {
        fn sorted(l: &[usize]) -> Vec<usize> {
            let mut l = l.to_vec();
            l.sort_unstable();
            l
        }
        fn sorted_users<U: PoolUser>(l: &[U]) -> Vec<usize> {
            let mut l: Vec<usize> = l.iter().map(|&u| u.user()).collect();
            l.sort_unstable();
            l
        }
        if self.is_fixed() {
            // Nothing is drawn, so no pool is needed: the tenants are the
            // listed ones or every user but the prior ones (the pool's
            // rest, as below).
            let prior = self.fixed_prior.as_deref().map(sorted).unwrap_or_default();
            let tenants = match &self.fixed_tenants {
                Some(t) => sorted(t).into(),
                None => TenantUsers::all_but(self.n_users, &prior),
            };
            return Split { prior, tenants };
        }
        let listed = |u: &usize| {
            self.fixed_prior.as_ref().is_some_and(|p| p.contains(u))
                || self.fixed_tenants.as_ref().is_some_and(|t| t.contains(u))
        };
        let mut pool: Vec<U> = (0..self.n_users)
            .filter(|u| !listed(u))
            .map(U::of)
            .collect();
        pool.shuffle(&mut stream(seed, rep, Purpose::Split));
        let mut taken = 0;
        let prior = match (&self.fixed_prior, self.prior_count) {
            (Some(p), _) => sorted(p),
            (None, Some(n)) => {
                taken = n.min(pool.len());
                sorted_users(&pool[..taken])
            }
            (None, None) => Vec::new(),
        };
        // Sorted in the pool (a set of distinct users: one order whatever
        // the slice), then collected straight into the shared list, one
        // allocation of its length: the pool and the list are the only
        // two copies at once.
        let rest = &mut pool[taken..];
        let tenants = match (&self.fixed_tenants, self.tenant_count) {
            (Some(t), _) => sorted(t).into(),
            // The rest of the pool: no tenant is listed, so the pool is
            // every user but the listed prior ones, and the rest is every
            // user but the prior ones (listed or taken from the pool).
            (None, count) if count.is_none_or(|n| n >= rest.len()) => {
                TenantUsers::all_but(self.n_users, &prior)
            }
            (None, count) => {
                let n = count.map_or(rest.len(), |n| n.min(rest.len()));
                let chosen = &mut rest[..n];
                chosen.sort_unstable();
                chosen.iter().map(|&u| u.user()).collect()
            }
        };
        Split { prior, tenants }
    }
}

/// A user index as the split's pool holds it.
trait PoolUser: Copy + Ord {
    /// User `u` (which fits).
    fn of(u: usize) -> Self;
    /// The user index.
    fn user(self) -> usize;
}

impl PoolUser for u32 {
    fn of(u: usize) -> Self {
        u as u32
    }
    fn user(self) -> usize {
        self as usize
    }
}

impl PoolUser for usize {
    fn of(u: usize) -> Self {
        u
    }
    fn user(self) -> usize {
        self
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
        assert!(a.prior.iter().all(|u| !a.tenants.iter().any(|t| t == *u)));
        assert!(a.prior.is_sorted() && a.tenants.iter().is_sorted());
        assert_eq!(a, p.resolve(7, 0));
        assert_ne!(a, p.resolve(7, 1), "repetitions should differ");
    }

    /// Regression for the memory of a sampled split (issue 34): the
    /// tenants that are every user but the sampled prior ones are held as
    /// that, not listed, and are the users the pool's shuffle leaves after
    /// the prior ones (an independent shuffle of the same stream).
    #[test]
    fn tenants_that_are_every_other_user_are_not_listed_and_are_the_rest_of_the_pool() {
        for (n_users, prior_count, seed, rep) in [(10, 4, 7, 0), (1_000, 37, 1, 3), (5, 5, 2, 1)] {
            let p = SplitPlan {
                n_users,
                ..plan(Some(prior_count), None)
            };
            let got = p.resolve(seed, rep);
            let mut pool: Vec<usize> = (0..n_users).collect();
            pool.shuffle(&mut stream(seed, rep, Purpose::Split));
            let mut rest = pool[prior_count..].to_vec();
            rest.sort_unstable();
            assert_eq!(got.tenants, rest[..], "{n_users} users, seed {seed}");
            let mut prior = pool[..prior_count].to_vec();
            prior.sort_unstable();
            assert_eq!(got.prior, prior, "{n_users} users, seed {seed}");
            // The same split from a pool held as `usize` (as it was).
            assert_eq!(p.resolve_in::<usize>(seed, rep), got);
            assert_eq!(
                got.tenants.as_slice(),
                None,
                "held as every user but the prior"
            );
            // A tenant count that covers the rest is the same split.
            let covered = SplitPlan {
                n_users,
                ..plan(Some(prior_count), Some(n_users))
            };
            assert_eq!(covered.resolve(seed, rep), got);
        }
        // Fewer tenants than the rest: listed, the next of the pool.
        let fewer = plan(Some(4), Some(3)).resolve(7, 0);
        assert!(fewer.tenants.as_slice().is_some());
        let mut pool: Vec<usize> = (0..10).collect();
        pool.shuffle(&mut stream(7, 0, Purpose::Split));
        let mut next = pool[4..7].to_vec();
        next.sort_unstable();
        assert_eq!(fewer.tenants, next[..]);
        assert_eq!(plan(Some(4), Some(3)).resolve_in::<usize>(7, 0), fewer);
    }

    #[test]
    fn fixed_prior_gives_every_other_user_as_tenant() {
        let mut p = plan(None, None);
        p.fixed_prior = Some(vec![3, 1]);
        let s = p.resolve(0, 5);
        assert_eq!(s.prior, [1, 3]);
        assert_eq!(s.tenants, [0, 2, 4, 5, 6, 7, 8, 9]);
    }
}
