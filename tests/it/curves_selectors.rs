//! The multi-fidelity selectors (DESIGN §12.3) on a tiny curve trace,
//! computed on paper: `successive-halving`, `asha` and `hyperband`, from
//! scratch and incremental; their bad keys.
//!
//! The trace: tenant `t` and prior users `p`, `q`; models m0, m1, m2 at
//! fidelities 1, 2, 4 (accuracy, runtime_s):
//!
//! | t  | f = 1     | f = 2     | f = 4     |
//! |----|-----------|-----------|-----------|
//! | m0 | 0.50, 1   | 0.60, 2   | 0.70, 4   |
//! | m1 | 0.55, 2   | 0.75, 3   | 0.90, 6   |
//! | m2 | 0.40, 1   | 0.50, 1   | 0.60, 2   |
//!
//! A*_t = 0.90. With η = 2 and min_fidelity = 1 (the trace's smallest) the
//! rungs are 1, 2, 4 (s_max = ⌊log₂ 4⌋ = 2), levels 0, 1, 2 of every pair.
//! The prior users' top-level accuracies: p 0.8, 0.6, 0.7; q 0.4, 0.3,
//! 0.5; so the prior means are m0 0.60, m1 0.45, m2 0.60.

use std::sync::Arc;
use tenantsim::models::sim::TenantUsers;

use tenantsim::models::metrics::LossCurve;
use tenantsim::models::policy::Params;
use tenantsim::models::policy::registry::{self, SelectorEntry};
use tenantsim::models::sim::{
    GpuTypes, RepContext, RunOutcome, SimConfig, SimInput, TenantLimits, Tenants, simulate,
};
use tenantsim::models::trace::{CostMode, Trace, parse_trace};

const TRACE: &str = "user,model,fidelity,accuracy,runtime_s\n\
    p,m0,1,0.6,1\np,m0,2,0.7,1\np,m0,4,0.8,1\n\
    p,m1,1,0.4,1\np,m1,2,0.5,1\np,m1,4,0.6,1\n\
    p,m2,1,0.5,1\np,m2,2,0.6,1\np,m2,4,0.7,1\n\
    q,m0,1,0.2,3\nq,m0,2,0.3,3\nq,m0,4,0.4,3\n\
    q,m1,1,0.1,3\nq,m1,2,0.2,3\nq,m1,4,0.3,3\n\
    q,m2,1,0.3,3\nq,m2,2,0.4,3\nq,m2,4,0.5,3\n\
    t,m0,1,0.50,1\nt,m0,2,0.60,2\nt,m0,4,0.70,4\n\
    t,m1,1,0.55,2\nt,m1,2,0.75,3\nt,m1,4,0.90,6\n\
    t,m2,1,0.40,1\nt,m2,2,0.50,1\nt,m2,4,0.60,2\n";

/// The trace, with `cost` and `restore_s`.
fn trace(cost: CostMode, restore_s: f64) -> Arc<Trace> {
    let mut t = parse_trace("tiny.csv", TRACE.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    t.set_cost_mode(cost, (restore_s * 1e6) as u64);
    Arc::new(t)
}

fn spec(name: &str) -> &'static SelectorEntry {
    registry::selector(name).unwrap_or_else(|| panic!("no selector {name}"))
}

