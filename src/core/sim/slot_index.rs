//! Which slot each active tenant holds: the index of an
//! [`ActiveTable`](super::ActiveTable), sized by the tenants holding a
//! slot rather than by all tenants of the run (issue 34: memory by active
//! tenants; docs/PERFORMANCE.md "Internet scale", "Slot numbers by the
//! tenants present").
//!
//! A run of up to [`DENSE_UP_TO`] tenants, and a run where many of its
//! tenants hold a slot at once (scale-1m: all 10^6 at t = 0), index them
//! densely: 4 bytes a tenant, one read. A larger run starts sparse: an
//! open-addressing table of (tenant, slot) pairs, linear probing,
//! Fibonacci hashing, at most half full, its capacity doubled as it
//! fills. Once that table would take as many bytes as the dense array
//! (8 bytes a bucket against 4 a tenant) it becomes the dense array for
//! the rest of the run. scale-year's 10^7 tenants, of which about 2,000
//! hold a slot at once, cost a table of 4,096 buckets (32 KiB, in cache)
//! instead of 40 MB per table.
//!
//! The representation changes what is held, never what is read: every
//! query answers as the dense array would (the proptest below checks
//! both against a map), and a holder's slot numbers are its own.

use super::prefetch::prefetch;

/// No slot: the tenant holds none.
pub const NONE: u32 = u32::MAX;

/// Runs of at most this many tenants are indexed densely from the start
/// (256 KiB): every bundled scenario but the scale ones.
pub const DENSE_UP_TO: usize = 1 << 16;

/// Buckets of a sparse index when it is made.
const FIRST_BUCKETS: usize = 16;

/// The slot of each of tenants `0..n` holding one (n < 2³²−1).
#[derive(Debug, Clone)]
pub struct SlotIndex {
    n: usize,
    repr: Repr,
}

#[derive(Debug, Clone)]
enum Repr {
    /// Per tenant: its slot, or [`NONE`].
    Dense(Vec<u32>),
    /// (tenant, slot) pairs; an empty bucket's tenant is [`NONE`].
    Sparse {
        buckets: Vec<[u32; 2]>,
        /// Pairs held.
        len: usize,
        /// 32 − log2(buckets): a tenant's home bucket is the top bits of
        /// its Fibonacci hash.
        shift: u32,
    },
}

/// Tenant `i`'s home bucket in a table of 2^(32 − `shift`) buckets:
/// ⌊(i · ⌊2³²/φ⌋ mod 2³²) / 2^shift⌋ (Knuth's multiplicative hashing; the
/// odd multiplier spreads consecutive indices over the table).
#[inline]
fn home(i: u32, shift: u32) -> usize {
    (i.wrapping_mul(0x9E37_79B9) >> shift) as usize
}

/// Where `key` is in `buckets` (a power of two of them, `shift` as in
/// [`home`]), or the empty bucket where its probe from its home ends;
/// whether it is there.
#[inline]
fn probe(buckets: &[[u32; 2]], shift: u32, key: u32) -> (usize, bool) {
    let mask = buckets.len() - 1;
    let mut b = home(key, shift);
    loop {
        match buckets[b][0] {
            k if k == key => return (b, true),
            NONE => return (b, false),
            _ => b = (b + 1) & mask,
        }
    }
}

impl SlotIndex {
    /// An index over tenants `0..n`, none holding a slot.
    pub fn new(n: usize) -> Self {
        if n <= DENSE_UP_TO {
            Self {
                n,
                repr: Repr::Dense(vec![NONE; n]),
            }
        } else {
            Self::sparse(n)
        }
    }

    /// A sparse index over tenants `0..n` (whatever `n`: the form of a
    /// large run; tests use it on small ones).
    pub fn sparse(n: usize) -> Self {
        Self {
            n,
            repr: Repr::Sparse {
                buckets: vec![[NONE, NONE]; FIRST_BUCKETS],
                len: 0,
                shift: 32 - FIRST_BUCKETS.trailing_zeros(),
            },
        }
    }

    /// Whether the index is the dense array (for tests and measurements).
    pub fn is_dense(&self) -> bool {
        matches!(self.repr, Repr::Dense(_))
    }

