//! Hand-computed heterogeneous cases (DESIGN §11.2): two GPU types, jobs
//! with per-type durations and type constraints, every scheduler's
//! placement worked out on paper in the comments.
//!
//! The cluster (unless a test says otherwise) is
//! `nodes = [{type = "slow", count = 1, gpus_per_node = 2}, {type = "fast",
//! count = 1, gpus_per_node = 2}]`: node 0 is `slow` (type 0), node 1 is
//! `fast` (type 1), `consolidate`, no backfilling. Times are seconds.

use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::jobs::scenario::{JobScenario, parse_job_scenario};
use tenantsim::jobs::sim::{SchedInit, SimTypes};
use tenantsim::jobs::{JobOutcome, JobSimInput, simulate_jobs};

const S: u64 = 1_000_000;

const CLUSTER: &str = r#"[cluster]
nodes = [{type = "slow", count = 1, gpus_per_node = 2}, {type = "fast", count = 1, gpus_per_node = 2}]
"#;

/// The main trace:
///
/// | job | submit | duration_s | slow | fast | GPUs | gpu_type |
/// |-----|--------|------------|------|------|------|----------|
/// | a   | 0      | 10         | 20   | 10   | 2    | any      |
/// | b   | 1      | 4          | (4)  | 2    | 2    | any      |
/// | c   | 2      | 6          | 12   | 6    | 1    | slow     |
/// | d   | 3      | 3          | 6    | 3    | 1    | any      |
///
/// b's `slow` cell is empty: its duration there is `duration_s` = 4.
const TRACE: &str = "job_id,user,submit_s,duration_s,gpus,gpu_type,duration_s.slow,duration_s.fast
a,u,0,10,2,,20,10
b,u,1,4,2,,,2
c,v,2,6,1,slow,12,6
d,v,3,3,1,,6,3
";

fn scenario(
    dir: &Path,
    trace: &str,
    cluster: &str,
    policies: &str,
) -> tenantsim::Result<JobScenario> {
    std::fs::write(dir.join("jobs.csv"), trace).expect("write trace");
    let text = format!(
        "mode = \"jobs\"\nname = \"hetero\"\n[jobs]\npath = \"jobs.csv\"\n{cluster}\n{policies}"
    );
    parse_job_scenario(&dir.join("s.toml"), &text, Overrides::default())
}

/// Every policy of the scenario, simulated with allocations recorded.
fn run_all(s: &JobScenario) -> Vec<JobOutcome> {
    let rep = s.rep_jobs(0);
    let node_types = s.cluster.node_types();
    s.policies
        .iter()
        .map(|p| {
            let users = s.trace.users().len();
            let mut sched = (p.make)(&SchedInit {
                jobs: &rep.jobs,
                users,
                seed: 0,
                repetition: 0,
            })
            .unwrap_or_else(|e| panic!("{e}"));
            let input = JobSimInput {
                jobs: &rep.jobs,
                users,
                nodes: &s.nodes,
                cpus: &[],
                placement: s.placement,
                backfill: p.backfill,
                restart_overhead: s.restart_overhead,
                record_allocations: true,
                types: rep.types.as_ref().map(|t| SimTypes {
                    node_types: &node_types,
                    jobs: t,
                    policy: p.type_policy,
                }),
            };
            simulate_jobs(&input, sched.as_mut()).expect("runs")
        })
        .collect()
}

fn ends_s(o: &JobOutcome) -> Vec<f64> {
    o.end.iter().map(|&e| e as f64 / S as f64).collect()
}

fn types_of(o: &JobOutcome) -> Vec<u16> {
    o.gpu_type.clone()
}

fn policy(name: &str, scheduler: &str, extra: &str) -> String {
    format!("[[policy]]\nname = \"{name}\"\nscheduler = \"{scheduler}\"\n{extra}\n")
}

