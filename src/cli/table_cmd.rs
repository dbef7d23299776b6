//! `tenantsim table RESULTS`.

use std::path::PathBuf;

use clap::Args;

use crate::core::error::Result;
use crate::plot::table::{TableFormat, TableOptions, table_of};

/// Arguments of `tenantsim table`.
#[derive(Debug, Args)]
pub struct TableArgs {
    /// The results folder written by `tenantsim run` (model mode, job mode
    /// or a sweep).
    pub results: PathBuf,
    /// Output syntax.
    #[arg(long, value_enum, default_value_t = TableFormat::Latex)]
    pub format: TableFormat,
    /// Model mode: a column group, `time`, `speedup` or `regret`; job mode
    /// and sweeps: a summary.csv / sweep.csv column (repeatable)
    /// [default: all groups; the JCT columns; regret_mean, time_to_*,
    /// speedup_*].
    #[arg(long, value_name = "NAME")]
    pub metric: Vec<String>,
    /// Decimals of every number (the CSVs' values, rounded).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=12))]
    pub digits: u8,
    /// Write the table to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file (without it, an existing file is
    /// left alone and the command fails).
    #[arg(long, requires = "out")]
    pub force: bool,
}

/// Print or write the table.
pub fn table(args: &TableArgs) -> Result<()> {
    let opts = TableOptions {
        format: args.format,
        metrics: args.metric.clone(),
        digits: usize::from(args.digits),
    };
    let text = table_of(&args.results, &opts)?;
    super::report_cmd::write_or_print(args.out.as_deref(), args.force, text.as_bytes(), "table")
}
