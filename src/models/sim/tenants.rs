//! Per-tenant state of one simulation, readable by every policy.

use super::EndReason;
use crate::core::io::cluster::GpuType;
use crate::models::trace::{Micros, Trace};

/// State of the tenants of one run. Tenant `i` is trace user
/// [`Tenants::user`]`(i)`; tenants are ordered by trace index, so "lowest
/// index" tie-breaking is trace order (DESIGN §1.1).
///
/// What a decision reads of a tenant (eligibility, best_i, counts) sits in
/// one 40-byte record per tenant, so checking a random tenant among 100,000
/// touches one cache line, not one per field.
#[derive(Debug, Clone)]
pub struct Tenants {
    user: Vec<usize>,
    n_models: usize,
    arrival: Vec<Micros>,
    state: Vec<TenantState>,
    /// `n × K` flags over trace models: `CLOSED` (started at the
    /// model's top level, for a plain trace started at all, so never
    /// proposed again) and `RUNNING` (a job of the model is running).
    /// One byte for both, so `is_tried` reads one array, not two (at 10^6
    /// tenants each is a cache miss; docs/PERFORMANCE.md "Internet scale").
    flags: Vec<u8>,
    /// `n × K`: the highest level started / completed, [`NO_LEVEL`] for
    /// none (DESIGN §12.1; always level 0 on a plain trace).
    level_started: Vec<u16>,
    level_done: Vec<u16>,
    max_running: u32,
    limits: TenantLimits,
    /// The simulated time of the decision being made, µs.
    now: Micros,
    /// Free GPUs when the decision is made.
    free_gpus: u32,
    /// Type of the GPU the decision fills.
    gpu_type: GpuType,
}

/// The per-tenant fields of [`Tenants`] that change during a run.
#[derive(Debug, Clone, Copy, Default)]
struct TenantState {
    /// best_i: the highest accuracy among completed jobs, 0 before the first.
    best: f64,
    /// GPU-µs of completed plus running jobs.
    used: u64,
    running: u32,
    completed: u32,
    untried: u32,
    started: u32,
    arrived: bool,
    left: bool,
    exhausted: bool,
    /// The selector proposed nothing for the tenant; it waits for one of
    /// its running jobs to complete (DESIGN §12.2).
    waiting: bool,
    /// Every trace model is available to the tenant (fixed at the start;
    /// kept here, beside what a decision reads anyway, so checking a
    /// proposal's availability reads no trace row: one cache miss fewer
    /// per decision at 10^6 tenants).
    every_model: bool,
}

/// No level started or completed yet.
const NO_LEVEL: u16 = u16::MAX;

/// `Tenants::flags` bit: the model was started at its top level.
const CLOSED: u8 = 1;
/// `Tenants::flags` bit: a job of the model is running.
const RUNNING: u8 = 2;

/// Per-tenant limits (the scenario's `[limits]`, DESIGN §2.7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TenantLimits {
    /// GPU-µs a tenant may use (completed plus running jobs); the job that
    /// would cross it is not started and the tenant stops being eligible.
    pub budget: Option<Micros>,
    /// Jobs a tenant may start in total.
    pub max_jobs: Option<u32>,
    /// A tenant with no completed job this long after arriving leaves.
    pub patience: Option<Micros>,
}

impl Tenants {
    /// Fresh state for trace users `users` (ascending), arriving at
    /// `arrival` (µs), each allowed `max_running` concurrent jobs.
    pub fn new(
        trace: &Trace,
        users: &[usize],
        arrival: &[Micros],
        max_running: u32,
        limits: TenantLimits,
    ) -> Self {
        let n = users.len();
        let k = trace.n_models();
        Self {
            user: users.to_vec(),
            n_models: k,
            arrival: arrival.to_vec(),
            state: users
                .iter()
                .map(|&u| {
                    // The available models, ascending and distinct: all K
                    // exactly when there are K of them.
                    let available = trace.models_of(u).len();
                    TenantState {
                        untried: u32::try_from(available).unwrap_or(u32::MAX),
                        every_model: available == k,
                        ..TenantState::default()
                    }
                })
                .collect(),
            flags: vec![0; n * k],
            level_started: vec![NO_LEVEL; if trace.is_curve() { n * k } else { 0 }],
            level_done: vec![NO_LEVEL; if trace.is_curve() { n * k } else { 0 }],
            max_running,
            limits,
            now: 0,
            free_gpus: 0,
            gpu_type: 0,
        }
    }

