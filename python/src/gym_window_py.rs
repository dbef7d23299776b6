//! The Python methods the window environments share (DESIGN §15.5,
//! §15.7), written once: [`window_pymethods!`] emits the `#[pymethods]`
//! block of a single environment's class (`JobGymCore`, `SharedGymCore`:
//! a `core` field that is a [`WindowEnv`]) and [`window_vec_pymethods!`]
//! the vector one's (`JobGymVecCore`, `SharedGymVecCore`: an `inner`
//! [`crate::gym_jobs_vec::VecCore`]); each class passes its own methods
//! (its constructor, its feature names, …) to be emitted in the same
//! block (pyo3 takes one `#[pymethods]` block per class). The methods'
//! bodies are the generic functions below.

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::PyByteArray;

use crate::gym::InvalidActionError;
use crate::gym_jobs::{PyChoice, bytes_of, choice_to_py, parse_choice};
use crate::gym_window::WindowEnv;
use crate::{UsageError, py_err};

/// `UsageError` once the episode has ended.
fn ended_err<C: WindowEnv>(core: &C) -> PyResult<()> {
    if core.ended() {
        return Err(UsageError::new_err(
            "the episode has ended (terminated): call reset() first",
        ));
    }
    Ok(())
}

/// Take `choice`, advance, and return (reward, terminated); a choice the
/// stepper refuses is an `InvalidActionError` (nothing changed).
fn take<C: WindowEnv>(
    core: &mut C,
    choice: tenantsim::jobs::sim::JobChoice,
) -> PyResult<(f64, bool)> {
    core.take(choice)
        .map_err(|e| InvalidActionError::new_err(e.to_string()))
}

/// `step(a)`: window action `a`.
pub fn step<C: WindowEnv>(core: &mut C, a: i64) -> PyResult<(f64, bool)> {
    ended_err(core)?;
    let c = core.check(a).map_err(InvalidActionError::new_err)?;
    take(core, c)
}

/// `step_choice(kind, job, gpu_type)`: a raw choice.
pub fn step_choice<C: WindowEnv>(
    core: &mut C,
    kind: &str,
    job: Option<u32>,
    gpu_type: Option<u32>,
) -> PyResult<(f64, bool)> {
    ended_err(core)?;
    let c = parse_choice(kind, job, gpu_type)?;
    take(core, c)
}

/// The observation as float32 bytes (native order).
pub fn observation<'py, C: WindowEnv>(
    core: &C,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyByteArray>> {
    let mut obs = vec![0f32; core.rules().obs_len()];
    core.encode(&mut obs);
    bytes_of(py, &obs, f32::to_ne_bytes)
}

/// The action mask (one byte per action, 1 allowed).
pub fn mask<'py, C: WindowEnv>(core: &C, py: Python<'py>) -> PyResult<Bound<'py, PyByteArray>> {
    let mut m = vec![0u8; core.rules().n_actions()];
    core.mask(&mut m);
    bytes_of(py, &m, |v: u8| [v])
}

/// The scheduler's next action raw, as Python sees it.
pub fn policy_choice<C: WindowEnv>(core: &C) -> Option<PyChoice> {
    core.policy_choice().map(choice_to_py)
}

/// An independent copy at this point.
pub fn fork<C: WindowEnv>(core: &C) -> PyResult<C> {
    core.fork().map_err(|e| py_err(&e))
}

/// Write the ended episode's results folder into `dir`.
pub fn write_results<C: WindowEnv>(core: &C, dir: &Path) -> PyResult<()> {
    core.write_results(dir).map_err(|e| py_err(&e))
}

