//! What the engine tells an observer of its jobs as it processes them
//! (DESIGN §2.6, §8.5): the hook through which a run's metrics are folded
//! online instead of being computed from a job log kept whole. The engine
//! knows nothing of the metrics: it calls a [`JobSink`] at each arrival,
//! job start, completion and cancellation, and hands it the run's end.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use super::{Arrivals, EndStates, LeftAt, TenantLimits};
use crate::models::trace::Micros;

/// The tenants' end of a run, from its outcome (what [`JobSink::finish`]
/// reads besides its own state).
#[derive(Debug, Clone, Copy)]
pub struct RunEndState<'a> {
    /// End of the run, µs.
    pub end: Micros,
    /// Per tenant: when it left for lack of patience.
    pub left_at: &'a LeftAt,
    /// Per tenant: why it ended and whether it hit its GPU-time budget
    /// (read in tenant order: [`EndStates::iter`]).
    pub end_states: &'a EndStates,
    /// The per-tenant limits.
    pub limits: TenantLimits,
    /// The tenants' arrival times, µs (processed or not: a tenant due
    /// after the horizon never arrived), listed or drawn as the run went.
    pub arrivals: &'a Arrivals,
}

/// An observer of a model-selection run's jobs, called in the engine's
/// processing order: events in `(time, kind, sequence)` order (DESIGN
/// §2.4), job starts at the decisions between instants. Nothing it does
/// may change the run.
pub trait JobSink: Debug + Send {
    /// Tenant `i` arrives at `now`; its best accuracy in the trace (A*_i,
    /// DESIGN §2.1) is `best_possible`, given here so that an observer
    /// need not hold it for every tenant of the run (issue 34).
    fn arrived(&mut self, now: Micros, i: usize, best_possible: f64);
    /// Tenant `i` starts a job at `start`, planned to end at `end`.
    fn started(&mut self, i: usize, start: Micros, end: Micros);
    /// A job of tenant `i` started at `start` completes at `at` with
    /// accuracy `acc`.
    fn completed(&mut self, i: usize, start: Micros, at: Micros, acc: f64);
    /// A job of tenant `i` started at `start` is cancelled at `at` (its
    /// tenant left).
    fn cancelled(&mut self, i: usize, start: Micros, at: Micros);
    /// Tenant `i` is done ([`Tenants::is_done`](super::Tenants::is_done)):
    /// no job of it will start, complete or be cancelled from now on, so
    /// what the sink holds for it is final until the run's end (DESIGN
    /// §2.6 "Done tenants"). Called once per tenant at most, after the
    /// event that made it done; a tenant that becomes done at a decision
    /// (its budget or its selector's schedule over, with nothing running)
    /// is not told. The default does nothing.
    fn done(&mut self, _i: usize) {}
    /// An independent copy (a fork of the run, DESIGN §15.2).
    fn fork(&self) -> Box<dyn JobSink>;
    /// The run ended as `state` says; `models(i)` is tenant i's number of
    /// models, `best_possible(i)` its A*_i (for the tenants that never
    /// arrived) and `cut` the jobs still running at the end (tenant,
    /// start, planned end). What it returns is the outcome's
    /// [`RunOutcome::folded`](super::RunOutcome::folded).
    fn finish(
        self: Box<Self>,
        state: &RunEndState<'_>,
        models: &dyn Fn(usize) -> usize,
        best_possible: &dyn Fn(usize) -> f64,
        cut: &mut dyn Iterator<Item = (usize, Micros, Micros)>,
    ) -> Arc<dyn Any + Send + Sync>;
}
