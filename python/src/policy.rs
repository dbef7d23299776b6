//! Model-mode policies written in Python: a `tenantsim.Scheduler` or
//! `tenantsim.Selector` subclass registered by name becomes a
//! [`Scheduler`] / [`Selector`] of the library's registry.
//!
//! A Python exception (or an answer of the wrong type) is recorded in
//! [`Failures`] and returned to the engine as the `Err` of the policy call
//! that met it (every policy method returns a `Result`): the engine stops
//! the run at once, before any result is written, and `run` raises the
//! recorded exception instead (with its traceback and the policy's name).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use rand::RngCore as _;
use tenantsim::core::sim::rng::{SimRng, below, unit};
use tenantsim::prelude::*;

/// Make the current thread's Python thread state permanent before the
/// first `Python::attach` of a policy call on it. The runner's worker
/// threads are not Python threads: without this, every call would create
/// and destroy a thread state (`PyGILState_Ensure` / `Release` at count 0),
/// most of the cost of a decision. With it, attaching is taking the GIL.
/// The state is never freed: the runner's pool (and its threads) is made
/// per run and its threads may end after the interpreter does, when
/// freeing a thread state is no longer safe. That costs about 6 KB per run
/// with two threads (measured over 500 runs of a small scenario).
pub fn keep_thread_state() {
    thread_local!(static KEPT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    KEPT.with(|kept| {
        if kept.get() {
            return;
        }
        // SAFETY: called only from policy calls, during a run started from
        // Python (the interpreter is initialised). A thread without a
        // thread state (checked) cannot hold the GIL: `PyGILState_Ensure`
        // makes its state and takes the GIL, `PyEval_SaveThread` releases
        // the GIL and leaves the state registered with a count of one, so
        // later `Ensure`/`Release` pairs only take and release the GIL. A
        // thread that has a state (a Python thread) keeps it anyway.
        unsafe {
            if pyo3::ffi::PyGILState_GetThisThreadState().is_null() {
                let _ = pyo3::ffi::PyGILState_Ensure();
                pyo3::ffi::PyEval_SaveThread();
            }
        }
        kept.set(true);
    });
}

/// One failure: (repetition if known, policy name, error).
pub type Failure = (Option<u64>, String, PyErr);

/// Python errors raised inside policies during one `run`.
#[derive(Debug, Default)]
pub struct Failures(Mutex<Vec<Failure>>);

impl Failures {
    fn lock(&self) -> MutexGuard<'_, Vec<Failure>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Record `err`, raised by policy `name` in repetition `rep`.
    pub fn record(&self, rep: impl Into<Option<u64>>, name: &str, err: PyErr) {
        self.lock().push((rep.into(), name.to_string(), err));
    }

    /// The failure of the lowest repetition (then the first recorded), if
    /// any: the same one whatever the thread count.
    pub fn first(&self) -> Option<Failure> {
        let mut all = std::mem::take(&mut *self.lock());
        all.sort_by_key(|(rep, _, _)| *rep);
        all.into_iter().next()
    }
}

/// A raw pointer to the engine's tenants, set only during a policy call.
struct TenantsPtr(*const Tenants);
// SAFETY: the pointer is only dereferenced while the `Tenants` it points to
// is borrowed by the policy call that set it (`Attached` clears it before
// that borrow ends), and `Tenants` is only read through it.
unsafe impl Send for TenantsPtr {}

/// The read-only view of a repetition's state a Python policy receives
/// (`tenantsim.State`). Valid during `pick`, `propose` and
/// `tenant_changed`; in `observe` only its trace methods work.
#[pyclass(frozen, name = "State", module = "tenantsim")]
pub struct State {
    tenants: Mutex<TenantsPtr>,
    trace: Arc<Trace>,
}

/// One tenant as `state.tenant(i)` shows it.
#[pyclass(frozen, get_all, name = "Tenant", module = "tenantsim")]
pub struct TenantView {
    /// The tenant's user id (the trace's `user`).
    user: String,
    /// Its trace user index.
    user_index: usize,
    /// The best accuracy among its completed jobs (0 before the first).
    best: f64,
    /// The models it has started (trace model indices, ascending).
    tried: Vec<usize>,
    /// The models it is running now (ascending).
    running: Vec<usize>,
    /// Its arrival time, in seconds, once it has arrived; NaN before,
    /// whether the arrivals are listed or drawn as the run goes: a policy
    /// learns when a tenant arrives when it arrives.
    arrival_s: f64,
    /// Whether it has arrived.
    arrived: bool,
    /// Jobs started and completed.
    started: u32,
    completed: u32,
}

/// Sets the state's pointer for the duration of a call.
struct Attached<'a>(&'a State);

