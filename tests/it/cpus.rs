//! CPUs as a second resource (DESIGN §14.6): hand-computed placements
//! under `consolidate` and `spread`, a job that fits on GPUs but not on
//! CPUs waits, CPU-only (0-GPU) jobs, and a property test over random
//! traces and clusters (typed and not, every built-in scheduler) that the
//! GPUs and CPUs held per node never exceed capacity, checked from the
//! recorded per-node allocations, and that a cluster without CPUs gives
//! exactly the GPU-only run whatever the jobs' `cpus`.

use std::collections::BTreeMap;

use proptest::prelude::*;
use tenantsim::jobs::policy::{Params, schedulers};
use tenantsim::jobs::sim::simulation::NEVER;
use tenantsim::jobs::sim::{JobTypes, SchedInit, SimTypes, TypePolicy, simulate_jobs_in_rounds};
use tenantsim::jobs::{Alloc, Cluster, Job, JobOutcome, JobSimInput, Placement, simulate_jobs};

fn a(node: u32, gpus: u32, cpus: u32) -> Alloc {
    Alloc { node, gpus, cpus }
}

fn place(c: &mut Cluster, gpus: u32, cpus: u32) -> Option<Vec<Alloc>> {
    let mut out = vec![Alloc::default(); (gpus + cpus) as usize + 1];
    let n = c.place_job_on(gpus, cpus, 0, &mut out)?;
    out.truncate(n);
    Some(out)
}

/// Consolidate on nodes of GPUs [2, 2, 4] and CPUs [4, 8, 8]:
///
/// 1. (1 GPU, 6 CPUs): nodes with ≥ 1 GPU and ≥ 6 CPUs are 1 (2 GPUs free)
///    and 2 (4 free); fewest free GPUs: node 1. Free GPUs [2,1,4], CPUs
///    [4,2,8].
/// 2. (1, 2): every node qualifies; fewest free GPUs: node 1 (1). Free
///    [2,0,4], [4,0,8].
/// 3. (0 GPUs, 4 CPUs): node 1 has no CPU left; nodes 0 (2 GPUs free) and
///    2 (4): node 0. Free [2,0,4], [0,0,8].
/// 4. (2, 1): the GPU-only rule would take node 0 (best fit: 2 free), but
///    it has no CPU left: node 2. Free [2,0,2], [0,0,7].
/// 5. (2, 8): 4 GPUs are free in all, but no node has 2 GPUs and 8 CPUs:
///    it does not fit, and nothing changes.
/// 6. Ties: on GPUs [2, 2] and CPUs [8, 4], (1, 1) goes to node 1 (equal
///    free GPUs, fewer free CPUs).
#[test]
fn consolidate_with_cpus_is_best_fit_on_gpus_then_cpus_then_index() {
    let mut c = Cluster::new(&[2, 2, 4], Placement::Consolidate).with_cpus(&[4, 8, 8]);
    assert!(c.counts_cpus());
    assert_eq!(place(&mut c, 1, 6), Some(vec![a(1, 1, 6)]));
    assert_eq!(place(&mut c, 1, 2), Some(vec![a(1, 1, 2)]));
    assert_eq!(place(&mut c, 0, 4), Some(vec![a(0, 0, 4)]));
    assert_eq!(place(&mut c, 2, 1), Some(vec![a(2, 2, 1)]));
    assert_eq!(c.free_total(), 4);
    assert!(!c.fits_job(2, 8));
    assert_eq!(place(&mut c, 2, 8), None);
    assert_eq!((c.free_total(), c.cpu_free_total()), (4, 7));
    assert_eq!(
        (0..3).map(|n| c.free_cpus(n)).collect::<Vec<_>>(),
        [0, 0, 7]
    );
    let mut t = Cluster::new(&[2, 2], Placement::Consolidate).with_cpus(&[8, 4]);
    assert_eq!(place(&mut t, 1, 1), Some(vec![a(1, 1, 1)]));
}

