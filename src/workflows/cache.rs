//! The memo cache of step outputs (DESIGN §14.3): entries keyed by
//! (scope, cache key), expiry, capacity and the `lru` and `cost`
//! eviction rules.
//!
//! The cache knows entries by **slot**: the caller numbers the distinct
//! (scope key, `cache_key`) pairs of a run `0..slots` once, before the
//! run (the workload does it from the trace), so a lookup or a store is
//! an index, never a hash of text, and nothing is allocated per
//! operation: the entries' fields are arrays of `slots`, the eviction
//! order is an [`IndexedHeap`] of slots (O(log n) to push, re-key or
//! remove), and expiry is a queue of (expiry time, slot, insertion
//! number) in creation order — creation times never decrease and every
//! entry lives `max_age`, so expiry times never decrease either and the
//! queue's front is the next to expire. A replaced or evicted entry
//! leaves its queue record behind; the insertion number tells it is
//! stale (lazy deletion).
//!
//! **Eviction order** ([`EvictKey`]): under `lru` (least recently used
//! first) the key is (last used, created, insertion number); under `cost`
//! it is value per byte first, compared exactly by cross-multiplication
//! (value₁ · max(1, b₂) < value₂ · max(1, b₁), in `u128`, so no rounding),
//! then the `lru` key. Under `lru` every entry's value is 0 and its bytes
//! 1, so the per-byte comparison ties and the `lru` key decides. Under a
//! registered rule (DESIGN §14.8) the key starts with the rule's score
//! (as [`score_key`](super::rule::score_key)'s order-preserving `u64`),
//! given at creation ([`MemoCache::store_scored`]) and at each hit
//! ([`MemoCache::rescore`]), then value 0 and bytes 1 as under `lru`;
//! under the built-ins every score is 0, so their order is the one above
//! exactly.

use std::collections::VecDeque;

use crate::core::sim::heap::IndexedHeap;
use crate::core::sim::time::Micros;

use super::policy::{CacheConfig, CacheRule};

/// Where an entry stands in the eviction order: smallest evicted first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvictKey {
    /// A registered rule's score as [`score_key`](super::rule::score_key)
    /// (0 under the built-ins).
    pub score: u64,
    /// Run time saved by a hit, µs × max(1, gpus + cpus) (0 under `lru`).
    pub value: u64,
    /// max(1, bytes) (1 under `lru`).
    pub bytes: u64,
    /// Last hit or creation, µs.
    pub last_used: Micros,
    /// Creation, µs.
    pub created: Micros,
    /// Insertion number (unique).
    pub seq: u64,
}

impl Ord for EvictKey {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        let a = u128::from(self.value) * u128::from(o.bytes);
        let b = u128::from(o.value) * u128::from(self.bytes);
        self.score
            .cmp(&o.score)
            .then(a.cmp(&b))
            .then(self.last_used.cmp(&o.last_used))
            .then(self.created.cmp(&o.created))
            .then(self.seq.cmp(&o.seq))
    }
}

impl PartialOrd for EvictKey {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// What the cache did over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheCounts {
    /// Lookups that hit.
    pub hits: u64,
    /// Lookups that missed.
    pub misses: u64,
    /// Entries stored.
    pub stored: u64,
    /// Entries evicted for capacity.
    pub evicted: u64,
    /// Entries removed because they expired.
    pub expired: u64,
    /// Outputs not stored because larger than the capacity.
    pub too_large: u64,
    /// Bytes held now.
    pub bytes: u64,
    /// Most bytes held at once.
    pub bytes_max: u64,
}

/// What [`MemoCache::store`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// Stored, after evicting this many entries.
    Yes {
        /// Entries evicted to make room.
        evicted: u32,
    },
    /// Larger than the capacity: not stored.
    TooLarge,
}

/// How a cache orders its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Off,
    Lru,
    Cost,
    Scored,
}

/// The memo cache of one run.
#[derive(Debug, Clone)]
pub struct MemoCache {
    rule: Order,
    capacity: u64,
    max_age: Micros,
    bytes: Vec<u64>,
    /// Per slot: the key it was last pushed with (its fields are the
    /// entry's value, bytes, last used, created, insertion number).
    order: IndexedHeap<EvictKey>,
    expiry: VecDeque<(Micros, u32, u64)>,
    next_seq: u64,
    counts: CacheCounts,
    /// The slots evicted by the last store, in eviction order (for tests
    /// and logs; reused, never shrunk).
    last_evicted: Vec<u32>,
    /// Per slot: hits of its entry since it was stored.
    hits: Vec<u64>,
}