impl<'a> Attached<'a> {
    fn new(state: &'a State, tenants: &Tenants) -> Self {
        state.ptr().0 = tenants;
        Self(state)
    }
}

impl Drop for Attached<'_> {
    fn drop(&mut self) {
        self.0.ptr().0 = std::ptr::null();
    }
}

impl State {
    fn new(trace: Arc<Trace>) -> Self {
        Self {
            tenants: Mutex::new(TenantsPtr(std::ptr::null())),
            trace,
        }
    }

    fn ptr(&self) -> MutexGuard<'_, TenantsPtr> {
        self.tenants.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn with<R>(&self, f: impl FnOnce(&Tenants) -> PyResult<R>) -> PyResult<R> {
        let guard = self.ptr();
        if guard.0.is_null() {
            return Err(PyRuntimeError::new_err(
                "the tenants of a State can be read only during pick, propose or tenant_changed",
            ));
        }
        // SAFETY: see `TenantsPtr`; the lock keeps `Attached` from clearing
        // it meanwhile.
        f(unsafe { &*guard.0 })
    }

    fn check(tenants: &Tenants, i: usize) -> PyResult<()> {
        if i < tenants.len() {
            Ok(())
        } else {
            Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "tenant {i} out of range: there are {} tenants",
                tenants.len()
            )))
        }
    }
}

#[pymethods]
impl State {
    /// Number of tenants of the repetition (numbered 0 … n−1).
    #[getter]
    fn n_tenants(&self) -> PyResult<usize> {
        self.with(|t| Ok(t.len()))
    }

    /// The simulated time of the decision, in seconds.
    #[getter]
    fn now_s(&self) -> PyResult<f64> {
        self.with(|t| Ok(t.now() as f64 / 1e6))
    }

    /// Free GPUs at this decision (counting the one being assigned).
    #[getter]
    fn free_gpus(&self) -> PyResult<u32> {
        self.with(|t| Ok(t.free_gpus()))
    }

    /// The GPU type index of the GPU this decision fills (0 on an untyped
    /// cluster; DESIGN §11.4).
    #[getter]
    fn gpu_type(&self) -> PyResult<u16> {
        self.with(|t| Ok(t.gpu_type()))
    }

    /// The eligible tenants, ascending.
    fn eligible_tenants(&self) -> PyResult<Vec<usize>> {
        self.with(|t| Ok((0..t.len()).filter(|&i| t.is_eligible(i)).collect()))
    }

    /// The first eligible tenant at or after `start`, wrapping around
    /// (`None` if none is): a round-robin step without building the list.
    #[pyo3(signature = (start=0))]
    fn next_eligible(&self, start: usize) -> PyResult<Option<usize>> {
        self.with(|t| {
            let n = t.len();
            let start = if n == 0 { 0 } else { start % n };
            Ok((start..n).chain(0..start).find(|&i| t.is_eligible(i)))
        })
    }

    /// Whether tenant `i` may start a job now.
    fn is_eligible(&self, i: usize) -> PyResult<bool> {
        self.with(|t| {
            Self::check(t, i)?;
            Ok(t.is_eligible(i))
        })
    }

    /// Tenant `i`: its `user`, `best`, `tried`, `running`, `arrival_s`...
    fn tenant(&self, i: usize) -> PyResult<TenantView> {
        let trace = &self.trace;
        self.with(|t| {
            Self::check(t, i)?;
            let u = t.user(i);
            let models = trace.models_of(u);
            Ok(TenantView {
                user: trace.user_id(u).into_owned(),
                user_index: u,
                best: t.best(i),
                tried: models
                    .iter()
                    .copied()
                    .filter(|&k| t.is_tried(i, k))
                    .collect(),
                running: models
                    .iter()
                    .copied()
                    .filter(|&k| t.is_running_model(i, k))
                    .collect(),
                arrival_s: t.arrival(i).map_or(f64::NAN, |at| at as f64 / 1e6),
                arrived: t.has_arrived(i),
                started: t.started(i),
                completed: t.completed(i),
            })
        })
    }

    /// The models tenant `i` may still train (trace indices, ascending).
    fn untried_models(&self, i: usize) -> PyResult<Vec<usize>> {
        let trace = &self.trace;
        self.with(|t| {
            Self::check(t, i)?;
            Ok(trace
                .models_of(t.user(i))
                .iter()
                .copied()
                .filter(|&k| !t.is_tried(i, k))
                .collect())
        })
    }

    /// Number of models of the trace.
    #[getter]
    fn n_models(&self) -> usize {
        self.trace.n_models()
    }

