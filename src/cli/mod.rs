//! The command line: raw arguments (clap) turned into calls of the library.

mod check_cmd;
mod progress;
mod run_cmd;
mod validate_cmd;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::error::Result;

/// tenantsim: simulate a GPU cluster shared by many users who each search
/// for their best model, and compare allocation policies by regret.
#[derive(Debug, Parser)]
#[command(name = "tenantsim", version, about, long_about = None)]
#[command(after_help = "Start with: tenantsim run scenarios/quickstart.toml\n\
Exit codes: 0 ok, 1 input or runtime error, 2 usage error.")]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario (or every point of its [sweep]) and write its results
    /// folder (summary.csv, curves.csv, speedups.csv, regret.csv, run.json,
    /// and jobs.csv with --jobs; a sweep adds sweep.csv and one folder per
    /// grid point).
    Run(RunArgs),
    /// Check a trace (.csv) or a scenario (.toml) and describe it.
    Validate(ValidateArgs),
    /// Convert a published results table (LCDB, Fernández-Delgado, ease.ml
    /// matrices, ASlib) into a canonical trace CSV.
    Import(crate::trace::ImportArgs),
    /// Generate a synthetic trace.
    #[command(subcommand)]
    Gen(GenCommand),
    /// Compare a results folder with golden results; exit 1 on any drift.
    Check(CheckArgs),
    /// Convert a GPU-cluster job log (Alibaba v2023, Philly, Helios) into a
    /// job trace CSV for job-trace mode.
    ImportJobs(crate::jobs::cli::ImportJobsArgs),
    /// Time built-in workloads (generated in memory): events, wall time and
    /// events per second, one line per workload.
    Bench(crate::bench::BenchArgs),
}

/// Generators of `tenantsim gen`.
#[derive(Debug, Subcommand)]
pub enum GenCommand {
    /// The ease.ml synthetic workload: model means a_k ~ N(0.5, S²), user
    /// accuracies ~ N(a_k, U²) clipped to [0, 1], costs from a distribution.
    Syn(crate::trace::GenSynArgs),
}

/// Arguments of `tenantsim check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The results folder to check (its summary.csv).
    pub results: PathBuf,
    /// The golden results folder to compare against.
    #[arg(long, value_name = "GOLDEN_DIR")]
    pub against: PathBuf,
    /// Relative tolerance: |x − g| ≤ atol + rtol·|g| passes.
    #[arg(long, default_value_t = 1e-9, value_name = "R")]
    pub rtol: f64,
    /// Absolute tolerance.
    #[arg(long, default_value_t = 1e-12, value_name = "A")]
    pub atol: f64,
}

/// Arguments of `tenantsim run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Results folder [default: results/<scenario name>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write jobs.csv with every job of every run.
    #[arg(long)]
    pub jobs: bool,
    /// Worker threads [default: all cores]. Results do not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Replace the scenario's seed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Replace the scenario's number of repetitions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: Option<u32>,
    /// Print nothing on stderr but errors (no progress bar, no summary).
    #[arg(long)]
    pub quiet: bool,
    /// Print the summary as one JSON document on stdout (instead of the
    /// table on stderr).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `tenantsim validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// A trace CSV or a scenario TOML (told apart by the `.toml` extension).
    pub file: PathBuf,
}

/// Execute a parsed command line.
pub fn execute(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(args) => run_cmd::run(&args),
        Command::Validate(args) => validate_cmd::validate(&args),
        Command::Import(args) => {
            let report = crate::trace::run_import(&args)?;
            eprintln!("{report}");
            Ok(())
        }
        Command::Gen(GenCommand::Syn(args)) => {
            let report = crate::trace::run_gen_syn(&args)?;
            eprintln!("{report}");
            Ok(())
        }
        Command::Check(args) => check_cmd::check(&args),
        Command::ImportJobs(args) => crate::jobs::cli::import_jobs_cmd(&args),
        Command::Bench(args) => crate::bench::run_bench(&args),
    }
}
