//! `tenantsim._tenantsim.JobGymCore`: one job-mode environment of
//! `tenantsim.gym` (DESIGN §15.5, "The job-mode environment"), driven from
//! `tenantsim/gym.py`.
//!
//! - Action: Discrete(W + 1). Slot `a < W` starts the `a`-th of the first
//!   W waiting jobs in job order (the window); `a = W` ends the pass. A
//!   slot holding the scheduler's own next job takes the scheduler's whole
//!   action (its GPU type, the preemptions that make room), so that
//!   following `policy_action` replays the built-in run. Preemptions off
//!   the window go through `step_choice` (the raw [`JobChoice`]).
//! - Observation: float32, W slots × [`SLOT_FEATURE_NAMES`] then
//!   [`GLOBAL_FEATURE_NAMES`].
//! - Reward: minus the job-hours spent in the system since the last step
//!   (module [`Sojourn`]): the return is −Σ_j (end_j − submit_j) / 3600.

use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use tenantsim::core::io::scenario::{ScenarioMode, scenario_mode};
use tenantsim::jobs::episode::{job_episode, job_episode_run, write_job_episode};
use tenantsim::jobs::scenario::{JobScenario, load_job_scenario};
use tenantsim::jobs::sim::simulation::{State, Status};
use tenantsim::jobs::sim::{JobChoice, JobDecision, JobStepper};
use tenantsim::{Error, Result};

use crate::gym::InvalidActionError;
use crate::{UsageError, py_err};

/// Features of a window slot, in order (all 0 for an empty slot).
pub const SLOT_FEATURE_NAMES: [&str; 5] = [
    "present",
    "gpus_frac",
    "waiting_h",
    "duration_h",
    "attained_h",
];
/// Global features, after the slots.
pub const GLOBAL_FEATURE_NAMES: [&str; 4] =
    ["clock_h", "free_gpu_frac", "waiting_count", "running_count"];

const US_PER_H: f64 = 3.6e9;

/// The job-seconds spent in the system, S(t) = Σ over submitted jobs of
/// (min(t, end_j) − submit_j) µs, kept incrementally: the done jobs' sum
/// plus, at each step, a pass over the jobs submitted and not yet seen
/// done (`open`). Jobs come in submit order (`order`).
#[derive(Debug, Clone, Default)]
struct Sojourn {
    order: Vec<u32>,
    next: usize,
    open: Vec<u32>,
    done_us: u128,
}

impl Sojourn {
    fn new(state: &State<'_>) -> Self {
        let mut order: Vec<u32> = (0..state.jobs().len() as u32).collect();
        order.sort_by_key(|&j| (state.job(j).submit, j));
        Self {
            order,
            ..Self::default()
        }
    }

    /// S(now), µs: a done job counts end − submit, one in the system
    /// now − submit.
    fn at(&mut self, state: &State<'_>, now: u64) -> u128 {
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

/// One job-mode environment (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct JobGymCore {
    scenario: std::sync::Arc<JobScenario>,
    policy: usize,
    window: usize,
    rep: u64,
    run: JobStepper<'static>,
    point: Option<JobDecision>,
    sojourn: Sojourn,
    /// S at the last step, µs (0 at the start: the first step pays the
    /// time before the first decision too).
    last_us: u128,
    steps: u64,
}

fn load(path: &Path) -> Result<JobScenario> {
    match scenario_mode(path)? {
        ScenarioMode::Jobs => load_job_scenario(path, Default::default()),
        _ => Err(Error::usage(format!(
            "{}: JobGymCore steps job-mode scenarios (mode = \"jobs\") only",
            path.display()
        ))),
    }
}

/// A choice as Python sees it: ("start", j), ("start_on", j, t),
/// ("preempt", j) or ("end",).
type PyChoice = (String, Option<u32>, Option<u32>);

fn choice_to_py(c: JobChoice) -> PyChoice {
    match c {
        JobChoice::Start(j) => ("start".into(), Some(j), None),
        JobChoice::StartOn(j, t) => ("start_on".into(), Some(j), Some(u32::from(t))),
        JobChoice::Preempt(j) => ("preempt".into(), Some(j), None),
        JobChoice::EndPass => ("end".into(), None, None),
    }
}

impl JobGymCore {
    fn state(&self) -> &State<'static> {
        self.run.state()
    }

