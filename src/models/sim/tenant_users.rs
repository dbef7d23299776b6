//! The trace users of a run's tenants, held as a list or as "every user
//! but the prior ones" (issue 34, DESIGN §8.5).
//!
//! Tenant `i` of a run is its `i`-th tenant user in trace order. A split
//! that samples its prior users and makes every other user a tenant (the
//! scale scenarios': 1,000 prior users out of 10^7) would hold a list of
//! 8 bytes a tenant, 80 MB of scale-year's 10^7, for users that are simply
//! "all but 1,000". [`TenantUsers::all_but`] holds the skipped users only
//! and answers tenant `i`'s user by arithmetic:
//!
//! - with `s_0 < s_1 < …` the skipped users, `d_m = s_m − m` is the number
//!   of tenants below `s_m` (non-decreasing in `m`);
//! - tenant `i`'s user `u` is `i + c`, where `c` counts the skipped users
//!   below `u`, and `s_m < u` exactly when `d_m ≤ i` (below `s_m` lie `d_m`
//!   tenants; `u` is the `(i+1)`-th): so `c = #{m : d_m ≤ i}`;
//! - `c` is found in a bucket of `2^shift` tenant indices: every `d_m`
//!   below the bucket counts, none above it, and the few inside it are
//!   found by binary search, so a lookup costs a table read and a short
//!   search however many users are skipped.
//!
//! Both forms read, compare, print and serialise as the ascending list
//! they stand for: the same bytes in the result cache, the same
//! `[0, 2, …]` in a test's message (as [`super::LeftAt`]).

use std::fmt;
use std::sync::Arc;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Trace user indices of a run's tenants, ascending (see the module's
/// documentation). Cloning shares the list.
#[derive(Clone)]
pub struct TenantUsers(Repr);

#[derive(Clone)]
enum Repr {
    /// Every tenant's user.
    Listed(Arc<[usize]>),
    /// Users `0..n_users` but the skipped ones.
    AllBut(Arc<AllBut>),
}

/// Users `0..len + skipped.len()` but `skipped`.
struct AllBut {
    /// Tenants.
    len: usize,
    /// Per skipped user `s_m` (ascending): `d_m = s_m − m`.
    below: Box<[usize]>,
    /// Log₂ of the tenant indices a bucket covers.
    shift: u32,
    /// Per bucket `b`: `#{m : d_m < b << shift}` (one more entry than
    /// there are buckets).
    start: Box<[u32]>,
}

impl TenantUsers {
    /// Every user `0..n_users` but `skipped` (ascending and distinct, each
    /// below `n_users`; anything else is read as its ascending distinct
    /// users below `n_users`).
    pub fn all_but(n_users: usize, skipped: &[usize]) -> Self {
        let mut skip: Vec<usize> = skipped.iter().copied().filter(|&u| u < n_users).collect();
        if !skip.is_sorted_by(|a, b| a < b) {
            skip.sort_unstable();
            skip.dedup();
        }
        let len = n_users - skip.len();
        let below: Box<[usize]> = skip.iter().enumerate().map(|(m, &s)| s - m).collect();
        // About four buckets a skipped user (at least one bucket), so a
        // bucket holds few of them; the tables are about 24 bytes a skipped user.
        let buckets_wanted = (4 * below.len()).max(1);
        let mut shift = 0u32;
        while shift < usize::BITS - 1 && (len >> shift) > buckets_wanted {
            shift += 1;
        }
        let buckets = (len >> shift) + 1;
        let start = (0..=buckets)
            .map(|b| {
                let first = b.checked_shl(shift).unwrap_or(usize::MAX);
                u32::try_from(below.partition_point(|&d| d < first)).unwrap_or(u32::MAX)
            })
            .collect();
        Self(Repr::AllBut(Arc::new(AllBut {
            len,
            below,
            shift,
            start,
        })))
    }

    /// The listed users `users` (ascending), copied.
    pub fn list(users: &[usize]) -> Self {
        users.into()
    }

