//! The indexed heap both modes build their queues on.
//!
//! [`IndexedHeap`] holds a subset of item ids `0..n`, each with a key, the
//! smallest `(key, item)` on top: equal keys go to the lowest item id, so the
//! order is total and the top never depends on the order of operations.
//! Pushing, changing a key and removing any item cost O(log n); reading the
//! top costs O(1); nothing allocates after construction. Job mode's
//! scheduler queues use it directly (their keys end with the job index);
//! [`ScoreHeap`] puts float scores on it, highest first, for model mode's
//! greedy schedulers.

use super::ActiveTable;
use super::prefetch::{PrefetchStep, prefetch};

const ABSENT: u32 = u32::MAX;

/// Children per node: a 4-ary heap is half as deep as a binary one, and a
/// node's four 16-byte children (a `u64` key and its item) span at most two
/// cache lines, so a sift through 100,000 items touches about half as many
/// lines.
const ARITY: usize = 4;

/// One heap slot: the item's key beside its id and its tie-breaker, so
/// comparisons along a sift read the heap array only (the tie-breaker
/// sits in what would be the slot's padding: a `u64` key's slot is 16
/// bytes with or without it).
#[derive(Debug, Clone, Copy)]
struct Slot<K> {
    key: K,
    item: u32,
    /// Equal keys go to the lower tie: the item itself, unless pushed
    /// with another ([`IndexedHeap::push_tied`]).
    tie: u32,
}

impl<K: Ord> Slot<K> {
    /// Whether this slot goes before `other`: smaller key, then lower tie.
    fn before(&self, other: &Slot<K>) -> bool {
        match self.key.cmp(&other.key) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => self.tie < other.tie,
            std::cmp::Ordering::Greater => false,
        }
    }
}

/// What the heap knows of one item: its position and last key side by
/// side, so that updating an item reads one cache line of this array, not
/// one in each of two (at 10^6 tenants every such read is a cache miss;
/// docs/PERFORMANCE.md "Internet scale").
#[derive(Debug, Clone, Copy)]
struct ItemInfo<K> {
    /// The key the item was last pushed with (kept after it leaves).
    key: K,
    /// Its position in `heap`, or `ABSENT`.
    pos: u32,
}

/// A min-heap of item ids `0..n` (n < 2³²−1) ordered by `(key, item)`.
#[derive(Debug, Clone)]
pub struct IndexedHeap<K> {
    /// Items in heap order (the smallest at 0), with their keys.
    heap: Vec<Slot<K>>,
    /// Per item: its position and last key.
    items: Vec<ItemInfo<K>>,
}

impl<K: Ord + Copy + Default> IndexedHeap<K> {
    /// Bytes a heap made for `n` items holds per item: its heap slot (made
    /// with room for every item) and its position and last key (memory
    /// estimates, DESIGN §8.5).
    pub const ITEM_BYTES: u64 = (size_of::<Slot<K>>() + size_of::<ItemInfo<K>>()) as u64;

    /// An empty heap for items `0..n`.
    pub fn new(n: usize) -> Self {
        Self {
            heap: Vec::with_capacity(n),
            items: vec![
                ItemInfo {
                    key: K::default(),
                    pos: ABSENT,
                };
                n
            ],
        }
    }

    /// Number of items in the heap.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Make room for items `0..n` (ids below the current room keep what
    /// they hold); the room never shrinks.
    pub fn grow_to(&mut self, n: usize) {
        if n > self.items.len() {
            self.items.resize(
                n,
                ItemInfo {
                    key: K::default(),
                    pos: ABSENT,
                },
            );
        }
    }

    /// Whether the heap is empty.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Whether `item` is in the heap.
    pub fn contains(&self, item: u32) -> bool {
        self.items[item as usize].pos != ABSENT
    }

    /// The key `item` was last pushed with, whether or not it is still in
    /// the heap (`K::default()` if it never was).
    pub fn key(&self, item: u32) -> K {
        self.items[item as usize].key
    }

    /// The first item and its key.
    pub fn peek(&self) -> Option<(u32, K)> {
        self.heap.first().map(|s| (s.item, s.key))
    }

