//! A set of tenant indices with fast "next at or after" and "k-th" queries.

/// A two-level bitset over `0..n`. Membership changes are O(1);
/// [`TenantSet::next_at_or_after`] skips empty 4096-index blocks through a
/// summary level, and [`TenantSet::nth`] skips whole words by popcount.
/// Nothing allocates after construction.
#[derive(Debug, Clone)]
pub struct TenantSet {
    words: Vec<u64>,
    summary: Vec<u64>,
    len: usize,
    count: usize,
}

impl TenantSet {
    /// An empty set over `0..n`.
    pub fn new(n: usize) -> Self {
        let words = n.div_ceil(64);
        Self {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            len: n,
            count: 0,
        }
    }

    /// Number of members.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether `i` is a member.
    pub fn contains(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// Make `i` a member or not.
    pub fn set(&mut self, i: usize, member: bool) {
        debug_assert!(i < self.len);
        let (w, b) = (i / 64, i % 64);
        let was = self.words[w] >> b & 1 == 1;
        if was == member {
            return;
        }
        if member {
            self.words[w] |= 1 << b;
            self.count += 1;
        } else {
            self.words[w] &= !(1 << b);
            self.count -= 1;
        }
        let bit = 1u64 << (w % 64);
        if self.words[w] == 0 {
            self.summary[w / 64] &= !bit;
        } else {
            self.summary[w / 64] |= bit;
        }
    }

    /// The smallest member `>= from`, if any.
    pub fn next_at_or_after(&self, from: usize) -> Option<usize> {
        if from >= self.len {
            return None;
        }
        let (w, b) = (from / 64, from % 64);
        let masked = self.words[w] & (u64::MAX << b);
        if masked != 0 {
            return Some(w * 64 + masked.trailing_zeros() as usize);
        }
        // Next non-empty word after `w`, through the summary level.
        let next = w + 1;
        let (mut s, sb) = (next / 64, next % 64);
        if s >= self.summary.len() {
            return None;
        }
        let mut bits = if sb == 0 {
            self.summary[s]
        } else {
            self.summary[s] & (u64::MAX << sb)
        };
        loop {
            if bits != 0 {
                let word = s * 64 + bits.trailing_zeros() as usize;
                return Some(word * 64 + self.words[word].trailing_zeros() as usize);
            }
            s += 1;
            if s >= self.summary.len() {
                return None;
            }
            bits = self.summary[s];
        }
    }

    /// The `k`-th smallest member (from 0), if there are more than `k`.
    pub fn nth(&self, mut k: usize) -> Option<usize> {
        for (w, &word) in self.words.iter().enumerate() {
            let ones = word.count_ones() as usize;
            if k < ones {
                let mut x = word;
                for _ in 0..k {
                    x &= x - 1;
                }
                return Some(w * 64 + x.trailing_zeros() as usize);
            }
            k -= ones;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Both queries agree with a plain `Vec<bool>` scan.
        #[test]
        fn matches_brute_force(n in 1usize..9000, ops in proptest::collection::vec((0usize..9000, any::<bool>()), 0..300), q in 0usize..9100) {
            let mut set = TenantSet::new(n);
            let mut plain = vec![false; n];
            for &(i, m) in &ops {
                let i = i % n;
                set.set(i, m);
                plain[i] = m;
            }
            let members: Vec<usize> = (0..n).filter(|&i| plain[i]).collect();
            prop_assert_eq!(set.count(), members.len());
            prop_assert_eq!(set.next_at_or_after(q), members.iter().copied().find(|&i| i >= q));
            let k = q % (members.len() + 1);
            prop_assert_eq!(set.nth(k), members.get(k).copied());
        }
    }
}
