//! `tenantsim._tenantsim.JobGymVecCore`: K independent job-mode
//! environments ([`JobCore`], DESIGN §15.5) stepped by one Rust call,
//! behind `tenantsim.gym.make_vec` on a job-mode scenario. The contract is
//! the model-mode vector environment's (`gym_vec.rs`, DESIGN §15.3): the
//! actions come in as the bytes of an int64 array, the results go out as
//! bytearrays that numpy reads without a copy; auto-reset is gymnasium's
//! next-step mode (the call after a sub-environment's episode ended starts
//! its next repetition, its action ignored, reward 0, not terminated);
//! sub-environment `k` started at repetition `r` plays `r`, `r + K`,
//! `r + 2K`, … Every action is checked before any sub-environment steps,
//! so an invalid one (`InvalidActionError`, naming the sub-environment)
//! changes nothing. The sub-environments are stepped one after the other
//! on the calling thread.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use tenantsim::jobs::sim::JobChoice;

use crate::gym::InvalidActionError;
use crate::gym_jobs::bytes_of;
use crate::gym_jobs_core::{JobActionKind, JobCore, load, policy_index};
use crate::gym_window::WindowEnv;
use crate::gym_window_py::window_vec_pymethods;
use crate::{UsageError, py_err};

/// What a call returns: observations, rewards, terminated, policy
/// actions, masks (bytearrays).
pub type Out<'py> = (
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
);

/// K window environments and their output buffers (see the module's
/// doc): what `JobGymVecCore` and `SharedGymVecCore` hold.
pub struct VecCore<C: WindowEnv> {
    envs: Vec<C>,
    /// Sub-environments whose episode ended at the last call: the next
    /// call resets them.
    to_reset: Vec<bool>,
    /// Outputs, reused by every call.
    obs: Vec<f32>,
    rewards: Vec<f64>,
    terminated: Vec<u8>,
    policy: Vec<i64>,
    mask: Vec<u8>,
}

impl<C: WindowEnv> VecCore<C> {
    /// The vector of `envs` (at least one, all of one scenario and
    /// window rules).
    pub fn new(envs: Vec<C>) -> Self {
        let n = envs.len();
        let r = envs[0].rules();
        let (d, m) = (r.obs_len(), r.n_actions());
        let mut v = Self {
            to_reset: vec![false; n],
            obs: vec![0.0; n * d],
            rewards: vec![0.0; n],
            terminated: vec![0; n],
            policy: vec![0; n],
            mask: vec![0; n * m],
            envs,
        };
        for k in 0..n {
            v.fill(k);
        }
        v
    }

    /// The sub-environments.
    pub fn envs(&self) -> &[C] {
        &self.envs
    }

    /// Sub-environment `k`'s observation, policy action and mask into the
    /// buffers.
    fn fill(&mut self, k: usize) {
        let e = &self.envs[k];
        let r = e.rules();
        let (d, m) = (r.obs_len(), r.n_actions());
        e.encode(&mut self.obs[k * d..(k + 1) * d]);
        e.mask(&mut self.mask[k * m..(k + 1) * m]);
        self.policy[k] = e.policy_action();
    }

