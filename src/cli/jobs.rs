//! The command line of job-trace mode: `tenantsim run` / `validate` on a
//! `mode = "jobs"` scenario or a job trace, and `tenantsim import-jobs`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::cli::RunArgs;
use crate::core::error::{Error, Result};
use crate::core::io::{Protected, prepare_target};
use crate::core::scenario::Overrides;
use crate::jobs::import::{Fractional, ImportFormat, ImportOptions, import_jobs};
use crate::jobs::report::write_job_results;
use crate::jobs::run::run_job_experiment;
use crate::jobs::scenario::{JobScenario, load_job_scenario};
use crate::jobs::trace::{JobTrace, load_job_trace, write_job_trace};

/// Arguments of `tenantsim import-jobs`.
#[derive(Debug, clap::Args)]
pub struct ImportJobsArgs {
    /// The log format.
    #[arg(value_enum)]
    pub format: ImportFormat,
    /// The log file (CSV).
    pub input: PathBuf,
    /// Where to write the neutral job CSV.
    #[arg(long, value_name = "JOBS.csv")]
    pub out: PathBuf,
    /// Alibaba: pods asking for a fraction of a GPU get a whole one, or are
    /// dropped.
    #[arg(long, value_enum, default_value_t = Fractional::Whole)]
    pub fractional: Fractional,
}

/// `tenantsim import-jobs FORMAT INPUT --out JOBS.csv`.
pub fn import_jobs_cmd(args: &ImportJobsArgs) -> Result<()> {
    let (rows, report) = import_jobs(
        args.format,
        &args.input,
        ImportOptions {
            fractional: args.fractional,
        },
    )?;
    if rows.is_empty() {
        return Err(Error::input(format!(
            "{}: no job to write ({report})",
            args.input.display()
        )));
    }
    // Validate what we write, so the output always loads.
    JobTrace::from_rows(&args.out.display().to_string(), &rows)?;
    write_job_trace(&args.out, &rows)?;
    eprintln!("{}: {report}", args.input.display());
    eprintln!("wrote {} jobs to {}", rows.len(), args.out.display());
    Ok(())
}

/// Describe a job trace.
pub fn describe_job_trace(t: &JobTrace) -> String {
    let gpus: u64 = t.jobs().iter().map(|j| u64::from(j.gpus)).sum();
    let max_gpus = t.jobs().iter().map(|j| j.gpus).max().unwrap_or(0);
    let last = t.jobs().iter().map(|j| j.submit).max().unwrap_or(0);
    format!(
        "job trace {}: {} jobs of {} users, {} GPUs requested (largest job {}), submits over {:.0} s, {:.1} GPU-hours of work",
        t.source(),
        t.len(),
        t.users().len(),
        gpus,
        max_gpus,
        last as f64 / 1e6,
        t.total_work() as f64 / 3.6e9
    )
}

/// `tenantsim validate JOBS.csv`.
pub fn validate_job_trace(path: &Path) -> Result<()> {
    let t = load_job_trace(path)?;
    eprintln!("ok: {}", describe_job_trace(&t));
    Ok(())
}

fn describe_cluster(s: &JobScenario) -> String {
    format!(
        "cluster: {} nodes, {} GPUs, placement {}{}",
        s.nodes.len(),
        s.gpus(),
        s.placement.name(),
        if s.restart_overhead > 0 {
            format!(", restart overhead {} s", s.restart_overhead as f64 / 1e6)
        } else {
            String::new()
        }
    )
}

/// `tenantsim validate SCENARIO.toml` for a job-mode scenario.
pub fn validate_job_scenario(path: &Path) -> Result<()> {
    let s = load_job_scenario(path, Overrides::default())?;
    eprintln!("ok: job scenario `{}` ({})", s.name(), path.display());
    eprintln!("  {}", describe_job_trace(&s.trace));
    eprintln!("  {}", describe_cluster(&s));
    eprintln!(
        "  seed {}, {} repetition(s){}",
        s.seed(),
        s.repetitions(),
        if s.is_randomised() {
            ", jobs sampled per repetition"
        } else {
            ""
        }
    );
    for p in &s.policies {
        eprintln!(
            "  policy `{}`: scheduler {}{}{}",
            p.name,
            p.spec.name,
            if p.spec.preemptive {
                " (preemptive)"
            } else {
                ""
            },
            if p.backfill { ", backfill" } else { "" }
        );
    }
    Ok(())
}

