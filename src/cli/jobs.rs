//! The command line of job-trace mode: `tenantsim import-jobs` (`run` and
//! `validate` on a job scenario or trace are [`crate::run`]'s).

use std::path::PathBuf;

use super::out_file::{check_not_an_input, named};
use crate::core::error::{Error, Result};
use crate::jobs::import::gavel::GavelOptions;
use crate::jobs::import::{Fractional, ImportFormat, ImportOptions, import_jobs};
use crate::jobs::trace::{JobTrace, write_job_trace};

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
    let inputs =
        named("the log", [&args.input]).chain(named("the --throughputs file", &args.throughputs));
    check_not_an_input("--out", &args.out, inputs)?;
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
