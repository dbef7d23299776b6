//! `tenantsim table RESULTS`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::out_file::{Input, check_out_file};
use crate::core::error::{Error, Result};
use crate::core::io::write_atomic;
use crate::present::table::{Precision, TableFormat, TableOptions, table_of};

/// Arguments of `tenantsim table`.
#[derive(Debug, Args)]
pub struct TableArgs {
    /// The results folder written by `tenantsim run` (model mode, job mode
    /// or a sweep).
    pub results: PathBuf,
    /// Output syntax.
    #[arg(long, value_enum, default_value_t = TableFormat::Latex)]
    pub format: TableFormat,
    /// Model mode: a column group, `regret` (the mean and its interval),
    /// `ratio` (regret / the baseline's), `time` (T(θ) per θ) or `speedup`;
    /// job mode: a summary.csv column or `ratio` (mean JCT / the
    /// baseline's); sweeps: a sweep.csv column (repeatable) [default: model
    /// mode regret (no interval), ratio, time; job mode mean_jct_s,
    /// makespan_s, ratio; sweeps regret_mean, time_to_*, speedup_* or
    /// mean_jct_s, makespan_s, speedup].
    #[arg(long, value_name = "NAME")]
    pub metric: Vec<String>,
    /// Significant digits of every number [default: 3; CSV: full
    /// precision]. A non-zero value never prints as zero.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=17))]
    pub sig_digits: Option<u8>,
    /// Fixed decimals instead of significant digits (a non-zero value that
    /// would print as zero gets one significant digit).
    #[arg(long, value_name = "N", conflicts_with = "sig_digits", value_parser = clap::value_parser!(u8).range(0..=12))]
    pub digits: Option<u8>,
    /// Write the table to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file (without it, an existing file is
    /// left alone and the command fails); never a file of RESULTS that the
    /// table reads.
    #[arg(long, requires = "out")]
    pub force: bool,
}

/// Print or write the table.
pub fn table(args: &TableArgs) -> Result<()> {
    let opts = TableOptions {
        format: args.format,
        metrics: args.metric.clone(),
        precision: match (args.sig_digits, args.digits) {
            (Some(n), _) => Some(Precision::Significant(usize::from(n))),
            (None, Some(d)) => Some(Precision::Decimals(usize::from(d))),
            (None, None) => None,
        },
    };
    let inputs = [Input {
        what: "the results folder",
        dir: &args.results,
    }];
    if let Some(out) = &args.out {
        // Checked before the table is made: a refusal computes nothing.
        check_out_file("--out", out, args.force, None, &inputs)?;
    }
    let text = table_of(&args.results, &opts)?;
    match &args.out {
        Some(out) => write_atomic(out, text.as_bytes()),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| Error::stdout("the table", &e))
        }
    }
}
