//! One job-mode environment's state and rules, without Python (DESIGN
//! §15.5, "The job-mode environment"): the single environment
//! (`gym_jobs.rs`) and the vector one (`gym_jobs_vec.rs`) both drive it.
//!
//! - Action kind `start` (default): Discrete(W + 1). Slot `a < W` starts
//!   the `a`-th of the first W waiting jobs in job order (the waiting
//!   window); `a = W` ends the pass.
//! - Action kind `start-or-preempt`: Discrete(2W + 1). `a < W` as above;
//!   `W ≤ a < 2W` preempts the `(a − W)`-th of the first W running jobs in
//!   job order (the running window); `a = 2W` ends the pass.
//! - A slot holding the job of the scheduler's next action takes that
//!   action whole (its GPU type, its victims), so that following
//!   `policy_action` replays the built-in run.
//! - Observation: float32, W waiting slots × [`SLOT_FEATURE_NAMES`], then
//!   (kind `start-or-preempt` only) W running slots ×
//!   [`RUNNING_FEATURE_NAMES`], then [`GLOBAL_FEATURE_NAMES`].
//! - Reward: minus the job-hours spent in the system since the last step
//!   ([`Sojourn`]): the return is −Σ_j (end_j − submit_j) / 3600.

use std::path::Path;
use std::sync::Arc;

use tenantsim::core::io::scenario::{ScenarioMode, scenario_mode};
use tenantsim::jobs::episode::job_episode;
use tenantsim::jobs::scenario::{JobScenario, load_job_scenario};
use tenantsim::jobs::sim::simulation::{State, Status};
use tenantsim::jobs::sim::{JobChoice, JobDecision, JobStepper};
use tenantsim::{Error, Result};

/// Features of a waiting-window slot, in order (all 0 for an empty slot).
pub const SLOT_FEATURE_NAMES: [&str; 5] = [
    "present",
    "gpus_frac",
    "waiting_h",
    "duration_h",
    "attained_h",
];
/// Features of a running-window slot (action kind `start-or-preempt`), in
/// order (all 0 for an empty slot).
pub const RUNNING_FEATURE_NAMES: [&str; 5] =
    ["present", "gpus_frac", "age_h", "attained_h", "remaining_h"];
/// Global features, after the slots.
pub const GLOBAL_FEATURE_NAMES: [&str; 4] =
    ["clock_h", "free_gpu_frac", "waiting_count", "running_count"];

const US_PER_H: f64 = 3.6e9;

/// The action space's kind (option `action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobActionKind {
    /// Discrete(W + 1): start a waiting slot, or end the pass.
    Start,
    /// Discrete(2W + 1): start a waiting slot, preempt a running slot, or
    /// end the pass.
    StartOrPreempt,
}

impl JobActionKind {
    /// The kind named `name` ("start" or "start-or-preempt").
    pub fn parse(name: &str) -> std::result::Result<Self, String> {
        match name {
            "start" => Ok(Self::Start),
            "start-or-preempt" => Ok(Self::StartOrPreempt),
            other => Err(format!(
                "action={other:?}: expected \"start\" or \"start-or-preempt\" (job mode)"
            )),
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::StartOrPreempt => "start-or-preempt",
        }
    }
}

/// The job-seconds spent in the system, S(t) = Σ over submitted jobs of
/// (min(t, end_j) − submit_j) µs, kept incrementally: the done jobs' sum
/// plus, at each step, a pass over the jobs submitted and not yet seen
/// done (`open`). Jobs come in submit order (`order`).
#[derive(Debug, Clone, Default)]
pub struct Sojourn {
    order: Vec<u32>,
    next: usize,
    open: Vec<u32>,
    done_us: u128,
}

impl Sojourn {
    /// The sum of `state`'s jobs, none seen yet.
    pub fn new(state: &State<'_>) -> Self {
        let mut order: Vec<u32> = (0..state.jobs().len() as u32).collect();
        order.sort_by_key(|&j| (state.job(j).submit, j));
        Self {
            order,
            ..Self::default()
        }
    }