/// Run `selector` (keys `keys`) under `scheduler` for tenant t with prior
/// users p, q.
fn run(
    trace: &Arc<Trace>,
    scheduler: &str,
    selector: &str,
    keys: &[(&str, toml::Value)],
    gpus: u32,
    per_tenant: u32,
) -> RunOutcome {
    let values = keys
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let mut params = Params::new("test", values);
    let sch = registry::scheduler(scheduler).unwrap_or_else(|| panic!("no {scheduler}"));
    let make_sch = (sch.parse)(&mut params).unwrap_or_else(|e| panic!("{e}"));
    let make_sel = (spec(selector).parse)(&mut params, trace).unwrap_or_else(|e| panic!("{e}"));
    params
        .finish("the test's policy")
        .unwrap_or_else(|e| panic!("{e}"));
    let tenants = [2usize];
    let prior = [0usize, 1];
    let ctx = RepContext {
        trace,
        gpu_types: &Arc::new(GpuTypes::untyped(1)),
        tenants: &TenantUsers::list(&tenants),
        prior: &prior,
        seed: 7,
        repetition: 0,
    };
    let mut scheduler = make_sch(&ctx).unwrap_or_else(|e| panic!("{e}"));
    let mut selector = make_sel(&ctx).unwrap_or_else(|e| panic!("{e}"));
    let input = SimInput {
        trace,
        tenants: &TenantUsers::list(&tenants),
        arrivals: &[0],
        gpu_types: &GpuTypes::untyped(gpus),
        config: SimConfig {
            gpus,
            max_jobs_per_tenant: per_tenant,
            horizon: None,
            limits: TenantLimits::default(),
        },
    };
    simulate(&input, scheduler.as_mut(), selector.as_mut()).unwrap_or_else(|e| panic!("{e}"))
}

/// (model, fidelity, start s, end s) of every job in start order.
fn log(trace: &Trace, out: &RunOutcome) -> Vec<(u32, f64, f64, f64)> {
    out.jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j| {
            (
                j.model,
                trace.level_fidelity(2, j.model as usize, j.level as usize),
                j.start as f64 / 1e6,
                j.end as f64 / 1e6,
            )
        })
        .collect()
}

fn regret(trace: &Trace, out: &RunOutcome) -> f64 {
    LossCurve::from_outcome(trace, &[2], &[0], out)
        .expect("curve")
        .cumulative_regret(out.end)
        .expect("read")
}

fn eta(v: i64) -> (&'static str, toml::Value) {
    ("eta", toml::Value::Integer(v))
}

