//! An indexed binary min-heap over item ids `0..n`: push, pop, peek,
//! remove any item and change its key in O(log n). Sized once; nothing is
//! allocated afterwards. The schedulers' queues are built on it.

const ABSENT: u32 = u32::MAX;

/// A min-heap of item ids ordered by a key stored per item. Keys must be
/// totally ordered and unique among items in the heap for a deterministic
/// order (every scheduler key ends with the job index).
#[derive(Debug, Clone)]
pub struct IndexedHeap<K> {
    heap: Vec<u32>,
    pos: Vec<u32>,
    key: Vec<K>,
}

impl<K: Ord + Copy + Default> IndexedHeap<K> {
    /// An empty heap for items `0..n`.
    pub fn new(n: usize) -> Self {
        Self {
            heap: Vec::with_capacity(n),
            pos: vec![ABSENT; n],
            key: vec![K::default(); n],
        }
    }

    /// Number of items in the heap.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether the heap is empty.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The items in the heap, in no particular order.
    pub fn items(&self) -> &[u32] {
        &self.heap
    }

    /// Whether `item` is in the heap.
    pub fn contains(&self, item: u32) -> bool {
        self.pos[item as usize] != ABSENT
    }

    /// The key `item` was last pushed with.
    pub fn key(&self, item: u32) -> K {
        self.key[item as usize]
    }

    /// The smallest item and its key.
    pub fn peek(&self) -> Option<(u32, K)> {
        self.heap.first().map(|&i| (i, self.key[i as usize]))
    }

    /// Insert `item` with `key`, or change its key if it is present.
    pub fn push(&mut self, item: u32, key: K) {
        let i = item as usize;
        self.key[i] = key;
        if self.pos[i] == ABSENT {
            let at = self.heap.len();
            self.heap.push(item);
            self.pos[i] = at as u32;
            self.up(at);
        } else {
            let at = self.pos[i] as usize;
            self.up(at);
            self.down(self.pos[i] as usize);
        }
    }

    /// Remove and return the smallest item.
    pub fn pop(&mut self) -> Option<u32> {
        let top = *self.heap.first()?;
        self.remove(top);
        Some(top)
    }

    /// Remove `item` if present; returns whether it was.
    pub fn remove(&mut self, item: u32) -> bool {
        let i = item as usize;
        let at = self.pos[i];
        if at == ABSENT {
            return false;
        }
        let at = at as usize;
        let last = self.heap.len() - 1;
        self.heap.swap(at, last);
        self.pos[self.heap[at] as usize] = at as u32;
        self.heap.pop();
        self.pos[i] = ABSENT;
        if at < self.heap.len() {
            let moved = self.heap[at] as usize;
            self.up(at);
            self.down(self.pos[moved] as usize);
        }
        true
    }

    fn less(&self, a: usize, b: usize) -> bool {
        self.key[self.heap[a] as usize] < self.key[self.heap[b] as usize]
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a] as usize] = a as u32;
        self.pos[self.heap[b] as usize] = b as u32;
    }

    fn up(&mut self, mut at: usize) {
        while at > 0 {
            let parent = (at - 1) / 2;
            if !self.less(at, parent) {
                break;
            }
            self.swap(at, parent);
            at = parent;
        }
    }

    fn down(&mut self, mut at: usize) {
        loop {
            let (l, r) = (2 * at + 1, 2 * at + 2);
            let mut best = at;
            if l < self.heap.len() && self.less(l, best) {
                best = l;
            }
            if r < self.heap.len() && self.less(r, best) {
                best = r;
            }
            if best == at {
                return;
            }
            self.swap(at, best);
            at = best;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any mix of pushes, key changes, removals and pops behaves like a
        /// sorted set of (key, item).
        #[test]
        fn behaves_like_a_sorted_set(ops in proptest::collection::vec((0u8..4, 0u32..20, 0u32..50), 0..300)) {
            let mut h = IndexedHeap::<(u32, u32)>::new(20);
            let mut model = std::collections::BTreeSet::new();
            for (op, item, key) in ops {
                match op {
                    0 | 1 => {
                        if h.contains(item) {
                            model.remove(&(h.key(item), item));
                        }
                        h.push(item, (key, item));
                        model.insert(((key, item), item));
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
                prop_assert_eq!(h.peek().map(|p| p.0), model.iter().next().map(|e| e.1));
            }
        }
    }
}