    /// The trace's model ids, by index.
    #[getter]
    fn models(&self) -> Vec<String> {
        self.trace.models().to_vec()
    }

    /// The trace's accuracy of (trace user index, model), if available.
    fn accuracy(&self, user_index: usize, model: usize) -> Option<f64> {
        (user_index < self.trace.n_users()
            && model < self.trace.n_models()
            && self.trace.is_available(user_index, model))
        .then(|| self.trace.accuracy(user_index, model))
    }

    /// The trace's runtime in seconds of (trace user index, model), if
    /// available.
    fn runtime_s(&self, user_index: usize, model: usize) -> Option<f64> {
        (user_index < self.trace.n_users()
            && model < self.trace.n_models()
            && self.trace.is_available(user_index, model))
        .then(|| self.trace.runtime_us(user_index, model) as f64 / 1e6)
    }

    /// The fidelities of (trace user index, model), ascending: its levels
    /// 0, 1, … (DESIGN §12.1); `[1.0]` for a plain trace's pair, empty for
    /// a missing pair.
    fn fidelities(&self, user_index: usize, model: usize) -> Vec<f64> {
        if user_index >= self.trace.n_users() || model >= self.trace.n_models() {
            return Vec::new();
        }
        (0..self.trace.n_levels(user_index, model))
            .map(|j| self.trace.level_fidelity(user_index, model, j))
            .collect()
    }

    /// The trace's accuracy of (trace user index, model) at level `level`,
    /// if that row exists.
    fn level_accuracy(&self, user_index: usize, model: usize, level: usize) -> Option<f64> {
        (user_index < self.trace.n_users()
            && model < self.trace.n_models()
            && level < self.trace.n_levels(user_index, model))
        .then(|| self.trace.level_accuracy(user_index, model, level))
    }

    /// The highest level of `model` tenant `i` has started, if any.
    fn level_started(&self, i: usize, model: usize) -> PyResult<Option<usize>> {
        let n = self.trace.n_models();
        self.with(|t| {
            Self::check(t, i)?;
            Ok((model < n).then(|| t.level_started(i, model)).flatten())
        })
    }

    /// The highest level of `model` tenant `i` has completed, if any (its
    /// checkpoint under `cost = "incremental"`).
    fn level_done(&self, i: usize, model: usize) -> PyResult<Option<usize>> {
        let n = self.trace.n_models();
        self.with(|t| {
            Self::check(t, i)?;
            Ok((model < n).then(|| t.level_done(i, model)).flatten())
        })
    }
}

/// The random stream of a Python policy: the library's stream for
/// (seed, repetition, purpose), the one the built-in `random` policies
/// draw from. `tenantsim.Rng` (a `random.Random`) draws through it.
#[pyclass(frozen, name = "Stream", module = "tenantsim")]
pub struct Stream(Mutex<SimRng>);

#[pymethods]
impl Stream {
    /// A uniform integer in `0..n` (0 for `n == 0`), the built-in policies'
    /// draw.
    fn below(&self, n: usize) -> usize {
        below(&mut self.lock(), n)
    }

    /// A uniform float in [0, 1) (53 random bits).
    fn unit(&self) -> f64 {
        unit(&mut self.lock())
    }

    /// The next `n` 64-bit words of the stream (`getrandbits` assembles
    /// them).
    fn words(&self, n: usize) -> Vec<u64> {
        let mut rng = self.lock();
        (0..n).map(|_| rng.next_u64()).collect()
    }
}

impl Stream {
    /// A stream drawing from `rng`.
    pub fn new(rng: SimRng) -> Self {
        Self(Mutex::new(rng))
    }