/// Spread on GPUs [2, 3, 3] and CPUs [4, 2, 6]:
///
/// 1. (4 GPUs, 7 CPUs): GPUs one at a time from the most free node, as
///    without CPUs: node 1, node 2, node 0, node 1, so the nodes in the
///    order first taken are 1 (2 GPUs), 2 (1), 0 (1). CPUs from them in
///    that order: node 1 gives its 2, node 2 the 5 left (of 6), node 0
///    none. Free CPUs [4, 0, 1].
/// 2. (0 GPUs, 5 CPUs): 5 CPUs are free in all; from the node with the
///    most free CPUs: node 0 gives 4, then node 2 its 1.
/// 3. (1, 1): no CPU is left: it does not fit although 4 GPUs are free.
#[test]
fn spread_takes_cpus_from_the_gpus_nodes_first_then_the_most_free() {
    let mut c = Cluster::new(&[2, 3, 3], Placement::Spread).with_cpus(&[4, 2, 6]);
    assert_eq!(
        place(&mut c, 4, 7),
        Some(vec![a(1, 2, 2), a(2, 1, 5), a(0, 1, 0)])
    );
    assert_eq!(
        (0..3).map(|n| c.free_cpus(n)).collect::<Vec<_>>(),
        [4, 0, 1]
    );
    assert_eq!(place(&mut c, 0, 5), Some(vec![a(0, 0, 4), a(2, 0, 1)]));
    assert_eq!(c.cpu_free_total(), 0);
    assert!(!c.fits_job(1, 1));
    assert!(c.fits_job(1, 0));
}

#[test]
fn a_cluster_without_cpus_ignores_the_jobs_cpus() {
    let mut c = Cluster::new(&[2, 2], Placement::Consolidate).with_cpus(&[0, 0]);
    assert!(!c.counts_cpus());
    assert_eq!(place(&mut c, 2, 1000), Some(vec![a(0, 2, 0)]));
    assert_eq!(c.cpu_total(), 0);
}

fn job(submit: u64, duration: u64, gpus: u32, cpus: u32) -> Job {
    Job {
        submit,
        duration,
        gpus,
        user: 0,
        cpus,
    }
}

fn run(jobs: &[Job], cpus: &[u32], placement: Placement, backfill: bool) -> JobOutcome {
    let spec = schedulers().find(|s| s.name == "fifo").expect("fifo");
    let mut p = Params::new("hand", BTreeMap::new());
    let factory = (spec.parse)(&mut p).expect("params");
    let mut sched = factory(&SchedInit {
        jobs,
        users: 1,
        seed: 0,
        repetition: 0,
    })
    .expect("fifo builds");
    let input = JobSimInput {
        jobs,
        users: 1,
        nodes: &[2],
        cpus,
        placement,
        backfill,
        restart_overhead: 0,
        record_allocations: true,
        types: None,
    };
    simulate_jobs(&input, sched.as_mut()).expect("runs")
}

