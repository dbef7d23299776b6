//! `tenantsim report RESULTS`.

use std::path::PathBuf;

use clap::Args;

use crate::core::error::Result;
use crate::core::io::write_atomic;
use crate::present::report::{GENERATOR, report_html};

use super::out_file::{Input, check_out_file};

/// Arguments of `tenantsim report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The results folder written by `tenantsim run` (model mode, job mode
    /// or a sweep).
    pub results: PathBuf,
    /// The HTML file to write [default: RESULTS/report.html].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file (without it, an existing file is
    /// left alone and the command fails; a RESULTS/report.html that an
    /// earlier `report` wrote is replaced). Never a file of RESULTS that
    /// the report reads.
    #[arg(long)]
    pub force: bool,
}

/// Write the report: the target is checked first (a refusal writes and
/// computes nothing), then the page is made and written.
pub fn report(args: &ReportArgs) -> Result<()> {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.results.join("report.html"));
    let inputs = [Input {
        what: "the results folder",
        dir: &args.results,
    }];
    // An --out file is replaced only with --force; the default
    // RESULTS/report.html also when an earlier `report` wrote it.
    let ours: Option<super::out_file::Ours> = if args.out.is_some() {
        None
    } else {
        Some(written_by_report)
    };
    check_out_file("--out", &out, args.force, ours, &inputs)?;
    let html = report_html(&args.results)?;
    write_atomic(&out, html.as_bytes())?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// A page `report` wrote: its generator tag is in its head.
fn written_by_report(head: &str, _tail: &str) -> bool {
    head.contains(GENERATOR)
}
