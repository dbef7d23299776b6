//! One repetition of one policy of a scenario as a steppable run (DESIGN
//! §15): the episode of a learning environment, or the run a what-if
//! forks. Its set-up (split, arrivals, the policy's scheduler and
//! selector) and its metrics are those of the batch runner, so an episode
//! whose every decision is the scheduler's pick gives the batch run's
//! [`RepResult`], file for file.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::runner::{RepRun, rep_context, rep_result, rep_setup, stall_end};
use crate::core::error::{Error, Result};
use crate::core::run::execution::Execution;
use crate::core::sim::held::{Held, Shared};
use crate::models::metrics::RepResult;
use crate::models::metrics::stall::{self, RunEnd};
use crate::models::report::{ExperimentResult, write_results};
use crate::models::scenario::{Scenario, Split};
use crate::models::sim::{Arrivals, Choice, Decided, DecisionPoint, ModelRun, RepContext, Tenants};
use crate::models::trace::Micros;

/// Repetition `rep` of policy `policy` of a model-mode scenario, stepped
/// one decision at a time.
///
/// ```
/// # fn main() -> tenantsim::core::error::Result<()> {
/// use std::sync::Arc;
/// use tenantsim::models::experiment::Episode;
/// use tenantsim::models::scenario::load_scenario;
///
/// let path = std::path::Path::new("scenarios/quickstart.toml");
/// let scenario = Arc::new(load_scenario(path, Default::default())?);
/// let mut episode = Episode::new(Arc::clone(&scenario), 0, 0)?;
/// while let Some(point) = episode.next_decision()? {
///     // Here a learner would choose; this one takes the scheduler's pick.
///     episode.decide(point.policy_choice)?;
/// }
/// let result = episode.finish(true)?;
/// let batch = tenantsim::models::experiment::simulate_one(&scenario, 0, 0)?;
/// assert_eq!(result.outcome.jobs, batch.outcome.jobs);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Episode {
    scenario: Arc<Scenario>,
    rep: u64,
    policy: usize,
    split: Split,
    arrivals: Arc<[Micros]>,
    run: ModelRun<'static>,
    started: Instant,
}

impl Episode {
    /// The cumulative regret the episode's result reports (DESIGN §2.6),
    /// from the regret tracked online ([`Self::track_regret`]; `None`
    /// without it): R(now) while the run goes on and for a run that ended
    /// normally; for a run that ended **stalled** (S > 0, and either at its
    /// last arrival with no completion ever lowering S — every decision
    /// idle — or before its horizon with a tenant left with a model to run:
    /// idle after some progress; the one rule, [`stall`]) R(H) = R(end) +
    /// S · (H − end), its unchanged loss counted up to the stall horizon H
    /// (`stall_end`), as [`Self::finish`]'s metrics count it. A learning
    /// environment's return is minus this (DESIGN §15.3).
    pub fn reported_regret(&self) -> Option<f64> {
        let area = self.run.regret_area()?;
        let (rate, fell) = self.run.regret_rate()?;
        // The cheap tests first: this runs at every step of an environment;
        // the O(tenants) scans only once the run has ended with S > 0.
        if !self.run.is_done() || rate <= 0.0 {
            return Some(area);
        }
        let end = self.run.now();
        let last_arrival = self.arrivals.iter().copied().max().unwrap_or(0);
        let run_end = RunEnd {
            sum: rate,
            fell,
            at_last_arrival: end == last_arrival,
            left_work: stall::left_work(
                (0..self.split.tenants.len()).map(|i| self.run.end_reason(i)),
                end,
                self.scenario.config.horizon,
            ),
        };
        if run_end.stall().is_none() {
            return Some(area);
        }
        let h = stall_end(&self.scenario, &self.split.tenants, last_arrival);
        Some(area + rate * crate::core::sim::time::to_seconds(h.saturating_sub(end)))
    }

