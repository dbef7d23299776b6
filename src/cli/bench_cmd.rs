//! `tenantsim bench`: the arguments, turned into [`BenchOptions`].

use crate::core::error::Result;
use crate::models::bench::{BenchOptions, run_bench};

/// Command-line arguments of `tenantsim bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Only the small workloads, fewer repetitions (a few seconds).
    #[arg(long)]
    pub quick: bool,
    /// Worker threads for the repetitions; with the default, 1, the figures
    /// are per core.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
}

/// `tenantsim bench`: run the workloads and print the table on stdout.
pub fn bench(args: &BenchArgs) -> Result<()> {
    run_bench(&BenchOptions {
        quick: args.quick,
        threads: args.threads,
    })
}