    /// S(now), µs: a done job counts end − submit, one in the system
    /// now − submit.
    pub fn at(&mut self, state: &State<'_>, now: u64) -> u128 {
        while let Some(&j) = self.order.get(self.next) {
            if state.job(j).submit > now {
                break;
            }
            self.open.push(j);
            self.next += 1;
        }
        let mut partial = 0u128;
        let mut done = 0u128;
        self.open.retain(|&j| {
            let submit = state.job(j).submit;
            if state.status(j) == Status::Done {
                done += u128::from(state.end(j).saturating_sub(submit));
                false
            } else {
                partial += u128::from(now.saturating_sub(submit));
                true
            }
        });
        self.done_us += done;
        self.done_us + partial
    }
}

/// Load a job-mode scenario file (any other mode is an error naming it).
pub fn load(path: &Path) -> Result<JobScenario> {
    match scenario_mode(path)? {
        ScenarioMode::Jobs => load_job_scenario(path, Default::default()),
        _ => Err(Error::usage(format!(
            "{}: the job-mode environment steps job-mode scenarios (mode = \"jobs\") only",
            path.display()
        ))),
    }
}

/// The index of the policy named `name` (the first if `None`).
pub fn policy_index(sc: &JobScenario, name: Option<&str>) -> Result<usize> {
    let Some(name) = name else { return Ok(0) };
    sc.policies
        .iter()
        .position(|x| x.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = sc.policies.iter().map(|x| x.name.as_str()).collect();
            Error::usage(format!(
                "policy={name:?}: no such policy in the scenario (it has {names:?})"
            ))
        })
}

/// What a step gave: the reward and whether the episode ended.
#[derive(Debug, Clone, Copy)]
pub struct JobStep {
    /// −(S(now) − S(last step)) / 3600 s.
    pub reward: f64,
    /// The run has ended.
    pub terminated: bool,
}

/// One job-mode environment (see the module's doc).
pub struct JobCore {
    scenario: Arc<JobScenario>,
    policy: usize,
    win: Window,
    rep: u64,
    run: JobStepper<'static>,
    sojourn: Sojourn,
    /// S at the last step, µs (0 at the start: the first step pays the
    /// time before the first decision too).
    last_us: u128,
    steps: u64,
}

impl JobCore {
    /// Policy `policy` of `scenario`, window `window` (≥ 1), action kind
    /// `kind`, at the first decision of repetition `rep`.
    pub fn new(
        scenario: Arc<JobScenario>,
        policy: usize,
        window: usize,
        kind: JobActionKind,
        rep: u64,
    ) -> Result<Self> {
        if window == 0 {
            return Err(Error::usage("window = 0: expected at least 1 slot"));
        }
        let run = job_episode(&scenario, rep, policy)?;
        let mut core = Self {
            scenario,
            policy,
            win: Window::new(window, kind, false),
            rep,
            run,
            sojourn: Sojourn::default(),
            last_us: 0,
            steps: 0,
        };
        core.start()?;
        Ok(core)
    }

    fn start(&mut self) -> Result<()> {
        self.sojourn = Sojourn::new(self.run.state());
        self.run.next_decision()?;
        self.last_us = 0;
        self.steps = 0;
        Ok(())
    }

    /// Start repetition `rep` afresh.
    pub fn reset(&mut self, rep: u64) -> Result<()> {
        self.run = job_episode(&self.scenario, rep, self.policy)?;
        self.rep = rep;
        self.start()
    }

    /// An independent copy at this point (the stepper's fork, DESIGN
    /// §15.5).
    pub fn fork(&self) -> Result<Self> {
        Ok(Self {
            scenario: Arc::clone(&self.scenario),
            policy: self.policy,
            win: self.win,
            rep: self.rep,
            run: self.run.fork()?,
            sojourn: self.sojourn.clone(),
            last_us: self.last_us,
            steps: self.steps,
        })
    }

    /// The pending decision point (`None` once the episode has ended).
    pub fn point(&self) -> Option<&JobDecision> {
        self.run.pending()
    }

