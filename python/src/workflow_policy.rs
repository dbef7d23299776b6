//! The workflows' cache-eviction and parallelisation rules written in
//! Python (DESIGN §14.8): a `tenantsim.CacheEviction` subclass scores
//! each cache entry at its creation and at each hit (lowest evicted
//! first), a `tenantsim.Parallelism` subclass returns the number of
//! sub-jobs of a parallelisable step. A new instance of the class is made
//! for each run (no arguments).

use pyo3::prelude::*;
use tenantsim::prelude::*;

use crate::policy::PyPolicy;

/// One cache entry as `score(entry)` sees it (`tenantsim.CacheEntry`).
#[pyclass(frozen, get_all, name = "CacheEntry", module = "tenantsim")]
pub struct CacheEntryView {
    /// Bytes it holds (its step's `output_bytes`).
    bytes: u64,
    /// Run time a hit saves (its step's `runtime_s`), seconds.
    saved_s: f64,
    /// GPUs of its step.
    gpus: u32,
    /// CPUs of its step.
    cpus: u32,
    /// When it was stored, seconds.
    created_s: f64,
    /// Its last hit, or `created_s`, seconds.
    last_used_s: f64,
    /// Hits so far (0 when created).
    hits: u64,
    /// The tenant's index (trace order) of the workflow that stored it.
    tenant: u32,
    /// `"tenant"` or `"global"` (`[workflows.cache] scope`).
    scope: &'static str,
    /// Now, seconds.
    now_s: f64,
}

/// A parallelisable step as `parts(step)` sees it (`tenantsim.SplitStep`).
#[pyclass(frozen, get_all, name = "SplitStep", module = "tenantsim")]
pub struct SplitStepView {
    /// Run time unsplit, seconds.
    runtime_s: f64,
    /// GPUs of each sub-job.
    gpus: u32,
    /// CPUs of each sub-job.
    cpus: u32,
    /// The policy's `parallel_k`: the most sub-jobs allowed.
    parallel_k: u32,
    /// GPUs free in the cluster now.
    free_gpus: u64,
    /// CPUs free now (`None`: the cluster does not count CPUs).
    free_cpus: Option<u64>,
    /// Now, seconds.
    now_s: f64,
}

fn secs(us: Micros) -> f64 {
    us as f64 / 1e6
}

/// An instance of the policy's class, made once per run on first use.
struct Instance {
    policy: PyPolicy,
    obj: Option<Py<PyAny>>,
}

impl Instance {
    /// Call `method(view)` on the instance (made on the first call).
    fn call<T>(
        &mut self,
        method: &str,
        what: &str,
        view: impl for<'py> IntoPyObject<'py>,
        extract: impl FnOnce(Python<'_>, &Py<PyAny>) -> PyResult<T>,
    ) -> Result<T> {
        crate::policy::keep_thread_state();
        let (policy, obj) = (&self.policy, &mut self.obj);
        let answer = Python::attach(|py| -> PyResult<T> {
            if obj.is_none() {
                *obj = Some(policy.cls.call0(py)?);
            }
            let Some(me) = obj.as_ref() else {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(
                    "the rule could not be made",
                ));
            };
            let v = me.call_method1(py, method, (view,))?;
            extract(py, &v)
        });
        answer.map_err(|e| {
            policy.failures.record(None, &policy.name, e);
            Error::policy(format!("the Python {what} `{}` failed", policy.name))
        })
    }
}

/// `repr(v)` for messages.
fn shown(py: Python<'_>, v: &Py<PyAny>) -> String {
    v.bind(py)
        .repr()
        .map_or_else(|_| "?".into(), |r| r.to_string())
}

/// The registry entry of the Python eviction rule `policy`.
pub fn eviction_entry(policy: PyPolicy) -> EvictionEntry {
    let about = format!("the Python cache eviction rule `{}`", policy.name);
    let name = policy.name.clone();
    EvictionEntry::new(name, about, move || {
        let mut me = Instance {
            policy: policy.clone(),
            obj: None,
        };
        Ok(move |e: &CacheEntry| {
            let view = CacheEntryView {
                bytes: e.bytes,
                saved_s: secs(e.saved_us),
                gpus: e.gpus,
                cpus: e.cpus,
                created_s: secs(e.created),
                last_used_s: secs(e.last_used),
                hits: e.hits,
                tenant: e.tenant,
                scope: if e.global { "global" } else { "tenant" },
                now_s: secs(e.now),
            };
            me.call("score", "cache eviction rule", view, |py, v| {
                v.extract::<f64>(py).map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(format!(
                        "score returned {}: expected a number (the lowest is evicted first)",
                        shown(py, v)
                    ))
                })
            })
        })
    })
}

/// The registry entry of the Python parallelisation rule `policy`.
pub fn parallel_entry(policy: PyPolicy) -> ParallelEntry {
    let about = format!("the Python parallelisation rule `{}`", policy.name);
    let name = policy.name.clone();
    ParallelEntry::new(name, about, move || {
        let mut me = Instance {
            policy: policy.clone(),
            obj: None,
        };
        Ok(move |s: &SplitStep| {
            let view = SplitStepView {
                runtime_s: secs(s.runtime),
                gpus: s.gpus,
                cpus: s.cpus,
                parallel_k: s.parallel_k,
                free_gpus: s.free_gpus,
                free_cpus: s.free_cpus,
                now_s: secs(s.now),
            };
            let max = s.parallel_k;
            me.call("parts", "parallelisation rule", view, move |py, v| {
                v.extract::<i64>(py)
                    .ok()
                    .and_then(|k| u32::try_from(k).ok())
                    .filter(|&k| (1..=max).contains(&k))
                    .ok_or_else(|| {
                        pyo3::exceptions::PyValueError::new_err(format!(
                            "parts returned {}: expected an int from 1 to {max} (the policy's parallel_k)",
                            shown(py, v)
                        ))
                    })
            })
        })
    })
}
