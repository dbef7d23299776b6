//! Where a trace's cells live (DESIGN §1.2 "Per-user rows"; issue 34):
//! dense matrices, or a `[trace.syn]` trace's rows produced from (seed,
//! user) when they are read.

use ndarray::Array2;

use super::{Micros, SynBacking};
use crate::core::sim::prefetch::prefetch_slice;

/// The accuracy, runtime and availability of every (user, model) pair.
#[derive(Debug, Clone)]
pub(super) enum Cells {
    /// Held whole: 17 bytes a pair.
    Dense {
        /// Accuracy per (user, model); 0.0 where the pair is missing.
        accuracy: Array2<f64>,
        /// Runtime per (user, model) in µs, rounded once at load; 0 where
        /// missing.
        runtime_us: Array2<Micros>,
        available: Array2<bool>,
    },
    /// A generated trace, every pair available, each user's row produced
    /// from (seed, user) when read ([`SynBacking`]): `O(K)` bytes whatever
    /// the number of users.
    Lazy(Box<SynBacking>),
}

impl Cells {
    /// Accuracy of a pair (0.0 for a missing one).
    #[inline]
    pub(super) fn accuracy(&self, user: usize, model: usize) -> f64 {
        match self {
            Cells::Dense { accuracy, .. } => accuracy[[user, model]],
            Cells::Lazy(b) => b.accuracy(user, model),
        }
    }

    /// Runtime of a pair in µs (0 for a missing one).
    #[inline]
    pub(super) fn runtime_us(&self, user: usize, model: usize) -> Micros {
        match self {
            Cells::Dense { runtime_us, .. } => runtime_us[[user, model]],
            Cells::Lazy(b) => b.runtime_us(user, model),
        }
    }

    /// Whether a pair is available (always, in a lazy trace).
    #[inline]
    pub(super) fn is_available(&self, user: usize, model: usize) -> bool {
        match self {
            Cells::Dense { available, .. } => available[[user, model]],
            Cells::Lazy(_) => true,
        }
    }

    /// Prefetch hint for the user's runtimes (held cells only: a lazy
    /// trace produces a row when it is read).
    #[inline]
    pub(super) fn prefetch_runtimes(&self, user: usize) {
        if let Cells::Dense { runtime_us, .. } = self {
            prefetch_matrix_row(runtime_us, user);
        }
    }

    /// Prefetch hint for the user's accuracies and runtimes (held cells
    /// only).
    #[inline]
    pub(super) fn prefetch_row(&self, user: usize) {
        if let Cells::Dense {
            accuracy,
            runtime_us,
            ..
        } = self
        {
            prefetch_matrix_row(accuracy, user);
            prefetch_matrix_row(runtime_us, user);
        }
    }

    /// `read` of the user's K accuracies and runtimes (µs), by model index.
    #[inline]
    pub(super) fn with_row<R>(&self, user: usize, read: impl FnOnce(&[f64], &[Micros]) -> R) -> R {
        match self {
            Cells::Dense {
                accuracy,
                runtime_us,
                ..
            } => with_matrix_row(accuracy, user, |a| {
                with_matrix_row(runtime_us, user, |r| read(a, r))
            }),
            Cells::Lazy(b) => b.with_row(user, read),
        }
    }
}

/// Prefetch hint for row `row` of a row-major `m` (nothing if out of
/// range or not contiguous).
#[inline]
fn prefetch_matrix_row<T>(m: &Array2<T>, row: usize) {
    if row < m.nrows()
        && let Some(r) = m.row(row).to_slice()
    {
        prefetch_slice(r);
    }
}

/// `read` of row `row` of `m` as a slice: borrowed from a row-major matrix
/// (every matrix of a trace is built so), copied otherwise.
pub fn with_matrix_row<T: Clone, R>(m: &Array2<T>, row: usize, read: impl FnOnce(&[T]) -> R) -> R {
    let r = m.row(row);
    match r.to_slice() {
        Some(slice) => read(slice),
        None => read(&r.to_vec()),
    }
}
