//! `tenantsim._tenantsim`: the compiled half of the Python package. It calls
//! the library entry points the command line calls too
//! (`tenantsim::run::run_scenario_with` with `RunOptions`,
//! `tenantsim::run::validate_file`) and hands plain Python values (JSON text, column
//! lists) to the pure-Python layer in `tenantsim/__init__.py`, which builds
//! the DataFrames. Every library error becomes a `tenantsim.TenantsimError`
//! subclass (by its `ErrorKind`) whose message is the error's Display text,
//! the line the command line prints after `error: `.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenantsim::prelude::{Registry, RunOptions, run_scenario_with};
use tenantsim::{Error, ErrorKind};

mod gym;
mod gym_action;
mod gym_core;
mod gym_jobs;
mod gym_jobs_core;
mod gym_jobs_vec;
mod gym_obs;
mod gym_shared;
mod gym_shared_core;
mod gym_shared_vec;
mod gym_vec;
mod gym_vec_step;
mod gym_window;
mod gym_window_py;
mod job_policy;
mod policy;
mod workflow_policy;
use policy::{Failures, PyPolicy};

create_exception!(
    tenantsim,
    TenantsimError,
    PyException,
    "Base class of every error tenantsim raises. Its message is the one the \
     command line prints after `error: ` (it names the file, line or key)."
);
create_exception!(
    tenantsim,
    InputError,
    TenantsimError,
    "Bad input data (trace, scenario, node list...) or a failure while \
     running or writing results (the command line's exit code 1)."
);
create_exception!(
    tenantsim,
    PolicyError,
    TenantsimError,
    "A policy gave an impossible answer (an ineligible tenant, an \
     unavailable model, a job that is not waiting); the message starts \
     with `policy error`."
);
create_exception!(
    tenantsim,
    UsageError,
    TenantsimError,
    "The call itself is wrong, as a command-line usage error (exit code 2) \
     is: e.g. `threads=0`."
);
create_exception!(
    tenantsim,
    InterruptedRunError,
    TenantsimError,
    "The run was stopped by a signal before it finished; no results folder \
     was left half-written."
);

/// The Python exception for a library error: the class by its kind, the
/// message its Display text.
fn py_err(e: &Error) -> PyErr {
    let message = e.to_string();
    match e.kind() {
        // OutputClosed comes only from writes to the process's stdout,
        // which the package never makes; an input error if it ever did.
        ErrorKind::Input | ErrorKind::OutputClosed => InputError::new_err(message),
        ErrorKind::Policy => PolicyError::new_err(message),
        ErrorKind::Usage => UsageError::new_err(message),
        ErrorKind::Interrupted => InterruptedRunError::new_err(message),
    }
}