/// FIFO under each type policy.
///
/// `agnostic` (best fit over the nodes of the allowed types, ties to the
/// lowest node):
/// - t0: a: both nodes have 2 free, tie → node 0 (slow): 20 s, ends 20.
/// - t1: b: only node 1 (fast) has room: 2 s, ends 3.
/// - t2: c may use `slow` only; node 0 is full: c blocks; d (t3) waits
///   behind it (head-of-line).
/// - t20: a ends. c → slow (12 s, ends 32); d: node 0 has 1 free, node 1
///   2 → best fit node 0 (slow): 6 s, ends 26.
///
/// `fastest` (the fastest allowed type with room):
/// - t0: a → fast (10 s, ends 10). t1: b: fast full, slow has room → slow
///   at its fallback 4 s, ends 5. t2: c blocks (slow full); d waits.
/// - t5: b ends. c → slow (ends 17); d: fast full → slow (6 s, ends 11).
///
/// `fastest-or-wait`, `max_wait_s = 5`:
/// - t0: a → fast (ends 10). t1: b's fastest is fast (2 < 4), full, and b
///   has waited 0 < 5 s: it waits, and blocks c and d.
/// - t6: b's bound (1 + 5): b → slow (the fastest with room), ends 10;
///   c blocks (slow full).
/// - t10: a and b end. c → slow (ends 22); d has waited 7 ≥ 5 s: the
///   fastest with room, fast (3 s, ends 13).
///
/// `fastest-or-wait` with backfilling:
/// - t0: a → fast (ends 10). t1: b waits for fast (skipped).
/// - t2: c → slow (1 of 2 GPUs), ends 14. t3: d waits for fast.
/// - t6: b may go anywhere, but slow has 1 free GPU: skipped.
/// - t8: d's bound (3 + 5): fast full → slow (6 s), ends 14.
/// - t10: a ends; b → fast (2 s), ends 12.
#[test]
fn fifo_under_each_type_policy_hand_computed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let policies = [
        policy("agnostic", "fifo", ""),
        policy("fastest", "fifo", "type_policy = \"fastest\""),
        policy(
            "or-wait",
            "fifo",
            "type_policy = \"fastest-or-wait\"\nmax_wait_s = 5",
        ),
        policy(
            "or-wait-bf",
            "fifo",
            "type_policy = \"fastest-or-wait\"\nmax_wait_s = 5\nbackfill = true",
        ),
    ]
    .concat();
    let s = scenario(tmp.path(), TRACE, CLUSTER, &policies).expect("loads");
    let o = run_all(&s);
    let (slow, fast) = (0, 1);
    assert_eq!(ends_s(&o[0]), [20.0, 3.0, 32.0, 26.0]);
    assert_eq!(types_of(&o[0]), [slow, fast, slow, slow]);
    assert_eq!(ends_s(&o[1]), [10.0, 5.0, 17.0, 11.0]);
    assert_eq!(types_of(&o[1]), [fast, slow, slow, slow]);
    assert_eq!(ends_s(&o[2]), [10.0, 10.0, 22.0, 13.0]);
    assert_eq!(types_of(&o[2]), [fast, slow, slow, fast]);
    assert_eq!(ends_s(&o[3]), [10.0, 12.0, 14.0, 14.0]);
    assert_eq!(types_of(&o[3]), [fast, fast, slow, slow]);
    // Never on an excluded type, never across types: c is `slow` only,
    // and every segment's nodes are of its type.
    for out in &o {
        assert_eq!(out.gpu_type[2], slow);
        for seg in &out.segments.to_vec().expect("the segment log") {
            let allocs = &out.segment_allocs
                [seg.alloc_offset as usize..(seg.alloc_offset + seg.alloc_len) as usize];
            for a in allocs {
                assert_eq!(u16::from(a.node == 1), seg.gpu_type);
            }
        }
    }
}

/// SJF orders by `duration_s` (the reference duration): under `fastest`,
/// - t0: a → fast (ends 10). b, c, d arrive while fast is busy.
///   t1: b → slow (4 s, ends 5). t2: c (slow only): slow full; SJF's queue
///   is d (3), c (6): d first — fast full, slow full: d blocks c.
/// - t5: b ends: d → slow (the only room, 6 s, ends 11); c → slow (the
///   other slow GPU, 12 s, ends 17).
#[test]
fn sjf_fastest_hand_computed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let s = scenario(
        tmp.path(),
        TRACE,
        CLUSTER,
        &policy("sjf", "sjf", "type_policy = \"fastest\""),
    )
    .expect("loads");
    let o = &run_all(&s)[0];
    assert_eq!(ends_s(o), [10.0, 5.0, 17.0, 11.0]);
    assert_eq!(types_of(o), [1, 0, 0, 0]);
}

