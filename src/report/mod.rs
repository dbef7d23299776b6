//! Writing a results folder (DESIGN §6). Every file is written atomically.

mod csv_text;
mod jobs_csv;
mod manifest;
mod summary_csv;
mod tenants_csv;

use std::path::Path;

pub use csv_text::{csv_field, secs_or_inf};
pub use jobs_csv::jobs_csv;
pub use manifest::run_manifest;
pub use summary_csv::summary_csv;
pub use tenants_csv::tenants_csv;

use crate::error::Result;
use crate::experiment::ExperimentResult;
use crate::io_util::{StagedDir, write_atomic};
use crate::scenario::Scenario;

/// What to write besides the always-written files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportOptions {
    /// Also write `jobs.csv`.
    pub jobs: bool,
}

/// Write the results folder `dir`; returns the names of the files written.
/// The folder is staged under a temporary name and moved into place when
/// every file is written ([`StagedDir`]), replacing an earlier one.
pub fn write_results(
    dir: &Path,
    scenario: &Scenario,
    result: &ExperimentResult,
    options: ReportOptions,
) -> Result<Vec<&'static str>> {
    let staged = StagedDir::new(dir)?;
    let tmp = staged.path();
    let mut written = Vec::new();
    write_atomic(
        &tmp.join("summary.csv"),
        summary_csv(scenario, result).as_bytes(),
    )?;
    written.push("summary.csv");
    write_atomic(
        &tmp.join("tenants.csv"),
        tenants_csv(scenario, result).as_bytes(),
    )?;
    written.push("tenants.csv");
    if options.jobs {
        write_atomic(&tmp.join("jobs.csv"), jobs_csv(scenario, result).as_bytes())?;
        written.push("jobs.csv");
    }
    write_atomic(
        &tmp.join("run.json"),
        run_manifest(scenario, result).as_bytes(),
    )?;
    written.push("run.json");
    staged.commit()?;
    Ok(written)
}