    fn start(&mut self) -> Result<()> {
        self.sojourn = Sojourn::new(self.run.state());
        self.point = self.run.next_decision()?;
        self.last_us = 0;
        self.steps = 0;
        Ok(())
    }

    /// The job of window slot `a`, if there is one.
    fn slot(&self, a: usize) -> Option<u32> {
        let p = self.point.as_ref()?;
        if a < self.window {
            p.waiting.get(a).copied()
        } else {
            None
        }
    }

    /// The scheduler's job if its next action starts one.
    fn policy_job(&self) -> Option<u32> {
        match self.point.as_ref()?.policy_choice? {
            JobChoice::Start(j) | JobChoice::StartOn(j, _) => Some(j),
            _ => None,
        }
    }

    /// Whether slot `a` may be taken now.
    fn allowed(&self, a: usize) -> bool {
        let Some(p) = &self.point else { return false };
        if a == self.window {
            return true;
        }
        self.slot(a).is_some_and(|j| {
            Some(j) == self.policy_job() || self.state().choose_type(j, p.now).is_some()
        })
    }

    /// Take `choice`, advance, and return (reward, terminated).
    fn take(&mut self, choice: JobChoice) -> std::result::Result<(f64, bool), PyErr> {
        self.run
            .decide(choice)
            .map_err(|e| InvalidActionError::new_err(e.to_string()))?;
        self.point = self.run.next_decision().map_err(|e| py_err(&e))?;
        self.steps += 1;
        let now = self
            .point
            .as_ref()
            .map_or_else(|| self.run.now(), |p| p.now);
        let s = self.sojourn.at(self.run.state(), now);
        // reward = −(S(now) − S(last step)) / 3600 s: minus the job-hours
        // spent in the system since the last step; the return is
        // −S(end) = −Σ_j JCT_j in hours (DESIGN §15.5).
        let reward = -((s - self.last_us) as f64) / US_PER_H;
        self.last_us = s;
        Ok((reward, self.point.is_none()))
    }

    fn ended_err(&self) -> Option<PyErr> {
        self.point
            .is_none()
            .then(|| UsageError::new_err("the episode has ended (terminated): call reset() first"))
    }
}