impl MemoCache {
    /// Bytes a cache of `slots` slots holds per slot at most (memory
    /// estimates, DESIGN §8.5): its bytes and hits (8 + 8), its slot in
    /// the eviction heap ([`IndexedHeap::ITEM_BYTES`]), an entry of the
    /// expiry queue (24, in a queue that grows: twice) and of the last
    /// store's evictions (4, likewise twice).
    pub const SLOT_BYTES: u64 = 8 + 8 + IndexedHeap::<EvictKey>::ITEM_BYTES + 2 * 24 + 2 * 4;

    /// An empty cache of `slots` (scope, key) pairs under `rule` (`off`
    /// behaves as a cache that never holds anything; a registered rule's
    /// scores come with [`MemoCache::store_scored`] and
    /// [`MemoCache::rescore`]).
    pub fn new(slots: usize, rule: &CacheRule, cfg: &CacheConfig) -> Self {
        Self {
            rule: match rule {
                CacheRule::Off => Order::Off,
                CacheRule::Lru => Order::Lru,
                CacheRule::Cost => Order::Cost,
                CacheRule::User(_) => Order::Scored,
            },
            capacity: cfg.capacity_bytes,
            max_age: cfg.max_age,
            bytes: vec![0; slots],
            order: IndexedHeap::new(slots),
            expiry: VecDeque::new(),
            next_seq: 0,
            counts: CacheCounts::default(),
            last_evicted: Vec::new(),
            hits: vec![0; slots],
        }
    }

    /// Hits of slot `slot`'s entry since it was stored.
    pub fn hits(&self, slot: u32) -> u64 {
        self.hits[slot as usize]
    }

    /// Give slot `slot`'s entry the score `key` (a registered rule's, as
    /// [`score_key`](super::rule::score_key)); nothing if it holds none.
    pub fn rescore(&mut self, slot: u32, key: u64) {
        if self.contains(slot) {
            let mut k = self.order.key(slot);
            k.score = key;
            self.order.push(slot, k);
        }
    }

    /// Whether slot `slot` holds an entry (expired or not).
    pub fn contains(&self, slot: u32) -> bool {
        self.order.contains(slot)
    }

    /// Slot `slot`'s entry: (created, last used, bytes), if it holds one.
    pub fn entry(&self, slot: u32) -> Option<(Micros, Micros, u64)> {
        self.contains(slot).then(|| {
            let k = self.order.key(slot);
            (k.created, k.last_used, self.bytes[slot as usize])
        })
    }

    /// Whether a lookup at `now` would hit: an entry with `created ≤ now
    /// < created + max_age`.
    fn live(&self, slot: u32, now: Micros) -> bool {
        self.contains(slot) && {
            let k = self.order.key(slot);
            k.created <= now && now < k.created.saturating_add(self.max_age)
        }
    }

    /// A ready step looks its output up at `now`: a hit marks the entry
    /// used at `now`. Counted as a hit or a miss.
    pub fn lookup(&mut self, slot: u32, now: Micros) -> bool {
        if self.rule != Order::Off && self.live(slot, now) {
            let mut k = self.order.key(slot);
            k.last_used = now;
            self.order.push(slot, k);
            self.counts.hits += 1;
            self.hits[slot as usize] += 1;
            true
        } else {
            self.counts.misses += 1;
            false
        }
    }

    fn remove(&mut self, slot: u32) {
        if self.order.remove(slot) {
            self.counts.bytes -= self.bytes[slot as usize];
        }
    }

    /// Remove the entries expired at `now` (`created + max_age ≤ now`).
    fn expire(&mut self, now: Micros) {
        while let Some(&(at, slot, seq)) = self.expiry.front() {
            if at > now {
                break;
            }
            self.expiry.pop_front();
            if self.contains(slot) && self.order.key(slot).seq == seq {
                self.remove(slot);
                self.counts.expired += 1;
            }
        }
    }

    /// Store the output of a step that completed at `now` in `slot`:
    /// `bytes` long, saving `value` (µs × max(1, gpus + cpus)) per hit.
    /// Expired entries go first, then the slot's old entry (replaced);
    /// an output larger than the capacity is not stored; else entries
    /// are evicted in [`EvictKey`] order until it fits.
    pub fn store(&mut self, slot: u32, bytes: u64, value: u64, now: Micros) -> Stored {
        self.store_scored(slot, bytes, value, 0, now)
    }

