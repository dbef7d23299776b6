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
//!
//! Memory by active tenants (issue 34; DESIGN §2.6 "Done tenants"): a
//! tenant's running figures, with its arrival and A*_i (given at its
//! arrival: the fold holds nothing per tenant of the run but its slot
//! number and a bit), live in a slot of an [`ActiveTable`] from its
//! arrival until the engine says it is done ([`JobSink::done`]); then
//! they are final but for the run's end, and move to [`SortedRuns`]: runs
//! of [`PARKED_RUN`] tenants sorted by tenant, in memory while small
//! ([`PARKED_IN_MEMORY`]), in an unnamed temporary file past that, read back merged in
//! tenant order at the end, so the rows are written in tenant order, one
//! after the other. Tenants that never arrived (after the horizon) hold
//! nothing: their rows are made from the figures of their arrival, whose
//! time and A*_i the run's fold reads at the end. The rows are the same
//! to the bit whether a tenant was parked or kept: each row is computed
//! from its own tenant's figures alone.
//!
//! [`JobSink::done`]: crate::models::sim::JobSink::done

use super::spill::{Record, spill_threshold};
use super::tenant_rows::TimeTo;
use super::{TenantMetrics, TenantRows, TenantRowsBuilder};
use crate::core::error::{Error, Result};
use crate::core::io::sorted_runs::SortedRuns;
use crate::core::memory::PARKED_RUN;
use crate::core::sim::{ActiveTable, Bits};
use crate::models::sim::{EndReason, EndState, RunEndState, TenantLimits};
use crate::models::trace::Micros;

/// The running figures of one tenant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Running {
    /// Its arrival, µs.
    arrival: Micros,
    /// A*_i, its best accuracy in the trace.
    a_star: f64,
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

impl Running {
    /// The figures of a tenant arriving at `arrival` whose best accuracy
    /// is `a_star` (no job yet).
    fn at_arrival(arrival: Micros, a_star: f64) -> Self {
        Self {
            arrival,
            a_star,
            t: arrival,
            covered: arrival,
            ..Self::default()
        }
    }
}

/// A done tenant's figures as parked: its index and its [`Running`]
/// (97 bytes: the index, a byte saying which options are set, ten
/// 8-byte figures and two counts).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Parked {
    tenant: u64,
    figures: Running,
}