/// One node of 2 GPUs and 4 CPUs, FIFO:
///
/// - J0 (1 GPU, 3 CPUs, 10 s) starts at 0 and ends at 10;
/// - J1 (1 GPU, 2 CPUs, 5 s, submitted at 0): one GPU is free but one CPU
///   only, so it waits until J0 ends: [10, 15);
/// - J2 (0 GPUs, 1 CPU, 4 s, submitted at 1): without backfilling it waits
///   behind J1 and starts with it at 10 (CPUs 4 − 2 = 2 free): [10, 14);
///   with backfilling it starts at 1 on the one free CPU: [1, 5).
///
/// Without CPUs (cpus 0) J1 starts at 0 on the free GPU: [0, 5), and J2,
/// holding nothing, at 1: [1, 5).
#[test]
fn a_job_that_fits_on_gpus_but_not_cpus_waits_and_a_cpu_only_job_runs() {
    let s = 1_000_000;
    let jobs = [
        job(0, 10 * s, 1, 3),
        job(0, 5 * s, 1, 2),
        job(s, 4 * s, 0, 1),
    ];
    for placement in [Placement::Consolidate, Placement::Spread] {
        let o = run(&jobs, &[4], placement, false);
        assert_eq!(o.first_start, [0, 10 * s, 10 * s], "{placement:?}");
        assert_eq!(o.end, [10 * s, 15 * s, 14 * s], "{placement:?}");
        let b = run(&jobs, &[4], placement, true);
        assert_eq!(b.first_start, [0, 10 * s, s], "{placement:?}");
        assert_eq!(b.end, [10 * s, 15 * s, 5 * s], "{placement:?}");
        // The CPU-only job's allocation: CPUs on the node, no GPU.
        let seg = b
            .segments
            .to_vec()
            .expect("the segment log")
            .into_iter()
            .find(|x| x.job == 2)
            .expect("ran");
        let allocs = &b.segment_allocs
            [seg.alloc_offset as usize..(seg.alloc_offset + seg.alloc_len) as usize];
        assert_eq!(allocs, [a(0, 0, 1)], "{placement:?}");
        let none = run(&jobs, &[], placement, false);
        assert_eq!(none.first_start, [0, 0, s], "{placement:?}");
        assert_eq!(none.end, [10 * s, 5 * s, 5 * s], "{placement:?}");
    }
}

#[derive(Debug, Clone)]
struct Case {
    jobs: Vec<Job>,
    nodes: Vec<u32>,
    cpus: Vec<u32>,
    /// Node types (empty: untyped); 2 types when typed.
    node_types: Vec<u16>,
    allowed: Vec<u64>,
    placement: Placement,
    backfill: bool,
    overhead: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec((1u32..5, 1u32..9, 0u16..2), 1..4),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0u64..3,
        1usize..20,
    )
        .prop_flat_map(|(nodes, typed, spread, backfill, overhead, n)| {
            // Each job is shaped after one node, so it always fits there
            // (and on the node's type); some jobs need no GPU.
            let k = nodes.len();
            let jobs = proptest::collection::vec(
                (
                    0u64..30,
                    1u64..12,
                    0usize..k,
                    0u32..=100,
                    0u32..=100,
                    any::<bool>(),
                    0u32..3,
                ),
                n,
            );
            (Just((nodes, typed, spread, backfill, overhead)), jobs)
        })
        .prop_map(|((nodes, typed, spread, backfill, overhead), raw)| {
            let node_types: Vec<u16> = if typed {
                nodes.iter().map(|x| x.2).collect()
            } else {
                Vec::new()
            };
            let mut jobs = Vec::new();
            let mut allowed = Vec::new();
            for (submit, duration, k, gf, cf, any_type, user) in raw {
                let (g, c, t) = nodes[k];
                let gpus = g * gf / 100;
                let cpus = (c * cf / 100).max(u32::from(gpus == 0));
                jobs.push(Job {
                    submit,
                    duration,
                    gpus,
                    user,
                    cpus,
                });
                allowed.push(if typed && !any_type { 1 << t } else { 0b11 });
            }
            Case {
                jobs,
                nodes: nodes.iter().map(|x| x.0).collect(),
                cpus: nodes.iter().map(|x| x.1).collect(),
                node_types,
                allowed,
                placement: if spread {
                    Placement::Spread
                } else {
                    Placement::Consolidate
                },
                backfill,
                overhead,
            }
        })
}