    /// The episode of repetition `rep` of policy `policy` (index into the
    /// scenario's policies), at its start.
    pub fn new(scenario: Arc<Scenario>, rep: u64, policy: usize) -> Result<Self> {
        let started = Instant::now();
        let n = scenario.policies.len();
        let p = scenario.policies.get(policy).ok_or_else(|| {
            Error::usage(format!(
                "policy {policy}: the scenario has {n} policies (0 to {})",
                n.saturating_sub(1)
            ))
        })?;
        let (split, arrivals) = rep_setup(&scenario, rep)?;
        // Listed: an episode reads every tenant's time.
        let arrivals = arrivals.to_list();
        let ctx = RepContext {
            trace: &scenario.trace,
            gpu_types: &scenario.gpu_types,
            tenants: &split.tenants,
            prior: &split.prior,
            seed: scenario.seed(),
            repetition: rep,
        };
        let context = || rep_context(&scenario, rep, policy);
        let scheduler = (p.make_scheduler)(&ctx).map_err(|e| e.context(context()))?;
        let selector = (p.make_selector)(&ctx).map_err(|e| e.context(context()))?;
        let run = ModelRun::sharing(
            Shared::Arc(Arc::clone(&scenario.trace)),
            Shared::Arc(Arc::clone(&scenario.gpu_types)),
            split.tenants.clone(),
            Arrivals::Listed(Arc::clone(&arrivals)),
            scenario.config,
            Held::Owned(scheduler),
            Held::Owned(selector),
        )?;
        Ok(Self {
            scenario,
            rep,
            policy,
            split,
            arrivals,
            run,
            started,
        })
    }

    /// The scenario.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.scenario
    }

    /// The repetition.
    pub fn rep(&self) -> u64 {
        self.rep
    }

    /// The policy (index into the scenario's policies).
    pub fn policy(&self) -> usize {
        self.policy
    }

    /// The repetition's split (prior users and tenants).
    pub fn split(&self) -> &Split {
        &self.split
    }

    /// The tenants' state.
    pub fn tenants(&self) -> &Tenants {
        self.run.tenants()
    }

    /// The run itself (its job log, its clock, its pending decision).
    pub fn run(&self) -> &ModelRun<'static> {
        &self.run
    }

    /// Accrue the cumulative regret R(τ) from the start (the reward of a
    /// learning environment, DESIGN §15.3): [`ModelRun::track_regret`],
    /// read with `run().regret_area()`.
    pub fn track_regret(&mut self) -> Result<()> {
        self.run.track_regret()
    }

    /// Record which tenants' state changes ([`ModelRun::track_touched`];
    /// DESIGN §15.3).
    pub fn track_touched(&mut self) {
        self.run.track_touched();
    }

    /// The tenants whose state changed since the last
    /// [`Self::clear_touched`] ([`ModelRun::touched`]).
    pub fn touched(&self) -> &[u32] {
        self.run.touched()
    }

    /// Empty the list of touched tenants ([`ModelRun::clear_touched`]).
    pub fn clear_touched(&mut self) {
        self.run.clear_touched();
    }

    /// Advance to the next decision ([`ModelRun::next_decision`]); errors
    /// carry the policy and repetition.
    pub fn next_decision(&mut self) -> Result<Option<DecisionPoint>> {
        let r = self.run.next_decision();
        r.map_err(|e| e.context(rep_context(&self.scenario, self.rep, self.policy)))
    }

    /// Take `choice` at the pending decision ([`ModelRun::decide`]).
    pub fn decide(&mut self, choice: Choice) -> Result<Decided> {
        self.run.decide(choice)
    }

    /// Run on to the end, every decision the scheduler's.
    pub fn run_to_end(&mut self) -> Result<()> {
        while let Some(point) = self.next_decision()? {
            self.decide(point.policy_choice)?;
        }
        Ok(())
    }

    /// An independent copy of the episode at this point (DESIGN §15.2).
    pub fn fork(&self) -> Result<Self> {
        Ok(Self {
            scenario: Arc::clone(&self.scenario),
            rep: self.rep,
            policy: self.policy,
            split: self.split.clone(),
            arrivals: Arc::clone(&self.arrivals),
            run: self.run.fork()?,
            started: Instant::now(),
        })
    }

    /// Replace the policy from this point on by the scenario's policy
    /// `policy`, built for this repetition as at its start (a what-if,
    /// DESIGN §15.2): the new scheduler hears of every arrived tenant, the
    /// new selector observes the jobs that complete from now on.
    pub fn switch_policy(&mut self, policy: usize) -> Result<()> {
        let n = self.scenario.policies.len();
        let p = self.scenario.policies.get(policy).ok_or_else(|| {
            Error::usage(format!(
                "policy {policy}: the scenario has {n} policies (0 to {})",
                n.saturating_sub(1)
            ))
        })?;
        let ctx = RepContext {
            trace: &self.scenario.trace,
            gpu_types: &self.scenario.gpu_types,
            tenants: &self.split.tenants,
            prior: &self.split.prior,
            seed: self.scenario.seed(),
            repetition: self.rep,
        };
        let scheduler = (p.make_scheduler)(&ctx)?;
        let selector = (p.make_selector)(&ctx)?;
        self.run
            .replace_policies(Held::Owned(scheduler), Held::Owned(selector))?;
        self.policy = policy;
        Ok(())
    }

    /// Add `n` GPUs at the pending decision ([`ModelRun::add_gpus`], a
    /// what-if, DESIGN §15.4).
    pub fn add_gpus(&mut self, n: u32) -> Result<()> {
        self.run.add_gpus(n)
    }

    /// Remove `n` free GPUs at the pending decision
    /// ([`ModelRun::remove_gpus`], DESIGN §15.4).
    pub fn remove_gpus(&mut self, n: u32) -> Result<()> {
        self.run.remove_gpus(n)
    }

    /// The episode's result, as the batch runner computes it for this
    /// repetition and policy; the episode must have ended. The job log is
    /// kept with `keep_jobs`.
    pub fn finish(self, keep_jobs: bool) -> Result<RepResult> {
        let outcome = self.run.into_outcome()?;
        rep_result(
            &self.scenario,
            RepRun {
                rep: self.rep,
                policy: self.policy,
                split: self.split,
                arrivals: self.arrivals.into(),
                outcome,
                started: self.started,
            },
            keep_jobs,
        )
    }
}