impl Record for Parked {
    const BYTES: usize = 97;
    fn encode(&self, out: &mut [u8]) {
        let r = &self.figures;
        out[0..8].copy_from_slice(&self.tenant.to_le_bytes());
        out[8] = u8::from(r.first_start.is_some()) | (u8::from(r.last_end.is_some()) << 1);
        let words = [
            r.best.to_bits(),
            r.area.to_bits(),
            r.t,
            r.covered,
            r.gap,
            r.first_start.unwrap_or(0),
            r.last_end.unwrap_or(0),
            r.gpu_us,
            r.arrival,
            r.a_star.to_bits(),
        ];
        for (j, w) in words.iter().enumerate() {
            out[9 + 8 * j..17 + 8 * j].copy_from_slice(&w.to_le_bytes());
        }
        out[89..93].copy_from_slice(&r.started.to_le_bytes());
        out[93..97].copy_from_slice(&r.completed.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        let word = |j: usize| u64::decode(&b[9 + 8 * j..17 + 8 * j]);
        let count = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        Self {
            tenant: u64::decode(&b[0..8]),
            figures: Running {
                best: f64::from_bits(word(0)),
                area: f64::from_bits(word(1)),
                t: word(2),
                covered: word(3),
                gap: word(4),
                first_start: (b[8] & 1 != 0).then(|| word(5)),
                last_end: (b[8] & 2 != 0).then(|| word(6)),
                gpu_us: word(7),
                arrival: word(8),
                a_star: f64::from_bits(word(9)),
                started: count(89),
                completed: count(93),
            },
        }
    }
}

/// Bytes of parked figures kept in memory (each of the runs' two
/// sequences) before they move to a temporary file: 4 MiB, about 40,000
/// tenants at three thresholds. Far
/// below the curves' threshold because parked figures are only read back
/// once, at the end, and because a run whose tenants are all present at
/// once (scale-1m) already holds a slot for every tenant: its parked
/// figures in memory would be a second copy (measured: +108 MB at 10^6
/// tenants with the 64 MiB default, docs/PERFORMANCE.md "Internet
/// scale").
pub(super) const PARKED_IN_MEMORY: usize = 4 << 20;

/// Every tenant's figures of one run, folded as the engine goes.
#[derive(Debug)]
pub(super) struct TenantFold {
    /// Tenants of the run.
    n: usize,
    thresholds: Vec<f64>,
    /// The figures of the tenants that arrived and are not done (parked).
    active: ActiveTable<Running>,
    /// Per slot of `active` × threshold (slot-major): time from arrival
    /// until ℓ_i ≤ θ, µs.
    time_to: Vec<Option<Micros>>,
    /// Done tenants' figures, each with its times to the thresholds, in
    /// runs sorted by tenant.
    parked: SortedRuns<Parked, TimeTo>,
    /// One bit a tenant: whether its figures are parked.
    is_parked: Bits,
    /// The first thing that went wrong (a spill's I/O, a bad threshold
    /// knob, a job event after the tenant was done), reported by
    /// [`Self::finish`].
    failure: Option<Error>,
}

impl Clone for TenantFold {
    /// An independent copy (a fork of the run): the parked figures are
    /// copied too; a copy that fails is reported by the copy's `finish`.
    fn clone(&self) -> Self {
        let mut failure = self.failure.clone();
        let parked = self.parked.copy_or_empty(&mut failure);
        Self {
            n: self.n,
            thresholds: self.thresholds.clone(),
            active: self.active.clone(),
            time_to: self.time_to.clone(),
            parked,
            is_parked: self.is_parked.clone(),
            failure,
        }
    }
}

/// The time to θ of a tenant whose best accuracy is `a_star`, before any
/// job: 0 when θ is already met with best_i = 0 (A*_i ≤ θ), else none.
fn met_at_arrival(a_star: f64, theta: f64) -> Option<Micros> {
    (a_star <= theta + super::THETA_SLACK).then_some(0)
}

impl TenantFold {
    /// Tenants `0..n`, measured at `thresholds`; done tenants' figures
    /// spill to disk past [`PARKED_IN_MEMORY`] bytes or this process's
    /// spill threshold, whichever is smaller.
    pub(super) fn new(n: usize, thresholds: &[f64]) -> Self {
        let (threshold, failure) = match spill_threshold() {
            Ok(t) => (t.min(PARKED_IN_MEMORY), None),
            Err(e) => (PARKED_IN_MEMORY, Some(e)),
        };
        let mut fold = Self::with_spill_threshold(n, thresholds, PARKED_RUN, threshold);
        fold.failure = failure;
        fold
    }

    /// [`Self::new`], the done tenants' figures sorted in runs of `run`
    /// and spilling past `bytes`.
    fn with_spill_threshold(n: usize, thresholds: &[f64], run: usize, bytes: usize) -> Self {
        let tenant = |p: &Parked| p.tenant;
        Self {
            n,
            active: ActiveTable::new(n),
            time_to: Vec::new(),
            parked: SortedRuns::new(tenant, thresholds.len(), run, bytes),
            is_parked: Bits::new(n),
            failure: None,
            thresholds: thresholds.to_vec(),
        }
    }

    /// Whether tenant `i`'s figures are parked (it was done).
    pub(super) fn parked(&self, i: usize) -> bool {
        self.is_parked.get(i)
    }

    /// Tenant `i`'s slot while it holds one (from its arrival until it is
    /// parked): the run's fold keys its curves' state by it too, so one
    /// table of slot numbers serves all three.
    pub(super) fn key(&self, i: usize) -> Option<usize> {
        self.active.slot(i)
    }

    /// A key that no tenant holds: one past the slots (for the curves'
    /// changes of tenants that never arrived, at the end).
    pub(super) fn unused_key(&self) -> usize {
        self.active.high_water()
    }

    /// Tenant `i`'s slot and A*_i while it holds a slot.
    pub(super) fn key_and_best(&self, i: usize) -> Option<(usize, f64)> {
        let s = self.active.slot(i)?;
        Some((s, self.active.at(s).a_star))
    }

