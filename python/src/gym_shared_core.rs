//! One shared-scenario environment's state and rules, without Python
//! (DESIGN §15.6, "The shared environment"): the actions, the mask, the
//! observation and `policy_action` are the job-mode window's
//! ([`Window`], with the owner features), over a [`SharedEpisode`] of the
//! scenario's policy alone.
//!
//! - The waiting window holds every job the cluster scheduler sees
//!   waiting, in job order: background jobs, the service's requests
//!   (priority `equal`) and workflow tasks alike; each slot ends with its
//!   owner, one-hot ([`OWNER_FEATURE_NAMES`]).
//! - Reward `regret` (the default with a `[service]`): at each step minus
//!   the service's regret accrued since the last step,
//!   −(R(now) − R(last step)), R(τ) = ∫ Σ_i ℓ_i dτ over its tenants
//!   ([`SharedStepper::service_regret`], DESIGN §2.6); the last step pays
//!   the remainder, so the return is exactly minus R as its results
//!   report it (`service/summary.csv`'s `cumulative_regret`, the
//!   repetition's `RunMetrics::cumulative_regret`, accuracy·s; DESIGN
//!   §15.7, [`remainder`]). Reward `sojourn` (the default without a service):
//!   minus the job-hours spent in the system since the last step by every
//!   submitted job (background, service and workflow jobs alike,
//!   [`Sojourn`]'s rule over the jobs submitted so far).

use std::path::Path;
use std::sync::Arc;

use tenantsim::core::io::scenario::{Overrides, ScenarioMode, scenario_mode};
use tenantsim::core::run::mode::Mode;
use tenantsim::jobs::sim::simulation::{State, Status};
use tenantsim::jobs::sim::{JobChoice, JobDecision};
use tenantsim::registry::Registry;
use tenantsim::shared::episode::{SharedEpisode, alone, write_shared_episode};
use tenantsim::shared::scenario::SharedScenario;
use tenantsim::shared::sim::{SharedStepper, WorkloadKind};
use tenantsim::{Error, Result};

use crate::gym_jobs_core::{JobActionKind, Window};

const US_PER_H: f64 = 3.6e9;

/// The reward (option `reward`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedReward {
    /// Minus the service's regret accrued since the last step; the
    /// return is minus its cumulative regret (DESIGN §15.7).
    Regret,
    /// Minus the job-hours spent in the system since the last step.
    Sojourn,
}

impl SharedReward {
    /// The reward named `name` (`None`: `regret` with a service, else
    /// `sojourn`).
    pub fn parse(name: Option<&str>, service: bool) -> std::result::Result<Self, String> {
        match name {
            None if service => Ok(Self::Regret),
            None => Ok(Self::Sojourn),
            Some("regret") if service => Ok(Self::Regret),
            Some("regret") => Err(
                "reward=\"regret\": the scenario has no [service] (no regret): use \"sojourn\""
                    .into(),
            ),
            Some("sojourn") => Ok(Self::Sojourn),
            Some(other) => Err(format!(
                "reward={other:?}: expected \"regret\" or \"sojourn\" (shared scenarios)"
            )),
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Regret => "regret",
            Self::Sojourn => "sojourn",
        }
    }
}

