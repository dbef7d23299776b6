//! The command line: raw arguments (clap) turned into calls of the library.
//!
//! [`main_with`] is the whole `tenantsim` command with the policies of a
//! registry: `src/main.rs` passes the built-ins, a policy author's binary
//! passes its own (`examples/custom_policy.rs`) and gets every subcommand.

mod args;
mod bench_cmd;
mod cache_cmd;
mod check_cmd;
mod choices;
mod compare_cmd;
mod gen_cmd;
mod import_cmd;
pub mod jobs;
mod out_file;
mod plot_cmd;
mod progress;
mod report_cmd;
mod run_cmd;
mod schema_cmd;
mod slurm_cmd;
mod table_cmd;
mod whatif_cmd;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use crate::core::error::Result;
use crate::registry::Registry;

pub use args::{
    CheckArgs, Cli, Command, GenCommand, MergeArgs, PlotArgs, ReportFormat, RunArgs, ValidateArgs,
};
pub use bench_cmd::BenchArgs;
pub use cache_cmd::{CacheAction, CacheArgs, PruneArgs};
pub use compare_cmd::CompareArgs;
pub use gen_cmd::{GenSynArgs, GenWorkflowsArgs};
pub use import_cmd::{ImportArgs, ImportWorkflowsArgs, WorkflowFormat};
pub use slurm_cmd::{SlurmArgs, write_slurm_scripts};
pub use whatif_cmd::WhatifArgs;

/// Execute a parsed command line with the built-in policies.
pub fn execute(cli: Cli) -> Result<()> {
    execute_with(cli, &Registry::builtin())
}

/// Execute a parsed command line; every subcommand that loads a scenario
/// (`run`, `merge`, `validate`, `slurm`, `whatif`) knows the policies of `registry`.
/// `plot`, `table`, `check`, `compare` and `report` read results folders
/// and load no scenario.
pub fn execute_with(cli: Cli, registry: &Registry) -> Result<()> {
    match cli.command {
        Command::Run(args) => run_cmd::run(&args, registry),
        Command::Validate(args) => run_cmd::validate(&args, registry),
        Command::Import(args) => import_cmd::import(&args),
        Command::Gen(GenCommand::Syn(args)) => gen_cmd::gen_syn(&args),
        Command::Gen(GenCommand::Workflows(args)) => gen_cmd::gen_workflows(&args),
        Command::ImportWorkflows(args) => import_cmd::import_workflows(&args),
        Command::Check(args) => check_cmd::check(&args),
        Command::Compare(args) => compare_cmd::compare(&args),
        Command::ImportJobs(args) => jobs::import_jobs_cmd(&args),
        Command::Bench(args) => bench_cmd::bench(&args),
        Command::Plot(args) => plot_cmd::plot(&args),
        Command::Schema(args) => schema_cmd::schema(&args),
        Command::Table(args) => table_cmd::table(&args),
        Command::Report(args) => report_cmd::report(&args),
        Command::Merge(args) => run_cmd::merge(&args, registry),
        Command::Slurm(args) => slurm_cmd::slurm(&args, registry),
        Command::Cache(args) => cache_cmd::cache(&args),
        Command::Whatif(args) => whatif_cmd::whatif(&args, registry),
    }
}

/// The `tenantsim` command with the policies of `registry`, on this
/// process's arguments: a policy author's `main` is
/// `fn main() -> ExitCode { tenantsim::cli::main_with(registry) }`.
pub fn main_with(registry: Registry) -> ExitCode {
    main_from(&registry, std::env::args_os())
}

/// [`main_with`] on the given arguments (the first is the program's name):
/// parse them, run the subcommand, print the error, and return the exit
/// code (0 ok, 1 input or runtime error, 2 usage error, 128 + n after
/// signal n). A closed standard output (`run --json | head`) ends quietly
/// with 0.
pub fn main_from<I, T>(registry: &Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // What clap's `Error::exit` does, without leaving the process:
            // help and version on stdout (code 0), a usage error on stderr
            // (code 2).
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    exit_code(execute_with(cli, registry))
}

/// The exit code of a command's result, its error printed on stderr.
fn exit_code(result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_output_closed() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(1))
        }
    }
}
