//! `tenantsim._tenantsim.SharedGymCore`: one shared-scenario environment
//! of `tenantsim.gym` (DESIGN §15.6, "The shared environment"), driven
//! from `tenantsim/gym.py`; its rules are `gym_shared_core.rs`'s
//! [`SharedCore`] (the job-mode window's actions and observation, with
//! each slot's owner).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use tenantsim::jobs::sim::JobChoice;

use crate::gym::InvalidActionError;
use crate::gym_jobs::{PyChoice, bytes_of, choice_to_py, parse_choice};
use crate::gym_jobs_core::{
    GLOBAL_FEATURE_NAMES, JobActionKind, OWNER_FEATURE_NAMES, RUNNING_FEATURE_NAMES,
    SLOT_FEATURE_NAMES,
};
use crate::gym_shared_core::{SharedCore, SharedReward, load};
use crate::{UsageError, py_err};

/// One shared-scenario environment (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct SharedGymCore {
    core: SharedCore,
}

impl SharedGymCore {
    fn take(&mut self, choice: JobChoice) -> PyResult<(f64, bool)> {
        let s = self
            .core
            .take(choice)
            .map_err(|e| InvalidActionError::new_err(e.to_string()))?;
        Ok((s.reward, s.terminated))
    }

    fn ended_err(&self) -> Option<PyErr> {
        self.core
            .ended()
            .then(|| UsageError::new_err("the episode has ended (terminated): call reset() first"))
    }
}

#[pymethods]
impl SharedGymCore {
    /// An environment of the shared scenario file `scenario` (its sweep
    /// point `point`), policy `policy` (its name; the first by default),
    /// window `window` (W ≥ 1), action kind `action`, reward `reward`
    /// (`"regret"`, paid per step, or `"sojourn"`; by default `regret`
    /// with a service, DESIGN §15.7), at
    /// the start of repetition 0.
    #[new]
    #[pyo3(signature = (scenario, policy=None, window=16, action="start", reward=None, point=None))]
    fn new(
        scenario: PathBuf,
        policy: Option<String>,
        window: usize,
        action: &str,
        reward: Option<String>,
        point: Option<usize>,
    ) -> PyResult<Self> {
        let kind = JobActionKind::parse(action).map_err(UsageError::new_err)?;
        if window == 0 {
            return Err(UsageError::new_err("window = 0: expected at least 1 slot"));
        }
        let (sc, name) = load(&scenario, point, policy.as_deref()).map_err(|e| py_err(&e))?;
        let reward = SharedReward::parse(reward.as_deref(), sc.service.is_some())
            .map_err(UsageError::new_err)?;
        let core =
            SharedCore::new(Arc::new(sc), name, window, kind, reward, 0).map_err(|e| py_err(&e))?;
        Ok(Self { core })
    }

    /// Start repetition `rep` afresh.
    fn reset(&mut self, rep: u64) -> PyResult<()> {
        self.core.reset(rep).map_err(|e| py_err(&e))
    }

    /// Take window action `a`: (reward, terminated). An action not
    /// allowed raises `InvalidActionError` and changes nothing.
    fn step(&mut self, a: i64) -> PyResult<(f64, bool)> {
        if let Some(e) = self.ended_err() {
            return Err(e);
        }
        let c = self.core.check(a).map_err(InvalidActionError::new_err)?;
        self.take(c)
    }

