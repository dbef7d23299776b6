//! Hand-computed job completion times (JCT) on a 5-job example, for `fifo`,
//! `sjf`, `srtf` and `las`; derivations in the comments.
//!
//! The trace is `traces/jobs-hand.csv` (seconds; times below are seconds):
//!
//! | job | submit | duration | GPUs |
//! |-----|--------|----------|------|
//! | j0  | 0      | 10       | 2    |
//! | j1  | 1      | 2        | 1    |
//! | j2  | 2      | 6        | 1    |
//! | j3  | 3      | 1        | 2    |
//! | j4  | 4      | 3        | 1    |
//!
//! The cluster is one node with 2 GPUs, `consolidate`, no backfilling, no
//! restart overhead. At each instant: completions, arrivals, timers, then
//! one pass.

use std::collections::BTreeMap;
use std::path::Path;

use tenantsim::jobs::policy::{Params, scheduler};
use tenantsim::jobs::sim::SchedInit;
use tenantsim::jobs::{
    JobOutcome, JobSimInput, JobTrace, Placement, load_job_trace, simulate_jobs,
};

const S: u64 = 1_000_000;

fn hand_trace() -> JobTrace {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/jobs-hand.csv");
    load_job_trace(&path).expect("traces/jobs-hand.csv loads")
}

