//! Fan-out of repetitions × policies.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::core::error::Result;
use crate::core::io::cluster::GpuType;
use crate::core::run::runner::{fold_in_order, thread_pool};
use crate::core::sim::policy_clock::PolicyClock;
use crate::models::metrics::stall;
use crate::models::metrics::{FoldedRun, LossCurve, RepResult, RunFold, RunMetrics};
use crate::models::metrics::{TenantRows, aggregate_tenants, tenant_metrics};
use crate::models::scenario::{Scenario, Split};
use crate::models::sim::{Arrivals, RepContext, Scheduler, Selector, TenantUsers};
use crate::models::sim::{
    JobSink, RunOutcome, SharedInput, ThreadedSink, simulate_continuing, simulate_observed_shared,
};
use crate::models::trace::Micros;

/// How to run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
    /// Keep every run's job log (`outcome.jobs`, `outcome.completion_order`)
    /// for `jobs.csv`; without it they are dropped as soon as a run's curve
    /// and metrics are computed, which keeps memory (and page faults) down
    /// when many repetitions are held.
    pub keep_jobs: bool,
}

/// Every run of a scenario, held, in (repetition, policy) order (library
/// use and tests; `tenantsim run` folds the runs instead, see
/// [`ExperimentResult`](crate::models::report::ExperimentResult)).
#[derive(Debug, Clone)]
pub struct ExperimentRuns {
    /// Runs, repetition-major, policy-minor.
    pub runs: Vec<RepResult>,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time of the simulations.
    pub wall: Duration,
}

/// Runs simulated per worker thread between two folds: the runs in memory
/// at once are at most twice this × threads (one chunk being simulated
/// while the previous one is folded).
pub const CHUNK_PER_THREAD: usize = 64;

/// Simulate policy `policy` in repetition `rep` of `scenario`, keeping the
/// job log.
///
/// Everything random derives from `(seed, rep, purpose)`, so the result is
/// the same whichever thread runs it and in whatever order.
pub fn simulate_one(scenario: &Scenario, rep: u64, policy: usize) -> Result<RepResult> {
    simulate_rep(scenario, rep, policy, true)
}

