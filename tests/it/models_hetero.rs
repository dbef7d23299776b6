//! Model-selection mode on a cluster of two GPU types (DESIGN §11.4),
//! computed on paper.
//!
//! The trace (`runtime_s` on a reference GPU; accuracy):
//!
//! | user | m1         | m2         |
//! |------|------------|------------|
//! | a    | 0.5, 4 s   | 0.9, 2 s   |
//! | b    | 0.6, 2 s   | 0.7, 6 s   |
//!
//! The cluster: GPU 0 of type `fast` (speed 2: runtime_s / 2), GPU 1 of type
//! `slow` (speed 1), numbered node by node in the order given.

use std::fs;
use std::path::Path;
use tenantsim::models::sim::TenantUsers;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::experiment::simulate_one;
use tenantsim::models::scenario::{Scenario, parse_scenario};
use tenantsim::models::sim::{
    Proposal, RepContext, Scheduler, Selector, SimInput, Tenants, simulate,
};

use crate::common::{repo, run_scenario};

const S: u64 = 1_000_000;

const TRACE: &str = "user,model,accuracy,runtime_s\n\
                     a,m1,0.5,4\na,m2,0.9,2\n\
                     b,m1,0.6,2\nb,m2,0.7,6\n";

/// A scenario in `dir` over `trace`, with `cluster` as the `[cluster]`
/// body and one policy.
/// The split: tenants a and b, and prior user p if the trace has one.
fn scenario_in(dir: &Path, trace: &str, cluster: &str, policy: &str) -> Scenario {
    fs::write(dir.join("t.csv"), trace).expect("write trace");
    let prior = if trace.contains("\np,") {
        "prior = [\"p\"]\n"
    } else {
        ""
    };
    let text = format!(
        "name = \"hetero\"\nthresholds = [0.05]\nfairness = false\n[trace]\npath = \"t.csv\"\n\
         [split]\ntenants = [\"a\", \"b\"]\n{prior}{cluster}\n[[policy]]\nname = \"p\"\n{policy}\n"
    );
    let path = dir.join("s.toml");
    fs::write(&path, &text).expect("write scenario");
    parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn try_scenario(trace: &str, cluster: &str) -> Result<Scenario, String> {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("t.csv"), trace).expect("write trace");
    let text = format!(
        "name = \"hetero\"\n[trace]\npath = \"t.csv\"\n{cluster}\n[[policy]]\nname = \"p\"\n\
         scheduler = \"round-robin\"\nselector = \"in-order\"\n"
    );
    let path = dir.path().join("s.toml");
    parse_scenario(&path, &text, Overrides::default()).map_err(|e| e.to_string())
}

const TWO_TYPES: &str = "[cluster]\nnodes = [{type = \"fast\", count = 1}, {type = \"slow\", count = 1}]\n\
                         [cluster.speed]\nfast = 2.0\nslow = 1.0\n";

const RR_IN_ORDER: &str = "scheduler = \"round-robin\"\nselector = \"in-order\"";

/// (tenant, model, gpu, start µs, end µs) of every job, in start order.
fn jobs(s: &Scenario) -> Vec<(u32, u32, u32, u64, u64)> {
    let r = simulate_one(s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    r.outcome
        .jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j| (j.tenant, j.model, j.gpu, j.start, j.end))
        .collect()
}

/// Round-robin + in-order (each tenant takes its models in trace order),
/// one job per tenant at a time:
///
/// | t | completes     | GPU 0 (fast, ÷2)        | GPU 1 (slow, ÷1)       |
/// |---|---------------|-------------------------|------------------------|
/// | 0 |               | a m1: 4/2 = 2 → 2       | b m1: 2 → 2            |
/// | 2 | a m1, b m1    | a m2: 2/2 = 1 → 3       | b m2: 6 → 8            |
/// | 3 | a m2          | idle (a done, b running)|                        |
/// | 8 | b m2          | (nothing left)          |                        |
///
/// At t = 2 the pointer has passed b, so GPU 0 (filled first, lowest
/// index) goes to a again.
#[test]
fn two_types_round_robin_fixed_order_matches_paper() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(dir.path(), TRACE, TWO_TYPES, RR_IN_ORDER);
    assert_eq!(
        jobs(&s),
        [
            (0, 0, 0, 0, 2 * S),
            (1, 0, 1, 0, 2 * S),
            (0, 1, 0, 2 * S, 3 * S),
            (1, 1, 1, 2 * S, 8 * S),
        ]
    );
    let r = simulate_one(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.outcome.end, 8 * S);
    // Busy: fast 2 + 1 = 3 s, slow 2 + 6 = 8 s.
    assert_eq!(r.outcome.busy_by_type, [3 * S as u128, 8 * S as u128]);
}

