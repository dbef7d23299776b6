//! The metrics folded online as the engine runs (issue 34, DESIGN §2.6,
//! §8.5) are the batch computation from the job log, bit for bit: each
//! tenant's row (`TenantMetrics`), the loss curve by time and by jobs, the
//! first completion and the count of completed jobs, on random runs (every
//! scheduler × selector, random arrivals, limits and horizons) and on
//! every bundled model scenario.

use std::sync::Arc;
use tenantsim::models::sim::TenantUsers;

use proptest::prelude::*;
use tenantsim::models::experiment::{simulate_one, simulate_rep_with, simulate_task};
use tenantsim::models::metrics::{FoldedRun, LossCurve, RunFold, tenant_metrics};
use tenantsim::models::policy::Params;
use tenantsim::models::policy::registry::{schedulers, selectors};
use tenantsim::models::scenario::load_scenario;
use tenantsim::models::sim::{EndReason, JobSink, RunEndState};
use tenantsim::models::sim::{GpuTypes, RepContext, RunOutcome, ThreadedSink};
use tenantsim::models::sim::{SimConfig, SimInput, TenantLimits, simulate, simulate_observed};
use tenantsim::models::sim::{simulate_observed_owned, simulate_observed_shared};
use tenantsim::models::trace::{Trace, TraceBuilder, TraceRow};

use crate::common::{comparable, model_scenarios};

/// A random run's trace, cluster, arrivals and limits.
#[derive(Debug, Clone)]
struct Case {
    trace: Arc<Trace>,
    gpus: u32,
    max_running: u32,
    seed: u64,
    arrival_s: Vec<u32>,
    limits: TenantLimits,
    horizon_s: Option<u32>,
    thresholds: Vec<f64>,
}

const S: u64 = 1_000_000;

fn case() -> impl Strategy<Value = Case> {
    (2usize..8, 1usize..6, 1u32..4, 1u32..3, any::<u64>()).prop_flat_map(
        |(users, models, gpus, max_running, seed)| {
            (
                Just((gpus, max_running, seed)),
                proptest::collection::vec((any::<bool>(), 0u32..6, 1u32..5), users * models),
                proptest::collection::vec(0u32..8, users),
                (
                    proptest::option::of(1u32..15),
                    proptest::option::of(0u32..4),
                    proptest::option::of(1u32..6),
                ),
                proptest::option::of(0u32..20),
                proptest::collection::vec(0u32..6, 0..4),
            )
                .prop_map(
                    move |(
                        (gpus, max_running, seed),
                        cells,
                        arrival_s,
                        (budget, max_jobs, patience),
                        horizon_s,
                        thetas,
                    )| {
                        let mut b = TraceBuilder::new("random", true, true);
                        for u in 0..users {
                            for m in 0..models {
                                let (present, acc, rt) = cells[u * models + m];
                                if present || m == 0 {
                                    let row = TraceRow {
                                        user: format!("u{u}"),
                                        model: format!("m{m}"),
                                        accuracy: f64::from(acc) / 5.0,
                                        runtime_s: f64::from(rt),
                                        model_year: Some(2000),
                                        model_citations: Some(m as i64),
                                    };
                                    if let Err(e) = b.push(&row, "generated") {
                                        panic!("{e}");
                                    }
                                }
                            }
                        }
                        let trace = match b.finish() {
                            Ok(t) => Arc::new(t),
                            Err(e) => panic!("{e}"),
                        };
                        Case {
                            trace,
                            gpus,
                            max_running,
                            seed,
                            arrival_s,
                            limits: TenantLimits {
                                budget: budget.map(|b| u64::from(b) * S),
                                max_jobs,
                                patience: patience.map(|p| u64::from(p) * S),
                            },
                            horizon_s,
                            thresholds: thetas.iter().map(|&t| f64::from(t) / 10.0).collect(),
                        }
                    },
                )
        },
    )
}