    /// The ties of the first `N` slots in heap order (what `N` pops would
    /// return first, as ties), `None` past the end: without changing the
    /// heap, from its top `1 + ARITY·(N − 1)` slots at most (the r-th
    /// smallest is a child of one of the r − 1 before it, so each pick
    /// adds its children to the candidates). For hints: the top few levels
    /// are in the caches, so this reads no cold line.
    pub fn first_ties<const N: usize>(&self) -> [Option<u32>; N] {
        let mut out = [None; N];
        // Candidate positions: the children of the slots taken so far,
        // not yet taken. Pick r leaves at most 1 + 3r of them (one taken,
        // ARITY = 4 added), so the first 21 are named in full; past that
        // the rest are `None`.
        let mut cand = [0usize; 64];
        let mut n_cand = usize::from(!self.heap.is_empty());
        for slot in &mut out {
            let Some(b) = (0..n_cand).reduce(|b, c| {
                if self.heap[cand[c]].before(&self.heap[cand[b]]) {
                    c
                } else {
                    b
                }
            }) else {
                break;
            };
            let at = cand[b];
            *slot = Some(self.heap[at].tie);
            n_cand -= 1;
            cand[b] = cand[n_cand];
            let first = ARITY * at + 1;
            for c in first..(first + ARITY).min(self.heap.len()) {
                if n_cand == cand.len() {
                    return out;
                }
                cand[n_cand] = c;
                n_cand += 1;
            }
        }
        out
    }

    /// Insert `item` with `key`, or change its key if it is present.
    pub fn push(&mut self, item: u32, key: K) {
        self.push_tied(item, item, key);
    }

    /// [`Self::push`], equal keys going to the lower `tie` rather than the
    /// lower item (ties must be distinct among the items present: a heap
    /// over slots whose order is by tenant).
    pub fn push_tied(&mut self, item: u32, tie: u32, key: K) {
        let i = item as usize;
        self.items[i].key = key;
        let p = self.items[i].pos;
        if p == ABSENT {
            let at = self.heap.len();
            self.heap.push(Slot { key, item, tie });
            self.items[i].pos = at as u32;
            self.sift_up(at);
        } else {
            self.heap[p as usize].key = key;
            self.heap[p as usize].tie = tie;
            let at = self.sift_up(p as usize);
            self.sift_down(at);
        }
    }

    /// Remove and return the first item.
    pub fn pop(&mut self) -> Option<u32> {
        let top = self.heap.first()?.item;
        self.remove(top);
        Some(top)
    }

    /// Remove `item` if present; returns whether it was.
    pub fn remove(&mut self, item: u32) -> bool {
        let i = item as usize;
        let p = self.items[i].pos;
        if p == ABSENT {
            return false;
        }
        let p = p as usize;
        let last = self.heap.len() - 1;
        self.heap.swap(p, last);
        self.items[self.heap[p].item as usize].pos = p as u32;
        self.heap.pop();
        self.items[i].pos = ABSENT;
        if p < self.heap.len() {
            let at = self.sift_up(p);
            self.sift_down(at);
        }
        true
    }

    /// Put `slot` at `at` and record its position.
    fn place(&mut self, at: usize, slot: Slot<K>) {
        self.items[slot.item as usize].pos = at as u32;
        self.heap[at] = slot;
    }

    /// Move the slot at `at` up past every parent it goes before (moving
    /// each parent down once, not swapping); its final position.
    fn sift_up(&mut self, mut at: usize) -> usize {
        let x = self.heap[at];
        while at > 0 {
            let parent = (at - 1) / ARITY;
            let p = self.heap[parent];
            if !x.before(&p) {
                break;
            }
            self.place(at, p);
            at = parent;
        }
        self.place(at, x);
        at
    }

    /// Move the slot at `at` down while a child goes before it.
    fn sift_down(&mut self, mut at: usize) {
        let len = self.heap.len();
        let x = self.heap[at];
        loop {
            let first = ARITY * at + 1;
            if first >= len {
                break;
            }
            let mut best = first;
            for c in first + 1..(first + ARITY).min(len) {
                if self.heap[c].before(&self.heap[best]) {
                    best = c;
                }
            }
            let b = self.heap[best];
            if !b.before(&x) {
                break;
            }
            self.place(at, b);
            at = best;
        }
        self.place(at, x);
    }
}