/// Run a scenario file into the results folder `out` (which `run`
/// replaces only under the command line's rules) and return the `--json`
/// document as JSON text. The job log (`jobs.csv`) is always written.
///
/// `policies` lists the Python policies to register: (name, class, kind
/// `"scheduler"`, `"selector"`, `"job-scheduler"`, `"cache-eviction"` or
/// `"parallelism"`, the `tenantsim` base class); `rng_class`
/// is `tenantsim.Rng`, built on each policy instance's stream.
#[pyfunction]
#[pyo3(signature = (scenario, out, *, threads=None, seed=None, reps=None, no_plots=false, policies=Vec::new(), rng_class=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    scenario: PathBuf,
    out: PathBuf,
    threads: Option<i64>,
    seed: Option<u64>,
    reps: Option<i64>,
    no_plots: bool,
    policies: Vec<(String, Py<PyAny>, String, Py<PyAny>)>,
    rng_class: Option<Py<PyAny>>,
) -> PyResult<String> {
    // The bounds are the library's (`RunOptions::check`, a usage error
    // naming the option); here only what does not fit its types.
    let threads = match threads {
        None => None,
        Some(t) => Some(u32::try_from(t).map_err(|_| {
            UsageError::new_err(format!(
                "threads: expected a number of worker threads from 1 to {}, got {t}",
                tenantsim::run::MAX_THREADS
            ))
        })?),
    };
    let reps = match reps {
        None => None,
        Some(r) => Some(u32::try_from(r).map_err(|_| {
            UsageError::new_err(format!(
                "reps: expected a number of repetitions from 1 to {}, got {r}",
                u32::MAX
            ))
        })?),
    };
    let options = RunOptions {
        out: Some(out),
        keep_jobs: true,
        threads,
        seed,
        reps,
        quiet: true,
        plots: !no_plots,
        json: true,
        ..RunOptions::default()
    };
    let failures = Arc::new(Failures::default());
    let mut registry = Registry::builtin();
    let rng_class = match (rng_class, policies.is_empty()) {
        (Some(c), _) => Arc::new(c),
        (None, true) => Arc::new(py.None()),
        (None, false) => {
            return Err(UsageError::new_err(
                "policies: rng_class (tenantsim.Rng) is required",
            ));
        }
    };
    for (name, cls, kind, base) in policies {
        let policy = PyPolicy {
            rng_class: Arc::clone(&rng_class),
            name,
            cls: Arc::new(cls),
            base: Arc::new(base),
            failures: Arc::clone(&failures),
        };
        let added = match kind.as_str() {
            "scheduler" => registry.add_scheduler(policy.scheduler_entry()),
            "selector" => registry.add_selector(policy.selector_entry()),
            "job-scheduler" => registry.add_job_scheduler(job_policy::entry(policy)),
            "cache-eviction" => registry.add_eviction(workflow_policy::eviction_entry(policy)),
            "parallelism" => registry.add_parallel(workflow_policy::parallel_entry(policy)),
            other => {
                return Err(UsageError::new_err(format!(
                    "policies: unknown policy kind `{other}`"
                )));
            }
        };
        added.map_err(|e| py_err(&e))?;
    }
    // The simulation holds the GIL only inside Python policies: other
    // Python threads run meanwhile.
    let result = run_interruptibly(py, || run_scenario_with(&scenario, &options, &registry))?;
    if let Some((rep, name, err)) = failures.first() {
        // The engine stopped on the impossible answer that stands for it.
        return Err(python_failure(py, rep, &name, err));
    }
    let doc = result.map_err(|e| py_err(&e))?;
    serde_json::to_string(&doc)
        .map_err(|e| InputError::new_err(format!("cannot render the JSON summary: {e}")))
}

/// How often the waiting caller looks for a signal (Ctrl-C) during a run.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Run `work` on a thread of its own while this thread, without the GIL,
/// waits for it and looks for signals every [`SIGNAL_POLL`]: Python runs
/// its signal handlers only on the main thread and only when asked, so a
/// run in one call would hear Ctrl-C only once it returned. When a handler
/// raises (`KeyboardInterrupt` for Ctrl-C), the library is asked to stop
/// (`tenantsim::core::interrupt::request`: simulations stop between
/// decisions, the runner between tasks, the staged results folder is
/// removed), the run is awaited (a fraction of a second) and the
/// handler's exception is raised; the stop is then forgotten, so the next
/// run of the interpreter runs.
fn run_interruptibly<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    // Waited on without the GIL, from closures that must be `Send`.
    let rx = Mutex::new(rx);
    let recv = |timeout: Option<Duration>| {
        let rx = rx.lock().unwrap_or_else(PoisonError::into_inner);
        match timeout {
            Some(t) => rx.recv_timeout(t),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        }
    };
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("tenantsim-run".into())
            .spawn_scoped(scope, move || {
                // The receiver is gone only if the waiting thread is.
                let _ = tx.send(work());
            });
        if let Err(e) = spawned {
            return Err(InputError::new_err(format!(
                "cannot start the run's thread: {e}"
            )));
        }
        loop {
            match py.detach(|| recv(Some(SIGNAL_POLL))) {
                Ok(done) => return Ok(done),
                Err(RecvTimeoutError::Disconnected) => {
                    // The worker panicked: the scope re-raises its panic.
                    return Err(InputError::new_err(
                        "the run's thread ended without a result",
                    ));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Err(signal) = py.check_signals() {
                tenantsim::core::interrupt::request();
                // Its result is the library's `Interrupted` error (or a
                // run that finished meanwhile): the signal wins.
                let _ = py.detach(|| recv(None));
                tenantsim::core::interrupt::clear();
                return Err(signal);
            }
        }
    })
}

