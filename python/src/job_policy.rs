//! Job-mode schedulers written in Python: a `tenantsim.JobScheduler`
//! subclass gives each job a priority at its arrival (smaller runs first);
//! the engine's scan, head-of-line blocking, backfilling and placement do
//! the rest ([`priority_order`], as for `fifo`).

use std::sync::Arc;

use pyo3::prelude::*;
use tenantsim::jobs::policy::priority_order;
use tenantsim::jobs::trace::Job;
use tenantsim::prelude::*;

use crate::policy::{PyPolicy, kwargs_json};

/// One job as `priority(job, now_s)` sees it (`tenantsim.Job`).
#[pyclass(frozen, get_all, name = "Job", module = "tenantsim")]
pub struct JobView {
    /// The job's index in the run's jobs (file order; ties go to the lowest).
    index: u32,
    /// Its user's index (order of first appearance in the trace).
    user: u32,
    /// Submit time, seconds.
    submit_s: f64,
    /// Service time on `gpus` GPUs, seconds.
    duration_s: f64,
    /// GPUs it needs, all at once.
    gpus: u32,
}

/// The registry entry of the Python job scheduler `policy`.
pub fn entry(policy: PyPolicy) -> JobSchedulerEntry {
    let about = format!("the Python job scheduler `{}`", policy.name);
    JobSchedulerEntry::from_parse(policy.name.clone(), about, move |params: &mut Params| {
        let policy = policy.clone();
        let kwargs = kwargs_json(params)?;
        let factory: JobSchedulerFactory = Arc::new(move |init: &SchedInit<'_>| {
            let policy = policy.clone();
            crate::policy::keep_thread_state();
            let made = Python::attach(|py| -> PyResult<Py<PyAny>> {
                let kwargs = py
                    .import("json")?
                    .call_method1("loads", (kwargs.as_str(),))?;
                let obj = policy
                    .cls
                    .call(py, (), Some(kwargs.cast::<pyo3::types::PyDict>()?))?;
                // `self.rng`: the library's scheduler stream of this
                // (seed, repetition), as for model-mode policies.
                let s = Py::new(
                    py,
                    crate::policy::Stream::new(stream(
                        init.seed,
                        init.repetition,
                        Purpose::Scheduler,
                    )),
                )?;
                let rng = policy.rng_class.call1(py, (s,))?;
                obj.setattr(py, "rng", rng)?;
                Ok(obj)
            });
            // The factory cannot fail: a failed construction stops the run
            // at the first priority asked for.
            let mut obj = Some(made);
            let mut instance: Option<Py<PyAny>> = None;
            Ok(priority_order(
                init.jobs.len(),
                move |job: &Job, i: u32, now: Micros| {
                    crate::policy::keep_thread_state();
                    let answer = Python::attach(|py| -> PyResult<f64> {
                        if let Some(made) = obj.take() {
                            instance = Some(made?);
                        }
                        let Some(me) = instance.as_ref() else {
                            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                                "the job scheduler could not be made",
                            ));
                        };
                        let view = JobView {
                            index: i,
                            user: job.user,
                            submit_s: job.submit as f64 / 1e6,
                            duration_s: job.duration as f64 / 1e6,
                            gpus: job.gpus,
                        };
                        let v = me.call_method1(py, "priority", (view, now as f64 / 1e6))?;
                        v.extract::<f64>(py).map_err(|_| {
                            pyo3::exceptions::PyTypeError::new_err(format!(
                                "priority returned {}: expected a number (smaller runs first)",
                                v.bind(py)
                                    .repr()
                                    .map_or_else(|_| "?".into(), |r| r.to_string())
                            ))
                        })
                    });
                    answer.map_err(|e| {
                        policy.failures.record(None, &policy.name, e);
                        Error::policy(format!("the Python job scheduler `{}` failed", policy.name))
                    })
                },
            ))
        });
        Ok(factory)
    })
}