    /// The first failure is kept (reported by [`Self::finish`]).
    fn fail(&mut self, message: String) {
        self.failure.get_or_insert_with(|| Error::input(message));
    }

    /// Tenant `i` arrives at `arrival`; its best accuracy is `a_star`: it
    /// takes a slot, with its arrival's figures.
    pub(super) fn arrived(&mut self, i: usize, arrival: Micros, a_star: f64) {
        let (s, fresh) = self.active.slot_or_insert(i);
        if !fresh || self.parked(i) {
            self.fail(format!("internal: tenant {i} arrived twice"));
            return;
        }
        *self.active.at_mut(s) = Running::at_arrival(arrival, a_star);
        let k = self.thresholds.len();
        if self.time_to.len() < (s + 1) * k {
            self.time_to.resize((s + 1) * k, None);
        }
        for (slot, &th) in self.time_to[s * k..(s + 1) * k]
            .iter_mut()
            .zip(&self.thresholds)
        {
            *slot = met_at_arrival(a_star, th);
        }
    }

    /// Tenant `i`'s slot for a job event; none (a failure, reported at the
    /// end) when it holds none: its job came before its arrival or after
    /// the engine said it was done.
    fn slot(&mut self, i: usize) -> Option<usize> {
        let s = self.active.slot(i);
        if s.is_none() {
            let when = if self.parked(i) {
                "after the engine said it was done"
            } else {
                "before its arrival"
            };
            self.fail(format!("internal: tenant {i} had a job event {when}"));
        }
        s
    }

    /// Tenant `i` starts a job at `start` planned to end at `end`. The gap
    /// before it: start − max(arrival, planned ends of its earlier jobs),
    /// when positive (the batch's `start.min(demand_end)` is `start`: a
    /// job starts before its tenant's demand ends).
    pub(super) fn started(&mut self, i: usize, start: Micros, end: Micros) {
        let Some(s) = self.slot(i) else { return };
        let r = self.active.at_mut(s);
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
        let Some(s) = self.slot(i) else { return };
        let r = self.active.at_mut(s);
        let (a_star, arrival) = (r.a_star, r.arrival);
        r.area += (a_star - r.best) * (at - r.t) as f64;
        r.t = at;
        if acc > r.best {
            r.best = acc;
            let best = r.best;
            let k = self.thresholds.len();
            for (slot, &th) in self.time_to[s * k..(s + 1) * k]
                .iter_mut()
                .zip(&self.thresholds)
            {
                if slot.is_none() && a_star - best <= th + super::THETA_SLACK {
                    *slot = Some(at - arrival);
                }
            }
        }
        let r = self.active.at_mut(s);
        r.completed += 1;
        r.gpu_us += at.saturating_sub(start);
        r.last_end = Some(r.last_end.map_or(at, |e| e.max(at)));
    }

    /// A job of tenant `i` started at `start` ends at `at` without
    /// completing: cancelled when its tenant left, or cut by the end of
    /// the run (`at` is then its planned end, and `end` the run's end).
    pub(super) fn stopped(&mut self, i: usize, start: Micros, at: Micros, end: Micros) {
        let Some(s) = self.slot(i) else { return };
        let r = self.active.at_mut(s);
        r.gpu_us += at.min(end).saturating_sub(start);
        r.last_end = Some(r.last_end.map_or(at, |e| e.max(at)));
    }

    /// Tenant `i` is done (no job of it will start, complete or be
    /// cancelled): its figures, if it holds a slot, are parked and its
    /// slot freed. If parking fails the figures stay where they are, and the
    /// failure is reported at the end.
    pub(super) fn done(&mut self, i: usize) {
        let Some(s) = self.active.slot(i) else {
            return;
        };
        let k = self.thresholds.len();
        let record = Parked {
            tenant: i as u64,
            figures: *self.active.at(s),
        };
        let times = self.time_to[s * k..(s + 1) * k].iter().map(|&t| TimeTo(t));
        match self.parked.push(record, times) {
            Ok(()) => {
                self.active.release(i);
                self.is_parked.set(i);
            }
            Err(e) => {
                self.failure.get_or_insert(e);
            }
        }
    }

