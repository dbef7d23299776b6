//! The set of free GPUs, handed out lowest index first.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Free GPUs of a cluster of identical GPUs. [`GpuPool::take_lowest`]
/// returns the lowest free index (DESIGN §2.4: free GPUs are filled lowest
/// index first). Never allocates after construction.
#[derive(Debug, Clone)]
pub struct GpuPool {
    free: BinaryHeap<Reverse<u32>>,
    total: u32,
}

impl GpuPool {
    /// A pool of `gpus` GPUs, all free.
    pub fn new(gpus: u32) -> Self {
        let mut free = BinaryHeap::with_capacity(gpus as usize);
        free.extend((0..gpus).map(Reverse));
        Self { free, total: gpus }
    }

    /// Number of GPUs in the cluster.
    pub fn total(&self) -> u32 {
        self.total
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
}
