//! Workflow cases derived on paper (DESIGN §14.2–14.5), the identity with
//! job mode, and property tests over random DAG traces, clusters,
//! schedulers, cache and failure settings.

use proptest::prelude::*;

use super::*;
use crate::core::error::{Error, Result};
use crate::core::params::Params;
use crate::core::sim::rng::{Purpose, stream_for, unit};
use crate::core::sim::time::Micros;
use crate::jobs::sim::simulation::NEVER;
use crate::jobs::sim::{
    JobSchedulerFactory, JobSimInput, Placement, SchedInit, TypePolicy, simulate_jobs,
};
use crate::jobs::trace::Job;
use crate::workflows::trace::StepRow;
use crate::workflows::{
    CacheConfig, CacheEntry, CacheRule, EvictionEntry, ParallelEntry, ParallelRule, Resume,
    RetryConfig, Scope, SplitStep, WorkflowTrace,
};

const S: Micros = 1_000_000;

fn job_scheduler(name: &str) -> JobSchedulerFactory {
    let e = crate::jobs::policy::registry::scheduler(name).expect("built in");
    (e.parse)(&mut Params::new(name, Default::default())).expect("parses")
}

/// A step row: `parents` `;`-separated, `key` empty for none.
#[allow(clippy::too_many_arguments)]
fn row(
    w: &str,
    tenant: &str,
    submit_s: f64,
    step: &str,
    parents: &str,
    runtime_s: f64,
    gpus: u32,
    key: &str,
    bytes: u64,
) -> StepRow {
    StepRow {
        workflow: w.into(),
        tenant: tenant.into(),
        submit_s,
        step: step.into(),
        parents: parents
            .split(';')
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect(),
        runtime_s,
        gpus,
        cache_key: key.into(),
        output_bytes: bytes,
        ..StepRow::default()
    }
}

fn trace(rows: &[StepRow]) -> WorkflowTrace {
    WorkflowTrace::from_rows("w.csv", rows).unwrap_or_else(|e| panic!("{e}"))
}

fn input(t: &WorkflowTrace) -> WorkflowsInput<'_> {
    WorkflowsInput {
        trace: t,
        load: 1.0,
        horizon: None,
        cache: CacheConfig::default(),
        cache_rule: CacheRule::Off,
        retry: RetryConfig::default(),
        parallel: ParallelRule::Off,
        split_overhead: 0,
        failure_p: None,
        keep_jobs: true,
    }
}

/// Run the workflows alone (or beside `background`) on `nodes` under
/// `sched`, seed `seed`.
fn run_with(
    w: WorkflowsInput<'_>,
    nodes: &[u32],
    placement: Placement,
    sched: &str,
    background: &[Job],
    seed: u64,
) -> SharedOutcome {
    run_rounds(w, nodes, placement, sched, background, seed, None)
}

/// [`run_with`], event-driven or in rounds of `round`.
fn run_rounds(
    w: WorkflowsInput<'_>,
    nodes: &[u32],
    placement: Placement,
    sched: &str,
    background: &[Job],
    seed: u64,
    round: Option<Micros>,
) -> SharedOutcome {
    run_cluster(w, nodes, &[], placement, sched, background, seed, round)
}