    /// Tenant `i`'s slot, or [`NONE`].
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match &self.repr {
            Repr::Dense(slots) => slots[i],
            Repr::Sparse { buckets, shift, .. } => {
                debug_assert!(i < self.n);
                match probe(buckets, *shift, i as u32) {
                    (b, true) => buckets[b][1],
                    (_, false) => NONE,
                }
            }
        }
    }

    /// Prefetch hint for where tenant `i`'s slot is read (any `i`).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        match &self.repr {
            Repr::Dense(slots) => {
                if let Some(s) = slots.get(i) {
                    prefetch(s);
                }
            }
            Repr::Sparse { buckets, shift, .. } => {
                if let Some(b) = buckets.get(home(i as u32, *shift)) {
                    prefetch(b);
                }
            }
        }
    }

    /// Tenant `i` holds slot `s` (not [`NONE`]) from now on.
    pub fn set(&mut self, i: usize, s: u32) {
        debug_assert!(i < self.n && s != NONE);
        if let Repr::Sparse { buckets, len, .. } = &self.repr
            && (*len + 1) * 2 > buckets.len()
        {
            self.grow();
        }
        match &mut self.repr {
            Repr::Dense(slots) => slots[i] = s,
            Repr::Sparse {
                buckets,
                len,
                shift,
            } => {
                let (b, there) = probe(buckets, *shift, i as u32);
                if !there {
                    *len += 1;
                }
                buckets[b] = [i as u32, s];
            }
        }
    }

    /// Tenant `i` holds no slot from now on; the one it held, or [`NONE`].
    pub fn remove(&mut self, i: usize) -> u32 {
        match &mut self.repr {
            Repr::Dense(slots) => std::mem::replace(&mut slots[i], NONE),
            Repr::Sparse {
                buckets,
                len,
                shift,
            } => {
                let (mut hole, there) = probe(buckets, *shift, i as u32);
                if !there {
                    return NONE;
                }
                let mask = buckets.len() - 1;
                let held = buckets[hole][1];
                // Backward-shift deletion: each pair after the hole, up to
                // the next empty bucket, moves into the hole unless its
                // home lies cyclically in (hole, its bucket], so every
                // pair stays reachable from its home without tombstones.
                let mut j = hole;
                loop {
                    j = (j + 1) & mask;
                    let [k, _] = buckets[j];
                    if k == NONE {
                        break;
                    }
                    let h = home(k, *shift);
                    let stays = if hole <= j {
                        hole < h && h <= j
                    } else {
                        hole < h || h <= j
                    };
                    if !stays {
                        buckets[hole] = buckets[j];
                        hole = j;
                    }
                }
                buckets[hole] = [NONE, NONE];
                *len -= 1;
                held
            }
        }
    }

    /// Double a sparse index, or make it the dense array once the doubled
    /// table would take as many bytes (8 a bucket against 4 a tenant).
    #[inline(never)]
    fn grow(&mut self) {
        let Repr::Sparse { buckets, .. } = &mut self.repr else {
            return;
        };
        let doubled = buckets.len() * 2;
        let old = std::mem::take(buckets);
        let pairs = old.into_iter().filter(|p| p[0] != NONE);
        if doubled * 8 >= self.n * 4 {
            let mut slots = vec![NONE; self.n];
            for [k, s] in pairs {
                slots[k as usize] = s;
            }
            self.repr = Repr::Dense(slots);
        } else {
            self.repr = Repr::Sparse {
                buckets: vec![[NONE, NONE]; doubled],
                len: 0,
                shift: 32 - doubled.trailing_zeros(),
            };
            // At most a quarter full now: no growth while they go back.
            for [k, s] in pairs {
                self.set(k as usize, s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn small_runs_are_dense_large_ones_sparse_until_many_hold_a_slot() {
        assert!(SlotIndex::new(DENSE_UP_TO).is_dense());
        let n = 1 << 20;
        let mut x = SlotIndex::new(n);
        assert!(!x.is_dense());
        // 2,000 tenants spread over the run: still sparse (4,096 buckets).
        for j in 0..2_000 {
            x.set(j * 499, j as u32);
        }
        assert!(!x.is_dense());
        assert!((0..2_000).all(|j| x.get(j * 499) == j as u32));
        assert_eq!(x.get(1), NONE);
        // Past n / 4 of them the table would outgrow the dense array.
        for i in 0..n / 4 + 1 {
            x.set(i, 7);
        }
        assert!(x.is_dense());
        assert_eq!((x.get(0), x.get(n / 4), x.get(n - 1)), (7, 7, NONE));
        assert_eq!(x.get(1_000 * 499), 1_000);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Set(usize, u32),
        Remove(usize),
    }

    proptest! {
        /// Against a map (the brute-force reference), a sparse index
        /// (collisions, wrap-around, backward shifts, doubling, growth
        /// into the dense array at n / 4 tenants) and the dense one answer
        /// every query alike after every operation.
        #[test]
        fn it_reads_as_a_map_whatever_its_form(
            n in 17usize..300,
            ops in prop::collection::vec(
                prop_oneof![
                    3 => (0..300usize, 0..1_000u32).prop_map(|(i, s)| Op::Set(i, s)),
                    1 => (0..300usize).prop_map(Op::Remove),
                ],
                0..400,
            ),
        ) {
            let mut sparse = SlotIndex::sparse(n);
            let mut dense = SlotIndex { n, repr: Repr::Dense(vec![NONE; n]) };
            let mut map = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Set(i, s) => {
                        let i = i % n;
                        sparse.set(i, s);
                        dense.set(i, s);
                        map.insert(i, s);
                    }
                    Op::Remove(i) => {
                        let i = i % n;
                        let want = map.remove(&i).unwrap_or(NONE);
                        prop_assert_eq!(sparse.remove(i), want);
                        prop_assert_eq!(dense.remove(i), want);
                    }
                }
                for i in 0..n {
                    let want = map.get(&i).copied().unwrap_or(NONE);
                    prop_assert_eq!(sparse.get(i), want);
                    prop_assert_eq!(dense.get(i), want);
                }
                // Sparse while the table is smaller than the array.
                if let Repr::Sparse { buckets, len, .. } = &sparse.repr {
                    prop_assert_eq!(*len, map.len());
                    prop_assert!(buckets.len() == FIRST_BUCKETS || buckets.len() * 8 < n * 4);
                }
            }
        }
    }
}
