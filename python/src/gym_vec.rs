//! `tenantsim._tenantsim.GymVecCore`: K independent model-mode
//! environments stepped by one Rust call (DESIGN §15.3), behind
//! `tenantsim.gym.make_vec`. The actions come in as the bytes of an int64
//! array, the results go out as bytearrays that numpy reads without a
//! copy (the abi3 build has no buffer API). Auto-reset is gymnasium's
//! next-step mode: the call after a sub-environment's episode ended
//! starts its next repetition (its action ignored, reward 0, not
//! terminated); sub-environment `k` started at repetition `r` plays
//! repetitions `r`, `r + K`, `r + 2K`, …
//!
//! Every action is checked before any sub-environment steps, so an
//! invalid one (`InvalidActionError`, naming the sub-environment) changes
//! nothing.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyByteArray;

use crate::gym::{InvalidActionError, action_kind, step_err};
use crate::gym_action::{Action, ActionKind};
use crate::gym_core::{self, Core, StepError};
use crate::gym_vec_step::{self, Slot};
use crate::{UsageError, py_err};

/// K environments (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct GymVecCore {
    envs: Vec<Core>,
    /// Threads stepping them.
    threads: usize,
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

/// A bytearray of `values`' native bytes.
fn bytes_of<'py, T: Copy, const W: usize>(
    py: Python<'py>,
    values: &[T],
    to_bytes: impl Fn(T) -> [u8; W],
) -> PyResult<Bound<'py, PyByteArray>> {
    PyByteArray::new_with(py, values.len() * W, |bytes| {
        for (b, &v) in bytes.chunks_exact_mut(W).zip(values) {
            b.copy_from_slice(&to_bytes(v));
        }
        Ok(())
    })
}

/// What a call returns: observations, rewards, terminated, policy
/// actions, masks (bytearrays).
type Out<'py> = (
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
);

impl GymVecCore {
    /// The per-environment outputs of the current state (observation,
    /// policy action, mask) into the buffers.
    fn fill(&mut self, k: usize) {
        let e = &self.envs[k];
        let (d, m, w) = (e.obs_len(), e.mask_len(), self.width());
        gym_vec_step::fill(
            e,
            &mut self.obs[k * d..(k + 1) * d],
            &mut self.mask[k * m..(k + 1) * m],
            &mut self.policy[k * w..(k + 1) * w],
        );
    }

    fn out<'py>(&self, py: Python<'py>) -> PyResult<Out<'py>> {
        Ok((
            bytes_of(py, &self.obs, f32::to_ne_bytes)?,
            bytes_of(py, &self.rewards, f64::to_ne_bytes)?,
            bytes_of(py, &self.terminated, |v: u8| [v])?,
            bytes_of(py, &self.policy, i64::to_ne_bytes)?,
            bytes_of(py, &self.mask, |v: u8| [v])?,
        ))
    }

    fn width(&self) -> usize {
        match self.envs[0].kind() {
            ActionKind::Tenant => 1,
            ActionKind::Pair => 2,
        }
    }
}

#[pymethods]
impl GymVecCore {
    /// `num_envs` environments of the scenario file `scenario` (model
    /// mode), policy `policy`, action kind `action`, stepped on `threads`
    /// threads; sub-environment k at the start of repetition k.
    #[new]
    #[pyo3(signature = (scenario, num_envs, policy=None, action="tenant", threads=1))]
    fn new(
        py: Python<'_>,
        scenario: PathBuf,
        num_envs: usize,
        policy: Option<String>,
        action: &str,
        threads: usize,
    ) -> PyResult<Self> {
        let threads = gym_vec_step::check_threads(threads).map_err(|e| py_err(&e))?;
        if num_envs == 0 {
            return Err(UsageError::new_err(
                "num_envs: expected at least 1 environment, got 0",
            ));
        }
        let kind = action_kind(action)?;
        let envs = py
            .detach(|| {
                let s = gym_core::load(&scenario)?;
                let p = gym_core::policy_index(&s, policy.as_deref())?;
                (0..num_envs)
                    .map(|k| Core::new(std::sync::Arc::clone(&s), p, kind, k as u64))
                    .collect::<tenantsim::Result<Vec<_>>>()
            })
            .map_err(|e| py_err(&e))?;
        let (d, m) = (envs[0].obs_len(), envs[0].mask_len());
        let w = if kind == ActionKind::Pair { 2 } else { 1 };
        let mut v = Self {
            threads,
            to_reset: vec![false; num_envs],
            obs: vec![0.0; num_envs * d],
            rewards: vec![0.0; num_envs],
            terminated: vec![0; num_envs],
            policy: vec![0; num_envs * w],
            mask: vec![0; num_envs * m],
            envs,
        };
        for k in 0..num_envs {
            v.fill(k);
        }
        Ok(v)
    }

