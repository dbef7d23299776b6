//! When each tenant of a run left for lack of patience (DESIGN §2.7),
//! held for the tenants that left only (issue 34).
//!
//! A run's outcome answers "when did tenant i leave" for every tenant. A
//! vector of `Option<Micros>` answers it in 16 bytes a tenant: 160 MB of
//! scale-year's 10^7 tenants, of whom none left, built at the end of the
//! run while the simulation's own tables were still held (its peak of
//! memory, docs/PERFORMANCE.md "Internet scale"). [`LeftAt`] holds the
//! leavers' (tenant, time) pairs in tenant order, 16 bytes a leaver, and
//! answers a tenant by binary search. It reads, compares, prints and
//! serialises as the per-tenant vector it replaces: the same bytes in the
//! result cache, the same `[None, Some(t), …]` in a test's message.

use std::fmt;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::core::error::{Error, Result};
use crate::models::trace::Micros;

/// Per tenant of a run: when it left, if it did (see the module's
/// documentation).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct LeftAt {
    /// Tenants of the run.
    n: usize,
    /// The tenants that left, ascending, each with when it left.
    left: Vec<(u32, Micros)>,
}

impl LeftAt {
    /// `n` tenants of which those in `left` left when it says, in any
    /// order. An error: a tenant not below `n` or listed twice.
    pub fn new(n: usize, mut left: Vec<(u32, Micros)>) -> Result<Self> {
        left.sort_unstable_by_key(|&(i, _)| i);
        if let Some(&(i, _)) = left.iter().find(|&&(i, _)| i as usize >= n) {
            return Err(Error::input(format!(
                "internal: tenant {i} left, in a run of {n} tenants"
            )));
        }
        if let Some(w) = left.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::input(format!(
                "internal: tenant {} left twice",
                w[0].0
            )));
        }
        Ok(Self { n, left })
    }

    /// Tenants of the run (left or not).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the run had no tenant.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// When tenant `i` left; `None` if it did not (or is not a tenant).
    pub fn get(&self, i: usize) -> Option<Micros> {
        let i = u32::try_from(i).ok()?;
        let at = self.left.binary_search_by_key(&i, |&(j, _)| j).ok()?;
        Some(self.left[at].1)
    }

    /// Tenants that left.
    pub fn count(&self) -> usize {
        self.left.len()
    }

    /// Every tenant's [`Self::get`], in tenant order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<Micros>> + '_ {
        let mut next = self.left.iter().peekable();
        (0..self.n).map(move |i| match next.peek() {
            Some(&&(j, t)) if j as usize == i => {
                next.next();
                Some(t)
            }
            _ => None,
        })
    }

    /// The per-tenant vector it stands for.
    pub fn to_vec(&self) -> Vec<Option<Micros>> {
        self.iter().collect()
    }
}

impl FromIterator<Option<Micros>> for LeftAt {
    /// Tenant i left at the i-th item, if it is `Some` (the items past
    /// `u32::MAX` tenants are read as not left: a run has fewer tenants,
    /// DESIGN §8.5).
    fn from_iter<I: IntoIterator<Item = Option<Micros>>>(items: I) -> Self {
        let mut n = 0;
        let mut left = Vec::new();
        for (i, at) in items.into_iter().enumerate() {
            n = i + 1;
            if let (Some(t), Ok(i)) = (at, u32::try_from(i)) {
                left.push((i, t));
            }
        }
        Self { n, left }
    }
}

impl From<Vec<Option<Micros>>> for LeftAt {
    fn from(v: Vec<Option<Micros>>) -> Self {
        v.into_iter().collect()
    }
}

impl PartialEq<[Option<Micros>]> for LeftAt {
    fn eq(&self, other: &[Option<Micros>]) -> bool {
        self.n == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl PartialEq<Vec<Option<Micros>>> for LeftAt {
    fn eq(&self, other: &Vec<Option<Micros>>) -> bool {
        *self == other[..]
    }
}

impl<const N: usize> PartialEq<[Option<Micros>; N]> for LeftAt {
    fn eq(&self, other: &[Option<Micros>; N]) -> bool {
        *self == other[..]
    }
}

/// Printed as the per-tenant list: `[None, Some(2500000)]`.
impl fmt::Debug for LeftAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Serialised as the per-tenant sequence of `Option<Micros>` (the bytes
/// of the `Vec<Option<Micros>>` it replaced).
impl Serialize for LeftAt {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.n))?;
        for at in self.iter() {
            seq.serialize_element(&at)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for LeftAt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct PerTenant;
        impl<'de> Visitor<'de> for PerTenant {
            type Value = LeftAt;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence of optional times, one per tenant")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<LeftAt, A::Error> {
                let mut n = 0usize;
                let mut left = Vec::new();
                while let Some(at) = seq.next_element::<Option<Micros>>()? {
                    if let Some(t) = at {
                        let i = u32::try_from(n).map_err(|_| {
                            serde::de::Error::custom("more than 2^32 tenants in a run")
                        })?;
                        left.push((i, t));
                    }
                    n += 1;
                }
                Ok(LeftAt { n, left })
            }
        }
        d.deserialize_seq(PerTenant)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A per-tenant vector with leavers here and there.
    fn per_tenant() -> Vec<Option<Micros>> {
        vec![None, Some(7), None, None, Some(0), Some(u64::MAX), None]
    }

    #[test]
    fn it_reads_as_the_per_tenant_vector_it_replaces() {
        let v = per_tenant();
        let l = LeftAt::from(v.clone());
        assert_eq!((l.len(), l.count()), (7, 3));
        assert_eq!(l.to_vec(), v);
        for (i, &want) in v.iter().enumerate() {
            assert_eq!(l.get(i), want, "tenant {i}");
        }
        assert_eq!(l.get(7), None);
        assert_eq!(l, v);
        assert_eq!(format!("{l:?}"), format!("{v:?}"));
        // The same from pairs in any order.
        let pairs = vec![(5, u64::MAX), (1, 7), (4, 0)];
        assert_eq!(LeftAt::new(7, pairs).expect("valid"), l);
        assert_ne!(l, v[..6]);
        assert_ne!(LeftAt::from(vec![None; 3]), [None, Some(1), None]);
    }

    #[test]
    fn a_tenant_out_of_range_or_leaving_twice_is_an_internal_error() {
        let e = LeftAt::new(3, vec![(3, 1)]).expect_err("out of range");
        assert!(
            e.to_string().contains("tenant 3 left, in a run of 3"),
            "{e}"
        );
        let e = LeftAt::new(3, vec![(1, 1), (0, 2), (1, 5)]).expect_err("twice");
        assert!(e.to_string().contains("tenant 1 left twice"), "{e}");
    }

    /// The result cache's bytes do not move: postcard and JSON encode it
    /// as the vector, and read the vector's bytes back into it.
    #[test]
    fn it_is_serialised_as_the_per_tenant_vector() {
        for v in [per_tenant(), Vec::new(), vec![None; 300]] {
            let l = LeftAt::from(v.clone());
            let bytes = postcard::to_allocvec(&l).expect("encode");
            assert_eq!(bytes, postcard::to_allocvec(&v).expect("encode"));
            let back: LeftAt = postcard::from_bytes(&bytes).expect("decode");
            assert_eq!(back, l);
            let json = serde_json::to_string(&l).expect("json");
            assert_eq!(json, serde_json::to_string(&v).expect("json"));
            assert_eq!(serde_json::from_str::<LeftAt>(&json).expect("json"), l);
        }
    }
}
