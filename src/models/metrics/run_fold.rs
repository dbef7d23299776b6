//! A run's metrics folded online (DESIGN §2.6, §8.5): the engine calls
//! [`RunFold`] (its [`JobSink`]) at every arrival, job start, completion and cancellation,
//! and at its end gets the per-tenant rows ([`TenantMetrics`]) and both
//! loss curves ([`LossCurve`], [`LossCurve::by_jobs`]) that the batch
//! computation would read from the job log, bit for bit, without the log.
//! Nothing is allocated per event but the arrivals waiting for the job
//! curve (a buffer that is reused).
//!
//! Memory by active tenants (issue 34): a tenant's arrival and A*_i come
//! with its arrival ([`JobSink::arrived`]) and stay in its slot while it
//! is present; the per-tenant rows and both curves key their state by
//! that one slot ([`TenantFold::key`]), so the fold holds 4 bytes and
//! three bits (arrived, waiting to join the curve by jobs, parked) for
//! each tenant of the run, not a copy of every arrival and A*_i.

use std::any::Any;
use std::sync::Arc;

use super::curve_builder::{ARRIVAL, COMPLETION, StepBuilder};
use super::tenant_fold::TenantFold;
use super::{LossCurve, TenantRows};
use crate::core::error::Result;
use crate::core::sim::Bits;
use crate::models::sim::{JobSink, RunEndState, RunOutcome, Unarrived};
use crate::models::trace::Micros;

/// What a folded run hands to the runner in place of the job log.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldedRun {
    /// Every tenant's row ([`tenant_metrics`](super::tenant_metrics)), or
    /// what kept the fold from making them (an I/O error of the done
    /// tenants' spilled figures, DESIGN §2.6 "Done tenants").
    pub tenants: Result<TenantRows>,
    /// L(τ) ([`LossCurve::from_outcome`]; the runner sets its stall
    /// fields), or why its points cannot be had (an I/O error of a spilled
    /// curve).
    pub curve: Result<LossCurve>,
    /// L by completed jobs ([`LossCurve::by_jobs`]), or why not.
    pub job_curve: Result<LossCurve>,
    /// When the first job completed, µs.
    pub first_completion: Option<Micros>,
    /// Jobs completed.
    pub completions: usize,
}

impl FoldedRun {
    /// The metrics folded during the run of `outcome` (by a [`RunFold`]),
    /// taken out of it; `None` when nothing was folded.
    pub fn take(outcome: &mut RunOutcome) -> Option<Self> {
        let folded = outcome.folded.take()?.downcast::<Self>().ok()?;
        Some(Arc::try_unwrap(folded).unwrap_or_else(|f| (*f).clone()))
    }
}

/// The online fold of one run's metrics.
#[derive(Debug)]
pub struct RunFold {
    /// The per-tenant figures; their slots key the curves' state too.
    tenants: TenantFold,
    /// L(τ): changes at their instants.
    curve: StepBuilder,
    /// L by jobs: the j-th completion at j, an arrival at the number of
    /// jobs completed by then (DESIGN §6.4).
    job_curve: StepBuilder,
    /// Tenants arrived since the last completion: they join the job curve
    /// at `completions`, in tenant order (the batch's stable sort by axis
    /// value), before the next completion (their A*_i read from their
    /// figures, which keep their slot until then).
    waiting: Vec<u32>,
    /// Tenants done while waiting to join the job curve: they let their
    /// slot go once they joined.
    done_waiting: Vec<u32>,
    /// Tenants of the run.
    n: usize,
    /// One bit a tenant: whether its arrival was processed.
    arrived: Bits,
    /// One bit a tenant: whether it is in `waiting`.
    is_waiting: Bits,
    /// The largest job-axis value of an arrival so far.
    job_last_arrival: Micros,
    completions: u64,
    first_completion: Option<Micros>,
}