    /// Take a raw choice (see `JobGymCore.step_choice`).
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
        let c = parse_choice(kind, job, gpu_type)?;
        self.take(c)
    }

    /// The observation as float32 bytes (native order).
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        let mut obs = vec![0f32; self.core.rules().obs_len()];
        self.core.encode(&mut obs);
        bytes_of(py, &obs, f32::to_ne_bytes)
    }

    /// The action mask (one byte per action, 1 allowed).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        let mut m = vec![0u8; self.core.rules().n_actions()];
        self.core.mask(&mut m);
        bytes_of(py, &m, |v: u8| [v])
    }

    /// The scheduler's next action as a window action, or −1.
    fn policy_action(&self) -> i64 {
        self.core.policy_action()
    }

    /// The scheduler's next action raw, or None.
    fn policy_choice(&self) -> Option<PyChoice> {
        self.core.point()?.policy_choice.map(choice_to_py)
    }

    /// Whose job `j` is: "background", "service" or "workflow".
    fn owner(&self, j: u32) -> &'static str {
        OWNER_FEATURE_NAMES[self.core.owner(j)]
    }

    /// The jobs waiting now, in job order (the window holds the first W).
    fn waiting(&self) -> Vec<u32> {
        self.core.point().map(|p| p.waiting).unwrap_or_default()
    }

    /// An independent copy at this point (DESIGN §15.6).
    fn fork(&self) -> PyResult<Self> {
        Ok(Self {
            core: self.core.fork().map_err(|e| py_err(&e))?,
        })
    }

    /// Write the ended episode's results folder into `dir` (must not
    /// exist).
    fn write_results(&self, dir: PathBuf) -> PyResult<()> {
        self.core.write_results(&dir).map_err(|e| py_err(&e))
    }

    /// The window (W).
    #[getter]
    fn window(&self) -> usize {
        self.core.rules().window
    }
    /// The action kind.
    #[getter]
    fn action(&self) -> &'static str {
        self.core.rules().kind.name()
    }
    /// The reward ("regret" or "sojourn").
    #[getter]
    fn reward(&self) -> &'static str {
        self.core.reward_kind().name()
    }
    /// The number of actions.
    #[getter]
    fn n_actions(&self) -> usize {
        self.core.rules().n_actions()
    }
    /// The observation's length.
    #[getter]
    fn obs_len(&self) -> usize {
        self.core.rules().obs_len()
    }
    /// Whether the episode has ended.
    #[getter]
    fn ended(&self) -> bool {
        self.core.ended()
    }
    /// Steps taken in the episode.
    #[getter]
    fn steps(&self) -> u64 {
        self.core.steps()
    }
    /// The repetition of the episode.
    #[getter]
    fn rep(&self) -> u64 {
        self.core.rep()
    }
    /// The policy's name.
    #[getter]
    fn policy_name(&self) -> String {
        self.core.policy_name().to_string()
    }
    /// The scenario's name.
    #[getter]
    fn scenario_name(&self) -> String {
        self.core.scenario().name().to_string()
    }
    /// Whether the scenario has a service.
    #[getter]
    fn has_service(&self) -> bool {
        self.core.scenario().service.is_some()
    }
    /// Job-hours spent in the system so far.
    #[getter]
    fn job_hours(&self) -> f64 {
        self.core.job_hours()
    }
    /// The service's cumulative regret once the episode has ended (None
    /// before, or without a service).
    #[getter]
    fn regret(&self) -> Option<f64> {
        self.core.scenario().service.as_ref()?;
        self.core.regret()
    }
    /// Simulated time of the pending decision (the end once ended), s.
    #[getter]
    fn clock_s(&self) -> f64 {
        self.core.now() as f64 / 1e6
    }
    /// The waiting slots' feature names.
    #[staticmethod]
    fn slot_features() -> Vec<&'static str> {
        SLOT_FEATURE_NAMES
            .iter()
            .chain(OWNER_FEATURE_NAMES.iter())
            .copied()
            .collect()
    }
    /// The running slots' feature names (`start-or-preempt`).
    #[staticmethod]
    fn running_features() -> Vec<&'static str> {
        RUNNING_FEATURE_NAMES
            .iter()
            .chain(OWNER_FEATURE_NAMES.iter())
            .copied()
            .collect()
    }
    /// The global feature names.
    #[staticmethod]
    fn global_features() -> Vec<&'static str> {
        GLOBAL_FEATURE_NAMES.to_vec()
    }
}
