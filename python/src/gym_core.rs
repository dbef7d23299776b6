//! One environment of `tenantsim.gym` in model mode (DESIGN §15.3), free
//! of Python: an [`Episode`] of the scenario, the decision point it waits
//! at, the cumulative regret at the last step (the reward is its
//! increase, negated) and the action kind. [`crate::gym::GymCore`] (one
//! environment) and [`crate::gym_vec::GymVecCore`] (many) hold these.

use std::path::Path;
use std::sync::Arc;

use tenantsim::core::io::scenario::{ScenarioMode, scenario_mode};
use tenantsim::models::experiment::{Episode, write_episode};
use tenantsim::models::scenario::{Scenario, load_scenario};
use tenantsim::models::sim::DecisionPoint;
use tenantsim::{Error, Result};

use crate::gym_action::{self, Action, ActionKind};
use crate::gym_obs;

/// Why a step did not happen.
#[derive(Debug)]
pub enum StepError {
    /// The action breaks the rules; nothing changed (the message names
    /// the action and what is allowed).
    Invalid(String),
    /// The engine or a policy failed; the episode must be reset.
    Engine(Error),
}

/// What one step gave.
#[derive(Debug, Clone, Copy)]
pub struct Stepped {
    /// −(R(now) − R(before the step)), DESIGN §15.3.
    pub reward: f64,
    /// The episode has ended (no decision left before the horizon).
    pub terminated: bool,
}

/// Load the model-mode scenario at `path` (a job or shared scenario is an
/// error: only model mode is steppable, DESIGN §15.3).
pub fn load(path: &Path) -> Result<Arc<Scenario>> {
    match scenario_mode(path)? {
        ScenarioMode::Models => {}
        other => {
            return Err(Error::usage(format!(
                "{}: tenantsim.gym steps model-mode scenarios only; this one has mode = {}",
                path.display(),
                match other {
                    ScenarioMode::Jobs => "\"jobs\"",
                    _ => "\"shared\"",
                }
            )));
        }
    }
    Ok(Arc::new(load_scenario(path, Default::default())?))
}

/// The index of the policy named `name` (the first without a name).
pub fn policy_index(scenario: &Scenario, name: Option<&str>) -> Result<usize> {
    match name {
        None => Ok(0),
        Some(name) => scenario.policy_index(name, &format!("policy={name:?}")),
    }
}

/// One environment.
#[derive(Debug)]
pub struct Core {
    scenario: Arc<Scenario>,
    policy: usize,
    kind: ActionKind,
    /// Tenants of every episode (the observation's size is fixed).
    n: usize,
    /// Trace models.
    k: usize,
    episode: Episode,
    /// 1 / total_i per tenant of the episode ([`gym_obs::inv_totals`]).
    inv_total: Vec<f64>,
    /// What [`Self::refresh`] keeps between calls.
    inc: gym_obs::Incremental,
    /// The decision the episode waits at; `None` once it has ended.
    point: Option<DecisionPoint>,
    /// R at the last step, accuracy·seconds.
    regret: f64,
    steps: u64,
    /// An engine error left the episode unusable until the next reset.
    broken: bool,
}

impl Core {
    /// An environment of policy `policy` of `scenario`, at the start of
    /// repetition `rep`.
    pub fn new(scenario: Arc<Scenario>, policy: usize, kind: ActionKind, rep: u64) -> Result<Self> {
        let episode = Episode::new(Arc::clone(&scenario), rep, policy)?;
        let n = episode.tenants().len();
        let k = episode.run().trace().n_models();
        let mut core = Self {
            scenario,
            policy,
            kind,
            n,
            k,
            inv_total: gym_obs::inv_totals(&episode),
            inc: gym_obs::Incremental::new(n),
            episode,
            point: None,
            regret: 0.0,
            steps: 0,
            broken: false,
        };
        core.start()?;
        Ok(core)
    }