impl RunFold {
    /// A fold for a run of `n` tenants, per-tenant times measured at
    /// `thresholds`. Each tenant's arrival time and A*_i come with its
    /// arrival ([`JobSink::arrived`]), or, for a tenant that never
    /// arrived, at the end ([`JobSink::finish`]).
    pub fn new(n: usize, thresholds: &[f64]) -> Self {
        Self {
            tenants: TenantFold::new(n, thresholds),
            curve: StepBuilder::new(),
            job_curve: StepBuilder::new(),
            waiting: Vec::new(),
            done_waiting: Vec::new(),
            n,
            arrived: Bits::new(n),
            is_waiting: Bits::new(n),
            job_last_arrival: 0,
            completions: 0,
            first_completion: None,
        }
    }

    /// The arrivals waiting for the job curve, in tenant order, at the
    /// number of jobs completed so far; then the tenants done meanwhile
    /// let their state go.
    fn admit_waiting(&mut self) {
        self.admit_with_late(&[], &|_| 0.0);
    }

    /// [`Self::admit_waiting`], with the tenants `late` (ascending) that
    /// never arrived, A*_i `best_possible(i)`, joining among them in tenant
    /// order (at the end of the run). Those hold no slot: each change of
    /// theirs is applied under a key no tenant holds, cleared after it
    /// (their entries need nothing after their arrival).
    fn admit_with_late(&mut self, late: &[usize], best_possible: &dyn Fn(usize) -> f64) {
        if !self.waiting.is_sorted() {
            self.waiting.sort_unstable();
        }
        let spare = self.tenants.unused_key();
        let waiting = std::mem::take(&mut self.waiting);
        let (mut a, mut b) = (0, 0);
        while a < waiting.len() || b < late.len() {
            if b == late.len() || (a < waiting.len() && (waiting[a] as usize) < late[b]) {
                let i = waiting[a] as usize;
                a += 1;
                self.is_waiting.clear(i);
                if let Some((key, a_star)) = self.tenants.key_and_best(i) {
                    self.job_curve
                        .push((self.completions, ARRIVAL, key, a_star));
                }
            } else {
                let i = late[b];
                b += 1;
                self.job_curve
                    .push((self.completions, ARRIVAL, spare, best_possible(i)));
                self.job_curve.release(spare);
            }
        }
        self.waiting = waiting;
        self.waiting.clear();
        for i in std::mem::take(&mut self.done_waiting) {
            self.let_go(i as usize);
        }
    }

    /// Tenant `i` is done: the curves' state under its slot is cleared,
    /// then its figures are parked and the slot freed (in this order: the
    /// slot may go to the next tenant that arrives).
    fn let_go(&mut self, i: usize) {
        if let Some(key) = self.tenants.key(i) {
            self.curve.release(key);
            self.job_curve.release(key);
        }
        self.tenants.done(i);
    }