    /// The run (its state, its outcome once ended).
    pub fn run(&self) -> &JobStepper<'static> {
        &self.run
    }

    /// The scenario.
    pub fn scenario(&self) -> &JobScenario {
        &self.scenario
    }

    /// The policy's index.
    pub fn policy(&self) -> usize {
        self.policy
    }

    /// The window (W).
    pub fn window(&self) -> usize {
        self.win.window
    }

    /// The action kind.
    pub fn kind(&self) -> JobActionKind {
        self.win.kind
    }

    /// The repetition.
    pub fn rep(&self) -> u64 {
        self.rep
    }

    /// Steps taken in the episode.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Job-hours spent in the system so far (minus the return so far).
    pub fn job_hours(&self) -> f64 {
        self.last_us as f64 / US_PER_H
    }

    /// The simulated time of the pending decision (the end once ended), µs.
    pub fn now(&self) -> u64 {
        self.point().map_or_else(|| self.run.now(), |p| p.now)
    }

    fn state(&self) -> &State<'static> {
        self.run.state()
    }

    /// The choice action `a` takes now, or why it may not be taken
    /// ([`Window::check`]).
    pub fn check(&self, a: i64) -> std::result::Result<JobChoice, String> {
        self.win.check(self.point(), self.state(), a)
    }

    /// Take `choice` (checked by [`Self::check`] or a raw one: the stepper
    /// checks it, an error changes nothing), advance to the next decision
    /// and give the reward.
    pub fn take(&mut self, choice: JobChoice) -> Result<JobStep> {
        self.run.decide(choice)?;
        self.run.next_decision()?;
        self.steps += 1;
        let now = self.now();
        let s = self.sojourn.at(self.run.state(), now);
        // reward = −(S(now) − S(last step)) / 3600 s: minus the job-hours
        // spent in the system since the last step; the return is
        // −S(end) = −Σ_j JCT_j in hours (DESIGN §15.5).
        let reward = -((s - self.last_us) as f64) / US_PER_H;
        self.last_us = s;
        Ok(JobStep {
            reward,
            terminated: self.point().is_none(),
        })
    }

    /// Write the observation into `obs` (length [`Self::obs_len`]).
    pub fn encode(&self, obs: &mut [f32]) {
        self.win
            .encode(self.point(), self.state(), self.now(), obs, &|_| None);
    }

    /// Write the action mask into `mask` ([`Window::mask`]).
    pub fn mask(&self, mask: &mut [u8]) {
        self.win.mask(self.point(), self.state(), mask);
    }

    /// The scheduler's next action as a window action
    /// ([`Window::policy_action`]).
    pub fn policy_action(&self) -> i64 {
        self.win.policy_action(self.point())
    }
}

/// Features of a slot's owner in a shared scenario (DESIGN §15.6, "The
/// shared environment"), after the job's own: one-hot, whose job it is.
pub const OWNER_FEATURE_NAMES: [&str; 3] = ["background", "service", "workflow"];

/// The window rules (DESIGN §15.5, §15.6): the actions, their checks, the
/// mask, the observation and the scheduler's action as a window action,
/// for any run whose decisions are [`JobDecision`]s over a [`State`] (a
/// job-mode run, a shared run). With `owners`, each slot's features end
/// with [`OWNER_FEATURE_NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// W, the slots of each window (≥ 1).
    pub window: usize,
    /// The action space's kind.
    pub kind: JobActionKind,
    /// Whether slots say whose job they hold (shared scenarios).
    pub owners: bool,
}

impl Window {
    /// The rules of a window of `window` slots.
    pub fn new(window: usize, kind: JobActionKind, owners: bool) -> Self {
        Self {
            window,
            kind,
            owners,
        }
    }

    /// The action that ends the pass: W (`start`) or 2W
    /// (`start-or-preempt`).
    pub fn end_action(&self) -> usize {
        match self.kind {
            JobActionKind::Start => self.window,
            JobActionKind::StartOrPreempt => 2 * self.window,
        }
    }

    /// The number of actions (the mask's length).
    pub fn n_actions(&self) -> usize {
        self.end_action() + 1
    }

    /// Features per waiting slot.
    pub fn slot_len(&self) -> usize {
        SLOT_FEATURE_NAMES.len()
            + if self.owners {
                OWNER_FEATURE_NAMES.len()
            } else {
                0
            }
    }