    /// Start sub-environment k at repetition `reps[k]`: (observations,
    /// rewards, terminated, policy actions, masks), rewards 0.
    fn reset<'py>(&mut self, py: Python<'py>, reps: Vec<u64>) -> PyResult<Out<'py>> {
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
    /// array of K (the `tenant` kind) or K × 2 (`pair`) actions.
    fn step<'py>(&mut self, py: Python<'py>, actions: &[u8]) -> PyResult<Out<'py>> {
        let k_envs = self.envs.len();
        let w = self.width();
        if actions.len() != k_envs * w * 8 {
            return Err(UsageError::new_err(format!(
                "actions: expected {} int64 values ({k_envs} environments × {w}), got {} bytes",
                k_envs * w,
                actions.len()
            )));
        }
        let read = |j: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&actions[j * 8..j * 8 + 8]);
            i64::from_ne_bytes(b)
        };
        let action = |k: usize| -> Action {
            if w == 2 {
                (read(2 * k), read(2 * k + 1))
            } else {
                (read(k), 0)
            }
        };
        // Check every action first: an invalid one changes nothing.
        let mut choices = Vec::with_capacity(k_envs);
        for k in 0..k_envs {
            if self.to_reset[k] {
                choices.push(None);
                continue;
            }
            match self.envs[k].check(action(k)) {
                Ok(c) => choices.push(Some(c)),
                Err(StepError::Invalid(m)) => {
                    return Err(InvalidActionError::new_err(format!("environment {k}: {m}")));
                }
                Err(e) => return Err(step_err(e)),
            }
        }
        let (d, m) = (self.envs[0].obs_len(), self.envs[0].mask_len());
        let mut slots: Vec<Slot<'_>> = self
            .envs
            .iter_mut()
            .zip(self.to_reset.iter_mut())
            .zip(choices)
            .zip(self.obs.chunks_exact_mut(d))
            .zip(self.mask.chunks_exact_mut(m))
            .zip(self.policy.chunks_exact_mut(w))
            .zip(self.rewards.iter_mut().zip(self.terminated.iter_mut()))
            .map(
                |((((((env, to_reset), choice), obs), mask), policy), (reward, terminated))| Slot {
                    env,
                    to_reset,
                    choice,
                    obs,
                    mask,
                    policy,
                    reward,
                    terminated,
                },
            )
            .collect();
        let threads = self.threads;
        py.detach(|| gym_vec_step::step_all(&mut slots, k_envs as u64, threads))
            .map_err(step_err)?;
        self.out(py)
    }

    /// Environments (K).
    #[getter]
    fn num_envs(&self) -> usize {
        self.envs.len()
    }
    /// Tenants (N).
    #[getter]
    fn n_tenants(&self) -> usize {
        self.envs[0].n()
    }
    /// Trace models.
    #[getter]
    fn n_models(&self) -> usize {
        self.envs[0].k()
    }
    /// One observation's length.
    #[getter]
    fn obs_len(&self) -> usize {
        self.envs[0].obs_len()
    }
    /// Each sub-environment's repetition.
    #[getter]
    fn reps(&self) -> Vec<u64> {
        self.envs.iter().map(Core::rep).collect()
    }
    /// Each sub-environment's cumulative regret so far.
    #[getter]
    fn regrets(&self) -> Vec<f64> {
        self.envs.iter().map(Core::regret).collect()
    }
}