/// SRTF, `fastest`: a job preempted on one type resumes on another with
/// the fraction of its work not yet done.
///
/// | job | submit | duration_s | slow | fast | GPUs | gpu_type |
/// | p   | 0      | 10         | 20   | 10   | 2    | any      |
/// | q   | 1      | 2          | 4    | 2    | 2    | fast     |
///
/// - t0: p → fast (10 s, ends 10).
/// - t1: q may use fast only, which is full. Its time to finish (2 s of
///   work) is below p's (9 s): p is preempted after 1 s on fast, i.e. 1/10
///   of its work; q → fast (ends 3).
/// - Same pass: p (9 of 10 work units left) → slow, the fastest type with
///   room: 9/10 × 20 s = 18 s, ends 19.
#[test]
fn srtf_resumes_a_preempted_job_on_another_type_with_its_remaining_work() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = "job_id,user,submit_s,duration_s,gpus,gpu_type,duration_s.slow,duration_s.fast
p,u,0,10,2,,20,10
q,u,1,2,2,fast,4,2
";
    let s = scenario(
        tmp.path(),
        trace,
        CLUSTER,
        &policy("srtf", "srtf", "type_policy = \"fastest\""),
    )
    .expect("loads");
    let o = &run_all(&s)[0];
    assert_eq!(ends_s(o), [19.0, 3.0]);
    assert_eq!(o.preemptions, [1, 0]);
    assert_eq!(types_of(o), [0, 1]);
    // p's segments: 0–1 s on fast, then 1–19 s on slow.
    let p: Vec<(u64, u64, u16)> = o
        .segments
        .to_vec()
        .expect("the segment log")
        .iter()
        .filter(|g| g.job == 0)
        .map(|g| (g.start / S, g.end / S, g.gpu_type))
        .collect();
    assert_eq!(p, [(0, 1, 1), (1, 19, 0)]);
}

/// Every scheduler places like its type policy says when jobs do not
/// compete (each arrives after the previous one ended):
///
/// | job | submit | slow | fast | GPUs | gpu_type |
/// | x   | 0      | 8    | 4    | 1    | any      |  agnostic: tie → node 0 (slow, 8 s); fastest: fast (4 s)
/// | y   | 100    | 2    | 6    | 1    | any      |  agnostic: slow (2 s); fastest: slow (2 s)
/// | z   | 200    | 4    | 2    | 2    | slow     |  both: slow (4 s)
#[test]
fn every_scheduler_places_by_its_type_policy() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = "job_id,user,submit_s,duration_s,gpus,gpu_type,duration_s.slow,duration_s.fast
x,u,0,5,1,,8,4
y,v,100,5,1,,2,6
z,u,200,5,2,slow,4,2
";
    let schedulers = ["fifo", "sjf", "srtf", "las", "fair-share", "ftf"];
    let mut policies = String::new();
    for s in schedulers {
        policies += &policy(&format!("{s}-agnostic"), s, "");
        policies += &policy(&format!("{s}-fastest"), s, "type_policy = \"fastest\"");
    }
    let s = scenario(tmp.path(), trace, CLUSTER, &policies).expect("loads");
    for (p, o) in s.policies.iter().zip(run_all(&s)) {
        if p.name.ends_with("agnostic") {
            assert_eq!(ends_s(&o), [8.0, 102.0, 204.0], "{}", p.name);
            assert_eq!(types_of(&o), [0, 0, 0], "{}", p.name);
        } else {
            assert_eq!(ends_s(&o), [4.0, 102.0, 204.0], "{}", p.name);
            assert_eq!(types_of(&o), [1, 0, 0], "{}", p.name);
        }
    }
}

/// The speed table: duration on `t` = `duration_s / speed[group][t]`; a
/// `duration_s.<t>` cell wins over it; groups or types without an entry
/// keep `duration_s`.
#[test]
fn speed_table_divides_duration_by_the_group_speed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        tmp.path().join("speeds.csv"),
        "group,gpu_type,speed\nresnet,fast,4\nresnet,slow,0.5\n",
    )
    .expect("write");
    let trace = "job_id,user,submit_s,duration_s,gpus,group,duration_s.slow