    /// Features per running slot.
    pub fn running_len(&self) -> usize {
        RUNNING_FEATURE_NAMES.len()
            + if self.owners {
                OWNER_FEATURE_NAMES.len()
            } else {
                0
            }
    }

    /// The observation's length.
    pub fn obs_len(&self) -> usize {
        let running = match self.kind {
            JobActionKind::Start => 0,
            JobActionKind::StartOrPreempt => self.window * self.running_len(),
        };
        self.window * self.slot_len() + running + GLOBAL_FEATURE_NAMES.len()
    }

    /// The job of waiting slot `a`, if there is one.
    fn waiting_slot(&self, p: &JobDecision, a: usize) -> Option<u32> {
        (a < self.window)
            .then(|| p.waiting.get(a).copied())
            .flatten()
    }

    /// The job of running slot `r` (action W + r), if there is one.
    fn running_slot(&self, p: &JobDecision, r: usize) -> Option<u32> {
        let on = self.kind == JobActionKind::StartOrPreempt && r < self.window;
        on.then(|| p.running.get(r).copied()).flatten()
    }

    /// Whether action `a` may be taken now ([`Self::check`]'s rules,
    /// without building its messages).
    fn allowed(&self, p: Option<&JobDecision>, state: &State<'_>, a: usize) -> bool {
        let Some(p) = p else { return false };
        let (w, end) = (self.window, self.end_action());
        if a == end {
            return true;
        }
        if a < w {
            return self.waiting_slot(p, a).is_some_and(|j| {
                matches!(p.policy_choice, Some(JobChoice::Start(x) | JobChoice::StartOn(x, _)) if x == j)
                    || state.choose_type(j, p.now).is_some()
            });
        }
        a < end && self.running_slot(p, a - w).is_some()
    }

    /// The choice action `a` takes at `p`, or why it may not be taken (the
    /// message names the action and what is allowed). Nothing changes.
    pub fn check(
        &self,
        p: Option<&JobDecision>,
        state: &State<'_>,
        a: i64,
    ) -> std::result::Result<JobChoice, String> {
        let Some(p) = p else {
            return Err("the episode has ended (terminated): call reset() first".into());
        };
        let (w, end) = (self.window, self.end_action());
        let Some(a) = usize::try_from(a).ok().filter(|&a| a <= end) else {
            return Err(match self.kind {
                JobActionKind::Start => format!(
                    "action {a} is out of range: allowed are 0 to {} (a window slot) and {w} \
                     (end the pass)",
                    w - 1
                ),
                JobActionKind::StartOrPreempt => format!(
                    "action {a} is out of range: allowed are 0 to {} (a waiting slot: start), \
                     {w} to {} (a running slot: preempt) and {end} (end the pass)",
                    w - 1,
                    end - 1
                ),
            });
        };
        if a == end {
            return Ok(JobChoice::EndPass);
        }
        // The scheduler's own next action, taken whole from its slot.
        let policy = p.policy_choice;
        if a < w {
            let Some(j) = self.waiting_slot(p, a) else {
                let n = p.waiting.len().min(w);
                return Err(format!(
                    "action {a}: window slot {a} is empty ({n} job(s) wait in the window, in \
                     slots below {n}; {end} ends the pass)"
                ));
            };
            if let Some(c @ (JobChoice::Start(x) | JobChoice::StartOn(x, _))) = policy
                && x == j
            {
                return Ok(c);
            }
            if state.choose_type(j, p.now).is_none() {
                return Err(format!(
                    "action {a}: job {j} (slot {a}) needs {} GPU(s) and does not fit now ({} free)",
                    state.job(j).gpus,
                    p.free_gpus
                ));
            }
            return Ok(JobChoice::Start(j));
        }
        let r = a - w;
        let Some(j) = self.running_slot(p, r) else {
            let n = p.running.len().min(w);
            return Err(format!(
                "action {a}: running slot {r} is empty ({n} job(s) run in the running window, \
                 actions {w} to {} preempt them; {end} ends the pass)",
                w as i64 + n as i64 - 1
            ));
        };
        // Every running job the scheduler sees may be preempted (DESIGN
        // §15.5's `Preempt`). When it is the label of the scheduler's next
        // action the stepper follows the plan: that action is taken whole,
        // its other victims too.
        Ok(JobChoice::Preempt(j))
    }

