//! Shared-cluster speed (DESIGN §13): one repetition of 10,000 service
//! tenants × 20 models (a SYN trace, greedy + cost-aware GP-UCB, the
//! `scale` scenario's policies, 1,000 prior users) beside 100,000
//! background jobs on 2,048 GPUs (256 nodes × 8), under FIFO, with the
//! service at priority `equal` and at `low`. Prints the wall time of the
//! simulation and the process's peak resident memory (`VmHWM`).
//!
//! ```sh
//! cargo bench --bench shared_cluster                      # equal and low
//! cargo bench --bench shared_cluster -- --tenants 2000 --jobs 20000
//! cargo bench --bench shared_cluster -- --load 0.9 --scheduler las
//! ```
//!
//! The background (`tenantsim::jobs::synthetic`): Poisson arrivals at 60 %
//! offered load of the 2,048 GPUs, 1/2/4/8-GPU jobs, heavy-tailed durations
//! with a mean of 30 minutes, 100 users, seed 42. The service's runtimes
//! are lognormal(6, 1) seconds (median 7 minutes); every tenant arrives at
//! 0. Only the simulation is timed (not generating the traces or building
//! the GP prior).

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::params::Params;
use tenantsim::jobs::Placement;
use tenantsim::jobs::policy::registry::scheduler;
use tenantsim::jobs::sim::TypePolicy;
use tenantsim::jobs::synthetic::{SyntheticSpec, synthetic_jobs};
use tenantsim::models::scenario::parse_scenario;
use tenantsim::models::sim::{RepContext, SimInput};
use tenantsim::shared::sim::{
    BackgroundInput, ClusterInput, Preempt, Priority, ServiceInput, SharedInput, simulate_shared,
};

#[path = "common/rss.rs"]
mod rss;
use rss::peak_rss_mb;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let tenants: usize = value("--tenants")
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let n_jobs: usize = value("--jobs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let load: f64 = value("--load").and_then(|v| v.parse().ok()).unwrap_or(0.6);
    let cluster_name = value("--scheduler").unwrap_or_else(|| "fifo".to_string());
    let prior = 1000;
    let text = format!(
        r#"name = "shared-bench"
seed = 1
repetitions = 1
thresholds = [0.05]
fairness = false
[trace.syn]
users = {}
models = 20
model_sd = 0.1
user_sd = 0.05
cost = "lognormal(6,1)"
seed = 1
[split]
prior_count = {prior}
[cluster]
gpus = 2048
[[policy]]
name = "ease.ml"
scheduler = "greedy"
selector = "gp-ucb-cost"
"#,
        tenants + prior
    );
    let scenario = match parse_scenario(Path::new("shared-bench.toml"), &text, Overrides::default())
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let nodes = vec![8u32; 256];
    let jobs = synthetic_jobs(&SyntheticSpec {
        jobs: n_jobs,
        cluster_gpus: 2048,
        load,
        mean_duration_s: 1800.0,
        users: 100,
        seed: 42,
    });
    let split = scenario.split.resolve(1, 0);
    let arrivals = vec![0; split.tenants.len()];
    let Some(entry) = scheduler(&cluster_name) else {
        eprintln!("error: no cluster scheduler `{cluster_name}`");
        std::process::exit(1);
    };
    let factory = match (entry.parse)(&mut Params::new(&cluster_name, Default::default())) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{} service tenants x 20 models, {n_jobs} background jobs at load {load}, 2048 GPUs, cluster scheduler {cluster_name}",
        split.tenants.len()
    );
    for priority in [Priority::Equal, Priority::Low] {
        let ctx = RepContext {
            trace: &scenario.trace,
            gpu_types: &scenario.gpu_types,
            tenants: &split.tenants,
            prior: &split.prior,
            seed: 1,
            repetition: 0,
        };
        let p = &scenario.policies[0];
        let (mut a, mut b) = match ((p.make_scheduler)(&ctx), (p.make_selector)(&ctx)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
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
            background: Some(BackgroundInput {
                jobs: &jobs,
                users: 100,
                types: None,
                type_policy: TypePolicy::Agnostic,
            }),
            service: Some(ServiceInput {
                sim: SimInput {
                    trace: &scenario.trace,
                    tenants: &split.tenants,
                    arrivals: &arrivals,
                    config: scenario.config,
                    gpu_types: &scenario.gpu_types,
                },
                max_gpus: 2048,
                gpus_per_job: 1,
                priority,
                preempt: Preempt::Checkpoint,
                // As `tenantsim run` without `--jobs`.
                keep_segments: false,
            }),
            workflows: None,
        };
        let t = Instant::now();
        let result = simulate_shared(&input, &factory, 1, 0, Some((a.as_mut(), b.as_mut())));
        let secs = t.elapsed().as_secs_f64();
        match result {
            Ok(o) => {
                let svc = o.service.as_ref().map_or(0, |s| s.jobs.len());
                let bg_end = o.background.as_ref().map_or(0, |b| b.end_time);
                let _ = writeln!(
                    out,
                    "priority {:<5}  {secs:>7.2} s  peak RSS {:>7.0} MB  service jobs {svc}  preemptions {}  background end {:.0} h",
                    priority.name(),
                    peak_rss_mb(),
                    o.service_preemptions
                        .iter()
                        .map(|&x| u64::from(x))
                        .sum::<u64>(),
                    bg_end as f64 / 3.6e9
                );
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
}