/// Whether `(sa, a)` ranks strictly above `(sb, b)`: the higher score wins;
/// equal scores go to the lower index; a NaN score ranks below every number
/// (−∞ included), as in the GP selectors' argmax. Scores compare with `>`,
/// so −0.0 and +0.0 tie.
pub fn ranks_above(sa: f64, a: usize, sb: f64, b: usize) -> bool {
    match (sa.is_nan(), sb.is_nan()) {
        (false, false) => sa > sb || (sa == sb && a < b),
        (true, true) => a < b,
        (false, true) => true,
        (true, false) => false,
    }
}

/// An integer that orders scores as [`ranks_above`] does, *lower* first
/// (the heap's top is its smallest key): the IEEE 754 total order trick
/// (flip every bit of a negative number, set the sign bit of a
/// non-negative one) gives a key that grows with the score, every NaN
/// mapped to 0 below every number and −0.0 mapped like +0.0; its
/// complement puts the highest score first.
fn score_key(score: f64) -> u64 {
    let rank = if score.is_nan() {
        0
    } else {
        let bits = (score + 0.0).to_bits(); // −0.0 + 0.0 = +0.0
        if bits >> 63 == 1 {
            !bits
        } else {
            bits | 1 << 63
        }
    };
    !rank
}

/// Scores of a subset of tenants `0..n`, with the best one on top by
/// [`ranks_above`]: an [`IndexedHeap`] keyed by `score_key`, ties to the
/// lower tenant ([`IndexedHeap::push_tied`]), over the *slots* of
/// the tenants holding a score ([`ActiveTable`]), beside the scores as
/// given. A tenant costs 4 bytes whether or not it holds a score; the
/// heap, its positions and the scores are sized by the most tenants
/// scored at once (issue 34: a year's 10^7 tenants, of which a few
/// thousand are present at once, held 24 bytes each here).
#[derive(Debug, Clone)]
pub struct ScoreHeap {
    heap: IndexedHeap<u64>,
    /// Score of each tenant holding one, as given, by slot.
    scores: ActiveTable<f64>,
}

impl ScoreHeap {
    /// An empty heap over tenants `0..n` (n < 2³²−1).
    pub fn new(n: usize) -> Self {
        Self {
            heap: IndexedHeap::new(0),
            scores: ActiveTable::new(n),
        }
    }

    /// Prefetch hints for what [`Self::set`] and [`Self::remove`] of
    /// tenant `i` read first: at [`PrefetchStep::Index`] its slot number;
    /// at [`PrefetchStep::Record`] (the slot number read) its score and
    /// its place in the heap.
    #[inline]
    pub fn prefetch(&self, i: usize, step: PrefetchStep) {
        match step {
            PrefetchStep::Index => self.scores.prefetch_slot(i),
            PrefetchStep::Record => {
                if let Some(s) = self.scores.slot(i) {
                    prefetch(self.scores.at(s));
                    if let Some(info) = self.heap.items.get(s) {
                        prefetch(info);
                    }
                }
            }
            PrefetchStep::Data => {}
        }
    }

    /// Number of tenants with a score.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no tenant has a score.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Whether tenant `i` has a score.
    pub fn contains(&self, i: usize) -> bool {
        self.scores.slot(i).is_some()
    }

    /// The `N` best tenants, best first, `None` past the last: the
    /// tenants `N` removals of the top would see, if nothing else changed
    /// ([`IndexedHeap::first_ties`]: no cold read, for hints).
    pub fn first<const N: usize>(&self) -> [Option<usize>; N] {
        self.heap.first_ties::<N>().map(|t| t.map(|t| t as usize))
    }

    /// The best tenant and its score.
    pub fn top(&self) -> Option<(usize, f64)> {
        // The heap's first slot: its item is the tenant's slot, its tie
        // the tenant.
        self.heap
            .heap
            .first()
            .map(|x| (x.tie as usize, *self.scores.at(x.item as usize)))
    }