/// Point `point` of the shared scenario file `path` (the only one
/// without a `[sweep]`) with its policy named `policy` (the first by
/// default) alone, and that policy's name.
pub fn load(
    path: &Path,
    point: Option<usize>,
    policy: Option<&str>,
) -> Result<(SharedScenario, String)> {
    if scenario_mode(path)? != ScenarioMode::Shared {
        return Err(Error::usage(format!(
            "{}: the shared environment steps shared scenarios (mode = \"shared\") only",
            path.display()
        )));
    }
    let plan = Registry::builtin()
        .shared_mode()
        .load_plan(path, Overrides::default())?;
    let points = plan.scenarios();
    let n = points.len();
    let s = match (point, n) {
        (None, 1) => points[0],
        (None, _) => {
            return Err(Error::usage(format!(
                "{}: the scenario's [sweep] has {n} points: give point=k (0 to {}) to step one",
                path.display(),
                n - 1
            )));
        }
        (Some(k), _) => *points.get(k).ok_or_else(|| {
            Error::usage(format!(
                "point={k}: the scenario has {n} point(s) (0 to {})",
                n - 1
            ))
        })?,
    };
    let names = s.policy_names();
    let p = match policy {
        None => 0,
        Some(name) => names.iter().position(|&x| x == name).ok_or_else(|| {
            Error::usage(format!(
                "policy={name:?}: no such policy in the scenario (it has {names:?})"
            ))
        })?,
    };
    let name = names[p].to_string();
    Ok((alone(s, p)?, name))
}

/// Job-seconds spent in the system by every job submitted so far,
/// S(t) = Σ over submitted jobs of (min(t, end_j) − submit_j) µs: the done
/// jobs' sum kept, the others' recomputed at each step (a scan of the
/// job table; a workload's job is submitted when its workload submits
/// it, so its submit time is read from the state).
#[derive(Debug, Clone, Default)]
struct AllSojourn {
    counted: Vec<bool>,
    done_us: u128,
}

impl AllSojourn {
    fn at(&mut self, state: &State<'_>, now: u64) -> u128 {
        let n = state.jobs().len();
        self.counted.resize(n, false);
        let mut partial = 0u128;
        for j in 0..n {
            if self.counted[j] {
                continue;
            }
            let j32 = j as u32;
            match state.status(j32) {
                Status::Future => {}
                Status::Done => {
                    let submit = state.job(j32).submit;
                    self.done_us += u128::from(state.end(j32).saturating_sub(submit));
                    self.counted[j] = true;
                }
                Status::Waiting | Status::Running => {
                    partial += u128::from(now.saturating_sub(state.job(j32).submit));
                }
            }
        }
        self.done_us + partial
    }
}

/// What a step gave: the reward and whether the episode ended.
#[derive(Debug, Clone, Copy)]
pub struct SharedStep {
    /// The reward (see the module's doc).
    pub reward: f64,
    /// The run has ended.
    pub terminated: bool,
}

fn owner_index(k: WorkloadKind) -> usize {
    match k {
        WorkloadKind::Background => 0,
        WorkloadKind::Service => 1,
        WorkloadKind::Workflows => 2,
    }
}

/// The last step's reward: the `d` with `paid + d == target` as f64 sums,
/// so that a return summed step by step is `target` bit for bit (DESIGN
/// §15.7). `d = target − paid` rounded does it whenever the subtraction is
/// exact (`paid` and `target` within a factor 2 of each other, Sterbenz);
/// otherwise the few floats next to it are tried, and the rounded
/// difference is kept if none does.
fn remainder(paid: f64, target: f64) -> f64 {
    let d = target - paid;
    if paid + d == target || !d.is_finite() {
        return d;
    }
    let (mut up, mut down) = (d, d);
    for _ in 0..4 {
        up = up.next_up();
        down = down.next_down();
        for c in [up, down] {
            if paid + c == target {
                return c;
            }
        }
    }
    d
}

/// The decision's time, or the run's clock once it has ended.
fn now_of(run: &SharedStepper<'_>) -> u64 {
    run.pending().map_or_else(|| run.now(), |p| p.now)
}

/// One shared environment (see the module's doc).
pub struct SharedCore {
    /// The scenario with the episode's policy alone.
    scenario: Arc<SharedScenario>,
    policy_name: String,
    win: Window,
    reward: SharedReward,
    rep: u64,
    episode: SharedEpisode,
    sojourn: AllSojourn,
    /// S at the last step, µs.
    last_us: u128,
    /// The service's cumulative regret once the episode has ended.
    regret: Option<f64>,
    /// Reward `regret`: R(τ) at the last step (the service's accrued
    /// regret, [`SharedStepper::service_regret`]), accuracy·s.
    last_regret: f64,
    /// The return so far, summed step by step as a caller sums it
    /// (`0.0 + r₁ + r₂ + …`): the last step's reward is what makes it
    /// −R exactly ([`remainder`]).
    paid: f64,
    steps: u64,
}

