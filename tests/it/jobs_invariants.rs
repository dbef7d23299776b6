//! Invariants of job-trace mode under every scheduler, on random small
//! workloads (proptest):
//!
//! - GPUs are never over-committed (per node, from the recorded
//!   allocations), and `consolidate` jobs sit on one node;
//! - every job completes exactly once, after its submit, with exactly its
//!   duration of service (work is conserved under preemption; restore time
//!   is extra and only after a preemption);
//! - with backfilling every scheduler is non-idling: after each instant no
//!   waiting job fits the free GPUs;
//! - `fifo` and `sjf` (with or without backfilling, both placements) match
//!   a naive, independent re-implementation of DESIGN §9 exactly.

use std::collections::BTreeMap;

use proptest::prelude::*;
use tenantsim::jobs::policy::{Params, schedulers};
use tenantsim::jobs::sim::SchedInit;
use tenantsim::jobs::sim::simulate_jobs_in_rounds;
use tenantsim::jobs::sim::simulation::NEVER;
use tenantsim::jobs::{Job, JobOutcome, JobSimInput, Placement, simulate_jobs};

#[derive(Debug, Clone)]
struct Case {
    jobs: Vec<Job>,
    nodes: Vec<u32>,
    placement: Placement,
    backfill: bool,
    overhead: u64,
    thresholds: Vec<f64>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(1u32..5, 1..4),
        any::<bool>(),
        any::<bool>(),
        0u64..3,
        proptest::collection::vec(1u32..30, 0..3),
        1usize..25,
    )
        .prop_flat_map(|(nodes, spread, backfill, overhead, th, n)| {
            let largest = *nodes.iter().max().unwrap_or(&1);
            let total: u32 = nodes.iter().sum();
            let limit = if spread { total } else { largest };
            let jobs = proptest::collection::vec((0u64..30, 1u64..12, 1u32..=limit, 0u32..3), n);
            (Just((nodes, spread, backfill, overhead, th)), jobs)
        })
        .prop_map(|((nodes, spread, backfill, overhead, th), jobs)| {
            let mut thresholds: Vec<f64> = th.iter().map(|&t| f64::from(t) * 1e-6).collect();
            thresholds.sort_by(f64::total_cmp);
            thresholds.dedup();
            Case {
                jobs: jobs
                    .into_iter()
                    .map(|(submit, duration, gpus, user)| Job {
                        submit,
                        duration,
                        gpus,
                        user,
                        cpus: 0,
                    })
                    .collect(),
                nodes,
                placement: if spread {
                    Placement::Spread
                } else {
                    Placement::Consolidate
                },
                backfill,
                overhead,
                thresholds,
            }
        })
}