r,u,0,8,1,resnet,
s,u,0,8,1,resnet,3
t,u,0,8,1,other,
";
    std::fs::write(tmp.path().join("jobs.csv"), trace).expect("write");
    let text = format!(
        "mode = \"jobs\"\nname = \"h\"\n[jobs]\npath = \"jobs.csv\"\nspeeds = \"speeds.csv\"\n{CLUSTER}\n{}",
        policy("f", "fifo", "")
    );
    let s =
        parse_job_scenario(&tmp.path().join("s.toml"), &text, Overrides::default()).expect("loads");
    let t = s.job_types.as_ref().expect("typed");
    // r: slow 8 / 0.5 = 16 s, fast 8 / 4 = 2 s; s: slow from its cell, 3 s;
    // t: group without entries, 8 s on both.
    let d = |j: usize, ty: u16| t.duration(j, ty) as f64 / S as f64;
    assert_eq!((d(0, 0), d(0, 1)), (16.0, 2.0));
    assert_eq!((d(1, 0), d(1, 1)), (3.0, 2.0));
    assert_eq!((d(2, 0), d(2, 1)), (8.0, 8.0));
}

/// Type columns on an untyped cluster are ignored: the run equals the
/// same trace without them.
#[test]
fn untyped_cluster_ignores_type_columns() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let untyped = "[cluster]\nnodes = 2\ngpus_per_node = 2\n";
    let plain =
        "job_id,user,submit_s,duration_s,gpus\na,u,0,10,2\nb,u,1,4,2\nc,v,2,6,1\nd,v,3,3,1\n";
    let p = policy("f", "fifo", "type_policy = \"fastest\"");
    let with = scenario(tmp.path(), TRACE, untyped, &p).expect("loads");
    assert!(with.job_types.is_none());
    let a = run_all(&with);
    let without = scenario(tmp.path(), plain, untyped, &p).expect("loads");
    let b = run_all(&without);
    assert_eq!(a[0].end, b[0].end);
    assert_eq!(a[0].end.len(), 4);
}

/// Load-time checks name the file, the line and the field.
#[test]
fn typed_trace_errors_and_warnings_name_line_and_field() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let p = policy("f", "fifo", "");
    let err = |trace: &str, cluster: &str| {
        scenario(tmp.path(), trace, cluster, &p)
            .expect_err("rejected")
            .to_string()
    };
    let head = "job_id,user,submit_s,duration_s,gpus,gpu_type\n";
    // Allowed types that have no node big enough (nodes have 2 GPUs).
    let e = err(&format!("{head}a,u,0,1,1,\nb,u,0,1,4,fast|slow\n"), CLUSTER);
    assert!(e.contains("jobs.csv: line 3: job `b` needs 4 GPUs"), "{e}");
    assert!(e.contains("`slow` 2, `fast` 2"), "{e}");
    // Only types the cluster lacks.
    let e = err(&format!("{head}a,u,0,1,1,a100\n"), CLUSTER);
    assert!(e.contains("line 2: field `gpu_type`"), "{e}");
    assert!(e.contains("has none of them"), "{e}");
    // A bad type name, and a bad per-type duration.
    let e = err(&format!("{head}a,u,0,1,1,v 100\n"), CLUSTER);
    assert!(e.contains("line 2: field `gpu_type`"), "{e}");
    let e = err(
        "job_id,user,submit_s,duration_s,gpus,duration_s.fast\na,u,0,1,1,-2\n",
        CLUSTER,
    );
    assert!(e.contains("line 2: field `duration_s.fast`"), "{e}");
    let e = err(
        "job_id,user,submit_s,duration_s,gpus,duration_s.fast\na,u,0,1,1,x\n",
        CLUSTER,
    );
    assert!(
        e.contains("line 2: field `duration_s.fast`: expected a number"),
        "{e}"
    );
    // A slow-only 2-GPU job under spread fits its 2 slow GPUs; a 3-GPU one
    // does not, although the cluster has 4 (a job never spans types).
    let spread = format!("{CLUSTER}placement = \"spread\"\n");
    let e = err(&format!("{head}a,u,0,1,3,\n"), &spread);
    assert!(e.contains("never spans GPU types"), "{e}");
    // Unknown names next to known ones, and columns of absent types, warn.
    let s = scenario(
        tmp.path(),
        "job_id,user,submit_s,duration_s,gpus,gpu_type,duration_s.a100\na,u,0,1,1,fast|h100,2\n",
        CLUSTER,
        &p,
    )
    .expect("loads");
    let w = s.type_warnings.join("\n");
    assert!(w.contains("`duration_s.a100`"), "{w}");
    assert!(w.contains("h100"), "{w}");
    assert_eq!(s.job_types.as_ref().map(|t| t.allowed(0)), Some(0b10));
    // type_policy errors.
    let e = scenario(
        tmp.path(),
        TRACE,
        CLUSTER,
        &policy("f", "fifo", "type_policy = \"fastest-or-wait\""),
    )
    .expect_err("needs max_wait_s")
    .to_string();
    assert!(e.contains("max_wait_s"), "{e}");
    let e = scenario(
        tmp.path(),
        TRACE,
        CLUSTER,
        &policy("f", "fifo", "type_policy = \"quickest\""),
    )
    .expect_err("unknown")
    .to_string();
    assert!(e.contains("unknown type policy `quickest`"), "{e}");
}