impl SharedCore {
    /// `scenario` (its policy 0: an episode's policy alone), window
    /// `window` (≥ 1), action kind `kind`, reward `reward`, at the first
    /// decision of repetition `rep`.
    pub fn new(
        scenario: Arc<SharedScenario>,
        policy_name: String,
        window: usize,
        kind: JobActionKind,
        reward: SharedReward,
        rep: u64,
    ) -> Result<Self> {
        if window == 0 {
            return Err(Error::usage("window = 0: expected at least 1 slot"));
        }
        let episode = SharedEpisode::new(Arc::clone(&scenario), rep, 0)?;
        let mut core = Self {
            scenario,
            policy_name,
            win: Window::new(window, kind, true),
            reward,
            rep,
            episode,
            sojourn: AllSojourn::default(),
            last_us: 0,
            regret: None,
            last_regret: 0.0,
            paid: 0.0,
            steps: 0,
        };
        core.start()?;
        Ok(core)
    }

    fn start(&mut self) -> Result<()> {
        self.sojourn = AllSojourn::default();
        self.last_us = 0;
        self.regret = None;
        self.last_regret = 0.0;
        self.paid = 0.0;
        self.steps = 0;
        self.episode
            .with_run(|run| run.next_decision().map(|_| ()))?;
        if self.ended() {
            self.finished()?;
        }
        Ok(())
    }

    /// Start repetition `rep` afresh.
    pub fn reset(&mut self, rep: u64) -> Result<()> {
        self.episode = SharedEpisode::new(Arc::clone(&self.scenario), rep, 0)?;
        self.rep = rep;
        self.start()
    }

    /// An independent copy at this point ([`SharedEpisode::fork`]).
    pub fn fork(&self) -> Result<Self> {
        Ok(Self {
            scenario: Arc::clone(&self.scenario),
            policy_name: self.policy_name.clone(),
            win: self.win,
            reward: self.reward,
            rep: self.rep,
            episode: self.episode.fork()?,
            sojourn: self.sojourn.clone(),
            last_us: self.last_us,
            regret: self.regret,
            last_regret: self.last_regret,
            paid: self.paid,
            steps: self.steps,
        })
    }

    /// The scenario (the policy alone).
    pub fn scenario(&self) -> &SharedScenario {
        &self.scenario
    }

    /// The policy's name.
    pub fn policy_name(&self) -> &str {
        &self.policy_name
    }

    /// The window's rules.
    pub fn rules(&self) -> Window {
        self.win
    }

    /// The reward.
    pub fn reward_kind(&self) -> SharedReward {
        self.reward
    }

    /// The repetition.
    pub fn rep(&self) -> u64 {
        self.rep
    }

    /// Steps taken in the episode.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Job-hours spent in the system so far (tracked with reward
    /// `sojourn` only, minus its return so far; 0 with `regret`).
    pub fn job_hours(&self) -> f64 {
        self.last_us as f64 / US_PER_H
    }

    /// The service's cumulative regret once the episode has ended
    /// (reward `regret`: minus the return).
    pub fn regret(&self) -> Option<f64> {
        self.regret
    }

    /// Whether the episode has ended.
    pub fn ended(&self) -> bool {
        self.episode
            .with_run(|run| Ok(run.pending().is_none()))
            .unwrap_or(true)
    }

    /// The simulated time of the pending decision (the end once ended), µs.
    pub fn now(&self) -> u64 {
        self.episode.with_run(|run| Ok(now_of(run))).unwrap_or(0)
    }

    /// The pending decision, copied (`None` once ended).
    pub fn point(&self) -> Option<JobDecision> {
        self.episode
            .with_run(|run| Ok(run.pending().cloned()))
            .ok()
            .flatten()
    }