    /// The metrics of the run once it ended: `cut` lists the jobs still
    /// running at its end (tenant, start, planned end), `models(i)` is
    /// tenant i's number of models and `best_possible(i)` its A*_i.
    /// Tenants whose arrival was never processed (after the horizon) join
    /// both curves after everything, as the batch computation places
    /// them, at their arrival times `state.arrivals`.
    fn finish_run(
        mut self,
        state: &RunEndState<'_>,
        models: &dyn Fn(usize) -> usize,
        best_possible: &dyn Fn(usize) -> f64,
        cut: &mut dyn Iterator<Item = (usize, Micros, Micros)>,
    ) -> FoldedRun {
        let end = state.end;
        for (i, start, planned) in cut {
            self.tenants.stopped(i, start, planned, end);
        }
        // Tenants that never arrived hold nothing (no slot, nothing in the
        // curves' state): their arrival and A*_i are read here, for the
        // curves, and when their rows are made.
        let mut late: Vec<usize> = (0..self.n).filter(|&i| !self.arrived.get(i)).collect();
        // Their times: looked up, or drawn again when the arrivals were
        // drawn as the run went (only the late ones are kept).
        let unarrived = if late.is_empty() {
            Unarrived::Drawn(Default::default())
        } else {
            state.arrivals.of_unarrived(&|i| self.arrived.get(i))
        };
        let arrival = |i: usize| unarrived.get(i);
        late.sort_by_key(|&i| arrival(i));
        let spare = self.tenants.unused_key();
        for &i in &late {
            self.curve
                .push((arrival(i), ARRIVAL, spare, best_possible(i)));
            self.curve.release(spare);
        }
        if !late.is_empty() {
            self.job_last_arrival = self.job_last_arrival.max(self.completions);
        }
        late.sort_unstable();
        self.admit_with_late(&late, best_possible);
        let last_arrival = state.arrivals.last();
        // The curves first: their builders' per-tenant vectors are freed
        // before the rows are made (the run's peak of memory at 10^7
        // tenants, docs/PERFORMANCE.md "Internet scale"); the same values.
        let curve = self
            .curve
            .finish()
            .and_then(|s| LossCurve::from_steps(s, last_arrival, end));
        let job_curve = self
            .job_curve
            .finish()
            .and_then(|s| LossCurve::from_steps(s, self.job_last_arrival, self.completions));
        drop((late, self.is_waiting, self.waiting));
        let arrived = self.arrived;
        let never_arrived = |i: usize| (!arrived.get(i)).then(|| (arrival(i), best_possible(i)));
        FoldedRun {
            tenants: self.tenants.finish(state, models, never_arrived),
            curve,
            job_curve,
            first_completion: self.first_completion,
            completions: usize::try_from(self.completions).unwrap_or(usize::MAX),
        }
    }
}

impl JobSink for RunFold {
    /// Tenant `i` arrives at `now` (after the completions of `now`); its
    /// best accuracy is `best_possible`: its figures take a slot, and it
    /// joins the time curve now and the job curve before the next
    /// completion.
    fn arrived(&mut self, now: Micros, i: usize, best_possible: f64) {
        self.arrived.set(i);
        self.tenants.arrived(i, now, best_possible);
        if let Some(key) = self.tenants.key(i) {
            self.curve.push((now, ARRIVAL, key, best_possible));
        }
        self.waiting.push(i as u32);
        self.is_waiting.set(i);
        self.job_last_arrival = self.job_last_arrival.max(self.completions);
    }

    /// Tenant `i` starts a job at `start` planned to end at `end`.
    fn started(&mut self, i: usize, start: Micros, end: Micros) {
        self.tenants.started(i, start, end);
    }

    /// A job of tenant `i` started at `start` completes at `at` with
    /// accuracy `acc` (completions in the engine's processing order).
    fn completed(&mut self, i: usize, start: Micros, at: Micros, acc: f64) {
        self.tenants.completed(i, start, at, acc);
        let key = self.tenants.key(i);
        if let Some(key) = key {
            self.curve.push((at, COMPLETION, key, acc));
        }
        self.admit_waiting();
        self.completions += 1;
        if let Some(key) = key {
            self.job_curve
                .push((self.completions, COMPLETION, key, acc));
        }
        self.first_completion.get_or_insert(at);
    }

    /// A job of tenant `i` started at `start` is cancelled at `at` (its
    /// tenant left).
    fn cancelled(&mut self, i: usize, start: Micros, at: Micros) {
        self.tenants.stopped(i, start, at, at);
    }

    /// Tenant `i` is done: its figures are parked until the end, and the
    /// curves let its state go (its loss no longer changes), once it joined
    /// the job curve.
    fn done(&mut self, i: usize) {
        if self.is_waiting.get(i) {
            self.done_waiting.push(i as u32);
        } else {
            self.let_go(i);
        }
    }

    fn fork(&self) -> Box<dyn JobSink> {
        Box::new(Self {
            tenants: self.tenants.clone(),
            curve: self.curve.fork(),
            job_curve: self.job_curve.fork(),
            waiting: self.waiting.clone(),
            done_waiting: self.done_waiting.clone(),
            n: self.n,
            arrived: self.arrived.clone(),
            is_waiting: self.is_waiting.clone(),
            job_last_arrival: self.job_last_arrival,
            completions: self.completions,
            first_completion: self.first_completion,
        })
    }

