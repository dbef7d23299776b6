//! Per-tenant state held only while a tenant is active (issue 34: memory by
//! active tenants; DESIGN §3.3 "Lifetime", docs/PERFORMANCE.md "Internet
//! scale").
//!
//! An [`ActiveTable`] maps tenant indices `0..n` to values that exist
//! only between [`ActiveTable::get_or_insert`] and
//! [`ActiveTable::release`]. The values sit densely in slots, so a run
//! of 10^7 tenants of which 2,000 are present at once holds 2,000 values,
//! not 10^7; so does the index of their slot numbers
//! ([`SlotIndex`]: 4 bytes a tenant for a run of up to 65,536 tenants
//! or one where many hold a slot at once, else a hash table of the
//! holders). Released slots are reused, last released first; nothing
//! allocates once the table has grown to the most tenants active at
//! once.
//!
//! Tenants keep their own indices: a policy that breaks ties by tenant
//! index reads them as before, only the storage moved.

use super::prefetch::prefetch_all;
use super::slot_index::{NONE, SlotIndex};

/// Values of type `T` for the active ones of tenants `0..n` (n < 2³²−1).
#[derive(Debug, Clone)]
pub struct ActiveTable<T> {
    /// Each active tenant's slot in `items`.
    slot_of: SlotIndex,
    /// The values by slot; a free slot holds `T::default()`.
    items: Vec<T>,
    /// Free slots, the last released on top.
    free: Vec<u32>,
}

impl<T: Default> ActiveTable<T> {
    /// A table for tenants `0..n`, none active.
    pub fn new(n: usize) -> Self {
        Self {
            slot_of: SlotIndex::new(n),
            items: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Prefetch hint for tenant `i`'s slot number (any `i`).
    #[inline]
    pub fn prefetch_slot(&self, i: usize) {
        self.slot_of.prefetch(i);
    }

    /// Prefetch hint for every line of tenant `i`'s value, if it holds one
    /// (its slot number is read: hint it with [`Self::prefetch_slot`]
    /// first).
    #[inline]
    pub fn prefetch_value(&self, i: usize) {
        if let Some(v) = self.get(i) {
            prefetch_all(v);
        }
    }

    /// Tenant `i`'s value, if it holds one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        match self.slot_of.get(i) {
            NONE => None,
            s => self.items.get(s as usize),
        }
    }

