//! `tenantsim whatif RESULTS --at T (--policy NAME | --gpus ±N)`: fork a
//! finished run at simulated time T and compare the continuations (DESIGN
//! §15.4); a thin shell over [`crate::models::experiment::whatif`].

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::core::error::{Error, Result};
use crate::models::experiment::whatif::run_what_if;
use crate::registry::Registry;

/// Arguments of `tenantsim whatif`.
#[derive(Debug, Args)]
#[command(
    group = clap::ArgGroup::new("change").required(true).args(["policy", "gpus"]),
    after_help = "Each policy of the scenario runs repetition R up to the first decision point \
at or after T (every decision its scheduler's), is forked there, and goes on once unchanged \
(DIR/baseline) and once with the change (DIR/changed): the usual results files, one repetition, \
jobs.csv included, and DIR/whatif.json saying where each fork was. --gpus adds GPUs at the fork \
or removes free ones (busy GPUs are never removed); only on a cluster of identical GPUs \
(`[cluster] gpus`). A table comparing the continuations goes to stdout."
)]
pub struct WhatifArgs {
    /// A model-mode results folder written by `tenantsim run` (its run.json
    /// names the scenario; relative paths resolve as at the run).
    pub results: PathBuf,
    /// Simulated time of the fork, seconds (the first decision point at or
    /// after it).
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub at: f64,
    /// Continue with the scenario's policy NAME from the fork on.
    #[arg(long, value_name = "NAME")]
    pub policy: Option<String>,
    /// Add (+N) or remove (-N) GPUs at the fork.
    #[arg(long, value_name = "±N", allow_negative_numbers = true)]
    pub gpus: Option<i64>,
    /// The repetition to fork.
    #[arg(long, value_name = "R", default_value_t = 0)]
    pub rep: u64,
    /// The folder to write, which must not exist [default:
    /// RESULTS/whatif-repR-atT-CHANGE, e.g. whatif-rep0-at5-gpus+1].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Fork, continue, write both folders, print the comparison.
pub fn whatif(args: &WhatifArgs, registry: &Registry) -> Result<()> {
    crate::core::interrupt::install_handler();
    let (result, dir) = run_what_if(
        &args.results,
        args.at,
        args.policy.as_deref(),
        args.gpus,
        args.rep,
        args.out.as_deref(),
        &registry.models,
    )?;
    eprintln!(
        "what-if of {} (repetition {}): {}; results in {}: baseline/, changed/, whatif.json",
        args.results.display(),
        args.rep,
        result.change.describe(&result.scenario),
        dir.display()
    );
    std::io::stdout()
        .lock()
        .write_all(result.table().as_bytes())
        .map_err(|e| Error::stdout("the comparison", &e))
}
