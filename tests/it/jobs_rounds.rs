//! Rounds (`[cluster] round_s`, DESIGN §11.3): hand-computed schedules of
//! `fifo` and `max-min-fairness` in rounds on the 5-job hand trace
//! (`traces/jobs-hand.csv`, the table in `jobs_hand.rs`: submit 0..4 s,
//! durations 10, 2, 6, 1, 3 s, GPUs 2, 1, 1, 2, 1), one node, no restart
//! overhead; a two-type max-min case with per-type rates; FIFO on
//! Gavel's trace against Gavel's aligned result (`traces/gavel-500.csv`);
//! derivations in the comments. A round ends early when its last
//! running job completes; with nothing waiting or running there is no
//! round, and the next arrival is a boundary.

use std::collections::BTreeMap;
use std::path::Path;

use tenantsim::jobs::policy::{Params, scheduler};
use tenantsim::jobs::sim::{SchedInit, simulate_jobs_in_rounds};
use tenantsim::jobs::{
    JobOutcome, JobSimInput, JobTrace, Placement, load_job_trace, simulate_jobs,
};

const S: u64 = 1_000_000;

fn hand_trace() -> JobTrace {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/jobs-hand.csv");
    load_job_trace(&path).expect("traces/jobs-hand.csv loads")
}

fn input<'a>(trace: &'a JobTrace, nodes: &'a [u32]) -> JobSimInput<'a> {
    JobSimInput {
        jobs: trace.jobs(),
        users: trace.users().len(),
        nodes,
        cpus: &[],
        placement: Placement::Consolidate,
        backfill: false,
        restart_overhead: 0,
        record_allocations: false,
        types: None,
    }
}