    /// Tenant `i`'s value to change, if it holds one.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        match self.slot_of.get(i) {
            NONE => None,
            s => self.items.get_mut(s as usize),
        }
    }

    /// Tenant `i`'s value, `T::default()` if it held none (it holds one
    /// from now on).
    #[inline]
    pub fn get_or_insert(&mut self, i: usize) -> &mut T {
        let (s, _) = self.slot_or_insert(i);
        &mut self.items[s]
    }

    /// Tenant `i`'s slot, if it holds one. Slots are `0..high_water()`: a
    /// holder of the table may keep more per-tenant values in arrays of its
    /// own indexed by slot (values that are not a fixed-size `T`, such as a
    /// run-long number of thresholds).
    #[inline]
    pub fn slot(&self, i: usize) -> Option<usize> {
        match self.slot_of.get(i) {
            NONE => None,
            s => Some(s as usize),
        }
    }

    /// Tenant `i`'s slot, taking one if it held none; `true` when it was
    /// taken now (its value is `T::default()`, and whatever a holder keeps
    /// beside it by slot is the last releaser's).
    #[inline]
    pub fn slot_or_insert(&mut self, i: usize) -> (usize, bool) {
        match self.slot_of.get(i) {
            NONE => (self.insert(i), true),
            s => (s as usize, false),
        }
    }

    /// A slot for tenant `i`, which holds none (out of line: once a
    /// tenant).
    #[inline(never)]
    fn insert(&mut self, i: usize) -> usize {
        match self.slot_of.get(i) {
            NONE => {
                let s = match self.free.pop() {
                    Some(s) => s,
                    None => {
                        self.items.push(T::default());
                        // `n` < 2³²−1 tenants hold at most `n` slots.
                        u32::try_from(self.items.len() - 1).unwrap_or(NONE - 1)
                    }
                };
                self.slot_of.set(i, s);
                s as usize
            }
            s => s as usize,
        }
    }

    /// The value in slot `s` ([`Self::slot`]).
    #[inline]
    pub fn at_mut(&mut self, s: usize) -> &mut T {
        &mut self.items[s]
    }

    /// The value in slot `s` ([`Self::slot`]).
    #[inline]
    pub fn at(&self, s: usize) -> &T {
        &self.items[s]
    }

    /// Tenant `i` holds no value any more: what it held is dropped now and
    /// its slot goes to the next tenant that needs one. Releasing a tenant
    /// that holds none changes nothing.
    pub fn release(&mut self, i: usize) {
        let s = self.slot_of.remove(i);
        if s != NONE {
            self.items[s as usize] = T::default();
            self.free.push(s);
        }
    }

    /// Tenants holding a value now.
    pub fn active(&self) -> usize {
        self.items.len() - self.free.len()
    }

    /// The most tenants that held a value at once so far: the slots the
    /// table has grown to.
    pub fn high_water(&self) -> usize {
        self.items.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn a_released_slot_goes_to_the_next_tenant_with_a_fresh_value() {
        let mut t = ActiveTable::<Vec<u32>>::new(4);
        t.get_or_insert(3).push(7);
        t.get_or_insert(1).push(5);
        assert_eq!((t.active(), t.high_water()), (2, 2));
        t.release(3);
        assert_eq!(t.get(3), None);
        // Tenant 0 takes tenant 3's slot, emptied.
        assert!(t.get_or_insert(0).is_empty());
        assert_eq!((t.active(), t.high_water()), (2, 2));
        assert_eq!(t.get(1), Some(&vec![5]));
        t.release(2);
        assert_eq!(t.active(), 2);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(usize, u64),
        Change(usize, u64),
        Release(usize),
    }

    fn op(n: usize) -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..n, any::<u64>()).prop_map(|(i, v)| Op::Insert(i, v)),
            (0..n, any::<u64>()).prop_map(|(i, v)| Op::Change(i, v)),
            (0..n).prop_map(Op::Release),
        ]
    }

    proptest! {
        /// Against a map of the active tenants' values (the brute-force
        /// reference): every read agrees after every operation, and the
        /// slots never outnumber the most tenants active at once.
        #[test]
        fn it_reads_as_a_map_of_the_active_tenants(ops in prop::collection::vec(op(12), 0..200)) {
            let mut table = ActiveTable::<u64>::new(12);
            let mut map = BTreeMap::new();
            let mut most = 0;
            for op in ops {
                match op {
                    Op::Insert(i, v) => {
                        if v % 2 == 0 {
                            *table.get_or_insert(i) += v % 1000;
                        } else {
                            let (s, fresh) = table.slot_or_insert(i);
                            prop_assert_eq!(fresh, !map.contains_key(&i));
                            *table.at_mut(s) += v % 1000;
                        }
                        *map.entry(i).or_insert(0) += v % 1000;
                    }
                    Op::Change(i, v) => {
                        if let Some(x) = table.get_mut(i) { *x = v; }
                        if let Some(x) = map.get_mut(&i) { *x = v; }
                    }
                    Op::Release(i) => {
                        table.release(i);
                        map.remove(&i);
                    }
                }
                most = most.max(map.len());
                let mut slots = std::collections::BTreeSet::new();
                for i in 0..12 {
                    prop_assert_eq!(table.get(i), map.get(&i));
                    // A slot reads the tenant's value, below the high
                    // water, and no two tenants share one.
                    prop_assert_eq!(table.slot(i).map(|s| table.at(s)), map.get(&i));
                    if let Some(s) = table.slot(i) {
                        prop_assert!(s < table.high_water() && slots.insert(s));
                    }
                }
                prop_assert_eq!(table.active(), map.len());
                prop_assert_eq!(table.high_water(), most);
            }
        }
    }
}