/// A `PolicyError` for an exception raised inside the Python policy `name`
/// in repetition `rep`: its traceback in the message, the exception as its
/// cause.
fn python_failure(py: Python<'_>, rep: Option<u64>, name: &str, err: PyErr) -> PyErr {
    let traceback = py
        .import("traceback")
        .and_then(|m| {
            m.call_method1(
                "format_exception",
                (err.get_type(py), err.value(py), err.traceback(py)),
            )
        })
        .and_then(|lines| lines.extract::<Vec<String>>())
        .map(|lines| lines.concat())
        .unwrap_or_else(|_| policy::describe(py, &err));
    let when = rep.map_or_else(String::new, |r| format!(" in repetition {r}"));
    let e = PolicyError::new_err(format!(
        "policy error: the Python policy `{name}` failed{when}:\n{}",
        traceback.trim_end()
    ));
    e.set_cause(py, Some(err));
    e
}

/// Check a trace (either mode's CSV) or a scenario (`.toml`, every point of
/// its sweep) and return the description `tenantsim validate` prints.
#[pyfunction]
fn validate(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    py.detach(|| tenantsim::run::validate_file(&path))
        .map_err(|e| py_err(&e))
}

/// The TOML text of a scenario given as JSON text (the pure-Python layer
/// turns a dict into JSON first).
#[pyfunction]
fn scenario_toml(json: &str) -> PyResult<String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| {
        InputError::new_err(format!("scenario dict: not representable as TOML: {e}"))
    })?;
    if !value.is_object() {
        return Err(InputError::new_err(
            "scenario dict: expected a table (a dict) at the top level",
        ));
    }
    toml::to_string(&value).map_err(|e| {
        InputError::new_err(format!(
            "scenario dict: not representable as TOML (None values have no TOML form): {e}"
        ))
    })
}

/// Whether the CSV at `path` is a job trace (its header has `job_id`), as
/// `tenantsim validate` tells them apart; `false` if it cannot be read
/// (the model-trace loader then reports why).
fn is_job_trace(path: &Path) -> bool {
    let Ok(file) = tenantsim::core::io::open_input(path, "trace") else {
        return false;
    };
    let mut first = Vec::new();
    if BufReader::new(file.take(64 * 1024))
        .read_until(b'\n', &mut first)
        .is_err()
    {
        return false;
    }
    std::str::from_utf8(&first).is_ok_and(tenantsim::jobs::trace::looks_like_job_trace)
}