    fn finish(
        self: Box<Self>,
        state: &RunEndState<'_>,
        models: &dyn Fn(usize) -> usize,
        best_possible: &dyn Fn(usize) -> f64,
        cut: &mut dyn Iterator<Item = (usize, Micros, Micros)>,
    ) -> Arc<dyn Any + Send + Sync> {
        Arc::new(self.finish_run(state, models, best_possible, cut))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::sim::{EndReason, EndState, EndStates, LeftAt, TenantLimits};

    /// The points of a folded curve: (axis, S, arrived).
    fn points(c: &Result<LossCurve>) -> Vec<(Micros, f64, u32)> {
        let c = c.as_ref().expect("a curve");
        c.points()
            .map(|p| p.map(|p| (p.time, p.sum_loss, p.arrived)))
            .collect::<Result<_>>()
            .expect("read back")
    }

    /// Regression: a tenant done before it joined the curve by jobs (it
    /// left before any job completed after its arrival) must keep its slot
    /// until it joined. Were its slot freed at once, the next tenant to
    /// arrive would take it, and the waiting tenant would miss the curve
    /// by jobs (S 0.75 short, one arrival fewer). Tenant 2 also arrives
    /// after the horizon of the run's end state: its arrival time and A*_i
    /// come from the end (`RunEndState::arrivals` and the callback).
    #[test]
    fn a_tenant_done_before_joining_the_curve_by_jobs_keeps_its_slot_until_it_joined() {
        let a_star = [0.75, 0.5, 0.25, 0.125];
        let arrivals = [0, 0, 20, 5_000];
        let listed = crate::models::sim::Arrivals::from(&arrivals[..]);
        let mut fold = RunFold::new(4, &[0.1]);
        fold.arrived(0, 0, a_star[0]);
        fold.arrived(0, 1, a_star[1]);
        // Tenant 0 leaves at 10 with no job: the engine says it is done.
        fold.done(0);
        fold.arrived(20, 2, a_star[2]);
        fold.started(1, 0, 30);
        fold.completed(1, 0, 30, 0.25);
        fold.done(1);
        let state = RunEndState {
            end: 100,
            left_at: &LeftAt::from(vec![Some(10), None, None, None]),
            end_states: &EndStates::from_states(
                [
                    EndReason::Patience,
                    EndReason::AllModelsRun,
                    EndReason::Horizon,
                    EndReason::Horizon,
                ]
                .map(|ended| EndState {
                    ended,
                    budget_exhausted: false,
                }),
            ),
            limits: TenantLimits::default(),
            arrivals: &listed,
        };
        let folded = Box::new(fold).finish(&state, &|_| 1, &|i| a_star[i], &mut std::iter::empty());
        let folded = folded.downcast_ref::<FoldedRun>().expect("a FoldedRun");
        // By jobs: all three arrived by the first completion join at 0
        // (S = 0.75 + 0.5 + 0.25), the completion lowers tenant 1's loss
        // by 0.25, and tenant 3, never arrived, joins after everything, at
        // the same point (1.25 + 0.125).
        assert_eq!(points(&folded.job_curve), [(0, 1.5, 3), (1, 1.375, 4)]);
        assert_eq!(
            points(&folded.curve),
            [(0, 1.25, 2), (20, 1.5, 3), (30, 1.25, 3), (5_000, 1.375, 4)]
        );
        let rows = folded
            .tenants
            .as_ref()
            .expect("rows")
            .to_vec()
            .expect("read");
        let arrived: Vec<Micros> = rows.iter().map(|r| r.arrival).collect();
        assert_eq!(arrived, arrivals);
        // Regret areas, accuracy·s: tenant 0 at 0.75 from 0 to the end
        // (100 µs), tenant 2 at 0.25 from 20, tenant 3 none (it arrives
        // after the end).
        let areas: Vec<f64> = rows.iter().map(|r| r.regret_area * 1e6).collect();
        assert_eq!(areas, [75.0, 0.5 * 30.0 + 0.25 * 70.0, 0.25 * 80.0, 0.0]);
    }
}