/// Write `result` (one repetition of one policy of `scenario`) as a results
/// folder into `dir`, which must not exist yet: the files of the scenario
/// run with that policy alone (`policy` 0 in every file) and that one
/// repetition, `jobs.csv` with `keep_jobs` (the result must have kept its
/// job log), no figures. For repetition 0 they are the files
/// `tenantsim run` writes for that scenario, byte for byte (`run.json`
/// aside: it records timings).
pub fn write_episode(
    dir: &Path,
    scenario: &Scenario,
    result: &RepResult,
    keep_jobs: bool,
) -> Result<()> {
    write_episodes(dir, scenario, std::slice::from_ref(result), keep_jobs)
}

/// [`write_episode`] of several results of one repetition, one per policy
/// (distinct policies, in the scenario's order): the files of the scenario
/// run with those policies alone (renumbered from 0 in that order) and
/// that one repetition. With every policy of the scenario, in order, the
/// baseline is the scenario's and for repetition 0 the files are those of
/// `tenantsim run --reps 1` (`run.json` aside); with a subset there is no
/// `baseline` key (the first policy is the baseline).
pub fn write_episodes(
    dir: &Path,
    scenario: &Scenario,
    results: &[RepResult],
    keep_jobs: bool,
) -> Result<()> {
    let Some(first) = results.first() else {
        return Err(Error::usage("no episode to write"));
    };
    let mut alone = scenario.clone();
    alone.policies = Vec::with_capacity(results.len());
    alone.file.policies = Vec::with_capacity(results.len());
    for (i, r) in results.iter().enumerate() {
        let policy = scenario
            .policies
            .get(r.policy)
            .ok_or_else(|| Error::usage(format!("no policy {} in the scenario", r.policy)))?;
        if r.rep != first.rep || (i > 0 && r.policy <= results[i - 1].policy) {
            return Err(Error::usage(
                "episodes to write together must be of one repetition and of distinct \
                 policies in the scenario's order",
            ));
        }
        alone.policies.push(policy.clone());
        if let Some(section) = scenario.file.policies.get(r.policy) {
            alone.file.policies.push(section.clone());
        }
    }
    let every = results.len() == scenario.policies.len();
    alone.baseline = if every { scenario.baseline } else { 0 };
    if !every {
        alone.file.baseline = None;
    }
    alone.file.repetitions = 1;
    crate::core::io::create_new_dir(dir, "the episode's results folder")?;
    let mut fold = ExperimentResult::new(&alone, keep_jobs)?;
    for (i, r) in results.iter().enumerate() {
        let mut r = r.clone();
        r.policy = i;
        fold.add(&alone, &r)?;
    }
    fold.finish(1, Duration::ZERO)?;
    let aggregate = fold.aggregate(&alone)?;
    let n = results.len() as u64;
    let execution = Execution {
        tasks: n,
        ran: n,
        ..Execution::default()
    };
    write_results(dir, &alone, &fold, &aggregate, keep_jobs, None, &execution)?;
    Ok(())
}