    /// The simulated time of the current decision, µs.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// Free GPUs at the current decision (counting the one being
    /// assigned).
    pub fn free_gpus(&self) -> u32 {
        self.free_gpus
    }

    /// The GPU type (index into [`GpuTypes::names`](super::GpuTypes::names))
    /// of the GPU the current decision fills: the lowest free GPU
    /// (DESIGN §11.4). Always 0 on an untyped cluster. A selector proposes,
    /// and a scheduler scores, for a job on this type.
    pub fn gpu_type(&self) -> GpuType {
        self.gpu_type
    }

    pub(super) fn set_gpu_type(&mut self, t: GpuType) {
        self.gpu_type = t;
    }

    #[doc(hidden)]
    pub fn set_now(&mut self, now: Micros) {
        self.now = now;
    }

    pub(super) fn set_free_gpus(&mut self, free: u32) {
        self.free_gpus = free;
    }

    /// Jobs tenant `i` has started (running, completed or cancelled).
    pub fn started(&self, i: usize) -> u32 {
        self.state[i].started
    }
    /// GPU-µs of tenant `i`'s completed and running jobs.
    pub fn used(&self, i: usize) -> u64 {
        self.state[i].used
    }
    /// Whether tenant `i` left for lack of patience.
    pub fn has_left(&self, i: usize) -> bool {
        self.state[i].left
    }
    /// Whether tenant `i` hit its GPU-time budget.
    pub fn is_exhausted(&self, i: usize) -> bool {
        self.state[i].exhausted
    }
    /// The per-tenant limits.
    pub fn limits(&self) -> TenantLimits {
        self.limits
    }
    /// Whether starting a job of `runtime` µs would put tenant `i` over its
    /// budget.
    pub fn would_exceed_budget(&self, i: usize, runtime: Micros) -> bool {
        self.limits
            .budget
            .is_some_and(|b| self.state[i].used.saturating_add(runtime) > b)
    }

    /// Number of tenants.
    pub fn len(&self) -> usize {
        self.user.len()
    }
    /// Whether there are no tenants.
    pub fn is_empty(&self) -> bool {
        self.user.is_empty()
    }
    /// Trace user index of tenant `i`.
    pub fn user(&self, i: usize) -> usize {
        self.user[i]
    }
    /// Trace user indices of all tenants.
    pub fn users(&self) -> &[usize] {
        &self.user
    }

    /// The trace user indices of all tenants, the rest of the state freed
    /// (what a finished run's fold still reads).
    pub(super) fn into_users(self) -> Vec<usize> {
        self.user
    }

    /// Arrival time of tenant `i` in µs.
    pub fn arrival(&self, i: usize) -> Micros {
        self.arrival[i]
    }
    /// Whether tenant `i` has arrived.
    pub fn has_arrived(&self, i: usize) -> bool {
        self.state[i].arrived
    }
    /// Jobs of tenant `i` running now.
    pub fn running(&self, i: usize) -> u32 {
        self.state[i].running
    }
    /// Whether tenant `i` is done (DESIGN §2.6 "Done tenants"): it arrived,
    /// none of its jobs runs, and none will start again: it left, or every
    /// available model was started at its top level, or it hit its budget or
    /// its `max_jobs`. Once true it stays true, and no job of the tenant
    /// starts, completes or is cancelled after it.
    pub fn is_done(&self, i: usize) -> bool {
        let t = &self.state[i];
        t.arrived
            && t.running == 0
            && (t.left
                || t.untried == 0
                || t.exhausted
                || self.limits.max_jobs.is_some_and(|m| t.started >= m))
    }
    /// Jobs of tenant `i` completed so far.
    pub fn completed(&self, i: usize) -> u32 {
        self.state[i].completed
    }
    /// Whether trace model `k` is available to tenant `i`
    /// ([`Trace::is_available`] of its user, answered without reading the
    /// trace when the tenant has every model).
    pub fn is_available(&self, trace: &Trace, i: usize, k: usize) -> bool {
        self.state[i].every_model || trace.is_available(self.user[i], k)
    }
    /// Available models of tenant `i` not closed: not started at their top
    /// level (on a plain trace: neither completed nor running; DESIGN §12.2).
    pub fn untried(&self, i: usize) -> u32 {
        self.state[i].untried
    }
    /// best_i: the highest accuracy among completed jobs, 0 before the first.
    pub fn best(&self, i: usize) -> f64 {
        self.state[i].best
    }
    /// Whether trace model `k` of tenant `i` is running or may not be
    /// proposed again: it was started at its top level (on a plain trace,
    /// at all). Selectors that run every model at its largest fidelity
    /// propose only untried models.
    pub fn is_tried(&self, i: usize, k: usize) -> bool {
        let at = i * self.n_models + k;
        self.flags[at] != 0
    }

