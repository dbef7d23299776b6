//! `tenantsim._tenantsim.GymCore`: one model-mode environment of
//! `tenantsim.gym` (DESIGN §15.3), driven from `tenantsim/gym.py`. One
//! Rust call per step: the step returns the observation as a `bytearray`
//! of float32 (native byte order; numpy reads it without a copy:
//! `np.frombuffer(b, np.float32)`), the reward, whether the episode
//! ended and the scenario policy's next action. Arrays go out as
//! bytearrays because the abi3 build has no buffer API to fill a numpy
//! array in place.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyByteArray;

use crate::gym_action::ActionKind;
use crate::gym_core::{self, Core, StepError};
use crate::gym_obs;
use crate::{UsageError, py_err};

create_exception!(
    tenantsim,
    InvalidActionError,
    PyValueError,
    "An action a tenantsim.gym environment cannot take now (a tenant out of \
     range or not eligible, a model unavailable or tried); the message names \
     the action and the allowed ones. Nothing changed: the environment stays \
     usable."
);

/// The Python exception for a step that did not happen.
pub fn step_err(e: StepError) -> PyErr {
    match e {
        StepError::Invalid(m) => InvalidActionError::new_err(m),
        StepError::Engine(e) => py_err(&e),
    }
}

/// The action kind named `action`, as a Python error if unknown.
pub fn action_kind(action: &str) -> PyResult<ActionKind> {
    ActionKind::parse(action).map_err(UsageError::new_err)
}

/// What a step returns: observation, reward, terminated, the policy's
/// next action, the next mask.
type StepOut<'py> = (
    Bound<'py, PyByteArray>,
    f64,
    bool,
    (i64, i64),
    Bound<'py, PyByteArray>,
);

/// One model-mode environment (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct GymCore {
    core: Core,
    /// The observation and the mask, kept up to date by
    /// [`Core::refresh`] after every change (DESIGN §15.3).
    obs: Vec<f32>,
    mask: Vec<u8>,
}

/// A bytearray of `obs`' native bytes.
fn f32_bytes<'py>(py: Python<'py>, obs: &[f32]) -> PyResult<Bound<'py, PyByteArray>> {
    PyByteArray::new_with(py, obs.len() * 4, |bytes| {
        for (b, v) in bytes.chunks_exact_mut(4).zip(obs) {
            b.copy_from_slice(&v.to_ne_bytes());
        }
        Ok(())
    })
}

impl GymCore {
    fn refresh(&mut self) {
        self.core.refresh(&mut self.obs, &mut self.mask);
    }

    fn obs_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        f32_bytes(py, &self.obs)
    }
}

#[pymethods]
impl GymCore {
    /// An environment of the scenario file `scenario` (model mode), policy
    /// `policy` (its name; the first by default), action kind `action`
    /// (`"tenant"` or `"pair"`), at the start of repetition 0.
    #[new]
    #[pyo3(signature = (scenario, policy=None, action="tenant"))]
    fn new(
        py: Python<'_>,
        scenario: PathBuf,
        policy: Option<String>,
        action: &str,
    ) -> PyResult<Self> {
        let kind = action_kind(action)?;
        let core = py
            .detach(|| {
                let s = gym_core::load(&scenario)?;
                let p = gym_core::policy_index(&s, policy.as_deref())?;
                Core::new(s, p, kind, 0)
            })
            .map_err(|e| py_err(&e))?;
        let mut g = Self {
            obs: vec![0.0; core.obs_len()],
            mask: vec![0; core.mask_len()],
            core,
        };
        g.refresh();
        Ok(g)
    }