fn simulate(c: &Case, name: &str, cpus: &[u32], jobs: &[Job]) -> JobOutcome {
    let spec = schedulers().find(|s| s.name == name).expect("registered");
    let mut p = Params::new("prop", BTreeMap::new());
    let factory = (spec.parse)(&mut p).expect("params");
    let mut sched = factory(&SchedInit {
        jobs,
        users: 3,
        seed: 0,
        repetition: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let types = (!c.node_types.is_empty()).then(|| {
        let durations = jobs.iter().flat_map(|j| [j.duration, j.duration]).collect();
        JobTypes::new(2, c.allowed.clone(), durations)
    });
    let input = JobSimInput {
        jobs,
        users: 3,
        nodes: &c.nodes,
        cpus,
        placement: c.placement,
        backfill: c.backfill,
        restart_overhead: c.overhead,
        record_allocations: true,
        types: types.as_ref().map(|t| SimTypes {
            node_types: &c.node_types,
            jobs: t,
            policy: TypePolicy::Agnostic,
        }),
    };
    if spec.needs_rounds {
        simulate_jobs_in_rounds(&input, 4, sched.as_mut()).expect("simulation runs")
    } else {
        simulate_jobs(&input, sched.as_mut()).expect("simulation runs")
    }
}

/// Capacity from the recorded allocations: at every instant a segment
/// starts, the GPUs and CPUs held on each node by the segments covering
/// it are at most the node's; every segment's allocation holds exactly
/// its job's GPUs and CPUs (one node under `consolidate`), and every job
/// completes with exactly its duration of service.
fn check_capacity(c: &Case, o: &JobOutcome) -> Result<(), TestCaseError> {
    let allocs_of = |s: &tenantsim::jobs::Segment| {
        &o.segment_allocs[s.alloc_offset as usize..(s.alloc_offset + s.alloc_len) as usize]
    };
    let segments = o.segments.to_vec().expect("the segment log");
    for s in &segments {
        let al = allocs_of(s);
        let j = &c.jobs[s.job as usize];
        prop_assert_eq!(al.iter().map(|x| x.gpus).sum::<u32>(), j.gpus);
        prop_assert_eq!(al.iter().map(|x| x.cpus).sum::<u32>(), j.cpus);
        if c.placement == Placement::Consolidate {
            prop_assert_eq!(al.len(), 1);
        }
        if !c.node_types.is_empty() {
            for x in al {
                let t = c.node_types[x.node as usize];
                prop_assert!(c.allowed[s.job as usize] & (1 << t) != 0, "wrong type");
            }
        }
    }
    for t in segments.iter().map(|s| s.start) {
        let mut g = vec![0u32; c.nodes.len()];
        let mut k = vec![0u32; c.nodes.len()];
        for s in segments.iter().filter(|s| s.start <= t && t < s.end) {
            for x in allocs_of(s) {
                g[x.node as usize] += x.gpus;
                k[x.node as usize] += x.cpus;
            }
        }
        for n in 0..c.nodes.len() {
            prop_assert!(
                g[n] <= c.nodes[n],
                "node {} GPUs {} > {} at {}",
                n,
                g[n],
                c.nodes[n],
                t
            );
            prop_assert!(
                k[n] <= c.cpus[n],
                "node {} CPUs {} > {} at {}",
                n,
                k[n],
                c.cpus[n],
                t
            );
        }
    }
    for (i, j) in c.jobs.iter().enumerate() {
        prop_assert!(o.end[i] != NEVER, "job {} never completed", i);
        let service: u64 = o
            .segments
            .to_vec()
            .expect("the segment log")
            .iter()
            .filter(|s| s.job as usize == i)
            .map(|s| s.service())
            .sum();
        prop_assert_eq!(service, j.duration);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every built-in scheduler, typed clusters and not, both placements:
    /// GPUs and CPUs held per node never exceed capacity.
    #[test]
    fn gpus_and_cpus_held_per_node_never_exceed_capacity(c in case()) {
        for s in schedulers() {
            let o = simulate(&c, &s.name, &c.cpus, &c.jobs);
            check_capacity(&c, &o)?;
        }
    }

    /// Without CPUs (`cpus_per_node` = 0: no CPUs or all zero) the jobs'
    /// `cpus` are ignored: the run equals the run of the same jobs with
    /// `cpus` 0, which is today's GPU-only run.
    #[test]
    fn without_cpus_per_node_the_run_is_the_gpu_only_run(c in case()) {
        let gpu_jobs: Vec<Job> = c.jobs.iter().map(|j| Job { gpus: j.gpus.max(1), ..*j }).collect();
        let zeroed: Vec<Job> = gpu_jobs.iter().map(|j| Job { cpus: 0, ..*j }).collect();
        let zeros = vec![0; c.nodes.len()];
        for s in schedulers() {
            let today = simulate(&c, &s.name, &[], &zeroed);
            for cpus in [&[][..], &zeros[..]] {
                let o = simulate(&c, &s.name, cpus, &gpu_jobs);
                prop_assert_eq!(&o.first_start, &today.first_start, "{}", s.name);
                prop_assert_eq!(&o.end, &today.end, "{}", s.name);
                prop_assert_eq!(&o.segments, &today.segments, "{}", s.name);
                prop_assert_eq!(&o.segment_allocs, &today.segment_allocs, "{}", s.name);
            }
        }
    }
}

/// The Alibaba v2023 importer keeps each kept pod's CPU request:
/// `cpus` = ⌈`cpu_milli` / 1000⌉, checked against an independent read of
/// the pod list (by `name`), and a job trace built from the rows carries
/// them into `Job::cpus`.
#[test]
fn alibaba_import_keeps_the_pods_cpu_requests() {
    use tenantsim::core::testing::shared_data;
    use tenantsim::jobs::JobTrace;
    use tenantsim::jobs::import::{ImportFormat, ImportOptions, import_jobs};
    let Some(path) = shared_data("alibaba-gpu-v2023/openb_pod_list_default.csv") else {
        return;
    };
    let (rows, _) =
        import_jobs(ImportFormat::Alibaba, &path, ImportOptions::default()).expect("imports");
    let text = std::fs::read_to_string(&path).expect("reads");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect("column");
    let (name, milli) = (col("name"), col("cpu_milli"));
    let want: std::collections::HashMap<String, u32> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let m: u32 = f[milli].parse().expect("cpu_milli");
            (f[name].to_string(), m.div_ceil(1000))
        })
        .collect();
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r.cpus, Some(want[&r.job_id]), "{}", r.job_id);
    }
    // The first pod asks for 12,000 milli-CPUs: 12 CPUs.
    assert_eq!(rows[0].cpus, Some(12));
    let trace = JobTrace::from_rows("alibaba", &rows).expect("valid");
    for (j, r) in trace.jobs().iter().zip(&rows) {
        assert_eq!(Some(j.cpus), r.cpus);
    }
}