/// The same with the slow GPU listed first: GPU 0 is now the slow one, so
/// a (served first) runs m1 there: 4 s; b m1 on the fast GPU 1: 1 s.
///
/// | t | completes | GPU 0 (slow)        | GPU 1 (fast)        |
/// |---|-----------|---------------------|---------------------|
/// | 0 |           | a m1 → 4            | b m1: 2/2 → 1       |
/// | 1 | b m1      | (busy)              | b m2: 6/2 = 3 → 4   |
/// | 4 | a m1, b m2| a m2: 2 → 6         | idle                |
#[test]
fn node_order_numbers_the_gpus() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cluster = "[cluster]\nnodes = [{type = \"slow\", count = 1}, {type = \"fast\", count = 1}]\n\
                   [cluster.speed]\nfast = 2.0\n";
    let s = scenario_in(dir.path(), TRACE, cluster, RR_IN_ORDER);
    assert_eq!(
        jobs(&s),
        [
            (0, 0, 0, 0, 4 * S),
            (1, 0, 1, 0, S),
            (1, 1, 1, S, 4 * S),
            (0, 1, 0, 4 * S, 6 * S),
        ]
    );
}

/// A `runtime_s.<type>` column beats the speed factor; an empty cell falls
/// back to it. Column `runtime_s.slow`: b m2 = 3 s (instead of 6), the
/// other cells empty. Then b m2 ends at 2 + 3 = 5; the rest is as in
/// [`two_types_round_robin_fixed_order_matches_paper`].
#[test]
fn per_type_runtime_columns_override_the_speed() {
    let trace = "user,model,accuracy,runtime_s,runtime_s.slow\n\
                 a,m1,0.5,4,\na,m2,0.9,2,\n\
                 b,m1,0.6,2,\nb,m2,0.7,6,3\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(dir.path(), trace, TWO_TYPES, RR_IN_ORDER);
    assert_eq!(
        jobs(&s),
        [
            (0, 0, 0, 0, 2 * S),
            (1, 0, 1, 0, 2 * S),
            (0, 1, 0, 2 * S, 3 * S),
            (1, 1, 1, 2 * S, 5 * S),
        ]
    );
}

/// Per-model speed `[cluster.model_speed.slow] m2 = 3` overrides the
/// type's speed 1 for m2 only: b m2 on slow = 6/3 = 2 s, ending at 4.
#[test]
fn per_model_speed_overrides_the_type_speed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cluster = format!("{TWO_TYPES}[cluster.model_speed.slow]\nm2 = 3.0\n");
    let s = scenario_in(dir.path(), TRACE, &cluster, RR_IN_ORDER);
    assert_eq!(jobs(&s)[3], (1, 1, 1, 2 * S, 4 * S));
}

/// One type named, speed 1: the same jobs as the untyped cluster of the
/// same size.
#[test]
fn one_type_of_speed_one_runs_as_the_untyped_cluster() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typed = scenario_in(
        dir.path(),
        TRACE,
        "[cluster]\nnodes = [{type = \"v100\", count = 1, gpus_per_node = 2}]",
        RR_IN_ORDER,
    );
    let untyped = scenario_in(dir.path(), TRACE, "[cluster]\ngpus = 2", RR_IN_ORDER);
    assert_eq!(jobs(&typed), jobs(&untyped));
}

/// What a scheduler sees of the free GPU and the GP selector believes on
/// it: serves the lowest eligible tenant, recording (type, proposal).
#[derive(Debug, Default)]
struct Recorder {
    seen: Vec<(u16, usize, Proposal)>,
}

impl Scheduler for Recorder {
    fn pick(
        &mut self,
        tenants: &Tenants,
        selector: &mut dyn Selector,
    ) -> tenantsim::Result<Option<usize>> {
        let Some(i) = (0..tenants.len()).find(|&i| tenants.is_eligible(i)) else {
            return Ok(None);
        };
        let Some(p) = selector.propose(tenants, i)? else {
            return Ok(None);
        };
        self.seen.push((tenants.gpu_type(), i, p));
        Ok(Some(i))
    }
}

