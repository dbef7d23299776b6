//! [`TenantMetrics`] folded online (DESIGN §2.6, §8.5): each tenant's row
//! accumulated from its job starts, completions and cancellations as the
//! engine processes them, with the arithmetic of the batch computation
//! ([`tenant_metrics`](super::tenant_metrics)) in the same order, so the
//! row is the same to the bit without the job log.
//!
//! Why the order is the same: the batch walks a tenant's jobs in start
//! order (the engine starts them in that order) and its completions sorted
//! by end time, stably (the engine processes completions in time order,
//! ties in start order: the queue's sequence). Every start happens before
//! the tenant leaves, so a job's end when a later job of the same tenant
//! starts is its planned end; only a leave changes a running job's end (to
//! the leave time), and no job starts after it.

use std::sync::Arc;

use super::TenantMetrics;
use crate::models::sim::{EndReason, TenantLimits};
use crate::models::trace::Micros;

/// The running figures of one tenant.
#[derive(Debug, Clone, Copy, Default)]
struct Running {
    /// best_i so far (0 before the first completion).
    best: f64,
    /// Σ (A*_i − best_i) × (t_{k+1} − t_k) so far, accuracy·µs.
    area: f64,
    /// The instant the area reaches (its arrival, then its last completion).
    t: Micros,
    /// max(arrival, planned end of every job started so far): the batch's
    /// `covered_until` when the next job starts.
    covered: Micros,
    /// The longest gap between two of its jobs so far, µs.
    gap: Micros,
    /// The start of its first job.
    first_start: Option<Micros>,
    /// The latest final end of its jobs (completion, cancel time, or the
    /// planned end of a job the horizon cut).
    last_end: Option<Micros>,
    /// Jobs started.
    started: u32,
    /// Jobs completed.
    completed: u32,
    /// GPU-µs of its completed, cancelled and cut jobs.
    gpu_us: u64,
}

/// Every tenant's figures of one run, folded as the engine goes.
#[derive(Debug, Clone)]
pub(super) struct TenantFold {
    /// Arrival and A*_i per tenant (shared with the rest of the run's
    /// fold: one copy each).
    arrivals: Arc<[Micros]>,
    best_possible: Arc<[f64]>,
    thresholds: Vec<f64>,
    running: Vec<Running>,
    /// Per tenant × threshold (tenant-major): time from arrival until
    /// ℓ_i ≤ θ, µs.
    time_to: Vec<Option<Micros>>,
}

impl TenantFold {
    /// Tenants arriving at `arrivals`, whose best accuracies are
    /// `best_possible`, measured at `thresholds`.
    pub(super) fn new(
        arrivals: Arc<[Micros]>,
        best_possible: Arc<[f64]>,
        thresholds: &[f64],
    ) -> Self {
        let running = arrivals
            .iter()
            .map(|&a| Running {
                t: a,
                covered: a,
                ..Running::default()
            })
            .collect();
        // θ already met with best_i = 0 (A*_i ≤ θ): at once.
        let time_to = best_possible
            .iter()
            .flat_map(|&a_star| {
                thresholds
                    .iter()
                    .map(move |&th| (a_star <= th + super::THETA_SLACK).then_some(0))
            })
            .collect();
        Self {
            arrivals,
            best_possible,
            thresholds: thresholds.to_vec(),
            running,
            time_to,
        }
    }

    /// Tenant `i` starts a job at `start` planned to end at `end`. The gap
    /// before it: start − max(arrival, planned ends of its earlier jobs),
    /// when positive (the batch's `start.min(demand_end)` is `start`: a
    /// job starts before its tenant's demand ends).
    pub(super) fn started(&mut self, i: usize, start: Micros, end: Micros) {
        let r = &mut self.running[i];
        if start > r.covered {
            r.gap = r.gap.max(start - r.covered);
        }
        r.covered = r.covered.max(end);
        r.first_start.get_or_insert(start);
        r.started += 1;
    }

