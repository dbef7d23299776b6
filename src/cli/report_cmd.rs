//! `tenantsim report RESULTS`, and the one way `table` and `report` write
//! their file.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::core::error::{Error, Result};
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

/// Write `bytes` to `out` atomically, or to stdout without `out`; a file
/// is checked first ([`check_out_file`]: an existing one needs `force`,
/// an input of the command is never replaced), `inputs` being the folders
/// the command reads.
pub fn write_or_print(
    out: Option<&Path>,
    force: bool,
    bytes: &[u8],
    what: &str,
    inputs: &[Input<'_>],
) -> Result<()> {
    match out {
        Some(path) => {
            check_out_file("--out", path, force, None, inputs)?;
            write_atomic(path, bytes)
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(bytes)
                .and_then(|()| stdout.flush())
                .map_err(|e| Error::stdout(&format!("the {what}"), &e))
        }
    }
}