    /// Start the episode held: track the regret and advance to the first
    /// decision.
    fn start(&mut self) -> Result<()> {
        self.episode.track_regret()?;
        self.episode.track_touched();
        self.inc.invalidate();
        self.point = self.episode.next_decision()?;
        self.regret = self.episode.reported_regret().unwrap_or(0.0);
        self.steps = 0;
        self.broken = false;
        Ok(())
    }

    /// Start repetition `rep` afresh.
    pub fn reset(&mut self, rep: u64) -> Result<()> {
        let episode = Episode::new(Arc::clone(&self.scenario), rep, self.policy)?;
        let n = episode.tenants().len();
        if n != self.n {
            return Err(Error::usage(format!(
                "repetition {rep} has {n} tenants, the environment's observation {} \
                 (tenantsim.gym needs scenarios whose repetitions serve the same number of tenants)",
                self.n
            )));
        }
        self.inv_total = gym_obs::inv_totals(&episode);
        self.episode = episode;
        self.start()
    }

    /// Check `action` and take it, then advance to the next decision.
    pub fn step(&mut self, action: Action) -> std::result::Result<Stepped, StepError> {
        let choice = self.check(action)?;
        self.take(choice).map_err(|e| {
            self.broken = true;
            StepError::Engine(e)
        })
    }

    /// The choice `action` stands for, if it may be taken now.
    pub fn check(
        &self,
        action: Action,
    ) -> std::result::Result<tenantsim::models::sim::Choice, StepError> {
        if self.broken {
            return Err(StepError::Engine(Error::usage(
                "the episode stopped on an error: call reset() first",
            )));
        }
        if self.point.is_none() {
            return Err(StepError::Engine(Error::usage(
                "the episode has ended (terminated): call reset() first",
            )));
        }
        gym_action::choice(&self.episode, self.kind, action).map_err(StepError::Invalid)
    }

    /// Take a checked choice.
    fn take(&mut self, choice: tenantsim::models::sim::Choice) -> Result<Stepped> {
        self.episode.decide(choice)?;
        self.point = self.episode.next_decision()?;
        self.steps += 1;
        let r = self.episode.reported_regret().unwrap_or(0.0);
        // reward = −(R(t_now) − R(t_before)): the episode's return is
        // −R(end), up to rounding (DESIGN §15.3); a stalled run's last
        // step also pays its loss up to the stall horizon, so the return
        // is minus the regret its results report (§2.6).
        let reward = self.regret - r;
        self.regret = r;
        Ok(Stepped {
            reward,
            terminated: self.point.is_none(),
        })
    }

    /// Take a choice already [`check`](Self::check)ed.
    pub fn step_checked(
        &mut self,
        choice: tenantsim::models::sim::Choice,
    ) -> std::result::Result<Stepped, StepError> {
        self.take(choice).map_err(|e| {
            self.broken = true;
            StepError::Engine(e)
        })
    }

    /// Bring `obs` (length [`Self::obs_len`]) and `mask` (length
    /// [`Self::mask_len`]), the buffers this environment last refreshed
    /// (any buffers at the first call, after a reset or a fork), up to
    /// date with the episode (DESIGN §15.3): only what changed since the
    /// last call is rewritten ([`gym_obs::update`], the mask entries of
    /// the touched tenants). The same numbers as [`Self::encode`] and
    /// [`Self::mask`] write whole, bit for bit (tested).
    pub fn refresh(&mut self, obs: &mut [f32], mask: &mut [u8]) {
        let ended = self.point.is_none() || self.broken;
        if ended || self.inc.is_invalid() {
            self.mask(mask);
        } else {
            let touched = self.episode.touched();
            match self.kind {
                ActionKind::Tenant => gym_action::tenant_mask_rows(&self.episode, touched, mask),
                ActionKind::Pair => {
                    gym_action::pair_mask_rows(&self.episode, self.k, touched, mask);
                }
            }
        }
        gym_obs::update(
            &self.episode,
            self.point.as_ref(),
            self.scenario.config.gpus,
            &self.inv_total,
            &mut self.inc,
            obs,
        );
        self.episode.clear_touched();
    }