/// The engine tells the selector the free GPU's type, and `gp-ucb-cost`'s
/// oracle belief in seconds is the runtime on that type: the lowest
/// eligible tenant at each decision, with a prior user `p` for the GP.
///
/// t = 0: GPU 0 (fast) → a, GPU 1 (slow) → b; later decisions are on the
/// type of the GPU that freed. Every recorded believed_seconds equals the
/// true runtime of the proposed model on the recorded type.
#[test]
fn selector_believes_the_runtime_on_the_free_gpus_type() {
    let trace = format!("{TRACE}p,m1,0.4,1\np,m2,0.8,1\n");
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(
        dir.path(),
        &trace,
        TWO_TYPES,
        "scheduler = \"round-robin\"\nselector = \"gp-ucb-cost\"\nvariance = 0.01\nlengthscale = 0.1",
    );
    let (tenants, prior) = ([0usize, 1], [2usize]);
    let ctx = RepContext {
        trace: &s.trace,
        gpu_types: &s.gpu_types,
        tenants: &TenantUsers::list(&tenants),
        prior: &prior,
        seed: 0,
        repetition: 0,
    };
    let mut selector = (s.policies[0].make_selector)(&ctx).unwrap_or_else(|e| panic!("{e}"));
    let mut recorder = Recorder::default();
    let input = SimInput {
        trace: &s.trace,
        tenants: &TenantUsers::list(&tenants),
        arrivals: &[0, 0],
        config: s.config,
        gpu_types: &s.gpu_types,
    };
    let out = simulate(&input, &mut recorder, selector.as_mut()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.jobs.len(), 4);
    let types: Vec<u16> = recorder.seen.iter().map(|s| s.0).collect();
    assert_eq!(types[..2], [0, 1], "first decisions fill GPU 0 then GPU 1");
    for (t, i, p) in &recorder.seen {
        let secs = s.gpu_types.runtime_us(&s.trace, *t, tenants[*i], p.model) as f64 / 1e6;
        assert_eq!(p.believed_seconds, secs, "type {t}, tenant {i}, {p:?}");
    }
    // Each job ran for its runtime on its GPU's type.
    for j in out.jobs.to_vec().expect("the job log") {
        let t = s.gpu_types.type_of(j.gpu);
        let want =
            s.gpu_types
                .runtime_us(&s.trace, t, tenants[j.tenant as usize], j.model as usize);
        assert_eq!(j.end - j.start, want, "{j:?}");
    }
}

/// `jobs.csv` gains `gpu_type` and `summary.csv` a busy fraction per type
/// on a typed cluster (values of the paper case: fast 3 s of 8, slow 8 of
/// 8).
#[test]
fn typed_outputs_name_the_gpu_type() {
    let dir = tempfile::tempdir().expect("tempdir");
    scenario_in(dir.path(), TRACE, TWO_TYPES, RR_IN_ORDER);
    let out = dir.path().join("out");
    run_scenario(
        dir.path().join("s.toml").to_str().expect("utf-8"),
        &out,
        &["--jobs", "--quiet", "--no-plots"],
    );
    let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let mut lines = jobs.lines();
    assert_eq!(
        lines.next(),
        Some("policy,rep,job,gpu,user,model,start_s,end_s,accuracy,gpu_type")
    );
    let types: Vec<&str> = lines.map(|l| l.rsplit(',').next().unwrap_or("")).collect();
    assert_eq!(types, ["fast", "slow", "fast", "slow"]);
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let (head, row) = summary.split_once('\n').expect("two lines");
    assert!(
        head.ends_with(",gpu_busy_fraction.fast,gpu_busy_fraction.slow"),
        "{head}"
    );
    assert!(row.trim_end().ends_with(",0.375,1"), "{row}");
}

#[test]
fn cluster_errors_name_the_field() {
    let cases: [(&str, &str, &str); 7] = [
        (
            TRACE,
            "[cluster]\ngpus = 2\nnodes = [{type = \"a\", count = 1}]",
            "give one of `gpus` (identical GPUs) and `nodes`",
        ),
        (
            TRACE,
            "[cluster]\nmax_jobs_per_tenant = 1",
            "[cluster]: missing `gpus`",
        ),
        (
            TRACE,
            "[cluster]\ngpus = 2\n[cluster.speed]\nfast = 2.0",
            "a speed is given for GPU type `fast`, but the cluster has no types",
        ),
        (
            TRACE,
            "[cluster]\nnodes = [{type = \"fast\", count = 1}]\n[cluster.speed]\nslow = 2.0",
            "[cluster.speed].slow: unknown GPU type `slow`",
        ),
        (
            TRACE,
            "[cluster]\nnodes = [{type = \"fast\", count = 1}]\n[cluster.speed]\nfast = -1.0",
            "[cluster.speed].fast: expected a speed factor, a finite number > 0",
        ),
        (
            "user,model,accuracy,runtime_s,runtime_s.a100\na,m1,0.5,4,1\n",
            "[cluster]\nnodes = [{type = \"fast\", count = 1}]",
            "has a column `runtime_s.a100`, but the cluster has no GPU type `a100`",
        ),
        (
            TRACE,
            "[cluster]\nnodes = [{type = \"fast\", count = 1}]\n[cluster.model_speed.fast]\nm9 = 2.0",
            "[cluster.model_speed.fast].m9: unknown model `m9`",
        ),
    ];
    for (trace, cluster, want) in cases {
        let e = try_scenario(trace, cluster).expect_err(cluster);
        assert!(e.contains(want), "{cluster}:\n{e}\nwanted: {want}");
        assert!(e.contains("s.toml"), "{e}");
    }
}