    /// A job of tenant `i` started at `start` completes at `at` with `acc`:
    /// area += (A*_i − best_i) × (at − t); t = at; best_i and the per-θ
    /// times follow the rise.
    pub(super) fn completed(&mut self, i: usize, start: Micros, at: Micros, acc: f64) {
        let a_star = self.best_possible[i];
        let r = &mut self.running[i];
        r.area += (a_star - r.best) * (at - r.t) as f64;
        r.t = at;
        if acc > r.best {
            r.best = acc;
            let k = self.thresholds.len();
            for (slot, &th) in self.time_to[i * k..(i + 1) * k]
                .iter_mut()
                .zip(&self.thresholds)
            {
                if slot.is_none() && a_star - r.best <= th + super::THETA_SLACK {
                    *slot = Some(at - self.arrivals[i]);
                }
            }
        }
        r.completed += 1;
        r.gpu_us += at.saturating_sub(start);
        r.last_end = Some(r.last_end.map_or(at, |e| e.max(at)));
    }

    /// A job of tenant `i` started at `start` ends at `at` without
    /// completing: cancelled when its tenant left, or cut by the end of
    /// the run (`at` is then its planned end, and `end` the run's end).
    pub(super) fn stopped(&mut self, i: usize, start: Micros, at: Micros, end: Micros) {
        let r = &mut self.running[i];
        r.gpu_us += at.min(end).saturating_sub(start);
        r.last_end = Some(r.last_end.map_or(at, |e| e.max(at)));
    }

    /// Every tenant's row of a run that ended at `end`; `models[i]` is
    /// tenant i's number of models, the other slices are the run's
    /// [`RunOutcome`](crate::models::sim::RunOutcome) fields.
    ///
    /// The rows are made from the last tenant back (and reversed in place
    /// at the end), and every [`FINISH_PIECE`] tenants the running figures
    /// of those done are given back (once they fall an eighth below their
    /// capacity: with an allocator that copies to shrink, at most eight
    /// times the figures' size copied in all), so the figures and the
    /// rows are not both held
    /// whole: at 10^7 tenants this was the run's peak of memory
    /// (docs/PERFORMANCE.md "Internet scale"). No piece of rows is held
    /// apart: pieces of 65,536 rows, tried first, raised scale-year's
    /// later peak by 0.7 GB (measured; most likely the allocator kept the
    /// freed pieces, each below its mapping threshold). Each row is computed from its
    /// own tenant's figures alone: the same rows in any order.
    pub(super) fn finish(
        self,
        end: Micros,
        models: impl Fn(usize) -> usize,
        left_at: &[Option<Micros>],
        budget_exhausted: &[bool],
        ended: &[EndReason],
        limits: TenantLimits,
    ) -> Vec<TenantMetrics> {
        let state = (left_at, budget_exhausted, ended, limits);
        self.finish_in_pieces(FINISH_PIECE, end, models, state)
    }

