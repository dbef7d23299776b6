//! Fan-out of repetitions × policies.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::engine::{RunOutcome, SimInput, simulate};
use crate::error::{Error, Result};
use crate::metrics::{
    LossCurve, RunMetrics, TenantAggregate, TenantMetrics, aggregate_tenants, tenant_metrics,
};
use crate::policy::RepContext;
use crate::scenario::{Scenario, Split};
use crate::trace::Micros;

/// How to run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
}

/// One (repetition, policy) run.
#[derive(Debug, Clone)]
pub struct RepResult {
    /// Policy index in the scenario.
    pub policy: usize,
    /// Repetition, from 0.
    pub rep: u64,
    /// The repetition's split.
    pub split: Split,
    /// Arrival time per tenant, µs.
    pub arrivals: Vec<Micros>,
    /// The job log.
    pub outcome: RunOutcome,
    /// L(τ) of the run.
    pub curve: LossCurve,
    /// Summary figures.
    pub metrics: RunMetrics,
    /// What each tenant experienced.
    pub tenants: Vec<TenantMetrics>,
    /// Each tenant's regret area alone on the cluster (with `fairness`).
    pub isolated_area: Option<Vec<f64>>,
    /// Aggregates of `tenants`.
    pub tenant_aggregate: TenantAggregate,
}

/// Every run of a scenario, in (repetition, policy) order.
#[derive(Debug, Clone)]
pub struct ExperimentResult {
    /// Runs, repetition-major, policy-minor.
    pub runs: Vec<RepResult>,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time of the simulations.
    pub wall: Duration,
}

/// Simulate policy `policy` in repetition `rep` of `scenario`.
///
/// Everything random derives from `(seed, rep, purpose)`, so the result is
/// the same whichever thread runs it and in whatever order.
pub fn simulate_one(scenario: &Scenario, rep: u64, policy: usize) -> Result<RepResult> {
    let seed = scenario.seed();
    let split = scenario.split.resolve(seed, rep);
    let arrivals = scenario
        .arrivals
        .sample(&split.tenants, &scenario.trace, seed, rep)?;
    let p = &scenario.policies[policy];
    let context = || format!("policy `{}`, repetition {rep}", p.name);
    let outcome = run_policy(scenario, policy, rep, &split, &split.tenants, &arrivals)
        .map_err(|e| e.context(context()))?;
    let curve = LossCurve::from_outcome(&scenario.trace, &split.tenants, &arrivals, &outcome);
    let metrics = RunMetrics::compute(&curve, &outcome, &scenario.thresholds);
    let limits = scenario.config.limits;
    let tenants = tenant_metrics(
        &scenario.trace,
        &split.tenants,
        &arrivals,
        &outcome,
        limits,
        &scenario.thresholds,
    );
    let isolated_area = if scenario.file.fairness {
        let mut areas = Vec::with_capacity(split.tenants.len());
        for &u in &split.tenants {
            let alone = run_policy(scenario, policy, rep, &split, &[u], &[0])
                .map_err(|e| e.context(format!("{}, tenant alone", context())))?;
            let m = tenant_metrics(&scenario.trace, &[u], &[0], &alone, limits, &[]);
            areas.push(m[0].regret_area);
        }
        Some(areas)
    } else {
        None
    };
    let tenant_aggregate = aggregate_tenants(&tenants, isolated_area.as_deref());
    Ok(RepResult {
        policy,
        rep,
        split,
        arrivals,
        outcome,
        curve,
        metrics,
        tenants,
        isolated_area,
        tenant_aggregate,
    })
}

/// Simulate policy `policy` for `tenants` (a subset of the split's tenants)
/// arriving at `arrivals`, with fresh policies built for repetition `rep`.
fn run_policy(
    scenario: &Scenario,
    policy: usize,
    rep: u64,
    split: &Split,
    tenants: &[usize],
    arrivals: &[Micros],
) -> Result<RunOutcome> {
    let ctx = RepContext {
        trace: &scenario.trace,
        tenants,
        prior: &split.prior,
        seed: scenario.seed(),
        repetition: rep,
    };
    let p = &scenario.policies[policy];
    let mut scheduler = (p.make_scheduler)(&ctx)?;
    let mut selector = (p.make_selector)(&ctx)?;
    let input = SimInput {
        trace: &scenario.trace,
        tenants,
        arrivals,
        config: scenario.config,
    };
    simulate(&input, scheduler.as_mut(), selector.as_mut())
}

/// Run every repetition × policy of `scenario`, in parallel, and return the
/// results in (repetition, policy) order.
pub fn run_experiment(scenario: &Scenario, options: RunOptions) -> Result<ExperimentResult> {
    let threads = options.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::input(format!("cannot start {threads} worker threads: {e}")))?;
    let n_pol = scenario.policies.len();
    let tasks = u64::from(scenario.repetitions()) * n_pol as u64;
    let start = Instant::now();
    let runs = pool.install(|| {
        (0..tasks)
            .into_par_iter()
            .map(|t| {
                if crate::interrupt::requested() {
                    return Err(Error::interrupted(
                        "interrupted: the run stopped before finishing; no results were written",
                    ));
                }
                simulate_one(scenario, t / n_pol as u64, (t % n_pol as u64) as usize)
            })
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(ExperimentResult {
        runs,
        threads,
        wall: start.elapsed(),
    })
}
