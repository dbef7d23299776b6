//! An indexed max-heap of tenant scores: the highest score on top, ties by
//! the lowest tenant index.

/// Whether `(sa, a)` ranks strictly above `(sb, b)`: the higher score wins;
/// equal scores go to the lower index; a NaN score ranks below every number
/// (−∞ included), as in [`crate::gp::argmax_by`]. Scores compare with `>`,
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

/// Scores of a subset of tenants `0..n`, with the best one on top by
/// [`ranks_above`]. Inserting, changing and removing a score cost
/// O(log n); reading the top costs O(1). Nothing allocates after
/// construction.
#[derive(Debug, Clone)]
pub struct ScoreHeap {
    /// Tenant indices in heap order (the best at 0).
    heap: Vec<u32>,
    /// Position of each tenant in `heap`, or `ABSENT`.
    pos: Vec<u32>,
    /// Score of each tenant (meaningful while present).
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
        self.heap
            .first()
            .map(|&i| (i as usize, self.score[i as usize]))
    }

    /// Give tenant `i` the score `score` (inserting it if absent).
    pub fn set(&mut self, i: usize, score: f64) {
        self.score[i] = score;
        let p = self.pos[i];
        if p == ABSENT {
            let at = self.heap.len();
            self.heap.push(i as u32);
            self.pos[i] = at as u32;
            self.sift_up(at);
        } else {
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

    fn above(&self, x: usize, y: usize) -> bool {
        let (a, b) = (self.heap[x] as usize, self.heap[y] as usize);
        ranks_above(self.score[a], a, self.score[b], b)
    }

    fn swap(&mut self, x: usize, y: usize) {
        self.heap.swap(x, y);
        self.pos[self.heap[x] as usize] = x as u32;
        self.pos[self.heap[y] as usize] = y as u32;
    }

    fn sift_up(&mut self, mut at: usize) -> usize {
        while at > 0 {
            let parent = (at - 1) / 2;
            if !self.above(at, parent) {
                break;
            }
            self.swap(at, parent);
            at = parent;
        }
        at
    }

    fn sift_down(&mut self, mut at: usize) {
        loop {
            let (l, r) = (2 * at + 1, 2 * at + 2);
            let mut best = at;
            if l < self.heap.len() && self.above(l, best) {
                best = l;
            }
            if r < self.heap.len() && self.above(r, best) {
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

    /// The reference: a scan for the best present tenant.
    fn scan(present: &[Option<f64>]) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (i, s) in present.iter().enumerate() {
            if let Some(s) = *s {
                if best.is_none_or(|(b, sb)| ranks_above(s, i, sb, b)) {
                    best = Some((i, s));
                }
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
