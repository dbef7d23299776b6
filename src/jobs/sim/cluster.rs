//! The cluster of job-trace mode: nodes × GPUs, and the placement rules of
//! DESIGN §9.1.
//!
//! - `consolidate`: a job's GPUs all come from one node; among the nodes
//!   with enough free GPUs, the one with the fewest free GPUs (best fit),
//!   then the lowest index.
//! - `spread`: GPUs are taken one at a time from the node with the most free
//!   GPUs (then the lowest index); a job fits when the cluster has enough
//!   free GPUs.
//!
//! Nodes are kept in buckets by their number of free GPUs (one bitset of
//! nodes per free count, plus a bitset of non-empty buckets), so both rules
//! cost a few word scans per GPU taken and nothing is allocated after
//! construction.

use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};

/// How a job's GPUs are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// All GPUs from one node, best fit then lowest index.
    Consolidate,
    /// One GPU at a time from the node with the most free GPUs.
    Spread,
}

impl Placement {
    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Consolidate => "consolidate",
            Self::Spread => "spread",
        }
    }
}

/// GPUs a job holds on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Alloc {
    /// Node index.
    pub node: u32,
    /// GPUs taken on that node.
    pub gpus: u32,
}

/// A fixed-size bitset with first/last set-bit queries.
#[derive(Debug, Clone)]
struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    fn new(bits: usize) -> Self {
        Self {
            words: vec![0; bits.div_ceil(64).max(1)],
        }
    }
    fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }
    /// The lowest set bit at or after `from`.
    fn first_from(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        if w >= self.words.len() {
            return None;
        }
        let mut word = self.words[w] & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
            w += 1;
            if w == self.words.len() {
                return None;
            }
            word = self.words[w];
        }
    }
    /// The highest set bit.
    fn last(&self) -> Option<usize> {
        self.words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + 63 - w.leading_zeros() as usize)
    }
}

/// Free and used GPUs per node, with the placement rule.
#[derive(Debug, Clone)]
pub struct Cluster {
    placement: Placement,
    capacity: Vec<u32>,
    free: Vec<u32>,
    total: u64,
    free_total: u64,
    max_capacity: u32,
    /// `buckets[f]`: nodes with exactly `f` free GPUs.
    buckets: Vec<BitSet>,
    bucket_len: Vec<u32>,
    /// Free counts `f` with `bucket_len[f] > 0`.
    nonempty: BitSet,
}

impl Cluster {
    /// A cluster with `capacity[n]` GPUs on node `n`, all free. Every node
    /// has at least one GPU (checked when the scenario is loaded).
    pub fn new(capacity: &[u32], placement: Placement) -> Self {
        let max_capacity = capacity.iter().copied().max().unwrap_or(0);
        let levels = max_capacity as usize + 1;
        let mut c = Self {
            placement,
            capacity: capacity.to_vec(),
            free: capacity.to_vec(),
            total: capacity.iter().map(|&g| u64::from(g)).sum(),
            free_total: 0,
            max_capacity,
            buckets: (0..levels).map(|_| BitSet::new(capacity.len())).collect(),
            bucket_len: vec![0; levels],
            nonempty: BitSet::new(levels),
        };
        c.free_total = c.total;
        for (n, &g) in capacity.iter().enumerate() {
            c.insert(n, g);
        }
        c
    }

    fn insert(&mut self, node: usize, free: u32) {
        let f = free as usize;
        self.buckets[f].set(node);
        self.bucket_len[f] += 1;
        if self.bucket_len[f] == 1 {
            self.nonempty.set(f);
        }
    }

    fn remove(&mut self, node: usize, free: u32) {
        let f = free as usize;
        self.buckets[f].clear(node);
        self.bucket_len[f] -= 1;
        if self.bucket_len[f] == 0 {
            self.nonempty.clear(f);
        }
    }

    fn set_free(&mut self, node: usize, free: u32) {
        let old = self.free[node];
        self.remove(node, old);
        self.insert(node, free);
        self.free[node] = free;
        self.free_total = self.free_total - u64::from(old) + u64::from(free);
    }

