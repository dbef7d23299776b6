//! The results folder of a job-mode run. Every file is written atomically.
//!
//! | file | content |
//! |---|---|
//! | `summary.csv` | per (policy, repetition): JCT mean / median / p95 / p99, mean queueing delay, makespan, GPU utilisation, Jain index, preemptions, events (handled by the loop, including stale completions of preempted runs) |
//! | `users.csv` | per (policy, repetition, user): jobs, mean JCT, mean slowdown, FTF ρ |
//! | `utilization.csv` | per (policy, repetition): GPUs held over time, ≤ 1000 buckets (data for the utilisation timeline plot) |
//! | `jobs.csv` (with `--jobs`) | exactly `policy,rep,job_id,user,submit_s,start_s,end_s,gpus` (data for the JCT CDF plot) |
//! | `run.json` | resolved scenario, seed, version, trace and node list, threads, wall time |
//!
//! Times are seconds with six decimals (microsecond resolution; exact for
//! submit, start, end and makespan, rounded for averages and percentiles);
//! ratios use Rust's shortest round-trip float formatting. The text is the
//! same on every machine and for any thread count.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;

use super::metrics::{user_metrics, utilization_timeline};
use super::run::JobExperiment;
use super::scenario::JobScenario;
use crate::error::Result;
use crate::io_util::{StagedDir, write_atomic};
use crate::plot::{PLOTS_DIR, PlotOptions, Source, plot_jobs};
use crate::report::csv_field;
use crate::trace::micros_to_secs_string;

/// Points of the utilisation timeline per run.
pub const UTILIZATION_POINTS: usize = 1000;

/// Seconds with six decimals (microsecond resolution) from µs.
fn secs(us: f64) -> String {
    format!("{:.6}", us / 1.0e6)
}

/// `summary.csv`.
pub fn summary_csv(scenario: &JobScenario, result: &JobExperiment) -> String {
    let mut out = String::from(
        "policy,rep,jobs,mean_jct_s,median_jct_s,p95_jct_s,p99_jct_s,mean_queueing_delay_s,\
         makespan_s,gpu_utilization,jain_index,preemptions,events\n",
    );
    for r in &result.runs {
        let m = &r.metrics;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&scenario.policies[r.policy].name),
            r.rep,
            m.jobs,
            secs(m.mean_jct),
            secs(m.median_jct),
            secs(m.p95_jct),
            secs(m.p99_jct),
            secs(m.mean_queueing),
            micros_to_secs_string(m.makespan),
            m.utilization,
            m.jain,
            m.preemptions,
            m.events
        );
    }
    out
}

/// `jobs.csv`: `policy,rep,job_id,user,submit_s,start_s,end_s,gpus`, jobs
/// in file order within each (policy, repetition); `start_s` is the first
/// start (a preempted job may run several times before `end_s`).
pub fn jobs_csv(scenario: &JobScenario, result: &JobExperiment) -> String {
    let trace = &scenario.trace;
    let mut out = String::from("policy,rep,job_id,user,submit_s,start_s,end_s,gpus\n");
    for r in &result.runs {
        let policy = csv_field(&scenario.policies[r.policy].name);
        for (k, j) in r.jobs.jobs.iter().enumerate() {
            let i = r.jobs.index[k] as usize;
            let _ = writeln!(
                out,
                "{policy},{},{},{},{},{},{},{}",
                r.rep,
                csv_field(&trace.ids()[i]),
                csv_field(&trace.users()[j.user as usize]),
                micros_to_secs_string(j.submit),
                micros_to_secs_string(r.outcome.first_start[k]),
                micros_to_secs_string(r.outcome.end[k]),
                j.gpus
            );
        }
    }
    out
}

/// `users.csv`: `policy,rep,user,jobs,mean_jct_s,mean_slowdown,ftf_rho`
/// for users with at least one job in the run.
pub fn users_csv(scenario: &JobScenario, result: &JobExperiment) -> String {
    let users = scenario.trace.users();
    let mut out = String::from("policy,rep,user,jobs,mean_jct_s,mean_slowdown,ftf_rho\n");
    for r in &result.runs {
        let policy = csv_field(&scenario.policies[r.policy].name);
        for (u, m) in user_metrics(&r.jobs.jobs, users.len(), &r.outcome)
            .iter()
            .enumerate()
            .filter(|(_, m)| m.jobs > 0)
        {
            let _ = writeln!(
                out,
                "{policy},{},{},{},{},{},{}",
                r.rep,
                csv_field(&users[u]),
                m.jobs,
                secs(m.mean_jct),
                m.mean_slowdown,
                m.ftf_rho
            );
        }
    }
    out
}