fn run(
    name: &str,
    nodes: &[u32],
    round: Option<u64>,
) -> tenantsim::core::error::Result<JobOutcome> {
    let trace = hand_trace();
    let spec = scheduler(name).expect("known scheduler");
    let mut p = Params::new("test", BTreeMap::new());
    let factory = (spec.parse)(&mut p).expect("params parse");
    let mut sched = factory(&SchedInit {
        jobs: trace.jobs(),
        users: trace.users().len(),
        seed: 0,
        repetition: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let input = input(&trace, nodes);
    match round {
        Some(r) => simulate_jobs_in_rounds(&input, r, sched.as_mut()),
        None => simulate_jobs(&input, sched.as_mut()),
    }
}

fn secs(v: &[u64]) -> Vec<u64> {
    v.iter()
        .map(|&t| {
            assert_eq!(t % S, 0, "whole seconds expected");
            t / S
        })
        .collect()
}

/// FIFO, 3 GPUs, 5 s rounds: jobs start only at boundaries.
/// - t0: j0 arrives, no round under way → boundary; j0 (2 GPUs) runs to 10.
///   Next boundary 5.
/// - t1: j1 arrives; 1 GPU is free but it waits for the boundary.
/// - t5: queue j1..j4; j1 (1 GPU) runs to 7; j2 finds no GPU (stop).
/// - t7: j1 completes mid-round; its GPU idles (j0 still runs).
/// - t10: j0 completes and the cluster is idle → the round ends: boundary;
///   j2 (1 GPU) to 16, j3 (2 GPUs) to 11; j4 waits. Next boundary 15.
/// - t11: j3 completes mid-round. t15: j4 starts, to 18.
///
/// Ends 10, 7, 16, 11, 18 → JCT 10, 6, 14, 8, 14. Event-driven FIFO would
/// start j1 at 1.
#[test]
fn fifo_in_rounds_starts_only_at_boundaries() {
    let o = run("fifo", &[3], Some(5 * S)).expect("runs");
    assert_eq!(secs(&o.first_start), [0, 5, 10, 10, 15]);
    assert_eq!(secs(&o.end), [10, 7, 16, 11, 18]);
    assert_eq!(o.preemptions, [0; 5]);
    let exact = run("fifo", &[3], None).expect("runs");
    assert_eq!(
        secs(&exact.first_start)[1],
        1,
        "event-driven starts j1 at once"
    );
}

/// max-min-fairness, 2 GPUs, 5 s rounds. One type, so X is equal
/// time-sharing (lp.rs): X_j = min(1, λ/sf_j), Σ min(sf_j, λ) = 2.
/// received starts at round/2 = 2.5 s at each reset; priority
/// X · Σ received / received; ties by deficit, X, index.
/// - t0: j0 alone: X0 = 1; it runs (2 GPUs, to 10). Next boundary 5.
/// - t5: j0 credited 5 s. Active j0..j4 (sf 2,1,1,2,1): λ = 0.4, X = .2,
///   .4, .4, .2, .4; reset: deficit j0 += 1·5 − (7.5 − 2.5) = 0; all
///   received 2.5, priority 5X = 1, 2, 2, 1, 2. Picked: j1, j2 (2 GPUs);
///   j0 is preempted with 5 s done. j1 runs to 7, j2 to 11.
/// - t7: j1 completes mid-round. t10: j2 credited 5 s. Active j0, j2, j3,
///   j4: λ = .5, X = .25, .5, .25, .5. Deficits (+X·5 − (received − 2.5)):
///   j0 1, j2 2 − 5 = −3, j3 1, j4 2. Priorities 4X = 1, 2, 1, 2: order j4
///   (deficit 2), j2 (−3), j0, j3. j4 starts (to 13), j2 keeps running (to
///   11).
/// - t11: j2 completes. t13: j4 completes, the cluster is idle → boundary.
///   Active j0, j3: X = .5 each, deficits 1 + .25·3 = 1.75 each, equal
///   priorities → lowest index: j0 resumes (5 s left, to 18).
/// - t18: j0 completes → boundary; j3 alone runs, to 19.
///
/// Ends 18, 7, 11, 19, 13 → JCT 18, 6, 9, 16, 9; j0 preempted once.
#[test]
fn max_min_fairness_time_slices_by_round() {
    let o = run("max-min-fairness", &[2], Some(5 * S)).expect("runs");
    assert_eq!(secs(&o.first_start), [0, 5, 5, 18, 10]);
    assert_eq!(secs(&o.end), [18, 7, 11, 19, 13]);
    assert_eq!(o.preemptions, [1, 0, 0, 0, 0]);
    // Work is conserved: every job received exactly its duration.
    let trace = hand_trace();
    for (j, job) in trace.jobs().iter().enumerate() {
        let got: u64 = o
            .segments
            .to_vec()
            .expect("the segment log")
            .iter()
            .filter(|s| s.job as usize == j)
            .map(|s| s.service())
            .sum();
        assert_eq!(got, job.duration, "job {j}");
    }
}

/// Without rounds the scheduler refuses to run (the scenario check names
/// the file and field: the bad-input case
/// `jobs_max_min_fairness_without_round_s`).
#[test]
fn max_min_fairness_needs_rounds() {
    let e = run("max-min-fairness", &[2], None).expect_err("needs rounds");
    assert!(e.message().contains("round_s"), "{}", e.message());
}

/// FIFO in 60 s rounds on Gavel's 500-job trace (the bundled import,
/// `traces/gavel-500.csv`) on 32 V100s (one node): Gavel's aligned FIFO
/// (allocation every round, no over-commitment, 60 s rounds) gives
/// 15.702 h (../shared/data/gavel/SOURCE.md); starts quantised to
/// boundaries should land within 1 % of it.
#[test]
fn gavel_fifo_in_60_s_rounds_is_near_gavels_aligned_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/gavel-500.csv");
    let scenario = format!(
        "mode = \"jobs\"\nname = \"gavel-fifo-60\"\n[jobs]\npath = {:?}\n\
         [cluster]\nnodes = [{{type = \"v100\", count = 1, gpus_per_node = 32}}]\nround_s = 60\n\
         [[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n[output]\nplots = false\n",
        trace.display().to_string()
    );
    let s = dir.path().join("s.toml");
    std::fs::write(&s, scenario).expect("write scenario");
    let out = dir.path().join("out");
    crate::common::tenantsim()
        .arg("run")
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let got = crate::max_min_fairness::mean_jct_h(&out);
    let gavel = 15.702;
    let err = (got[0].1 - gavel) / gavel;
    assert!(
        err.abs() < 0.01,
        "FIFO in rounds {:.3} h vs Gavel {gavel} h ({:+.2} %)",
        got[0].1,
        100.0 * err
    );
}

/// max-min-fairness on two types, one GPU each (type 0 fast, type 1 slow),
/// 5 s rounds; jobs A and B (1 GPU, submit 0) both take 10 s on type 0 and
/// 20 s on type 1. LP (lp.rs): P = (1/10 + 1/20)/2, so
/// r = (4/3)·x0 + (2/3)·x1 for both; max-min with both GPUs busy is
/// X_A = X_B = [1/2, 1/2], r = 1.
/// - t0: received 2.5 s everywhere, priority X · 5 / 2.5 = 1 for all;
///   ties → index: A on type 0, then B on type 1.
/// - t5: A credited 5 s on type 0, B on type 1 (7.5 s each). Type 0:
///   B's priority .5 · 10 / 2.5 = 2 beats A's .5 · 10 / 7.5; type 1: A's 2
///   beats B's. Both switch type (both preempted): A has done 5/10 = 0.5 of
///   its work, B 5/20 = 0.25.
/// - t10: all received 7.5 s, priorities equal → A on type 0 again (0.5 +
///   0.25 done; 0.25 left = 2.5 s there, to 12.5), B on type 1 (0.75 done;
///   0.25 left = 5 s there, to 15).
///
/// Ends 12.5 and 15 s; each job preempted twice; last types 0 and 1.
#[test]
fn max_min_fairness_on_two_types_switches_types_at_their_rates() {
    use tenantsim::jobs::Job;
    use tenantsim::jobs::sim::{JobTypes, SimTypes, TypePolicy};
    let jobs = vec![
        Job {
            submit: 0,
            duration: 10 * S,
            gpus: 1,
            user: 0,
            cpus: 0,
        },
        Job {
            submit: 0,
            duration: 10 * S,
            gpus: 1,
            user: 1,
            cpus: 0,
        },
    ];
    let types = JobTypes::new(2, vec![0b11, 0b11], vec![10 * S, 20 * S, 10 * S, 20 * S]);
    let node_types = [0u16, 1];
    let spec = scheduler("max-min-fairness").expect("registered");
    let factory = (spec.parse)(&mut Params::new("test", BTreeMap::new())).expect("parses");
    let mut sched = factory(&SchedInit {
        jobs: &jobs,
        users: 2,
        seed: 0,
        repetition: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let input = JobSimInput {
        jobs: &jobs,
        users: 2,
        nodes: &[1, 1],
        cpus: &[],
        placement: Placement::Consolidate,
        backfill: false,
        restart_overhead: 0,
        record_allocations: false,
        types: Some(SimTypes {
            node_types: &node_types,
            jobs: &types,
            policy: TypePolicy::Agnostic,
        }),
    };
    let o = simulate_jobs_in_rounds(&input, 5 * S, sched.as_mut()).expect("runs");
    assert_eq!(o.end, [12_500_000, 15 * S]);
    assert_eq!(o.preemptions, [2, 2]);
    assert_eq!(o.gpu_type, [0, 1]);
    // Segments: A 0–5 on 0, 5–10 on 1, 10–12.5 on 0; B 0–5 on 1, 5–10 on 0, 10–15 on 1.
    let mut segs: Vec<(u32, u64, u64, u16)> = o
        .segments
        .to_vec()
        .expect("the segment log")
        .iter()
        .map(|s| (s.job, s.start / 100_000, s.end / 100_000, s.gpu_type))
        .collect();
    segs.sort_unstable();
    assert_eq!(
        segs,
        [
            (0, 0, 50, 0),
            (0, 50, 100, 1),
            (0, 100, 125, 0),
            (1, 0, 50, 1),
            (1, 50, 100, 0),
            (1, 100, 150, 1)
        ]
    );
}