/// Every field the batch computes from `out`'s log, against what the run
/// folded; `Debug` text, so -0.0 and 0.0 differ (bits, not values).
fn check_folded(
    label: &str,
    trace: &Trace,
    tenants: &[usize],
    arrivals: &[u64],
    limits: TenantLimits,
    thresholds: &[f64],
    out: &mut RunOutcome,
) -> Result<(), TestCaseError> {
    let Some(f) = FoldedRun::take(out) else {
        return Err(TestCaseError::fail(format!("{label}: nothing folded")));
    };
    let batch = tenant_metrics(trace, tenants, arrivals, out, limits, thresholds)
        .map_err(|e| TestCaseError::fail(format!("{label}: {e}")))?;
    let folded = f
        .tenants
        .map_err(|e| TestCaseError::fail(format!("{label}: {e}")))?;
    prop_assert_eq!(format!("{folded:?}"), format!("{batch:?}"), "{}", label);
    let unread = |e: tenantsim::Error| TestCaseError::fail(format!("{label}: {e}"));
    let curve = LossCurve::from_outcome(trace, tenants, arrivals, out).expect("curve");
    let folded_curve = f.curve.map_err(unread)?;
    prop_assert_eq!(
        format!("{folded_curve:?}"),
        format!("{curve:?}"),
        "{}",
        label
    );
    let jobs = LossCurve::by_jobs(trace, tenants, arrivals, out).expect("curve");
    let folded_jobs = f.job_curve.map_err(unread)?;
    prop_assert_eq!(format!("{folded_jobs:?}"), format!("{jobs:?}"), "{}", label);
    let first = out
        .completion_order
        .iter()
        .next()
        .map(|j| out.jobs.get(j.expect("order") as usize).expect("log").end);
    prop_assert_eq!(f.first_completion, first, "{}", label);
    prop_assert_eq!(f.completions, out.completion_order.len(), "{}", label);
    Ok(())
}

/// Every scheduler × selector (with its default keys; a selector whose
/// defaults these users cannot fit is skipped: the engine is the point).
fn check_every_policy(c: &Case) -> Result<(), TestCaseError> {
    let trace = &c.trace;
    let tenants: Vec<usize> = (1..trace.n_users()).collect();
    let prior = vec![0];
    let arrivals: Vec<u64> = (0..tenants.len())
        .map(|i| u64::from(c.arrival_s[i]) * S)
        .collect();
    for sch in schedulers() {
        for sel in selectors() {
            if sch.needs_acquisition && !sel.provides_acquisition {
                continue;
            }
            let label = format!("{} + {}", sch.name, sel.name);
            let mut params = Params::new(label.clone(), Default::default());
            let make_sch =
                (sch.parse)(&mut params).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let make_sel =
                (sel.parse)(&mut params, trace).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let ctx = RepContext {
                trace,
                gpu_types: &Arc::new(GpuTypes::untyped(1)),
                tenants: &TenantUsers::list(&tenants),
                prior: &prior,
                seed: c.seed,
                repetition: 0,
            };
            let mut scheduler = make_sch(&ctx).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let Ok(mut selector) = make_sel(&ctx) else {
                continue;
            };
            let input = SimInput {
                trace,
                tenants: &TenantUsers::list(&tenants),
                arrivals: &arrivals,
                gpu_types: &GpuTypes::untyped(c.gpus),
                config: SimConfig {
                    gpus: c.gpus,
                    max_jobs_per_tenant: c.max_running,
                    horizon: c.horizon_s.map(|h| u64::from(h) * S),
                    limits: c.limits,
                },
            };
            let fold = RunFold::new(tenants.len(), &c.thresholds);
            let mut out = simulate_observed(
                &input,
                scheduler.as_mut(),
                selector.as_mut(),
                Box::new(fold),
                true,
            )
            .map_err(|e| TestCaseError::fail(format!("{label}: {e}")))?;
            // The same run keeping no log: the same outcome without it.
            let mut scheduler = make_sch(&ctx).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let Ok(mut selector) = make_sel(&ctx) else {
                continue;
            };
            let fold = RunFold::new(tenants.len(), &c.thresholds);
            let mut lean = simulate_observed(
                &input,
                scheduler.as_mut(),
                selector.as_mut(),
                Box::new(fold),
                false,
            )
            .map_err(|e| TestCaseError::fail(format!("{label}: {e}")))?;
            prop_assert!(lean.jobs.is_empty() && lean.completion_order.is_empty());
            prop_assert_eq!(
                format!("{:?}", FoldedRun::take(&mut lean)),
                format!("{:?}", FoldedRun::take(&mut out.clone())),
                "{}",
                label
            );
            // The same run told to a sink that checks the done calls.
            let mut scheduler = make_sch(&ctx).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let Ok(mut selector) = make_sel(&ctx) else {
                continue;
            };
            let mut watched = simulate_observed(
                &input,
                scheduler.as_mut(),
                selector.as_mut(),
                Box::new(DoneWatch::default()),
                false,
            )
            .map_err(|e| TestCaseError::fail(format!("{label}: {e}")))?;
            check_done_calls(&label, &mut watched)?;
            let mut logged = out.clone();
            logged.jobs = Default::default();
            logged.completion_order = Default::default();
            logged.folded = None;
            lean.policy_clock = logged.policy_clock;
            prop_assert_eq!(format!("{lean:?}"), format!("{logged:?}"), "{}", label);
            check_folded(
                &label,
                trace,
                &tenants,
                &arrivals,
                c.limits,
                &c.thresholds,
                &mut out,
            )?;
        }
    }
    Ok(())
}

