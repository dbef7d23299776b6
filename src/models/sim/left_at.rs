//! When each tenant of a run left for lack of patience (DESIGN §2.7),
//! held for the tenants that left only, and past a bound on disk (issue
//! 34: memory by active tenants).
//!
//! A run's outcome answers "when did tenant i leave" for every tenant. A
//! vector of `Option<Micros>` answers it in 16 bytes a tenant: 160 MB of
//! scale-year's 10^7 tenants. [`LeftAt`] holds the leavers' (tenant, time)
//! pairs in tenant order, 16 bytes a leaver, up to [`PLACES_RUN`] of them
//! (1 MiB); a run where more leave (an overloaded service, every tenant
//! out of patience) holds them in [`SortedRuns`] whose runs of
//! [`PLACES_RUN`] pairs are written to a temporary file as they are
//! sorted, as [`super::EndStates`] holds the end states: what stays in
//! memory is the open run while the times are set, and one small buffered
//! stream a run while they are read in tenant order ([`LeftAt::iter`]).
//! The estimate counted 16 bytes for every tenant that may leave (every
//! tenant, with a patience): 152.6 MiB of scale-year's (DESIGN §8.5).
//!
//! It reads, compares, prints and serialises as the per-tenant vector it
//! replaces: the same bytes in the result cache, the same
//! `[None, Some(t), …]` in a test's message. A tenant given several
//! times has the last.

use std::fmt;
use std::sync::Arc;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::core::error::{Error, Result};
use crate::core::io::sorted_runs::{LastOfEach, SortedRuns};
use crate::core::io::spill::Record;
use crate::core::memory::PLACES_RUN;
use crate::models::trace::Micros;

/// A tenant and when it left: 12 bytes on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Left {
    tenant: u32,
    at: Micros,
}

impl Record for Left {
    const BYTES: usize = 12;
    fn encode(&self, out: &mut [u8]) {
        self.tenant.encode(&mut out[..4]);
        self.at.encode(&mut out[4..12]);
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            tenant: u32::decode(&b[..4]),
            at: u64::decode(&b[4..12]),
        }
    }
}

/// The key records are sorted and found by: the tenant.
fn tenant(l: &Left) -> u64 {
    u64::from(l.tenant)
}

/// Where the leave times are.
#[derive(Debug)]
enum Store {
    /// The leavers, ascending by tenant, one pair each.
    Pairs(Vec<(u32, Micros)>),
    /// (tenant, time) records in sorted runs; the last of a tenant counts.
    Runs(Box<SortedRuns<Left, u64>>),
}

/// Per tenant of a run: when it left, if it did (see the module's
/// documentation). Cheap to clone (the times are shared); never changes
/// once built.
#[derive(Clone)]
pub struct LeftAt {
    /// Tenants of the run.
    n: usize,
    store: Arc<Store>,
}

impl Default for LeftAt {
    /// No tenant.
    fn default() -> Self {
        Self {
            n: 0,
            store: Arc::new(Store::Pairs(Vec::new())),
        }
    }
}

