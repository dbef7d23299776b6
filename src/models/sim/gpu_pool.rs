//! The set of free GPUs, handed out lowest index first; GPUs can be added
//! or removed during a run (a what-if, DESIGN §15.4).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Free GPUs of a cluster of identical GPUs. [`GpuPool::take_lowest`]
/// returns the lowest free index (DESIGN §2.4: free GPUs are filled lowest
/// index first). Never allocates after construction.
#[derive(Debug, Clone)]
pub struct GpuPool {
    free: BinaryHeap<Reverse<u32>>,
    /// GPU indices ever made: `0..total` (removed ones included).
    total: u32,
    /// GPUs in the cluster now: `total` minus those removed.
    active: u32,
}

impl GpuPool {
    /// A pool of `gpus` GPUs, all free.
    pub fn new(gpus: u32) -> Self {
        let mut free = BinaryHeap::with_capacity(gpus as usize);
        free.extend((0..gpus).map(Reverse));
        Self {
            free,
            total: gpus,
            active: gpus,
        }
    }

    /// Number of GPU indices ever made (`0..total`): the GPUs of the
    /// cluster, with those removed and added during the run.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Number of GPUs in the cluster now (busy or free).
    pub fn active(&self) -> u32 {
        self.active
    }

    /// Add `n` GPUs, free, numbered after every GPU the pool ever had
    /// (`total..total + n`: a removed GPU's index is never reused, so a
    /// job's `gpu` names one GPU). `false` (nothing added) if the indices
    /// would pass `u32::MAX`.
    pub fn add(&mut self, n: u32) -> bool {
        let Some(total) = self.total.checked_add(n) else {
            return false;
        };
        self.free.extend((self.total..total).map(Reverse));
        self.total = total;
        self.active += n;
        true
    }

    /// Remove `n` free GPUs, the highest-numbered first (so the lowest
    /// free GPU, the one a pending decision fills, goes last); `false`
    /// (nothing removed) if fewer than `n` are free. A busy GPU is never
    /// removed.
    pub fn remove_free(&mut self, n: u32) -> bool {
        let n = n as usize;
        if n > self.free.len() {
            return false;
        }
        // Ascending; keep the lowest `len - n`.
        let mut free = std::mem::take(&mut self.free).into_sorted_vec();
        free.reverse();
        free.truncate(free.len() - n);
        self.free = free.into_iter().collect();
        self.active -= n as u32;
        true
    }

    /// Number of free GPUs.
    pub fn free_count(&self) -> usize {
        self.free.len()
    }

    /// The lowest free GPU, without taking it.
    pub fn peek_lowest(&self) -> Option<u32> {
        self.free.peek().map(|r| r.0)
    }

    /// Take the lowest free GPU.
    pub fn take_lowest(&mut self) -> Option<u32> {
        self.free.pop().map(|r| r.0)
    }

    /// Return a GPU to the pool.
    pub fn release(&mut self, gpu: u32) {
        debug_assert!(gpu < self.total);
        self.free.push(Reverse(gpu));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_out_lowest_index_first() {
        let mut p = GpuPool::new(3);
        assert_eq!(p.take_lowest(), Some(0));
        assert_eq!(p.take_lowest(), Some(1));
        p.release(0);
        assert_eq!(p.take_lowest(), Some(0));
        assert_eq!(p.take_lowest(), Some(2));
        assert_eq!(p.take_lowest(), None);
    }

    #[test]
    fn added_gpus_are_numbered_after_all_and_removal_takes_the_highest_free() {
        let mut p = GpuPool::new(3);
        assert_eq!(p.take_lowest(), Some(0));
        // Free: 1, 2. Removing 3 is refused and changes nothing.
        assert!(!p.remove_free(3));
        assert_eq!((p.free_count(), p.active()), (2, 3));
        assert!(p.remove_free(1));
        assert_eq!((p.free_count(), p.active(), p.total()), (1, 2, 3));
        assert_eq!(p.peek_lowest(), Some(1));
        assert!(p.add(2));
        assert_eq!((p.free_count(), p.active(), p.total()), (3, 4, 5));
        assert_eq!(p.take_lowest(), Some(1));
        assert_eq!(p.take_lowest(), Some(3));
        assert_eq!(p.take_lowest(), Some(4));
        assert_eq!(p.take_lowest(), None);
        p.release(0);
        assert_eq!(p.take_lowest(), Some(0));
    }
}