    /// Tenants.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Listed(l) => l.len(),
            Repr::AllBut(a) => a.len,
        }
    }

    /// Whether there are no tenants.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tenant `i`'s trace user. Panics if `i` is not below [`Self::len`],
    /// as indexing a list would.
    #[inline]
    pub fn user(&self, i: usize) -> usize {
        match &self.0 {
            Repr::Listed(l) => l[i],
            Repr::AllBut(a) => a.user(i),
        }
    }

    /// Tenant `i`'s trace user, if there is a tenant `i`.
    pub fn get(&self, i: usize) -> Option<usize> {
        (i < self.len()).then(|| self.user(i))
    }

    /// The first tenant's user, if any.
    pub fn first(&self) -> Option<usize> {
        self.get(0)
    }

    /// The users as a list, when they are held as one (no copy).
    pub fn as_slice(&self) -> Option<&[usize]> {
        match &self.0 {
            Repr::Listed(l) => Some(l),
            Repr::AllBut(_) => None,
        }
    }

    /// The address of the held users (either form): two values at one
    /// address share them, neither a copy of the other.
    pub fn as_ptr(&self) -> *const () {
        match &self.0 {
            Repr::Listed(l) => l.as_ptr().cast(),
            Repr::AllBut(a) => Arc::as_ptr(a).cast(),
        }
    }

    /// Every tenant's user, in tenant order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            users: self,
            next: 0,
            skip: 0,
        }
    }

    /// The users as a list (a copy).
    pub fn to_vec(&self) -> Vec<usize> {
        self.iter().collect()
    }
}

/// Trace users of a run's tenants by tenant index, however they are held:
/// what the metrics read ([`TenantUsers`], or a plain list of them).
pub trait UserList {
    /// Tenants.
    fn count(&self) -> usize;
    /// Tenant `i`'s trace user (`i` below [`Self::count`]).
    fn user_of(&self, i: usize) -> usize;
    /// Every tenant's user, in tenant order.
    fn each(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.count()).map(|i| self.user_of(i))
    }
}

impl UserList for TenantUsers {
    fn count(&self) -> usize {
        self.len()
    }
    fn user_of(&self, i: usize) -> usize {
        self.user(i)
    }
    fn each(&self) -> impl Iterator<Item = usize> + '_ {
        self.iter()
    }
}

impl UserList for [usize] {
    fn count(&self) -> usize {
        self.len()
    }
    fn user_of(&self, i: usize) -> usize {
        self[i]
    }
}

impl UserList for Vec<usize> {
    fn count(&self) -> usize {
        self.len()
    }
    fn user_of(&self, i: usize) -> usize {
        self[i]
    }
}

impl<const N: usize> UserList for [usize; N] {
    fn count(&self) -> usize {
        N
    }
    fn user_of(&self, i: usize) -> usize {
        self[i]
    }
}

impl AllBut {
    #[inline]
    fn user(&self, i: usize) -> usize {
        assert!(i < self.len, "tenant {i} of a run of {} tenants", self.len);
        let b = i >> self.shift;
        let (lo, hi) = (self.start[b] as usize, self.start[b + 1] as usize);
        i + lo + self.below[lo..hi].partition_point(|&d| d <= i)
    }
}

/// [`TenantUsers::iter`]: walks the users, stepping over the skipped ones
/// (no lookup per tenant).
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    users: &'a TenantUsers,
    /// The next tenant.
    next: usize,
    /// The skipped users counted so far (all-but form).
    skip: usize,
}

