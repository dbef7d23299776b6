//! Workflow speed (DESIGN §14): one repetition of 100,000 ML-pipeline
//! workflows of 20 steps (ingest → preprocess → featurise → 16 training
//! trials → evaluate) on 2,048 GPUs and 32,768 CPUs (256 nodes × 8 GPUs
//! × 128 CPUs; each step holds 4 CPUs), under FIFO, with an
//! `lru` memo cache, failures on the trials and retries. Prints the wall
//! time of the simulation and the process's peak resident memory
//! (`VmHWM`). The target (issue 30) is under 30 s and 4 GB in a release
//! build.
//!
//! ```sh
//! cargo bench --bench workflows
//! cargo bench --bench workflows -- --workflows 2000 --scheduler las
//! cargo bench --bench workflows -- --cache off --resume from-scratch
//! ```
//!
//! The trace (seeded, `core::sim::rng` stream (42, 0, generator)): 200
//! tenants, each with 4 data sets; a workflow picks its tenant and data
//! set uniformly; ingest, preprocess and featurise are keyed by the data
//! set (so pipelines on one data set share them); each trial is keyed by
//! (data set, one of 32 configurations), so re-runs hit. Runtimes: ingest
//! 60 s, preprocess 120 s, featurise 180 s, trials exp(mean 600 s) with 1
//! or 2 GPUs, evaluate 60 s; outputs 1–4 GB (prefix) and 100 MB
//! (trials). Submissions are Poisson at 60 % offered load of the GPUs.
//! Only the simulation is timed (not generating or checking the trace).

use std::io::Write as _;
use std::time::Instant;

use rand::Rng;
use tenantsim::core::params::Params;
use tenantsim::core::sim::rng::{Purpose, stream, unit};
use tenantsim::core::sim::time::Micros;
use tenantsim::jobs::Placement;
use tenantsim::jobs::policy::registry::scheduler;
use tenantsim::shared::sim::{ClusterInput, SharedInput, WorkflowsInput, simulate_shared};
use tenantsim::workflows::trace::StepRow;
use tenantsim::workflows::{
    CacheConfig, CacheRule, ParallelRule, Resume, RetryConfig, Scope, WorkflowTrace,
};

/// CPUs per node (DESIGN §14.6): 32,768 CPUs in all, counted.
const CPUS_PER_NODE: u32 = 128;

#[path = "common/rss.rs"]
mod rss;
use rss::peak_rss_mb;

