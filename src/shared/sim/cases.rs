//! Small shared-cluster cases derived on paper (DESIGN §13.2–13.3), and
//! property tests over random traces, clusters and priorities.

use proptest::prelude::*;

use super::*;
use crate::core::params::Params;
use crate::core::sim::time::Micros;
use crate::jobs::sim::{JobOutcome, JobSchedulerFactory, Placement, TypePolicy};
use crate::jobs::trace::Job;
use crate::models::sim::{GpuTypes, RepContext, SimConfig};
use crate::models::sim::{Scheduler, Selector, SimInput, TenantUsers};
use crate::models::trace::{Trace, parse_trace};

const S: Micros = 1_000_000;

fn trace(csv: &str) -> Trace {
    parse_trace("t.csv", csv.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

fn job_scheduler(name: &str) -> JobSchedulerFactory {
    let e = crate::jobs::policy::registry::scheduler(name).expect("built in");
    (e.parse)(&mut Params::new(name, Default::default())).expect("parses")
}

/// A shared run: service (round-robin, in-order) on `trace`'s users, all
/// arriving at 0, beside `jobs`, on `nodes`, under the cluster scheduler
/// `cluster`.
#[allow(clippy::too_many_arguments)]
fn run(
    t: Option<&Trace>,
    jobs: &[Job],
    nodes: &[u32],
    cluster: &str,
    backfill: bool,
    overhead: Micros,
    round: Option<Micros>,
    max_gpus: u32,
    gpus_per_job: u32,
    priority: Priority,
    preempt: Preempt,
    keep_segments: bool,
) -> SharedOutcome {
    let placeholder = trace("user,model,accuracy,runtime_s\nz,m,0.5,1\n");
    let with_service = t.is_some();
    let t = t.unwrap_or(&placeholder);
    let tenants: TenantUsers = (0..t.n_users()).collect();
    let arrivals = vec![0; tenants.len()];
    let gpus: u32 = nodes.iter().sum();
    let types = GpuTypes::untyped(gpus);
    let input = SharedInput {
        cluster: ClusterInput {
            nodes,
            cpus: &[],
            node_types: &[],
            types: 1,
            placement: Placement::Consolidate,
            backfill,
            restart_overhead: overhead,
            round,
            record_allocations: true,
        },
        background: (!jobs.is_empty()).then_some(BackgroundInput {
            jobs,
            users: 2,
            types: None,
            type_policy: TypePolicy::Agnostic,
        }),
        service: with_service.then_some(ServiceInput {
            sim: SimInput {
                trace: t,
                tenants: &tenants,
                arrivals: &arrivals,
                config: SimConfig {
                    gpus,
                    ..SimConfig::default()
                },
                gpu_types: &types,
            },
            max_gpus,
            gpus_per_job,
            priority,
            preempt,
            keep_segments,
        }),
        workflows: None,
    };
    let (mut a, mut b) = service_policies(t, &types, &tenants);
    simulate_shared(
        &input,
        &job_scheduler(cluster),
        1,
        0,
        with_service.then_some((
            a.as_mut() as &mut dyn Scheduler,
            b.as_mut() as &mut dyn Selector,
        )),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The service's policies of these cases: the built-in `round-robin`
/// scheduler and `in-order` selector on trace `t` (repetition 0, seed 1).
pub(super) fn service_policies(
    t: &Trace,
    types: &GpuTypes,
    tenants: &TenantUsers,
) -> (Box<dyn Scheduler>, Box<dyn Selector>) {
    let (arc_trace, arc_types) = (
        std::sync::Arc::new(t.clone()),
        std::sync::Arc::new(types.clone()),
    );
    let ctx = RepContext {
        trace: &arc_trace,
        gpu_types: &arc_types,
        tenants,
        prior: &[],
        seed: 1,
        repetition: 0,
    };
    let sched = crate::models::policy::registry::scheduler("round-robin").expect("built in");
    let sel = crate::models::policy::registry::selector("in-order").expect("built in");
    let a = (sched.parse)(&mut Params::new("s", Default::default())).expect("parses")(&ctx)
        .expect("builds");
    let b = (sel.parse)(&mut Params::new("s", Default::default()), t).expect("parses")(&ctx)
        .expect("builds");
    (a, b)
}

fn job(submit: Micros, duration: Micros, gpus: u32) -> Job {
    Job {
        submit,
        duration,
        gpus,
        user: 0,
        cpus: 0,
    }
}

/// (tenant, model, start, end, gpu) of each service job.
fn service_jobs(o: &SharedOutcome) -> Vec<(u32, u32, Micros, Micros, u32)> {
    o.service
        .as_ref()
        .expect("a service")
        .jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j| (j.tenant, j.model, j.start, j.end, j.gpu))
        .collect()
}

/// Priority `equal` under FIFO, one node of two GPUs. Background A (1 GPU,
/// submitted at 0, 10 s) and B (2 GPUs, at 1 s, 5 s); one tenant with m1
/// (4 s) and m2 (3 s), in order.
/// - 0: A starts (the pass runs first); the service's request for m1 is
///   submitted and starts on the other GPU.
/// - 1: B waits (one GPU free).
/// - 4: m1 completes; the request for m2 is submitted behind B; FIFO
///   without backfill: B heads the queue and does not fit, m2 waits.
/// - 10: A completes; B starts on both GPUs.
/// - 15: B completes; m2 starts and completes at 18 (on its own two GPUs
///   it would have run 4–7).
#[test]
fn equal_priority_under_fifo_queues_the_service_behind_a_waiting_job() {
    let t = trace("user,model,accuracy,runtime_s\na,m1,0.5,4\na,m2,0.9,3\n");
    let jobs = [job(0, 10 * S, 1), job(S, 5 * S, 2)];
    let o = run(
        Some(&t),
        &jobs,
        &[2],
        "fifo",
        false,
        0,
        None,
        2,
        1,
        Priority::Equal,
        Preempt::Checkpoint,
        true,
    );
    assert_eq!(
        service_jobs(&o),
        vec![(0, 0, 0, 4 * S, 0), (0, 1, 15 * S, 18 * S, 0)]
    );
    let bg = o.background.as_ref().expect("a background");
    assert_eq!(bg.first_start, vec![0, 10 * S]);
    assert_eq!(bg.end, vec![10 * S, 15 * S]);
    use WorkloadKind::{Background as B, Service as V};
    let rows: Vec<(Micros, WorkloadKind, u64)> = o
        .shares
        .to_vec()
        .expect("in memory")
        .iter()
        .map(|r| (r.time, r.workload, r.gpus))
        .collect();
    assert_eq!(
        rows,
        vec![
            (0, V, 0),
            (0, B, 0),
            (0, V, 1),
            (0, B, 1),
            (4 * S, V, 0),
            (10 * S, B, 2),
            (15 * S, V, 1),
            (15 * S, B, 0),
            (18 * S, V, 0),
        ]
    );
    // The same under `low`: the background keeps its times; m2 runs on
    // the GPU B cannot use, 4–7.
    let low = run(
        Some(&t),
        &jobs,
        &[2],
        "fifo",
        false,
        0,
        None,
        2,
        1,
        Priority::Low,
        Preempt::Checkpoint,
        true,
    );
    assert_eq!(
        service_jobs(&low),
        vec![(0, 0, 0, 4 * S, 0), (0, 1, 4 * S, 7 * S, 0)]
    );
    assert_eq!(
        low.background.as_ref().map(|b| b.end.clone()),
        Some(vec![10 * S, 15 * S])
    );
}

/// Priority `low`, one node of 2 GPUs, restart overhead 1 s. One tenant
/// with m1 (4 s) starts at 0. Background A (2 GPUs, 5 s) is submitted at
/// 2: the pass sees the node without the service, starts A on both GPUs,
/// and m1 is preempted with 2 s done.
/// - checkpoint: at 7 A completes, m1 resumes, restores for 1 s (7–8) and
///   runs its last 2 s: completes at 10. Segments [0, 2] and [7, 10]
///   (overhead 1 s); service received 2 + 2 = 4 s, its runtime.
/// - restart: progress lost, nothing to restore: runs 7–11.
#[test]
fn low_priority_preempts_the_service_and_its_resume_pays_the_restart_overhead() {
    let t = trace("user,model,accuracy,runtime_s\na,m1,0.5,4\n");
    let jobs = [job(2 * S, 5 * S, 2)];
    // The service at low priority beside the background's job, 2 GPUs.
    let low = |preempt, keep_segments| {
        run(
            Some(&t),
            &jobs,
            &[2],
            "fifo",
            false,
            S,
            None,
            2,
            1,
            Priority::Low,
            preempt,
            keep_segments,
        )
    };
    let o = low(Preempt::Checkpoint, true);
    assert_eq!(service_jobs(&o), vec![(0, 0, 0, 10 * S, 0)]);
    let segs: Vec<(Micros, Micros, Micros)> = o
        .service_segments
        .to_vec()
        .expect("in memory")
        .iter()
        .map(|s| (s.start, s.end, s.overhead))
        .collect();
    assert_eq!(segs, vec![(0, 2 * S, 0), (7 * S, 10 * S, S)]);
    assert_eq!(o.service_preemptions, vec![1]);
    // Without `--jobs` (`keep_segments` false) the same run keeps no
    // segment and is otherwise the same: they were kept for every run,
    // 40 bytes each, though only `service/jobs.csv` reads them.
    let bare = low(Preempt::Checkpoint, false);
    assert!(bare.service_segments.is_empty());
    assert_eq!(service_jobs(&bare), service_jobs(&o));
    assert_eq!(bare.service_preemptions, o.service_preemptions);
    let (svc, bare_svc) = (o.service.as_ref(), bare.service.as_ref());
    assert_eq!(
        svc.map(|s| (s.busy, s.end)),
        bare_svc.map(|s| (s.busy, s.end))
    );
    assert_eq!(bare.shares, o.shares);
    let bg = o.background.as_ref().expect("a background");
    assert_eq!(
        (bg.first_start.clone(), bg.end.clone()),
        (vec![2 * S], vec![7 * S])
    );
    let r = low(Preempt::Restart, true);
    let segs: Vec<(Micros, Micros, Micros)> = r
        .service_segments
        .to_vec()
        .expect("in memory")
        .iter()
        .map(|s| (s.start, s.end, s.overhead))
        .collect();
    assert_eq!(segs, vec![(0, 2 * S, 0), (7 * S, 11 * S, 0)]);
}

/// A cap below free capacity: four one-GPU nodes, no background, the
/// service may hold 2. Tenants a (5 s), b (3 s), c (2 s), one job each at
/// a time, round-robin: a and b start at 0 on GPUs 0 and 1; c waits
/// though two GPUs are free; at 3 b completes and c starts on GPU 1 (the
/// lowest free), completing at 5.
#[test]
fn the_service_never_holds_more_than_its_cap() {
    let t = trace("user,model,accuracy,runtime_s\na,m1,0.5,5\nb,m1,0.6,3\nc,m1,0.7,2\n");
    let o = run(
        Some(&t),
        &[],
        &[1, 1, 1, 1],
        "fifo",
        false,
        0,
        None,
        2,
        1,
        Priority::Equal,
        Preempt::Checkpoint,
        true,
    );
    assert_eq!(
        service_jobs(&o),
        vec![
            (0, 0, 0, 5 * S, 0),
            (1, 0, 0, 3 * S, 1),
            (2, 0, 3 * S, 5 * S, 1)
        ]
    );
    let shares = o.shares.to_vec().expect("in memory");
    assert!(!shares.is_empty() && shares.iter().all(|r| r.gpus <= 2));
}

/// The most GPUs held at once by intervals `(start, end, gpus)`.
fn peak(mut spans: Vec<(Micros, Micros, u64)>) -> u64 {
    let mut points: Vec<(Micros, i64)> = Vec::new();
    for (s, e, g) in spans.drain(..) {
        if e > s {
            points.push((s, g as i64));
            points.push((e, -(g as i64)));
        }
    }
    // Ends before starts at one instant: a GPU given back is free then.
    points.sort_by_key(|&(t, d)| (t, d));
    let (mut now, mut max) = (0i64, 0i64);
    for (_, d) in points {
        now += d;
        max = max.max(now);
    }
    max as u64
}

fn background_alone(
    jobs: &[Job],
    nodes: &[u32],
    cluster: &str,
    backfill: bool,
    overhead: Micros,
    round: Option<Micros>,
) -> JobOutcome {
    let o = run(
        None,
        jobs,
        nodes,
        cluster,
        backfill,
        overhead,
        round,
        1,
        1,
        Priority::Equal,
        Preempt::Checkpoint,
        true,
    );
    o.background.expect("a background")
}

/// Background jobs, nodes, cluster scheduler, service models (accuracy
/// tenths, runtime s), GPUs per service job, cap, low, restart, backfill.
type Case = (
    Vec<Job>,
    Vec<u32>,
    String,
    Vec<(u32, u32)>,
    u32,
    u32,
    bool,
    bool,
    bool,
);

fn arb_case() -> impl Strategy<Value = Case> {
    let jobs = prop::collection::vec((0u64..20, 1u64..12, 1u32..=3), 1..10).prop_map(|v| {
        v.into_iter()
            .map(|(s, d, g)| job(s * S, d * S, g))
            .collect::<Vec<_>>()
    });
    let nodes = prop::collection::vec(1u32..=4, 1..4).prop_map(|mut v| {
        v[0] = 4; // every job fits somewhere
        v
    });
    let sched = prop::sample::select(vec!["fifo", "sjf", "srtf", "las", "ftf", "fair-share"])
        .prop_map(str::to_string);
    let models = prop::collection::vec((1u32..=9, 1u32..=6), 1..7);
    (
        jobs,
        nodes,
        sched,
        models,
        1u32..=2,
        1u32..=8,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Random traces, clusters, cluster schedulers and priorities:
    /// capacity never exceeded; the service never above its cap; every
    /// (tenant, model) pair completes at most once; work is conserved
    /// for checkpointed preemption (a completed job received exactly its
    /// runtime; under restart its last segment did); and under `low` the
    /// background is the background alone, job for job and segment for
    /// segment, so no background job ever waits for a GPU a service job
    /// holds.
    #[test]
    fn shared_runs_keep_capacity_cap_uniqueness_work_and_low_priority(
        (jobs, nodes, sched, models, gpj, cap, low, restart, backfill) in arb_case()
    ) {
        let mut csv = String::from("user,model,accuracy,runtime_s\n");
        for (k, (acc, rt)) in models.iter().enumerate() {
            let user = ["a", "b", "c"][k % 3];
            csv.push_str(&format!("{user},m{k},0.{acc},{rt}\n"));
        }
        let t = trace(&csv);
        let total: u32 = nodes.iter().sum();
        let cap = cap.clamp(gpj, total);
        let priority = if low { Priority::Low } else { Priority::Equal };
        let preempt = if restart { Preempt::Restart } else { Preempt::Checkpoint };
        let o = run(Some(&t), &jobs, &nodes, &sched, backfill, S / 2, None, cap, gpj, priority, preempt, true);
        let svc = o.service.as_ref().expect("a service");
        let bg = o.background.as_ref().expect("a background");
        // Capacity.
        let mut spans: Vec<(Micros, Micros, u64)> =
            bg.segments.to_vec().expect("in memory").iter().map(|s| (s.start, s.end, u64::from(s.gpus))).collect();
        let service_spans: Vec<(Micros, Micros, u64)> =
            o.service_segments.to_vec().expect("in memory").iter().map(|s| (s.start, s.end, u64::from(s.gpus))).collect();
        prop_assert!(peak(service_spans.clone()) <= u64::from(cap), "service above its cap");
        spans.extend(service_spans);
        prop_assert!(peak(spans) <= u64::from(total), "capacity exceeded");
        // Each pair completes at most once; every job completes (no
        // horizon, no patience).
        let mut done: Vec<(u32, u32)> =
            svc.jobs.to_vec().expect("the job log").into_iter().filter(|j| j.completed).map(|j| (j.tenant, j.model)).collect();
        let n_done = done.len();
        done.sort_unstable();
        done.dedup();
        prop_assert_eq!(done.len(), n_done, "a pair completed twice");
        prop_assert_eq!(n_done, models.len(), "every model ran");
        // Work.
        let service_segments = o.service_segments.to_vec().expect("in memory");
        for (r, j) in svc.jobs.to_vec().expect("the job log").into_iter().enumerate() {
            // Tenants are the trace's users in order.
            let runtime = t.runtime_us(j.tenant as usize, j.model as usize);
            let segs: Vec<&ServiceSegment> =
                service_segments.iter().filter(|s| s.job as usize == r).collect();
            let served: Micros = segs.iter().map(|s| s.end - s.start - s.overhead).sum();
            if restart {
                let last = segs.last().expect("a segment");
                prop_assert_eq!(last.end - last.start - last.overhead, runtime);
            } else {
                prop_assert_eq!(served, runtime, "work not conserved for job {}", r);
            }
        }
        if low {
            let alone = background_alone(&jobs, &nodes, &sched, backfill, S / 2, None);
            prop_assert_eq!(&alone.first_start, &bg.first_start);
            prop_assert_eq!(&alone.end, &bg.end);
            prop_assert_eq!(&alone.segments, &bg.segments);
            prop_assert_eq!(alone.events, bg.events);
            prop_assert_eq!(alone.end_time, bg.end_time);
        }
    }
}

/// `low` costs the background nothing under every built-in cluster
/// scheduler, event-driven and in rounds, with and without backfill.
#[test]
fn low_priority_leaves_the_background_unchanged_under_every_cluster_scheduler() {
    let t = trace(
        "user,model,accuracy,runtime_s\na,m1,0.5,3\na,m2,0.6,7\nb,m1,0.7,2\nb,m2,0.8,5\nc,m1,0.4,11\n",
    );
    let jobs: Vec<Job> = (0..40u64)
        .map(|k| {
            job(
                (k * 7 % 23) * S / 2,
                ((k * 13) % 17 + 1) * S,
                (k % 3 + 1) as u32,
            )
        })
        .collect();
    let nodes = [4, 2, 1, 3];
    let (mut checked, mut preempted) = (0, 0);
    for entry in crate::jobs::policy::registry::schedulers() {
        for (backfill, round) in [(false, None), (true, None), (false, Some(3 * S))] {
            if entry.name == "max-min-fairness" && round.is_none() {
                continue; // it runs in rounds only
            }
            for restart in [false, true] {
                let alone = background_alone(&jobs, &nodes, &entry.name, backfill, S / 4, round);
                let preempt = if restart {
                    Preempt::Restart
                } else {
                    Preempt::Checkpoint
                };
                let o = run(
                    Some(&t),
                    &jobs,
                    &nodes,
                    &entry.name,
                    backfill,
                    S / 4,
                    round,
                    10,
                    1,
                    Priority::Low,
                    preempt,
                    true,
                );
                let bg = o.background.expect("a background");
                assert_eq!(alone.first_start, bg.first_start, "{}", entry.name);
                assert_eq!(alone.end, bg.end, "{}", entry.name);
                assert_eq!(alone.segments, bg.segments, "{}", entry.name);
                assert_eq!(alone.segment_allocs, bg.segment_allocs, "{}", entry.name);
                assert_eq!(
                    (alone.events, alone.end_time),
                    (bg.events, bg.end_time),
                    "{}",
                    entry.name
                );
                assert!(o.service.is_some_and(|s| {
                    s.jobs
                        .to_vec()
                        .expect("the job log")
                        .into_iter()
                        .filter(|j| j.completed)
                        .count()
                        == 5
                }));
                preempted += o.service_preemptions.iter().sum::<u32>();
                checked += 1;
            }
        }
    }
    assert!(checked >= 36, "{checked}");
    // The background did take GPUs from the service, so the identity is
    // not that of two workloads that never met.
    assert!(preempted > 20, "{preempted} preemptions");
}

/// A tenant whose patience runs out while its request waits in the
/// cluster's queue (priority `equal`, FIFO, one GPU): background A holds
/// the GPU 0–10; the request for m1 is submitted at 0 and waits; at 5 the
/// tenant leaves, its request is withdrawn (never started: it starts at
/// its submission and ends at 5, cancelled, on no GPU); at 10 FIFO meets
/// the withdrawn request, which leaves the queue holding nothing, and the
/// GPU stays free.
#[test]
fn a_request_withdrawn_while_queued_leaves_the_cluster_queue_without_running() {
    let t = trace("user,model,accuracy,runtime_s\na,m1,0.5,3\n");
    let jobs = [job(0, 10 * S, 1)];
    let tenants = [0usize];
    let arrivals = [0];
    let types = GpuTypes::untyped(1);
    let input = SharedInput {
        cluster: ClusterInput {
            nodes: &[1],
            cpus: &[],
            node_types: &[],
            types: 1,
            placement: Placement::Consolidate,
            backfill: false,
            restart_overhead: 0,
            round: None,
            record_allocations: false,
        },
        background: Some(BackgroundInput {
            jobs: &jobs,
            users: 1,
            types: None,
            type_policy: TypePolicy::Agnostic,
        }),
        service: Some(ServiceInput {
            sim: SimInput {
                trace: &t,
                tenants: &TenantUsers::list(&tenants),
                arrivals: &arrivals,
                config: SimConfig {
                    gpus: 1,
                    limits: crate::models::sim::TenantLimits {
                        patience: Some(5 * S),
                        ..Default::default()
                    },
                    ..SimConfig::default()
                },
                gpu_types: &types,
            },
            max_gpus: 1,
            gpus_per_job: 1,
            priority: Priority::Equal,
            preempt: Preempt::Checkpoint,
            keep_segments: true,
        }),
        workflows: None,
    };
    let (mut a, mut b) = policies(&t, &types, &tenants);
    let o = simulate_shared(
        &input,
        &job_scheduler("fifo"),
        1,
        0,
        Some((a.as_mut(), b.as_mut())),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let svc = o.service.as_ref().expect("a service");
    let j = &svc.jobs.get(0).expect("the job log");
    assert_eq!(
        (j.start, j.end, j.cancelled, j.completed, j.gpu),
        (0, 5 * S, true, false, u32::MAX)
    );
    assert_eq!(svc.left_at, vec![Some(5 * S)]);
    assert!(o.service_segments.is_empty());
    assert_eq!(
        o.background.as_ref().map(|b| b.end.clone()),
        Some(vec![10 * S])
    );
    assert_eq!(svc.busy, 0);
}

fn policies(
    t: &Trace,
    types: &GpuTypes,
    tenants: &[usize],
) -> (Box<dyn Scheduler>, Box<dyn Selector>) {
    let (arc_trace, arc_types) = (
        std::sync::Arc::new(t.clone()),
        std::sync::Arc::new(types.clone()),
    );
    let ctx = RepContext {
        trace: &arc_trace,
        gpu_types: &arc_types,
        tenants: &TenantUsers::list(tenants),
        prior: &[],
        seed: 1,
        repetition: 0,
    };
    let sched = crate::models::policy::registry::scheduler("greedy").expect("built in");
    let sel = crate::models::policy::registry::selector("in-order").expect("built in");
    let a = (sched.parse)(&mut Params::new("s", Default::default())).expect("parses")(&ctx)
        .expect("builds");
    let b = (sel.parse)(&mut Params::new("s", Default::default()), t).expect("parses")(&ctx)
        .expect("builds");
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The one-workload case with every limit model mode has (patience,
    /// horizon, budget, jobs per tenant, concurrent jobs, staggered
    /// arrivals): a service owning G one-GPU nodes is model mode on G
    /// GPUs, job for job.
    #[test]
    fn a_service_owning_the_cluster_is_model_mode_under_every_limit(
        models in prop::collection::vec((1u32..=9, 1u32..=6), 1..9),
        arrive in prop::collection::vec(0u64..6, 3),
        g in 1u32..=3,
        patience in prop::option::of(1u64..6),
        horizon in prop::option::of(2u64..15),
        budget in prop::option::of(2u64..12),
        max_jobs in prop::option::of(1u32..3),
        per_tenant in 1u32..=2,
    ) {
        let mut csv = String::from("user,model,accuracy,runtime_s\n");
        for (k, (acc, rt)) in models.iter().enumerate() {
            csv.push_str(&format!("{},m{k},0.{acc},{rt}\n", ["a", "b", "c"][k % 3]));
        }
        let t = trace(&csv);
        let tenants: Vec<usize> = (0..t.n_users()).collect();
        let arrivals: Vec<Micros> = tenants.iter().map(|&i| arrive[i] * S).collect();
        let types = GpuTypes::untyped(g);
        let config = SimConfig {
            gpus: g,
            max_jobs_per_tenant: per_tenant,
            horizon: horizon.map(|h| h * S),
            limits: crate::models::sim::TenantLimits {
                budget: budget.map(|b| b * S),
                max_jobs,
                patience: patience.map(|p| p * S),
            },
        };
        let sim = SimInput { trace: &t, tenants: &TenantUsers::list(&tenants), arrivals: &arrivals, config, gpu_types: &types };
        let (mut a, mut b) = policies(&t, &types, &tenants);
        let model = crate::models::sim::simulate(&sim, a.as_mut(), b.as_mut()).expect("model mode runs");
        let nodes = vec![1; g as usize];
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
                sim,
                max_gpus: g,
                gpus_per_job: 1,
                priority: Priority::Equal,
                preempt: Preempt::Checkpoint,
                keep_segments: true,
            }),
            workflows: None,
        };
        let (mut a, mut b) = policies(&t, &types, &tenants);
        let o = simulate_shared(&input, &job_scheduler("fifo"), 1, 0, Some((a.as_mut(), b.as_mut())))
            .expect("shared runs");
        let s = o.service.expect("a service");
        prop_assert_eq!(&model.jobs, &s.jobs);
        prop_assert_eq!(&model.completion_order, &s.completion_order);
        prop_assert_eq!(model.end, s.end);
        prop_assert_eq!(model.busy, s.busy);
        prop_assert_eq!(&model.left_at, &s.left_at);
        prop_assert_eq!(&model.end_states, &s.end_states);
    }
}
