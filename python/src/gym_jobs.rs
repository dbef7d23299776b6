//! `tenantsim._tenantsim.JobGymCore`: one job-mode environment of
//! `tenantsim.gym` (DESIGN §15.5, "The job-mode environment"), driven from
//! `tenantsim/gym.py`; its rules (actions, observation, reward) are
//! `gym_jobs_core.rs`'s [`JobCore`]. Preemptions off the running window
//! (and anything else the windows cannot say) go through `step_choice`
//! (the raw [`JobChoice`]). The methods it shares with the shared
//! environment are `gym_window_py.rs`'s ([`window_pymethods`]).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use tenantsim::jobs::sim::JobChoice;

use crate::gym::InvalidActionError;
use crate::gym_jobs_core::{
    GLOBAL_FEATURE_NAMES, JobActionKind, JobCore, RUNNING_FEATURE_NAMES, SLOT_FEATURE_NAMES, load,
    policy_index,
};
use crate::gym_window_py::window_pymethods;
use crate::{UsageError, py_err};

/// A choice as Python sees it: ("start", j), ("start_on", j, t),
/// ("preempt", j) or ("end",).
pub type PyChoice = (String, Option<u32>, Option<u32>);

/// A choice as Python sees it.
pub fn choice_to_py(c: JobChoice) -> PyChoice {
    match c {
        JobChoice::Start(j) => ("start".into(), Some(j), None),
        JobChoice::StartOn(j, t) => ("start_on".into(), Some(j), Some(u32::from(t))),
        JobChoice::Preempt(j) => ("preempt".into(), Some(j), None),
        JobChoice::EndPass => ("end".into(), None, None),
    }
}

/// A bytearray of `values`' native bytes.
pub fn bytes_of<'py, T: Copy, const W: usize>(
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

/// One job-mode environment (see the module's doc).
#[pyclass(module = "tenantsim._tenantsim", unsendable)]
pub struct JobGymCore {
    core: JobCore,
}

window_pymethods!(JobGymCore {
    /// An environment of the job-mode scenario file `scenario`, policy
    /// `policy` (its name; the first by default), window `window` (W ≥ 1),
    /// action kind `action` (`"start"` or `"start-or-preempt"`), at the
    /// start of repetition 0.
    #[new]
    #[pyo3(signature = (scenario, policy=None, window=16, action="start"))]
    fn new(
        scenario: PathBuf,
        policy: Option<String>,
        window: usize,
        action: &str,
    ) -> PyResult<Self> {
        let kind = JobActionKind::parse(action).map_err(UsageError::new_err)?;
        if window == 0 {
            return Err(UsageError::new_err("window = 0: expected at least 1 slot"));
        }
        let sc = load(&scenario).map_err(|e| py_err(&e))?;
        let p = policy_index(&sc, policy.as_deref()).map_err(|e| py_err(&e))?;
        let core = JobCore::new(Arc::new(sc), p, window, kind, 0).map_err(|e| py_err(&e))?;
        Ok(Self { core })
    }

    /// The scenario's repetitions.
    #[getter]
    fn repetitions(&self) -> u32 {
        self.core.scenario().repetitions()
    }
    /// The waiting slots' feature names.
    #[staticmethod]
    fn slot_features() -> Vec<&'static str> {
        SLOT_FEATURE_NAMES.to_vec()
    }
    /// The running slots' feature names (`start-or-preempt`).
    #[staticmethod]
    fn running_features() -> Vec<&'static str> {
        RUNNING_FEATURE_NAMES.to_vec()
    }
    /// The global feature names.
    #[staticmethod]
    fn global_features() -> Vec<&'static str> {
        GLOBAL_FEATURE_NAMES.to_vec()
    }
});

/// The raw choice `kind` (`"start"`, `"start_on"`, `"preempt"` or
/// `"end"`) of job `job` (on GPU type `gpu_type`); a malformed one is an
/// `InvalidActionError`.
pub fn parse_choice(kind: &str, job: Option<u32>, gpu_type: Option<u32>) -> PyResult<JobChoice> {
    let need = |what: &str| {
        job.ok_or_else(|| InvalidActionError::new_err(format!("step_choice({what:?}) needs a job")))
    };
    Ok(match kind {
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
    })
}