/// `utilization.csv`: `policy,rep,time_s,duration_s,busy_gpus,utilization`
/// — the time-averaged GPUs held in each bucket and that over the cluster
/// size.
pub fn utilization_csv(scenario: &JobScenario, result: &JobExperiment) -> String {
    let gpus = scenario.gpus() as f64;
    let mut out = String::from("policy,rep,time_s,duration_s,busy_gpus,utilization\n");
    for r in &result.runs {
        let policy = csv_field(&scenario.policies[r.policy].name);
        for p in utilization_timeline(&r.jobs.jobs, &r.outcome, UTILIZATION_POINTS) {
            let _ = writeln!(
                out,
                "{policy},{},{},{},{},{}",
                r.rep,
                micros_to_secs_string(p.time),
                micros_to_secs_string(p.len),
                p.busy_gpus,
                p.busy_gpus / gpus
            );
        }
    }
    out
}

/// `run.json`.
pub fn run_manifest(scenario: &JobScenario, result: &JobExperiment) -> String {
    let doc = json!({
        "tool": "tenantsim",
        "version": env!("CARGO_PKG_VERSION"),
        "mode": "jobs",
        "scenario_path": scenario.path.display().to_string(),
        "scenario": scenario.file,
        "seed": scenario.seed(),
        "repetitions": scenario.repetitions(),
        "job_trace": {
            "path": scenario.trace_path.display().to_string(),
            "sha256": scenario.trace_sha256,
            "jobs": scenario.trace.len(),
            "users": scenario.trace.users().len(),
        },
        "cluster": {
            "nodes": scenario.nodes.len(),
            "gpus": scenario.gpus(),
            "node_list": scenario.node_list_path.as_ref().map(|p| p.display().to_string()),
            "placement": scenario.placement.name(),
            "restart_overhead_us": scenario.restart_overhead,
        },
        "policies": scenario.policies.iter().map(|p| json!({
            "name": p.name,
            "scheduler": p.spec.name,
            "preemptive": p.spec.preemptive,
            "backfill": p.backfill,
        })).collect::<Vec<_>>(),
        "threads": result.threads,
        "wall_time_s": result.wall.as_secs_f64(),
        // What may differ between two runs of the same scenario: paths as
        // given on the command line (they change with the working
        // directory) and measurements of the run.
        "varying_fields": [
            "scenario_path",
            "job_trace.path",
            "cluster.node_list",
            "threads",
            "wall_time_s",
        ],
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}

/// Write the results folder `dir`; returns the names of the files written.
/// Like model mode, the folder is staged and moved into place complete.
pub fn write_job_results(
    dir: &Path,
    scenario: &JobScenario,
    result: &JobExperiment,
    with_jobs: bool,
) -> Result<Vec<&'static str>> {
    let staged = StagedDir::new(dir)?;
    let tmp = staged.path().to_path_buf();
    let mut written = Vec::new();
    let mut texts: Vec<(&'static str, String)> = Vec::new();
    let mut put = |name: &'static str, text: String| -> Result<()> {
        write_atomic(&tmp.join(name), text.as_bytes())?;
        written.push(name);
        texts.push((name, text));
        Ok(())
    };
    put("summary.csv", summary_csv(scenario, result))?;
    put("users.csv", users_csv(scenario, result))?;
    put("utilization.csv", utilization_csv(scenario, result))?;
    if with_jobs {
        put("jobs.csv", jobs_csv(scenario, result))?;
    }
    put("run.json", run_manifest(scenario, result))?;
    if scenario.file.output.plots {
        let texts: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (*n, t.as_str())).collect();
        let mut src = Source::texts(dir, &texts);
        src.name = Some(scenario.name().to_string());
        plot_jobs(&src, &tmp.join(PLOTS_DIR), &PlotOptions::default())?;
        written.push("plots/");
    }
    staged.commit()?;
    Ok(written)
}