/// `after_schedule = "sweep"`: the tests below that end in a sweep set it
/// (the default is `"stop"`, tests/it/curves_after_schedule.rs).
fn sweep() -> (&'static str, toml::Value) {
    ("after_schedule", toml::Value::String("sweep".into()))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// Successive halving, η = 2, 1 GPU, from scratch:
///
/// | rung (f) | jobs (start–end: accuracy)                  | promoted ⌈n/2⌉ |
/// |----------|---------------------------------------------|----------------|
/// | 0 (1)    | m0 0–1: .50, m1 1–3: .55, m2 3–4: .40      | m1, m0         |
/// | 1 (2)    | m1 4–7: .75, m0 7–9: .60                    | m1             |
/// | 2 (4)    | m1 9–15: .90                                 | (top)          |
/// | sweep    | m0 15–19: .70 (last .60), m2 19–21: .60     |                |
///
/// Loss 0.9 − best: 0.90 on [0,1), 0.40 on [1,3), 0.35 on [3,7), 0.15 on
/// [7,15), 0 from 15. R = 0.9 + 0.8 + 0.35·4 + 0.15·8 = 4.3 accuracy·s.
#[test]
fn successive_halving_one_gpu_matches_paper() {
    let t = trace(CostMode::FromScratch, 0.0);
    let out = run(
        &t,
        "round-robin",
        "successive-halving",
        &[eta(2), sweep()],
        1,
        1,
    );
    assert_eq!(
        log(&t, &out),
        vec![
            (0, 1.0, 0.0, 1.0),
            (1, 1.0, 1.0, 3.0),
            (2, 1.0, 3.0, 4.0),
            (1, 2.0, 4.0, 7.0),
            (0, 2.0, 7.0, 9.0),
            (1, 4.0, 9.0, 15.0),
            (0, 4.0, 15.0, 19.0),
            (2, 4.0, 19.0, 21.0),
        ]
    );
    let r = regret(&t, &out);
    assert!(close(r, 4.3), "R = {r}");
}

/// The same under `cost = "incremental"` with restore_s = 0.5: a job
/// continuing a model from its highest completed level pays the increments
/// above it plus 0.5 s.
///
/// | job            | cost                 | start–end   |
/// |----------------|----------------------|-------------|
/// | m0 f=1         | 1                    | 0–1         |
/// | m1 f=1         | 2                    | 1–3         |
/// | m2 f=1         | 1                    | 3–4         |
/// | m1 f=2 (from 1)| 3 + 0.5              | 4–7.5       |
/// | m0 f=2 (from 1)| 2 + 0.5              | 7.5–10      |
/// | m1 f=4 (from 2)| 6 + 0.5              | 10–16.5     |
/// | m0 f=4 (from 2)| 4 + 0.5              | 16.5–21     |
/// | m2 f=4 (from 1)| 1 + 2 + 0.5 (f=2, 4) | 21–24.5     |
///
/// Same promotions; loss 0.90 on [0,1), 0.40 on [1,3), 0.35 on [3,7.5),
/// 0.15 on [7.5,16.5), 0 after: R = 0.9 + 0.8 + 1.575 + 1.35 = 4.625.
#[test]
fn successive_halving_incremental_continues_from_the_checkpoint() {
    let t = trace(CostMode::Incremental, 0.5);
    let out = run(
        &t,
        "round-robin",
        "successive-halving",
        &[eta(2), sweep()],
        1,
        1,
    );
    assert_eq!(
        log(&t, &out),
        vec![
            (0, 1.0, 0.0, 1.0),
            (1, 1.0, 1.0, 3.0),
            (2, 1.0, 3.0, 4.0),
            (1, 2.0, 4.0, 7.5),
            (0, 2.0, 7.5, 10.0),
            (1, 4.0, 10.0, 16.5),
            (0, 4.0, 16.5, 21.0),
            (2, 4.0, 21.0, 24.5),
        ]
    );
    let r = regret(&t, &out);
    assert!(close(r, 4.625), "R = {r}");
}

/// Successive halving on 2 GPUs, 2 jobs per tenant: a rung waits for its
/// last job, leaving a GPU idle.
///
/// - 0: m0 f=1 (0–1) and m1 f=1 (0–2); 1: m2 f=1 (1–2);
/// - 2: rung 0 done (.50, .55, .40): m1 f=2 (2–5), m0 f=2 (2–4);
/// - 4: m0 done, m1 still runs: the tenant waits, GPU idle until 5;
/// - 5: rung 1 done (.75, .60): m1 f=4 (5–11) alone (rung of one);
/// - 11: sweep: m0 f=4 (11–15), m2 f=4 (11–13).
#[test]
fn successive_halving_waits_for_its_rung_on_two_gpus() {
    let t = trace(CostMode::FromScratch, 0.0);
    let out = run(
        &t,
        "round-robin",
        "successive-halving",
        &[eta(2), sweep()],
        2,
        2,
    );
    assert_eq!(
        log(&t, &out),
        vec![
            (0, 1.0, 0.0, 1.0),
            (1, 1.0, 0.0, 2.0),
            (2, 1.0, 1.0, 2.0),
            (1, 2.0, 2.0, 5.0),
            (0, 2.0, 2.0, 4.0),
            (1, 4.0, 5.0, 11.0),
            (0, 4.0, 11.0, 15.0),
            (2, 4.0, 11.0, 13.0),
        ]
    );
}

/// ASHA, η = 2, 1 GPU. New models by prior mean: m0 0.60 and m2 0.60 (tie
/// to the lower index), then m1 0.45.
///
/// | t  | rung results before the decision (best first)  | job           |
/// |----|------------------------------------------------|---------------|
/// | 0  | —                                              | new m0 f=1 0–1 (.50) |
/// | 1  | r0 {m0}: ⌊1/2⌋ = 0                              | new m2 f=1 1–2 (.40) |
/// | 2  | r0 {m0, m2}: top 1 = m0                         | m0 f=2 2–4 (.60) |
/// | 4  | r1 {m0}: 0; r0 top 1 = m0, promoted             | new m1 f=1 4–6 (.55) |
/// | 6  | r1 {m0}: 0; r0 {m1, m0, m2}: top 1 = m1         | m1 f=2 6–9 (.75) |
/// | 9  | r1 {m1, m0}: top 1 = m1                         | m1 f=4 9–15 (.90) |
/// | 15 | nothing to promote, no new model, none running  | sweep: m0 f=4 15–19, m2 f=4 19–21 |
///
/// Loss 0.90 on [0,1), 0.40 on [1,4), 0.30 on [4,9), 0.15 on [9,15), 0
/// after: R = 0.9 + 1.2 + 1.5 + 0.9 = 4.5.
#[test]
fn asha_one_gpu_matches_paper() {
    let t = trace(CostMode::FromScratch, 0.0);
    let out = run(&t, "round-robin", "asha", &[eta(2), sweep()], 1, 1);
    assert_eq!(
        log(&t, &out),
        vec![
            (0, 1.0, 0.0, 1.0),
            (2, 1.0, 1.0, 2.0),
            (0, 2.0, 2.0, 4.0),
            (1, 1.0, 4.0, 6.0),
            (1, 2.0, 6.0, 9.0),
            (1, 4.0, 9.0, 15.0),
            (0, 4.0, 15.0, 19.0),
            (2, 4.0, 19.0, 21.0),
        ]
    );
    let r = regret(&t, &out);
    assert!(close(r, 4.5), "R = {r}");
}

/// ASHA under `incremental` (restore 0): the same decisions, each
/// continuation paying only its increments:
/// m0 f=1 0–1, m2 f=1 1–2, m0 f=2 (2) 2–4, m1 f=1 (2) 4–6, m1 f=2 (3) 6–9,
/// m1 f=4 (6) 9–15, m0 f=4 (4) 15–19, m2 f=4 (1 + 2) 19–22. The loss is
/// the same as from scratch up to 15, so R = 4.5 too.
#[test]
fn asha_incremental_matches_paper() {
    let t = trace(CostMode::Incremental, 0.0);
    let out = run(&t, "round-robin", "asha", &[eta(2), sweep()], 1, 1);
    assert_eq!(
        log(&t, &out),
        vec![
            (0, 1.0, 0.0, 1.0),
            (2, 1.0, 1.0, 2.0),
            (0, 2.0, 2.0, 4.0),
            (1, 1.0, 4.0, 6.0),
            (1, 2.0, 6.0, 9.0),
            (1, 4.0, 9.0, 15.0),
            (0, 4.0, 15.0, 19.0),
            (2, 4.0, 19.0, 22.0),
        ]
    );
    let r = regret(&t, &out);
    assert!(close(r, 4.5), "R = {r}");
}

/// Hyperband, η = 2, s_max = 2: brackets s = 2 (n = ⌈3/3·4⌉ = 4 from rung
/// 0), s = 1 (n = ⌈3/2·2⌉ = 3 from rung 1), s = 0 (n = 3 from rung 2).
///
/// - s = 2 has only the 3 models: rung 0 m0 .50, m1 .55, m2 .40 → m1, m0;
///   rung 1 m1 .75, m0 .60 → m1; rung 2 m1 .90.
/// - s = 1 from rung 1 (f = 2): no model is unused; wrapping, only m2 has
///   started below f = 2 (at f = 1): m2 f=2 .50 → m2 f=4 .60.
/// - s = 0 from rung 2 (f = 4): only m0 started below it (f = 2): m0 f=4.
/// - nothing is left for the sweep.
#[test]
fn hyperband_brackets_wrap_to_models_below_their_first_rung() {
    let t = trace(CostMode::FromScratch, 0.0);
    let out = run(&t, "round-robin", "hyperband", &[eta(2)], 1, 1);
    assert_eq!(
        log(&t, &out),
        vec![
            (0, 1.0, 0.0, 1.0),
            (1, 1.0, 1.0, 3.0),
            (2, 1.0, 3.0, 4.0),
            (1, 2.0, 4.0, 7.0),
            (0, 2.0, 7.0, 9.0),
            (1, 4.0, 9.0, 15.0),
            (2, 2.0, 15.0, 16.0),
            (2, 4.0, 16.0, 18.0),
            (0, 4.0, 18.0, 22.0),
        ]
    );
}

/// Greedy's score of the first proposal of each selector (DESIGN §12.3),
/// best_t = 0, nothing completed:
///
/// - successive-halving proposes m0 at f = 1: gain = mean(max(0, 0.6 − 0),
///   max(0, 0.2 − 0)) = 0.4; believed seconds = mean(1, 3) = 2.
/// - asha proposes m0 at f = 1 too (prior-mean order): the same.
/// - hyperband proposes m0 at f = 1 (bracket s = 2 starts at rung 0).
#[test]
fn first_proposals_carry_the_prior_gain_and_cost() {
    let t = trace(CostMode::FromScratch, 0.0);
    let tenants_idx = [2usize];
    let prior = [0usize, 1];
    let ctx = RepContext {
        trace: &t,
        gpu_types: &Arc::new(GpuTypes::untyped(1)),
        tenants: &TenantUsers::list(&tenants_idx),
        prior: &prior,
        seed: 7,
        repetition: 0,
    };
    let tenants = Tenants::new(
        &t,
        &TenantUsers::list(&tenants_idx),
        &[0],
        1,
        TenantLimits::default(),
    );
    for name in ["successive-halving", "asha", "hyperband"] {
        let mut params = Params::new("test", Default::default());
        let make = (spec(name).parse)(&mut params, &t).unwrap_or_else(|e| panic!("{e}"));
        let mut sel = make(&ctx).unwrap_or_else(|e| panic!("{e}"));
        let p = sel
            .propose(&tenants, 0)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|| panic!("{name}: no proposal"));
        assert_eq!((p.model, p.level), (0, Some(0)), "{name}");
        assert!(close(p.gain(0.0), 0.4), "{name}: gain {}", p.gain(0.0));
        assert!(close(p.believed_seconds, 2.0), "{name}");
    }
}