/// A sink that writes down, per tenant, its job events and when it was
/// told it is done (DESIGN §2.6 "Done tenants").
#[derive(Debug, Clone, Default)]
struct DoneWatch {
    /// (tenant, 'e' for a job event or 'd' for done), in order.
    calls: Vec<(usize, char)>,
}

impl JobSink for DoneWatch {
    fn arrived(&mut self, _now: u64, _i: usize, _best_possible: f64) {}
    fn started(&mut self, i: usize, _start: u64, _end: u64) {
        self.calls.push((i, 'e'));
    }
    fn completed(&mut self, i: usize, _start: u64, _at: u64, _acc: f64) {
        self.calls.push((i, 'e'));
    }
    fn cancelled(&mut self, i: usize, _start: u64, _at: u64) {
        self.calls.push((i, 'e'));
    }
    fn done(&mut self, i: usize) {
        self.calls.push((i, 'd'));
    }
    fn fork(&self) -> Box<dyn JobSink> {
        Box::new(self.clone())
    }
    fn finish(
        self: Box<Self>,
        _state: &RunEndState<'_>,
        _models: &dyn Fn(usize) -> usize,
        _best_possible: &dyn Fn(usize) -> f64,
        _cut: &mut dyn Iterator<Item = (usize, u64, u64)>,
    ) -> Arc<dyn std::any::Any + Send + Sync> {
        Arc::new(self.calls)
    }
}