    /// Every tenant's row of a run that ended as `state` says (its end and
    /// the [`RunOutcome`](crate::models::sim::RunOutcome)'s per-tenant end
    /// states); `models(i)` is tenant i's number of models.
    ///
    /// The rows are made in tenant order, one after the other: a parked
    /// tenant's from its figures, read back merged in tenant order; the
    /// others' from their slot, or, for a tenant that never arrived (after
    /// the horizon), from the figures of its arrival and A*_i that
    /// `never_arrived(i)` gives (none for a tenant that did arrive: an
    /// internal error, it should hold figures). An error: what went
    /// wrong during the run (a spill's I/O, a job event after a tenant was
    /// done or before it arrived) or reading the figures back.
    pub(super) fn finish(
        mut self,
        state: &RunEndState<'_>,
        models: impl Fn(usize) -> usize,
        never_arrived: impl Fn(usize) -> Option<(Micros, f64)>,
    ) -> Result<TenantRows> {
        if let Some(e) = self.failure {
            return Err(e.context("folding the tenants' rows"));
        }
        let ctx = RowContext {
            end: state.end,
            models: &models,
            limits: state.limits,
        };
        let k = self.thresholds.len();
        let n = self.n;
        // Rows past `ROWS_IN_MEMORY` go to a temporary file as they are
        // made, never a vector of every row (scale-year: 1.4 GB,
        // docs/PERFORMANCE.md "Internet scale").
        let mut out = TenantRowsBuilder::new(k)?;
        let mut parked = self.parked.sorted()?;
        let mut next = parked.next().transpose()?;
        // The end states in tenant order, beside the parked figures (in
        // runs on disk for a large run: `EndStates`).
        if state.end_states.len() != n {
            return Err(Error::input(format!(
                "internal: {} end states for {n} tenants",
                state.end_states.len()
            )));
        }
        let mut ends = state.end_states.iter();
        // The leave times in tenant order too (in runs on disk when many
        // tenants left: `LeftAt`).
        if state.left_at.len() != n {
            return Err(Error::input(format!(
                "internal: {} leave times for {n} tenants",
                state.left_at.len()
            )));
        }
        let mut lefts = state.left_at.iter();
        for i in 0..n {
            let e = ends
                .next()
                .ok_or_else(|| Error::input(format!("internal: no end state for tenant {i}")))??;
            let left = lefts
                .next()
                .ok_or_else(|| Error::input(format!("internal: no leave time for tenant {i}")))??;
            if self.is_parked.get(i) {
                let (p, times) = next
                    .take()
                    .filter(|(p, _)| p.tenant == i as u64)
                    .ok_or_else(|| {
                        Error::input(format!("internal: parked tenant {i} has no figures"))
                    })?;
                let times = times.into_iter().map(|t| t.0).collect();
                out.push(&ctx.row(i, e, left, &p.figures, times))?;
                next = parked.next().transpose()?;
            } else if let Some(s) = self.active.slot(i) {
                let times = self.time_to[s * k..(s + 1) * k].to_vec();
                out.push(&ctx.row(i, e, left, self.active.at(s), times))?;
            } else if let Some((arrival, a_star)) = never_arrived(i) {
                let times = (self.thresholds.iter())
                    .map(|&th| met_at_arrival(a_star, th))
                    .collect();
                out.push(&ctx.row(i, e, left, &Running::at_arrival(arrival, a_star), times))?;
            } else {
                return Err(Error::input(format!(
                    "internal: tenant {i} arrived and has no figures"
                )));
            }
        }
        if let Some((p, _)) = next {
            return Err(Error::input(format!(
                "internal: figures parked for tenant {} that is not parked",
                p.tenant
            )));
        }
        out.finish()
    }
}

/// What a row reads besides its tenant's figures, end state and leave
/// time: the run's end, the models and the limits.
struct RowContext<'a, M> {
    end: Micros,
    models: &'a M,
    limits: TenantLimits,
}

