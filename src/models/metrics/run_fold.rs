//! A run's metrics folded online (DESIGN §2.6, §8.5): the engine calls
//! [`RunFold`] (its [`JobSink`]) at every arrival, job start, completion and cancellation,
//! and at its end gets the per-tenant rows ([`TenantMetrics`]) and both
//! loss curves ([`LossCurve`], [`LossCurve::by_jobs`]) that the batch
//! computation would read from the job log, bit for bit, without the log.
//! Nothing is allocated per event but the arrivals waiting for the job
//! curve (a buffer that is reused).

use std::any::Any;
use std::sync::Arc;

use super::curve_builder::{ARRIVAL, COMPLETION, StepBuilder};
use super::tenant_fold::TenantFold;
use super::{LossCurve, TenantRows};
use crate::core::error::Result;
use crate::models::sim::{JobSink, RunEndState, RunOutcome};
use crate::models::trace::{Micros, Trace};

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
    tenants: TenantFold,
    /// Arrival per tenant (shared with `tenants`).
    arrivals: Arc<[Micros]>,
    /// L(τ): changes at their instants.
    curve: StepBuilder,
    /// L by jobs: the j-th completion at j, an arrival at the number of
    /// jobs completed by then (DESIGN §6.4).
    job_curve: StepBuilder,
    /// Tenants arrived since the last completion: they join the job curve
    /// at `completions`, in tenant order (the batch's stable sort by axis
    /// value), before the next completion.
    waiting: Vec<u32>,
    /// Per tenant: whether its arrival was processed.
    arrived: Vec<bool>,
    /// The largest job-axis value of an arrival so far.
    job_last_arrival: Micros,
    completions: u64,
    first_completion: Option<Micros>,
}

impl RunFold {
    /// A fold for tenants arriving at `arrivals` whose best accuracies
    /// are `best_possible`, per-tenant times measured at `thresholds`.
    pub fn new(arrivals: &[Micros], best_possible: Vec<f64>, thresholds: &[f64]) -> Self {
        Self::with_best(arrivals, best_possible, thresholds)
    }

    /// A fold for the run of trace users `users` arriving at `arrivals`
    /// (A*_i from the trace), per-tenant times at `thresholds`.
    pub fn for_run(
        trace: &Trace,
        users: &[usize],
        arrivals: &[Micros],
        thresholds: &[f64],
    ) -> Self {
        let best = users.iter().map(|&u| trace.best_accuracy(u)).collect();
        Self::with_best(arrivals, best, thresholds)
    }

    fn with_best(arrivals: &[Micros], best_possible: Vec<f64>, thresholds: &[f64]) -> Self {
        let n = arrivals.len();
        let arrivals: Arc<[Micros]> = arrivals.into();
        let best_possible: Arc<[f64]> = best_possible.into();
        Self {
            tenants: TenantFold::new(
                Arc::clone(&arrivals),
                Arc::clone(&best_possible),
                thresholds,
            ),
            arrivals,
            curve: StepBuilder::new(Arc::clone(&best_possible)),
            job_curve: StepBuilder::new(best_possible),
            waiting: Vec::new(),
            arrived: vec![false; n],
            job_last_arrival: 0,
            completions: 0,
            first_completion: None,
        }
    }

    /// The arrivals waiting for the job curve, in tenant order, at the
    /// number of jobs completed so far.
    fn admit_waiting(&mut self) {
        if !self.waiting.is_sorted() {
            self.waiting.sort_unstable();
        }
        for &i in &self.waiting {
            self.job_curve
                .push((self.completions, ARRIVAL, i as usize, 0.0));
        }
        self.waiting.clear();
    }

    /// The metrics of the run once it ended: `cut` lists the jobs still
    /// running at its end (tenant, start, planned end), `models(i)` is
    /// tenant i's number of models. Tenants whose arrival was never
    /// processed (after the horizon) join both curves after everything,
    /// as the batch computation places them.
    fn finish_run(
        mut self,
        state: &RunEndState<'_>,
        models: &dyn Fn(usize) -> usize,
        cut: &mut dyn Iterator<Item = (usize, Micros, Micros)>,
    ) -> FoldedRun {
        let end = state.end;
        for (i, start, planned) in cut {
            self.tenants.stopped(i, start, planned, end);
        }
        let mut late: Vec<usize> = (0..self.arrived.len())
            .filter(|&i| !self.arrived[i])
            .collect();
        late.sort_by_key(|&i| self.arrivals[i]);
        for &i in &late {
            self.curve.push((self.arrivals[i], ARRIVAL, i, 0.0));
            self.waiting.push(i as u32);
        }
        if !late.is_empty() {
            self.job_last_arrival = self.job_last_arrival.max(self.completions);
        }
        self.admit_waiting();
        let last_arrival = self.arrivals.iter().copied().max().unwrap_or(0);
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
        drop((late, self.arrived, self.waiting, self.arrivals));
        FoldedRun {
            tenants: self.tenants.finish(
                end,
                models,
                state.left_at,
                state.budget_exhausted,
                state.ended,
                state.limits,
            ),
            curve,
            job_curve,
            first_completion: self.first_completion,
            completions: usize::try_from(self.completions).unwrap_or(usize::MAX),
        }
    }
}

impl JobSink for RunFold {
    /// Tenant `i` arrives at `now` (after the completions of `now`).
    fn arrived(&mut self, now: Micros, i: usize) {
        self.arrived[i] = true;
        self.curve.push((now, ARRIVAL, i, 0.0));
        self.waiting.push(i as u32);
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
        self.curve.push((at, COMPLETION, i, acc));
        self.admit_waiting();
        self.completions += 1;
        self.job_curve.push((self.completions, COMPLETION, i, acc));
        self.first_completion.get_or_insert(at);
    }

    /// A job of tenant `i` started at `start` is cancelled at `at` (its
    /// tenant left).
    fn cancelled(&mut self, i: usize, start: Micros, at: Micros) {
        self.tenants.stopped(i, start, at, at);
    }

    /// Tenant `i` is done: its figures are parked until the end, and the
    /// curves let its state go (its loss no longer changes).
    fn done(&mut self, i: usize) {
        self.tenants.done(i);
        self.curve.release(i);
        self.job_curve.release(i);
    }

    fn fork(&self) -> Box<dyn JobSink> {
        Box::new(Self {
            tenants: self.tenants.clone(),
            arrivals: Arc::clone(&self.arrivals),
            curve: self.curve.fork(),
            job_curve: self.job_curve.fork(),
            waiting: self.waiting.clone(),
            arrived: self.arrived.clone(),
            job_last_arrival: self.job_last_arrival,
            completions: self.completions,
            first_completion: self.first_completion,
        })
    }

    fn finish(
        self: Box<Self>,
        state: &RunEndState<'_>,
        models: &dyn Fn(usize) -> usize,
        cut: &mut dyn Iterator<Item = (usize, Micros, Micros)>,
    ) -> Arc<dyn Any + Send + Sync> {
        Arc::new(self.finish_run(state, models, cut))
    }
}