    /// Write the observation at `p` (`None`: ended; time `now`, µs) into
    /// `obs` (length [`Self::obs_len`]); `owner(j)` is job `j`'s owner
    /// feature index (0 background, 1 service, 2 workflow), read only with
    /// `owners`.
    pub fn encode(
        &self,
        p: Option<&JobDecision>,
        state: &State<'_>,
        now: u64,
        obs: &mut [f32],
        owner: &dyn Fn(u32) -> Option<usize>,
    ) {
        obs.fill(0.0);
        let w = self.window;
        let (sl, rl) = (self.slot_len(), self.running_len());
        let total = state.total_gpus().max(1) as f64;
        let h = |us: u64| (us as f64 / US_PER_H) as f32;
        let mut at = w * sl;
        let one_hot = |f: &mut [f32], from: usize, j: u32| {
            if self.owners
                && let Some(o) = owner(j)
                && let Some(x) = f.get_mut(from + o)
            {
                *x = 1.0;
            }
        };
        if let Some(p) = p {
            for (slot, &j) in p.waiting.iter().take(w).enumerate() {
                let job = state.job(j);
                let f = &mut obs[slot * sl..(slot + 1) * sl];
                f[0] = 1.0;
                f[1] = (f64::from(job.gpus) / total) as f32;
                f[2] = h(now.saturating_sub(job.submit));
                f[3] = h(job.duration);
                f[4] = h(state.attained(j, now));
                one_hot(f, SLOT_FEATURE_NAMES.len(), j);
            }
            if self.kind == JobActionKind::StartOrPreempt {
                for (slot, &j) in p.running.iter().take(w).enumerate() {
                    let job = state.job(j);
                    let f = &mut obs[at + slot * rl..at + (slot + 1) * rl];
                    f[0] = 1.0;
                    f[1] = (f64::from(job.gpus) / total) as f32;
                    f[2] = h(now.saturating_sub(job.submit));
                    f[3] = h(state.attained(j, now));
                    f[4] = h(state.time_to_finish(j, now));
                    one_hot(f, RUNNING_FEATURE_NAMES.len(), j);
                }
            }
        }
        if self.kind == JobActionKind::StartOrPreempt {
            at += w * rl;
        }
        let g = &mut obs[at..];
        g[0] = h(now);
        g[1] = (state.free_gpus() as f64 / total) as f32;
        g[2] = p.map_or(0, |p| p.waiting.len()) as f32;
        g[3] = p.map_or(0, |p| p.running.len()) as f32;
    }

    /// Write the action mask at `p` into `mask` (length
    /// [`Self::n_actions`]; 1 allowed; the last, end the pass, is 1 until
    /// the episode ends).
    pub fn mask(&self, p: Option<&JobDecision>, state: &State<'_>, mask: &mut [u8]) {
        for (a, x) in mask.iter_mut().enumerate() {
            *x = u8::from(self.allowed(p, state, a));
        }
    }

    /// The scheduler's next action at `p` as a window action: its job's
    /// waiting slot for a start, W + its running slot for a preemption on
    /// its own (kind `start-or-preempt`), the end action to end the pass,
    /// or −1 when the windows cannot say it (a preemption in kind `start`,
    /// a job beyond a window, or after a deviation).
    pub fn policy_action(&self, p: Option<&JobDecision>) -> i64 {
        let Some(p) = p else { return -1 };
        let w = self.window;
        let slot = |list: &[u32], j: u32| list.iter().take(w).position(|&x| x == j);
        match p.policy_choice {
            Some(JobChoice::EndPass) => self.end_action() as i64,
            Some(JobChoice::Start(j) | JobChoice::StartOn(j, _)) => {
                slot(&p.waiting, j).map_or(-1, |a| a as i64)
            }
            Some(JobChoice::Preempt(j)) if self.kind == JobActionKind::StartOrPreempt => {
                slot(&p.running, j).map_or(-1, |r| (w + r) as i64)
            }
            _ => -1,
        }
    }
}
