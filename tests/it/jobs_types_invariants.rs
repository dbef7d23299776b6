//! Invariants of typed job-mode runs (DESIGN §11.2) under every scheduler
//! and every type policy, on random small typed clusters and random traces
//! with type constraints and per-type durations (proptest):
//!
//! - a job never runs on a type its constraint excludes, and never spans
//!   two types (every node of a segment has the segment's type);
//! - GPUs are never over-committed (per node, from the recorded
//!   allocations);
//! - work is conserved across types: each segment but the last does
//!   `floor(service × duration / d_t)` work units, and the last one takes
//!   exactly `ceil(remaining × d_t / duration)` of service;
//! - under `fastest-or-wait`, a job that starts before its bound starts on
//!   its fastest allowed type.

use std::collections::BTreeMap;

use proptest::prelude::*;
use tenantsim::jobs::policy::{Params, schedulers};
use tenantsim::jobs::sim::{JobTypes, SchedInit, SimTypes, TypePolicy, simulate_jobs_in_rounds};
use tenantsim::jobs::{Job, JobOutcome, JobSimInput, Placement, simulate_jobs};

#[derive(Debug, Clone)]
struct Case {
    jobs: Vec<Job>,
    nodes: Vec<u32>,
    node_types: Vec<u16>,
    types: usize,
    allowed: Vec<u64>,
    durations: Vec<u64>,
    placement: Placement,
    backfill: bool,
    overhead: u64,
    max_wait: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        1usize..4,
        proptest::collection::vec((1u32..5, 0u16..3), 1..6),
        any::<bool>(),
        any::<bool>(),
        0u64..3,
        0u64..20,
        1usize..20,
    )
        .prop_flat_map(|(types, nodes, spread, backfill, overhead, max_wait, n)| {
            let jobs = proptest::collection::vec(
                (
                    0u64..30,
                    1u64..12,
                    1u32..9,
                    0u32..3,
                    1u64..64,
                    proptest::collection::vec(1u64..20, types),
                ),
                n,
            );
            (
                Just((types, nodes, spread, backfill, overhead, max_wait)),
                jobs,
            )
        })
        .prop_map(
            |((types, nodes, spread, backfill, overhead, max_wait), raw)| {
                // Node types below `types`; type t without a node gets one.
                let mut node_types: Vec<u16> =
                    nodes.iter().map(|&(_, t)| t % types as u16).collect();
                let mut caps: Vec<u32> = nodes.iter().map(|&(g, _)| g).collect();
                for t in 0..types as u16 {
                    if !node_types.contains(&t) {
                        node_types.push(t);
                        caps.push(2);
                    }
                }
                let placement = if spread {
                    Placement::Spread
                } else {
                    Placement::Consolidate
                };
                let limit = |t: usize| -> u32 {
                    let of_t = caps
                        .iter()
                        .zip(&node_types)
                        .filter(|(_, nt)| **nt as usize == t)
                        .map(|(g, _)| *g);
                    if spread {
                        of_t.sum()
                    } else {
                        of_t.max().unwrap_or(0)
                    }
                };
                let mut jobs = Vec::new();
                let mut allowed = Vec::new();
                let mut durations = Vec::new();
                for (submit, duration, gpus, user, mask, per_type) in raw {
                    let mut mask = mask & ((1u64 << types) - 1);
                    if mask == 0 {
                        mask = 1;
                    }
                    // Keep the types that can hold the job, and a job that one
                    // can (as the scenario loader does).
                    let best = (0..types)
                        .filter(|&t| mask & (1 << t) != 0)
                        .map(limit)
                        .max();
                    let gpus = gpus.min(best.unwrap_or(1)).max(1);
                    let mask = (0..types)
                        .filter(|&t| mask & (1 << t) != 0 && limit(t) >= gpus)
                        .fold(0u64, |m, t| m | (1 << t));
                    jobs.push(Job {
                        submit,
                        duration,
                        gpus,
                        user,
                        cpus: 0,
                    });
                    allowed.push(mask);
                    durations.extend(per_type);
                }
                Case {
                    jobs,
                    nodes: caps,
                    node_types,
                    types,
                    allowed,
                    durations,
                    placement,
                    backfill,
                    overhead,
                    max_wait,
                }
            },
        )
}