fn run_with(
    trace: &JobTrace,
    name: &str,
    params: BTreeMap<String, toml::Value>,
    nodes: &[u32],
    backfill: bool,
    overhead: u64,
) -> JobOutcome {
    let spec = scheduler(name).expect("known scheduler");
    let mut p = Params::new("test", params);
    let factory = (spec.parse)(&mut p).expect("params parse");
    p.finish(name).expect("no stray params");
    let mut sched = factory(&SchedInit {
        jobs: trace.jobs(),
        users: trace.users().len(),
        seed: 0,
        repetition: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let input = JobSimInput {
        jobs: trace.jobs(),
        users: trace.users().len(),
        nodes,
        cpus: &[],
        placement: Placement::Consolidate,
        backfill,
        restart_overhead: overhead,
        record_allocations: false,
        types: None,
    };
    simulate_jobs(&input, sched.as_mut()).expect("simulation runs")
}

fn run(name: &str, params: BTreeMap<String, toml::Value>) -> JobOutcome {
    run_with(&hand_trace(), name, params, &[2], false, 0)
}

fn jct_s(trace: &JobTrace, o: &JobOutcome) -> Vec<u64> {
    trace
        .jobs()
        .iter()
        .zip(&o.end)
        .map(|(j, &e)| {
            assert_eq!((e - j.submit) % S, 0, "whole seconds expected");
            (e - j.submit) / S
        })
        .collect()
}

fn starts_s(o: &JobOutcome) -> Vec<u64> {
    o.first_start.iter().map(|&s| s / S).collect()
}

/// FIFO (submit order, head-of-line blocking):
/// - t0: j0 takes both GPUs, ends at 10. j1..j4 arrive and wait.
/// - t10: queue j1, j2, j3, j4. j1 starts (→12), j2 starts (→16); j3
///   needs 2 GPUs, none free: the scan stops.
/// - t12: j1 ends; 1 GPU free; j3 (2 GPUs) still blocks j4.
/// - t16: j2 ends; j3 starts (→17). t17: j3 ends; j4 starts (→20).
///
/// JCT = end − submit: j0 10, j1 11, j2 14, j3 14, j4 16 (mean 13).
#[test]
fn fifo_hand_computed() {
    let t = hand_trace();
    let o = run("fifo", BTreeMap::new());
    assert_eq!(jct_s(&t, &o), [10, 11, 14, 14, 16]);
    assert_eq!(starts_s(&o), [0, 10, 10, 16, 17]);
    assert_eq!(o.preemptions, [0; 5]);
}

/// SJF (duration, then submit, then index; non-preemptive):
/// - t0: j0 starts (→10); the others arrive while both GPUs are busy.
/// - t10: queue by duration: j3 (1), j1 (2), j4 (3), j2 (6). j3 takes both
///   GPUs (→11).
/// - t11: j1 starts (→13), j4 starts (→14).
/// - t13: j1 ends; j2 starts (→19). t14: j4 ends.
///
/// JCT: j0 10, j1 12, j2 17, j3 8, j4 10 (mean 11.4).
#[test]
fn sjf_hand_computed() {
    let t = hand_trace();
    let o = run("sjf", BTreeMap::new());
    assert_eq!(jct_s(&t, &o), [10, 12, 17, 8, 10]);
    assert_eq!(starts_s(&o), [0, 11, 13, 10, 11]);
}

/// SRTF (preempts a running job that would finish strictly later; the
/// victim keeps its progress; no restart overhead):
/// - t0: j0 starts (finishes at 10).
/// - t1: j1 (needs 2 s) cannot fit; j0 would need 9 more > 2: j0 is
///   preempted (1 s done, 9 left), j1 starts (→3). j0 (2 GPUs) does not
///   fit on the 1 free GPU and cannot preempt j1 (2 < 9): scan stops.
/// - t2: j2 (6) fits on the free GPU (→8). j0 (9) cannot preempt j2
///   (6 left) or j1.
/// - t3: j1 ends. j3 (1 s, 2 GPUs) arrives: 1 GPU free; j2 has 5 left
///   > 1: j2 is preempted (1 s done, 5 left), j3 starts (→4).
/// - t4: j3 ends. j4 (3) arrives. Queue by remaining: j4 (3), j2 (5),
///   j0 (9). j4 starts (→7), j2 resumes (→9); j0 cannot preempt.
/// - t7: j4 ends; j0 still needs 2 GPUs. t9: j2 ends; j0 resumes (→18).
///
/// JCT: j0 18, j1 2, j2 7, j3 1, j4 3 (mean 6.2); j0 and j2 were each
/// preempted once.
#[test]
fn srtf_hand_computed() {
    let t = hand_trace();
    let o = run("srtf", BTreeMap::new());
    assert_eq!(jct_s(&t, &o), [18, 2, 7, 1, 3]);
    assert_eq!(starts_s(&o), [0, 1, 2, 3, 4]);
    assert_eq!(o.preemptions, [1, 0, 1, 0, 0]);
}

/// LAS (Tiresias discretised 2D-LAS) with one threshold at 4 GPU-seconds:
/// queue 0 below 4 GPU·s of attained service, queue 1 from there on; FIFO
/// within a queue; preemption only of strictly lower queues.
/// - t0: j0 starts on 2 GPUs; it reaches 4 GPU·s after 2 s: timer at t2.
/// - t1: j1 arrives; j0 is still in queue 0: no preemption, j1 waits.
/// - t2: j2 arrives; j0's timer moves it to queue 1. Queue: j1 (q0),
///   j2 (q0), j0 (q1). j1 preempts j0 (2 s done, 8 left) and starts (→4);
///   j2 starts on the other GPU (→8; reaches 4 GPU·s at t6: timer).
/// - t3: j3 (q0, 2 GPUs) cannot preempt queue-0 jobs: waits.
/// - t4: j1 ends; j4 arrives. j3 still does not fit: head-of-line blocks j4.
/// - t6: j2's timer moves it to queue 1; j3 preempts j2 (4 s done, 2 left)
///   and starts (→7).
/// - t7: j3 ends; j4 starts (→10); j0 (q1, 2 GPUs) does not fit.
/// - t10: j4 ends; j0 resumes (→18). t18: j2 resumes (→20).
///
/// JCT: j0 18, j1 3, j2 18, j3 4, j4 6 (mean 9.8).
#[test]
fn las_hand_computed() {
    let t = hand_trace();
    let mut params = BTreeMap::new();
    params.insert(
        "queue_thresholds_gpu_s".to_string(),
        toml::Value::Array(vec![toml::Value::Float(4.0)]),
    );
    let o = run("las", params);
    assert_eq!(jct_s(&t, &o), [18, 3, 18, 4, 6]);
    assert_eq!(starts_s(&o), [0, 2, 2, 6, 7]);
    assert_eq!(o.preemptions, [1, 0, 1, 0, 0]);
}

/// SRTF with a restart overhead of 1 s on one GPU: j0 (10 s) at 0, j1
/// (2 s) at 1.
/// - t1: j1 preempts j0 (1 s done, 9 left, now owes a 1 s restore); j1
///   runs to 3.
/// - t3: j0 resumes: 1 s restore, then 9 s of service: ends at 13.
///
/// JCT: j0 13, j1 2; j0 held a GPU 1 + 10 = 11 s for 10 s of service.
#[test]
fn srtf_restart_overhead_is_paid_on_resume() {
    let t = JobTrace::from_rows(
        "overhead",
        &[
            tenantsim::jobs::JobRow {
                job_id: "j0".into(),
                user: "u".into(),
                submit_s: 0.0,
                duration_s: 10.0,
                gpus: 1,
                gpu_type: None,
                group: None,
                type_durations: Vec::new(),
                cpus: None,
            },
            tenantsim::jobs::JobRow {
                job_id: "j1".into(),
                user: "u".into(),
                submit_s: 1.0,
                duration_s: 2.0,
                gpus: 1,
                gpu_type: None,
                group: None,
                type_durations: Vec::new(),
                cpus: None,
            },
        ],
    )
    .expect("valid rows");
    let o = run_with(&t, "srtf", BTreeMap::new(), &[1], false, S);
    assert_eq!(jct_s(&t, &o), [13, 2]);
    let held: u64 = o
        .segments
        .to_vec()
        .expect("the segment log")
        .iter()
        .filter(|s| s.job == 0)
        .map(|s| s.end - s.start)
        .sum();
    let service: u64 = o
        .segments
        .to_vec()
        .expect("the segment log")
        .iter()
        .filter(|s| s.job == 0)
        .map(|s| s.service())
        .sum();
    assert_eq!((held / S, service / S), (11, 10));
}

/// With backfilling FIFO lets j4 use the GPU j3 cannot: at t12 j1 ends, one
/// GPU is free, j3 (2 GPUs) does not fit, j4 (1 GPU) does: j4 runs 12→15.
/// j3 starts when j2 ends at 16 (→17). JCT: 10, 11, 14, 14, 11.
#[test]
fn fifo_backfill_hand_computed() {
    let t = hand_trace();
    let o = run_with(&t, "fifo", BTreeMap::new(), &[2], true, 0);
    assert_eq!(jct_s(&t, &o), [10, 11, 14, 14, 11]);
}

fn rows(spec: &[(&str, f64, f64, u32)]) -> JobTrace {
    let rows: Vec<tenantsim::jobs::JobRow> = spec
        .iter()
        .map(|&(id, submit, duration, gpus)| tenantsim::jobs::JobRow {
            job_id: id.into(),
            user: "u".into(),
            submit_s: submit,
            duration_s: duration,
            gpus,
            gpu_type: None,
            group: None,
            type_durations: Vec::new(),
            cpus: None,
        })
        .collect();
    JobTrace::from_rows("rows", &rows).expect("valid rows")
}

/// Victims are the lowest-priority running jobs. One node with 3 GPUs; LAS
/// with a threshold at 1 GPU-second: a (0 s, 10 s), b (0.5 s, 10 s),
/// c (0.5 s, 10 s) each on 1 GPU, all demoted to queue 1 after 1 s of
/// service (a at 1, b and c at 1.5). d (2 s, 1 s, 1 GPU) arrives in queue
/// 0 and must preempt one of them: the lowest priority in queue 1 is the
/// latest submitted, highest index: c. d runs 2→3, then c resumes (3→11.5).
/// a ends at 10, b at 10.5.
#[test]
fn las_preempts_the_lowest_priority_job() {
    let t = rows(&[
        ("a", 0.0, 10.0, 1),
        ("b", 0.5, 10.0, 1),
        ("c", 0.5, 10.0, 1),
        ("d", 2.0, 1.0, 1),
    ]);
    let mut params = BTreeMap::new();
    params.insert(
        "queue_thresholds_gpu_s".to_string(),
        toml::Value::Array(vec![toml::Value::Float(1.0)]),
    );
    let o = run_with(&t, "las", params, &[3], false, 0);
    assert_eq!(o.preemptions, [0, 0, 1, 0]);
    assert_eq!(o.end, [10 * S, 10 * S + S / 2, 11 * S + S / 2, 3 * S]);
}

/// SRTF preempts the job that would finish last: a (0 s, 8 s) and b (0 s,
/// 5 s) on a 2-GPU node; c (1 s, 2 s) arrives: a would need 7 more, b 4:
/// a is preempted. c 1→3, a resumes 3→10; b ends at 5.
#[test]
fn srtf_preempts_the_job_that_would_finish_last() {
    let t = rows(&[("a", 0.0, 8.0, 1), ("b", 0.0, 5.0, 1), ("c", 1.0, 2.0, 1)]);
    let o = run_with(&t, "srtf", BTreeMap::new(), &[2], false, 0);
    assert_eq!(o.preemptions, [1, 0, 0]);
    assert_eq!(o.end, [10 * S, 5 * S, 3 * S]);
}

/// Under `consolidate` a multi-GPU job preempts on one node only, the node
/// whose most important victim is the least important. Two nodes of 2
/// GPUs, SRTF; x (0 s, 10 s) and y (0.1 s, 4 s) land on node 0 (best fit),
/// z (0.2 s, 9.2 s) and w (0.3 s, 8.3 s) on node 1. At 1 s, e (1 s, 2 GPUs)
/// finishes sooner than all four, and both nodes are full:
/// - node 0 would lose x (9 s left) then y (3.1 s left): most important
///   victim y (3.1);
/// - node 1 would lose z (8.4 left) then w (7.6 left): most important
///   victim w (7.6), less important than y: node 1 wins.
///
/// e runs 1→2 on node 1. In the same pass w (7.6) finds no room and
/// preempts x (9 > 7.6) on node 0: w resumes at once there (1→8.6). z (8.4)
/// and x (9) cannot preempt y (3.1) or w. At 2, e ends: z resumes 2→10.4,
/// x 2→11; y ends at 4.1.
#[test]
fn consolidate_victims_come_from_one_node() {
    let t = rows(&[
        ("x", 0.0, 10.0, 1),
        ("y", 0.1, 4.0, 1),
        ("z", 0.2, 9.2, 1),
        ("w", 0.3, 8.3, 1),
        ("e", 1.0, 1.0, 2),
    ]);
    let o = run_with(&t, "srtf", BTreeMap::new(), &[2, 2], false, 0);
    assert_eq!(o.preemptions, [1, 0, 1, 1, 0]);
    let ds = |x: u64| x * S / 10;
    assert_eq!(o.end, [ds(110), ds(41), ds(104), ds(86), ds(20)]);
    // w's second run starts at 1 s: a preemption and an immediate resume.
    let w_runs: Vec<u64> = o
        .segments
        .to_vec()
        .expect("the segment log")
        .iter()
        .filter(|s| s.job == 3)
        .map(|s| s.start)
        .collect();
    assert_eq!(w_runs, [ds(3), ds(10)]);
}

/// The utilisation timeline of the FIFO run, in 1 s buckets (20 points over
/// the 20 s makespan): 2 GPUs held during [0, 10) (j0) and [10, 12) (j1,
/// j2), 1 during [12, 16) (j2; j3 blocked), 2 during [16, 17) (j3), 1
/// during [17, 20) (j4). Total 33 GPU-seconds = Σ duration × GPUs.
#[test]
fn utilization_timeline_of_fifo() {
    let t = hand_trace();
    let o = run("fifo", BTreeMap::new());
    let points =
        tenantsim::jobs::metrics::utilization_timeline(t.jobs(), &o, 20).expect("the segment log");
    let busy: Vec<f64> = points.iter().map(|p| p.busy_gpus).collect();
    let mut want = vec![2.0; 12];
    want.extend([1.0; 4]);
    want.push(2.0);
    want.extend([1.0; 3]);
    assert_eq!(busy, want);
    assert!(points.iter().all(|p| p.len == S));
    // Coarser buckets average exactly: 3 points of 7 s (the last 6 s).
    let coarse =
        tenantsim::jobs::metrics::utilization_timeline(t.jobs(), &o, 3).expect("the segment log");
    let gpu_s: f64 = coarse
        .iter()
        .map(|p| p.busy_gpus * p.len as f64 / S as f64)
        .sum();
    assert!((gpu_s - 33.0).abs() < 1e-9, "{gpu_s}");
    assert_eq!(coarse[0].busy_gpus, 2.0);
}
