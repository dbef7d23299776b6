//! The lazy cells of a synthetic trace (issue 34; DESIGN §1.2 "Per-user
//! rows"): the per-model draws and a few held users' rows (the prior
//! users, whose matrices the GP prior reads), every other user's row
//! regenerated from (seed, user) when it is read.
//!
//! A read of a user not held goes through a small per-thread direct-mapped
//! cache of recently produced rows: slot `(user + id · 0x9E37_79B9) mod S`
//! (`id` tells apart the backings of one process), `S` =
//! [`cache_slots`]. A miss regenerates the row ([`SynRows::row`]: a seek
//! and K pairs) into the slot. Rows are pure functions of (parameters,
//! user), so what the cache holds changes the cost of a read, never its
//! value: the tests compare every cell with the dense trace.
//!
//! Not yet wired into [`Trace`](super::Trace): every scenario holds the
//! dense form (docs/PERFORMANCE.md, "Internet scale", What is left).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Micros, SynParams, SynRows, secs_to_micros};

/// Bytes of rows the per-thread cache aims at (each slot holds K
/// accuracies and K runtimes, 16 bytes a model).
const CACHE_BYTES: usize = 256 * 1024;
/// Most slots, whatever K.
const MAX_SLOTS: usize = 4096;

/// Slots of the per-thread cache for K models: `CACHE_BYTES / (16·K)`,
/// within 1..=4096 (819 at K = 20).
pub fn cache_slots(models: usize) -> usize {
    (CACHE_BYTES / (16 * models.max(1))).clamp(1, MAX_SLOTS)
}

/// Tells apart the backings of one process in the shared cache.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// One cached row: whose it is, its accuracies and runtimes in seconds.
struct Slot {
    id: u64,
    user: usize,
    accuracy: Vec<f64>,
    runtime_s: Vec<f64>,
}

thread_local! {
    /// This thread's cache (empty until a backing reads through it).
    static CACHE: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// A synthetic trace's cells without its dense matrices: `O(K)` memory
/// for the generator, 16 bytes a held pair, and the per-thread cache.
#[derive(Debug, Clone)]
pub struct SynBacking {
    id: u64,
    rows: SynRows,
    /// The held users, ascending.
    held: Vec<usize>,
    /// Their accuracies and runtimes, `held.len() × K`, row-major.
    held_accuracy: Vec<f64>,
    held_runtime_us: Vec<Micros>,
}

impl SynBacking {
    /// The cells of the trace `p` describes (which should pass
    /// [`SynParams::validate`]), holding the rows of `held` (user indices
    /// below `p.users`; order and repeats do not matter).
    pub fn new(p: &SynParams, held: &[usize]) -> Self {
        let rows = SynRows::new(p);
        let mut held = held.to_vec();
        held.sort_unstable();
        held.dedup();
        let k = p.models;
        let mut held_accuracy = vec![0.0; held.len() * k];
        let mut secs = vec![0.0; k];
        let mut held_runtime_us = Vec::with_capacity(held.len() * k);
        for (j, &u) in held.iter().enumerate() {
            rows.row(u, &mut held_accuracy[j * k..(j + 1) * k], &mut secs);
            held_runtime_us.extend(secs.iter().map(|&s| secs_to_micros(s)));
        }
        Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            rows,
            held,
            held_accuracy,
            held_runtime_us,
        }
    }

    /// The generator of the rows.
    pub fn rows(&self) -> &SynRows {
        &self.rows
    }

    /// The held users, ascending.
    pub fn held(&self) -> &[usize] {
        &self.held
    }

    /// Accuracy of (`user`, `model`).
    pub fn accuracy(&self, user: usize, model: usize) -> f64 {
        let k = self.rows.n_models();
        match self.held.binary_search(&user) {
            Ok(j) => self.held_accuracy[j * k + model],
            Err(_) => self.cached(user, |s| s.accuracy[model]),
        }
    }

    /// Runtime of (`user`, `model`) in µs: [`secs_to_micros`] of the
    /// drawn seconds, as the dense trace rounds them.
    pub fn runtime_us(&self, user: usize, model: usize) -> Micros {
        let k = self.rows.n_models();
        match self.held.binary_search(&user) {
            Ok(j) => self.held_runtime_us[j * k + model],
            Err(_) => self.cached(user, |s| secs_to_micros(s.runtime_s[model])),
        }
    }

    /// `read` of `user`'s row in this thread's cache, produced into its
    /// slot first on a miss.
    fn cached<R>(&self, user: usize, read: impl FnOnce(&Slot) -> R) -> R {
        let k = self.rows.n_models();
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            let slots = cache_slots(k);
            if cache.len() != slots || cache.first().is_some_and(|s| s.accuracy.len() != k) {
                // First use in this thread, or a backing of another K:
                // (re)size the table; its slots start empty (id 0).
                *cache = (0..slots)
                    .map(|_| Slot {
                        id: 0,
                        user: 0,
                        accuracy: vec![0.0; k],
                        runtime_s: vec![0.0; k],
                    })
                    .collect();
            }
            let at = (user as u64).wrapping_add(self.id.wrapping_mul(0x9E37_79B9)) as usize % slots;
            let slot = &mut cache[at];
            if slot.id != self.id || slot.user != user {
                self.rows.row(user, &mut slot.accuracy, &mut slot.runtime_s);
                slot.id = self.id;
                slot.user = user;
            }
            read(slot)
        })
    }
}

#[cfg(test)]
mod tests;
