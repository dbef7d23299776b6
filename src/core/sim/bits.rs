//! A fixed set of bits over `0..n`: one bit an index, nothing allocated
//! after construction (per-tenant flags held for every tenant of a run,
//! issue 34).

/// `n` bits, 64 a word.
#[derive(Debug, Clone)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// `n` bits, all clear.
    pub fn new(n: usize) -> Self {
        Self(vec![0; n.div_ceil(64)])
    }

    /// Set bit `i`; whether it was clear before.
    #[inline]
    pub fn set(&mut self, i: usize) -> bool {
        let (word, mask) = (&mut self.0[i / 64], 1u64 << (i % 64));
        let was_clear = *word & mask == 0;
        *word |= mask;
        was_clear
    }

    /// Whether bit `i` is set.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// Clear bit `i`.
    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1u64 << (i % 64));
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    #[test]
    fn bits_set_reports_a_first_set_and_clear_resets_it() {
        let mut b = Bits::new(130);
        assert!(b.set(0));
        assert!(b.set(129));
        assert!(!b.set(129));
        assert!(b.get(129) && !b.get(128));
        assert!(b.set(64));
        b.clear(129);
        assert!(!b.get(129));
        assert!(b.set(129));
        assert!(!b.set(0));
        assert!(!b.set(64));
        b.clear(0);
        assert!(b.set(0));
    }
}