/// How a repetition's main run is simulated: given model mode's input and
/// the repetition's scheduler and selector (given, so that a run may drop
/// them as soon as it has ended, before its metrics are finished: DESIGN
/// §8.5), its outcome. Model mode's is [`simulate_observed_shared`]; a
/// shared scenario runs the service on a shared cluster instead (DESIGN
/// §13).
pub type MainRun<'a> =
    dyn FnMut(&SharedInput<'_>, Box<dyn Scheduler>, Box<dyn Selector>) -> Result<RunOutcome> + 'a;

/// [`simulate_one`], keeping no job log unless `keep_jobs`; the metrics
/// are folded as the run goes ([`RunFold`], DESIGN §2.6, §8.5).
fn simulate_rep(
    scenario: &Scenario,
    rep: u64,
    policy: usize,
    keep_jobs: bool,
) -> Result<RepResult> {
    simulate_rep_with(scenario, rep, policy, keep_jobs, &mut |input, sch, sel| {
        let fold: Box<dyn JobSink> =
            Box::new(RunFold::new(input.tenants.len(), &scenario.thresholds));
        let sink = if fold_on_own_thread(scenario, input.tenants.len()) {
            ThreadedSink::wrap(fold)
        } else {
            fold
        };
        simulate_observed_shared(input, sch, sel, sink, keep_jobs)
    })
}

/// Tenants from which a run's metrics are folded on a thread of their own
/// when a core is free for it ([`fold_on_own_thread`]).
const FOLD_THREAD_TENANTS: usize = 20_000;

/// Whether a run of `tenants` tenants of `scenario` folds its metrics on
/// a thread of its own ([`ThreadedSink`]): when it is large and the
/// scenario's runs (repetitions × policies) are fewer than the worker
/// threads, so that a core would otherwise idle beside it (scale-1m: one
/// run on two threads). A performance choice only: the results are the
/// same either way (`tests/it/folded_metrics.rs`).
fn fold_on_own_thread(scenario: &Scenario, tenants: usize) -> bool {
    let runs = u64::from(scenario.repetitions()) * scenario.policies.len() as u64;
    tenants >= FOLD_THREAD_TENANTS && runs < rayon::current_num_threads() as u64
}

/// Repetition `rep` of policy `policy`, its main run simulated by `main`
/// and everything else (split, arrivals, metrics, the tenants alone for
/// the fairness index, which model mode's [`simulate_continuing`] runs) as model mode
/// does; the job log is dropped unless `keep_jobs`.
pub fn simulate_rep_with(
    scenario: &Scenario,
    rep: u64,
    policy: usize,
    keep_jobs: bool,
    main: &mut MainRun<'_>,
) -> Result<RepResult> {
    let started = Instant::now();
    let (split, arrivals) = rep_setup(scenario, rep)?;
    let outcome = run_policy(
        scenario,
        policy,
        rep,
        &split,
        split.tenants.clone(),
        arrivals.clone(),
        main,
    )
    .map_err(|e| e.context(rep_context(scenario, rep, policy)))?;
    finish_rep(
        scenario, rep, policy, split, arrivals, started, outcome, keep_jobs,
    )
}

/// A repetition's split and arrival times (DESIGN §5: from the seed and the
/// repetition only).
pub(super) fn rep_setup(scenario: &Scenario, rep: u64) -> Result<(Split, Arrivals)> {
    let split = scenario.split.resolve(scenario.seed(), rep);
    let arrivals =
        scenario
            .arrivals
            .sample(&split.tenants, &scenario.trace, scenario.seed(), rep)?;
    // Shared with the run's engine (its queue and tenants), not copied
    // into it (DESIGN §8.5).
    Ok((split, arrivals))
}

/// The [`RepResult`] of a repetition set up by [`super::start_rep`] (its
/// `split`, `arrivals` and `started`) whose main run gave `outcome`:
/// the batch run's metrics (and, with `fairness`, its tenants alone);
/// the job log is dropped unless `keep_jobs`.
#[allow(clippy::too_many_arguments)]
pub fn finish_rep(
    scenario: &Scenario,
    rep: u64,
    policy: usize,
    split: Split,
    arrivals: Arrivals,
    started: Instant,
    outcome: RunOutcome,
    keep_jobs: bool,
) -> Result<RepResult> {
    rep_result(
        scenario,
        RepRun {
            rep,
            policy,
            split,
            arrivals,
            outcome,
            started,
        },
        keep_jobs,
    )
}

/// What an error of policy `policy` in repetition `rep` is prefixed with.
pub(super) fn rep_context(scenario: &Scenario, rep: u64, policy: usize) -> String {
    let name = scenario
        .policies
        .get(policy)
        .map_or("?", |p| p.name.as_str());
    format!("policy `{name}`, repetition {rep}")
}

/// A repetition's main run, simulated: what [`rep_result`] folds into a
/// [`RepResult`].
pub(super) struct RepRun {
    pub rep: u64,
    pub policy: usize,
    pub split: Split,
    pub arrivals: Arrivals,
    pub outcome: RunOutcome,
    /// When the repetition's set-up began (for `elapsed`).
    pub started: Instant,
}

/// The metrics of a simulated repetition (and, with `fairness`, its
/// tenants' runs alone under the scenario's policy); the job log is
/// dropped unless `keep_jobs`.
pub(super) fn rep_result(scenario: &Scenario, run: RepRun, keep_jobs: bool) -> Result<RepResult> {
    let RepRun {
        rep,
        policy,
        split,
        arrivals,
        mut outcome,
        started,
    } = run;
    // The metrics folded as the run went (model mode's engine), or
    // computed from the log (the shared engine, a stepped episode): the
    // same definitions and the same bits (DESIGN §2.6).
    let limits = scenario.config.limits;
    let (mut curve, job_curve, tenants, first_completion, completions) =
        match FoldedRun::take(&mut outcome) {
            Some(f) => (
                f.curve?,
                f.job_curve?,
                f.tenants?,
                f.first_completion,
                f.completions,
            ),
            None => {
                // Every tenant's time is read: drawn whole if it was
                // drawn as the run went.
                let arrivals = arrivals.to_list();
                (
                    LossCurve::from_outcome(&scenario.trace, &split.tenants, &arrivals, &outcome)?,
                    LossCurve::by_jobs(&scenario.trace, &split.tenants, &arrivals, &outcome)?,
                    TenantRows::from_vec(tenant_metrics(
                        &scenario.trace,
                        &split.tenants,
                        &arrivals,
                        &outcome,
                        limits,
                        &scenario.thresholds,
                    )?)?,
                    match outcome.completion_order.iter().next().transpose()? {
                        Some(j) => Some(outcome.jobs.get(j as usize)?.end),
                        None => None,
                    },
                    outcome.completion_order.len(),
                )
            }
        };
    // The end reasons read in tenant order until the first at the
    // horizon (from disk in a large run); a read error stops and is the
    // error.
    let mut unread = None;
    curve.left_work = stall::left_work(
        outcome
            .end_states
            .iter()
            .map_while(|s| s.map(|s| s.ended).map_err(|e| unread = Some(e)).ok()),
        outcome.end,
        scenario.config.horizon,
    );
    if let Some(e) = unread {
        return Err(e);
    }
    if curve.stalled() {
        curve.stall_end = Some(stall_end(scenario, &split.tenants, curve.last_arrival));
    }
    let metrics = RunMetrics::compute(&curve, &outcome, completions, &scenario.thresholds)?;
    let mut policy_time = outcome.policy_clock.estimate();
    let isolated_area = if scenario.file.fairness {
        let (areas, clock) = isolated_areas(scenario, policy, rep, &split)?;
        policy_time += clock.estimate();
        Some(areas)
    } else {
        None
    };
    let tenant_aggregate = aggregate_tenants(&tenants, isolated_area.as_deref())?;
    if !keep_jobs {
        outcome.jobs = Default::default();
        outcome.completion_order = Default::default();
    }
    Ok(RepResult {
        policy,
        rep,
        split,
        arrivals,
        outcome,
        first_completion,
        curve,
        job_curve,
        metrics,
        tenants,
        isolated_area,
        tenant_aggregate,
        elapsed: started.elapsed(),
        policy_time,
    })
}

/// Each tenant of `split` alone on the cluster under policy `policy` in
/// repetition `rep` (`fairness`, DESIGN §2.6): its regret area alone, in
/// the split's order, and the clock of the policies' calls of all those
/// runs. The runs are timed as one (`simulate_continuing`): timed each on
/// its own, every call of every such short run read the clock twice,
/// a third of the time of `scenarios/bench-repetitions.toml`
/// (docs/PERFORMANCE.md, "Policies written in Python, and where a run's
/// time goes").
fn isolated_areas(
    scenario: &Scenario,
    policy: usize,
    rep: u64,
    split: &Split,
) -> Result<(Vec<f64>, PolicyClock)> {
    let limits = scenario.config.limits;
    let mut areas = Vec::with_capacity(split.tenants.len());
    let mut clock = PolicyClock::default();
    for u in split.tenants.iter() {
        let alone = run_policy(
            scenario,
            policy,
            rep,
            split,
            TenantUsers::from(vec![u]),
            Arrivals::Listed(Arc::new([0])),
            &mut |i, mut a, mut b| simulate_continuing(i, a.as_mut(), b.as_mut(), clock),
        )
        .map_err(|e| {
            e.context(format!(
                "{}, tenant alone",
                rep_context(scenario, rep, policy)
            ))
        })?;
        clock = alone.policy_clock;
        let m = tenant_metrics(&scenario.trace, &[u], &[0], &alone, limits, &[])?;
        areas.push(m[0].regret_area);
    }
    Ok((areas, clock))
}

/// Simulate policy `policy` for `tenants` (a subset of the split's tenants)
/// arriving at `arrivals`, with fresh policies built for repetition `rep`.
fn run_policy(
    scenario: &Scenario,
    policy: usize,
    rep: u64,
    split: &Split,
    tenants: TenantUsers,
    arrivals: Arrivals,
    main: &mut MainRun<'_>,
) -> Result<RunOutcome> {
    let ctx = RepContext {
        trace: &scenario.trace,
        gpu_types: &scenario.gpu_types,
        tenants: &tenants,
        prior: &split.prior,
        seed: scenario.seed(),
        repetition: rep,
    };
    let p = &scenario.policies[policy];
    let scheduler = (p.make_scheduler)(&ctx)?;
    let selector = (p.make_selector)(&ctx)?;
    let input = SharedInput {
        trace: &scenario.trace,
        tenants,
        arrivals,
        config: scenario.config,
        gpu_types: &scenario.gpu_types,
    };
    main(&input, scheduler, selector)
}

/// Simulate task `task` of `scenario`: repetition `task / policies`,
/// policy `task % policies` (the numbering of the shared runner,
/// [`crate::core::run::runner::run_scenarios`]); the job log is dropped unless
/// `keep_jobs`.
pub fn simulate_task(scenario: &Scenario, task: u64, keep_jobs: bool) -> Result<RepResult> {
    let n_pol = scenario.policies.len().max(1) as u64;
    simulate_rep(scenario, task / n_pol, (task % n_pol) as usize, keep_jobs)
}

/// Run every repetition × policy of `scenario`, in parallel, and return the
/// results in (repetition, policy) order, every run held.
pub fn run_experiment(scenario: &Scenario, options: RunOptions) -> Result<ExperimentRuns> {
    let pool = thread_pool(options.threads)?;
    let start = Instant::now();
    let tasks = u64::from(scenario.repetitions()) * scenario.policies.len() as u64;
    let chunk = pool.current_num_threads().max(1) * CHUNK_PER_THREAD;
    let mut runs = Vec::new();
    fold_in_order(
        &pool,
        tasks,
        chunk,
        &|k| simulate_task(scenario, k, options.keep_jobs),
        &mut |r| {
            runs.push(r);
            Ok(())
        },
    )?;
    Ok(ExperimentRuns {
        runs,
        threads: pool.current_num_threads(),
        wall: start.elapsed(),
    })
}

/// Where a stalled run's regret is integrated to (DESIGN §2.6): the last
/// arrival plus W, the time every model of every tenant takes one after
/// another (each at its runtime on the slowest GPU type), capped at
/// `horizon_s`. A run whose policy starts jobs ends by then, so the
/// stalled run's unchanged loss is counted at least as long as any
/// working run's.
pub(super) fn stall_end(
    scenario: &Scenario,
    tenants: &TenantUsers,
    last_arrival: Micros,
) -> Micros {
    let types = &scenario.gpu_types;
    let n_types = types.n_types().max(1);
    let work: Micros = tenants
        .iter()
        .flat_map(|u| scenario.trace.models_of(u).iter().map(move |&k| (u, k)))
        .map(|(u, k)| {
            (0..n_types)
                .map(|t| types.runtime_us(&scenario.trace, t as GpuType, u, k))
                .max()
                .unwrap_or(0)
        })
        .fold(0, Micros::saturating_add);
    let end = last_arrival.saturating_add(work);
    scenario.config.horizon.map_or(end, |h| end.min(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::io::scenario::Overrides;
    use crate::models::scenario::parse_scenario;
    use crate::models::sim::simulate;

    fn scenario() -> Scenario {
        let text = "name = \"alone\"\nseed = 5\nrepetitions = 1\nthresholds = [0.1]\n\
             [trace.syn]\nusers = 40\nmodels = 6\nmodel_sd = 0.1\nuser_sd = 0.05\n\
             cost = \"uniform(0,2)\"\nseed = 2\n[split]\nprior_count = 10\n\
             [cluster]\ngpus = 2\n[[policy]]\nname = \"p\"\nscheduler = \"greedy\"\n\
             selector = \"gp-ucb-cost\"\n";
        match parse_scenario(
            std::path::Path::new("alone.toml"),
            text,
            Overrides::default(),
        ) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }

    /// Regression: each tenant's run alone (`fairness`) started a clock
    /// of its own, so every call of those short runs (fewer than the 256
    /// timed exactly) read the clock twice: a third of the time of
    /// `scenarios/bench-repetitions.toml`. The runs alone are now timed as
    /// one: the clock returned counts every call of every run alone (past
    /// the exact ones, so about one in 16 is timed), and the areas are those of
    /// runs simulated each with a fresh clock.
    #[test]
    fn runs_alone_each_timed_exactly_from_a_clock_of_their_own() {
        let s = scenario();
        let Ok((split, _)) = rep_setup(&s, 0) else {
            panic!("set-up")
        };
        let (areas, clock) = match isolated_areas(&s, 0, 0, &split) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let mut calls = 0;
        let mut fresh = Vec::new();
        for u in split.tenants.iter() {
            let (one, zero) = (TenantUsers::from(vec![u]), Arrivals::Listed(Arc::new([0])));
            let alone = match run_policy(&s, 0, 0, &split, one, zero, &mut |i, mut a, mut b| {
                simulate(&i.lent()?, a.as_mut(), b.as_mut())
            }) {
                Ok(o) => o,
                Err(e) => panic!("{e}"),
            };
            assert!(alone.policy_clock.calls() < PolicyClock::EXACT);
            calls += alone.policy_clock.calls();
            let m = tenant_metrics(&s.trace, &[u], &[0], &alone, s.config.limits, &[])
                .expect("metrics");
            fresh.push(m[0].regret_area);
        }
        assert_eq!(split.tenants.len(), 30);
        assert!(calls > PolicyClock::EXACT, "{calls} calls");
        assert_eq!(clock.calls(), calls);
        assert_eq!(
            areas.iter().map(|a| a.to_bits()).collect::<Vec<_>>(),
            fresh.iter().map(|a| a.to_bits()).collect::<Vec<_>>()
        );
        // And the repetition's own figures are those areas.
        let rep = match simulate_one(&s, 0, 0) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(rep.isolated_area.as_deref(), Some(&areas[..]));
    }
}