impl LeftAt {
    /// `n` tenants of which those in `left` left when it says, in any
    /// order, held in memory. An error: a tenant not below `n` or listed
    /// twice.
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
        Ok(Self {
            n,
            store: Arc::new(Store::Pairs(left)),
        })
    }

    /// Tenants of the run (left or not).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the run had no tenant.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether the times are held in sorted runs (more than
    /// [`PLACES_RUN`] tenants left) rather than in memory.
    pub fn is_in_runs(&self) -> bool {
        matches!(*self.store, Store::Runs(_))
    }

    /// When tenant `i` left; `None` if it did not (or is not a tenant). In
    /// runs, a search of every run (a point lookup: read many with
    /// [`Self::iter`]). An error: reading a run back.
    pub fn get(&self, i: usize) -> Result<Option<Micros>> {
        let Ok(i) = u32::try_from(i) else {
            return Ok(None);
        };
        if i as usize >= self.n {
            return Ok(None);
        }
        Ok(match &*self.store {
            Store::Pairs(left) => left
                .binary_search_by_key(&i, |&(j, _)| j)
                .ok()
                .map(|at| left[at].1),
            Store::Runs(runs) => runs.last_of(u64::from(i))?.map(|l| l.at),
        })
    }

    /// Tenants that left. An error: reading a run back.
    pub fn count(&self) -> Result<usize> {
        match &*self.store {
            Store::Pairs(left) => Ok(left.len()),
            Store::Runs(_) => self
                .iter()
                .try_fold(0, |c, at| Ok(c + usize::from(at?.is_some()))),
        }
    }

    /// Every tenant's [`Self::get`], in tenant order (an error reading a
    /// run back is an item, and the last).
    pub fn iter(&self) -> LeftAtIter<'_> {
        let inner = match &*self.store {
            Store::Pairs(left) => Inner::Pairs(left.iter().peekable()),
            Store::Runs(runs) => match runs.merged() {
                Ok(merged) => Inner::Runs(LastOfEach::new(merged, self.n as u64)),
                Err(e) => Inner::Failed(Some(e)),
            },
        };
        LeftAtIter {
            n: self.n,
            at: 0,
            inner,
        }
    }

    /// The per-tenant vector it stands for. An error: reading a run back.
    pub fn to_vec(&self) -> Result<Vec<Option<Micros>>> {
        self.iter().collect()
    }
}

/// The leave times of a [`LeftAt`], tenant by tenant.
#[derive(Debug)]
pub struct LeftAtIter<'a> {
    /// Tenants of the run.
    n: usize,
    /// The next tenant.
    at: usize,
    inner: Inner<'a>,
}

/// How a [`LeftAtIter`] reads.
#[derive(Debug)]
enum Inner<'a> {
    /// The leavers left to read, ascending.
    Pairs(std::iter::Peekable<std::slice::Iter<'a, (u32, Micros)>>),
    /// The runs merged, each tenant's last record.
    Runs(LastOfEach<'a, Left, u64>),
    /// Reading failed: the error, once.
    Failed(Option<Error>),
}

impl Iterator for LeftAtIter<'_> {
    type Item = Result<Option<Micros>>;

    fn next(&mut self) -> Option<Result<Option<Micros>>> {
        if let Inner::Failed(e) = &mut self.inner {
            return e.take().map(Err);
        }
        if self.at >= self.n {
            return None;
        }
        let i = self.at;
        self.at += 1;
        match &mut self.inner {
            Inner::Pairs(left) => Some(Ok(match left.peek() {
                Some(&&(j, t)) if j as usize == i => {
                    left.next();
                    Some(t)
                }
                _ => None,
            })),
            Inner::Runs(last) => match last.next() {
                Some(Ok(l)) => Some(Ok(l.map(|l| l.at))),
                Some(Err(e)) => {
                    self.inner = Inner::Failed(None);
                    Some(Err(e))
                }
                None => {
                    self.inner = Inner::Failed(None);
                    Some(Err(Error::input(format!(
                        "internal: no leave time read for tenant {i}"
                    ))))
                }
            },
            Inner::Failed(_) => None,
        }
    }
}

/// The leave times of a run as they are known, tenant by tenant in any
/// order (see [`LeftAt`]'s module documentation): in memory up to
/// [`PLACES_RUN`] of them, in sorted runs past it.
#[derive(Debug)]
pub(crate) struct LeftAtBuilder {
    n: usize,
    store: Store,
    /// Pairs held in memory before they move to runs.
    in_memory: usize,
    /// Records a run of the runs holds.
    run_records: usize,
    /// Bytes of written runs kept in memory before they go to disk.
    spill_bytes: usize,
}

impl LeftAtBuilder {
    /// Times for tenants `0..n`, none left until set.
    pub(crate) fn new(n: usize) -> Self {
        Self::with_bounds(n, PLACES_RUN, PLACES_RUN, 0)
    }

    /// Times held in memory up to `in_memory` pairs, then in runs of
    /// `run_records` spilled past `spill_bytes` (tests use small ones).
    pub(crate) fn with_bounds(
        n: usize,
        in_memory: usize,
        run_records: usize,
        spill_bytes: usize,
    ) -> Self {
        Self {
            n,
            store: Store::Pairs(Vec::new()),
            in_memory,
            run_records,
            spill_bytes,
        }
    }

