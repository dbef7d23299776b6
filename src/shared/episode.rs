//! One steppable run of a shared scenario that owns what it reads (DESIGN
//! §15.6, "The shared environment"): repetition `rep` of policy `policy`,
//! set up and finished exactly as the batch runner does
//! ([`super::run::simulate_shared_run_with`]), so that it lives on by
//! itself (a Python environment, a fork).
//!
//! A [`SharedStepper`] borrows its repetition's draw (the background's
//! jobs, the service's tenants and arrivals, the scenario's traces). The
//! episode keeps the draw and every stepper of it in one self-referential
//! cell (the `self_cell` crate: no `unsafe` of ours): the draw is the
//! cell's owner, and the steppers borrowing it are its dependent, a slab
//! of runs. A fork is one more stepper in the same slab (the draw is
//! shared, never copied); each [`SharedEpisode`] is one slot, emptied
//! when it is dropped.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use self_cell::self_cell;

use super::mode::SharedMode;
use super::run::{RepDraw, SharedRun, finish_shared_run, service_input};
use super::scenario::SharedScenario;
use super::sim::{PolicyPair, SharedOutcome, SharedStepper};
use crate::core::error::{Error, Result};
use crate::core::io::scenario::Overrides;
use crate::core::run::execution::Execution;
use crate::core::run::mode::Mode;
use crate::core::sim::held::Held;
use crate::core::sim::time::Micros;
use crate::models::experiment::start_rep;
use crate::models::scenario::Split;
use crate::models::sim::SimInput;

/// What the steppers of one episode borrow: the scenario and the draw of
/// its repetition, and the service's split and arrivals.
struct Draw {
    scenario: Arc<SharedScenario>,
    draw: RepDraw,
    service: Option<(Split, Arc<[Micros]>)>,
}

/// The runs of one draw: the episode and its forks, by slot (`None`: a
/// slot whose episode was dropped).
type Runs<'a> = Vec<Option<SharedStepper<'a>>>;

self_cell!(
    struct Cell {
        owner: Draw,
        #[not_covariant]
        dependent: Runs,
    }
);

/// Repetition `rep` of policy `policy` of a shared scenario, stepped one
/// cluster-scheduler decision at a time (DESIGN §15.6), owning its data.
///
/// ```
/// # fn main() -> tenantsim::core::error::Result<()> {
/// use std::sync::Arc;
/// use tenantsim::jobs::sim::JobChoice;
/// use tenantsim::shared::episode::SharedEpisode;
/// use tenantsim::core::run::mode::Mode;
/// use tenantsim::registry::Registry;
///
/// let path = std::path::Path::new("scenarios/shared-workflows-quickstart.toml");
/// let plan = Registry::builtin().shared_mode().load_plan(path, Default::default())?;
/// let scenario = Arc::new(plan.scenarios()[0].clone());
/// let episode = SharedEpisode::new(scenario, 0, 0)?;
/// while let Some(choice) = episode.with_run(|run| {
///     run.next_decision().map(|p| p.map(|p| p.policy_choice.unwrap_or(JobChoice::EndPass)))
/// })? {
///     episode.with_run(|run| run.decide(choice))?;
/// }
/// let run = episode.finish()?;
/// assert!(run.workflows.is_some());
/// # Ok(())
/// # }
/// ```
pub struct SharedEpisode {
    cell: Arc<Mutex<Cell>>,
    slot: usize,
    scenario: Arc<SharedScenario>,
    rep: u64,
    policy: usize,
    started: Instant,
}