impl<M: Fn(usize) -> usize> RowContext<'_, M> {
    /// Tenant `i`'s row from its end state `e`, when it left (`left`), its
    /// figures `r` and its times to the thresholds `times` (the batch's
    /// arithmetic, [`tenant_metrics`](super::tenant_metrics)): the area
    /// runs on to the end at its last loss; its demand ends when it left,
    /// at its last job's end when it had nothing left to run, else at the
    /// end.
    fn row(
        &self,
        i: usize,
        e: EndState,
        left: Option<Micros>,
        r: &Running,
        times: Vec<Option<Micros>>,
    ) -> TenantMetrics {
        let end = self.end;
        let (arrival, a_star) = (r.arrival, r.a_star);
        let t = r.t.min(end);
        let area = r.area + (a_star - r.best) * end.saturating_sub(t) as f64;
        let finished_demand = r.started as usize == (self.models)(i)
            || e.ended == EndReason::ScheduleOver
            || e.budget_exhausted
            || self.limits.max_jobs.is_some_and(|m| r.started >= m);
        let demand_end = match left {
            Some(l) => l,
            None if finished_demand => r.last_end.unwrap_or(end),
            None => end,
        }
        .min(end);
        let covered = r.last_end.map_or(arrival, |e| e.max(arrival));
        let gap = r.gap.max(demand_end.saturating_sub(covered));
        TenantMetrics {
            arrival,
            regret_area: area / 1.0e6,
            time_to: times,
            wait_first_job: r.first_start.map(|s| s - arrival),
            longest_gap: gap,
            jobs: r.completed,
            gpu_us: r.gpu_us,
            abandoned: left.is_some(),
            budget_exhausted: e.budget_exhausted,
            ended: e.ended,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::sim::{EndStates, EndStatesBuilder, LeftAt};

    /// One made-up call: (tenant, kind, start, at).
    type Call = (usize, u8, Micros, Micros);

    /// Tenant i's arrival and A*_i in these tests.
    fn arrival(i: usize) -> (Micros, f64) {
        (i as Micros * 1_000, 0.5 + 0.01 * i as f64)
    }

    /// `n` tenants' calls, round-robin within blocks of 8 tenants, block
    /// after block (so slots are taken and freed interleaved, and reused): tenant i arrives,
    /// then runs i % 5 jobs, each
    /// completed or stopped; `Some(i)` after a tenant's last call for
    /// those the engine would call done (i % 3 != 0; the others stay
    /// active to the end, tenant 5 left).
    fn calls(n: usize) -> Vec<(Call, Option<usize>)> {
        let per: Vec<Vec<Call>> = (0..n)
            .map(|i| {
                let a = arrival(i).0;
                let jobs = (0..(i % 5) as Micros).flat_map(|j| {
                    let start = a + 500 + j * 7_000;
                    let kind = if (i + j as usize) % 3 == 1 { 2 } else { 1 };
                    let end = if kind == 2 {
                        start + 2_000
                    } else {
                        start + 6_000
                    };
                    [(i, 0, start, start + 6_000), (i, kind, start, end)]
                });
                std::iter::once((i, 3, a, a)).chain(jobs).collect()
            })
            .collect();
        let mut out = Vec::new();
        for block in (0..n).collect::<Vec<_>>().chunks(8) {
            let longest = block.iter().map(|&i| per[i].len()).max().unwrap_or(0);
            for step in 0..longest {
                for &i in block {
                    if let Some(&call) = per[i].get(step) {
                        let last = step + 1 == per[i].len() && i % 3 != 0;
                        out.push((call, last.then_some(i)));
                    }
                }
            }
        }
        out
    }

    /// A fold of `n` tenants whose done ones are sorted in runs of
    /// `PARKED_RUN` tenants (`spill_bytes` `usize::MAX`: held in memory)
    /// or of 4 (`spill_bytes` 0: every run on disk at once).
    fn fold(n: usize, spill_bytes: usize) -> TenantFold {
        let run = if spill_bytes == 0 { 4 } else { PARKED_RUN };
        TenantFold::with_spill_threshold(n, &[0.05, 0.5, 0.01], run, spill_bytes)
    }

    fn apply(f: &mut TenantFold, (i, kind, start, at): Call) {
        match kind {
            3 => f.arrived(i, start, arrival(i).1),
            0 => f.started(i, start, at),
            1 => f.completed(
                i,
                start,
                at,
                0.3 + 0.007 * (i as f64) + 1e-4 * at as f64 / 1e3,
            ),
            _ => f.stopped(i, start, at, 90_000),
        }
    }

    /// A run's end at `end` with these end states (no arrivals: the fold
    /// reads none).
    fn end_state<'a>(
        end: Micros,
        left_at: &'a LeftAt,
        end_states: &'a EndStates,
    ) -> RunEndState<'a> {
        RunEndState {
            end,
            left_at,
            end_states,
            limits: TenantLimits::default(),
            arrivals: &NO_ARRIVALS,
        }
    }

    static NO_ARRIVALS: std::sync::LazyLock<crate::models::sim::Arrivals> =
        std::sync::LazyLock::new(|| Vec::new().into());

    /// The rows, the tenants that never arrived given their arrival and
    /// A*_i (as the run's fold gives them at the end), tenant 9 out of
    /// budget and tenant 12's schedule over; the same whether the end
    /// states are held a byte a tenant or in sorted runs on disk (a large
    /// run's form).
    fn rows(f: TenantFold, n: usize) -> Vec<TenantMetrics> {
        let never: Vec<bool> = (0..n).map(|i| f.key(i).is_none() && !f.parked(i)).collect();
        let left: LeftAt = (0..n).map(|i| (i == 5).then_some(40_000)).collect();
        let state = |i: usize| EndState {
            ended: match i {
                5 => EndReason::Patience,
                12 => EndReason::ScheduleOver,
                _ => EndReason::default(),
            },
            budget_exhausted: i == 9,
        };
        let dense = EndStates::from_states((0..n).map(state));
        let mut b = EndStatesBuilder::in_runs(n, 4, 0);
        for i in (0..n).rev() {
            b.set(i, state(i)).expect("set");
        }
        let in_runs = b.finish().expect("finish");
        assert!(in_runs.is_in_runs());
        let [a, b] = [dense, in_runs].map(|states| {
            f.clone()
                .finish(
                    &end_state(90_000, &left, &states),
                    |_| 3,
                    |i| never[i].then(|| arrival(i)),
                )
                .expect("rows")
                .to_vec()
                .expect("read back")
        });
        assert_eq!(a, b);
        a
    }

    /// The rows are the same whether done tenants' figures are kept, or
    /// parked in memory, or parked in a spilled file: the same events,
    /// with and without the done calls. Tenants 41–43 never arrive.
    #[test]
    fn rows_of_parked_tenants_equal_rows_of_kept_ones() {
        let n = 44;
        let mut kept = fold(n, usize::MAX);
        let mut in_memory = fold(n, usize::MAX);
        let mut on_disk = fold(n, 0);
        for (call, done) in calls(41) {
            for f in [&mut kept, &mut in_memory, &mut on_disk] {
                apply(f, call);
            }
            if let Some(i) = done {
                in_memory.done(i);
                on_disk.done(i);
            }
        }
        assert!(on_disk.parked.is_spilled() && !in_memory.parked.is_spilled());
        assert!(
            on_disk.parked.len() >= 20,
            "{} parked",
            on_disk.parked.len()
        );
        // Fewer slots than tenants that ran jobs: slots were reused.
        assert!(on_disk.active.high_water() < kept.active.high_water());
        let want = rows(kept, n);
        assert!(want.iter().any(|r| r.jobs > 1) && want.iter().any(|r| r.abandoned));
        assert!(want.iter().any(|r| r.time_to.iter().any(Option::is_some)));
        assert_eq!(rows(in_memory, n), want);
        assert_eq!(rows(on_disk, n), want);
    }

    /// A fork (the fold cloned mid-run) goes on alone with the parked
    /// figures of both, spilled or not.
    #[test]
    fn a_forked_fold_keeps_the_parked_figures() {
        let n = 41;
        for bytes in [usize::MAX, 0] {
            let mut a = fold(n, bytes);
            let mut kept = fold(n, usize::MAX);
            let all = calls(n);
            let half = all.len() / 2;
            for &(call, done) in &all[..half] {
                apply(&mut a, call);
                apply(&mut kept, call);
                if let Some(i) = done {
                    a.done(i);
                }
            }
            let mut b = a.clone();
            for &(call, done) in &all[half..] {
                for f in [&mut a, &mut b, &mut kept] {
                    apply(f, call);
                }
                if let Some(i) = done {
                    a.done(i);
                    b.done(i);
                }
            }
            let want = rows(kept, n);
            assert_eq!(rows(a, n), want, "spill past {bytes} bytes");
            assert_eq!(rows(b, n), want, "spill past {bytes} bytes");
        }
    }

    /// A job event for a tenant after it was said done, or before it
    /// arrived, or a second arrival, is a bug of the caller: the rows are
    /// refused with an error naming the tenant and what went wrong, not
    /// made wrong.
    #[test]
    fn an_event_after_done_is_an_error_not_a_wrong_row() {
        type Misuse = fn(&mut TenantFold);
        let misuses: [(Misuse, &str); 3] = [
            (
                |f| {
                    f.done(1);
                    f.started(1, 1_030, 1_040);
                },
                "after the engine said it was done",
            ),
            (|f| f.started(2, 1_030, 1_040), "before its arrival"),
            (|f| f.arrived(1, 1_000, 0.5), "arrived twice"),
        ];
        for (misuse, what) in misuses {
            let mut f = fold(3, usize::MAX);
            f.arrived(1, 1_000, 0.5);
            f.started(1, 1_010, 1_020);
            f.completed(1, 1_010, 1_020, 0.4);
            misuse(&mut f);
            for i in [0, 2] {
                if f.key(i).is_none() {
                    f.arrived(i, 0, 0.5);
                }
            }
            let left = LeftAt::from(vec![None; 3]);
            let states = EndStates::from_states([EndState::default(); 3]);
            let state = end_state(90, &left, &states);
            let Err(e) = f.finish(&state, |_| 2, |_| None) else {
                panic!("rows made after a misuse ({what})");
            };
            let e = e.to_string();
            assert!(e.contains("tenant ") && e.contains(what), "{e}");
        }
    }

    /// A tenant with no figures gets the row of its arrival when it never
    /// arrived (its arrival and A*_i given at the end, held nowhere
    /// before), and is an error otherwise: the rows are refused rather
    /// than made from figures it never had.
    #[test]
    fn a_tenant_without_figures_gets_its_arrivals_row_only_if_it_never_arrived() {
        let finish = |never: &dyn Fn(usize) -> Option<(Micros, f64)>| {
            let mut f = fold(2, usize::MAX);
            f.arrived(0, 0, 0.5);
            let left = LeftAt::from(vec![None; 2]);
            let states = EndStates::from_states([EndState::default(); 2]);
            let state = end_state(90, &left, &states);
            f.finish(&state, |_| 2, never)
        };
        let Err(e) = finish(&|_| None) else {
            panic!("rows made for a tenant without figures");
        };
        assert!(e.to_string().contains("tenant 1"), "{e}");
        let rows = finish(&|i| (i == 1).then_some((60, 0.25)))
            .expect("rows")
            .to_vec()
            .expect("read");
        assert_eq!((rows[1].arrival, rows[1].jobs), (60, 0));
        // 0.25 from its arrival at 60 µs to the end at 90, accuracy·s.
        assert_eq!(rows[1].regret_area * 1e6, 0.25 * 30.0);
        assert_eq!(rows[1].time_to, [None, Some(0), None]);
    }

    /// A parked record reads back what was written, options set or not.
    #[test]
    fn parked_records_read_back_bit_for_bit() {
        let figures = Running {
            arrival: u64::MAX - 1,
            a_star: 0.7 + 1e-17,
            best: 0.1 + 0.2,
            area: -1.0 / 3.0,
            t: u64::MAX,
            covered: 7,
            gap: 1 << 40,
            first_start: Some(0),
            last_end: None,
            started: u32::MAX,
            completed: 3,
            gpu_us: 12_345,
        };
        for figures in [
            figures,
            Running {
                last_end: Some(9),
                first_start: None,
                ..figures
            },
        ] {
            let p = Parked {
                tenant: 1 << 33,
                figures,
            };
            let mut b = [0u8; Parked::BYTES];
            p.encode(&mut b);
            assert_eq!(Parked::decode(&b), p);
        }
        for t in [None, Some(0), Some(u64::MAX)] {
            let mut b = [0u8; TimeTo::BYTES];
            TimeTo(t).encode(&mut b);
            assert_eq!(TimeTo::decode(&b), TimeTo(t));
        }
    }
}