    /// Tenant `i` left at `at` (a later call for the same tenant
    /// overrides it). An error: `i` is not a tenant of the run, or writing
    /// a run.
    pub(crate) fn set(&mut self, i: usize, at: Micros) -> Result<()> {
        let tenant = u32::try_from(i)
            .ok()
            .filter(|_| i < self.n)
            .ok_or_else(|| {
                Error::input(format!(
                    "internal: a leave time for tenant {i}, in a run of {} tenants",
                    self.n
                ))
            })?;
        match &mut self.store {
            Store::Pairs(left) if left.len() < self.in_memory => {
                left.push((tenant, at));
                Ok(())
            }
            Store::Pairs(left) => {
                let mut runs = Box::new(SortedRuns::new(
                    self::tenant,
                    0,
                    self.run_records,
                    self.spill_bytes,
                ));
                for (tenant, at) in std::mem::take(left) {
                    runs.push(Left { tenant, at }, [])?;
                }
                runs.push(Left { tenant, at }, [])?;
                self.store = Store::Runs(runs);
                Ok(())
            }
            Store::Runs(runs) => runs.push(Left { tenant, at }, []),
        }
    }

    /// The times, built: in memory, each tenant's last, ascending; or
    /// the runs sealed. An error: writing the last run.
    pub(crate) fn finish(self) -> Result<LeftAt> {
        let store = match self.store {
            Store::Pairs(mut left) => {
                // Each tenant's last time: a stable sort keeps a tenant's
                // times in the order set, and the last of each is kept.
                left.sort_by_key(|&(i, _)| i);
                let mut kept: Vec<(u32, Micros)> = Vec::with_capacity(left.len());
                for (i, t) in left {
                    match kept.last_mut() {
                        Some(last) if last.0 == i => last.1 = t,
                        _ => kept.push((i, t)),
                    }
                }
                Store::Pairs(kept)
            }
            Store::Runs(mut runs) => {
                runs.seal()?;
                Store::Runs(runs)
            }
        };
        Ok(LeftAt {
            n: self.n,
            store: Arc::new(store),
        })
    }
}

impl FromIterator<Option<Micros>> for LeftAt {
    /// Tenant i left at the i-th item, if it is `Some` (the items past
    /// `u32::MAX` tenants are read as not left: a run has fewer tenants,
    /// DESIGN §8.5), held in memory.
    fn from_iter<I: IntoIterator<Item = Option<Micros>>>(items: I) -> Self {
        let mut n = 0;
        let mut left = Vec::new();
        for (i, at) in items.into_iter().enumerate() {
            n = i + 1;
            if let (Some(t), Ok(i)) = (at, u32::try_from(i)) {
                left.push((i, t));
            }
        }
        Self {
            n,
            store: Arc::new(Store::Pairs(left)),
        }
    }
}

impl From<Vec<Option<Micros>>> for LeftAt {
    fn from(v: Vec<Option<Micros>>) -> Self {
        v.into_iter().collect()
    }
}