/// Whether the scenario at `path` says `mode = "jobs"`.
pub fn is_jobs_scenario(path: &Path) -> Result<bool> {
    Ok(crate::core::scenario::scenario_mode(path)? == crate::core::scenario::ScenarioMode::Jobs)
}

/// `tenantsim run SCENARIO.toml` for a job-mode scenario.
pub fn run_jobs(args: &RunArgs) -> Result<()> {
    let scenario = load_job_scenario(
        &args.scenario,
        Overrides {
            seed: args.seed,
            repetitions: args.reps,
            plots: args.no_plots.then_some(false),
        },
    )?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(scenario.name()));
    // Before simulating: may the results folder be replaced (see
    // `prepare_target`), and what did killed runs leave beside it?
    let mut inputs = vec![
        Protected {
            what: "the scenario file",
            path: &args.scenario,
        },
        Protected {
            what: "the job trace",
            path: &scenario.trace_path,
        },
    ];
    if let Some(nodes) = &scenario.node_list_path {
        inputs.push(Protected {
            what: "the node list",
            path: nodes,
        });
    }
    for note in prepare_target(&out, args.force, &inputs)? {
        eprintln!("warning: {note}");
    }
    let result = run_job_experiment(&scenario, args.threads.map(|t| t as usize), args.jobs)?;
    let written = write_job_results(&out, &scenario, &result, args.jobs)?;
    if crate::core::interrupt::requested() {
        return Err(Error::interrupted(format!(
            "interrupted after the results were complete: they are in {}",
            out.display()
        )));
    }
    if args.json {
        let rows: Vec<_> = result
            .runs
            .iter()
            .map(|r| {
                let m = &r.metrics;
                json!({
                    "policy": scenario.policies[r.policy].name,
                    "rep": r.rep,
                    "jobs": m.jobs,
                    "mean_jct_s": m.mean_jct / 1e6,
                    "median_jct_s": m.median_jct / 1e6,
                    "p95_jct_s": m.p95_jct / 1e6,
                    "p99_jct_s": m.p99_jct / 1e6,
                    "mean_queueing_delay_s": m.mean_queueing / 1e6,
                    "makespan_s": m.makespan as f64 / 1e6,
                    "gpu_utilization": m.utilization,
                    "jain_index": m.jain,
                    "preemptions": m.preemptions,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&json!({ "runs": rows }))
            .map_err(|e| Error::input(format!("cannot render JSON: {e}")))?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{text}")
            .map_err(|e| Error::input(format!("cannot write to stdout: {e}")))?;
    }
    if !args.quiet {
        let jobs: usize = result.runs.iter().map(|r| r.jobs).sum();
        let secs = result.wall.as_secs_f64();
        eprintln!(
            "ran `{}` (jobs mode): {} repetition(s) × {} policies, {} jobs in {:.3} s ({:.0} jobs/s) on {} thread(s)",
            scenario.name(),
            scenario.repetitions(),
            scenario.policies.len(),
            jobs,
            secs,
            jobs as f64 / secs.max(1e-9),
            result.threads
        );
        eprintln!("results in {}: {}", out.display(), written.join(", "));
    }
    Ok(())
}

/// The job-mode half of `tenantsim validate FILE`: `Some(result)` when
/// `file` is a job-mode scenario (`is_scenario`) or a job trace (a CSV
/// whose header has `job_id`), `None` to let the model-mode validator
/// handle it.
pub fn validate_if_jobs(file: &Path, is_scenario: bool) -> Option<Result<()>> {
    if is_scenario {
        return match crate::core::scenario::scenario_mode(file) {
            Ok(crate::core::scenario::ScenarioMode::Jobs) => Some(validate_job_scenario(file)),
            Ok(crate::core::scenario::ScenarioMode::Models) => None,
            Err(e) => Some(Err(e)),
        };
    }
    // Only the header line is needed to tell the kinds apart; a file that
    // cannot be read is left to the model-trace loader to report.
    let input = crate::core::io::open_input(file, "trace").ok()?;
    let mut first = Vec::new();
    std::io::BufRead::read_until(
        &mut std::io::BufReader::new(std::io::Read::take(input, 64 * 1024)),
        b'\n',
        &mut first,
    )
    .ok()?;
    let header = std::str::from_utf8(&first).ok()?;
    crate::jobs::trace::looks_like_job_trace(header).then(|| validate_job_trace(file))
}
