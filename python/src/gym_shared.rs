//! `tenantsim._tenantsim.SharedGymCore`: one shared-scenario environment
//! of `tenantsim.gym` (DESIGN §15.6, "The shared environment"), driven
//! from `tenantsim/gym.py`; its rules are `gym_shared_core.rs`'s
//! [`SharedCore`] (the job-mode window's actions and observation, with
//! each slot's owner). The methods it shares with the job-mode
//! environment are `gym_window_py.rs`'s ([`window_pymethods`]).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;

use crate::gym_jobs_core::{
    GLOBAL_FEATURE_NAMES, JobActionKind, OWNER_FEATURE_NAMES, RUNNING_FEATURE_NAMES,
    SLOT_FEATURE_NAMES,
};
use crate::gym_shared_core::{SharedCore, SharedReward, load};
use crate::gym_window_py::window_pymethods;
use crate::{UsageError, py_err};

/// One shared-scenario environment (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct SharedGymCore {
    core: SharedCore,
}

window_pymethods!(SharedGymCore {
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

    /// Whose job `j` is: "background", "service" or "workflow".
    fn owner(&self, j: u32) -> &'static str {
        OWNER_FEATURE_NAMES[self.core.owner(j)]
    }
    /// The reward ("regret" or "sojourn").
    #[getter]
    fn reward(&self) -> &'static str {
        self.core.reward_kind().name()
    }
    /// Whether the scenario has a service.
    #[getter]
    fn has_service(&self) -> bool {
        self.core.scenario().service.is_some()
    }
    /// The service's cumulative regret once the episode has ended (None
    /// before, or without a service).
    #[getter]
    fn regret(&self) -> Option<f64> {
        self.core.scenario().service.as_ref()?;
        self.core.regret()
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
});