    /// The buffers as bytearrays.
    pub fn out<'py>(&self, py: Python<'py>) -> PyResult<Out<'py>> {
        Ok((
            bytes_of(py, &self.obs, f32::to_ne_bytes)?,
            bytes_of(py, &self.rewards, f64::to_ne_bytes)?,
            bytes_of(py, &self.terminated, |v: u8| [v])?,
            bytes_of(py, &self.policy, i64::to_ne_bytes)?,
            bytes_of(py, &self.mask, |v: u8| [v])?,
        ))
    }

    /// Start sub-environment k at repetition `reps[k]`: (observations,
    /// rewards, terminated, policy actions, masks), rewards 0.
    pub fn reset<'py>(&mut self, py: Python<'py>, reps: Vec<u64>) -> PyResult<Out<'py>> {
        if reps.len() != self.envs.len() {
            return Err(UsageError::new_err(format!(
                "reset: expected {} repetitions (one per environment), got {}",
                self.envs.len(),
                reps.len()
            )));
        }
        for (k, &rep) in reps.iter().enumerate() {
            self.envs[k].reset(rep).map_err(|e| py_err(&e))?;
            self.to_reset[k] = false;
            self.rewards[k] = 0.0;
            self.terminated[k] = 0;
            self.fill(k);
        }
        self.out(py)
    }

    /// Step every sub-environment: `actions` is the bytes of an int64
    /// array of K actions (each as the single environment's `step` takes).
    pub fn step<'py>(&mut self, py: Python<'py>, actions: &[u8]) -> PyResult<Out<'py>> {
        let k_envs = self.envs.len();
        if actions.len() != k_envs * 8 {
            return Err(UsageError::new_err(format!(
                "actions: expected {k_envs} int64 values (one per environment), got {} bytes",
                actions.len()
            )));
        }
        // Check every action first: an invalid one changes nothing.
        let mut choices: Vec<Option<JobChoice>> = Vec::with_capacity(k_envs);
        for (k, b) in actions.chunks_exact(8).enumerate() {
            if self.to_reset[k] {
                choices.push(None);
                continue;
            }
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            let c = self.envs[k]
                .check(i64::from_ne_bytes(a))
                .map_err(|m| InvalidActionError::new_err(format!("environment {k}: {m}")))?;
            choices.push(Some(c));
        }
        let stride = k_envs as u64;
        for (k, choice) in choices.into_iter().enumerate() {
            match choice {
                None => {
                    let rep = self.envs[k].rep() + stride;
                    self.envs[k].reset(rep).map_err(|e| py_err(&e))?;
                    self.to_reset[k] = false;
                    self.rewards[k] = 0.0;
                    self.terminated[k] = 0;
                }
                Some(c) => {
                    // Checked above: an error here is the engine's own.
                    let (reward, terminated) = self.envs[k].take(c).map_err(|e| py_err(&e))?;
                    self.rewards[k] = reward;
                    self.terminated[k] = u8::from(terminated);
                    self.to_reset[k] = terminated;
                }
            }
            self.fill(k);
        }
        self.out(py)
    }

    /// Each sub-environment's repetition.
    pub fn reps(&self) -> Vec<u64> {
        self.envs.iter().map(WindowEnv::rep).collect()
    }

    /// Each sub-environment's job-hours in the system so far.
    pub fn job_hours(&self) -> Vec<f64> {
        self.envs.iter().map(WindowEnv::job_hours).collect()
    }
}

/// K job-mode environments (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct JobGymVecCore {
    inner: VecCore<JobCore>,
}

window_vec_pymethods!(JobGymVecCore {
    /// `num_envs` environments of the job-mode scenario file `scenario`,
    /// policy `policy`, window `window`, action kind `action`;
    /// sub-environment k at the start of repetition k.
    #[new]
    #[pyo3(signature = (scenario, num_envs, policy=None, window=16, action="start"))]
    fn new(
        scenario: PathBuf,
        num_envs: usize,
        policy: Option<String>,
        window: usize,
        action: &str,
    ) -> PyResult<Self> {
        if num_envs == 0 {
            return Err(UsageError::new_err(
                "num_envs: expected at least 1 environment, got 0",
            ));
        }
        let kind = JobActionKind::parse(action).map_err(UsageError::new_err)?;
        let envs = load(&scenario)
            .and_then(|s| {
                let p = policy_index(&s, policy.as_deref())?;
                let s = Arc::new(s);
                (0..num_envs)
                    .map(|k| JobCore::new(Arc::clone(&s), p, window, kind, k as u64))
                    .collect::<tenantsim::Result<Vec<_>>>()
            })
            .map_err(|e| py_err(&e))?;
        Ok(Self {
            inner: VecCore::new(envs),
        })
    }
});