    /// The highest level of model `k` tenant `i` has started (running,
    /// completed or cancelled), if any (DESIGN §12.1). On a plain trace
    /// the one level 0 once the model was started.
    pub fn level_started(&self, i: usize, k: usize) -> Option<usize> {
        let at = i * self.n_models + k;
        match self.level_started.get(at) {
            Some(&l) => (l != NO_LEVEL).then_some(usize::from(l)),
            None => (self.flags[at] & CLOSED != 0).then_some(0),
        }
    }

    /// The highest level of model `k` tenant `i` has completed, if any: the
    /// checkpoint a continued job starts from under `incremental` cost.
    pub fn level_done(&self, i: usize, k: usize) -> Option<usize> {
        let at = i * self.n_models + k;
        match self.level_done.get(at) {
            Some(&l) => (l != NO_LEVEL).then_some(usize::from(l)),
            None => (self.flags[at] == CLOSED).then_some(0),
        }
    }

    /// Whether tenant `i` waits: its selector proposed nothing while it
    /// was eligible, and none of its jobs has completed since.
    pub fn is_waiting(&self, i: usize) -> bool {
        self.state[i].waiting
    }
    /// The limit on concurrent jobs per tenant.
    pub fn max_running(&self) -> u32 {
        self.max_running
    }

    /// Whether tenant `i`'s job on trace model `k` is running: started, and
    /// neither completed nor cancelled.
    pub fn is_running_model(&self, i: usize, k: usize) -> bool {
        self.flags[i * self.n_models + k] & RUNNING != 0
    }

    /// Eligible (DESIGN §2.3): arrived, has untried models, and fewer running
    /// jobs than the limit; and, with `[limits]`, has not left, is within
    /// its budget and has started fewer than `max_jobs` jobs; and is not
    /// waiting (DESIGN §12.2).
    pub fn is_eligible(&self, i: usize) -> bool {
        let t = &self.state[i];
        t.arrived
            && t.untried > 0
            && !t.waiting
            && t.running < self.max_running
            && !t.left
            && !t.exhausted
            && self.limits.max_jobs.is_none_or(|m| t.started < m)
    }

    /// Why tenant `i` stopped asking for GPUs, read at the end of a run
    /// ([`EndReason`]; its order of precedence). `schedule_over`: its
    /// selector says its schedule is over ([`Selector::schedule_over`]);
    /// a tenant that waits with no job running is never eligible again
    /// (DESIGN §12.2), which counts the same.
    ///
    /// [`Selector::schedule_over`]: super::Selector::schedule_over
    pub fn end_reason(&self, i: usize, schedule_over: bool) -> EndReason {
        let t = &self.state[i];
        if t.left {
            EndReason::Patience
        } else if t.running > 0 {
            EndReason::Horizon
        } else if t.untried == 0 {
            EndReason::AllModelsRun
        } else if schedule_over || t.waiting {
            EndReason::ScheduleOver
        } else if t.exhausted {
            EndReason::Budget
        } else if self.limits.max_jobs.is_some_and(|m| t.started >= m) {
            EndReason::MaxJobs
        } else {
            EndReason::Horizon
        }
    }

    pub(super) fn arrive(&mut self, i: usize) {
        self.state[i].arrived = true;
    }

    /// Tenant `i` starts model `k` at `level`, which is the model's top
    /// level when `top`, for `runtime` µs.
    pub(super) fn start(&mut self, i: usize, k: usize, level: usize, top: bool, runtime: Micros) {
        let at = i * self.n_models + k;
        debug_assert!(self.flags[at] == 0, "model started twice");
        self.flags[at] |= RUNNING;
        if let Some(l) = self.level_started.get_mut(at) {
            *l = u16::try_from(level).unwrap_or(NO_LEVEL - 1);
        }
        if top {
            self.flags[at] |= CLOSED;
            self.state[i].untried -= 1;
        }
        self.state[i].running += 1;
        self.state[i].started += 1;
        self.state[i].used = self.state[i].used.saturating_add(runtime);
    }

    pub(super) fn exhaust(&mut self, i: usize) {
        self.state[i].exhausted = true;
    }