/// The job trace's optional `cpus` column: read into `Job::cpus`; a row of
/// 0 GPUs is valid only with at least one CPU, and the messages name the
/// line and field.
#[test]
fn the_trace_cpus_column_allows_cpu_only_jobs_and_names_bad_rows() {
    use tenantsim::jobs::parse_job_trace;
    let t = parse_job_trace(
        "t.csv",
        "job_id,user,submit_s,duration_s,gpus,cpus\na,u,0,1,2,8\nb,u,0,1,0,3\n".as_bytes(),
    )
    .expect("valid");
    assert_eq!((t.jobs()[0].gpus, t.jobs()[0].cpus), (2, 8));
    assert_eq!((t.jobs()[1].gpus, t.jobs()[1].cpus), (0, 3));
    let e = parse_job_trace(
        "t.csv",
        "job_id,user,submit_s,duration_s,gpus,cpus\na,u,0,1,0,0\n".as_bytes(),
    )
    .expect_err("0 of both")
    .to_string();
    assert!(e.contains("t.csv: line 2: fields `gpus` and `cpus`"), "{e}");
    let e = parse_job_trace(
        "t.csv",
        "job_id,user,submit_s,duration_s,gpus,cpus\na,u,0,1,1,-2\n".as_bytes(),
    )
    .expect_err("negative")
    .to_string();
    assert!(
        e.contains("t.csv: line 2: field `cpus`: expected a whole number of CPUs"),
        "{e}"
    );
    let e = parse_job_trace(
        "t.csv",
        "job_id,user,submit_s,duration_s,gpus\na,u,0,1,0\n".as_bytes(),
    )
    .expect_err("no cpus column")
    .to_string();
    assert!(
        e.contains("field `gpus`: expected a whole number of GPUs >= 1, got 0"),
        "{e}"
    );
}