    /// [`Self::finish`] in pieces of `piece` tenants.
    fn finish_in_pieces(
        self,
        piece: usize,
        end: Micros,
        models: impl Fn(usize) -> usize,
        (left_at, budget_exhausted, ended, limits): (
            &[Option<Micros>],
            &[bool],
            &[EndReason],
            TenantLimits,
        ),
    ) -> Vec<TenantMetrics> {
        let piece = piece.max(1);
        let Self {
            arrivals,
            best_possible,
            thresholds,
            mut running,
            mut time_to,
        } = self;
        let k = thresholds.len();
        let n = running.len();
        // Made last tenant first, then reversed in place: no second copy.
        let mut out = Vec::with_capacity(n);
        let mut hi = n;
        while hi > 0 {
            let lo = hi.saturating_sub(piece);
            for i in (lo..hi).rev() {
                let r = &running[i];
                let arrival = arrivals[i];
                let a_star = best_possible[i];
                let t = r.t.min(end);
                let area = r.area + (a_star - r.best) * end.saturating_sub(t) as f64;
                let ended_i = ended.get(i).copied().unwrap_or_default();
                let finished_demand = r.started as usize == models(i)
                    || ended_i == EndReason::ScheduleOver
                    || budget_exhausted[i]
                    || limits.max_jobs.is_some_and(|m| r.started >= m);
                let demand_end = match left_at[i] {
                    Some(l) => l,
                    None if finished_demand => r.last_end.unwrap_or(end),
                    None => end,
                }
                .min(end);
                let covered = r.last_end.map_or(arrival, |e| e.max(arrival));
                let gap = r.gap.max(demand_end.saturating_sub(covered));
                let times = time_to
                    .get(i * k..(i + 1) * k)
                    .map_or_else(Vec::new, <[_]>::to_vec);
                out.push(TenantMetrics {
                    arrival,
                    regret_area: area / 1.0e6,
                    time_to: times,
                    wait_first_job: r.first_start.map(|s| s - arrival),
                    longest_gap: gap,
                    jobs: r.completed,
                    gpu_us: r.gpu_us,
                    abandoned: left_at[i].is_some(),
                    budget_exhausted: budget_exhausted[i],
                    ended: ended_i,
                });
            }
            running.truncate(lo);
            time_to.truncate(lo * k);
            give_back(&mut running);
            give_back(&mut time_to);
            hi = lo;
        }
        out.reverse();
        out
    }
}

/// Tenants whose rows [`TenantFold::finish`] makes between two give-backs.
const FINISH_PIECE: usize = 1 << 16;

/// Shrink `v` to its length once that is an eighth or more below its
/// capacity.
fn give_back<T>(v: &mut Vec<T>) {
    let cap = v.capacity();
    if (cap - v.len()) * 8 >= cap && cap > 0 {
        v.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows made in pieces (of 1, 3 and 7 tenants, with the figures given
    /// back as they go) equal the rows made in one piece, on 23 tenants
    /// with jobs started, completed, cut and cancelled, some never
    /// arrived, one left, one out of budget, two thresholds.
    #[test]
    fn rows_made_in_pieces_equal_rows_made_whole() {
        let n = 23usize;
        let arrivals: Arc<[Micros]> = (0..n as u64).map(|i| i * 1_000).collect();
        let best: Arc<[f64]> = (0..n).map(|i| 0.5 + 0.02 * i as f64).collect();
        let mut fold = TenantFold::new(Arc::clone(&arrivals), best, &[0.05, 0.01]);
        for i in 0..n {
            let a = arrivals[i];
            for j in 0..(i % 4) as u64 {
                let start = a + 500 + j * 7_000;
                fold.started(i, start, start + 6_000);
                match (i + j as usize) % 3 {
                    0 => fold.completed(
                        i,
                        start,
                        start + 6_000,
                        0.3 + 0.03 * (i + j as usize) as f64,
                    ),
                    1 => fold.stopped(i, start, start + 2_000, 90_000),
                    _ => fold.completed(i, start, start + 5_500, 0.1),
                }
            }
        }
        let left: Vec<Option<Micros>> = (0..n).map(|i| (i == 5).then_some(40_000)).collect();
        let spent: Vec<bool> = (0..n).map(|i| i == 9).collect();
        let ended = vec![EndReason::default(); n];
        let state = (&left[..], &spent[..], &ended[..], TenantLimits::default());
        let whole = fold.clone().finish_in_pieces(n, 90_000, |_| 3, state);
        assert_eq!(whole.len(), n);
        assert!(whole.iter().any(|r| r.jobs > 0) && whole.iter().any(|r| r.abandoned));
        for piece in [1, 3, 7] {
            let got = fold.clone().finish_in_pieces(piece, 90_000, |_| 3, state);
            assert_eq!(got, whole, "pieces of {piece}");
        }
    }
}