    /// Give tenant `i` the score `score` (inserting it if absent).
    pub fn set(&mut self, i: usize, score: f64) {
        let (s, _) = self.scores.slot_or_insert(i);
        *self.scores.at_mut(s) = score;
        self.heap.grow_to(self.scores.high_water());
        // `i` < n < 2³²−1.
        self.heap.push_tied(
            s as u32,
            u32::try_from(i).unwrap_or(u32::MAX),
            score_key(score),
        );
    }

    /// Remove tenant `i`'s score, if it has one.
    pub fn remove(&mut self, i: usize) {
        if let Some(s) = self.scores.slot(i) {
            self.heap.remove(s as u32);
            self.scores.release(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference for [`ScoreHeap`]: a scan for the best present tenant.
    fn scan(present: &[Option<f64>]) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (i, s) in present.iter().enumerate() {
            if let Some(s) = *s
                && best.is_none_or(|(b, sb)| ranks_above(s, i, sb, b))
            {
                best = Some((i, s));
            }
        }
        best
    }

    #[test]
    fn equal_keys_go_to_the_lowest_item_whatever_the_insertion_order() {
        let mut h = IndexedHeap::<u32>::new(8);
        for i in [7, 3, 5, 1, 6, 2] {
            h.push(i, 4);
        }
        assert_eq!(h.peek(), Some((1, 4)));
        h.push(5, 3);
        assert_eq!(h.pop(), Some(5));
        let order: Vec<u32> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(order, [1, 2, 3, 6, 7]);
    }

    #[test]
    fn key_is_kept_after_the_item_leaves() {
        // The job schedulers pop an item and push it back with `key(item)`.
        let mut h = IndexedHeap::<(u64, u32)>::new(3);
        h.push(2, (9, 2));
        h.push(0, (5, 0));
        assert_eq!(h.pop(), Some(0));
        assert!(!h.contains(0));
        assert_eq!(h.key(0), (5, 0));
        assert!(h.remove(2));
        assert!(!h.remove(2));
        assert_eq!(h.key(2), (9, 2));
        assert_eq!(h.key(1), (0, 0));
        assert!(h.is_empty());
    }

    #[test]
    fn tied_scores_go_to_the_lowest_index_whatever_the_insertion_order() {
        let mut h = ScoreHeap::new(6);
        for i in [5, 3, 4, 1, 2] {
            h.set(i, 0.5);
        }
        assert_eq!(h.top(), Some((1, 0.5)));
        h.remove(1);
        assert_eq!(h.top(), Some((2, 0.5)));
        h.set(4, 0.7);
        assert_eq!(h.top(), Some((4, 0.7)));
        h.set(4, 0.5);
        assert_eq!(h.top(), Some((2, 0.5)));
        // −0.0 and +0.0 tie (compared with `>`), so the lower index wins.
        let mut z = ScoreHeap::new(2);
        z.set(1, 0.0);
        z.set(0, -0.0);
        assert_eq!(z.top().map(|t| t.0), Some(0));
    }

    #[test]
    fn nan_ranks_below_everything() {
        let mut h = ScoreHeap::new(3);
        h.set(0, f64::NAN);
        h.set(2, f64::NEG_INFINITY);
        assert_eq!(h.top().map(|t| t.0), Some(2));
        h.remove(2);
        assert_eq!(h.top().map(|t| t.0), Some(0));
        h.set(1, f64::NAN);
        assert_eq!(h.top().map(|t| t.0), Some(0));
    }

    proptest! {
        /// Score keys order scores exactly as `ranks_above` does.
        #[test]
        fn score_keys_agree_with_ranks_above(
            a in prop_oneof![any::<f64>(), Just(f64::NAN), Just(-0.0), Just(0.0),
                             Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            b in prop_oneof![any::<f64>(), Just(f64::NAN), Just(-0.0), Just(0.0),
                             Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            i in 0u32..4, j in 0u32..4,
        ) {
            let x = Slot { key: score_key(a), item: i, tie: i };
            let y = Slot { key: score_key(b), item: j, tie: j };
            prop_assert_eq!(x.before(&y), ranks_above(a, i as usize, b, j as usize));
        }

        /// After any sequence of sets and removes, the top equals a scan.
        #[test]
        fn score_heap_top_matches_a_scan(
            n in 1usize..40,
            ops in proptest::collection::vec(
                (0usize..40, prop_oneof![
                    4 => (0u8..6).prop_map(|v| Some(f64::from(v) / 2.0)),
                    1 => Just(Some(f64::NAN)),
                    1 => Just(Some(f64::NEG_INFINITY)),
                    3 => Just(None),
                ]),
                0..200,
            ),
        ) {
            let mut h = ScoreHeap::new(n);
            let mut plain: Vec<Option<f64>> = vec![None; n];
            for &(i, s) in &ops {
                let i = i % n;
                match s {
                    Some(s) => h.set(i, s),
                    None => h.remove(i),
                }
                plain[i] = s;
                let want = scan(&plain);
                let got = h.top();
                prop_assert_eq!(got.map(|t| t.0), want.map(|t| t.0));
                prop_assert_eq!(h.len(), plain.iter().filter(|s| s.is_some()).count());
                prop_assert_eq!(h.contains(i), plain[i].is_some());
            }
        }

        /// Any mix of pushes, key changes, removals and pops behaves like a
        /// sorted set of (key, item); small keys make ties frequent.
        #[test]
        fn behaves_like_a_sorted_set(ops in proptest::collection::vec((0u8..4, 0u32..20, 0u32..6), 0..300)) {
            let mut h = IndexedHeap::<u32>::new(20);
            let mut model = std::collections::BTreeSet::new();
            for (op, item, key) in ops {
                match op {
                    0 | 1 => {
                        if h.contains(item) {
                            model.remove(&(h.key(item), item));
                        }
                        h.push(item, key);
                        model.insert((key, item));
                    }
                    2 => {
                        let was = h.contains(item);
                        if was {
                            model.remove(&(h.key(item), item));
                        }
                        prop_assert_eq!(h.remove(item), was);
                    }
                    _ => {
                        let expect = model.iter().next().copied();
                        if let Some(e) = expect {
                            model.remove(&e);
                        }
                        prop_assert_eq!(h.pop(), expect.map(|e| e.1));
                    }
                }
                prop_assert_eq!(h.len(), model.len());
                prop_assert_eq!(h.peek(), model.iter().next().map(|&(k, i)| (i, k)));
            }
        }

        /// The first slots named without a pop are those the pops give,
        /// in order (ties included), `None` past the end: against a
        /// sorted set of (key, item), after any mix of pushes, key changes
        /// and removals.
        #[test]
        fn first_ties_are_what_the_pops_give(
            ops in proptest::collection::vec((0u8..3, 0u32..60, 0u32..6), 0..300),
        ) {
            let mut h = IndexedHeap::<u32>::new(60);
            let mut model = std::collections::BTreeSet::new();
            for (op, item, key) in ops {
                if h.contains(item) {
                    model.remove(&(h.key(item), item));
                }
                if op < 2 {
                    h.push(item, key);
                    model.insert((key, item));
                } else {
                    h.remove(item);
                }
                let want: Vec<Option<u32>> = (0..5).map(|r| model.iter().nth(r).map(|e| e.1)).collect();
                prop_assert_eq!(h.first_ties::<5>().to_vec(), want);
                // Twenty-one are named in full.
                let want: Vec<Option<u32>> = (0..21).map(|r| model.iter().nth(r).map(|e| e.1)).collect();
                prop_assert_eq!(h.first_ties::<21>().to_vec(), want);
            }
        }

        /// A score heap names its best tenants as `top` would after each
        /// removal of the top.
        #[test]
        fn score_heap_first_are_the_successive_tops(
            sets in proptest::collection::vec((0usize..30, 0u8..5), 0..80),
        ) {
            let mut h = ScoreHeap::new(30);
            for &(i, v) in &sets {
                h.set(i, f64::from(v) / 4.0);
            }
            let first = h.first::<3>();
            let mut tops = [None; 3];
            for t in &mut tops {
                *t = h.top().map(|(i, _)| i);
                if let Some(i) = *t {
                    h.remove(i);
                }
            }
            prop_assert_eq!(first, tops);
        }
    }
}
