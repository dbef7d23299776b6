//! The items of `0..n` not drawn yet, and the `r`-th of them in ascending
//! order, drawn: sampling without replacement one item at a time in about
//! 0.13 bytes an item (a streamed arrival order, DESIGN §2.8; issue 34).
//!
//! One bit an item (set: not drawn yet) and a Fenwick tree (Fenwick 1994,
//! "A new data structure for cumulative frequency tables") over blocks of
//! 8 words (512 items) holding how many of the block's items are not
//! drawn. [`Undrawn::take`]`(r)` finds the block holding the `r`-th item
//! left by descending the tree (the largest prefix of blocks whose count
//! is at most `r`, one level a power of two), then the word in the block
//! by popcounts, then the bit in the word by halving: O(log n) a draw,
//! with nothing allocated after [`Undrawn::new`].

/// Words a block of the tree counts: 512 items, so the tree holds 4 bytes
/// for every 512 items beside their 64 bytes of bits.
const BLOCK_WORDS: usize = 8;
const BLOCK_ITEMS: usize = BLOCK_WORDS * 64;

/// The items of `0..n` not drawn yet (all of them at first); the
/// default holds none.
#[derive(Debug, Clone, Default)]
pub struct Undrawn {
    /// Bit `i % 64` of word `i / 64`: item `i` is not drawn yet.
    bits: Vec<u64>,
    /// 1-based Fenwick tree over the blocks: `tree[b]` holds the count of
    /// items left in blocks `b − lowbit(b) + 1 ..= b` (1-based).
    tree: Vec<u32>,
    /// The largest power of two at most the number of blocks (the
    /// descent's first step), 0 for none.
    top: usize,
    left: usize,
}

impl Undrawn {
    /// Every item of `0..n`, none drawn. At most 2³² items (the counts
    /// are `u32`): more are a usage error, not an abort.
    pub fn new(n: usize) -> Option<Self> {
        u32::try_from(n).ok()?;
        let words = n.div_ceil(64);
        let mut bits = vec![u64::MAX; words];
        if let Some(last) = bits.last_mut().filter(|_| !n.is_multiple_of(64)) {
            *last = (1u64 << (n % 64)) - 1;
        }
        let blocks = words.div_ceil(BLOCK_WORDS);
        let mut tree = vec![0u32; blocks + 1];
        for b in 0..blocks {
            let end = ((b + 1) * BLOCK_ITEMS).min(n);
            tree[b + 1] = (end - b * BLOCK_ITEMS) as u32;
        }
        // Linear-time construction: each node adds itself to its parent.
        for b in 1..=blocks {
            let parent = b + (b & b.wrapping_neg());
            if parent <= blocks {
                tree[parent] += tree[b];
            }
        }
        let top = if blocks == 0 {
            0
        } else {
            1 << (usize::BITS - 1 - blocks.leading_zeros())
        };
        Some(Self {
            bits,
            tree,
            top,
            left: n,
        })
    }

    /// How many items are not drawn yet.
    pub fn len(&self) -> usize {
        self.left
    }

    /// Whether every item is drawn.
    pub fn is_empty(&self) -> bool {
        self.left == 0
    }

    /// Whether item `i` is not drawn yet.
    pub fn contains(&self, i: usize) -> bool {
        self.bits
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Draw the `r`-th item not drawn yet (0-based, ascending) and return
    /// it; `None` when `r` is not below [`Self::len`].
    pub fn take(&mut self, r: usize) -> Option<usize> {
        if r >= self.left {
            return None;
        }
        // Descend: `at` blocks (a prefix) hold `before` items left, at
        // most r; the r-th lies in block `at` (0-based).
        let mut at = 0usize;
        let mut before = 0usize;
        let mut step = self.top;
        while step > 0 {
            let next = at + step;
            if next < self.tree.len() && before + self.tree[next] as usize <= r {
                at = next;
                before += self.tree[next] as usize;
            }
            step >>= 1;
        }
        let mut rank = r - before;
        let first_word = at * BLOCK_WORDS;
        let last_word = (first_word + BLOCK_WORDS).min(self.bits.len());
        let mut word = first_word;
        while word < last_word {
            let c = self.bits[word].count_ones() as usize;
            if rank < c {
                break;
            }
            rank -= c;
            word += 1;
        }
        let w = *self.bits.get(word)?;
        let bit = select_in_word(w, rank as u32)?;
        self.bits[word] &= !(1u64 << bit);
        let mut b = at + 1;
        while b < self.tree.len() {
            self.tree[b] -= 1;
            b += b & b.wrapping_neg();
        }
        self.left -= 1;
        Some(word * 64 + bit as usize)
    }
}

/// The position of the `k`-th set bit (0-based, from the least
/// significant) of `w`, if it has more than `k`: halving by popcount.
fn select_in_word(w: u64, mut k: u32) -> Option<u32> {
    if k >= w.count_ones() {
        return None;
    }
    let mut pos = 0u32;
    let mut width = 32u32;
    let mut w = w;
    while width > 0 {
        let low = w & ((1u64 << width) - 1);
        let c = low.count_ones();
        if k >= c {
            k -= c;
            w >>= width;
            pos += width;
        } else {
            w = low;
        }
        width >>= 1;
    }
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_kth_set_bit_is_found_as_by_counting() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..2_000 {
            let w: u64 = match rng.gen_range(0..3) {
                0 => rng.r#gen(),
                1 => rng.r#gen::<u64>() & rng.r#gen::<u64>() & rng.r#gen::<u64>(),
                _ => u64::MAX,
            };
            let set: Vec<u32> = (0..64).filter(|&b| w >> b & 1 == 1).collect();
            for k in 0..=64u32 {
                assert_eq!(
                    select_in_word(w, k),
                    set.get(k as usize).copied(),
                    "{w:#x} {k}"
                );
            }
        }
        assert_eq!(select_in_word(0, 0), None);
    }

    /// Every draw against a list with `Vec::remove` (the brute force), for
    /// sizes around the word and block edges and beyond one tree level.
    #[test]
    fn draws_take_the_rth_item_left_as_a_list_would() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for n in [0, 1, 2, 63, 64, 65, 511, 512, 513, 1_000, 4_097, 20_000] {
            let mut set = Undrawn::new(n).expect("fits");
            let mut list: Vec<usize> = (0..n).collect();
            assert_eq!(set.len(), n);
            while !list.is_empty() {
                let r = rng.gen_range(0..list.len());
                let want = list.remove(r);
                assert!(set.contains(want));
                assert_eq!(set.take(r), Some(want), "n = {n}, r = {r}");
                assert!(!set.contains(want));
                assert_eq!(set.len(), list.len());
                // A rank past the end draws nothing and changes nothing.
                assert_eq!(set.take(list.len()), None);
            }
            assert!(set.is_empty());
            assert!(!set.contains(n));
        }
    }

    #[test]
    fn taking_always_the_first_or_the_last_walks_the_items_in_order() {
        let n = 3_000;
        let mut first = Undrawn::new(n).expect("fits");
        let mut last = Undrawn::new(n).expect("fits");
        for i in 0..n {
            assert_eq!(first.take(0), Some(i));
            assert_eq!(last.take(last.len() - 1), Some(n - 1 - i));
        }
    }

    #[test]
    fn more_items_than_the_counts_hold_are_refused() {
        if usize::BITS > 32 {
            assert!(Undrawn::new(u32::MAX as usize + 1).is_none());
        }
    }
}