#[pymethods]
impl JobGymCore {
    /// An environment of the job-mode scenario file `scenario`, policy
    /// `policy` (its name; the first by default), window `window` (W ≥ 1),
    /// at the start of repetition 0.
    #[new]
    #[pyo3(signature = (scenario, policy=None, window=16))]
    fn new(scenario: PathBuf, policy: Option<String>, window: usize) -> PyResult<Self> {
        if window == 0 {
            return Err(UsageError::new_err("window = 0: expected at least 1 slot"));
        }
        let sc = load(&scenario).map_err(|e| py_err(&e))?;
        let p = match policy {
            None => 0,
            Some(name) => sc
                .policies
                .iter()
                .position(|x| x.name == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = sc.policies.iter().map(|x| x.name.as_str()).collect();
                    UsageError::new_err(format!(
                        "policy={name:?}: no such policy in the scenario (it has {names:?})"
                    ))
                })?,
        };
        let run = job_episode(&sc, 0, p).map_err(|e| py_err(&e))?;
        let mut core = Self {
            scenario: std::sync::Arc::new(sc),
            policy: p,
            window,
            rep: 0,
            run,
            point: None,
            sojourn: Sojourn::default(),
            last_us: 0,
            steps: 0,
        };
        core.start().map_err(|e| py_err(&e))?;
        Ok(core)
    }

    /// Start repetition `rep` afresh.
    fn reset(&mut self, rep: u64) -> PyResult<()> {
        self.run = job_episode(&self.scenario, rep, self.policy).map_err(|e| py_err(&e))?;
        self.rep = rep;
        self.start().map_err(|e| py_err(&e))
    }

    /// Take action `a` (a slot < W, or W to end the pass): (reward,
    /// terminated). An action not allowed raises `InvalidActionError`
    /// and changes nothing.
    fn step(&mut self, a: i64) -> PyResult<(f64, bool)> {
        if let Some(e) = self.ended_err() {
            return Err(e);
        }
        let w = self.window;
        let Some(a) = usize::try_from(a).ok().filter(|&a| a <= w) else {
            return Err(InvalidActionError::new_err(format!(
                "action {a} is out of range: allowed are 0 to {} (a window slot) and {w} (end the pass)",
                w - 1
            )));
        };
        if a == w {
            return self.take(JobChoice::EndPass);
        }
        let Some(j) = self.slot(a) else {
            let n = self.point.as_ref().map_or(0, |p| p.waiting.len().min(w));
            return Err(InvalidActionError::new_err(format!(
                "action {a}: window slot {a} is empty ({n} job(s) wait in the window, in slots below {n}; {w} ends the pass)"
            )));
        };
        if Some(j) == self.policy_job() {
            let c = self.point.as_ref().and_then(|p| p.policy_choice);
            return self.take(c.unwrap_or(JobChoice::Start(j)));
        }
        if !self.allowed(a) {
            let free = self.point.as_ref().map_or(0, |p| p.free_gpus);
            return Err(InvalidActionError::new_err(format!(
                "action {a}: job {j} (slot {a}) needs {} GPU(s) and does not fit now ({free} free)",
                self.state().job(j).gpus
            )));
        }
        self.take(JobChoice::Start(j))
    }

    /// Take a raw choice (the escape hatch for what the window cannot
    /// say): `kind` "start" (job), "start_on" (job, gpu_type), "preempt"
    /// (job) or "end". A choice that breaks the rules raises
    /// `InvalidActionError` and changes nothing.
    #[pyo3(signature = (kind, job=None, gpu_type=None))]
    fn step_choice(
        &mut self,
        kind: &str,
        job: Option<u32>,
        gpu_type: Option<u32>,
    ) -> PyResult<(f64, bool)> {
        if let Some(e) = self.ended_err() {
            return Err(e);
        }
        let need = |what: &str| {
            job.ok_or_else(|| {
                InvalidActionError::new_err(format!("step_choice({what:?}) needs a job"))
            })
        };
        let c = match kind {
            "start" => JobChoice::Start(need(kind)?),
            "preempt" => JobChoice::Preempt(need(kind)?),
            "end" => JobChoice::EndPass,
            "start_on" => {
                let t = gpu_type
                    .and_then(|t| u16::try_from(t).ok())
                    .ok_or_else(|| {
                        InvalidActionError::new_err(
                            "step_choice(\"start_on\") needs a gpu_type (0..65535)",
                        )
                    })?;
                JobChoice::StartOn(need(kind)?, t)
            }
            other => {
                return Err(InvalidActionError::new_err(format!(
                    "step_choice kind {other:?}: expected \"start\", \"start_on\", \"preempt\" or \"end\""
                )));
            }
        };
        self.take(c)
    }

    /// The observation as float32 bytes (native order): W slots ×
    /// `slot_features()`, then `global_features()`.
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        let w = self.window;
        let mut obs = vec![0f32; w * SLOT_FEATURE_NAMES.len() + GLOBAL_FEATURE_NAMES.len()];
        let state = self.state();
        let total = state.total_gpus().max(1) as f64;
        let now = self
            .point
            .as_ref()
            .map_or_else(|| self.run.now(), |p| p.now);
        let h = |us: u64| (us as f64 / US_PER_H) as f32;
        if let Some(p) = &self.point {
            for (slot, &j) in p.waiting.iter().take(w).enumerate() {
                let job = state.job(j);
                let f = &mut obs[slot * 5..slot * 5 + 5];
                f[0] = 1.0;
                f[1] = (f64::from(job.gpus) / total) as f32;
                f[2] = h(now.saturating_sub(job.submit));
                f[3] = h(job.duration);
                f[4] = h(state.attained(j, now));
            }
        }
        let g = &mut obs[w * 5..];
        g[0] = h(now);
        g[1] = (state.free_gpus() as f64 / total) as f32;
        g[2] = self.point.as_ref().map_or(0, |p| p.waiting.len()) as f32;
        g[3] = self.point.as_ref().map_or(0, |p| p.running.len()) as f32;
        PyByteArray::new_with(py, obs.len() * 4, |bytes| {
            for (b, v) in bytes.chunks_exact_mut(4).zip(&obs) {
                b.copy_from_slice(&v.to_ne_bytes());
            }
            Ok(())
        })
    }

    /// The action mask (W + 1 bytes, 1 allowed; the last, end the pass,
    /// is 1 until the episode ends).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        PyByteArray::new_with(py, self.window + 1, |b| {
            for (a, x) in b.iter_mut().enumerate() {
                *x = u8::from(self.allowed(a));
            }
            Ok(())
        })
    }

    /// The scheduler's next action as a window action: its job's slot, W
    /// to end the pass, or −1 when the window cannot say it (a
    /// preemption on its own, a job beyond the window, or after a
    /// deviation): then `policy_choice` gives it raw.
    fn policy_action(&self) -> i64 {
        let Some(p) = &self.point else { return -1 };
        match p.policy_choice {
            Some(JobChoice::EndPass) => self.window as i64,
            Some(JobChoice::Start(j) | JobChoice::StartOn(j, _)) => p
                .waiting
                .iter()
                .take(self.window)
                .position(|&x| x == j)
                .map_or(-1, |a| a as i64),
            _ => -1,
        }
    }

    /// The scheduler's next action raw (see `step_choice`), or None.
    fn policy_choice(&self) -> Option<PyChoice> {
        self.point.as_ref()?.policy_choice.map(choice_to_py)
    }

    /// An independent copy at this point (DESIGN §15.5).
    fn fork(&self) -> PyResult<Self> {
        Ok(Self {
            scenario: std::sync::Arc::clone(&self.scenario),
            policy: self.policy,
            window: self.window,
            rep: self.rep,
            run: self.run.fork().map_err(|e| py_err(&e))?,
            point: self.point.clone(),
            sojourn: self.sojourn.clone(),
            last_us: self.last_us,
            steps: self.steps,
        })
    }

    /// Write the ended episode's results folder into `dir` (must not
    /// exist): `tenantsim run`'s files for this policy alone and one
    /// repetition.
    fn write_results(&self, dir: PathBuf) -> PyResult<()> {
        if self.point.is_some() {
            return Err(UsageError::new_err(
                "results(): the episode has not ended: step it until terminated",
            ));
        }
        let outcome = self.run.fork().and_then(JobStepper::into_outcome);
        outcome
            .and_then(|o| job_episode_run(&self.scenario, self.rep, self.policy, o))
            .and_then(|r| write_job_episode(&dir, &self.scenario, &r, true))
            .map_err(|e| py_err(&e))
    }

    /// The window (W).
    #[getter]
    fn window(&self) -> usize {
        self.window
    }
    /// The observation's length.
    #[getter]
    fn obs_len(&self) -> usize {
        self.window * SLOT_FEATURE_NAMES.len() + GLOBAL_FEATURE_NAMES.len()
    }
    /// Whether the episode has ended.
    #[getter]
    fn ended(&self) -> bool {
        self.point.is_none()
    }
    /// Steps taken in the episode.
    #[getter]
    fn steps(&self) -> u64 {
        self.steps
    }
    /// The repetition of the episode.
    #[getter]
    fn rep(&self) -> u64 {
        self.rep
    }
    /// The scenario's repetitions.
    #[getter]
    fn repetitions(&self) -> u32 {
        self.scenario.repetitions()
    }
    /// The policy's name.
    #[getter]
    fn policy_name(&self) -> String {
        self.scenario.policies[self.policy].name.clone()
    }
    /// The scenario's name.
    #[getter]
    fn scenario_name(&self) -> String {
        self.scenario.name().to_string()
    }
    /// Job-hours spent in the system so far (minus the return so far).
    #[getter]
    fn job_hours(&self) -> f64 {
        self.last_us as f64 / US_PER_H
    }
    /// Simulated time of the pending decision (the end once ended), s.
    #[getter]
    fn clock_s(&self) -> f64 {
        let us = self
            .point
            .as_ref()
            .map_or_else(|| self.run.now(), |p| p.now);
        us as f64 / 1e6
    }
    /// The per-slot feature names.
    #[staticmethod]
    fn slot_features() -> Vec<&'static str> {
        SLOT_FEATURE_NAMES.to_vec()
    }
    /// The global feature names.
    #[staticmethod]
    fn global_features() -> Vec<&'static str> {
        GLOBAL_FEATURE_NAMES.to_vec()
    }
}