/// Load and validate a trace CSV of either mode: `("models" | "jobs",
/// {column: list})`, the columns as the simulator holds them.
#[pyfunction]
fn load_trace<'py>(py: Python<'py>, path: PathBuf) -> PyResult<(&'static str, Bound<'py, PyDict>)> {
    let columns = PyDict::new(py);
    // The memory of reading it, checked before it is read (as
    // `tenantsim validate TRACE.csv` does).
    let budget = tenantsim::core::memory::MemoryBudget::default();
    if is_job_trace(&path) {
        let t = py
            .detach(|| {
                tenantsim::jobs::footprint::check_trace_file(&path, &budget)?;
                tenantsim::jobs::trace::load_job_trace(&path)
            })
            .map_err(|e| py_err(&e))?;
        let jobs = t.jobs();
        let users = t.users();
        columns.set_item("job_id", t.ids())?;
        columns.set_item(
            "user",
            jobs.iter()
                .map(|j| users[j.user as usize].as_str())
                .collect::<Vec<_>>(),
        )?;
        columns.set_item("submit_s", seconds(jobs.iter().map(|j| j.submit)))?;
        columns.set_item("duration_s", seconds(jobs.iter().map(|j| j.duration)))?;
        columns.set_item("gpus", jobs.iter().map(|j| j.gpus).collect::<Vec<_>>())?;
        if let Some(v) = t.gpu_types() {
            columns.set_item("gpu_type", v)?;
        }
        if let Some(v) = t.groups() {
            columns.set_item("group", v)?;
        }
        return Ok(("jobs", columns));
    }
    let t = py
        .detach(|| {
            tenantsim::models::scenario::footprint::check_trace_file(&path, &budget)?;
            tenantsim::models::trace::load_trace(&path)
        })
        .map_err(|e| py_err(&e))?;
    let pairs: Vec<(usize, usize)> = (0..t.n_users())
        .flat_map(|u| t.models_of(u).iter().map(move |&m| (u, m)))
        .collect();
    let models = t.models();
    columns.set_item(
        "user",
        pairs.iter().map(|&(u, _)| t.user_id(u)).collect::<Vec<_>>(),
    )?;
    columns.set_item(
        "model",
        pairs
            .iter()
            .map(|&(_, m)| models[m].as_str())
            .collect::<Vec<_>>(),
    )?;
    columns.set_item(
        "accuracy",
        pairs
            .iter()
            .map(|&(u, m)| t.accuracy(u, m))
            .collect::<Vec<_>>(),
    )?;
    columns.set_item(
        "runtime_s",
        seconds(pairs.iter().map(|&(u, m)| t.runtime_us(u, m))),
    )?;
    if let Some(year) = t.model_year() {
        columns.set_item(
            "model_year",
            pairs.iter().map(|&(_, m)| year[m]).collect::<Vec<_>>(),
        )?;
    }
    if let Some(cites) = t.model_citations() {
        columns.set_item(
            "model_citations",
            pairs.iter().map(|&(_, m)| cites[m]).collect::<Vec<_>>(),
        )?;
    }
    Ok(("models", columns))
}

/// Simulated microseconds as seconds.
fn seconds(us: impl Iterator<Item = u64>) -> Vec<f64> {
    us.map(|t| t as f64 / 1e6).collect()
}

/// `tenantsim whatif` (DESIGN §15.4): fork the model-mode results folder
/// `results` at `at` seconds, continue unchanged and with the change
/// (`policy` or `gpus`), write `out` (default inside `results`); the
/// folder written and the comparison table.
#[pyfunction]
#[pyo3(signature = (results, at, *, policy=None, gpus=None, rep=0, out=None))]
fn whatif(
    py: Python<'_>,
    results: PathBuf,
    at: f64,
    policy: Option<String>,
    gpus: Option<i64>,
    rep: u64,
    out: Option<PathBuf>,
) -> PyResult<(String, String)> {
    py.detach(|| {
        tenantsim::models::experiment::whatif::run_what_if(
            &results,
            at,
            policy.as_deref(),
            gpus,
            rep,
            out.as_deref(),
            &Registry::builtin().models,
        )
        .map(|(w, dir)| (dir.display().to_string(), w.table()))
    })
    .map_err(|e| py_err(&e))
}

/// The extension module.
#[pymodule]
fn _tenantsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TenantsimError", py.get_type::<TenantsimError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("PolicyError", py.get_type::<PolicyError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("InterruptedRunError", py.get_type::<InterruptedRunError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<policy::State>()?;
    m.add_class::<policy::TenantView>()?;
    m.add_class::<policy::Stream>()?;
    m.add_class::<job_policy::JobView>()?;
    m.add_class::<workflow_policy::CacheEntryView>()?;
    m.add_class::<workflow_policy::SplitStepView>()?;
    m.add(
        "InvalidActionError",
        py.get_type::<gym::InvalidActionError>(),
    )?;
    m.add_class::<gym::GymCore>()?;
    m.add_class::<gym_vec::GymVecCore>()?;
    m.add_class::<gym_jobs::JobGymCore>()?;
    m.add_class::<gym_jobs_vec::JobGymVecCore>()?;
    m.add_class::<gym_shared::SharedGymCore>()?;
    m.add_class::<gym_shared_vec::SharedGymVecCore>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_toml, m)?)?;
    m.add_function(wrap_pyfunction!(load_trace, m)?)?;
    m.add_function(wrap_pyfunction!(whatif, m)?)?;
    Ok(())
}