    fn lock(&self) -> MutexGuard<'_, SimRng> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A new instance of the policy's Python class, built with the policy
/// table's other keys as keyword arguments, with `self.rng` (a
/// `tenantsim.Rng`) on the stream (seed, repetition, purpose).
fn instance(
    py: Python<'_>,
    policy: &PyPolicy,
    purpose: Purpose,
    ctx: &RepContext<'_>,
    kwargs_json: &str,
) -> PyResult<Py<PyAny>> {
    let kwargs = py.import("json")?.call_method1("loads", (kwargs_json,))?;
    let obj = policy
        .cls
        .call(py, (), Some(kwargs.cast::<pyo3::types::PyDict>()?))?;
    let s = Py::new(
        py,
        Stream(Mutex::new(stream(ctx.seed, ctx.repetition, purpose))),
    )?;
    let rng = policy.rng_class.call1(py, (s,))?;
    obj.setattr(py, "rng", rng)?;
    Ok(obj)
}

/// Whether `obj`'s class overrides `method` of the base class `base`.
fn overrides(py: Python<'_>, obj: &Py<PyAny>, base: &Py<PyAny>, method: &str) -> PyResult<bool> {
    let mine = obj.bind(py).get_type().getattr(method)?;
    let theirs = base.bind(py).getattr(method)?;
    Ok(!mine.is(&theirs))
}

/// What a registered Python policy needs to make its instances.
#[derive(Clone)]
pub struct PyPolicy {
    /// The name scenarios use.
    pub name: String,
    /// The Python class.
    pub cls: Arc<Py<PyAny>>,
    /// `tenantsim.Scheduler` or `tenantsim.Selector`.
    pub base: Arc<Py<PyAny>>,
    /// `tenantsim.Rng`.
    pub rng_class: Arc<Py<PyAny>>,
    /// Where its exceptions go.
    pub failures: Arc<Failures>,
}

impl PyPolicy {
    fn make(
        &self,
        ctx: &RepContext<'_>,
        purpose: Purpose,
        kwargs: &str,
    ) -> Result<(Py<PyAny>, Py<State>, bool, bool)> {
        keep_thread_state();
        Python::attach(|py| {
            let obj = instance(py, self, purpose, ctx, kwargs)?;
            let state = Py::new(py, State::new(Arc::clone(ctx.trace)))?;
            let changed = overrides(py, &obj, &self.base, "tenant_changed").unwrap_or(false);
            let observe = overrides(py, &obj, &self.base, "observe").unwrap_or(false);
            Ok::<_, PyErr>((obj, state, changed, observe))
        })
        .map_err(|e| {
            let msg = Python::attach(|py| describe(py, &e));
            Error::policy(format!(
                "policy `{}`: cannot make an instance: {msg}",
                self.name
            ))
        })
    }

    /// The scheduler entry of this policy.
    pub fn scheduler_entry(self) -> SchedulerEntry {
        let about = format!("the Python scheduler `{}`", self.name);
        SchedulerEntry::new(self.name.clone(), about, move |params: &mut Params| {
            let policy = self.clone();
            let kwargs = kwargs_json(params)?;
            Ok(move |ctx: &RepContext<'_>| {
                let (obj, state, changed, _) = policy.make(ctx, Purpose::Scheduler, &kwargs)?;
                Ok(PyScheduler {
                    obj,
                    state,
                    changed,
                    rep: ctx.repetition,
                    policy: policy.clone(),
                })
            })
        })
    }

    /// The selector entry of this policy.
    pub fn selector_entry(self) -> SelectorEntry {
        let about = format!("the Python selector `{}`", self.name);
        SelectorEntry::new(
            self.name.clone(),
            about,
            move |params: &mut Params, _trace: &Trace| {
                let policy = self.clone();
                let kwargs = kwargs_json(params)?;
                Ok(move |ctx: &RepContext<'_>| {
                    let (obj, state, _, observe) = policy.make(ctx, Purpose::Selector, &kwargs)?;
                    Ok(PySelector {
                        obj,
                        state,
                        observe,
                        rep: ctx.repetition,
                        policy: policy.clone(),
                    })
                })
            },
        )
    }
}

/// The policy table's remaining keys as a JSON object: the keyword
/// arguments of the Python class.
pub fn kwargs_json(params: &mut Params) -> Result<String> {
    let context = params.context().to_string();
    serde_json::to_string(&params.take_rest())
        .map_err(|e| Error::input(format!("{context}: cannot pass the keys to Python: {e}")))
}

/// `TypeName: message` of a Python error.
pub fn describe(py: Python<'_>, e: &PyErr) -> String {
    let ty = e
        .get_type(py)
        .name()
        .map_or_else(|_| "Exception".to_string(), |n| n.to_string());
    format!("{ty}: {}", e.value(py))
}

struct PyScheduler {
    obj: Py<PyAny>,
    state: Py<State>,
    changed: bool,
    rep: u64,
    policy: PyPolicy,
}

/// The engine-side error of a Python policy that raised: the exception is
/// recorded, and `run` raises it itself (with its traceback).
fn raised(policy: &PyPolicy, rep: u64, e: PyErr) -> Error {
    policy.failures.record(rep, &policy.name, e);
    Error::policy(format!(
        "the Python policy `{}` raised an exception",
        policy.name
    ))
}