/// The engine's done calls of run `out` (watched by a [`DoneWatch`]): a
/// tenant is told at most once, after its last job event; every tenant
/// that ran all its models or left is told; none whose run ended with
/// work left (a job running, a model to run) is.
fn check_done_calls(label: &str, out: &mut RunOutcome) -> Result<(), TestCaseError> {
    let calls = out
        .folded
        .take()
        .and_then(|f| f.downcast::<Vec<(usize, char)>>().ok())
        .ok_or_else(|| TestCaseError::fail(format!("{label}: nothing watched")))?;
    let ended = out
        .end_states
        .reasons()
        .map_err(|e| TestCaseError::fail(format!("{label}: {e}")))?;
    let n = ended.len();
    let mut told = vec![false; n];
    for &(i, kind) in calls.iter() {
        prop_assert!(
            !told[i],
            "{}: tenant {} had a call after its done",
            label,
            i
        );
        told[i] = kind == 'd';
    }
    for (i, &ended) in ended.iter().enumerate() {
        let must = matches!(ended, EndReason::AllModelsRun | EndReason::Patience);
        prop_assert!(
            !must || told[i],
            "{}: tenant {} ({:?}) not told done",
            label,
            i,
            ended
        );
        prop_assert!(
            !told[i] || ended != EndReason::Horizon,
            "{}: tenant {} told done but its run ended with work left",
            label,
            i
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn folded_metrics_are_the_batch_metrics_on_random_runs(c in case()) {
        check_every_policy(&c)?;
    }
}

#[test]
fn every_bundled_model_scenario_folds_the_metrics_the_log_gives() {
    for path in model_scenarios() {
        let scenario = load_scenario(&path, Default::default()).expect("a bundled scenario loads");
        for policy in 0..scenario.policies.len() {
            for rep in 0..u64::from(scenario.repetitions()).min(3) {
                let folded = simulate_one(&scenario, rep, policy).expect("runs");
                let batch =
                    simulate_rep_with(&scenario, rep, policy, true, &mut |i, mut a, mut b| {
                        simulate(&i.lent()?, a.as_mut(), b.as_mut())
                    })
                    .expect("runs");
                assert!(
                    comparable(&folded) == comparable(&batch),
                    "{}: policy {policy}, repetition {rep}: the folded metrics differ from the log's",
                    path.display()
                );
            }
        }
    }
}

/// A run whose fold runs on a thread of its own (`ThreadedSink`, what a
/// large run with a core to spare does) has the results of the fold run
/// inline, on every bundled model scenario.
#[test]
fn a_fold_on_its_own_thread_gives_the_results_of_the_inline_fold() {
    for path in model_scenarios() {
        let scenario = load_scenario(&path, Default::default()).expect("a bundled scenario loads");
        for policy in 0..scenario.policies.len() {
            for rep in 0..u64::from(scenario.repetitions()).min(2) {
                let inline = simulate_rep_with(&scenario, rep, policy, false, &mut |i, a, b| {
                    let fold = RunFold::new(i.tenants.len(), &scenario.thresholds);
                    simulate_observed_owned(&i.lent()?, a, b, Box::new(fold), false)
                })
                .expect("runs");
                let threaded = simulate_rep_with(&scenario, rep, policy, false, &mut |i, a, b| {
                    let fold = RunFold::new(i.tenants.len(), &scenario.thresholds);
                    simulate_observed_owned(
                        &i.lent()?,
                        a,
                        b,
                        ThreadedSink::wrap(Box::new(fold)),
                        false,
                    )
                })
                .expect("runs");
                assert!(
                    comparable(&inline) == comparable(&threaded),
                    "{}: policy {policy}, repetition {rep}: the threaded fold differs",
                    path.display()
                );
            }
        }
    }
}

/// `tenantsim run` without `--jobs` keeps no job log: its results are the
/// results with the log, the log aside.
#[test]
fn a_run_without_the_job_log_gives_the_results_of_one_with_it() {
    for path in model_scenarios() {
        let scenario = load_scenario(&path, Default::default()).expect("a bundled scenario loads");
        let tasks =
            (u64::from(scenario.repetitions()).min(2) * scenario.policies.len() as u64).max(1);
        for task in 0..tasks {
            let lean = simulate_task(&scenario, task, false).expect("runs");
            let mut full = simulate_task(&scenario, task, true).expect("runs");
            assert!(lean.outcome.jobs.is_empty() && lean.outcome.completion_order.is_empty());
            full.outcome.jobs = Default::default();
            full.outcome.completion_order = Default::default();
            assert!(
                comparable(&lean) == comparable(&full),
                "{}: task {task}: the run without the log differs",
                path.display()
            );
        }
    }
}

/// Taking the run (`ExperimentResult::add_owned`, what `tenantsim
/// run` does) folds the same aggregates and spools the same rows as
/// borrowing it (`ExperimentResult::add`).
#[test]
fn a_run_taken_folds_what_a_run_borrowed_folds() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["quickstart", "easeml-hand", "online-lcdb-low-load"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenarios")
            .join(format!("{name}.toml"));
        let Ok(scenario) = load_scenario(&path, Default::default()) else {
            panic!("{} loads", path.display())
        };
        let mut borrowed =
            tenantsim::models::report::ExperimentResult::new(&scenario, false).expect("new");
        let mut taken =
            tenantsim::models::report::ExperimentResult::new(&scenario, false).expect("new");
        let tasks = u64::from(scenario.repetitions()) * scenario.policies.len() as u64;
        for task in 0..tasks {
            let run = simulate_task(&scenario, task, false).expect("runs");
            borrowed.add(&scenario, &run).expect("add");
            taken.add_owned(&scenario, run).expect("add");
        }
        assert!(borrowed.fold == taken.fold, "{name}: the folds differ");
        assert!(
            borrowed.aggregate(&scenario) == taken.aggregate(&scenario),
            "{name}: the aggregates differ"
        );
        for (r, who) in [(&mut borrowed, "borrowed"), (&mut taken, "taken")] {
            r.finish(1, std::time::Duration::ZERO).expect("finish");
            r.rows
                .tenants
                .copy_to(&dir.path().join(format!("{name}-{who}-tenants.csv")))
                .expect("copy");
            r.rows
                .summary
                .copy_to(&dir.path().join(format!("{name}-{who}-summary.csv")))
                .expect("copy");
        }
        for file in ["tenants", "summary"] {
            let read = |who: &str| {
                std::fs::read(dir.path().join(format!("{name}-{who}-{file}.csv"))).expect("read")
            };
            assert_eq!(read("borrowed"), read("taken"), "{name}: {file}.csv");
        }
    }
}

/// Issue 34 (DESIGN §2.6 "Done tenants"): the figures of done tenants
/// parked in memory and parked in a temporary file (`TENANTSIM_SPILL_BYTES
/// = 0` spills every sequence at its first record) give the same result
/// files, byte for byte: on generated tenants that arrive over time and
/// leave, run out of budget or run every model, under GP-UCB and
/// round-robin; and on a learning-curve scenario (models run at several
/// fidelities, so a tenant's jobs outnumber its models).
#[test]
fn done_tenants_spilled_to_a_file_give_the_files_of_those_kept_in_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let syn = dir.path().join("done.toml");
    std::fs::write(
        &syn,
        "name = \"done\"\nseed = 7\nrepetitions = 2\nthresholds = [0.05, 0.01]\n\
         [trace.syn]\nusers = 260\nmodels = 6\ncost = \"uniform(0,500)\"\nseed = 3\n\
         [split]\nprior_count = 60\n\
         [arrivals]\nkind = \"poisson\"\nrate_per_hour = 400\n\
         [limits]\npatience_s = 300\nbudget_gpu_s = 1500\n\
         [cluster]\ngpus = 3\n\
         [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
    )
    .expect("write scenario");
    let curves = crate::common::repo("scenarios/lcdb-curves-1gpu.toml");
    for scenario in [syn.as_path(), curves.as_path()] {
        let run = |spill: Option<&str>, out: &std::path::Path| {
            let (mut files, _) =
                crate::common::run_with_spill(scenario, spill, &["--no-cache"], out);
            files.remove(std::path::Path::new("run.json"));
            files
        };
        let kept = run(None, &dir.path().join("memory"));
        let spilled = run(Some("0"), &dir.path().join("file"));
        assert!(kept.len() > 2, "{} files", kept.len());
        assert!(
            kept == spilled,
            "{}: the result files differ when done tenants spill",
            scenario.display()
        );
        for out in ["memory", "file"] {
            std::fs::remove_dir_all(dir.path().join(out)).expect("clean");
        }
    }
}

