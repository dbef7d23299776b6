//! Fan-out of repetitions × policies.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::engine::{RunOutcome, SimInput, simulate};
use crate::error::{Error, Result};
use crate::metrics::{LossCurve, RunMetrics};
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
    let arrivals = vec![0; split.tenants.len()];
    let ctx = RepContext {
        trace: &scenario.trace,
        tenants: &split.tenants,
        prior: &split.prior,
        seed,
        repetition: rep,
    };
    let p = &scenario.policies[policy];
    let context = || format!("policy `{}`, repetition {rep}", p.name);
    let mut scheduler = (p.make_scheduler)(&ctx).map_err(|e| e.context(context()))?;
    let mut selector = (p.make_selector)(&ctx).map_err(|e| e.context(context()))?;
    let input = SimInput {
        trace: &scenario.trace,
        tenants: &split.tenants,
        arrivals: &arrivals,
        config: scenario.config,
    };
    let outcome = simulate(&input, scheduler.as_mut(), selector.as_mut())
        .map_err(|e| e.context(context()))?;
    let curve = LossCurve::from_outcome(&scenario.trace, &split.tenants, &arrivals, &outcome);
    let metrics = RunMetrics::compute(&curve, &outcome, &scenario.thresholds);
    Ok(RepResult {
        policy,
        rep,
        split,
        arrivals,
        outcome,
        curve,
        metrics,
    })
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