    /// Forget what [`Self::refresh`] last wrote: its next call writes the
    /// whole observation and mask (for buffers other than the last ones).
    pub fn invalidate(&mut self) {
        self.inc.invalidate();
    }

    /// Write the whole observation into `out` (length [`Self::obs_len`]).
    pub fn encode(&self, out: &mut [f32]) {
        gym_obs::encode(
            &self.episode,
            self.point.as_ref(),
            self.scenario.config.gpus,
            &self.inv_total,
            out,
        );
    }

    /// The observation's length.
    pub fn obs_len(&self) -> usize {
        gym_obs::obs_len(self.n)
    }

    /// Write the action mask into `out`: N + 1 entries (`tenant` kind) or
    /// N × (K + 1) (`pair` kind).
    pub fn mask(&self, out: &mut [u8]) {
        let ended = self.point.is_none() || self.broken;
        match self.kind {
            ActionKind::Tenant => gym_action::tenant_mask(&self.episode, ended, out),
            ActionKind::Pair => gym_action::pair_mask(&self.episode, ended, self.k, out),
        }
    }

    /// The mask's length.
    pub fn mask_len(&self) -> usize {
        match self.kind {
            ActionKind::Tenant => self.n + 1,
            ActionKind::Pair => self.n * (self.k + 1),
        }
    }

    /// The scenario's own policy's action now (idle once ended).
    pub fn policy_action(&self) -> Action {
        let choice = self
            .point
            .map_or(tenantsim::models::sim::Choice::Idle, |p| p.policy_choice);
        gym_action::policy_action(choice, self.n, self.k)
    }

    /// An independent copy (DESIGN §15.2).
    pub fn fork(&self) -> Result<Self> {
        Ok(Self {
            scenario: Arc::clone(&self.scenario),
            policy: self.policy,
            kind: self.kind,
            n: self.n,
            k: self.k,
            episode: self.episode.fork()?,
            inv_total: self.inv_total.clone(),
            // The copy's buffers are new: its first refresh writes all.
            inc: gym_obs::Incremental::new(self.n),
            point: self.point,
            regret: self.regret,
            steps: self.steps,
            broken: self.broken,
        })
    }

    /// Write the ended episode's results folder into `dir` (which must not
    /// exist): the files `tenantsim run` writes for the scenario with this
    /// policy alone and one repetition ([`write_episode`]).
    pub fn write_results(&self, dir: &Path) -> Result<()> {
        if self.point.is_some() || self.broken {
            return Err(Error::usage(
                "results(): the episode has not ended: step it until terminated",
            ));
        }
        let result = self.episode.fork()?.finish(true)?;
        write_episode(dir, &self.scenario, &result, true)
    }

    /// Tenants.
    pub fn n(&self) -> usize {
        self.n
    }
    /// Trace models.
    pub fn k(&self) -> usize {
        self.k
    }
    /// The action kind.
    pub fn kind(&self) -> ActionKind {
        self.kind
    }
    /// The repetition of the episode.
    pub fn rep(&self) -> u64 {
        self.episode.rep()
    }
    /// Steps taken in the episode.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// R so far (accuracy·seconds).
    pub fn regret(&self) -> f64 {
        self.regret
    }
    /// Whether the episode has ended.
    pub fn ended(&self) -> bool {
        self.point.is_none()
    }
    /// The pending decision.
    pub fn point(&self) -> Option<DecisionPoint> {
        self.point
    }
    /// The episode.
    pub fn episode(&self) -> &Episode {
        &self.episode
    }
    /// The scenario.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.scenario
    }
    /// The policy's index.
    pub fn policy(&self) -> usize {
        self.policy
    }
}
