//! What `successive-halving`, `hyperband` and `asha` do once a tenant's
//! schedule is over (DESIGN §12.3, key `after_schedule`): by default the
//! tenant is done (`"stop"`, the published algorithms) and its GPU time
//! goes to the other tenants; `"sweep"` trains every model not yet at its
//! top fidelity. Every case is computed on paper below.

use std::fs;
use std::sync::Arc;
use tenantsim::models::sim::TenantUsers;

use tenantsim::models::metrics::LossCurve;
use tenantsim::models::policy::Params;
use tenantsim::models::policy::registry;
use tenantsim::models::sim::{
    EndReason, GpuTypes, RepContext, RunOutcome, SimConfig, SimInput, TenantLimits, simulate,
};
use tenantsim::models::trace::{Trace, parse_trace};

use crate::common::run_scenario;

/// A one-run setup: the trace, the tenants (trace users) and the prior
/// users.
struct Setup {
    trace: Arc<Trace>,
    tenants: Vec<usize>,
    prior: Vec<usize>,
}

impl Setup {
    fn new(csv: &str, tenants: &[usize], prior: &[usize]) -> Self {
        let t = parse_trace("hand.csv", csv.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        Self {
            trace: Arc::new(t),
            tenants: tenants.to_vec(),
            prior: prior.to_vec(),
        }
    }

    /// Run `selector` (keys `keys`) under round-robin on one GPU, one job
    /// per tenant at a time, every tenant arriving at 0.
    fn run(&self, selector: &str, keys: &[(&str, toml::Value)]) -> RunOutcome {
        self.run_with(selector, keys, TenantLimits::default(), None)
    }

    /// [`Setup::run`] with `limits` and a horizon (µs).
    fn run_with(
        &self,
        selector: &str,
        keys: &[(&str, toml::Value)],
        limits: TenantLimits,
        horizon: Option<u64>,
    ) -> RunOutcome {
        let values = keys
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let mut params = Params::new("test", values);
        let sch = registry::scheduler("round-robin").unwrap_or_else(|| panic!("no round-robin"));
        let sel = registry::selector(selector).unwrap_or_else(|| panic!("no {selector}"));
        let make_sch = (sch.parse)(&mut params).unwrap_or_else(|e| panic!("{e}"));
        let make_sel = (sel.parse)(&mut params, &self.trace).unwrap_or_else(|e| panic!("{e}"));
        params.finish("the test").unwrap_or_else(|e| panic!("{e}"));
        let ctx = RepContext {
            trace: &self.trace,
            gpu_types: &Arc::new(GpuTypes::untyped(1)),
            tenants: &TenantUsers::list(&self.tenants),
            prior: &self.prior,
            seed: 7,
            repetition: 0,
        };
        let mut scheduler = make_sch(&ctx).unwrap_or_else(|e| panic!("{e}"));
        let mut selector = make_sel(&ctx).unwrap_or_else(|e| panic!("{e}"));
        let arrivals = vec![0; self.tenants.len()];
        let input = SimInput {
            trace: &self.trace,
            tenants: &TenantUsers::list(&self.tenants),
            arrivals: &arrivals,
            gpu_types: &GpuTypes::untyped(1),
            config: SimConfig {
                gpus: 1,
                max_jobs_per_tenant: 1,
                horizon,
                limits,
            },
        };
        simulate(&input, scheduler.as_mut(), selector.as_mut()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// (tenant, model, fidelity, start s, end s) of every job in start
    /// order.
    fn log(&self, out: &RunOutcome) -> Vec<(u32, u32, f64, f64, f64)> {
        out.jobs
            .to_vec()
            .expect("the job log")
            .into_iter()
            .map(|j| {
                let u = self.tenants[j.tenant as usize];
                (
                    j.tenant,
                    j.model,
                    self.trace
                        .level_fidelity(u, j.model as usize, j.level as usize),
                    j.start as f64 / 1e6,
                    j.end as f64 / 1e6,
                )
            })
            .collect()
    }

    fn curve(&self, out: &RunOutcome) -> LossCurve {
        let arrivals = vec![0; self.tenants.len()];
        LossCurve::from_outcome(&self.trace, &self.tenants, &arrivals, out).expect("curve")
    }
}

fn key(k: &'static str, v: &str) -> (&'static str, toml::Value) {
    (k, toml::Value::String(v.into()))
}

fn eta(v: i64) -> (&'static str, toml::Value) {
    ("eta", toml::Value::Integer(v))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The example: one tenant, 3 models at fidelities 1, 3, 9
/// (accuracy, runtime_s):
///
/// | m  | f = 1    | f = 3    | f = 9    |
/// |----|----------|----------|----------|
/// | m0 | 0.30, 1  | 0.45, 3  | 0.60, 9  |
/// | m1 | 0.50, 1  | 0.60, 3  | 0.70, 9  |
/// | m2 | 0.40, 1  | 0.50, 3  | 0.80, 9  |
const THREE_MODELS: &str = "user,model,fidelity,accuracy,runtime_s\n\
    t,m0,1,0.30,1\nt,m0,3,0.45,3\nt,m0,9,0.60,9\n\
    t,m1,1,0.50,1\nt,m1,3,0.60,3\nt,m1,9,0.70,9\n\
    t,m2,1,0.40,1\nt,m2,3,0.50,3\nt,m2,9,0.80,9\n";

/// Successive halving, η = 3 (default), r₀ = 1: rungs 1, 3, 9. Rung 0
/// m0 0–1 .30, m1 1–2 .50, m2 2–3 .40 → top ⌈3/3⌉ = 1 is m1; m1 f=3 3–6
/// .60; m1 f=9 6–15 .70. The schedule is over at 15.
///
/// A* = .80 (m2 at f = 9, eliminated at rung 0). Loss .80 on [0,1), .50 on
/// [1,2), .30 on [2,6), .20 on [6,15), .10 after.
/// - stop (default): the run ends at 15 with loss .10;
///   R = .8 + .5 + .3·4 + .2·9 = 4.3.
/// - sweep: m2 (last .40) before m0 (last .30): m2 f=9 15–24 .80, m0 f=9
///   24–33 .60; loss 0 from 24: R = 4.3 + .1·9 = 5.2.
#[test]
fn successive_halving_stops_after_its_last_rung_by_default() {
    let s = Setup::new(THREE_MODELS, &[0], &[]);
    let published = vec![
        (0, 0, 1.0, 0.0, 1.0),
        (0, 1, 1.0, 1.0, 2.0),
        (0, 2, 1.0, 2.0, 3.0),
        (0, 1, 3.0, 3.0, 6.0),
        (0, 1, 9.0, 6.0, 15.0),
    ];
    for keys in [vec![], vec![key("after_schedule", "stop")]] {
        let out = s.run("successive-halving", &keys);
        assert_eq!(s.log(&out), published, "{keys:?}");
        assert_eq!(out.end, 15_000_000);
        let c = s.curve(&out);
        assert!(
            close(c.final_loss().expect("read"), 0.1),
            "{}",
            c.final_loss().expect("read")
        );
        let r = c.cumulative_regret(out.end).expect("read");
        assert!(close(r, 4.3), "R = {r}");
        assert_eq!(
            out.end_states.reasons().expect("end states"),
            vec![EndReason::ScheduleOver]
        );
    }

    let out = s.run("successive-halving", &[key("after_schedule", "sweep")]);
    let mut swept = published.clone();
    swept.extend([(0, 2, 9.0, 15.0, 24.0), (0, 0, 9.0, 24.0, 33.0)]);
    assert_eq!(s.log(&out), swept);
    let c = s.curve(&out);
    assert!(close(c.final_loss().expect("read"), 0.0));
    let r = c.cumulative_regret(out.end).expect("read");
    assert!(close(r, 5.2), "R = {r}");
    assert_eq!(
        out.end_states.reasons().expect("end states"),
        vec![EndReason::AllModelsRun]
    );
}

/// Hyperband on two brackets: one tenant, 5 models at fidelities 1, 3,
/// η = 3: s_max = ⌊log₃ 3⌋ = 1, rungs 1, 3.
///
/// | m  | f = 1    | f = 3    |
/// |----|----------|----------|
/// | m0 | 0.50, 1  | 0.62, 2  |
/// | m1 | 0.60, 1  | 0.70, 3  |
/// | m2 | 0.55, 2  | 0.90, 4  |
/// | m3 | 0.40, 1  | 0.65, 2  |
/// | m4 | 0.45, 1  | 0.75, 3  |
///
/// - Bracket s = 1: n = ⌈2/2·3⌉ = 3 from rung 0: m0 0–1 .50, m1 1–2 .60,
///   m2 2–4 .55 → top ⌈3/3⌉ = 1 is m1: m1 f=3 4–7 .70.
/// - Bracket s = 0: n = ⌈2/1·1⌉ = 2 from rung 1 (the last): the unused m3
///   f=3 7–9 .65, m4 f=3 9–12 .75; nothing above to promote to.
///
/// A* = .90 (m2 at f = 3). Loss .90 on [0,1), .40 on [1,2), .30 on [2,7),
/// .20 on [7,12), .15 after.
/// - stop: ends at 12, R = .9 + .4 + .3·5 + .2·5 = 3.8, final loss .15.
/// - sweep: m2 (last .55) before m0 (.50): m2 f=3 12–16 .90, m0 f=3 16–18;
///   R = 3.8 + .15·4 = 4.4, final loss 0.
#[test]
fn hyperband_stops_after_its_last_bracket() {
    let csv = "user,model,fidelity,accuracy,runtime_s\n\
        t,m0,1,0.50,1\nt,m0,3,0.62,2\n\
        t,m1,1,0.60,1\nt,m1,3,0.70,3\n\
        t,m2,1,0.55,2\nt,m2,3,0.90,4\n\
        t,m3,1,0.40,1\nt,m3,3,0.65,2\n\
        t,m4,1,0.45,1\nt,m4,3,0.75,3\n";
    let s = Setup::new(csv, &[0], &[]);
    let brackets = vec![
        (0, 0, 1.0, 0.0, 1.0),
        (0, 1, 1.0, 1.0, 2.0),
        (0, 2, 1.0, 2.0, 4.0),
        (0, 1, 3.0, 4.0, 7.0),
        (0, 3, 3.0, 7.0, 9.0),
        (0, 4, 3.0, 9.0, 12.0),
    ];
    let out = s.run("hyperband", &[eta(3)]);
    assert_eq!(s.log(&out), brackets);
    let c = s.curve(&out);
    assert!(
        close(c.final_loss().expect("read"), 0.15),
        "{}",
        c.final_loss().expect("read")
    );
    let r = c.cumulative_regret(out.end).expect("read");
    assert!(close(r, 3.8), "R = {r}");
    assert_eq!(
        out.end_states.reasons().expect("end states"),
        vec![EndReason::ScheduleOver]
    );

    let out = s.run("hyperband", &[eta(3), key("after_schedule", "sweep")]);
    let mut swept = brackets.clone();
    swept.extend([(0, 2, 3.0, 12.0, 16.0), (0, 0, 3.0, 16.0, 18.0)]);
    assert_eq!(s.log(&out), swept);
    let r = s.curve(&out).cumulative_regret(out.end).expect("read");
    assert!(close(r, 4.4), "R = {r}");
    assert_eq!(
        out.end_states.reasons().expect("end states"),
        vec![EndReason::AllModelsRun]
    );
}

/// ASHA, η = 2, two tenants a (models m0, m1) and b (m0, m1, m2) sharing
/// one GPU under round-robin; fidelities 1, 2 (rungs 1, 2; ASHA promotes
/// from rung 0 only). The prior user p ranks the models m0 (.9), m1 (.8),
/// m2 (.7), so both tenants take new models in that order.
///
/// | pair | f = 1    | f = 2    |
/// |------|----------|----------|
/// | a m0 | 0.50, 1  | 0.70, 2  |
/// | a m1 | 0.60, 1  | 0.80, 2  |
/// | b m0 | 0.50, 1  | 0.60, 2  |
/// | b m1 | 0.40, 1  | 0.50, 2  |
/// | b m2 | 0.70, 1  | 0.90, 2  |
///
/// Decisions (rung 0's top ⌊n/2⌋ not yet promoted, else a new model):
///
/// | t  | tenant | rung 0 (best first) | job              |
/// |----|--------|---------------------|------------------|
/// | 0  | a      | —                   | new m0 f=1 0–1   |
/// | 1  | b      | —                   | new m0 f=1 1–2   |
/// | 2  | a      | m0 (⌊1/2⌋ = 0)      | new m1 f=1 2–3   |
/// | 3  | b      | m0 (0)              | new m1 f=1 3–4   |
/// | 4  | a      | m1 .6, m0 .5 → m1   | m1 f=2 4–6       |
/// | 6  | b      | m0 .5, m1 .4 → m0   | m0 f=2 6–8       |
/// | 8  | a      | m1 promoted; no new model, none running: over |  |
///
/// - stop: a is done at 8 and the GPU goes to b at once: b new m2 f=1 8–9
///   .7, then rung 0 m2, m0, m1 → ⌊3/2⌋ = 1, m2: m2 f=2 9–11 .9; b over.
///   S(τ) = 1.7 [0,1), 1.2 [1,2), .7 [2,3), .6 [3,6), .4 [6,8), .3 [8,9),
///   .2 [9,11), 0 after: R = 1.7 + 1.2 + .7 + 1.8 + .8 + .3 + .4 = 6.9.
/// - sweep: a trains m0 f=2 8–10 first; b m2 f=1 10–11, m2 f=2 11–13,
///   then its own sweep m1 f=2 13–15. S = .3 on [8,11), .2 on [11,13):
///   R = 6.2 + .9 + .4 = 7.5. b reaches its best (.9) at 13, not 11.
#[test]
fn asha_stop_hands_the_gpu_to_the_other_tenant() {
    let csv = "user,model,fidelity,accuracy,runtime_s\n\
        a,m0,1,0.50,1\na,m0,2,0.70,2\n\
        a,m1,1,0.60,1\na,m1,2,0.80,2\n\
        b,m0,1,0.50,1\nb,m0,2,0.60,2\n\
        b,m1,1,0.40,1\nb,m1,2,0.50,2\n\
        b,m2,1,0.70,1\nb,m2,2,0.90,2\n\
        p,m0,1,0.80,1\np,m0,2,0.90,1\n\
        p,m1,1,0.70,1\np,m1,2,0.80,1\n\
        p,m2,1,0.60,1\np,m2,2,0.70,1\n";
    let s = Setup::new(csv, &[0, 1], &[2]);
    let shared = vec![
        (0, 0, 1.0, 0.0, 1.0),
        (1, 0, 1.0, 1.0, 2.0),
        (0, 1, 1.0, 2.0, 3.0),
        (1, 1, 1.0, 3.0, 4.0),
        (0, 1, 2.0, 4.0, 6.0),
        (1, 0, 2.0, 6.0, 8.0),
    ];

    let out = s.run("asha", &[eta(2)]);
    let mut stop = shared.clone();
    stop.extend([(1, 2, 1.0, 8.0, 9.0), (1, 2, 2.0, 9.0, 11.0)]);
    assert_eq!(s.log(&out), stop);
    let c = s.curve(&out);
    let r = c.cumulative_regret(out.end).expect("read");
    assert!(close(r, 6.9), "R = {r}");
    assert_eq!(c.time_to(0.0).expect("read"), Some(11_000_000));
    assert_eq!(
        out.end_states.reasons().expect("end states"),
        vec![EndReason::ScheduleOver, EndReason::ScheduleOver]
    );

    let out = s.run("asha", &[eta(2), key("after_schedule", "sweep")]);
    let mut sweep = shared.clone();
    sweep.extend([
        (0, 0, 2.0, 8.0, 10.0),
        (1, 2, 1.0, 10.0, 11.0),
        (1, 2, 2.0, 11.0, 13.0),
        (1, 1, 2.0, 13.0, 15.0),
    ]);
    assert_eq!(s.log(&out), sweep);
    let c = s.curve(&out);
    let r = c.cumulative_regret(out.end).expect("read");
    assert!(close(r, 7.5), "R = {r}");
    assert_eq!(c.time_to(0.0).expect("read"), Some(13_000_000));
    assert_eq!(
        out.end_states.reasons().expect("end states"),
        vec![EndReason::AllModelsRun, EndReason::AllModelsRun]
    );
}

/// `after_schedule` is `"stop"` or `"sweep"`; anything else is an error
/// naming the key and the value, for all three selectors.
#[test]
fn bad_after_schedule_is_a_clear_error() {
    let s = Setup::new(THREE_MODELS, &[0], &[]);
    for name in ["successive-halving", "hyperband", "asha"] {
        for (v, want) in [
            (
                toml::Value::String("halt".into()),
                "key `after_schedule`: expected `stop` or `sweep`, got `halt`",
            ),
            (toml::Value::Boolean(true), "key `after_schedule`"),
        ] {
            let values = [("after_schedule".to_string(), v.clone())]
                .into_iter()
                .collect();
            let mut params = Params::new("s.toml: [[policy]] #1 (\"p\")", values);
            let spec = registry::selector(name).unwrap_or_else(|| panic!("no {name}"));
            let err = match (spec.parse)(&mut params, &s.trace) {
                Ok(_) => panic!("{name} {v:?}: accepted"),
                Err(e) => e.to_string(),
            };
            assert!(
                err.contains(want) && err.contains("s.toml: [[policy]] #1"),
                "{name} {v:?}: {err}"
            );
        }
    }
}

/// Why a tenant ended, under each limit, on the three-model trace with
/// successive halving (jobs m0@1 0–1, m1@1 1–2, m2@1 2–3, m1@3 3–6, m1@9
/// 6–15):
///
/// - `max_jobs = 2`: m0@1, m1@1 started, then no more: `max-jobs`;
/// - `budget_gpu_s = 4`: m1@3 would take 3 + 3 = 6 GPU-s > 4: `budget`;
/// - horizon 5 s: m1@3 (3–6) still runs at 5: `horizon`;
/// - two tenants t, u (the same curves), `patience_s = 1.5`: t runs m0@1
///   first (0–1, in time), u then runs m0@1 (1–2) and has no completed job
///   at 1.5, so it leaves (`patience`, its job cancelled), while t goes on
///   to the end of its schedule: `schedule-over`.
#[test]
fn each_tenant_says_why_it_ended() {
    let s = Setup::new(THREE_MODELS, &[0], &[]);
    let limited = |limits: TenantLimits| s.run_with("successive-halving", &[], limits, None);
    let out = limited(TenantLimits {
        max_jobs: Some(2),
        ..TenantLimits::default()
    });
    assert_eq!(
        (
            out.jobs.len(),
            out.end_states.reasons().expect("end states")[0]
        ),
        (2, EndReason::MaxJobs)
    );
    let out = limited(TenantLimits {
        budget: Some(4_000_000),
        ..TenantLimits::default()
    });
    assert_eq!(
        (
            out.jobs.len(),
            out.end_states.reasons().expect("end states")[0]
        ),
        (3, EndReason::Budget)
    );
    let out = s.run_with(
        "successive-halving",
        &[],
        TenantLimits::default(),
        Some(5_000_000),
    );
    assert_eq!(
        out.end_states.reasons().expect("end states"),
        vec![EndReason::Horizon]
    );

    let rows_of_u = THREE_MODELS.replace("\nt,", "\nu,");
    let two = THREE_MODELS.to_string() + rows_of_u.split_once('\n').map_or("", |(_, r)| r);
    let s = Setup::new(&two, &[0, 1], &[]);
    assert_eq!(s.trace.n_users(), 2, "{two}");
    let out = s.run_with(
        "successive-halving",
        &[],
        TenantLimits {
            patience: Some(1_500_000),
            ..TenantLimits::default()
        },
        None,
    );
    assert_eq!(
        out.end_states.reasons().expect("end states"),
        vec![EndReason::ScheduleOver, EndReason::Patience]
    );
    assert_eq!(out.left_at, vec![None, Some(1_500_000)]);
}

/// `tenants.csv` on a curve trace ends with `ended`; a scenario run with
/// both settings on the three-model trace: stop ends `schedule-over` at 15
/// s, sweep `all-models-run` (DESIGN §12.3).
#[test]
fn tenants_csv_says_why_each_tenant_ended() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    fs::write(dir.path().join("t.csv"), THREE_MODELS).unwrap_or_else(|e| panic!("{e}"));
    let scenario = dir.path().join("s.toml");
    fs::write(
        &scenario,
        "name = \"ended\"\nthresholds = [0.05]\n[trace]\npath = \"t.csv\"\n\
         [cluster]\ngpus = 1\n\
         [[policy]]\nname = \"stop\"\nscheduler = \"round-robin\"\n\
         selector = \"successive-halving\"\n\
         [[policy]]\nname = \"sweep\"\nscheduler = \"round-robin\"\n\
         selector = \"successive-halving\"\nafter_schedule = \"sweep\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    run_scenario(
        scenario.to_str().unwrap_or_else(|| panic!("utf-8")),
        &out,
        &[],
    );
    let text = fs::read_to_string(out.join("tenants.csv")).unwrap_or_else(|e| panic!("{e}"));
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .is_some_and(|h| h.ends_with(",abandoned,budget_exhausted,ended")),
        "{text}"
    );
    let rows: Vec<(&str, &str)> = lines
        .map(|l| {
            let first = l.split(',').next().unwrap_or("");
            (first, l.rsplit(',').next().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        rows,
        vec![("stop", "schedule-over"), ("sweep", "all-models-run")]
    );
}

/// With `after_schedule = "sweep"` on every scheduled selector,
/// `tenants.csv` has no `ended` column: the files are those written before
/// the key existed (issue 32: "with sweep, byte-identical to today's").
#[test]
fn tenants_csv_of_a_scenario_that_only_sweeps_keeps_its_old_columns() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    fs::write(dir.path().join("t.csv"), THREE_MODELS).unwrap_or_else(|e| panic!("{e}"));
    let scenario = dir.path().join("s.toml");
    fs::write(
        &scenario,
        "name = \"sweeps\"\nthresholds = [0.05]\n[trace]\npath = \"t.csv\"\n\
         [cluster]\ngpus = 1\n\
         [[policy]]\nname = \"sweep\"\nscheduler = \"round-robin\"\n\
         selector = \"successive-halving\"\nafter_schedule = \"sweep\"\n\
         [[policy]]\nname = \"random\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("out");
    run_scenario(
        scenario.to_str().unwrap_or_else(|| panic!("utf-8")),
        &out,
        &["--no-plots"],
    );
    let text = fs::read_to_string(out.join("tenants.csv")).unwrap_or_else(|e| panic!("{e}"));
    let header = text.lines().next().unwrap_or("");
    assert!(header.ends_with(",abandoned,budget_exhausted"), "{header}");
}