#[test]
fn bad_keys_are_clear_errors() {
    let t = trace(CostMode::FromScratch, 0.0);
    let cases: Vec<(Vec<(&str, toml::Value)>, &str)> = vec![
        (
            vec![eta(1)],
            "key `eta`: expected the reduction factor η, an integer >= 2, got 1",
        ),
        (
            vec![("eta", toml::Value::Float(2.5))],
            "key `eta`: expected a non-negative integer",
        ),
        (vec![eta(-3)], "key `eta`: expected a non-negative integer"),
        (
            vec![("min_fidelity", toml::Value::Float(0.0))],
            "key `min_fidelity`: expected the first rung's fidelity, a finite number > 0, got 0",
        ),
        (
            vec![("min_fidelity", toml::Value::Integer(-2))],
            "key `min_fidelity`: expected the first rung's fidelity, a finite number > 0, got -2",
        ),
        (
            vec![("min_fidelity", toml::Value::Integer(5))],
            "key `min_fidelity`: 5 is above every fidelity of tiny.csv (the largest is 4)",
        ),
        (
            vec![("min_fidelity", toml::Value::String("low".into()))],
            "key `min_fidelity`: expected a number",
        ),
    ];
    for name in ["successive-halving", "hyperband", "asha"] {
        for (keys, want) in &cases {
            let values = keys
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            let mut params = Params::new("s.toml: [[policy]] #1 (\"p\")", values);
            let err = match (spec(name).parse)(&mut params, &t) {
                Ok(_) => panic!("{name} {keys:?}: accepted"),
                Err(e) => e.to_string(),
            };
            assert!(
                err.contains(want) && err.contains("s.toml: [[policy]] #1"),
                "{name} {keys:?}: {err}"
            );
        }
    }
}