/// A run's loss curves and tenant rows spilled to a file (every curve at
/// its first point, the rows at their first: `TENANTSIM_SPILL_BYTES=0`)
/// give the result files of curves and rows held in memory, and go
/// through the result cache both ways: stored spilled and read back in
/// memory, stored in memory and read back spilled (the cache and the
/// shards encode a curve and the rows from their streams, DESIGN §2.6
/// "Where a run's curves and rows live").
#[test]
fn spilled_curves_give_the_files_of_curves_in_memory_through_the_cache_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let scenario = dir.path().join("arrive.toml");
    std::fs::write(
        &scenario,
        "name = \"arrive\"\nseed = 5\nrepetitions = 3\nthresholds = [0.1, 0.02]\n\
         [trace.syn]\nusers = 180\nmodels = 5\nseed = 11\n\
         [split]\nprior_count = 40\n\
         [arrivals]\nkind = \"poisson\"\nrate_per_hour = 900\n\
         [cluster]\ngpus = 2\n\
         [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
    )
    .expect("write scenario");
    // The result files but run.json, and how many tasks the cache served.
    let run = |spill: Option<&str>, cache: &[&str], out: &str| {
        let (mut files, served) =
            crate::common::run_with_spill(&scenario, spill, cache, &dir.path().join(out));
        files.remove(std::path::Path::new("run.json"));
        (files, served)
    };
    let (memory, _) = run(None, &["--no-cache"], "memory");
    assert!(memory.len() > 2, "{} files", memory.len());
    let tasks = 3 * 2;
    let same = |(files, served): (_, u64), want_served: u64, what: &str| {
        assert!(files == memory, "{what}: the files differ");
        assert_eq!(served, want_served, "{what}: tasks served by the cache");
    };
    same(run(Some("0"), &["--no-cache"], "spilled"), 0, "spilled");
    let stored_spilled = dir.path().join("cache-spilled");
    let cache_a = ["--cache", stored_spilled.to_str().expect("utf-8 path")];
    same(run(Some("0"), &cache_a, "cold-spilled"), 0, "cold, spilled");
    same(
        run(None, &cache_a, "warm-memory"),
        tasks,
        "spilled, read back in memory",
    );
    let stored_memory = dir.path().join("cache-memory");
    let cache_b = ["--cache", stored_memory.to_str().expect("utf-8 path")];
    same(run(None, &cache_b, "cold-memory"), 0, "cold, in memory");
    same(
        run(Some("0"), &cache_b, "warm-spilled"),
        tasks,
        "in memory, read back spilled",
    );
}

