//! Validation of job-trace mode against the Alibaba GPU trace v2023:
//! replay the pod list under FIFO on the trace's own GPU node list and
//! compare each simulated start with the recorded `scheduled_time`.
//!
//! ```sh
//! cargo run --release --example alibaba_validation
//! cargo run --release --example alibaba_validation -- POD_LIST.csv NODE_LIST.csv
//! ```
//!
//! Defaults: `../shared/data/alibaba-gpu-v2023/openb_pod_list_default.csv`
//! and `openb_node_list_gpu_node.csv`. Prints Markdown (used verbatim in
//! `docs/VALIDATION.md`).

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;

use tenantsim::core::analysis::stats::percentile;
use tenantsim::core::io::cluster::load_node_list;
use tenantsim::jobs::import::{Fractional, ImportFormat, ImportOptions, import_jobs};
use tenantsim::jobs::policy::{Params, scheduler};
use tenantsim::jobs::sim::SchedInit;
use tenantsim::jobs::{JobSimInput, JobTrace, Placement, simulate_jobs};

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1)
}

/// Recorded `scheduled_time` per pod name.
fn recorded_starts(path: &PathBuf) -> HashMap<String, i64> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| fail(e));
    let headers = reader.headers().unwrap_or_else(|e| fail(e)).clone();
    let col = |n: &str| {
        headers
            .iter()
            .position(|h| h == n)
            .unwrap_or_else(|| fail(format!("no column {n}")))
    };
    let (name, sched) = (col("name"), col("scheduled_time"));
    let mut out = HashMap::new();
    for rec in reader.records() {
        let rec = rec.unwrap_or_else(|e| fail(e));
        if let Ok(t) = rec.get(sched).unwrap_or("").parse::<i64>() {
            out.insert(rec.get(name).unwrap_or("").to_string(), t);
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/alibaba-gpu-v2023");
    let pods = args
        .first()
        .map_or_else(|| data.join("openb_pod_list_default.csv"), PathBuf::from);
    let nodes_path = args
        .get(1)
        .map_or_else(|| data.join("openb_node_list_gpu_node.csv"), PathBuf::from);
    let nodes: Vec<u32> = load_node_list(&nodes_path)
        .unwrap_or_else(|e| fail(e))
        .capacities();
    let recorded = recorded_starts(&pods);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "Cluster: {} GPU nodes, {} GPUs (`{}`).\n",
        nodes.len(),
        nodes.iter().sum::<u32>(),
        nodes_path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
    );
    let _ = writeln!(
        out,
        "| fractional GPUs | placement | jobs | exact | within 10 s | within 60 s | within 600 s | mean error (s) | median | p90 of abs | p99 of abs | max abs | sim. mean wait (s) | recorded mean wait (s) |"
    );
    let _ = writeln!(
        out,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut peaks = Vec::new();
    for fractional in [Fractional::Whole, Fractional::Drop] {
        let (rows, _) = import_jobs(
            ImportFormat::Alibaba,
            &pods,
            ImportOptions {
                fractional,
                ..ImportOptions::default()
            },
        )
        .unwrap_or_else(|e| fail(e));
        let trace = JobTrace::from_rows("alibaba", &rows).unwrap_or_else(|e| fail(e));
        for placement in [Placement::Consolidate, Placement::Spread] {
            let spec = scheduler("fifo").unwrap_or_else(|| fail("no fifo"));
            let mut p = Params::new("validation", Default::default());
            let factory = (spec.parse)(&mut p).unwrap_or_else(|e| fail(e));
            let mut sched = factory(&SchedInit {
                jobs: trace.jobs(),
                users: trace.users().len(),
                seed: 0,
                repetition: 0,
            })
            .unwrap_or_else(|e| fail(e));
            let input = JobSimInput {
                jobs: trace.jobs(),
                users: trace.users().len(),
                nodes: &nodes,
                cpus: &[],
                placement,
                backfill: false,
                restart_overhead: 0,
                record_allocations: false,
                types: None,
            };
            let o = simulate_jobs(&input, sched.as_mut()).unwrap_or_else(|e| fail(e));
            // error = simulated start − recorded start, in µs.
            let mut errors: Vec<i64> = Vec::with_capacity(trace.len());
            let mut sim_wait = 0u128;
            let mut rec_wait = 0i128;
            for (i, j) in trace.jobs().iter().enumerate() {
                let rec = recorded
                    .get(&trace.ids()[i])
                    .copied()
                    .unwrap_or_else(|| fail(format!("{} has no scheduled_time", trace.ids()[i])));
                let rec_us = rec * 1_000_000;
                errors.push(o.first_start[i] as i64 - rec_us);
                sim_wait += u128::from(o.first_start[i] - j.submit);
                rec_wait += i128::from(rec_us - j.submit as i64);
            }
            let mut deltas: Vec<(u64, i64)> = Vec::with_capacity(2 * o.segments.len());
            for seg in o.segments.iter() {
                let seg = seg.unwrap_or_else(|e| fail(format!("the segment log: {e}")));
                deltas.push((seg.start, i64::from(seg.gpus)));
                deltas.push((seg.end, -i64::from(seg.gpus)));
            }
            deltas.sort_unstable();
            let (mut held, mut peak) = (0i64, 0i64);
            for (_, d) in deltas {
                held += d;
                peak = peak.max(held);
            }
            peaks.push(peak);
            let n = errors.len();
            let mut abs: Vec<u64> = errors.iter().map(|e| e.unsigned_abs()).collect();
            abs.sort_unstable();
            let mut signed = errors.clone();
            signed.sort_unstable();
            let within = |s: u64| {
                let k = abs.iter().filter(|&&a| a <= s * 1_000_000).count();
                format!("{:.1} %", 100.0 * k as f64 / n as f64)
            };
            let mean = errors.iter().map(|&e| e as f64).sum::<f64>() / n as f64 / 1e6;
            let median = signed[n / 2] as f64 / 1e6;
            let _ = writeln!(
                out,
                "| {} | {} | {n} | {} | {} | {} | {} | {mean:.1} | {median:.1} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} |",
                match fractional {
                    Fractional::Whole => "one whole GPU",
                    Fractional::Drop => "dropped",
                },
                placement.name(),
                within(0),
                within(10),
                within(60),
                within(600),
                percentile(&abs, 90.0) / 1e6,
                percentile(&abs, 99.0) / 1e6,
                abs[n - 1] as f64 / 1e6,
                sim_wait as f64 / n as f64 / 1e6,
                rec_wait as f64 / n as f64 / 1e6,
            );
        }
    }
    let _ = writeln!(
        out,
        "\nPeak GPUs held at once in the replays: {peaks:?} of {}.",
        nodes.iter().sum::<u32>()
    );
}