/// A min_fidelity between the trace's fidelities snaps: min_fidelity = 1.5,
/// η = 2 gives rungs 1.5, 3 (s_max = ⌊log₂(4/1.5)⌋ = 1) and then 4; the
/// pairs train them at f = 2, 4, 4 — so rungs 1 and 2 collapse and a model
/// promoted to rung 2 keeps its rung-1 result with no job. SH: rung 0 (f=2)
/// m0 .60, m1 .75, m2 .50 → m1, m0; rung 1 (f=4) m1 .90, m0 .70 → m1,
/// taken over at rung 2; the sweep then trains m2 at f = 4.
#[test]
fn collapsed_rungs_run_each_triple_once() {
    let t = trace(CostMode::FromScratch, 0.0);
    let out = run(
        &t,
        "round-robin",
        "successive-halving",
        &[eta(2), ("min_fidelity", toml::Value::Float(1.5)), sweep()],
        1,
        1,
    );
    let jobs: Vec<(u32, f64)> = log(&t, &out).iter().map(|j| (j.0, j.1)).collect();
    assert_eq!(
        jobs,
        vec![(0, 2.0), (1, 2.0), (2, 2.0), (1, 4.0), (0, 4.0), (2, 4.0)]
    );
}

/// With no prior users the proposals are neutral (DESIGN §12.3): gain
/// max(0, 1 − best_t) = 1 before any completion, believed seconds 1; ASHA
/// then takes its new models in a random order from the repetition's
/// stream, the same for the same seed.
#[test]
fn without_prior_users_proposals_are_neutral() {
    let t = trace(CostMode::FromScratch, 0.0);
    let tenants_idx = [2usize];
    let ctx = RepContext {
        trace: &t,
        gpu_types: &Arc::new(GpuTypes::untyped(1)),
        tenants: &TenantUsers::list(&tenants_idx),
        prior: &[],
        seed: 7,
        repetition: 0,
    };
    let tenants = Tenants::new(
        &t,
        &TenantUsers::list(&tenants_idx),
        &[0],
        1,
        TenantLimits::default(),
    );
    for name in ["successive-halving", "asha", "hyperband"] {
        let mut params = Params::new("test", Default::default());
        let make = (spec(name).parse)(&mut params, &t).unwrap_or_else(|e| panic!("{e}"));
        let mut sel = make(&ctx).unwrap_or_else(|e| panic!("{e}"));
        let p = sel
            .propose(&tenants, 0)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|| panic!("{name}: no proposal"));
        assert!(close(p.gain(0.0), 1.0), "{name}: gain {}", p.gain(0.0));
        assert!(close(p.believed_seconds, 1.0) && close(p.believed_cost, 1.0));
        let again = make(&ctx)
            .unwrap_or_else(|e| panic!("{e}"))
            .propose(&tenants, 0)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again.map(|q| q.model), Some(p.model), "{name}");
    }
}