/// [`run_rounds`] with `cpus` per node (empty: CPUs not counted).
#[allow(clippy::too_many_arguments)]
fn run_cluster(
    w: WorkflowsInput<'_>,
    nodes: &[u32],
    cpus: &[u32],
    placement: Placement,
    sched: &str,
    background: &[Job],
    seed: u64,
    round: Option<Micros>,
) -> SharedOutcome {
    try_run_cluster(w, nodes, cpus, placement, sched, background, seed, round)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// [`run_cluster`], its error returned.
#[allow(clippy::too_many_arguments)]
fn try_run_cluster(
    w: WorkflowsInput<'_>,
    nodes: &[u32],
    cpus: &[u32],
    placement: Placement,
    sched: &str,
    background: &[Job],
    seed: u64,
    round: Option<Micros>,
) -> Result<SharedOutcome> {
    let input = SharedInput {
        cluster: ClusterInput {
            nodes,
            cpus,
            node_types: &[],
            types: 1,
            placement,
            backfill: false,
            restart_overhead: 0,
            round,
            record_allocations: false,
        },
        background: (!background.is_empty()).then_some(BackgroundInput {
            jobs: background,
            users: 2,
            types: None,
            type_policy: TypePolicy::Agnostic,
        }),
        service: None,
        workflows: Some(w),
    };
    simulate_shared(&input, &job_scheduler(sched), seed, 0, None)
}

fn run(w: WorkflowsInput<'_>, nodes: &[u32]) -> WorkflowOutcome {
    run_with(w, nodes, Placement::Consolidate, "fifo", &[], 1)
        .workflows
        .expect("workflows")
}

/// (ready, start, end, state) of each step, in s-µs.
fn steps(o: &WorkflowOutcome) -> Vec<(Micros, Micros, Micros, StepState)> {
    o.steps
        .iter()
        .map(|s| (s.ready, s.start, s.end, s.state))
        .collect()
}

/// A diamond a → {b, c} → d on two one-GPU nodes under FIFO, submitted at
/// 0: a runs 0–1 s; b and c become ready at 1 and run 1–3 and 1–4 (one
/// GPU each); d is ready when its last parent c ends, 4, and runs 4–5.
/// The workflow is done at 5 s; its GPU time is 1 + 2 + 3 + 1 = 7 GPU-s.
#[test]
fn a_diamond_runs_each_step_after_its_last_parent() {
    let t = trace(&[
        row("w", "t", 0.0, "a", "", 1.0, 1, "", 0),
        row("w", "t", 0.0, "b", "a", 2.0, 1, "", 0),
        row("w", "t", 0.0, "c", "a", 3.0, 1, "", 0),
        row("w", "t", 0.0, "d", "b;c", 1.0, 1, "", 0),
    ]);
    let o = run(input(&t), &[1, 1]);
    let d = StepState::Done;
    assert_eq!(
        steps(&o),
        vec![
            (0, 0, S, d),
            (S, S, 3 * S, d),
            (S, S, 4 * S, d),
            (4 * S, 4 * S, 5 * S, d)
        ]
    );
    let r = o.workflows[0];
    assert_eq!((r.state, r.end, r.retries), (WorkflowState::Done, 5 * S, 0));
    assert_eq!(r.gpu_us, 7 * u128::from(S));
    assert_eq!(o.busy_gpu_us, 7 * u128::from(S));
    assert_eq!(o.end, 5 * S);
}

/// A fork-join prep → {t1, t2} → eval (2, 3, 3, 1 s, one GPU each) twice
/// for one tenant on two GPUs, `lru`, restore 0.5 s. The first (at 0)
/// misses everything: prep 0–2, t1 and t2 2–5, eval 5–6 (done 6 s); prep,
/// t1, t2 are stored. The second (at 10 s) keeps prep's and t1's keys
/// but changes t2's (t2b): prep hits, restored at 10.5; t1 and t2b are
/// then ready, t1 hits (done 11), t2b misses and runs 10.5–13.5; eval
/// runs 13.5–14.5. Hits 2, misses 3 + 1, stored 4; saved 2 + 3 = 5 GPU-s.
#[test]
fn a_fork_join_with_a_cache_hit_restores_instead_of_running() {
    let mut rows = Vec::new();
    for (w, at, t2) in [("w1", 0.0, "t2"), ("w2", 10.0, "t2b")] {
        rows.push(row(w, "ten", at, "prep", "", 2.0, 1, "p", 10));
        rows.push(row(w, "ten", at, "t1", "prep", 3.0, 1, "t1", 10));
        rows.push(row(w, "ten", at, "t2", "prep", 3.0, 1, t2, 10));
        rows.push(row(w, "ten", at, "eval", "t1;t2", 1.0, 1, "", 10));
    }
    let t = trace(&rows);
    let mut i = input(&t);
    i.cache_rule = CacheRule::Lru;
    i.cache.restore = S / 2;
    let o = run(i, &[1, 1]);
    let (d, h) = (StepState::Done, StepState::Hit);
    assert_eq!(
        steps(&o)[4..],
        [
            (10 * S, NEVER, 10 * S + S / 2, h),
            (10 * S + S / 2, NEVER, 11 * S, h),
            (10 * S + S / 2, 10 * S + S / 2, 13 * S + S / 2, d),
            (13 * S + S / 2, 13 * S + S / 2, 14 * S + S / 2, d),
        ]
    );
    assert_eq!(o.workflows[0].end, 6 * S);
    let r = o.workflows[1];
    assert_eq!(
        (r.state, r.end, r.cache_hits),
        (WorkflowState::Done, 14 * S + S / 2, 2)
    );
    assert_eq!(r.gpu_us_saved, 5 * u128::from(S));
    assert_eq!(r.gpu_us, 4 * u128::from(S));
    let c = o.cache;
    assert_eq!((c.hits, c.misses, c.stored, c.evicted), (2, 4, 4, 0));
    assert_eq!((c.bytes_end, c.bytes_max), (40, 40));
}

/// The failure draws of attempt `attempt` of step `s` (within workflow
/// `w`), straight from the stream DESIGN §14.4 names.
fn draws(seed: u64, w: u64, s: u64, attempt: u64) -> (f64, f64) {
    let mut rng = stream_for(seed, 0, Purpose::Failure, &[w, s, attempt]);
    let u = unit(&mut rng);
    (u, unit(&mut rng))
}

/// A seed under which step 1 of workflow 0 fails its attempt 0 and not
/// its attempt 1 at p = 0.5, and the failing run's length ⌊f · 4 s⌋.
fn fail_then_succeed() -> (u64, Micros) {
    (1..1000)
        .find_map(|seed| {
            let (u0, f0) = draws(seed, 0, 1, 0);
            let (u1, _) = draws(seed, 0, 1, 1);
            (u0 < 0.5 && u1 >= 0.5)
                .then(|| (seed, ((f0 * (4 * S) as f64).floor() as Micros).max(1)))
        })
        .expect("a seed among 1000")
}

/// a (2 s, key a) → b (4 s, failure_p 0.5) on one GPU, one retry after a
/// 1 s backoff, under a seed whose draws (computed here from the stream)
/// fail b's first attempt after d = ⌊f · 4 s⌋ and not its second.
/// - `cached`: a 0–2; b fails at 2 + d; b is ready again at 3 + d and
///   runs 4 s: done at 7 + d; GPU time 2 + d + 4.
/// - `from-scratch`, cache off: at 3 + d the workflow restarts, a runs
///   again (2 s), then b: done at 9 + d; GPU time 2 + d + 2 + 4.
/// - `from-scratch`, `lru`: a hits at 3 + d (restore 0), b runs: done at
///   7 + d, one hit.
#[test]
fn a_failure_is_retried_under_each_resume_rule() {
    let (seed, d) = fail_then_succeed();
    let mut rows = vec![
        row("w", "t", 0.0, "a", "", 2.0, 1, "a", 1),
        row("w", "t", 0.0, "b", "a", 4.0, 1, "b", 1),
    ];
    rows[1].failure_p = 0.5;
    let t = trace(&rows);
    let go = |resume, rule| {
        let mut i = input(&t);
        i.retry = RetryConfig {
            max_retries: 1,
            backoff: S,
            resume,
        };
        i.cache_rule = rule;
        run_with(i, &[1], Placement::Consolidate, "fifo", &[], seed)
            .workflows
            .expect("workflows")
    };
    let us = |x: u128| x * u128::from(S);
    let o = go(Resume::Cached, CacheRule::Off);
    let r = o.workflows[0];
    assert_eq!(
        (r.state, r.end, r.retries),
        (WorkflowState::Done, 7 * S + d, 1)
    );
    assert_eq!(r.gpu_us, us(6) + u128::from(d));
    assert_eq!(o.jobs.len(), 3);
    assert!(o.jobs[1].failed && !o.jobs[2].failed);
    assert_eq!((o.jobs[1].end, o.jobs[2].start), (2 * S + d, 3 * S + d));

    let o = go(Resume::FromScratch, CacheRule::Off);
    let r = o.workflows[0];
    assert_eq!(
        (r.state, r.end, r.retries),
        (WorkflowState::Done, 9 * S + d, 1)
    );
    assert_eq!(r.gpu_us, us(8) + u128::from(d));

    let o = go(Resume::FromScratch, CacheRule::Lru);
    let r = o.workflows[0];
    assert_eq!(
        (r.state, r.end, r.cache_hits),
        (WorkflowState::Done, 7 * S + d, 1)
    );

    // No retry left: the workflow fails when b's first attempt does.
    let mut i = input(&t);
    i.retry.max_retries = 0;
    let o = run_with(i, &[1], Placement::Consolidate, "fifo", &[], seed)
        .workflows
        .expect("workflows");
    let r = o.workflows[0];
    assert_eq!((r.state, r.end), (WorkflowState::Failed, NEVER));
    assert_eq!(o.steps[1].state, StepState::Failed);
}

/// Roots x (3 s, 1 GPU), z (2 s, 3 GPUs), y (10 s, 1 GPU), 40 B each, in a
/// 100 B cache on 5 GPUs; the same three keys again at 20 s. Stored z at
/// 2, x at 3; y at 10 needs room: `lru` evicts z (last used 2, before
/// x's 3); `cost` evicts x (value per byte 3 s·1/40 < z's 2 s·3/40). So
/// at 20 s, under `lru` x and y hit and z runs; under `cost` z and y hit
/// and x runs. The one run stores again and evicts once more (2 in all).
#[test]
fn an_eviction_under_each_rule_decides_the_next_hits() {
    let mut rows = Vec::new();
    for (w, at) in [("w1", 0.0), ("w2", 20.0)] {
        rows.push(row(w, "t", at, "x", "", 3.0, 1, "x", 40));
        rows.push(row(w, "t", at, "z", "", 2.0, 3, "z", 40));
        rows.push(row(w, "t", at, "y", "", 10.0, 1, "y", 40));
    }
    let t = trace(&rows);
    let (d, h) = (StepState::Done, StepState::Hit);
    for (rule, expect) in [(CacheRule::Lru, [h, d, h]), (CacheRule::Cost, [d, h, h])] {
        let mut i = input(&t);
        i.cache_rule = rule.clone();
        i.cache.capacity_bytes = 100;
        let o = run(i, &[5]);
        let got: Vec<StepState> = o.steps[3..].iter().map(|s| s.state).collect();
        assert_eq!(got, expect, "{rule:?}");
        assert_eq!((o.cache.evicted, o.cache.bytes_end), (2, 80), "{rule:?}");
        assert!(o.cache.bytes_max <= 100);
    }
}

/// One parallel step of 10 s on one GPU. `fixed` k = 4 with a 1 s split
/// overhead on 4 GPUs: 4 parts of ⌈10/4⌉ + 1 = 3.5 s, all at 0, done at
/// 3.5 s, 14 GPU-s. `fill` (cap 8) on 3 free GPUs: k = 3 parts of
/// ⌈10 000 000 / 3⌉ µs + 1 s = 4 333 334 µs.
#[test]
fn a_parallelised_step_runs_as_sub_jobs() {
    let mut rows = vec![row("w", "t", 0.0, "s", "", 10.0, 1, "", 0)];
    rows[0].parallel = true;
    let t = trace(&rows);
    let mut i = input(&t);
    i.parallel = ParallelRule::Fixed { k: 4 };
    i.split_overhead = S;
    let o = run(i.clone(), &[4]);
    assert_eq!(o.jobs.len(), 4);
    assert!(
        o.jobs
            .iter()
            .all(|j| (j.start, j.end) == (0, 3 * S + S / 2))
    );
    assert_eq!(o.workflows[0].end, 3 * S + S / 2);
    assert_eq!(o.workflows[0].gpu_us, 14 * u128::from(S));
    assert_eq!(o.steps[0].parts, 4);
    i.parallel = ParallelRule::Fill { cap: 8 };
    let o = run(i, &[3]);
    assert_eq!(o.jobs.len(), 3);
    assert_eq!(o.workflows[0].end, 4_333_334);
}

/// A deadline of 3 s on a 2 s → 2 s chain: the second step is withdrawn
/// at 3 s (its segment ends there) and the workflow fails as `deadline`;
/// a horizon at 1 s leaves a workflow submitted at 2 s unsubmitted and
/// the first `unfinished`.
#[test]
fn deadlines_and_the_horizon_end_workflows() {
    let mut rows = vec![
        row("w", "t", 0.0, "a", "", 2.0, 1, "", 0),
        row("w", "t", 0.0, "b", "a", 2.0, 1, "", 0),
        row("v", "t", 2.0, "a", "", 1.0, 1, "", 0),
    ];
    rows[0].deadline_s = Some(3.0);
    rows[1].deadline_s = Some(3.0);
    let t = trace(&rows);
    let o = run(input(&t), &[1]);
    assert_eq!(o.workflows[0].state, WorkflowState::Deadline);
    assert_eq!(o.workflows[0].gpu_us, 3 * u128::from(S));
    assert!(o.jobs[1].withdrawn);
    assert_eq!(o.workflows[1].state, WorkflowState::Done);
    let mut i = input(&t);
    i.horizon = Some(S);
    let o = run(i, &[1]);
    assert_eq!(o.workflows[0].state, WorkflowState::Unfinished);
    assert_eq!(o.workflows[1].state, WorkflowState::Unfinished);
    assert_eq!(o.workflows[0].gpu_us, u128::from(S));
    assert_eq!(o.jobs.len(), 1);
}

/// A step needing more GPUs than any node has is refused before the run,
/// naming the file, the workflow, the step and the column.
#[test]
fn a_step_that_can_never_fit_is_an_error() {
    let t = trace(&[row("wf", "t", 0.0, "big", "", 1.0, 9, "", 0)]);
    let e = try_run_cluster(
        input(&t),
        &[4, 4],
        &[],
        Placement::Consolidate,
        "fifo",
        &[],
        1,
        None,
    )
    .expect_err("does not fit")
    .to_string();
    assert!(
        e.contains("w.csv") && e.contains("`wf`") && e.contains("`big`") && e.contains("gpus"),
        "{e}"
    );
}

/// A random workflow trace: up to 4 workflows of up to 6 steps, parents
/// among earlier steps, keys from a pool of 4, failures, parallel steps.
fn arb_rows() -> impl Strategy<Value = Vec<StepRow>> {
    let step = (
        0u64..8,
        (0u32..3, 0u32..3),
        0usize..5,
        0u64..60,
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(any::<prop::sample::Index>(), 0..3),
    );
    let wf = (0u64..20, 0u32..2, proptest::collection::vec(step, 1..6));
    proptest::collection::vec(wf, 1..5).prop_map(|wfs| {
        let mut rows = Vec::new();
        for (w, (at, tenant, steps)) in wfs.into_iter().enumerate() {
            for (k, (rt, (gpus, cpus), key, bytes, fails, par, parents)) in
                steps.into_iter().enumerate()
            {
                let mut ps: Vec<String> = parents
                    .iter()
                    .filter(|_| k > 0)
                    .map(|i| format!("s{}", i.index(k)))
                    .collect();
                ps.sort();
                ps.dedup();
                let mut r = row(
                    &format!("w{w}"),
                    &format!("t{tenant}"),
                    at as f64,
                    &format!("s{k}"),
                    &ps.join(";"),
                    (rt + 1) as f64 / 2.0,
                    gpus,
                    &if key < 4 {
                        format!("k{key}")
                    } else {
                        String::new()
                    },
                    bytes,
                );
                r.failure_p = if fails { 0.4 } else { 0.0 };
                r.parallel = par;
                r.cpus = cpus;
                rows.push(r);
            }
        }
        rows
    })
}

/// Settings of a random run.
#[derive(Debug, Clone)]
struct Setting {
    nodes: Vec<u32>,
    spread: bool,
    sched: &'static str,
    rule: CacheRule,
    global: bool,
    capacity: u64,
    max_age: Micros,
    retries: u32,
    scratch: bool,
    backoff: Micros,
    parallel: ParallelRule,
    background: Vec<Job>,
    seed: u64,
    round: Option<Micros>,
    /// CPUs per node (0: not counted).
    cpus_per_node: u32,
}

fn arb_setting() -> impl Strategy<Value = Setting> {
    (
        (
            proptest::collection::vec(2u32..5, 1..3),
            any::<bool>(),
            prop::sample::select(vec!["fifo", "sjf", "srtf", "las", "fair-share"]),
            prop::sample::select(vec![CacheRule::Off, CacheRule::Lru, CacheRule::Cost]),
            any::<bool>(),
            prop_oneof![Just(u64::MAX), 30u64..150],
            prop_oneof![Just(Micros::MAX), (1u64..20).prop_map(|s| s * S)],
        ),
        0u32..3,
        any::<bool>(),
        (0u64..3).prop_map(|s| s * S),
        prop::sample::select(vec![
            ParallelRule::Off,
            ParallelRule::Fixed { k: 2 },
            ParallelRule::Fill { cap: 3 },
        ]),
        proptest::collection::vec((0u64..20, 1u64..10, 1u32..3), 0..5),
        (
            1u64..1000,
            prop_oneof![Just(None), (1u64..4).prop_map(|r| Some(r * S))],
            prop_oneof![Just(0u32), 2u32..6],
        ),
    )
        .prop_map(
            |(
                (nodes, spread, sched, rule, global, capacity, max_age),
                retries,
                scratch,
                backoff,
                parallel,
                bg,
                (seed, round, cpus_per_node),
            )| Setting {
                nodes,
                spread,
                sched,
                rule,
                global,
                capacity,
                max_age,
                retries,
                scratch,
                backoff,
                parallel,
                background: bg
                    .into_iter()
                    .map(|(at, d, g)| Job {
                        submit: at * S,
                        duration: d * S,
                        gpus: g,
                        user: 0,
                        cpus: 0,
                    })
                    .collect(),
                seed,
                round,
                cpus_per_node,
            },
        )
}

fn run_setting(t: &WorkflowTrace, s: &Setting) -> SharedOutcome {
    let mut i = input(t);
    i.cache_rule = s.rule.clone();
    i.cache = CacheConfig {
        capacity_bytes: s.capacity,
        max_age: s.max_age,
        restore: S / 4,
        bandwidth_bytes_per_s: 20,
        scope: if s.global {
            Scope::Global
        } else {
            Scope::Tenant
        },
    };
    i.retry = RetryConfig {
        max_retries: s.retries,
        backoff: s.backoff,
        resume: if s.scratch {
            Resume::FromScratch
        } else {
            Resume::Cached
        },
    };
    i.parallel = s.parallel.clone();
    i.split_overhead = S / 10;
    let placement = if s.spread {
        Placement::Spread
    } else {
        Placement::Consolidate
    };
    let cpus: Vec<u32> = if s.cpus_per_node == 0 {
        Vec::new()
    } else {
        vec![s.cpus_per_node; s.nodes.len()]
    };
    run_cluster(
        i,
        &s.nodes,
        &cpus,
        placement,
        s.sched,
        &s.background,
        s.seed,
        s.round,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Over random DAGs, clusters, schedulers (event-driven or in
    /// rounds), backgrounds, cache, retry, failure and parallel settings:
    /// - a step's last readiness comes after every parent's end, and its
    ///   attempt's jobs start after it;
    /// - a hit at t has a producer: a completed attempt (every part ended,
    ///   none failed or withdrawn) of a step of the same scope and key
    ///   that ended at c ≤ t < c + max_age;
    /// - the cache never holds more than its capacity;
    /// - the GPUs held at any instant (background and workflows, from the
    ///   segments) never exceed the cluster's;
    /// - each workflow's GPU time is the sum over its attempts' jobs of
    ///   GPUs × time held, from the segments, and under a scheduler that
    ///   never preempts, from the jobs' start and end;
    /// - the same input twice gives the same outcome.
    #[test]
    fn workflow_runs_keep_the_dag_the_cache_and_the_cluster_rules(
        rows in arb_rows(),
        s in arb_setting(),
    ) {
        let t = trace(&rows);
        let most = *s.nodes.iter().max().expect("a node");
        prop_assume!(t.steps().iter().all(|x| x.gpus <= most));
        prop_assume!(s.cpus_per_node == 0 || t.steps().iter().all(|x| x.cpus <= s.cpus_per_node));
        let out = run_setting(&t, &s);
        let o = out.workflows.as_ref().expect("workflows");
        let steps = t.steps();
        // DAG order.
        for (k, r) in o.steps.iter().enumerate() {
            if r.ready == NEVER || r.state == StepState::NotDone {
                continue;
            }
            for &p in t.parents_of(k as u32) {
                let pr = o.steps[p as usize];
                prop_assert!(matches!(pr.state, StepState::Done | StepState::Hit));
                prop_assert!(pr.end <= r.ready, "step {k} ready {} before parent {p} ended {}", r.ready, pr.end);
            }
            if r.start != NEVER {
                prop_assert!(r.start >= r.ready);
            }
        }
        for a in &o.jobs {
            if a.start != NEVER {
                prop_assert!(a.start >= a.submit);
            }
        }
        // Completed attempts: (step, end).
        let mut completed: Vec<(u32, Micros)> = Vec::new();
        let mut k = 0;
        while k < o.jobs.len() {
            let (st, at) = (o.jobs[k].step, o.jobs[k].attempt);
            let mut e = k;
            let mut ok = true;
            let mut end = 0;
            while e < o.jobs.len() && o.jobs[e].step == st && o.jobs[e].attempt == at {
                ok &= !o.jobs[e].failed && !o.jobs[e].withdrawn && o.jobs[e].end != NEVER;
                end = end.max(o.jobs[e].end);
                e += 1;
            }
            if ok {
                completed.push((st, end));
            }
            k = e;
        }
        let scope = |x: u32| {
            if s.global { 0 } else { t.workflows()[steps[x as usize].workflow as usize].tenant }
        };
        for (k, r) in o.steps.iter().enumerate() {
            if r.state != StepState::Hit {
                continue;
            }
            let me = &steps[k];
            let found = completed.iter().any(|&(p, c)| {
                let ps = &steps[p as usize];
                ps.cache_key == me.cache_key
                    && scope(p) == scope(k as u32)
                    && c <= r.ready
                    && r.ready < c.saturating_add(s.max_age)
            });
            prop_assert!(found, "hit of step {k} at {} has no live producer", r.ready);
        }
        // Capacity.
        prop_assert!(o.cache.bytes_max <= s.capacity);
        prop_assert!(s.rule != CacheRule::Off || o.cache.hits == 0);
        // GPUs never exceeded: a sweep over every segment's start and end.
        let total: u64 = s.nodes.iter().map(|&g| u64::from(g)).sum();
        let mut ev: Vec<(Micros, i64)> = Vec::new();
        let bg = out.background.as_ref().map_or(Vec::new(), |b| b.segments.to_vec().expect("in memory"));
        let segments = o.segments.to_vec().expect("in memory");
        for seg in segments.iter().chain(&bg) {
            ev.push((seg.start, i64::from(seg.gpus)));
            ev.push((seg.end, -i64::from(seg.gpus)));
        }
        ev.sort_by_key(|&(at, d)| (at, d));
        let mut held = 0i64;
        for (_, d) in ev {
            held += d;
            prop_assert!(held <= total as i64);
        }
        // CPUs never exceeded (the workflows' jobs are the only ones
        // asking for CPUs here): the same sweep with each job's CPUs.
        if s.cpus_per_node > 0 {
            let total_cpus = i64::from(s.cpus_per_node) * s.nodes.len() as i64;
            let mut ev: Vec<(Micros, i64)> = Vec::new();
            for seg in &segments {
                let c = i64::from(o.jobs[seg.job as usize].cpus);
                ev.push((seg.start, c));
                ev.push((seg.end, -c));
            }
            ev.sort_by_key(|&(at, d)| (at, d));
            let mut held = 0i64;
            for (_, d) in ev {
                held += d;
                prop_assert!(held <= total_cpus, "{} CPUs held of {}", held, total_cpus);
            }
        }
        // Accounting.
        let mut by_wf = vec![0u128; t.workflows().len()];
        let mut cpu_by_wf = vec![0u128; t.workflows().len()];
        for seg in &segments {
            let a = o.jobs[seg.job as usize];
            by_wf[steps[a.step as usize].workflow as usize] +=
                u128::from(seg.gpus) * u128::from(seg.end - seg.start);
            cpu_by_wf[steps[a.step as usize].workflow as usize] +=
                u128::from(a.cpus) * u128::from(seg.end - seg.start);
        }
        let preemptive = matches!(s.sched, "srtf" | "las");
        let mut by_jobs = vec![0u128; t.workflows().len()];
        for a in &o.jobs {
            if a.start != NEVER && a.end != NEVER && a.end > a.start {
                by_jobs[steps[a.step as usize].workflow as usize] +=
                    u128::from(a.gpus) * u128::from(a.end - a.start);
            }
        }
        for (w, r) in o.workflows.iter().enumerate() {
            prop_assert_eq!(r.gpu_us, by_wf[w]);
            prop_assert_eq!(r.cpu_us, cpu_by_wf[w]);
            if !preemptive {
                prop_assert_eq!(r.gpu_us, by_jobs[w], "workflow {} from its jobs", w);
            }
        }
        prop_assert_eq!(o.busy_gpu_us, by_wf.iter().sum::<u128>());
        // Determinism.
        let again = run_setting(&t, &s);
        prop_assert_eq!(format!("{:?}", again.workflows), format!("{:?}", out.workflows));
        prop_assert_eq!(format!("{:?}", again.shares), format!("{:?}", out.shares));
    }

    /// Caching off, failures off, one workflow of independent steps: the
    /// same per-job starts, ends and segments as job mode on a trace of
    /// the same jobs (submit = the workflow's, duration = runtime, user 0).
    #[test]
    fn independent_steps_without_cache_or_failures_are_job_mode(
        specs in proptest::collection::vec((1u64..10, 1u32..4), 1..12),
        at in 0u64..5,
        nodes in proptest::collection::vec(1u32..5, 1..3),
        sched in prop::sample::select(vec!["fifo", "sjf", "srtf", "las", "fair-share"]),
    ) {
        let most = *nodes.iter().max().expect("a node");
        let rows: Vec<StepRow> = specs
            .iter()
            .enumerate()
            .map(|(k, &(rt, g))| {
                row("w", "t", at as f64, &format!("s{k}"), "", rt as f64, g.min(most), "", 0)
            })
            .collect();
        let t = trace(&rows);
        let o = run_with(input(&t), &nodes, Placement::Consolidate, sched, &[], 1)
            .workflows
            .expect("workflows");
        let jobs: Vec<Job> = t
            .steps()
            .iter()
            .map(|x| Job { submit: at * S, duration: x.runtime, gpus: x.gpus, user: 0, cpus: 0 })
            .collect();
        let f = job_scheduler(sched);
        let mut sc = f(&SchedInit { jobs: &jobs, users: 1, seed: 1, repetition: 0 }).expect("builds");
        let jm = simulate_jobs(
            &JobSimInput {
                jobs: &jobs,
                users: 1,
                nodes: &nodes,
                cpus: &[],
                placement: Placement::Consolidate,
                backfill: false,
                restart_overhead: 0,
                record_allocations: false,
                types: None,
            },
            &mut *sc,
        )
        .expect("runs");
        let starts: Vec<Micros> = o.jobs.iter().map(|a| a.start).collect();
        let ends: Vec<Micros> = o.jobs.iter().map(|a| a.end).collect();
        prop_assert_eq!(starts, jm.first_start);
        prop_assert_eq!(ends, jm.end);
        prop_assert_eq!(o.segments.to_vec().expect("in memory"), jm.segments.to_vec().expect("in memory"));
    }
}

/// The service (round-robin, in-order on a 3-user trace, 4 one-GPU nodes,
/// FIFO) alone, and beside one workflow submitted at 10 000 s, after the
/// service's last job: the service's run is the same, field for field
/// (its events and end count only its own events, the workflows' being
/// routed to them), and the workflow runs after it (one GPU, 5 s).
#[test]
fn workflows_after_the_service_leave_its_run_unchanged() {
    use crate::models::sim::{GpuTypes, SimConfig, SimInput};
    use crate::models::sim::{Scheduler, Selector};
    let t = crate::models::trace::parse_trace(
        "t.csv",
        "user,model,accuracy,runtime_s\na,m1,0.5,10\na,m2,0.7,20\nb,m1,0.6,15\nc,m1,0.4,5\nc,m2,0.9,30\n"
            .as_bytes(),
    )
    .expect("parses");
    let wt = trace(&[row("w", "x", 10_000.0, "s", "", 5.0, 1, "", 0)]);
    let tenants: crate::models::sim::TenantUsers = (0..t.n_users()).collect();
    let arrivals = vec![0; tenants.len()];
    let nodes = [1u32; 4];
    let types = GpuTypes::untyped(4);
    let go = |with: bool| {
        let input = SharedInput {
            cluster: ClusterInput {
                nodes: &nodes,
                cpus: &[],
                node_types: &[],
                types: 1,
                placement: Placement::Consolidate,
                backfill: false,
                restart_overhead: 0,
                round: None,
                record_allocations: false,
            },
            background: None,
            service: Some(ServiceInput {
                sim: SimInput {
                    trace: &t,
                    tenants: &tenants,
                    arrivals: &arrivals,
                    config: SimConfig {
                        gpus: 4,
                        ..SimConfig::default()
                    },
                    gpu_types: &types,
                },
                max_gpus: 4,
                gpus_per_job: 1,
                priority: Priority::Equal,
                preempt: Preempt::Checkpoint,
                keep_segments: true,
            }),
            workflows: with.then(|| input(&wt)),
        };
        let (mut a, mut b) = cases::service_policies(&t, &types, &tenants);
        simulate_shared(
            &input,
            &job_scheduler("fifo"),
            1,
            0,
            Some((
                a.as_mut() as &mut dyn Scheduler,
                b.as_mut() as &mut dyn Selector,
            )),
        )
        .expect("runs")
    };
    let alone = go(false);
    let both = go(true);
    let s = alone.service.as_ref().expect("service");
    assert_eq!(s.jobs.len(), 5);
    assert_eq!(
        format!(
            "{:?}",
            both.service
                .as_ref()
                .map(|s| (&s.jobs, s.end, s.events, s.busy))
        ),
        format!(
            "{:?}",
            alone
                .service
                .as_ref()
                .map(|s| (&s.jobs, s.end, s.events, s.busy))
        )
    );
    assert_eq!(both.service_segments, alone.service_segments);
    let w = both.workflows.as_ref().expect("workflows");
    assert_eq!(
        (w.workflows[0].state, w.workflows[0].end),
        (WorkflowState::Done, 10_005 * S)
    );
    assert_eq!(w.end, 10_005 * S);
    assert!(
        both.shares
            .to_vec()
            .expect("in memory")
            .iter()
            .any(|r| r.workload == WorkloadKind::Workflows && r.gpus == 1)
    );
}

/// A typed cluster (two GPU types) is refused with a message naming the
/// trace and saying what is expected: workflows run on untyped clusters
/// only (DESIGN §14.2, as built).
#[test]
fn a_typed_cluster_is_refused_with_a_clear_error() {
    let t = trace(&[row("wf", "t", 0.0, "s", "", 1.0, 1, "", 0)]);
    let input = SharedInput {
        cluster: ClusterInput {
            cpus: &[],
            nodes: &[2, 2],
            node_types: &[0, 1],
            types: 2,
            placement: Placement::Consolidate,
            backfill: false,
            restart_overhead: 0,
            round: None,
            record_allocations: false,
        },
        background: None,
        service: None,
        workflows: Some(input(&t)),
    };
    let e = simulate_shared(&input, &job_scheduler("fifo"), 1, 0, None)
        .expect_err("typed")
        .to_string();
    assert!(
        e.contains("w.csv") && e.contains("untyped clusters only") && e.contains("2 GPU types"),
        "{e}"
    );
}

/// A registered eviction rule (DESIGN §14.8).
fn user_eviction(
    name: &str,
    score: impl Fn(&CacheEntry) -> Result<f64> + Send + Sync + Copy + 'static,
) -> CacheRule {
    EvictionEntry::new(name, "", move || Ok(score)).rule()
}

/// A registered parallelisation rule with `parallel_k = max`.
fn user_parallel(
    max: u32,
    parts: impl Fn(&SplitStep) -> Result<u32> + Send + Sync + Copy + 'static,
) -> ParallelRule {
    ParallelEntry::new("mine", "", move || Ok(parts)).rule(max)
}

/// Roots x (1 s, 30 B), y (2 s, 50 B), z (3 s, 40 B) on 3 GPUs in a 100 B
/// cache, the same three keys again at 20 s. x is stored at 1 (30 B held),
/// y at 2 (80 B); z at 3 needs room (120 > 100). A registered "largest
/// first" rule (score −bytes) evicts y (50 B, the largest), 70 B held;
/// `lru` evicts x (last used 1, the oldest), 90 B held. So at 20 s,
/// largest-first: x and z hit, y runs (2 s), stored at 22: 70 + 50 > 100
/// → evict the largest of x (30) and z (40), z: 80 B at the end, 2
/// evictions. `lru`: y and z hit, x runs 20–21, stored at 21: 90 + 30 >
/// 100 → y and z were both last used at 20, y created first (2 < 3): y
/// goes, 70 B at the end, 2 evictions. A registered rule whose score is
/// the last use time gives `lru`'s run exactly (its ties fall back to
/// `lru`'s key, here never reached).
#[test]
fn a_registered_largest_first_rule_evicts_the_largest_entry() {
    let mut rows = Vec::new();
    for (w, at) in [("w1", 0.0), ("w2", 20.0)] {
        rows.push(row(w, "t", at, "x", "", 1.0, 1, "x", 30));
        rows.push(row(w, "t", at, "y", "", 2.0, 1, "y", 50));
        rows.push(row(w, "t", at, "z", "", 3.0, 1, "z", 40));
    }
    let t = trace(&rows);
    let (d, h) = (StepState::Done, StepState::Hit);
    let largest = user_eviction("largest-first", |e| Ok(-(e.bytes as f64)));
    let last_used = user_eviction("last-used", |e| Ok(e.last_used as f64));
    for (rule, expect, bytes_end) in [
        (largest, [h, d, h], 80),
        (CacheRule::Lru, [d, h, h], 70),
        (last_used, [d, h, h], 70),
    ] {
        let mut i = input(&t);
        i.cache_rule = rule.clone();
        i.cache.capacity_bytes = 100;
        let o = run(i, &[3]);
        let got: Vec<StepState> = o.steps[3..].iter().map(|s| s.state).collect();
        assert_eq!(got, expect, "{rule:?}");
        assert_eq!(
            (o.cache.evicted, o.cache.bytes_end),
            (2, bytes_end),
            "{rule:?}"
        );
    }
}

/// The facts a rule sees, on the case above under a rule that records
/// them: x's entry created at 1 s with 30 B, 1 s saved, 1 GPU, tenant 0,
/// no hits; at w2's hit of x (20 s) it is scored again with hits 1,
/// last used 20 s, created still 1 s.
#[test]
fn an_eviction_rule_is_asked_at_creation_and_at_each_hit() {
    use std::sync::{Arc, Mutex};
    let rows = vec![
        row("w1", "t", 0.0, "x", "", 1.0, 1, "x", 30),
        row("w2", "t", 20.0, "x", "", 1.0, 1, "x", 30),
    ];
    let t = trace(&rows);
    let seen: Arc<Mutex<Vec<CacheEntry>>> = Arc::default();
    let log = Arc::clone(&seen);
    let mut i = input(&t);
    i.cache_rule = EvictionEntry::new("spy", "", move || {
        let log = Arc::clone(&log);
        Ok(move |e: &CacheEntry| {
            log.lock().expect("not poisoned").push(*e);
            Ok(0.0)
        })
    })
    .rule();
    run(i, &[1]);
    let fact = |created, last_used, hits, now| CacheEntry {
        bytes: 30,
        saved_us: S,
        gpus: 1,
        cpus: 0,
        created,
        last_used,
        hits,
        tenant: 0,
        global: false,
        now,
    };
    assert_eq!(
        *seen.lock().expect("not poisoned"),
        vec![fact(S, S, 0, S), fact(S, 20 * S, 1, 20 * S)]
    );
}

/// A registered rule returning 4 is built-in `fixed` with k = 4 (the
/// hand case of `a_parallelised_step_runs_as_sub_jobs`: 4 parts of 3.5
/// s), and one returning min(cap, free GPUs / gpus) is `fill` (3 parts on
/// 3 free GPUs): the whole outcomes are equal.
#[test]
fn a_registered_parallel_rule_matches_the_built_ins() {
    let mut rows = vec![row("w", "t", 0.0, "s", "", 10.0, 1, "", 0)];
    rows[0].parallel = true;
    let t = trace(&rows);
    let json = |o: &WorkflowOutcome| serde_json::to_string(o).expect("serialises");
    let mut i = input(&t);
    i.split_overhead = S;
    let mut j = i.clone();
    i.parallel = ParallelRule::Fixed { k: 4 };
    j.parallel = user_parallel(4, |_| Ok(4));
    let (a, b) = (run(i.clone(), &[4]), run(j.clone(), &[4]));
    assert_eq!(b.steps[0].parts, 4);
    assert_eq!(json(&a), json(&b));
    i.parallel = ParallelRule::Fill { cap: 8 };
    j.parallel = user_parallel(8, |s| {
        let fit = s.free_gpus / u64::from(s.gpus.max(1));
        Ok(fit.clamp(1, u64::from(s.parallel_k)) as u32)
    });
    let (a, b) = (run(i, &[3]), run(j, &[3]));
    assert_eq!(b.steps[0].parts, 3);
    assert_eq!(json(&a), json(&b));
}

/// A registered rule's impossible answers stop the run with an error
/// naming the rule, the step and what was expected: a NaN score, an
/// error of the rule, 0 sub-jobs, more than `parallel_k`.
#[test]
fn bad_answers_of_registered_rules_are_clear_errors() {
    let mut rows = vec![row("w", "t", 0.0, "s", "", 10.0, 1, "k", 8)];
    rows[0].parallel = true;
    let t = trace(&rows);
    let go = |i: WorkflowsInput<'_>| {
        try_run_cluster(i, &[4], &[], Placement::Consolidate, "fifo", &[], 1, None)
            .expect_err("refused")
            .to_string()
    };
    let mut i = input(&t);
    i.cache_rule = user_eviction("nan", |_| Ok(f64::NAN));
    let e = go(i);
    assert!(
        e.contains("the cache eviction rule `nan` on the output of step `s` of workflow `w`")
            && e.contains("the score is NaN: expected a number"),
        "{e}"
    );
    let mut i = input(&t);
    i.cache_rule = user_eviction("broken", |_| Err(Error::policy("no score today")));
    let e = go(i);
    assert!(
        e.contains("the cache eviction rule `broken`") && e.contains("no score today"),
        "{e}"
    );
    for (k, max) in [(0, 4), (5, 4)] {
        let mut i = input(&t);
        i.parallel = user_parallel(max, move |_| Ok(k));
        let e = go(i);
        assert!(
            e.contains("the parallelisation rule `mine` on step `s` of workflow `w`")
                && e.contains(&format!(
                    "returned {k} sub-jobs: expected 1 to {max} (the policy's parallel_k)"
                )),
            "{e}"
        );
    }
}

/// The jobs a run's workflows may submit (DESIGN §14.4): Σ k_s, and R ·
/// max k_s more per workflow under `cached` (R · Σ k_s under
/// `from-scratch`) only when a step of the workflow can fail; a run that
/// may number more than the engine's `u32` indices is refused before
/// anything is allocated (the loader refuses it first; this is the
/// engine's own guard for a library caller).
#[test]
fn workflow_jobs_count_retries_only_where_a_step_can_fail() {
    let t = trace(&[
        row("w", "t", 0.0, "a", "", 1.0, 1, "", 0),
        row("w", "t", 0.0, "b", "a", 1.0, 1, "", 0),
        row("v", "t", 0.0, "x", "", 1.0, 1, "", 0),
    ]);
    let mut i = input(&t);
    i.retry = RetryConfig {
        max_retries: 5,
        backoff: 0,
        resume: Resume::Cached,
    };
    assert_eq!(workflow_jobs(&i), 3, "no step can fail: no retry");
    i.failure_p = Some(0.5);
    assert_eq!(workflow_jobs(&i), 3 + 5 + 5, "R · max k per workflow");
    i.retry.resume = Resume::FromScratch;
    assert_eq!(workflow_jobs(&i), 3 + 5 * 2 + 5, "R · Σ k per workflow");
    i.retry.max_retries = u32::MAX;
    let e = try_run_cluster(i, &[1], &[], Placement::Consolidate, "fifo", &[], 1, None)
        .expect_err("more jobs than a run can number");
    assert!(
        e.to_string()
            .contains("more than the 4294967295 one run can number: lower [workflows.retry] max_retries or parallel_k"),
        "{e}"
    );
}