/// Typed outputs (DESIGN §11.2): `jobs.csv` ends with `gpu_type`,
/// `summary.csv` with `gpu_utilization.<type>`, and
/// `utilization_by_type.csv` is written. FIFO `fastest` on the main trace
/// (see above): fast holds a for 0–10 s (2 GPUs); slow holds b 1–5 (2),
/// c 5–17 (1), d 5–11 (1); makespan 17 s. fast: 20 / (2 × 17); slow:
/// (8 + 12 + 6) / (2 × 17).
#[test]
fn typed_results_name_each_jobs_type_and_each_types_utilisation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("jobs.csv"), TRACE).expect("write");
    let text = format!(
        "mode = \"jobs\"\nname = \"h\"\n[jobs]\npath = \"jobs.csv\"\n{CLUSTER}\n{}",
        policy("fastest", "fifo", "type_policy = \"fastest\"")
    );
    std::fs::write(tmp.path().join("s.toml"), text).expect("write");
    let out = tmp.path().join("out");
    super::common::tenantsim()
        .arg("run")
        .arg(tmp.path().join("s.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "--quiet", "--no-plots"])
        .assert()
        .success();
    let jobs = std::fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let lines: Vec<&str> = jobs.lines().collect();
    assert_eq!(
        lines[0],
        "policy,rep,job_id,user,submit_s,start_s,end_s,gpus,gpu_type"
    );
    assert_eq!(lines[1], "fastest,0,a,u,0.000000,0.000000,10.000000,2,fast");
    assert_eq!(lines[2], "fastest,0,b,u,1.000000,1.000000,5.000000,2,slow");
    let summary = std::fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let mut rows = summary.lines();
    let header: Vec<&str> = rows.next().expect("header").split(',').collect();
    let row: Vec<&str> = rows.next().expect("row").split(',').collect();
    let col = |name: &str| {
        let i = header.iter().position(|h| *h == name).expect(name);
        row[i].parse::<f64>().expect("number")
    };
    assert_eq!(col("gpu_utilization.slow"), 26.0 / 34.0);
    assert_eq!(col("gpu_utilization.fast"), 20.0 / 34.0);
    assert_eq!(col("gpu_utilization"), 46.0 / 68.0);
    let by_type = std::fs::read_to_string(out.join("utilization_by_type.csv")).expect("file");
    assert!(by_type.starts_with("policy,rep,gpu_type,time_s,duration_s,busy_gpus,utilization\n"));
    assert!(by_type.lines().any(|l| l.starts_with("fastest,0,fast,")));
}

/// Regression (found by `jobs_types_invariants`): `srtf` compared a running
/// job's real time to finish with a waiting job's work, so on a slow type
/// two jobs preempted each other forever at one instant. In work units:
///
/// | job | submit | duration_s | slow | GPUs | gpu_type |
/// | v   | 0      | 10         | 100  | 2    | slow     |
/// | w   | 1      | 20         | 40   | 2    | slow     |
///
/// - t0: v → slow (100 s, ends 100).
/// - t1: v has 10 − floor(1 × 10 / 100) = 10 work units left, w needs 20:
///   no preemption; w waits for v and runs 100–140.
#[test]
fn srtf_on_a_slow_type_does_not_preempt_back_and_forth() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let trace = "job_id,user,submit_s,duration_s,gpus,gpu_type,duration_s.slow
v,u,0,10,2,slow,100
w,u,1,20,2,slow,40
";
    let s = scenario(tmp.path(), trace, CLUSTER, &policy("srtf", "srtf", "")).expect("loads");
    let o = &run_all(&s)[0];
    assert_eq!(ends_s(o), [100.0, 140.0]);
    assert_eq!(o.preemptions, [0, 0]);
}