/// The `#[pymethods]` block of a single window environment's class
/// `$class` (a struct with a `core: impl WindowEnv` field): the shared
/// methods, then `$extra` (the class's own).
macro_rules! window_pymethods {
    ($class:ident { $($extra:tt)* }) => {
        #[pyo3::pymethods]
        impl $class {
            $($extra)*

            /// Start repetition `rep` afresh.
            fn reset(&mut self, rep: u64) -> pyo3::PyResult<()> {
                crate::gym_window::WindowEnv::reset(&mut self.core, rep)
                    .map_err(|e| crate::py_err(&e))
            }

            /// Take action `a` (a waiting slot < W; with
            /// `start-or-preempt` a running slot W + r; the last action
            /// ends the pass): (reward, terminated). An action not allowed
            /// raises `InvalidActionError` and changes nothing.
            fn step(&mut self, a: i64) -> pyo3::PyResult<(f64, bool)> {
                crate::gym_window_py::step(&mut self.core, a)
            }

            /// Take a raw choice (the escape hatch for what the window
            /// cannot say): `kind` "start" (job), "start_on" (job,
            /// gpu_type), "preempt" (job) or "end". A choice that breaks
            /// the rules raises `InvalidActionError` and changes nothing.
            #[pyo3(signature = (kind, job=None, gpu_type=None))]
            fn step_choice(
                &mut self,
                kind: &str,
                job: Option<u32>,
                gpu_type: Option<u32>,
            ) -> pyo3::PyResult<(f64, bool)> {
                crate::gym_window_py::step_choice(&mut self.core, kind, job, gpu_type)
            }

            /// The observation as float32 bytes (native order): W waiting
            /// slots × `slot_features()`, with `start-or-preempt` W running
            /// slots × `running_features()`, then `global_features()`.
            fn observation<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyByteArray>> {
                crate::gym_window_py::observation(&self.core, py)
            }

            /// The action mask (one byte per action, 1 allowed; the last,
            /// end the pass, is 1 until the episode ends).
            fn mask<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyByteArray>> {
                crate::gym_window_py::mask(&self.core, py)
            }

            /// The scheduler's next action as a window action, or −1 when
            /// the windows cannot say it (then `policy_choice` gives it
            /// raw).
            fn policy_action(&self) -> i64 {
                crate::gym_window::WindowEnv::policy_action(&self.core)
            }

            /// The scheduler's next action raw (see `step_choice`), or
            /// None.
            fn policy_choice(&self) -> Option<crate::gym_jobs::PyChoice> {
                crate::gym_window_py::policy_choice(&self.core)
            }

            /// The jobs waiting now, in job order (the window holds the
            /// first W).
            fn waiting(&self) -> Vec<u32> {
                crate::gym_window::WindowEnv::waiting(&self.core)
            }

            /// An independent copy at this point (DESIGN §15.5, §15.6).
            fn fork(&self) -> pyo3::PyResult<Self> {
                Ok(Self {
                    core: crate::gym_window_py::fork(&self.core)?,
                })
            }

            /// Write the ended episode's results folder into `dir` (must
            /// not exist): `tenantsim run`'s files for this policy alone
            /// and one repetition.
            fn write_results(&self, dir: std::path::PathBuf) -> pyo3::PyResult<()> {
                crate::gym_window_py::write_results(&self.core, &dir)
            }

            /// The window (W).
            #[getter]
            fn window(&self) -> usize {
                crate::gym_window::WindowEnv::rules(&self.core).window
            }
            /// The action kind ("start" or "start-or-preempt").
            #[getter]
            fn action(&self) -> &'static str {
                crate::gym_window::WindowEnv::rules(&self.core).kind.name()
            }
            /// The number of actions (W + 1, or 2W + 1 with
            /// `start-or-preempt`).
            #[getter]
            fn n_actions(&self) -> usize {
                crate::gym_window::WindowEnv::rules(&self.core).n_actions()
            }
            /// The observation's length.
            #[getter]
            fn obs_len(&self) -> usize {
                crate::gym_window::WindowEnv::rules(&self.core).obs_len()
            }
            /// Whether the episode has ended.
            #[getter]
            fn ended(&self) -> bool {
                crate::gym_window::WindowEnv::ended(&self.core)
            }
            /// Steps taken in the episode.
            #[getter]
            fn steps(&self) -> u64 {
                crate::gym_window::WindowEnv::steps(&self.core)
            }
            /// The repetition of the episode.
            #[getter]
            fn rep(&self) -> u64 {
                crate::gym_window::WindowEnv::rep(&self.core)
            }
            /// The policy's name.
            #[getter]
            fn policy_name(&self) -> String {
                crate::gym_window::WindowEnv::policy_name(&self.core)
            }
            /// The scenario's name.
            #[getter]
            fn scenario_name(&self) -> String {
                crate::gym_window::WindowEnv::scenario_name(&self.core)
            }
            /// Job-hours spent in the system so far (reward `sojourn`:
            /// minus the return so far).
            #[getter]
            fn job_hours(&self) -> f64 {
                crate::gym_window::WindowEnv::job_hours(&self.core)
            }
            /// Simulated time of the pending decision (the end once
            /// ended), s.
            #[getter]
            fn clock_s(&self) -> f64 {
                crate::gym_window::WindowEnv::now(&self.core) as f64 / 1e6
            }
        }
    };
}
pub(crate) use window_pymethods;

/// The `#[pymethods]` block of a vector window environment's class
/// `$class` (a struct with an `inner: VecCore<impl WindowEnv>` field):
/// the shared methods, then `$extra` (the class's own).
macro_rules! window_vec_pymethods {
    ($class:ident { $($extra:tt)* }) => {
        #[pyo3::pymethods]
        impl $class {
            $($extra)*

            /// Start sub-environment k at repetition `reps[k]`:
            /// (observations, rewards, terminated, policy actions, masks),
            /// rewards 0.
            fn reset<'py>(
                &mut self,
                py: pyo3::Python<'py>,
                reps: Vec<u64>,
            ) -> pyo3::PyResult<crate::gym_jobs_vec::Out<'py>> {
                self.inner.reset(py, reps)
            }

            /// Step every sub-environment: `actions` is the bytes of an
            /// int64 array of K actions (each as the single environment's
            /// `step` takes).
            fn step<'py>(
                &mut self,
                py: pyo3::Python<'py>,
                actions: &[u8],
            ) -> pyo3::PyResult<crate::gym_jobs_vec::Out<'py>> {
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
                crate::gym_window::WindowEnv::rules(&self.inner.envs()[0]).window
            }
            /// The action kind.
            #[getter]
            fn action(&self) -> &'static str {
                crate::gym_window::WindowEnv::rules(&self.inner.envs()[0]).kind.name()
            }
            /// Actions per sub-environment (W + 1, or 2W + 1).
            #[getter]
            fn n_actions(&self) -> usize {
                crate::gym_window::WindowEnv::rules(&self.inner.envs()[0]).n_actions()
            }
            /// One observation's length.
            #[getter]
            fn obs_len(&self) -> usize {
                crate::gym_window::WindowEnv::rules(&self.inner.envs()[0]).obs_len()
            }
            /// Each sub-environment's repetition.
            #[getter]
            fn reps(&self) -> Vec<u64> {
                self.inner.reps()
            }
            /// Each sub-environment's job-hours in the system so far.
            #[getter]
            fn job_hours(&self) -> Vec<f64> {
                self.inner.job_hours()
            }
        }
    };
}
pub(crate) use window_vec_pymethods;