    /// Tenant `i` leaves; its running job on model `k` was cancelled after
    /// `ran` µs of its `planned` µs.
    #[doc(hidden)]
    pub fn cancel_job(&mut self, i: usize, k: usize, planned: Micros, ran: Micros) {
        self.flags[i * self.n_models + k] &= !RUNNING;
        self.state[i].running -= 1;
        self.state[i].used = self.state[i].used.saturating_sub(planned - ran);
    }

    #[doc(hidden)]
    pub fn leave(&mut self, i: usize) {
        self.state[i].left = true;
    }

    /// The selector proposed nothing for eligible tenant `i`: it waits.
    pub(super) fn wait(&mut self, i: usize) {
        self.state[i].waiting = true;
    }

    /// Record the completion of tenant `i`'s job on model `k` at `level`;
    /// returns the previous best. A waiting tenant stops waiting.
    pub(super) fn complete(&mut self, i: usize, k: usize, level: usize, accuracy: f64) -> f64 {
        let at = i * self.n_models + k;
        self.flags[at] &= !RUNNING;
        if let Some(l) = self.level_done.get_mut(at) {
            *l = u16::try_from(level).unwrap_or(NO_LEVEL - 1);
        }
        self.state[i].waiting = false;
        self.state[i].running -= 1;
        self.state[i].completed += 1;
        let old = self.state[i].best;
        if accuracy > old {
            self.state[i].best = accuracy;
        }
        old
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_runs_from_its_start_until_it_completes_or_is_cancelled() {
        let csv = "user,model,accuracy,runtime_s\na,m1,0.5,1\na,m2,0.9,2\n";
        let trace = crate::models::trace::parse_trace("t.csv", csv.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut t = Tenants::new(&trace, &[0], &[0], 2, TenantLimits::default());
        t.arrive(0);
        assert!(!t.is_running_model(0, 0) && !t.is_running_model(0, 1));
        t.start(0, 0, 0, true, 1_000_000);
        t.start(0, 1, 0, true, 2_000_000);
        assert!(t.is_running_model(0, 0) && t.is_running_model(0, 1));
        t.complete(0, 0, 0, 0.5);
        assert!(!t.is_running_model(0, 0) && t.is_tried(0, 0));
        t.cancel_job(0, 1, 2_000_000, 500_000);
        assert!(!t.is_running_model(0, 1) && t.is_tried(0, 1));
        assert_eq!(t.running(0), 0);
    }

    /// A tenant is done once nothing of it runs and nothing will start:
    /// every model started (and finished), or it left, or a limit holds;
    /// not while a job runs, nor before it arrived.
    #[test]
    fn a_tenant_is_done_when_no_job_runs_and_none_will_start() {
        let csv = "user,model,accuracy,runtime_s\na,m1,0.5,1\na,m2,0.9,2\n";
        let trace = crate::models::trace::parse_trace("t.csv", csv.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let limits = TenantLimits::default();
        let mut t = Tenants::new(&trace, &[0, 0, 0], &[0, 0, 0], 2, limits);
        assert!(!t.is_done(0), "not arrived");
        for i in 0..3 {
            t.arrive(i);
        }
        assert!(!t.is_done(0), "models left to run");
        // Tenant 0 runs both models: done only once the second completes.
        t.start(0, 0, 0, true, 1_000_000);
        t.start(0, 1, 0, true, 2_000_000);
        assert!(!t.is_done(0), "jobs running, no model left");
        t.complete(0, 0, 0, 0.5);
        assert!(!t.is_done(0), "a job still running");
        t.complete(0, 1, 0, 0.9);
        assert!(t.is_done(0));
        // Tenant 1 leaves with a job running: done once it is cancelled.
        t.start(1, 0, 0, true, 1_000_000);
        t.leave(1);
        assert!(!t.is_done(1), "its job still runs");
        t.cancel_job(1, 0, 1_000_000, 10);
        assert!(t.is_done(1));
        // Tenant 2 hits its budget with nothing running.
        t.exhaust(2);
        assert!(t.is_done(2));
        // max_jobs = 1: done after its one job, with a model left.
        let one = TenantLimits {
            max_jobs: Some(1),
            ..TenantLimits::default()
        };
        let mut t = Tenants::new(&trace, &[0], &[0], 2, one);
        t.arrive(0);
        t.start(0, 1, 0, true, 1_000_000);
        assert!(!t.is_done(0));
        t.complete(0, 1, 0, 0.9);
        assert!(t.is_done(0) && t.untried(0) == 1);
    }
}