    /// The choice action `a` takes now, or why it may not be taken
    /// ([`Window::check`]).
    pub fn check(&self, a: i64) -> std::result::Result<JobChoice, String> {
        let win = self.win;
        self.episode
            .with_run(|run| Ok(win.check(run.pending(), run.state(), a)))
            .map_err(|e| e.to_string())?
    }

    /// The service's regret of the ended episode (its finished run's).
    fn finished(&mut self) -> Result<f64> {
        let run = self.episode.finish()?;
        let r = run
            .service
            .as_ref()
            .map_or(0.0, |s| s.metrics.cumulative_regret);
        self.regret = Some(r);
        Ok(r)
    }

    /// Take `choice` (the stepper checks it; an error changes nothing),
    /// advance to the next decision and give the reward.
    pub fn take(&mut self, choice: JobChoice) -> Result<SharedStep> {
        // S is tracked with reward `sojourn` only (a scan of the job
        // table per step).
        let sojourn = (self.reward == SharedReward::Sojourn).then_some(&mut self.sojourn);
        let (s, r, terminated) = self.episode.with_run(|run| {
            run.decide(choice)?;
            run.next_decision()?;
            let now = now_of(run);
            let s = sojourn.map_or(0, |x| x.at(run.state(), now));
            let r = run.service_regret().unwrap_or(0.0);
            Ok((s, r, run.pending().is_none()))
        })?;
        self.steps += 1;
        let reward = match self.reward {
            // reward = −(S(now) − S(last step)) / 3600 s: the return is
            // −S(end), the job-hours of every job in the system (DESIGN
            // §15.6).
            SharedReward::Sojourn => -((s - self.last_us) as f64) / US_PER_H,
            // The last step: what takes the return so far to −R, R the
            // reported cumulative regret (DESIGN §15.7).
            SharedReward::Regret if terminated => remainder(self.paid, -self.finished()?),
            // reward = −(R(now) − R(last step)), R the service's regret
            // accrued up to its latest event (DESIGN §2.6, §15.7).
            SharedReward::Regret => -(r - self.last_regret),
        };
        self.last_us = s;
        self.last_regret = r;
        self.paid += reward;
        if terminated && self.regret.is_none() {
            self.finished()?;
        }
        Ok(SharedStep { reward, terminated })
    }

    /// Write the observation into `obs` (length `rules().obs_len()`).
    pub fn encode(&self, obs: &mut [f32]) {
        let win = self.win;
        let _ = self.episode.with_run(|run| {
            let run = &*run;
            win.encode(run.pending(), run.state(), now_of(run), obs, &|j| {
                Some(owner_index(run.owner(j)))
            });
            Ok(())
        });
    }

    /// Write the action mask into `mask` (length `rules().n_actions()`).
    pub fn mask(&self, mask: &mut [u8]) {
        let win = self.win;
        let _ = self.episode.with_run(|run| {
            win.mask(run.pending(), run.state(), mask);
            Ok(())
        });
    }

    /// The scheduler's next action as a window action, or −1.
    pub fn policy_action(&self) -> i64 {
        let win = self.win;
        self.episode
            .with_run(|run| Ok(win.policy_action(run.pending())))
            .unwrap_or(-1)
    }

    /// The owner of job `j` (0 background, 1 service, 2 workflow).
    pub fn owner(&self, j: u32) -> usize {
        self.episode
            .with_run(|run| Ok(owner_index(run.owner(j))))
            .unwrap_or(0)
    }

    /// Write the ended episode's results folder into `dir` (must not
    /// exist).
    pub fn write_results(&self, dir: &Path) -> Result<()> {
        if !self.ended() {
            return Err(Error::usage(
                "results(): the episode has not ended: step it until terminated",
            ));
        }
        write_shared_episode(dir, &self.scenario, self.episode.finish()?)
    }
}