impl std::fmt::Debug for SharedEpisode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedEpisode")
            .field("scenario", &self.scenario.name())
            .field("rep", &self.rep)
            .field("policy", &self.policy)
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl SharedEpisode {
    /// The episode of repetition `rep` of policy `policy` (its index in
    /// the scenario), nothing happened yet but the workloads' first
    /// events. Stepped with the cluster scheduler's choices to its end,
    /// its [`Self::finish`] is `simulate_shared_run(scenario, rep,
    /// policy, true)`'s run (wall-clock times aside).
    pub fn new(scenario: Arc<SharedScenario>, rep: u64, policy: usize) -> Result<Self> {
        let started = Instant::now();
        let draw = RepDraw::new(&scenario, rep, policy, true)?;
        let start = match &scenario.service {
            Some(svc) => Some(start_rep(&svc.scenario, rep, policy)?),
            None => None,
        };
        let (policies, service) = start
            .map(|st| ((st.scheduler, st.selector), (st.split, st.arrivals)))
            .unzip();
        let owner = Draw {
            scenario: Arc::clone(&scenario),
            draw,
            service,
        };
        let cell = Cell::try_new(owner, |d| -> Result<Runs<'_>> {
            let s = &*d.scenario;
            let jp = d.draw.cluster_policy(s)?;
            let service = match (&s.service, &d.service) {
                (Some(svc), Some((split, arrivals))) => Some(service_input(
                    svc,
                    SimInput {
                        trace: &svc.scenario.trace,
                        tenants: &split.tenants,
                        arrivals,
                        config: svc.scenario.config,
                        gpu_types: &svc.scenario.gpu_types,
                    },
                    s.keeps_service_segments(d.draw.keep_jobs),
                )),
                _ => None,
            };
            let input = d.draw.input(s, service)?;
            let pair = policies.map(|(scheduler, selector)| PolicyPair {
                scheduler: Held::Owned(scheduler),
                selector: Held::Owned(selector),
            });
            let run = SharedStepper::new(&input, &jp.make, s.seed(), rep, pair)
                .map_err(|e| e.context(format!("policy `{}`, repetition {rep}", jp.name)))?;
            Ok(vec![Some(run)])
        })?;
        Ok(Self {
            cell: Arc::new(Mutex::new(cell)),
            slot: 0,
            scenario,
            rep,
            policy,
            started,
        })
    }

    /// The scenario.
    pub fn scenario(&self) -> &Arc<SharedScenario> {
        &self.scenario
    }

    /// The repetition.
    pub fn rep(&self) -> u64 {
        self.rep
    }

    /// The policy's index.
    pub fn policy(&self) -> usize {
        self.policy
    }

    /// Call `f` with the episode's run (to step it, read its state and
    /// decision point).
    pub fn with_run<R>(
        &self,
        f: impl for<'a> FnOnce(&mut SharedStepper<'a>) -> Result<R>,
    ) -> Result<R> {
        let mut cell = self.cell.lock().unwrap_or_else(PoisonError::into_inner);
        cell.with_dependent_mut(|_, runs| match runs.get_mut(self.slot) {
            Some(Some(run)) => f(run),
            _ => Err(Error::input("internal: an episode without its run")),
        })
    }

    /// An independent copy of the episode at this point
    /// ([`SharedStepper::fork`], DESIGN §15.6): it shares the draw, and
    /// continued with the same choices it gives the same run.
    pub fn fork(&self) -> Result<Self> {
        let slot = {
            let mut cell = self.cell.lock().unwrap_or_else(PoisonError::into_inner);
            cell.with_dependent_mut(|_, runs| -> Result<usize> {
                let fork = match runs.get(self.slot) {
                    Some(Some(run)) => run.fork()?,
                    _ => return Err(Error::input("internal: an episode without its run")),
                };
                // The first free slot, else a new one.
                if let Some(free) = runs.iter().position(Option::is_none) {
                    runs[free] = Some(fork);
                    Ok(free)
                } else {
                    runs.push(Some(fork));
                    Ok(runs.len() - 1)
                }
            })?
        };
        Ok(Self {
            cell: Arc::clone(&self.cell),
            slot,
            scenario: Arc::clone(&self.scenario),
            rep: self.rep,
            policy: self.policy,
            started: Instant::now(),
        })
    }

    /// The outcome of the ended run (a fork of it is finished: the
    /// episode stays as it is).
    pub fn outcome(&self) -> Result<SharedOutcome> {
        self.with_run(|run| {
            if !run.is_done() {
                return Err(Error::usage(
                    "the episode has not ended: step it until there is no decision left",
                ));
            }
            run.fork()?.into_outcome()
        })
    }

    /// The episode's [`SharedRun`], as the batch runner computes it for
    /// this repetition and policy (job logs kept, as `--jobs`); the
    /// episode must have ended.
    pub fn finish(&self) -> Result<SharedRun> {
        let outcome = self.outcome()?;
        let cell = self.cell.lock().unwrap_or_else(PoisonError::into_inner);
        let d = cell.borrow_owner();
        let service = d
            .service
            .clone()
            .map(|(split, arrivals)| (split, arrivals, self.started));
        finish_shared_run(
            &self.scenario,
            d.draw.clone(),
            service,
            outcome,
            self.started,
        )
    }
}