fn simulate(c: &Case, name: &str, policy: TypePolicy) -> JobOutcome {
    let spec = schedulers().find(|s| s.name == name).expect("registered");
    let mut p = Params::new("prop", BTreeMap::new());
    let factory = (spec.parse)(&mut p).expect("params");
    let mut sched = factory(&SchedInit {
        jobs: &c.jobs,
        users: 3,
        seed: 0,
        repetition: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let jt = JobTypes::new(c.types, c.allowed.clone(), c.durations.clone());
    let input = JobSimInput {
        jobs: &c.jobs,
        users: 3,
        nodes: &c.nodes,
        cpus: &[],
        placement: c.placement,
        backfill: c.backfill,
        restart_overhead: c.overhead,
        record_allocations: true,
        types: Some(SimTypes {
            node_types: &c.node_types,
            jobs: &jt,
            policy,
        }),
    };
    if spec.needs_rounds {
        // Time-slicing schedulers run in rounds (DESIGN §11.3), here of
        // 64 µs: longer than the restart overhead plus the slowest type's
        // slowdown (< 20), so every round that runs a job advances its work.
        simulate_jobs_in_rounds(&input, 64, sched.as_mut()).expect("simulation runs")
    } else {
        simulate_jobs(&input, sched.as_mut()).expect("simulation runs")
    }
}

fn check(c: &Case, o: &JobOutcome, policy: TypePolicy) -> Result<(), TestCaseError> {
    let segments = o.segments.to_vec().expect("the segment log");
    let d = |j: usize, t: u16| c.durations[j * c.types + t as usize];
    // Types and spans.
    for s in &segments {
        let j = s.job as usize;
        prop_assert!(
            c.allowed[j] & (1 << s.gpu_type) != 0,
            "job {j} ran on excluded type {}",
            s.gpu_type
        );
        let allocs =
            &o.segment_allocs[s.alloc_offset as usize..(s.alloc_offset + s.alloc_len) as usize];
        prop_assert_eq!(allocs.iter().map(|a| a.gpus).sum::<u32>(), s.gpus);
        for a in allocs {
            prop_assert_eq!(
                c.node_types[a.node as usize],
                s.gpu_type,
                "job {} spans types",
                j
            );
        }
    }
    // Capacity at every instant.
    let mut times: Vec<u64> = segments.iter().flat_map(|s| [s.start, s.end]).collect();
    times.sort_unstable();
    times.dedup();
    for &t in &times {
        let mut used = vec![0u32; c.nodes.len()];
        for s in segments.iter().filter(|s| s.start <= t && t < s.end) {
            let allocs =
                &o.segment_allocs[s.alloc_offset as usize..(s.alloc_offset + s.alloc_len) as usize];
            for a in allocs {
                used[a.node as usize] += a.gpus;
            }
        }
        for (n, &u) in used.iter().enumerate() {
            prop_assert!(u <= c.nodes[n], "node {n} over capacity at {t}");
        }
    }
    // Work conservation, job by job, segments in time order.
    for (j, job) in c.jobs.iter().enumerate() {
        let mut segs: Vec<_> = segments.iter().filter(|s| s.job as usize == j).collect();
        segs.sort_by_key(|s| s.start);
        prop_assert!(!segs.is_empty(), "job {j} never ran");
        prop_assert!(segs[0].start >= job.submit);
        let mut remaining = u128::from(job.duration);
        for (k, s) in segs.iter().enumerate() {
            let dt = u128::from(d(j, s.gpu_type));
            let service = u128::from(s.service());
            if k + 1 == segs.len() {
                prop_assert_eq!(
                    service,
                    (remaining * dt).div_ceil(u128::from(job.duration)),
                    "job {}: last run",
                    j
                );
                prop_assert_eq!(s.end, o.end[j]);
            } else {
                let work = (service * u128::from(job.duration) / dt).min(remaining);
                remaining -= work;
            }
        }
        // Under fastest-or-wait, a start before the bound is on the fastest type.
        if let TypePolicy::FastestOrWait { max_wait } = policy {
            let s = segs[0];
            if s.start - job.submit < max_wait {
                let fastest = (0..c.types as u16)
                    .filter(|&t| c.allowed[j] & (1 << t) != 0)
                    .min_by_key(|&t| (d(j, t), t))
                    .expect("an allowed type");
                prop_assert_eq!(
                    s.gpu_type,
                    fastest,
                    "job {} started early off its fastest type",
                    j
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn typed_runs_respect_constraints_types_capacity_and_work(c in case()) {
        let policies = [
            TypePolicy::Agnostic,
            TypePolicy::Fastest,
            TypePolicy::FastestOrWait { max_wait: c.max_wait },
        ];
        for spec in schedulers() {
            // A scheduler that chooses types itself ignores the type policy.
            let policies = if spec.needs_rounds { &policies[..1] } else { &policies[..] };
            for &policy in policies {
                let o = simulate(&c, &spec.name, policy);
                check(&c, &o, policy).map_err(|e| {
                    TestCaseError::fail(format!("{} / {}: {e}", spec.name, policy.name()))
                })?;
            }
        }
    }
}
