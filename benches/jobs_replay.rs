//! Job-trace mode speed: replay 1,000,000 synthetic jobs on 1,000 GPUs
//! (125 nodes × 8, `consolidate`) under `fifo` and under `las`, and print
//! jobs per second.
//!
//! ```sh
//! cargo bench --bench jobs_replay                 # fifo and las
//! cargo bench --bench jobs_replay -- --all        # every scheduler
//! cargo bench --bench jobs_replay -- --load 0.95     # another offered load
//! cargo bench --bench jobs_replay -- --jobs 100000 --write-trace /tmp/jobs.csv
//! cargo bench --bench jobs_replay -- --types     # 3 GPU types, fifo fastest
//! ```
//!
//! With `--types` (DESIGN §11.2) the 125 nodes get three GPU types in
//! blocks (nodes 0–41 type 0, 42–83 type 1, 84–124 type 2: 336 / 336 / 328
//! GPUs); a job's duration is its synthetic duration on type 0, 1.5× on
//! type 1 and 2.5× on type 2; every tenth job may use types 0 and 1 only;
//! and `fifo` runs with the `fastest` type policy (and `agnostic`, for
//! comparison).
//!
//! The workload (`tenantsim::jobs::synthetic`): Poisson arrivals at 85 %
//! offered load, 1/2/4/8-GPU jobs (70/10/10/10 %), heavy-tailed durations
//! with a mean of one hour, 100 users, seed 42. Only the simulation is
//! timed (not generating the jobs or computing the metrics printed).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::time::Instant;

use tenantsim::jobs::metrics::job_metrics;
use tenantsim::jobs::policy::{Params, schedulers};
use tenantsim::jobs::sim::{JobTypes, SchedInit, SimTypes, TypePolicy};
use tenantsim::jobs::synthetic::{SyntheticSpec, synthetic_jobs};
use tenantsim::jobs::{JobRow, JobSimInput, Placement, simulate_jobs};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let n: usize = value("--jobs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let all = args.iter().any(|a| a == "--all");
    let typed = args.iter().any(|a| a == "--types");
    let load: f64 = value("--load").and_then(|v| v.parse().ok()).unwrap_or(0.85);
    let nodes = vec![8u32; 125];
    let spec = SyntheticSpec {
        jobs: n,
        cluster_gpus: 1000,
        load,
        mean_duration_s: 3600.0,
        users: 100,
        seed: 42,
    };
    let jobs = synthetic_jobs(&spec);
    if let Some(path) = value("--write-trace") {
        let rows: Vec<JobRow> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| JobRow {
                job_id: format!("j{i}"),
                user: format!("u{}", j.user),
                submit_s: j.submit as f64 / 1e6,
                duration_s: j.duration as f64 / 1e6,
                gpus: j.gpus,
                gpu_type: None,
                group: None,
                type_durations: Vec::new(),
                cpus: None,
            })
            .collect();
        if let Err(e) = tenantsim::jobs::trace::write_job_trace(std::path::Path::new(&path), &rows)
        {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        eprintln!("wrote {n} jobs to {path}");
    }
    let node_types: Vec<u16> = (0..125u16).map(|i| i / 42).collect();
    let job_types = JobTypes::new(
        3,
        (0..jobs.len())
            .map(|i| if i % 10 == 9 { 0b011 } else { 0b111 })
            .collect(),
        jobs.iter()
            .flat_map(|j| [j.duration, j.duration * 3 / 2, j.duration * 5 / 2])
            .collect(),
    );
    let runs: Vec<(&str, Option<TypePolicy>)> = if typed {
        vec![
            ("fifo", Some(TypePolicy::Fastest)),
            ("fifo", Some(TypePolicy::Agnostic)),
        ]
    } else if all {
        schedulers().map(|s| (s.name.as_str(), None)).collect()
    } else {
        vec![("fifo", None), ("las", None)]
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{n} synthetic jobs, 1000 GPUs (125 × 8, consolidate{}), load {}",
        if typed { ", 3 GPU types" } else { "" },
        spec.load
    );
    let mut total = 0.0;
    for (name, type_policy) in runs {
        let Some(spec) = schedulers().find(|s| s.name == name) else {
            continue;
        };
        let mut params = Params::new("bench", BTreeMap::new());
        let factory = match (spec.parse)(&mut params) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        let started = Instant::now();
        let mut sched = match factory(&SchedInit {
            jobs: &jobs,
            users: 100,
            seed: 0,
            repetition: 0,
        }) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        let input = JobSimInput {
            jobs: &jobs,
            users: 100,
            nodes: &nodes,
            cpus: &[],
            placement: Placement::Consolidate,
            backfill: false,
            restart_overhead: 0,
            record_allocations: false,
            types: type_policy.map(|policy| SimTypes {
                node_types: &node_types,
                jobs: &job_types,
                policy,
            }),
        };
        let outcome = match simulate_jobs(&input, sched.as_mut()) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        let secs = started.elapsed().as_secs_f64();
        total += secs;
        let m = match job_metrics(&jobs, 100, &outcome) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
        let label = match type_policy {
            Some(p) => format!("{name} {}", p.name()),
            None => name.to_string(),
        };
        let _ = writeln!(
            out,
            "{label:>14}: {secs:7.3} s, {:>10.0} jobs/s, {} events, {} preemptions, \
             mean JCT {:.0} s, mean queueing {:.0} s, utilisation {:.3}",
            n as f64 / secs,
            m.events,
            m.preemptions,
            m.mean_jct / 1e6,
            m.mean_queueing / 1e6,
            m.utilization
        );
    }
    let _ = writeln!(out, "     total: {total:7.3} s");
}