    /// Start repetition `rep`; its first observation.
    fn reset<'py>(&mut self, py: Python<'py>, rep: u64) -> PyResult<Bound<'py, PyByteArray>> {
        let r = self.core.reset(rep).map_err(|e| py_err(&e));
        // A failed reset may have replaced the episode: refresh either way.
        self.core.invalidate();
        self.refresh();
        r?;
        self.obs_bytes(py)
    }

    /// Take action `(tenant, model)` (`model` unused in the `tenant`
    /// kind): (observation, reward, terminated, the policy's next action,
    /// the next action mask), all from this one call. An action not
    /// allowed raises `InvalidActionError` and changes nothing.
    #[pyo3(signature = (tenant, model=0))]
    fn step<'py>(&mut self, py: Python<'py>, tenant: i64, model: i64) -> PyResult<StepOut<'py>> {
        let s = self.core.step((tenant, model));
        if !matches!(s, Err(StepError::Invalid(_))) {
            // A step, or an engine error that ended the episode.
            self.refresh();
        }
        let s = s.map_err(step_err)?;
        let obs = self.obs_bytes(py)?;
        Ok((
            obs,
            s.reward,
            s.terminated,
            self.core.policy_action(),
            self.mask(py)?,
        ))
    }

    /// The current observation.
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        self.obs_bytes(py)
    }

    /// The action mask as bytes (1 allowed): N + 1 (the `tenant` kind; the
    /// last, idle, always 1) or N × (K + 1) (the `pair` kind).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        Ok(PyByteArray::new(py, &self.mask))
    }

    /// The observation and the mask encoded whole, not incrementally (the
    /// tests compare them with `observation()` and `mask()`).
    fn _full<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
        let mut obs = vec![0.0; self.core.obs_len()];
        let mut mask = vec![0; self.core.mask_len()];
        self.core.encode(&mut obs);
        self.core.mask(&mut mask);
        Ok((f32_bytes(py, &obs)?, PyByteArray::new(py, &mask)))
    }

    /// The scenario policy's action now: (tenant or N for idle, K for the
    /// selector's model).
    fn policy_action(&self) -> (i64, i64) {
        self.core.policy_action()
    }

    /// An independent copy at this point (DESIGN §15.2).
    fn fork(&self) -> PyResult<Self> {
        let core = self.core.fork().map_err(|e| py_err(&e))?;
        let mut g = Self {
            obs: self.obs.clone(),
            mask: self.mask.clone(),
            core,
        };
        g.refresh();
        Ok(g)
    }

    /// Write the ended episode's results folder into `dir` (must not exist).
    fn write_results(&self, dir: PathBuf) -> PyResult<()> {
        self.core.write_results(&dir).map_err(|e| py_err(&e))
    }

    /// Tenants (N).
    #[getter]
    fn n_tenants(&self) -> usize {
        self.core.n()
    }
    /// Trace models (K).
    #[getter]
    fn n_models(&self) -> usize {
        self.core.k()
    }
    /// The observation's length.
    #[getter]
    fn obs_len(&self) -> usize {
        self.core.obs_len()
    }
    /// The action kind.
    #[getter]
    fn action(&self) -> &'static str {
        match self.core.kind() {
            ActionKind::Tenant => "tenant",
            ActionKind::Pair => "pair",
        }
    }
    /// The repetition of the episode.
    #[getter]
    fn rep(&self) -> u64 {
        self.core.rep()
    }
    /// Steps taken in the episode.
    #[getter]
    fn steps(&self) -> u64 {
        self.core.steps()
    }
    /// The cumulative regret R so far (accuracy·seconds).
    #[getter]
    fn regret(&self) -> f64 {
        self.core.regret()
    }
    /// Whether the episode has ended.
    #[getter]
    fn ended(&self) -> bool {
        self.core.ended()
    }
    /// Simulated time of the pending decision (the end once ended), s.
    #[getter]
    fn clock_s(&self) -> f64 {
        let us = self
            .core
            .point()
            .map_or_else(|| self.core.episode().run().now(), |p| p.now);
        us as f64 / 1e6
    }
    /// The scenario's name.
    #[getter]
    fn scenario_name(&self) -> String {
        self.core.scenario().name().to_string()
    }
    /// The policy's name.
    #[getter]
    fn policy_name(&self) -> String {
        self.core.scenario().policies[self.core.policy()]
            .name
            .clone()
    }
    /// The scenario's repetitions.
    #[getter]
    fn repetitions(&self) -> u32 {
        self.core.scenario().repetitions()
    }
    /// The trace models' names, by index.
    #[getter]
    fn model_names(&self) -> Vec<String> {
        self.core.episode().run().trace().models().to_vec()
    }
    /// The tenants' trace user names, by tenant index.
    #[getter]
    fn tenant_names(&self) -> Vec<String> {
        let run = self.core.episode().run();
        let trace = run.trace();
        run.tenants()
            .users()
            .iter()
            .map(|u| trace.user_id(u).into_owned())
            .collect()
    }
    /// The per-tenant feature names (DESIGN §15.3).
    #[staticmethod]
    fn tenant_features() -> Vec<&'static str> {
        gym_obs::TENANT_FEATURE_NAMES.to_vec()
    }
    /// The global feature names (DESIGN §15.3).
    #[staticmethod]
    fn global_features() -> Vec<&'static str> {
        gym_obs::GLOBAL_FEATURE_NAMES.to_vec()
    }
}