    /// The placement rule.
    pub fn placement(&self) -> Placement {
        self.placement
    }
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.capacity.len()
    }
    /// GPUs of node `n`.
    pub fn capacity(&self, n: usize) -> u32 {
        self.capacity[n]
    }
    /// Free GPUs of node `n`.
    pub fn free(&self, n: usize) -> u32 {
        self.free[n]
    }
    /// GPUs in the cluster.
    pub fn total(&self) -> u64 {
        self.total
    }
    /// Free GPUs in the cluster.
    pub fn free_total(&self) -> u64 {
        self.free_total
    }
    /// GPUs on the largest node.
    pub fn max_capacity(&self) -> u32 {
        self.max_capacity
    }

    /// The node a `consolidate` job of `gpus` GPUs goes to: the fewest free
    /// GPUs among nodes with at least `gpus` free, then the lowest index.
    fn best_fit(&self, gpus: u32) -> Option<usize> {
        let f = self.nonempty.first_from(gpus as usize)?;
        self.buckets[f].first_from(0)
    }

    /// The node with the most free GPUs (then the lowest index), if any GPU
    /// is free.
    fn most_free(&self) -> Option<usize> {
        let f = self.nonempty.last().filter(|&f| f > 0)?;
        self.buckets[f].first_from(0)
    }

    /// Whether a job of `gpus` GPUs fits now under the placement rule.
    pub fn fits(&self, gpus: u32) -> bool {
        match self.placement {
            Placement::Consolidate => self.best_fit(gpus).is_some(),
            Placement::Spread => self.free_total >= u64::from(gpus),
        }
    }

    /// Place a job of `gpus` GPUs by the placement rule, writing its
    /// per-node allocation into `out` (at least `min(gpus, nodes)` long)
    /// and returning how many entries were written; `None` (and nothing
    /// changed) if it does not fit.
    pub fn place(&mut self, gpus: u32, out: &mut [Alloc]) -> Option<usize> {
        if !self.fits(gpus) {
            return None;
        }
        match self.placement {
            Placement::Consolidate => {
                let n = self.best_fit(gpus)?;
                self.set_free(n, self.free[n] - gpus);
                out[0] = Alloc {
                    node: n as u32,
                    gpus,
                };
                Some(1)
            }
            Placement::Spread => {
                let mut len = 0;
                for _ in 0..gpus {
                    let n = self.most_free()?;
                    self.set_free(n, self.free[n] - 1);
                    match out[..len].iter_mut().find(|a| a.node == n as u32) {
                        Some(a) => a.gpus += 1,
                        None => {
                            out[len] = Alloc {
                                node: n as u32,
                                gpus: 1,
                            };
                            len += 1;
                        }
                    }
                }
                Some(len)
            }
        }
    }

    /// Give back the GPUs of an allocation.
    pub fn release(&mut self, allocs: &[Alloc]) -> Result<()> {
        for a in allocs {
            let n = a.node as usize;
            let free = self.free[n] + a.gpus;
            if free > self.capacity[n] {
                return Err(Error::input(format!(
                    "internal error: node {n} would have {free} free GPUs of {}",
                    self.capacity[n]
                )));
            }
            self.set_free(n, free);
        }
        Ok(())
    }

    /// Whether exactly these GPUs are free now.
    pub fn can_occupy(&self, allocs: &[Alloc]) -> bool {
        allocs.iter().all(|a| self.free[a.node as usize] >= a.gpus)
    }

    /// Take exactly these GPUs again (undoing a release at the same
    /// instant). The caller checked [`Cluster::can_occupy`].
    pub fn occupy(&mut self, allocs: &[Alloc]) -> Result<()> {
        if !self.can_occupy(allocs) {
            return Err(Error::input(
                "internal error: re-occupying GPUs that are no longer free",
            ));
        }
        for a in allocs {
            let n = a.node as usize;
            self.set_free(n, self.free[n] - a.gpus);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(c: &mut Cluster, gpus: u32) -> Vec<Alloc> {
        let mut out = vec![Alloc::default(); gpus as usize];
        let n = c.place(gpus, &mut out).expect("fits");
        out.truncate(n);
        out
    }

    #[test]
    fn consolidate_is_best_fit_then_lowest_index() {
        // Free GPUs per node: [4, 2, 3, 2].
        let mut c = Cluster::new(&[4, 2, 3, 2], Placement::Consolidate);
        // 2 GPUs: nodes 1 and 3 have exactly 2 free; the lowest index wins.
        assert_eq!(take(&mut c, 2), [Alloc { node: 1, gpus: 2 }]);
        // Free [4, 0, 3, 2]: 3 GPUs go to node 2 (3 free) not node 0 (4).
        assert_eq!(take(&mut c, 3), [Alloc { node: 2, gpus: 3 }]);
        // Free [4, 0, 0, 2]: 1 GPU goes to node 3 (2 free, best fit).
        assert_eq!(take(&mut c, 1), [Alloc { node: 3, gpus: 1 }]);
        // 5 GPUs fit nowhere although 5 are free in total.
        assert_eq!(c.free_total(), 5);
        assert!(!c.fits(5));
        let mut out = [Alloc::default(); 4];
        assert_eq!(c.place(5, &mut out), None);
        assert_eq!(c.free_total(), 5, "a failed placement changes nothing");
        assert_eq!(take(&mut c, 4), [Alloc { node: 0, gpus: 4 }]);
    }

    #[test]
    fn spread_takes_one_gpu_at_a_time_from_the_most_free_node() {
        // Free [2, 3, 3].
        let mut c = Cluster::new(&[2, 3, 3], Placement::Spread);
        // 4 GPUs: node 1 (3, lowest of the two 3s) → [2,2,3]; node 2 (3) →
        // [2,2,2]; node 0 (2, lowest) → [1,2,2]; node 1 → [1,1,2].
        assert_eq!(
            take(&mut c, 4),
            [
                Alloc { node: 1, gpus: 2 },
                Alloc { node: 2, gpus: 1 },
                Alloc { node: 0, gpus: 1 }
            ]
        );
        assert_eq!((c.free(0), c.free(1), c.free(2)), (1, 1, 2));
        // 4 GPUs fit under spread as soon as 4 are free anywhere.
        assert!(c.fits(4));
        assert!(!c.fits(5));
    }

    #[test]
    fn release_and_occupy_restore_the_same_state() -> Result<()> {
        let mut c = Cluster::new(&[8, 8], Placement::Consolidate);
        let a = take(&mut c, 3);
        let b = take(&mut c, 5);
        assert_eq!(a, [Alloc { node: 0, gpus: 3 }]);
        // Best fit: node 0 has 5 free, node 1 has 8.
        assert_eq!(b, [Alloc { node: 0, gpus: 5 }]);
        c.release(&a)?;
        assert!(c.can_occupy(&a));
        c.occupy(&a)?;
        assert_eq!(c.free(0), 0);
        assert!(c.release(&[Alloc { node: 1, gpus: 1 }]).is_err());
        Ok(())
    }

    #[test]
    fn large_nodes_and_many_nodes_use_multiword_bitsets() {
        let caps: Vec<u32> = (0..200).map(|i| if i == 150 { 100 } else { 1 }).collect();
        let mut c = Cluster::new(&caps, Placement::Consolidate);
        assert_eq!(
            take(&mut c, 70),
            [Alloc {
                node: 150,
                gpus: 70
            }]
        );
        assert_eq!(
            take(&mut c, 30),
            [Alloc {
                node: 150,
                gpus: 30
            }]
        );
        assert_eq!(take(&mut c, 1), [Alloc { node: 0, gpus: 1 }]);
        let mut s = Cluster::new(&caps, Placement::Spread);
        assert_eq!(take(&mut s, 1), [Alloc { node: 150, gpus: 1 }]);
    }
}
