//! The lazy cells of a synthetic trace (issue 34; DESIGN §1.2 "Per-user
//! rows"): the per-model draws and a few held users' rows (the prior
//! users, whose matrices the GP prior reads), every other user's row
//! regenerated from (seed, user) when it is read.
//!
//! A read of a user not held goes through a per-thread direct-mapped
//! cache of recently produced rows: slot `(user + id · 0x9E37_79B9) mod S`
//! (`id` tells apart the backings of one process), `S` =
//! [`cache_slots`]. A miss regenerates the row ([`SynRows::row`]: a seek
//! and K pairs) into the slot. Rows are pure functions of (parameters,
//! user), so what the cache holds changes the cost of a read, never its
//! value: the tests compare every cell with the dense trace.
//!
//! A simulation reads the rows of the tenants present, which arrive in a
//! shuffled order (DESIGN §2.8), so they are users scattered over the
//! trace: about 1,700 at once in `scenarios/scale-year.toml`. With S well
//! above that (32,768 at K = 20) few of them share a slot (a share of
//! about 1 − e^(−1,700/32,768) ≈ 5 %, each then produced again when the
//! other was read in between), and a present tenant's row is produced
//! about once per thread that reads it. [`Trace`](super::Trace) holds a
//! lazy `[trace.syn]` trace's cells this way (DESIGN §1.2 "Lazy rows").

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Micros, SynParams, SynRows, secs_to_micros};

/// Bytes of rows the per-thread cache aims at (each slot holds K
/// accuracies and K runtimes, 16 bytes a model).
const CACHE_BYTES: usize = 8 * 1024 * 1024;
/// Most slots, whatever K.
const MAX_SLOTS: usize = 65_536;

/// Slots of the per-thread cache for K models: `CACHE_BYTES / (16·K)`
/// rounded up to a power of two (so a slot is found with a mask, not a
/// division), within 1..=65,536 (32,768 at K = 20: 10 MiB of rows).
pub fn cache_slots(models: usize) -> usize {
    (CACHE_BYTES / (16 * models.max(1)))
        .clamp(1, MAX_SLOTS)
        .next_power_of_two()
}

/// Tells apart the backings of one process in the shared cache.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// One cached row: whose it is, its accuracies and runtimes in µs.
struct Slot {
    id: u64,
    user: usize,
    accuracy: Vec<f64>,
    runtime_us: Vec<Micros>,
}

/// A thread's cache: its slots and the seconds of the row being produced.
struct Cache {
    slots: Vec<Slot>,
    secs: Vec<f64>,
}

thread_local! {
    /// This thread's cache (empty until a backing reads through it).
    static CACHE: RefCell<Cache> = const {
        RefCell::new(Cache {
            slots: Vec::new(),
            secs: Vec::new(),
        })
    };
}

/// A synthetic trace's cells without its dense matrices: `O(K)` memory
/// for the generator, 16 bytes a held pair, and the per-thread cache.
#[derive(Debug, Clone)]
pub struct SynBacking {
    id: u64,
    /// [`cache_slots`] of K, a power of two.
    slots: usize,
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
            slots: cache_slots(k),
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
        self.with_row(user, |acc, _| acc[model])
    }

    /// Runtime of (`user`, `model`) in µs: [`secs_to_micros`] of the
    /// drawn seconds, as the dense trace rounds them.
    pub fn runtime_us(&self, user: usize, model: usize) -> Micros {
        self.with_row(user, |_, rt| rt[model])
    }

    /// `read` of `user`'s K accuracies and runtimes (µs): a held user's
    /// from its rows, any other's from this thread's cache, produced into
    /// its slot first on a miss. A read from inside `read` (the cache is
    /// then borrowed) produces its row into buffers of its own instead:
    /// the same values, an allocation.
    pub fn with_row<R>(&self, user: usize, read: impl FnOnce(&[f64], &[Micros]) -> R) -> R {
        let k = self.rows.n_models();
        if let Ok(j) = self.held.binary_search(&user) {
            let at = j * k..(j + 1) * k;
            return read(&self.held_accuracy[at.clone()], &self.held_runtime_us[at]);
        }
        CACHE.with(|cache| {
            let Ok(mut cache) = cache.try_borrow_mut() else {
                let (mut acc, mut secs) = (vec![0.0; k], vec![0.0; k]);
                self.rows.row(user, &mut acc, &mut secs);
                let rt: Vec<Micros> = secs.iter().map(|&s| secs_to_micros(s)).collect();
                return read(&acc, &rt);
            };
            let Cache { slots, secs } = &mut *cache;
            let n = self.slots;
            if slots.len() != n || slots.first().is_some_and(|s| s.accuracy.len() != k) {
                // First use in this thread, or a backing of another K:
                // (re)size the table; its slots start empty (id 0).
                *slots = (0..n)
                    .map(|_| Slot {
                        id: 0,
                        user: 0,
                        accuracy: vec![0.0; k],
                        runtime_us: vec![0; k],
                    })
                    .collect();
                *secs = vec![0.0; k];
            }
            let at =
                (user as u64).wrapping_add(self.id.wrapping_mul(0x9E37_79B9)) as usize & (n - 1);
            let slot = &mut slots[at];
            if slot.id != self.id || slot.user != user {
                self.rows.row(user, &mut slot.accuracy, secs);
                for (r, &s) in slot.runtime_us.iter_mut().zip(secs.iter()) {
                    *r = secs_to_micros(s);
                }
                slot.id = self.id;
                slot.user = user;
            }
            read(&slot.accuracy, &slot.runtime_us)
        })
    }
}

#[cfg(test)]
mod tests;