    /// [`MemoCache::store`] with the new entry's score `key` (a registered
    /// rule's, as [`score_key`](super::rule::score_key); 0 under the
    /// built-ins). The score orders the entry against the others once
    /// stored: eviction to make room for it looks only at those.
    pub fn store_scored(
        &mut self,
        slot: u32,
        bytes: u64,
        value: u64,
        key: u64,
        now: Micros,
    ) -> Stored {
        self.last_evicted.clear();
        if self.rule == Order::Off {
            return Stored::TooLarge;
        }
        self.expire(now);
        self.remove(slot);
        if bytes > self.capacity {
            self.counts.too_large += 1;
            return Stored::TooLarge;
        }
        let mut evicted = 0;
        while self.counts.bytes + bytes > self.capacity {
            let Some(victim) = self.order.pop() else {
                break;
            };
            self.counts.bytes -= self.bytes[victim as usize];
            self.counts.evicted += 1;
            self.last_evicted.push(victim);
            evicted += 1;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let (value, per) = match self.rule {
            Order::Cost => (value, bytes.max(1)),
            _ => (0, 1),
        };
        self.hits[slot as usize] = 0;
        self.order.push(
            slot,
            EvictKey {
                score: key,
                value,
                bytes: per,
                last_used: now,
                created: now,
                seq,
            },
        );
        self.bytes[slot as usize] = bytes;
        self.counts.bytes += bytes;
        self.counts.bytes_max = self.counts.bytes_max.max(self.counts.bytes);
        self.counts.stored += 1;
        if self.max_age != Micros::MAX {
            self.expiry
                .push_back((now.saturating_add(self.max_age), slot, seq));
        }
        Stored::Yes { evicted }
    }

    /// The slots the last [`MemoCache::store`] evicted, in order.
    pub fn last_evicted(&self) -> &[u32] {
        &self.last_evicted
    }

    /// Bytes held now.
    pub fn held(&self) -> u64 {
        self.counts.bytes
    }

    /// The counts so far.
    pub fn counts(&self) -> CacheCounts {
        self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cache(rule: CacheRule, capacity: u64, max_age: Micros) -> MemoCache {
        MemoCache::new(
            8,
            &rule,
            &CacheConfig {
                capacity_bytes: capacity,
                max_age,
                ..CacheConfig::default()
            },
        )
    }

    /// Capacity 10 under `lru`: store a (4 B, t=0), b (4 B, t=1); hit a at
    /// t=2 (a last used 2, b last used 1); store c (4 B, t=3): 12 > 10, so
    /// the least recently used, b, goes; a and c stay (8 B held).
    #[test]
    fn lru_evicts_the_least_recently_used_entry() {
        let mut c = cache(CacheRule::Lru, 10, Micros::MAX);
        c.store(0, 4, 100, 0);
        c.store(1, 4, 100, 1);
        assert!(c.lookup(0, 2));
        assert_eq!(c.store(2, 4, 100, 3), Stored::Yes { evicted: 1 });
        assert_eq!(c.last_evicted(), &[1]);
        assert!(c.contains(0) && !c.contains(1) && c.contains(2));
        assert_eq!(c.held(), 8);
        assert_eq!(c.counts().evicted, 1);
    }

    /// Capacity 10 under `cost`: a saves 100 µs in 4 B (25 per byte), b
    /// 300 µs in 4 B (75 per byte), c 40 µs in 2 B (20 per byte). Storing
    /// d (6 B, value 1) at t=3: 10 + 6 > 10 → evict the lowest per byte,
    /// c (held 8), still 14 > 10 → a (held 4); b stays though it is the
    /// least recently used. d itself, 1/6 per byte, is not a candidate
    /// before it is stored.
    #[test]
    fn cost_evicts_the_least_value_per_byte() {
        let mut c = cache(CacheRule::Cost, 10, Micros::MAX);
        c.store(1, 4, 300, 0);
        c.store(0, 4, 100, 1);
        c.store(2, 2, 40, 2);
        assert_eq!(c.store(3, 6, 1, 3), Stored::Yes { evicted: 2 });
        assert_eq!(c.last_evicted(), &[2, 0]);
        assert!(c.contains(1) && c.contains(3));
        assert_eq!(c.held(), 10);
    }

    /// Equal value per byte under `cost` (100 µs in 4 B and 50 µs in 2 B):
    /// the tie goes to the least recently used (the 2 B entry, hit never,
    /// created at 1, versus the 4 B one hit at 2).
    #[test]
    fn cost_ties_fall_back_to_lru() {
        let mut c = cache(CacheRule::Cost, 6, Micros::MAX);
        c.store(0, 4, 100, 0);
        c.store(1, 2, 50, 1);
        assert!(c.lookup(0, 2));
        c.store(2, 1, 1000, 3);
        assert_eq!(c.last_evicted(), &[1]);
    }

    /// max_age 10: an entry created at 5 hits at 5 and 14, not at 15 (5 +
    /// 10 = 15 is past its life) nor at 4 (before it was created); the
    /// next store at 15 removes it (counted expired, not evicted).
    #[test]
    fn entries_expire_after_max_age() {
        let mut c = cache(CacheRule::Lru, 100, 10);
        c.store(0, 4, 1, 5);
        assert!(!c.lookup(0, 4));
        assert!(c.lookup(0, 5));
        assert!(c.lookup(0, 14));
        assert!(!c.lookup(0, 15));
        assert!(c.contains(0));
        c.store(1, 4, 1, 15);
        assert!(!c.contains(0));
        assert_eq!(c.counts().expired, 1);
        assert_eq!(c.counts().evicted, 0);
        assert_eq!(c.held(), 4);
    }

    /// Storing a key again replaces its entry (bytes of the new one only,
    /// created anew; the old expiry record is stale and ignored), and an
    /// output larger than the capacity is not stored (the old entry of
    /// its key is gone all the same: replaced by nothing).
    #[test]
    fn replacement_and_too_large() {
        let mut c = cache(CacheRule::Lru, 10, 10);
        c.store(0, 4, 1, 0);
        c.store(0, 6, 1, 8);
        assert_eq!(c.held(), 6);
        assert_eq!(c.entry(0), Some((8, 8, 6)));
        c.store(1, 1, 1, 12);
        assert!(c.contains(0), "the record of the first entry is stale");
        assert_eq!(c.store(0, 11, 1, 13), Stored::TooLarge);
        assert!(!c.contains(0));
        assert_eq!(c.counts().too_large, 1);
        assert_eq!(c.held(), 1);
    }

    /// A brute-force model: a Vec of (slot, bytes, value, created, last
    /// used, seq), every rule a scan.
    #[derive(Default)]
    struct Model {
        entries: Vec<(u32, u64, u64, Micros, Micros, u64)>,
        seq: u64,
    }

    impl Model {
        fn held(&self) -> u64 {
            self.entries.iter().map(|e| e.1).sum()
        }
        fn lookup(&mut self, slot: u32, now: Micros, age: Micros) -> bool {
            match self
                .entries
                .iter_mut()
                .find(|e| e.0 == slot && e.3 <= now && now < e.3.saturating_add(age))
            {
                Some(e) => {
                    e.4 = now;
                    true
                }
                None => false,
            }
        }
        /// Returns the evicted slots.
        #[allow(clippy::too_many_arguments)]
        fn store(
            &mut self,
            rule: CacheRule,
            cap: u64,
            age: Micros,
            slot: u32,
            bytes: u64,
            value: u64,
            now: Micros,
        ) -> Vec<u32> {
            self.entries.retain(|e| e.3.saturating_add(age) > now);
            self.entries.retain(|e| e.0 != slot);
            let mut out = Vec::new();
            if bytes > cap {
                return out;
            }
            while self.held() + bytes > cap {
                // The smallest by the rule: scan.
                let better =
                    |a: &(u32, u64, u64, Micros, Micros, u64),
                     b: &(u32, u64, u64, Micros, Micros, u64)| {
                        if rule == CacheRule::Cost {
                            let x = u128::from(a.2) * u128::from(b.1.max(1));
                            let y = u128::from(b.2) * u128::from(a.1.max(1));
                            if x != y {
                                return x < y;
                            }
                        }
                        (a.4, a.3, a.5) < (b.4, b.3, b.5)
                    };
                let mut best = 0;
                for k in 1..self.entries.len() {
                    if better(&self.entries[k], &self.entries[best]) {
                        best = k;
                    }
                }
                out.push(self.entries.remove(best).0);
            }
            self.entries.push((slot, bytes, value, now, now, self.seq));
            self.seq += 1;
            out
        }
    }

    proptest! {
        /// Random lookups and stores at non-decreasing times: the cache
        /// and the brute-force model agree on every hit and every
        /// eviction, and neither ever holds more than the capacity.
        #[test]
        fn the_cache_matches_a_brute_force_model(
            cost in any::<bool>(),
            cap in 1u64..40,
            age in prop_oneof![Just(Micros::MAX), 1u64..30],
            ops in proptest::collection::vec((any::<bool>(), 0u32..8, 0u64..15, 0u64..50, 0u64..4), 1..80),
        ) {
            let rule = if cost { CacheRule::Cost } else { CacheRule::Lru };
            let mut c = cache(rule.clone(), cap, age);
            let mut m = Model::default();
            let mut now = 0;
            for (is_store, slot, bytes, value, dt) in ops {
                now += dt;
                if is_store {
                    let expect = m.store(rule.clone(), cap, age, slot, bytes, value, now);
                    c.store(slot, bytes, value, now);
                    prop_assert_eq!(c.last_evicted(), &expect[..]);
                } else {
                    prop_assert_eq!(c.lookup(slot, now), m.lookup(slot, now, age));
                }
                prop_assert!(c.held() <= cap);
                prop_assert_eq!(c.held(), m.held());
            }
        }
    }
}