fn simulate(c: &Case, name: &str, backfill: bool) -> JobOutcome {
    let spec = schedulers().find(|s| s.name == name).expect("registered");
    let mut params = BTreeMap::new();
    if name == "las" && !c.thresholds.is_empty() {
        params.insert(
            "queue_thresholds_gpu_s".to_string(),
            toml::Value::Array(
                c.thresholds
                    .iter()
                    .map(|&t| toml::Value::Float(t))
                    .collect(),
            ),
        );
    }
    let mut p = Params::new("prop", params);
    let factory = (spec.parse)(&mut p).expect("params");
    let mut sched = factory(&SchedInit {
        jobs: &c.jobs,
        users: 3,
        seed: 0,
        repetition: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let input = JobSimInput {
        jobs: &c.jobs,
        users: 3,
        nodes: &c.nodes,
        cpus: &[],
        placement: c.placement,
        backfill,
        restart_overhead: c.overhead,
        record_allocations: true,
        types: None,
    };
    if spec.needs_rounds {
        // Time-slicing schedulers run in rounds (DESIGN §11.3), of 4 µs here.
        simulate_jobs_in_rounds(&input, 4, sched.as_mut()).expect("simulation runs")
    } else {
        simulate_jobs(&input, sched.as_mut()).expect("simulation runs")
    }
}

/// Every instant at which the state may change.
fn instants(c: &Case, o: &JobOutcome) -> Vec<u64> {
    let mut t: Vec<u64> = c.jobs.iter().map(|j| j.submit).collect();
    for s in &o.segments.to_vec().expect("the segment log") {
        t.push(s.start);
        t.push(s.end);
    }
    t.sort_unstable();
    t.dedup();
    t
}

/// Free GPUs per node just after instant `t` (segments covering [t, t+1)).
fn free_after(c: &Case, o: &JobOutcome, t: u64) -> Result<Vec<i64>, TestCaseError> {
    let mut free: Vec<i64> = c.nodes.iter().map(|&g| i64::from(g)).collect();
    for s in o
        .segments
        .to_vec()
        .expect("the segment log")
        .iter()
        .filter(|s| s.start <= t && t < s.end)
    {
        let allocs =
            &o.segment_allocs[s.alloc_offset as usize..(s.alloc_offset + s.alloc_len) as usize];
        for a in allocs {
            free[a.node as usize] -= i64::from(a.gpus);
        }
    }
    for (n, &f) in free.iter().enumerate() {
        prop_assert!(f >= 0, "node {n} over-committed at {t}: {f} free");
    }
    Ok(free)
}

fn check_invariants(c: &Case, name: &str, backfill: bool) -> Result<(), TestCaseError> {
    let o = simulate(c, name, backfill);
    let segments = o.segments.to_vec().expect("the segment log");
    let preemptive = schedulers().any(|s| s.name == name && s.preemptive);
    // In rounds GPUs may idle until the next boundary: no non-idling check.
    let rounds = schedulers().any(|s| s.name == name && s.needs_rounds);
    for s in &segments {
        let allocs =
            &o.segment_allocs[s.alloc_offset as usize..(s.alloc_offset + s.alloc_len) as usize];
        prop_assert_eq!(allocs.iter().map(|a| a.gpus).sum::<u32>(), s.gpus);
        prop_assert_eq!(s.gpus, c.jobs[s.job as usize].gpus);
        if c.placement == Placement::Consolidate {
            prop_assert_eq!(allocs.len(), 1, "consolidate job split over nodes");
        }
        prop_assert!(s.start < s.end || s.overhead == 0);
    }
    for (i, j) in c.jobs.iter().enumerate() {
        prop_assert!(o.end[i] != NEVER, "job {} never completed", i);
        let mut segs: Vec<_> = segments.iter().filter(|s| s.job as usize == i).collect();
        segs.sort_by_key(|s| s.start);
        prop_assert!(!segs.is_empty());
        prop_assert_eq!(segs[0].start, o.first_start[i]);
        prop_assert!(segs[0].start >= j.submit);
        prop_assert_eq!(segs[0].overhead, 0, "first start pays no restore");
        prop_assert_eq!(segs.last().map(|s| s.end), Some(o.end[i]));
        for w in segs.windows(2) {
            prop_assert!(w[0].end <= w[1].start, "job {} ran twice at once", i);
        }
        let service: u64 = segs.iter().map(|s| s.service()).sum();
        prop_assert_eq!(service, j.duration, "job {} service", i);
        prop_assert!(segs.iter().all(|s| s.overhead <= c.overhead));
        prop_assert_eq!(segs.len() as u32, o.preemptions[i] + 1);
        if !preemptive {
            prop_assert_eq!(segs.len(), 1);
        }
    }
    for t in instants(c, &o) {
        let free = free_after(c, &o, t)?;
        if !backfill || rounds {
            continue;
        }
        let max_free = free.iter().copied().max().unwrap_or(0);
        let sum_free: i64 = free.iter().sum();
        for (i, j) in c.jobs.iter().enumerate() {
            let running = segments
                .iter()
                .any(|s| s.job as usize == i && s.start <= t && t < s.end);
            let waiting = j.submit <= t && o.end[i] > t && !running;
            let fits = match c.placement {
                Placement::Consolidate => i64::from(j.gpus) <= max_free,
                Placement::Spread => i64::from(j.gpus) <= sum_free,
            };
            prop_assert!(
                !(waiting && fits),
                "{}: job {} waits at {} although it fits (free {:?})",
                name,
                i,
                t,
                free
            );
        }
    }
    Ok(())
}

/// A naive re-implementation of DESIGN §9's non-preemptive rules: at each
/// event time, completions, then arrivals, then one pass over the queue
/// sorted by `key`, placing by the placement rule; head-of-line blocking
/// unless backfilling.
fn reference(
    c: &Case,
    key: fn(&Job, usize) -> (u64, u64, usize),
    backfill: bool,
) -> Vec<(u64, u64)> {
    let n = c.jobs.len();
    let mut free: Vec<u32> = c.nodes.clone();
    let mut start = vec![None; n];
    let mut end = vec![0u64; n];
    let mut held: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    let mut done = vec![false; n];
    let mut t = 0u64;
    loop {
        // Completions at t.
        for i in 0..n {
            if start[i].is_some() && !done[i] && end[i] == t {
                done[i] = true;
                for &(node, g) in &held[i] {
                    free[node] += g;
                }
            }
        }
        // The queue: arrived, not started.
        let mut queue: Vec<usize> = (0..n)
            .filter(|&i| c.jobs[i].submit <= t && start[i].is_none())
            .collect();
        queue.sort_by_key(|&i| key(&c.jobs[i], i));
        for i in queue {
            let g = c.jobs[i].gpus;
            let placed = match c.placement {
                Placement::Consolidate => {
                    let best = (0..free.len())
                        .filter(|&nd| free[nd] >= g)
                        .min_by_key(|&nd| (free[nd], nd));
                    best.map(|nd| {
                        free[nd] -= g;
                        vec![(nd, g)]
                    })
                }
                Placement::Spread => {
                    if free.iter().sum::<u32>() >= g {
                        let mut got = Vec::new();
                        for _ in 0..g {
                            let nd = (0..free.len())
                                .max_by_key(|&nd| (free[nd], std::cmp::Reverse(nd)))
                                .unwrap_or(0);
                            free[nd] -= 1;
                            got.push((nd, 1));
                        }
                        Some(got)
                    } else {
                        None
                    }
                }
            };
            match placed {
                Some(h) => {
                    held[i] = h;
                    start[i] = Some(t);
                    end[i] = t + c.jobs[i].duration;
                }
                None if backfill => continue,
                None => break,
            }
        }
        // Next event time.
        let next_arrival = c.jobs.iter().map(|j| j.submit).filter(|&s| s > t).min();
        let next_end = (0..n)
            .filter(|&i| start[i].is_some() && !done[i])
            .map(|i| end[i])
            .min();
        match (next_arrival, next_end) {
            (None, None) => break,
            (a, e) => t = a.unwrap_or(u64::MAX).min(e.unwrap_or(u64::MAX)),
        }
    }
    (0..n)
        .map(|i| (start[i].unwrap_or(NEVER), end[i]))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_scheduler_keeps_the_invariants(c in case()) {
        for spec in schedulers() {
            check_invariants(&c, &spec.name, c.backfill)?;
            // Backfilling makes every scheduler non-idling: check it too.
            check_invariants(&c, &spec.name, true)?;
        }
    }

    #[test]
    fn fifo_and_sjf_match_a_naive_reference(c in case()) {
        let fifo: fn(&Job, usize) -> (u64, u64, usize) = |j, i| (j.submit, 0, i);
        let sjf: fn(&Job, usize) -> (u64, u64, usize) = |j, i| (j.duration, j.submit, i);
        for (name, key) in [("fifo", fifo), ("sjf", sjf)] {
            for backfill in [false, true] {
                let o = simulate(&c, name, backfill);
                let got: Vec<(u64, u64)> = o.first_start.iter().copied().zip(o.end.iter().copied()).collect();
                prop_assert_eq!(got, reference(&c, key, backfill), "{} backfill={}", name, backfill);
            }
        }
    }

    #[test]
    fn runs_are_deterministic(c in case()) {
        for spec in schedulers() {
            let a = simulate(&c, &spec.name, c.backfill);
            let b = simulate(&c, &spec.name, c.backfill);
            prop_assert_eq!(&a.end, &b.end);
            prop_assert_eq!(&a.segments, &b.segments);
        }
    }
}