#[test]
fn per_type_runtime_cell_errors_name_file_line_and_field() {
    let cluster = "[cluster]\nnodes = [{type = \"slow\", count = 1}]";
    let bad = "user,model,accuracy,runtime_s,runtime_s.slow\na,m1,0.5,4,\na,m2,0.9,2,-3\n";
    let e = try_scenario(bad, cluster).expect_err("negative runtime");
    assert!(
        e.contains("t.csv: line 3: field `runtime_s.slow`: expected a number of seconds > 0"),
        "{e}"
    );
    let bad = "user,model,accuracy,runtime_s,runtime_s.slow\na,m1,0.5,4,fast\n";
    let e = try_scenario(bad, cluster).expect_err("not a number");
    assert!(
        e.contains("t.csv: line 2: field `runtime_s.slow`: expected a number"),
        "{e}"
    );
    let bad = "user,model,accuracy,runtime_s,runtime_s.slow,runtime_s.slow\na,m1,0.5,4,1,1\n";
    let e = try_scenario(bad, cluster).expect_err("twice");
    assert!(
        e.contains("line 1: column `runtime_s.slow` appears twice"),
        "{e}"
    );
    let bad = "user,model,accuracy,runtime_s,runtime_s.a b\na,m1,0.5,4,1\n";
    let e = try_scenario(bad, cluster).expect_err("bad type name");
    assert!(e.contains("line 1: column `runtime_s.a b`"), "{e}");
}

/// The untyped cluster reads no `runtime_s.<type>` column: the trace's
/// `runtime_s` is every GPU's.
#[test]
fn untyped_cluster_ignores_per_type_columns() {
    let trace = "user,model,accuracy,runtime_s,runtime_s.slow\na,m1,0.5,4,1\n";
    let s = try_scenario(trace, "[cluster]\ngpus = 1").unwrap_or_else(|e| panic!("{e}"));
    let r = simulate_one(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.outcome.jobs.get(0).expect("the job log").end, 4 * S);
    assert!(!s.gpu_types.is_typed());
}

/// `cost_belief = "prior"` believes the prior users' runtimes on the free
/// GPU's type: p runs both models in 1 s on the reference GPU, so 0.5 s on
/// `fast` (speed 2) and 1 s on `slow`.
#[test]
fn prior_cost_belief_is_per_type() {
    let trace = format!("{TRACE}p,m1,0.4,1\np,m2,0.8,1\n");
    let dir = tempfile::tempdir().expect("tempdir");
    let s = scenario_in(
        dir.path(),
        &trace,
        TWO_TYPES,
        "scheduler = \"round-robin\"\nselector = \"gp-ucb-cost\"\ncost_belief = \"prior\"\n\
         variance = 0.01\nlengthscale = 0.1",
    );
    let (tenants, prior) = ([0usize, 1], [2usize]);
    let ctx = RepContext {
        trace: &s.trace,
        gpu_types: &s.gpu_types,
        tenants: &TenantUsers::list(&tenants),
        prior: &prior,
        seed: 0,
        repetition: 0,
    };
    let mut selector = (s.policies[0].make_selector)(&ctx).unwrap_or_else(|e| panic!("{e}"));
    let mut recorder = Recorder::default();
    let input = SimInput {
        trace: &s.trace,
        tenants: &TenantUsers::list(&tenants),
        arrivals: &[0, 0],
        config: s.config,
        gpu_types: &s.gpu_types,
    };
    simulate(&input, &mut recorder, selector.as_mut()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!recorder.seen.is_empty());
    for (t, _, p) in &recorder.seen {
        let want = if *t == 0 { 0.5 } else { 1.0 };
        assert_eq!(p.believed_seconds, want, "type {t}: {p:?}");
    }
}

/// A selector whose belief depends on the free GPU's type: tenant 0's
/// proposal takes 10 s on type 0 and 1 s on type 1; tenants 1 and 2 take
/// 1 s anywhere. Gains 1, 0.5, 0.3.
#[derive(Debug)]
struct TypeAware;