/// Alibaba `gpuspec33` (docs/VALIDATION.md): the importer carries
/// `gpu_spec` into `gpu_type` and the node list's `model` column types the
/// nodes. Compressed 10,000-fold under FIFO every pod runs only on nodes of
/// a type its `gpu_spec` names, and constrained pods wait where the same
/// pods without constraints (the `default` list) do not.
#[test]
fn alibaba_gpuspec33_runs_only_on_the_required_types() {
    use tenantsim::core::testing::shared_data;
    use tenantsim::jobs::import::{ImportFormat, ImportOptions, import_jobs};
    let (Some(pods), Some(plain), Some(nodes)) = (
        shared_data("alibaba-gpu-v2023/openb_pod_list_gpuspec33.csv"),
        shared_data("alibaba-gpu-v2023/openb_pod_list_default.csv"),
        shared_data("alibaba-gpu-v2023/openb_node_list_gpu_node.csv"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut waits = Vec::new();
    for (file, name) in [(&pods, "gpuspec33"), (&plain, "default")] {
        let (rows, _) =
            import_jobs(ImportFormat::Alibaba, file, ImportOptions::default()).expect("imports");
        let specs: Vec<String> = rows
            .iter()
            .map(|r| r.gpu_type.clone().unwrap_or_default())
            .collect();
        tenantsim::jobs::trace::write_job_trace(&tmp.path().join(format!("{name}.csv")), &rows)
            .expect("writes");
        let text = format!(
            "mode = \"jobs\"\nname = \"a\"\n[jobs]\npath = \"{name}.csv\"\narrival_scale = 0.0001\n\
             [cluster]\nnode_list = \"{}\"\n{}",
            nodes.display(),
            policy("fifo", "fifo", "")
        );
        let s = parse_job_scenario(&tmp.path().join("s.toml"), &text, Overrides::default())
            .expect("loads");
        let o = &run_all(&s)[0];
        let types = s.cluster.types();
        let node_types = s.cluster.node_types();
        let mut constrained = 0;
        for seg in &o.segments.to_vec().expect("the segment log") {
            let spec = &specs[seg.job as usize];
            if spec.is_empty() {
                continue;
            }
            constrained += 1;
            let allocs = &o.segment_allocs
                [seg.alloc_offset as usize..(seg.alloc_offset + seg.alloc_len) as usize];
            for a in allocs {
                let t = &types[node_types[a.node as usize] as usize];
                assert!(spec.split('|').any(|x| x == t), "{spec} ran on {t}");
            }
        }
        if name == "gpuspec33" {
            assert!(constrained > 2000, "{constrained} constrained pods");
        }
        let wait: u64 = o
            .first_start
            .iter()
            .zip(&s.rep_jobs(0).jobs)
            .map(|(st, j)| st - j.submit)
            .sum();
        waits.push(wait);
    }
    assert!(
        waits[0] > waits[1],
        "constrained {} vs default {}",
        waits[0],
        waits[1]
    );
}

/// The `utilization-by-type` figure: one panel per (policy, GPU type),
/// drawn at the end of `run` and the same from `tenantsim plot`.
#[test]
fn typed_runs_draw_a_utilisation_panel_per_type() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("jobs.csv"), TRACE).expect("write");
    let text = format!(
        "mode = \"jobs\"\nname = \"h\"\n[jobs]\npath = \"jobs.csv\"\n{CLUSTER}\n{}",
        policy("fastest", "fifo", "type_policy = \"fastest\"")
    );
    std::fs::write(tmp.path().join("s.toml"), text).expect("write");
    let out = tmp.path().join("out");
    super::common::tenantsim()
        .arg("run")
        .arg(tmp.path().join("s.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--quiet"])
        .assert()
        .success();
    let svg = std::fs::read_to_string(out.join("plots/utilization-by-type.svg")).expect("figure");
    assert!(svg.contains("fastest on slow: mean"), "no slow panel");
    assert!(svg.contains("fastest on fast: mean"), "no fast panel");
    let again = tmp.path().join("again");
    super::common::tenantsim()
        .arg("plot")
        .arg(&out)
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(again.join("utilization-by-type.svg")).expect("replot"),
        svg.as_bytes()
    );
}