impl Scheduler for PyScheduler {
    fn pick(&mut self, tenants: &Tenants, _selector: &mut dyn Selector) -> Result<Option<usize>> {
        let answer = Python::attach(|py| {
            let _attached = Attached::new(self.state.get(), tenants);
            let v = self
                .obj
                .call_method1(py, "pick", (self.state.clone_ref(py),))?;
            if v.is_none(py) {
                return Ok(None);
            }
            v.extract::<usize>(py).map(Some).map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "pick returned {}: expected a tenant index (an int from 0) or None",
                    v.bind(py)
                        .repr()
                        .map_or_else(|_| "?".into(), |r| r.to_string())
                ))
            })
        });
        answer.map_err(|e| raised(&self.policy, self.rep, e))
    }

    fn tenant_changed(&mut self, tenants: &Tenants, tenant: usize) -> Result<()> {
        if !self.changed {
            return Ok(());
        }
        keep_thread_state();
        let r = Python::attach(|py| {
            let _attached = Attached::new(self.state.get(), tenants);
            self.obj
                .call_method1(py, "tenant_changed", (self.state.clone_ref(py), tenant))
                .map(drop)
        });
        r.map_err(|e| raised(&self.policy, self.rep, e))
    }
}

struct PySelector {
    obj: Py<PyAny>,
    state: Py<State>,
    observe: bool,
    rep: u64,
    policy: PyPolicy,
}

/// A `propose` answer: a model index, a tuple (model, acquisition,
/// believed_cost), or a dict with `model` and any of `level`,
/// `acquisition`, `gain`, `believed_cost`, `believed_seconds`; or `None`:
/// nothing to start now (the tenant waits, DESIGN §12.2).
fn proposal(py: Python<'_>, v: &Py<PyAny>) -> PyResult<Option<Proposal>> {
    let b = v.bind(py);
    if b.is_none() {
        return Ok(None);
    }
    if let Ok(d) = b.cast::<PyDict>() {
        const KEYS: [&str; 6] = [
            "model",
            "level",
            "acquisition",
            "gain",
            "believed_cost",
            "believed_seconds",
        ];
        for (k, _) in d.iter() {
            let name: String = k.extract().unwrap_or_default();
            if !KEYS.contains(&name.as_str()) {
                return Err(pyo3::exceptions::PyKeyError::new_err(format!(
                    "propose returned a dict with key {}: expected some of {}",
                    k.repr().map_or_else(|_| "?".into(), |r| r.to_string()),
                    KEYS.join(", ")
                )));
            }
        }
        let model: usize = d
            .get_item("model")?
            .ok_or_else(|| {
                pyo3::exceptions::PyKeyError::new_err(
                    "propose returned a dict without `model`: expected a trace model index",
                )
            })?
            .extract()?;
        let mut p = Proposal::plain(model);
        if let Some(l) = d.get_item("level")?.filter(|l| !l.is_none()) {
            p.level = Some(l.extract()?);
        }
        if let Some(a) = d.get_item("acquisition")? {
            p.acquisition = a.extract()?;
        }
        if let Some(g) = d.get_item("gain")?.filter(|g| !g.is_none()) {
            p.gain = Some(g.extract()?);
        }
        if let Some(c) = d.get_item("believed_cost")? {
            p.believed_cost = c.extract()?;
        }
        if let Some(c) = d.get_item("believed_seconds")? {
            p.believed_seconds = c.extract()?;
        }
        return Ok(Some(p));
    }
    if let Ok(t) = b.cast::<PyTuple>() {
        let (model, acquisition, cost): (usize, f64, f64) = t.extract()?;
        let mut p = Proposal::plain(model);
        p.acquisition = acquisition;
        p.believed_cost = cost;
        return Ok(Some(p));
    }
    if b.is_instance_of::<PyString>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "propose returned a str: expected a trace model index",
        ));
    }
    b.extract::<usize>().map(|k| Some(Proposal::plain(k))).map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "propose returned {}: expected a trace model index (an int from 0) or a tuple (model, acquisition, believed_cost)",
            b.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })
}

impl Selector for PySelector {
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        keep_thread_state();
        let answer = Python::attach(|py| {
            let _attached = Attached::new(self.state.get(), tenants);
            let v = self
                .obj
                .call_method1(py, "propose", (self.state.clone_ref(py), tenant))?;
            proposal(py, &v)
        });
        answer.map_err(|e| raised(&self.policy, self.rep, e))
    }

    fn observe(&mut self, tenant: usize, model: usize, accuracy: f64) -> Result<()> {
        if !self.observe {
            return Ok(());
        }
        keep_thread_state();
        let r = Python::attach(|py| {
            self.obj
                .call_method1(
                    py,
                    "observe",
                    (self.state.clone_ref(py), tenant, model, accuracy),
                )
                .map(drop)
        });
        r.map_err(|e| raised(&self.policy, self.rep, e))
    }
}
