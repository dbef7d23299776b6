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

use crate::gym_jobs_core::JobActionKind;
use crate::gym_jobs_vec::VecCore;
use crate::gym_shared_core::{SharedCore, SharedReward, load};
use crate::gym_window_py::window_vec_pymethods;
use crate::{UsageError, py_err};

/// K shared-scenario environments (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct SharedGymVecCore {
    inner: VecCore<SharedCore>,
}

window_vec_pymethods!(SharedGymVecCore {
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

    /// The reward ("regret" or "sojourn").
    #[getter]
    fn reward(&self) -> &'static str {
        self.inner.envs()[0].reward_kind().name()
    }
});
