//! `tenantsim._tenantsim.GymVecCore`: K independent model-mode
//! environments stepped by one Rust call (DESIGN §15.3), behind
//! `tenantsim.gym.make_vec`. The actions come in as the bytes of an int64
//! array; the results are written into five bytearrays allocated once
//! (`buffers()`), which numpy views without a copy (the abi3 build has no
//! buffer API, but a bytearray's bytes are in the limited API). A call
//! rewrites only what changed in them (DESIGN §15.3) and allocates no
//! output. Auto-reset is gymnasium's next-step mode: the call after a
//! sub-environment's episode ended starts its next repetition (its action
//! ignored, reward 0, not terminated); sub-environment `k` started at
//! repetition `r` plays repetitions `r`, `r + K`, `r + 2K`, …
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
    /// The threads stepping them (`None`: the calling thread alone).
    pool: Option<rayon::ThreadPool>,
    /// Sub-environments whose episode ended at the last call: the next
    /// call resets them.
    to_reset: Vec<bool>,
    /// The outputs (observations, rewards, terminated, policy actions,
    /// masks), allocated once and never resized (numpy views them).
    bufs: [Py<PyByteArray>; 5],
}

/// The outputs of every sub-environment, as slices of the five buffers.
struct Outs<'a> {
    obs: &'a mut [f32],
    rewards: &'a mut [f64],
    terminated: &'a mut [u8],
    policy: &'a mut [i64],
    mask: &'a mut [u8],
}

/// Plain number types a buffer holds: every bit pattern is a valid value.
trait Plain: Copy {}
impl Plain for f32 {}
impl Plain for f64 {}
impl Plain for i64 {}

/// The bytes `b` as `T`s; an error if they are not aligned for `T` (they
/// are: CPython allocates a bytearray's bytes 16-byte aligned).
fn typed<T: Plain>(b: &mut [u8]) -> PyResult<&mut [T]> {
    // SAFETY: every bit pattern is a valid `T` (`Plain`), and
    // `align_to_mut` puts only whole, aligned values in the middle.
    let (pre, mid, post) = unsafe { b.align_to_mut::<T>() };
    if !pre.is_empty() || !post.is_empty() {
        return Err(UsageError::new_err(
            "internal: a vector environment's buffer is not aligned for its numbers",
        ));
    }
    Ok(mid)
}

impl GymVecCore {
    /// The five buffers as slices to write into. Nothing else may touch
    /// their bytes while the slices live: the GIL is released while the
    /// sub-environments step, so another Python thread must not read the
    /// arrays during a `step` (DESIGN §15.3).
    fn outs<'a>(py: Python<'a>, bufs: &'a [Py<PyByteArray>; 5]) -> PyResult<Outs<'a>> {
        // SAFETY: the bytearrays are never resized (nothing here resizes
        // them, and numpy's views forbid it), and these slices are the
        // only references to their bytes while a call runs (see above).
        let bytes = |i: usize| unsafe { bufs[i].bind(py).as_bytes_mut() };
        Ok(Outs {
            obs: typed(bytes(0))?,
            rewards: typed(bytes(1))?,
            terminated: bytes(2),
            policy: typed(bytes(3))?,
            mask: bytes(4),
        })
    }

    fn width(&self) -> usize {
        match self.envs[0].kind() {
            ActionKind::Tenant => 1,
            ActionKind::Pair => 2,
        }
    }

