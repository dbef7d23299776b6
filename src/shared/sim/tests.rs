//! The engine against today's modes (DESIGN §13.6): the one-workload cases
//! give model mode's and job mode's run logs exactly, on every bundled
//! scenario; and small cases derived on paper.

use std::path::{Path, PathBuf};

use super::*;
use crate::core::io::cluster::GpuType;
use crate::core::io::scenario::Overrides;
use crate::core::run::sweep::Plan;
use crate::core::testing::scenario_data;
use crate::jobs::sim::{
    JobOutcome, JobSchedulerFactory, JobSimInput, Placement, SchedInit, SimTypes,
};
use crate::jobs::sim::{simulate_jobs, simulate_jobs_in_rounds};
use crate::models::scenario::Scenario;
use crate::models::sim::{RepContext, simulate};
use crate::models::sim::{RunOutcome, SimInput};

fn bundled(mode_jobs: bool) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            let is_jobs = text
                .lines()
                .any(|l| l.trim_start().starts_with("mode") && l.contains("\"jobs\""));
            let is_shared = text
                .lines()
                .any(|l| l.trim_start().starts_with("mode") && l.contains("\"shared\""));
            !is_shared && is_jobs == mode_jobs
        })
        .collect();
    out.sort();
    out
}

fn points<S>(plan: Plan<S>) -> Vec<S> {
    match plan {
        Plan::Single(s) => vec![*s],
        Plan::Sweep { points, .. } => points.into_iter().map(|p| p.scenario).collect(),
    }
}

fn fifo() -> JobSchedulerFactory {
    let e = crate::jobs::policy::registry::scheduler("fifo").expect("fifo is built in");
    (e.parse)(&mut crate::core::params::Params::new(
        "fifo",
        Default::default(),
    ))
    .expect("fifo parses")
}

/// Model mode's run and the shared engine's, the service owning a cluster
/// of one-GPU nodes.
fn both_ways(s: &Scenario, rep: u64, policy: usize) -> (RunOutcome, RunOutcome) {
    let seed = s.seed();
    let split = s.split.resolve(seed, rep);
    let arrivals = s
        .arrivals
        .sample(&split.tenants, &s.trace, seed, rep)
        .expect("arrivals");
    let ctx = RepContext {
        trace: &s.trace,
        gpu_types: &s.gpu_types,
        tenants: &split.tenants,
        prior: &split.prior,
        seed,
        repetition: rep,
    };
    let p = &s.policies[policy];
    let input = SimInput {
        trace: &s.trace,
        tenants: &split.tenants,
        arrivals: &arrivals,
        config: s.config,
        gpu_types: &s.gpu_types,
    };
    let (mut a, mut b) = (
        (p.make_scheduler)(&ctx).expect("scheduler"),
        (p.make_selector)(&ctx).expect("selector"),
    );
    let model = simulate(&input, a.as_mut(), b.as_mut()).expect("model mode runs");
    let g = s.config.gpus;
    let nodes = vec![1u32; g as usize];
    let node_types: Vec<GpuType> = if s.gpu_types.is_typed() {
        (0..g).map(|i| s.gpu_types.type_of(i)).collect()
    } else {
        Vec::new()
    };
    let shared_input = SharedInput {
        cluster: ClusterInput {
            nodes: &nodes,
            node_types: &node_types,
            types: s.gpu_types.n_types().max(1),
            placement: Placement::Consolidate,
            backfill: false,
            restart_overhead: 0,
            round: None,
            record_allocations: false,
        },
        background: None,
        service: Some(ServiceInput {
            sim: input,
            max_gpus: g,
            gpus_per_job: 1,
            priority: Priority::Equal,
            preempt: Preempt::Checkpoint,
        }),
    };
    let (mut a, mut b) = (
        (p.make_scheduler)(&ctx).expect("scheduler"),
        (p.make_selector)(&ctx).expect("selector"),
    );
    let shared = simulate_shared(
        &shared_input,
        &fifo(),
        seed,
        rep,
        Some((a.as_mut(), b.as_mut())),
    )
    .expect("shared runs");
    (model, shared.service.expect("a service outcome"))
}