impl Drop for SharedEpisode {
    /// Empty this episode's slot (its run and forks' runs are separate).
    fn drop(&mut self) {
        let mut cell = self.cell.lock().unwrap_or_else(PoisonError::into_inner);
        cell.with_dependent_mut(|_, runs| {
            if let Some(r) = runs.get_mut(self.slot) {
                *r = None;
            }
        });
    }
}

/// Write the results folder `dir` (which must not exist yet) of one
/// finished shared episode `run` of `scenario` (DESIGN §15.6): the files
/// `tenantsim run --jobs --no-plots` writes for `scenario` with the run's
/// policy alone ([`alone`]; `policy` 0 in every file, the baseline) and that one repetition, through
/// [`SharedMode`]'s own fold. For repetition 0 they are that run's files
/// byte for byte (`run.json` aside: it records timings).
pub fn write_shared_episode(dir: &Path, scenario: &SharedScenario, run: SharedRun) -> Result<()> {
    let one =
        if scenario.policies() == 1 && scenario.repetitions() == 1 && !scenario.file.output.plots {
            scenario.clone()
        } else {
            alone(scenario, run.policy)?
        };
    let mut run = run;
    run.policy = 0;
    if let Some(b) = &mut run.background {
        b.policy = 0;
    }
    if let Some(r) = &mut run.service {
        r.policy = 0;
    }
    crate::core::io::create_new_dir(dir, "the episode's results folder")?;
    let mode = SharedMode::default();
    let mut fold = mode.start(&one, true)?;
    mode.fold(&one, &mut fold, run)?;
    let report = mode.finish(&one, fold, 1, Duration::ZERO)?;
    let execution = Execution {
        tasks: 1,
        ran: 1,
        ..Execution::default()
    };
    mode.write(dir, &one, &report, true, None, &execution)?;
    Ok(())
}

/// Scenario `s` with its policy `policy` alone (the baseline), as if its
/// file named only that `[[policy]]`, with one repetition and no figures
/// (`--reps 1 --no-plots`): loaded again from the file's settings (its
/// traces read again) with the built-in policies. An
/// episode of policy 0 of it is the episode of `policy` of `s` (no random
/// stream depends on a policy's index).
pub fn alone(s: &SharedScenario, policy: usize) -> Result<SharedScenario> {
    let n = s.policies();
    let section = s.file.policies.get(policy).ok_or_else(|| {
        Error::usage(format!(
            "policy {policy} is out of range: the scenario has {n} policies (0..{n})"
        ))
    })?;
    let mut file = s.file.clone();
    file.policies = vec![section.clone()];
    file.baseline = None;
    let text = toml::to_string(&file).map_err(|e| {
        Error::input(format!(
            "{}: cannot restate the scenario: {e}",
            s.path.display()
        ))
    })?;
    let overrides = Overrides {
        repetitions: Some(1),
        plots: Some(false),
        ..Overrides::default()
    };
    super::scenario::parse_shared_scenario(&s.path, &text, overrides)
}