    /// Sub-environment `k`'s observation, mask and policy action into the
    /// buffers `o`.
    fn fill(&mut self, o: &mut Outs<'_>, k: usize) {
        let (d, m, w) = (
            self.envs[0].obs_len(),
            self.envs[0].mask_len(),
            self.width(),
        );
        gym_vec_step::fill(
            &mut self.envs[k],
            &mut o.obs[k * d..(k + 1) * d],
            &mut o.mask[k * m..(k + 1) * m],
            &mut o.policy[k * w..(k + 1) * w],
        );
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
        let zeros = |len: usize| PyByteArray::new(py, &vec![0u8; len]).unbind();
        let pool = gym_vec_step::pool(threads).map_err(|e| py_err(&e))?;
        let mut v = Self {
            pool,
            to_reset: vec![false; num_envs],
            bufs: [
                zeros(num_envs * d * 4),
                zeros(num_envs * 8),
                zeros(num_envs),
                zeros(num_envs * w * 8),
                zeros(num_envs * m),
            ],
            envs,
        };
        let bufs: [Py<PyByteArray>; 5] = std::array::from_fn(|i| v.bufs[i].clone_ref(py));
        let mut o = Self::outs(py, &bufs)?;
        for k in 0..num_envs {
            v.fill(&mut o, k);
        }
        Ok(v)
    }

    /// The five output buffers, the same objects at every call:
    /// observations (float32, K × obs_len), rewards (float64, K),
    /// terminated (bool, K), policy actions (int64, K or K × 2), masks
    /// (uint8, K rows). `reset` and `step` rewrite them.
    fn buffers<'py>(&self, py: Python<'py>) -> [Bound<'py, PyByteArray>; 5] {
        std::array::from_fn(|i| self.bufs[i].bind(py).clone())
    }

    /// Start sub-environment k at repetition `reps[k]`, its outputs
    /// written into the buffers (rewards 0).
    fn reset(&mut self, py: Python<'_>, reps: Vec<u64>) -> PyResult<()> {
        if reps.len() != self.envs.len() {
            return Err(UsageError::new_err(format!(
                "reset: expected {} repetitions (one per environment), got {}",
                self.envs.len(),
                reps.len()
            )));
        }
        let bufs: [Py<PyByteArray>; 5] = std::array::from_fn(|i| self.bufs[i].clone_ref(py));
        let mut o = Self::outs(py, &bufs)?;
        for (k, &rep) in reps.iter().enumerate() {
            let r = self.envs[k].reset(rep).map_err(|e| py_err(&e));
            self.to_reset[k] = false;
            o.rewards[k] = 0.0;
            o.terminated[k] = 0;
            // A failed reset may have replaced the episode: refresh all.
            self.envs[k].invalidate();
            self.fill(&mut o, k);
            r?;
        }
        Ok(())
    }

    /// Step every sub-environment: `actions` is the bytes of an int64
    /// array of K (the `tenant` kind) or K × 2 (`pair`) actions; the
    /// outputs are written into the buffers.
    fn step(&mut self, py: Python<'_>, actions: &[u8]) -> PyResult<()> {
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
        let o = Self::outs(py, &self.bufs)?;
        let mut slots: Vec<Slot<'_>> = self
            .envs
            .iter_mut()
            .zip(self.to_reset.iter_mut())
            .zip(choices)
            .zip(o.obs.chunks_exact_mut(d))
            .zip(o.mask.chunks_exact_mut(m))
            .zip(o.policy.chunks_exact_mut(w))
            .zip(o.rewards.iter_mut().zip(o.terminated.iter_mut()))
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
        let pool = self.pool.as_ref();
        py.detach(|| gym_vec_step::step_all(&mut slots, k_envs as u64, pool))
            .map_err(step_err)
    }

    /// Every sub-environment's observation and mask encoded whole, not
    /// incrementally: (observations, masks) as bytes laid out as the
    /// buffers (the tests compare them).
    fn _full<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
        let (d, m) = (self.envs[0].obs_len(), self.envs[0].mask_len());
        let k_envs = self.envs.len();
        let (mut obs, mut mask) = (vec![0f32; d * k_envs], vec![0u8; m * k_envs]);
        for (k, env) in self.envs.iter().enumerate() {
            env.encode(&mut obs[k * d..(k + 1) * d]);
            env.mask(&mut mask[k * m..(k + 1) * m]);
        }
        let bytes: Vec<u8> = obs.iter().flat_map(|v| v.to_ne_bytes()).collect();
        Ok((PyByteArray::new(py, &bytes), PyByteArray::new(py, &mask)))
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