fn same_run(a: &RunOutcome, b: &RunOutcome, what: &str) {
    assert_eq!(a.jobs, b.jobs, "{what}: jobs");
    assert_eq!(
        a.completion_order, b.completion_order,
        "{what}: completion order"
    );
    assert_eq!(a.end, b.end, "{what}: end");
    assert_eq!(a.busy, b.busy, "{what}: busy");
    assert_eq!(a.busy_by_type, b.busy_by_type, "{what}: busy by type");
    assert_eq!(
        a.low_fidelity_busy, b.low_fidelity_busy,
        "{what}: low-fidelity busy"
    );
    assert_eq!(a.gpus, b.gpus, "{what}: gpus");
    assert_eq!(a.left_at, b.left_at, "{what}: left at");
    assert_eq!(a.budget_exhausted, b.budget_exhausted, "{what}: budget");
    assert_eq!(a.ended, b.ended, "{what}: ended");
}

#[test]
fn every_bundled_model_scenario_runs_the_same_as_a_service_owning_the_cluster() {
    let mut checked = 0;
    for path in bundled(false) {
        if !scenario_data(&path) {
            continue;
        }
        let plan = crate::models::scenario::load_plan(&path, Overrides::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let scenarios = points(plan);
        // The first and last point of a sweep, one repetition each (the
        // big scale scenario: its first policy only).
        let picks: Vec<&Scenario> = match scenarios.len() {
            0 => Vec::new(),
            1 => vec![&scenarios[0]],
            n => vec![&scenarios[0], &scenarios[n - 1]],
        };
        for s in picks {
            // The 100,000-tenant scale scenario takes minutes in a debug
            // build: the file-level test of shared mode covers it.
            if s.trace.n_users() > 5_000 {
                continue;
            }
            for policy in 0..s.policies.len() {
                let (model, shared) = both_ways(s, 0, policy);
                same_run(
                    &model,
                    &shared,
                    &format!("{} policy {policy}", path.display()),
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} runs compared");
}

fn same_jobs(a: &JobOutcome, b: &JobOutcome, what: &str) {
    assert_eq!(a.first_start, b.first_start, "{what}: first start");
    assert_eq!(a.end, b.end, "{what}: end");
    assert_eq!(a.preemptions, b.preemptions, "{what}: preemptions");
    assert_eq!(a.segments, b.segments, "{what}: segments");
    assert_eq!(a.segment_allocs, b.segment_allocs, "{what}: allocations");
    assert_eq!(a.events, b.events, "{what}: events");
    assert_eq!(a.end_time, b.end_time, "{what}: end time");
    assert_eq!(a.gpu_type, b.gpu_type, "{what}: gpu types");
    assert_eq!(a.gpus_by_type, b.gpus_by_type, "{what}: gpus by type");
}

#[test]
fn every_bundled_job_scenario_runs_the_same_as_a_background_alone() {
    let mut checked = 0;
    for path in bundled(true) {
        if !scenario_data(&path) {
            continue;
        }
        let plan = crate::jobs::scenario::load_job_plan(&path, Overrides::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for s in points(plan) {
            for (policy, p) in s.policies.iter().enumerate() {
                let jobs = s.rep_jobs(0);
                let users = s.trace.users().len();
                let node_types = s.cluster.node_types();
                let input = JobSimInput {
                    jobs: &jobs.jobs,
                    users,
                    nodes: &s.nodes,
                    placement: s.placement,
                    backfill: p.backfill,
                    restart_overhead: s.restart_overhead,
                    record_allocations: true,
                    types: jobs.types.as_ref().map(|t| SimTypes {
                        node_types: &node_types,
                        jobs: t,
                        policy: p.type_policy,
                    }),
                };
                let init = SchedInit {
                    jobs: &jobs.jobs,
                    users,
                    seed: s.seed(),
                    repetition: 0,
                };
                let mut sched = (p.make)(&init).expect("scheduler");
                let alone = match s.round {
                    None => simulate_jobs(&input, sched.as_mut()),
                    Some(r) => simulate_jobs_in_rounds(&input, r, sched.as_mut()),
                }
                .expect("job mode runs");
                let typed = jobs.types.is_some();
                let shared = SharedInput {
                    cluster: ClusterInput {
                        nodes: &s.nodes,
                        node_types: if typed { &node_types } else { &[] },
                        types: jobs.types.as_ref().map_or(1, |t| t.types()),
                        placement: s.placement,
                        backfill: p.backfill,
                        restart_overhead: s.restart_overhead,
                        round: s.round,
                        record_allocations: true,
                    },
                    background: Some(BackgroundInput {
                        jobs: &jobs.jobs,
                        users,
                        types: jobs.types.as_ref(),
                        type_policy: p.type_policy,
                    }),
                    service: None,
                };
                let out =
                    simulate_shared(&shared, &p.make, s.seed(), 0, None).expect("shared runs");
                let bg = out.background.expect("a background outcome");
                same_jobs(&alone, &bg, &format!("{} policy {policy}", path.display()));
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} runs compared");
}
