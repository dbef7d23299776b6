//! The command line of job-trace mode: `tenantsim run` / `validate` on a
//! `mode = "jobs"` scenario or a job trace, and `tenantsim import-jobs`.

use std::path::{Path, PathBuf};

use crate::core::error::{Error, Result};
use crate::core::scenario::Overrides;
use crate::jobs::import::gavel::GavelOptions;
use crate::jobs::import::{Fractional, ImportFormat, ImportOptions, import_jobs};
use crate::jobs::scenario::{JobScenario, load_job_plan};
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
    /// Gavel: the throughput table (`simulation_throughputs.json`).
    #[arg(long, value_name = "FILE")]
    pub throughputs: Option<PathBuf>,
    /// Gavel: worker types to write `duration_s.<type>` columns for, in
    /// order; the first one's duration is `duration_s` (default
    /// v100,p100,k80).
    #[arg(long, value_name = "TYPES", value_delimiter = ',')]
    pub worker_types: Vec<String>,
}

/// `tenantsim import-jobs FORMAT INPUT --out JOBS.csv`.
pub fn import_jobs_cmd(args: &ImportJobsArgs) -> Result<()> {
    if args.format != ImportFormat::Gavel
        && (args.throughputs.is_some() || !args.worker_types.is_empty())
    {
        return Err(Error::input(
            "--throughputs and --worker-types are for `import-jobs gavel` only",
        ));
    }
    let (rows, report) = import_jobs(
        args.format,
        &args.input,
        ImportOptions {
            fractional: args.fractional,
            gavel: GavelOptions {
                throughputs: args.throughputs.clone(),
                worker_types: args.worker_types.clone(),
            },
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
    for note in &report.notes {
        eprintln!("warning: {note}");
    }
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
    ) + &if t.type_columns().is_empty() {
        String::new()
    } else {
        format!(
            ", durations per GPU type for {}",
            t.type_columns().join(", ")
        )
    }
}

/// `tenantsim validate JOBS.csv`: the description it prints.
pub fn validate_job_trace(path: &Path) -> Result<String> {
    let t = load_job_trace(path)?;
    Ok(format!("ok: {}\n", describe_job_trace(&t)))
}

fn describe_cluster(s: &JobScenario) -> String {
    let types = if s.cluster.is_typed() {
        let per: Vec<String> = s
            .cluster
            .types()
            .iter()
            .enumerate()
            .map(|(t, name)| format!("{name} {}", s.cluster.gpus_of_type(t as u16)))
            .collect();
        format!(" ({})", per.join(", "))
    } else {
        String::new()
    };
    format!(
        "cluster: {} nodes, {} GPUs{types}, placement {}{}{}",
        s.nodes.len(),
        s.gpus(),
        s.placement.name(),
        if s.restart_overhead > 0 {
            format!(", restart overhead {} s", s.restart_overhead as f64 / 1e6)
        } else {
            String::new()
        },
        match s.round {
            Some(r) => format!(", in rounds of {} s", r as f64 / 1e6),
            None => String::new(),
        }
    )
}

/// `tenantsim validate SCENARIO.toml` for a job-mode scenario (every
/// point of its `[sweep]`, if any): the description it prints.
pub fn validate_job_scenario(path: &Path) -> Result<String> {
    let plan = load_job_plan(path, Overrides::default())?;
    Ok(super::validate_cmd::describe_plan(
        "job scenario",
        path,
        &plan,
        JobScenario::name,
        describe_job_scenario,
    ))
}

/// Append `args` and a newline to `text`.
pub(super) fn line(text: &mut String, args: std::fmt::Arguments<'_>) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = text.write_fmt(args);
    text.push('\n');
}

fn describe_job_scenario(text: &mut String, s: &JobScenario) {
    line(text, format_args!("  {}", describe_job_trace(&s.trace)));
    line(text, format_args!("  {}", describe_cluster(s)));
    line(
        text,
        format_args!(
            "  seed {}, {} repetition(s){}",
            s.seed(),
            s.repetitions(),
            if s.is_randomised() {
                ", jobs sampled per repetition"
            } else {
                ""
            }
        ),
    );
    for p in &s.policies {
        line(
            text,
            format_args!(
                "  policy `{}`: scheduler {}{}{}",
                p.name,
                p.spec.name,
                if p.spec.preemptive {
                    " (preemptive)"
                } else {
                    ""
                },
                if p.backfill { ", backfill" } else { "" }
            ),
        );
        if p.spec.needs_rounds {
            text.pop();
            line(
                text,
                format_args!(", time-sliced in rounds, chooses GPU types itself"),
            );
        } else if s.cluster.is_typed() {
            text.pop();
            line(text, format_args!(", type policy {}", p.type_policy.name()));
        }
    }
    for w in &s.type_warnings {
        line(text, format_args!("  warning: {w}"));
    }
}

/// The job-mode half of `tenantsim validate FILE`: `Some(result)` when
/// `file` is a job-mode scenario (`is_scenario`) or a job trace (a CSV
/// whose header has `job_id`), `None` to let the model-mode validator
/// handle it.
pub fn validate_if_jobs(file: &Path, is_scenario: bool) -> Option<Result<String>> {
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