impl TypeAware {
    fn next_proposal(&mut self, tenants: &Tenants, i: usize) -> Option<Proposal> {
        let model = (0..2).find(|&k| !tenants.is_tried(i, k))?;
        let seconds = if i == 0 && tenants.gpu_type() == 0 {
            10.0
        } else {
            1.0
        };
        let gain = [1.0, 0.5, 0.3][i];
        Some(Proposal {
            model,
            acquisition: gain,
            gain: Some(gain),
            believed_cost: 1.0,
            believed_seconds: seconds,
            bonus: None,
            level: None,
        })
    }
}

impl Selector for TypeAware {
    fn propose(&mut self, tenants: &Tenants, i: usize) -> tenantsim::Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, i))
    }
}

/// `greedy` (per-second) scores each tenant for the free GPU's type.
/// Cluster: GPU 0 `slow` (type 0), GPU 1 `fast` (type 1). At t = 0:
/// GPU 0: scores 1/10, 0.5/1, 0.3/1 → tenant 1. GPU 1: tenant 0 scores 1/1
/// on `fast`, tenant 2 0.3 → tenant 0 (a score kept from the `slow`
/// decision, 0.1, would have lost to tenant 2).
#[test]
fn greedy_scores_for_the_free_gpus_type() {
    use tenantsim::models::policy::scheduler::greedy::{Greedy, Score};
    let trace = "user,model,accuracy,runtime_s\n\
                 a,m1,0.5,4\na,m2,0.9,2\nb,m1,0.6,2\nb,m2,0.7,6\nc,m1,0.6,2\nc,m2,0.7,6\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let cluster = "[cluster]\nnodes = [{type = \"slow\", count = 1}, {type = \"fast\", count = 1}]";
    let s = scenario_in(dir.path(), trace, cluster, RR_IN_ORDER);
    let tenants = [0usize, 1, 2];
    let mut greedy = Greedy::with_types(3, s.gpu_types.n_types(), Score::PerSecond);
    let input = SimInput {
        trace: &s.trace,
        tenants: &TenantUsers::list(&tenants),
        arrivals: &[0, 0, 0],
        config: s.config,
        gpu_types: &s.gpu_types,
    };
    let out = simulate(&input, &mut greedy, &mut TypeAware).unwrap_or_else(|e| panic!("{e}"));
    let first: Vec<(u32, u32)> = out.jobs.to_vec().expect("the job log")[..2]
        .iter()
        .map(|j| (j.tenant, j.gpu))
        .collect();
    assert_eq!(first, [(1, 0), (0, 1)]);
}

/// Regression guard of the per-type machinery (per-type heaps in `greedy`
/// and `hybrid`, per-type proposal caches and cost beliefs): on the bundled
/// `lcdb-8gpu` scenario, one named type of speed 1, and two types of speed
/// 1 each (4 + 4 GPUs, so decisions alternate between types), run every
/// policy exactly as the untyped 8 GPUs do, with `cost_belief = "prior"`
/// added for the prior-cost path.
#[test]
fn equal_speed_types_run_as_the_untyped_cluster_on_lcdb() {
    let path = repo("scenarios/lcdb-8gpu.toml");
    let text = fs::read_to_string(&path).expect("scenario");
    let text = format!(
        "{text}\n[[policy]]\nname = \"ease.ml-prior\"\nscheduler = \"greedy\"\n\
         selector = \"gp-ucb-cost\"\ncost_belief = \"prior\"\n"
    );
    let load = |cluster: &str| {
        let t = text.replace("gpus = 8", cluster);
        parse_scenario(&path, &t, Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
    };
    let untyped = load("gpus = 8");
    let one = load("nodes = [{type = \"v100\", count = 8}]");
    let two = load(
        "nodes = [{type = \"a\", count = 2, gpus_per_node = 2}, {type = \"b\", count = 4}]\n\
         [cluster.speed]\na = 1.0\nb = 1.0",
    );
    assert!(two.gpu_types.is_typed() && two.gpu_types.n_types() == 2);
    for p in 0..untyped.policies.len() {
        for rep in 0..2 {
            let want = simulate_one(&untyped, rep, p).unwrap_or_else(|e| panic!("{e}"));
            for typed in [&one, &two] {
                let got = simulate_one(typed, rep, p).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(
                    got.outcome.jobs, want.outcome.jobs,
                    "policy {}, rep {rep}",
                    untyped.policies[p].name
                );
                assert_eq!(got.metrics, want.metrics);
            }
        }
    }
}
