//! `tenantsim._tenantsim.SharedGymVecCore`: K independent shared-scenario
//! environments ([`SharedCore`], DESIGN §15.7) stepped by one Rust call,
//! behind `tenantsim.gym.make_vec` on a shared scenario: the job-mode
//! vector environment's contract and code ([`VecCore`]: actions as int64
//! bytes, outputs as bytearrays, next-step auto-reset, sub-environment k
//! playing `r + k`, `r + k + K`, …; every action checked before any
//! sub-environment steps), stepped one after the other on the calling
//! thread.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use tenantsim::jobs::sim::JobChoice;

use crate::gym_jobs_core::{JobActionKind, Window};
use crate::gym_jobs_vec::{Out, VecCore, WindowEnv};
use crate::gym_shared_core::{SharedCore, SharedReward, load};
use crate::{UsageError, py_err};

impl WindowEnv for SharedCore {
    fn reset(&mut self, rep: u64) -> tenantsim::Result<()> {
        SharedCore::reset(self, rep)
    }
    fn rules(&self) -> Window {
        SharedCore::rules(self)
    }
    fn check(&self, a: i64) -> std::result::Result<JobChoice, String> {
        SharedCore::check(self, a)
    }
    fn take(&mut self, c: JobChoice) -> tenantsim::Result<(f64, bool)> {
        SharedCore::take(self, c).map(|s| (s.reward, s.terminated))
    }
    fn encode(&self, obs: &mut [f32]) {
        SharedCore::encode(self, obs);
    }
    fn mask(&self, mask: &mut [u8]) {
        SharedCore::mask(self, mask);
    }
    fn policy_action(&self) -> i64 {
        SharedCore::policy_action(self)
    }
    fn rep(&self) -> u64 {
        SharedCore::rep(self)
    }
    fn job_hours(&self) -> f64 {
        SharedCore::job_hours(self)
    }
}

/// K shared-scenario environments (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct SharedGymVecCore {
    inner: VecCore<SharedCore>,
}

#[pymethods]
impl SharedGymVecCore {
    /// `num_envs` environments of the shared scenario file `scenario` (as
    /// `SharedGymCore`'s options); sub-environment k at the start of
    /// repetition k.
    #[new]
    #[pyo3(signature = (scenario, num_envs, policy=None, window=16, action="start", reward=None, point=None))]
    fn new(
        scenario: PathBuf,
        num_envs: usize,
        policy: Option<String>,
        window: usize,
        action: &str,
        reward: Option<String>,
        point: Option<usize>,
    ) -> PyResult<Self> {
        if num_envs == 0 {
            return Err(UsageError::new_err(
                "num_envs: expected at least 1 environment, got 0",
            ));
        }
        let kind = JobActionKind::parse(action).map_err(UsageError::new_err)?;
        if window == 0 {
            return Err(UsageError::new_err("window = 0: expected at least 1 slot"));
        }
        let (sc, name) = load(&scenario, point, policy.as_deref()).map_err(|e| py_err(&e))?;
        let reward = SharedReward::parse(reward.as_deref(), sc.service.is_some())
            .map_err(UsageError::new_err)?;
        let sc = Arc::new(sc);
        let envs = (0..num_envs)
            .map(|k| {
                SharedCore::new(
                    Arc::clone(&sc),
                    name.clone(),
                    window,
                    kind,
                    reward,
                    k as u64,
                )
            })
            .collect::<tenantsim::Result<Vec<_>>>()
            .map_err(|e| py_err(&e))?;
        Ok(Self {
            inner: VecCore::new(envs),
        })
    }

    /// Start sub-environment k at repetition `reps[k]`.
    fn reset<'py>(&mut self, py: Python<'py>, reps: Vec<u64>) -> PyResult<Out<'py>> {
        self.inner.reset(py, reps)
    }

    /// Step every sub-environment (the bytes of an int64 array of K
    /// actions).
    fn step<'py>(&mut self, py: Python<'py>, actions: &[u8]) -> PyResult<Out<'py>> {
        self.inner.step(py, actions)
    }

    /// Environments (K).
    #[getter]
    fn num_envs(&self) -> usize {
        self.inner.envs().len()
    }
    /// The window (W).
    #[getter]
    fn window(&self) -> usize {
        self.inner.envs()[0].rules().window
    }
    /// The action kind.
    #[getter]
    fn action(&self) -> &'static str {
        self.inner.envs()[0].rules().kind.name()
    }
    /// The reward ("regret" or "sojourn").
    #[getter]
    fn reward(&self) -> &'static str {
        self.inner.envs()[0].reward_kind().name()
    }
    /// Actions per sub-environment.
    #[getter]
    fn n_actions(&self) -> usize {
        self.inner.envs()[0].rules().n_actions()
    }
    /// One observation's length.
    #[getter]
    fn obs_len(&self) -> usize {
        self.inner.envs()[0].rules().obs_len()
    }
    /// Each sub-environment's repetition.
    #[getter]
    fn reps(&self) -> Vec<u64> {
        self.inner.reps()
    }
    /// Each sub-environment's job-hours in the system so far (reward
    /// `sojourn`).
    #[getter]
    fn job_hours(&self) -> Vec<f64> {
        self.inner.job_hours()
    }
}
