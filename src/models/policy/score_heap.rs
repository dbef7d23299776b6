//! An indexed max-heap of tenant scores: the highest score on top, ties by
//! the lowest tenant index.

/// Whether `(sa, a)` ranks strictly above `(sb, b)`: the higher score wins;
/// equal scores go to the lower index; a NaN score ranks below every number
/// (−∞ included), as in [`crate::models::gp::argmax_by`]. Scores compare with `>`,
/// so −0.0 and +0.0 tie.
pub fn ranks_above(sa: f64, a: usize, sb: f64, b: usize) -> bool {
    match (sa.is_nan(), sb.is_nan()) {
        (false, false) => sa > sb || (sa == sb && a < b),
        (true, true) => a < b,
        (false, true) => true,
        (true, false) => false,
    }
}

const ABSENT: u32 = u32::MAX;

/// Children per node: a 4-ary heap is half as deep as a binary one, and a
/// node's four 16-byte children span at most two cache lines, so a sift
/// through 100,000 tenants touches about half as many lines.
const ARITY: usize = 4;

/// An integer that orders scores as [`ranks_above`] does, higher first:
/// every NaN maps to 0, below every number; −0.0 and +0.0 map alike; other
/// values keep their order (the IEEE 754 total order trick: flip every bit
/// of a negative number, set the sign bit of a non-negative one; −∞ maps to
/// 0x000F_FFFF_FFFF_FFFF, above 0).
fn rank_key(score: f64) -> u64 {
    if score.is_nan() {
        return 0;
    }
    let bits = (score + 0.0).to_bits(); // −0.0 + 0.0 = +0.0
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// One heap slot: the tenant's rank key beside its index, so comparisons
/// along a sift read the heap array only.
#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    tenant: u32,
}

impl Slot {
    /// [`ranks_above`] on keys: higher key, then lower index.
    fn above(self, other: Slot) -> bool {
        self.key > other.key || (self.key == other.key && self.tenant < other.tenant)
    }
}

/// Scores of a subset of tenants `0..n`, with the best one on top by
/// [`ranks_above`], in a 4-ary heap. Inserting, changing and removing a score cost
/// O(log n); reading the top costs O(1). Nothing allocates after
/// construction.
#[derive(Debug, Clone)]
pub struct ScoreHeap {
    /// Tenants in heap order (the best at 0), with their rank keys.
    heap: Vec<Slot>,
    /// Position of each tenant in `heap`, or `ABSENT`.
    pos: Vec<u32>,
    /// Score of each tenant as given (meaningful while present).
    score: Vec<f64>,
}

impl ScoreHeap {
    /// An empty heap over tenants `0..n` (n < 2³²−1).
    pub fn new(n: usize) -> Self {
        Self {
            heap: Vec::with_capacity(n),
            pos: vec![ABSENT; n],
            score: vec![f64::NAN; n],
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
        self.pos[i] != ABSENT
    }

    /// The best tenant and its score.
    pub fn top(&self) -> Option<(usize, f64)> {
        self.heap.first().map(|s| {
            let i = s.tenant as usize;
            (i, self.score[i])
        })
    }

    /// Give tenant `i` the score `score` (inserting it if absent).
    pub fn set(&mut self, i: usize, score: f64) {
        self.score[i] = score;
        let key = rank_key(score);
        let p = self.pos[i];
        if p == ABSENT {
            let at = self.heap.len();
            self.heap.push(Slot {
                key,
                tenant: i as u32,
            });
            self.pos[i] = at as u32;
            self.sift_up(at);
        } else {
            self.heap[p as usize].key = key;
            let at = self.sift_up(p as usize);
            self.sift_down(at);
        }
    }

    /// Remove tenant `i`'s score, if it has one.
    pub fn remove(&mut self, i: usize) {
        let p = self.pos[i];
        if p == ABSENT {
            return;
        }
        let p = p as usize;
        let last = self.heap.len() - 1;
        self.swap(p, last);
        self.heap.pop();
        self.pos[i] = ABSENT;
        if p < self.heap.len() {
            let at = self.sift_up(p);
            self.sift_down(at);
        }
    }

    fn swap(&mut self, x: usize, y: usize) {
        self.heap.swap(x, y);
        self.pos[self.heap[x].tenant as usize] = x as u32;
        self.pos[self.heap[y].tenant as usize] = y as u32;
    }

    /// Put `slot` at `at` and record its position.
    fn place(&mut self, at: usize, slot: Slot) {
        self.heap[at] = slot;
        self.pos[slot.tenant as usize] = at as u32;
    }

    /// Move the slot at `at` up past every parent it ranks above (moving
    /// each parent down once, not swapping); its final position.
    fn sift_up(&mut self, mut at: usize) -> usize {
        let x = self.heap[at];
        while at > 0 {
            let parent = (at - 1) / ARITY;
            let p = self.heap[parent];
            if !x.above(p) {
                break;
            }
            self.place(at, p);
            at = parent;
        }
        self.place(at, x);
        at
    }

    /// Move the slot at `at` down while a child ranks above it.
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
                if self.heap[c].above(self.heap[best]) {
                    best = c;
                }
            }
            let b = self.heap[best];
            if !b.above(x) {
                break;
            }
            self.place(at, b);
            at = best;
        }
        self.place(at, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: a scan for the best present tenant.
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
        /// Rank keys order scores exactly as `ranks_above` does.
        #[test]
        fn rank_keys_agree_with_ranks_above(
            a in prop_oneof![any::<f64>(), Just(f64::NAN), Just(-0.0), Just(0.0),
                             Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            b in prop_oneof![any::<f64>(), Just(f64::NAN), Just(-0.0), Just(0.0),
                             Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            i in 0u32..4, j in 0u32..4,
        ) {
            let x = Slot { key: rank_key(a), tenant: i };
            let y = Slot { key: rank_key(b), tenant: j };
            prop_assert_eq!(x.above(y), ranks_above(a, i as usize, b, j as usize));
        }

        /// After any sequence of sets and removes, the top equals a scan.
        #[test]
        fn top_matches_a_scan(
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
    }
}