impl PartialEq for LeftAt {
    /// The same times (an unreadable time is unequal to everything).
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.iter().zip(other.iter()).all(|(a, b)| match (a, b) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

impl PartialEq<[Option<Micros>]> for LeftAt {
    fn eq(&self, other: &[Option<Micros>]) -> bool {
        self.n == other.len()
            && self
                .iter()
                .zip(other)
                .all(|(a, &b)| a.is_ok_and(|a| a == b))
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

/// Printed as the per-tenant list: `[None, Some(2500000)]` (an
/// unreadable run as what was read and the error).
impl fmt::Debug for LeftAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_vec() {
            Ok(v) => f.debug_list().entries(&v).finish(),
            Err(e) => write!(f, "LeftAt(unreadable: {e})"),
        }
    }
}

/// Serialised as the per-tenant sequence of `Option<Micros>` (the bytes
/// of the `Vec<Option<Micros>>` it replaced).
impl Serialize for LeftAt {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let mut seq = s.serialize_seq(Some(self.n))?;
        for at in self.iter() {
            seq.serialize_element(&at.map_err(S::Error::custom)?)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for LeftAt {
    /// The per-tenant sequence [`Serialize`] writes, each leaver kept as
    /// it is read (`LeftAtBuilder`: in memory up to [`PLACES_RUN`], in
    /// runs on disk past it).
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
                use serde::de::Error as _;
                // The tenants are known at the end: the builder is made
                // for every tenant a run may have, and told at the end.
                let mut b = LeftAtBuilder::new(u32::MAX as usize);
                let mut n = 0usize;
                while let Some(at) = seq.next_element::<Option<Micros>>()? {
                    if let Some(t) = at {
                        if n >= u32::MAX as usize {
                            return Err(A::Error::custom("more than 2^32 - 1 tenants in a run"));
                        }
                        b.set(n, t).map_err(A::Error::custom)?;
                    }
                    n += 1;
                }
                b.n = n;
                b.finish().map_err(A::Error::custom)
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
        assert_eq!((l.len(), l.count().expect("count")), (7, 3));
        assert_eq!(l.to_vec().expect("in memory"), v);
        for (i, &want) in v.iter().enumerate() {
            assert_eq!(l.get(i).expect("in memory"), want, "tenant {i}");
        }
        assert_eq!(l.get(7).expect("in memory"), None);
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
        let e = LeftAtBuilder::new(3).set(3, 1).expect_err("out of range");
        assert!(e.to_string().contains("tenant 3, in a run of 3"), "{e}");
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

    /// Leave times set tenant by tenant in a shuffled order, some tenants
    /// twice (the last counts), against the per-tenant vector built by
    /// hand: held in memory, and past a bound of 10 in sorted runs of 7
    /// written to disk at once (the form of a run where more than 65,536
    /// tenants left); read by tenant, in order, counted, compared,
    /// serialised as the vector and read back.
    #[test]
    fn times_set_in_any_order_read_back_as_the_vector_in_memory_and_in_runs() {
        let n = 200;
        let mut want = vec![None; n];
        let mut sets = Vec::new();
        for k in 0..150u64 {
            // Tenants 37·k mod 200 (a shuffled order, each once) for k <
            // 120, then 30 of them again with a later time.
            let i = (37 * (k % 120) as usize) % n;
            let t = 1_000 + 7 * k;
            sets.push((i, t));
            want[i] = Some(t);
        }
        for (bounds, runs) in [
            ((usize::MAX, 7, 0), false),
            ((10, 7, 0), true),
            ((10, 7, usize::MAX), true),
        ] {
            let (in_memory, run, spill) = bounds;
            let mut b = LeftAtBuilder::with_bounds(n, in_memory, run, spill);
            for &(i, t) in &sets {
                b.set(i, t).expect("set");
            }
            let l = b.finish().expect("built");
            assert_eq!(l.is_in_runs(), runs);
            assert_eq!(l.len(), n);
            assert_eq!(l.to_vec().expect("read"), want, "in runs: {runs}");
            for (i, &w) in want.iter().enumerate() {
                assert_eq!(l.get(i).expect("read"), w, "tenant {i}");
            }
            assert_eq!(l.get(n).expect("past the end"), None);
            assert_eq!(l.count().expect("count"), 120);
            assert_eq!(l, want);
            assert_eq!(l, LeftAt::from(want.clone()));
            let bytes = postcard::to_allocvec(&l).expect("encode");
            assert_eq!(bytes, postcard::to_allocvec(&want).expect("encode"));
            let back: LeftAt = postcard::from_bytes(&bytes).expect("decode");
            assert_eq!(back, l);
        }
        // Read back, more than 65,536 leavers are in runs again.
        let many: Vec<Option<Micros>> = (0..70_000).map(|i| (i % 2 == 0).then_some(i)).collect();
        let bytes = postcard::to_allocvec(&many).expect("encode");
        let back: LeftAt = postcard::from_bytes(&bytes).expect("decode");
        assert!(!back.is_in_runs(), "35,000 leavers are held in memory");
        let all: Vec<Option<Micros>> = (0..70_000).map(Some).collect();
        let bytes = postcard::to_allocvec(&all).expect("encode");
        let back: LeftAt = postcard::from_bytes(&bytes).expect("decode");
        assert!(back.is_in_runs(), "70,000 leavers are past the bound");
        assert_eq!(back, all);
    }
}
