//! `tenantsim._tenantsim.JobGymCore`: one job-mode environment of
//! `tenantsim.gym` (DESIGN §15.5, "The job-mode environment"), driven from
//! `tenantsim/gym.py`; its rules (actions, observation, reward) are
//! `gym_jobs_core.rs`'s [`JobCore`]. Preemptions off the running window
//! (and anything else the windows cannot say) go through `step_choice`
//! (the raw [`JobChoice`]).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyByteArray;
use tenantsim::jobs::episode::{job_episode_run, write_job_episode};
use tenantsim::jobs::sim::{JobChoice, JobStepper};

use crate::gym::InvalidActionError;
use crate::gym_jobs_core::{
    GLOBAL_FEATURE_NAMES, JobActionKind, JobCore, RUNNING_FEATURE_NAMES, SLOT_FEATURE_NAMES, load,
    policy_index,
};
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

impl JobGymCore {
    /// Take `choice`, advance, and return (reward, terminated); a choice
    /// the stepper refuses is an `InvalidActionError` (nothing changed).
    fn take(&mut self, choice: JobChoice) -> PyResult<(f64, bool)> {
        let s = self
            .core
            .take(choice)
            .map_err(|e| InvalidActionError::new_err(e.to_string()))?;
        Ok((s.reward, s.terminated))
    }

    fn ended_err(&self) -> Option<PyErr> {
        self.core
            .point()
            .is_none()
            .then(|| UsageError::new_err("the episode has ended (terminated): call reset() first"))
    }
}

#[pymethods]
impl JobGymCore {
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

    /// Start repetition `rep` afresh.
    fn reset(&mut self, rep: u64) -> PyResult<()> {
        self.core.reset(rep).map_err(|e| py_err(&e))
    }

    /// Take action `a` (a waiting slot < W; with `start-or-preempt` a
    /// running slot W + r; the last action ends the pass): (reward,
    /// terminated). An action not allowed raises `InvalidActionError` and
    /// changes nothing.
    fn step(&mut self, a: i64) -> PyResult<(f64, bool)> {
        if let Some(e) = self.ended_err() {
            return Err(e);
        }
        let c = self.core.check(a).map_err(InvalidActionError::new_err)?;
        self.take(c)
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
        let c = parse_choice(kind, job, gpu_type)?;
        self.take(c)
    }

    /// The observation as float32 bytes (native order): W waiting slots ×
    /// `slot_features()`, with `start-or-preempt` W running slots ×
    /// `running_features()`, then `global_features()`.
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        let mut obs = vec![0f32; self.core.obs_len()];
        self.core.encode(&mut obs);
        bytes_of(py, &obs, f32::to_ne_bytes)
    }

    /// The action mask (one byte per action, 1 allowed; the last, end the
    /// pass, is 1 until the episode ends).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
        let mut m = vec![0u8; self.core.n_actions()];
        self.core.mask(&mut m);
        bytes_of(py, &m, |v: u8| [v])
    }

    /// The scheduler's next action as a window action, or −1 when the
    /// windows cannot say it (then `policy_choice` gives it raw).
    fn policy_action(&self) -> i64 {
        self.core.policy_action()
    }

    /// The scheduler's next action raw (see `step_choice`), or None.
    fn policy_choice(&self) -> Option<PyChoice> {
        self.core.point()?.policy_choice.map(choice_to_py)
    }

    /// An independent copy at this point (DESIGN §15.5).
    fn fork(&self) -> PyResult<Self> {
        Ok(Self {
            core: self.core.fork().map_err(|e| py_err(&e))?,
        })
    }

    /// Write the ended episode's results folder into `dir` (must not
    /// exist): `tenantsim run`'s files for this policy alone and one
    /// repetition.
    fn write_results(&self, dir: PathBuf) -> PyResult<()> {
        write_results(&self.core, dir)
    }

    /// The window (W).
    #[getter]
    fn window(&self) -> usize {
        self.core.window()
    }
    /// The action kind ("start" or "start-or-preempt").
    #[getter]
    fn action(&self) -> &'static str {
        self.core.kind().name()
    }
    /// The number of actions (W + 1, or 2W + 1 with `start-or-preempt`).
    #[getter]
    fn n_actions(&self) -> usize {
        self.core.n_actions()
    }
    /// The observation's length.
    #[getter]
    fn obs_len(&self) -> usize {
        self.core.obs_len()
    }
    /// Whether the episode has ended.
    #[getter]
    fn ended(&self) -> bool {
        self.core.point().is_none()
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
    /// The scenario's repetitions.
    #[getter]
    fn repetitions(&self) -> u32 {
        self.core.scenario().repetitions()
    }
    /// The policy's name.
    #[getter]
    fn policy_name(&self) -> String {
        self.core.scenario().policies[self.core.policy()]
            .name
            .clone()
    }
    /// The scenario's name.
    #[getter]
    fn scenario_name(&self) -> String {
        self.core.scenario().name().to_string()
    }
    /// Job-hours spent in the system so far (minus the return so far).
    #[getter]
    fn job_hours(&self) -> f64 {
        self.core.job_hours()
    }
    /// Simulated time of the pending decision (the end once ended), s.
    #[getter]
    fn clock_s(&self) -> f64 {
        self.core.now() as f64 / 1e6
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
}

/// Write `core`'s ended episode's results folder into `dir` (must not
/// exist).
pub fn write_results(core: &JobCore, dir: PathBuf) -> PyResult<()> {
    if core.point().is_some() {
        return Err(UsageError::new_err(
            "results(): the episode has not ended: step it until terminated",
        ));
    }
    let sc = core.scenario();
    let outcome = core.run().fork().and_then(JobStepper::into_outcome);
    outcome
        .and_then(|o| job_episode_run(sc, core.rep(), core.policy(), o))
        .and_then(|r| write_job_episode(&dir, sc, &r, true))
        .map_err(|e| py_err(&e))
}

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