/// `cpu_utilization` on the hand case above (one node, 4 CPUs, FIFO, no
/// backfilling): J0 holds 3 CPUs over [0, 10), J1 2 over [10, 15), J2 1
/// over [10, 14): 30 + 10 + 4 = 44 CPU-seconds over 4 CPUs × a makespan of
/// 15 s = 60, so 44 / 60.
#[test]
fn cpu_utilization_is_cpu_time_held_over_cpus_times_makespan() {
    use tenantsim::jobs::metrics::cpu_utilization;
    let s = 1_000_000;
    let jobs = [
        job(0, 10 * s, 1, 3),
        job(0, 5 * s, 1, 2),
        job(s, 4 * s, 0, 1),
    ];
    let o = run(&jobs, &[4], Placement::Consolidate, false);
    let u = cpu_utilization(&jobs, &o, 4, 15 * s).expect("the segment log");
    assert!((u - 44.0 / 60.0).abs() < 1e-12, "{u}");
    assert_eq!(
        cpu_utilization(&jobs, &o, 0, 15 * s).expect("the segment log"),
        0.0
    );
}

/// A job-mode scenario end to end: `[cluster] cpus_per_node = 4` and the
/// trace's `cpus` column reach the engine (the hand case above: J1 waits
/// for CPUs until 10 s, the CPU-only J2 runs [10, 14)), and `summary.csv`
/// ends with `cpu_utilization` = 44 / 60. Without `cpus_per_node` the
/// column is absent and J1 starts at 0.
#[test]
fn a_job_scenario_with_cpus_per_node_counts_cpus_and_reports_their_utilization() {
    use std::fs;
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(
        tmp.path().join("jobs.csv"),
        "job_id,user,submit_s,duration_s,gpus,cpus\nj0,u,0,10,1,3\nj1,u,0,5,1,2\nj2,u,1,4,0,1\n",
    )
    .expect("write");
    for (cpus, j1_start, cpu_column) in [
        ("cpus_per_node = 4\n", "10.000000", true),
        ("", "0.000000", false),
    ] {
        let s = tmp.path().join("s.toml");
        let text = format!(
            "mode = \"jobs\"\nname = \"c\"\n[jobs]\npath = \"jobs.csv\"\n[cluster]\nnodes = 1\ngpus_per_node = 2\n{cpus}[[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n"
        );
        if !cpu_column {
            // A CPU-only job needs a cluster that counts CPUs: drop it.
            fs::write(
                tmp.path().join("jobs.csv"),
                "job_id,user,submit_s,duration_s,gpus,cpus\nj0,u,0,10,1,3\nj1,u,0,5,1,2\n",
            )
            .expect("write");
        }
        fs::write(&s, text).expect("write");
        let out = tmp.path().join(if cpu_column { "with" } else { "without" });
        crate::common::tenantsim()
            .arg("run")
            .arg(&s)
            .arg("--out")
            .arg(&out)
            .args(["--quiet", "--no-plots", "--jobs"])
            .assert()
            .success();
        let summary = fs::read_to_string(out.join("summary.csv")).expect("summary");
        let mut lines = summary.lines();
        let header = lines.next().expect("header");
        assert_eq!(header.ends_with(",cpu_utilization"), cpu_column, "{header}");
        if cpu_column {
            let row = lines.next().expect("row");
            let u: f64 = row
                .rsplit(',')
                .next()
                .expect("cell")
                .parse()
                .expect("number");
            assert!((u - 44.0 / 60.0).abs() < 1e-12, "{row}");
        }
        let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
        let j1 = jobs.lines().find(|l| l.contains(",j1,")).expect("j1 row");
        assert!(j1.contains(&format!(",{j1_start},")), "{j1}");
    }
}
