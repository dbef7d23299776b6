//! `tenantsim run SCENARIO`.

use std::path::PathBuf;

use super::RunArgs;
use crate::error::Result;
use crate::experiment::{RunOptions, run_experiment};
use crate::report::{ReportOptions, write_results};
use crate::scenario::{Overrides, load_scenario};

/// Run a scenario and write its results folder.
pub fn run(args: &RunArgs) -> Result<()> {
    crate::interrupt::install_handler();
    if crate::jobs::cli::is_jobs_scenario(&args.scenario)? {
        return crate::jobs::cli::run_jobs(args);
    }
    let scenario = load_scenario(
        &args.scenario,
        Overrides {
            seed: args.seed,
            repetitions: args.reps,
        },
    )?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(scenario.name()));
    let result = run_experiment(
        &scenario,
        RunOptions {
            threads: args.threads.map(|t| t as usize),
        },
    )?;
    let written = write_results(&out, &scenario, &result, ReportOptions { jobs: args.jobs })?;
    if !args.quiet {
        eprintln!(
            "ran `{}`: {} repetition(s) × {} policies in {:.3} s on {} thread(s)",
            scenario.name(),
            scenario.repetitions(),
            scenario.policies.len(),
            result.wall.as_secs_f64(),
            result.threads
        );
        eprintln!("results in {}: {}", out.display(), written.join(", "));
    }
    Ok(())
}