/// A scenario may pair the multi-fidelity selectors with greedy and give
/// no prior users: they are scored selectors but build no GP prior (the
/// loader once required prior users of every selector with a score).
#[test]
fn a_scenario_without_prior_users_accepts_the_multi_fidelity_selectors() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("t.csv"), TRACE).unwrap_or_else(|e| panic!("{e}"));
    for selector in ["successive-halving", "hyperband", "asha"] {
        let text = format!(
            "name = \"mf\"\n[trace]\npath = \"t.csv\"\ncost = \"incremental\"\n\
             [cluster]\ngpus = 2\n[[policy]]\nname = \"p\"\nscheduler = \"greedy\"\n\
             selector = \"{selector}\"\neta = 2\nafter_schedule = \"sweep\"\n"
        );
        let path = dir.path().join("s.toml");
        let s = tenantsim::models::scenario::parse_scenario(
            &path,
            &text,
            tenantsim::core::io::scenario::Overrides::default(),
        )
        .unwrap_or_else(|e| panic!("{selector}: {e}"));
        let r = tenantsim::models::experiment::simulate_one(&s, 0, 0)
            .unwrap_or_else(|e| panic!("{selector}: {e}"));
        // Three tenants, three models each, every one ends at its top
        // (the sweep).
        let top: Vec<_> = r
            .outcome
            .jobs
            .to_vec()
            .expect("the job log")
            .into_iter()
            .filter(|j| j.level == 2)
            .collect();
        assert_eq!(top.len(), 9, "{selector}");
    }
}