fn rows(n: usize) -> Vec<StepRow> {
    let mut rng = stream(42, 0, Purpose::Generator);
    let mut out = Vec::with_capacity(n * 20);
    // Mean GPU-seconds of a workflow: 360 + 16 × 600 × 1.5 + 60.
    let work = 360.0 + 16.0 * 600.0 * 1.5 + 60.0;
    let rate = 0.6 * 2048.0 / work;
    let mut t = 0.0f64;
    for w in 0..n {
        t += -(1.0 - unit(&mut rng)).ln() / rate;
        let tenant = rng.gen_range(0..200u32);
        let data = rng.gen_range(0..4u32);
        let ds = format!("t{tenant}d{data}");
        let wid = format!("w{w}");
        let ten = format!("t{tenant}");
        let mut push = |step: &str,
                        parents: Vec<String>,
                        rt: f64,
                        gpus: u32,
                        key: String,
                        bytes: u64,
                        p: f64| {
            out.push(StepRow {
                workflow: wid.clone(),
                tenant: ten.clone(),
                submit_s: (t * 1e6).round() / 1e6,
                step: step.into(),
                parents,
                runtime_s: rt,
                type_runtimes: Vec::new(),
                gpus,
                cpus: 4,
                cache_key: key,
                output_bytes: bytes,
                deadline_s: None,
                failure_p: p,
                parallel: false,
            });
        };
        push(
            "ingest",
            vec![],
            60.0,
            1,
            format!("{ds}/ingest"),
            4 << 30,
            0.0,
        );
        push(
            "prep",
            vec!["ingest".into()],
            120.0,
            1,
            format!("{ds}/prep"),
            2 << 30,
            0.0,
        );
        push(
            "feat",
            vec!["prep".into()],
            180.0,
            1,
            format!("{ds}/feat"),
            1 << 30,
            0.0,
        );
        let mut trials = Vec::with_capacity(16);
        for k in 0..16 {
            let cfg = rng.gen_range(0..32u32);
            let rt = (-(1.0 - unit(&mut rng)).ln() * 600.0).max(1.0).round();
            let gpus = 1 + u32::from(unit(&mut rng) < 0.5);
            let name = format!("trial{k}");
            push(
                &name,
                vec!["feat".into()],
                rt,
                gpus,
                format!("{ds}/cfg{cfg}"),
                100 << 20,
                0.02,
            );
            trials.push(name);
        }
        push("eval", trials, 60.0, 1, String::new(), 1 << 20, 0.0);
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let n: usize = value("--workflows")
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let sched = value("--scheduler").unwrap_or_else(|| "fifo".to_string());
    let rule = value("--cache")
        .and_then(|v| CacheRule::parse(&v))
        .unwrap_or(CacheRule::Lru);
    let resume = match value("--resume").as_deref() {
        Some("from-scratch") => Resume::FromScratch,
        _ => Resume::Cached,
    };
    let trace = match WorkflowTrace::from_rows("bench", &rows(n)) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let Some(entry) = scheduler(&sched) else {
        eprintln!("error: no cluster scheduler `{sched}`");
        std::process::exit(1);
    };
    let factory = match (entry.parse)(&mut Params::new(&sched, Default::default())) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let nodes = vec![8u32; 256];
    let cpus = vec![CPUS_PER_NODE; 256];
    let input = SharedInput {
        cluster: ClusterInput {
            nodes: &nodes,
            cpus: &cpus,
            node_types: &[],
            types: 1,
            placement: Placement::Consolidate,
            backfill: false,
            restart_overhead: 0,
            round: None,
            record_allocations: false,
        },
        background: None,
        service: None,
        workflows: Some(WorkflowsInput {
            trace: &trace,
            load: 1.0,
            horizon: None,
            cache: CacheConfig {
                capacity_bytes: 2 << 40,
                max_age: 7 * 86_400 * 1_000_000 as Micros,
                restore: 5_000_000,
                bandwidth_bytes_per_s: 1 << 30,
                scope: Scope::Tenant,
            },
            cache_rule: rule.clone(),
            retry: RetryConfig {
                max_retries: 2,
                backoff: 30_000_000,
                resume,
            },
            parallel: ParallelRule::Off,
            split_overhead: 0,
            failure_p: None,
            keep_jobs: false,
        }),
    };
    let t = Instant::now();
    let result = simulate_shared(&input, &factory, 1, 0, None);
    let secs = t.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    match result {
        Ok(o) => {
            let Some(w) = o.workflows else {
                eprintln!("error: no workflows outcome");
                std::process::exit(1);
            };
            let done = w
                .workflows
                .iter()
                .filter(|r| r.state.name() == "done")
                .count();
            let _ = writeln!(
                out,
                "{n} workflows x 20 steps, 2048 GPUs, {} CPUs, {sched}, cache {}, resume {}: {secs:.2} s  peak RSS {:.0} MB  done {done}  hits {}  misses {}  evicted {}  end {:.1} h  GPU util {:.3}  CPU util {:.3}",
                o.cpus,
                rule.name(),
                resume.name(),
                peak_rss_mb(),
                w.cache.hits,
                w.cache.misses,
                w.cache.evicted,
                w.end as f64 / 3.6e9,
                w.busy_gpu_us as f64 / (2048.0 * w.end as f64),
                w.busy_cpu_us as f64 / (o.cpus.max(1) as f64 * w.end as f64),
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
