//! `tenantsim report RESULTS`, and the one way `table` and `report` write
//! their file.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::core::error::{Error, Result};
use crate::core::io::write_atomic;
use crate::present::report::{GENERATOR, report_html};

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
    /// earlier `report` wrote is replaced).
    #[arg(long)]
    pub force: bool,
}

/// Write the report.
pub fn report(args: &ReportArgs) -> Result<()> {
    let html = report_html(&args.results)?;
    let (out, force) = match &args.out {
        Some(o) => (o.clone(), args.force),
        None => {
            // Replaced when an earlier `report` wrote it (its generator tag).
            let o = args.results.join("report.html");
            // Read as an input (a FIFO there is not ours and never blocks).
            let ours = crate::core::io::read_text(&o, "report", "HTML", 1 << 30)
                .is_ok_and(|t| t.contains(GENERATOR));
            (o, args.force || ours)
        }
    };
    write_or_print(Some(&out), force, html.as_bytes(), "report")?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// Write `bytes` to `out` atomically (refusing to replace an existing file
/// unless `force`), or to stdout without `out`.
pub fn write_or_print(out: Option<&Path>, force: bool, bytes: &[u8], what: &str) -> Result<()> {
    match out {
        Some(path) => {
            if path.is_dir() {
                return Err(Error::usage(format!(
                    "--out {}: a folder; expected the {what} file to write",
                    path.display()
                )));
            }
            if path.exists() && !force {
                return Err(Error::usage(format!(
                    "--out {}: the file exists; pass --force to replace it",
                    path.display()
                )));
            }
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