/// A selector that says when it is dropped and where the engine's tenant
/// users are (and otherwise is `inner`).
struct Dropped {
    inner: Box<dyn tenantsim::models::sim::Selector>,
    flag: Arc<std::sync::atomic::AtomicBool>,
    users_at: Arc<std::sync::atomic::AtomicUsize>,
}

impl Drop for Dropped {
    fn drop(&mut self) {
        self.flag.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl tenantsim::models::sim::Selector for Dropped {
    fn propose(
        &mut self,
        tenants: &tenantsim::models::sim::Tenants,
        tenant: usize,
    ) -> tenantsim::core::error::Result<Option<tenantsim::models::sim::Proposal>> {
        let at = tenants.users().as_ptr() as usize;
        self.users_at.store(at, std::sync::atomic::Ordering::SeqCst);
        self.inner.propose(tenants, tenant)
    }
    fn started(&mut self, tenant: usize, model: usize) -> tenantsim::core::error::Result<()> {
        self.inner.started(tenant, model)
    }
    fn observe(&mut self, t: usize, k: usize, acc: f64) -> tenantsim::core::error::Result<()> {
        self.inner.observe(t, k, acc)
    }
}

/// A sink that writes down, when it finishes, whether the flag (`.0`) was
/// set (into `.1`) and where the arrival times the run's end hands it are
/// (into `.2`).
#[derive(Debug, Clone)]
struct SeesFlag(
    Arc<std::sync::atomic::AtomicBool>,
    Arc<std::sync::atomic::AtomicBool>,
    Arc<std::sync::atomic::AtomicUsize>,
);

impl JobSink for SeesFlag {
    fn arrived(&mut self, _now: u64, _i: usize, _best_possible: f64) {}
    fn started(&mut self, _i: usize, _start: u64, _end: u64) {}
    fn completed(&mut self, _i: usize, _start: u64, _at: u64, _acc: f64) {}
    fn cancelled(&mut self, _i: usize, _start: u64, _at: u64) {}
    fn fork(&self) -> Box<dyn JobSink> {
        Box::new(self.clone())
    }
    fn finish(
        self: Box<Self>,
        state: &RunEndState<'_>,
        _models: &dyn Fn(usize) -> usize,
        _best_possible: &dyn Fn(usize) -> f64,
        _cut: &mut dyn Iterator<Item = (usize, u64, u64)>,
    ) -> Arc<dyn std::any::Any + Send + Sync> {
        let seen = self.0.load(std::sync::atomic::Ordering::SeqCst);
        self.1.store(seen, std::sync::atomic::Ordering::SeqCst);
        let at = state.arrivals.listed().map_or(0, |a| a.as_ptr() as usize);
        self.2.store(at, std::sync::atomic::Ordering::SeqCst);
        Arc::new(())
    }
}

/// Issue 34 (DESIGN §8.5): a run that owns its policies drops them before
/// its metrics are finished (at 10^7 tenants the greedy heap and the GP
/// selector's map are half a gigabyte beside the rows); a run that borrows
/// them leaves them to its caller. The same outcome either way.
#[test]
fn a_run_drops_the_policies_it_owns_before_its_metrics_finish() {
    let path = crate::common::repo("scenarios/quickstart.toml");
    let scenario = load_scenario(&path, Default::default()).expect("loads");
    let saw = |owned: bool| {
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let out = simulate_rep_with(&scenario, 0, 0, false, &mut |i, mut a, b| {
            let mut sel = Box::new(Dropped {
                inner: b,
                flag: Arc::clone(&flag),
                users_at: Arc::default(),
            });
            let sink = Box::new(SeesFlag(
                Arc::clone(&flag),
                Arc::clone(&seen),
                Arc::default(),
            ));
            if owned {
                simulate_observed_owned(&i.lent()?, a, sel, sink, false)
            } else {
                simulate_observed(&i.lent()?, a.as_mut(), sel.as_mut(), sink, false)
            }
        })
        .expect("runs");
        let seen = seen.load(std::sync::atomic::Ordering::SeqCst);
        (seen, out.outcome.end, out.outcome.events)
    };
    let (owned_seen, owned_end, owned_events) = saw(true);
    let (borrowed_seen, end, events) = saw(false);
    assert!(
        owned_seen,
        "an owned selector still alive when the sink finished"
    );
    assert!(!borrowed_seen, "a borrowed selector dropped by the run");
    assert!(events > 0);
    assert_eq!((owned_end, owned_events), (end, events));
}

/// Issue 34 (DESIGN §8.5): a repetition's main run shares the runner's
/// tenant users and arrival times with the engine (its tenants and its
/// queue) instead of copying them: 16 bytes for each of scale-year's 10^7
/// tenants (docs/PERFORMANCE.md "The engine copied the runner's arrivals
/// and users"). A run lent them copies the arrival times; the users, a
/// `TenantUsers`, are shared by a clone either way (since 2026-12-05). The
/// same outcome either way.
#[test]
fn the_main_run_shares_the_runners_users_and_arrivals_instead_of_copying_them() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let path = crate::common::repo("scenarios/quickstart.toml");
    let scenario = load_scenario(&path, Default::default()).expect("loads");
    let run = |shared: bool| {
        let users_at = Arc::new(AtomicUsize::new(0));
        let arrivals_at = Arc::new(AtomicUsize::new(0));
        let mut given = (0, 0);
        let out = simulate_rep_with(&scenario, 0, 0, false, &mut |i, a, b| {
            given = (
                i.tenants.as_ptr() as usize,
                i.arrivals.listed().map_or(1, |a| a.as_ptr() as usize),
            );
            let sel = Box::new(Dropped {
                inner: b,
                flag: Arc::default(),
                users_at: Arc::clone(&users_at),
            });
            let sink = Box::new(SeesFlag(
                Arc::default(),
                Arc::default(),
                Arc::clone(&arrivals_at),
            ));
            // The log kept: the rows are computed from it (the sink
            // folds nothing).
            if shared {
                simulate_observed_shared(i, a, sel, sink, true)
            } else {
                simulate_observed_owned(&i.lent()?, a, sel, sink, true)
            }
        })
        .expect("runs");
        let seen = (users_at.load(SeqCst), arrivals_at.load(SeqCst));
        assert!(seen.0 != 0 && seen.1 != 0, "nothing seen: {seen:?}");
        (
            (seen.0 == given.0, seen.1 == given.1),
            out.outcome.end,
            out.outcome.events,
            out.tenants.to_vec().expect("rows"),
        )
    };
    let (shared, end, events, rows) = run(true);
    let (lent, lent_end, lent_events, lent_rows) = run(false);
    assert_eq!(shared, (true, true), "the engine copied the runner's lists");
    assert_eq!(
        lent,
        (true, false),
        "a lent run shares the users (a clone of the shared list) and copies the arrival times"
    );
    assert!(events > 0);
    assert_eq!((end, events), (lent_end, lent_events));
    assert_eq!(rows, lent_rows);
}