impl Iterator for Iter<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let i = self.next;
        match &self.users.0 {
            Repr::Listed(l) => {
                let u = *l.get(i)?;
                self.next += 1;
                Some(u)
            }
            Repr::AllBut(a) => {
                if i >= a.len {
                    return None;
                }
                while a.below.get(self.skip).is_some_and(|&d| d <= i) {
                    self.skip += 1;
                }
                self.next += 1;
                Some(i + self.skip)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.users.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a TenantUsers {
    type Item = usize;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl From<Arc<[usize]>> for TenantUsers {
    fn from(l: Arc<[usize]>) -> Self {
        Self(Repr::Listed(l))
    }
}

impl From<Vec<usize>> for TenantUsers {
    fn from(l: Vec<usize>) -> Self {
        Self(Repr::Listed(l.into()))
    }
}

impl From<&[usize]> for TenantUsers {
    fn from(l: &[usize]) -> Self {
        Self(Repr::Listed(l.into()))
    }
}

impl FromIterator<usize> for TenantUsers {
    fn from_iter<I: IntoIterator<Item = usize>>(users: I) -> Self {
        Self(Repr::Listed(users.into_iter().collect()))
    }
}

impl PartialEq for TenantUsers {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for TenantUsers {}

impl PartialEq<[usize]> for TenantUsers {
    fn eq(&self, other: &[usize]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl<const N: usize> PartialEq<[usize; N]> for TenantUsers {
    fn eq(&self, other: &[usize; N]) -> bool {
        *self == other[..]
    }
}

impl fmt::Debug for TenantUsers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for TenantUsers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for u in self.iter() {
            seq.serialize_element(&u)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for TenantUsers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Users;
        impl<'de> Visitor<'de> for Users {
            type Value = TenantUsers;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of trace user indices")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TenantUsers, A::Error> {
                let mut users = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(u) = seq.next_element::<usize>()? {
                    users.push(u);
                }
                Ok(users.into())
            }
        }
        d.deserialize_seq(Users)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    /// Brute force: users `0..n` not in `skipped`.
    fn complement(n: usize, skipped: &[usize]) -> Vec<usize> {
        (0..n).filter(|u| !skipped.contains(u)).collect()
    }

    fn check(n: usize, skipped: &[usize]) {
        let want = complement(n, skipped);
        let got = TenantUsers::all_but(n, skipped);
        assert_eq!(got.len(), want.len(), "n {n}, skipped {skipped:?}");
        for (i, &u) in want.iter().enumerate() {
            assert_eq!(got.user(i), u, "tenant {i}, n {n}, skipped {skipped:?}");
        }
        assert_eq!(got.to_vec(), want, "iteration, n {n}, skipped {skipped:?}");
        assert_eq!(got.get(want.len()), None);
        assert_eq!(got, TenantUsers::from(want.clone()));
    }

    #[test]
    fn every_user_but_the_skipped_ones_by_lookup_and_by_iteration() {
        check(0, &[]);
        check(1, &[]);
        check(1, &[0]);
        check(5, &[0, 1, 2, 3, 4]);
        check(10, &[0]);
        check(10, &[9]);
        check(10, &[3, 4, 5]);
        check(10, &[0, 2, 4, 6, 8]);
        let mut rng = rand::rngs::StdRng::seed_from_u64(34);
        for _ in 0..300 {
            let n = rng.gen_range(0..3_000);
            let mut users: Vec<usize> = (0..n).collect();
            users.shuffle(&mut rng);
            // From none to all skipped, sparse and dense, in runs.
            let k = match rng.gen_range(0..4) {
                0 => rng.gen_range(0..=n.min(3)),
                1 => rng.gen_range(0..=n / 50),
                2 => rng.gen_range(0..=n),
                _ => n.saturating_sub(rng.gen_range(0..=n.min(3))),
            };
            let mut skipped = users[..k].to_vec();
            skipped.sort_unstable();
            check(n, &skipped);
        }
    }

    #[test]
    fn skipped_users_unsorted_repeated_or_out_of_range_are_read_as_a_set() {
        let got = TenantUsers::all_but(8, &[6, 1, 6, 40, 1]);
        assert_eq!(got, [0, 2, 3, 4, 5, 7]);
    }

    #[test]
    fn both_forms_serialise_print_and_compare_as_the_list() {
        let all_but = TenantUsers::all_but(7, &[1, 4]);
        let listed = TenantUsers::from(vec![0, 2, 3, 5, 6]);
        assert_eq!(all_but, listed);
        assert_eq!(format!("{all_but:?}"), "[0, 2, 3, 5, 6]");
        let v: Vec<usize> = vec![0, 2, 3, 5, 6];
        let bytes = postcard::to_allocvec(&all_but).expect("encode");
        assert_eq!(bytes, postcard::to_allocvec(&v).expect("encode"));
        let back: TenantUsers = postcard::from_bytes(&bytes).expect("decode");
        assert_eq!(back, all_but);
        assert_eq!(back.as_slice(), Some(&v[..]));
        assert_eq!(
            serde_json::to_string(&all_but).expect("json"),
            serde_json::to_string(&v).expect("json")
        );
        assert_eq!(all_but.as_slice(), None);
        assert_eq!(all_but.first(), Some(0));
        assert_eq!(all_but.iter().len(), 5);
    }

    /// Regression for the memory of a sampled split (issue 34): 10^7
    /// tenants, all but 1,000 users, are held in the skipped users' tables
    /// (kilobytes), not a list of 80 MB, and still answer every tenant.
    #[test]
    fn ten_million_tenants_all_but_a_thousand_hold_kilobytes() {
        let n = 10_001_000;
        let skipped: Vec<usize> = (0..1_000).map(|m| m * 10_000 + m % 7).collect();
        let users = TenantUsers::all_but(n, &skipped);
        let Repr::AllBut(a) = &users.0 else {
            panic!("all-but form expected");
        };
        let bytes = size_of_val(&*a.below) + size_of_val(&*a.start);
        assert!(bytes < 64 << 10, "{bytes} bytes");
        let mut it = users.iter();
        for i in 0..users.len() {
            let u = it.next().expect("a user per tenant");
            if i % 997 == 0 || skipped.binary_search(&(u - 1)).is_ok() {
                assert_eq!(users.user(i), u, "tenant {i}");
            }
        }
        assert_eq!(it.next(), None);
        assert_eq!(users.user(users.len() - 1), n - 1);
    }
}
