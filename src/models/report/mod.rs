//! Writing a results folder (DESIGN §6). Every file is written atomically.

mod curves_by_job_csv;
mod curves_csv;
mod jobs_csv;
mod manifest;
mod regret_csv;
mod run_summary;
mod speedups_csv;
mod speedups_up_to_csv;
mod spool;
mod summary_csv;
mod sweep_csv;
mod tenants_csv;

use std::path::Path;

pub use crate::core::csv_text::{csv_field, secs_or_inf};
pub use curves_by_job_csv::{CURVES_BY_JOB_HEADER, curves_by_job_csv};
pub use curves_csv::{CURVES_HEADER, curves_csv};
pub use jobs_csv::{JOBS_HEADER, jobs_csv, jobs_rows};
pub use manifest::{GIT_COMMIT, PointInfo, run_manifest};
pub use regret_csv::{REGRET_HEADER, regret_csv};
pub use run_summary::{baseline_name, summary_json, summary_table};
pub use speedups_csv::{SPEEDUPS_HEADER, speedups_csv};
pub use speedups_up_to_csv::{SPEEDUPS_UP_TO_HEADER, speedups_up_to_csv};
pub use spool::RowSpools;
pub use summary_csv::{summary_csv, summary_header, summary_row};
pub use sweep_csv::{SweepRow, sweep_csv};
pub use tenants_csv::{tenants_csv, tenants_header, tenants_rows};

use crate::core::error::{Error, Result};
use crate::core::io::{StagedDir, write_atomic};
use crate::models::aggregate::Aggregate;
use crate::models::experiment::ExperimentResult;
use crate::models::scenario::Scenario;
use crate::models::warnings::run_warnings;
use crate::plot::{PLOTS_DIR, PlotOptions, Source, plot_model};

/// What to write besides the always-written files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportOptions {
    /// Also write `jobs.csv` (the runs must have kept their job logs:
    /// `RunOptions::keep_jobs`, `run_grid(.., keep_jobs = true, ..)`).
    pub jobs: bool,
}

/// Write the results folder `dir` of `scenario`'s run (`agg` is its
/// aggregate; `point` places it in a sweep); returns the names of the files
/// written (`plots/` for the figures). The per-run files are copied from
/// the rows spooled while the runs were folded. The folder is staged under
/// a temporary name and moved into place when every file is written
/// ([`StagedDir`]), replacing an earlier one. Unless `[output] plots =
/// false`, the figures are drawn from the staged folder's CSVs into its
/// `plots/` (PNG and SVG), exactly as `tenantsim plot` would.
pub fn write_results(
    dir: &Path,
    scenario: &Scenario,
    result: &ExperimentResult,
    agg: &Aggregate,
    options: ReportOptions,
    point: Option<PointInfo<'_>>,
) -> Result<Vec<&'static str>> {
    let staged = StagedDir::new(dir)?;
    let mut names: Vec<&'static str> = vec!["summary.csv", "tenants.csv"];
    result
        .rows
        .summary
        .copy_to(&staged.path().join("summary.csv"))?;
    result
        .rows
        .tenants
        .copy_to(&staged.path().join("tenants.csv"))?;
    let files: [(&'static str, String); 5] = [
        ("curves.csv", curves_csv(agg)),
        ("curves_by_job.csv", curves_by_job_csv(agg)),
        ("speedups.csv", speedups_csv(agg)),
        ("speedups_up_to.csv", speedups_up_to_csv(agg)),
        ("regret.csv", regret_csv(agg)),
    ];
    for (name, text) in &files {
        write_atomic(&staged.path().join(name), text.as_bytes())?;
        names.push(name);
    }
    if options.jobs {
        let jobs = result.rows.jobs.as_ref().ok_or_else(|| {
            Error::input("internal: jobs.csv asked for, but the runs did not keep their job logs")
        })?;
        jobs.copy_to(&staged.path().join("jobs.csv"))?;
        names.push("jobs.csv");
    }
    write_atomic(
        &staged.path().join("run.json"),
        run_manifest(scenario, result, &run_warnings(scenario, agg), point).as_bytes(),
    )?;
    names.push("run.json");
    if scenario.output().plots {
        let mut src = Source::dir(staged.path());
        src.name = Some(scenario.name().to_string());
        plot_model(
            &src,
            &staged.path().join(PLOTS_DIR),
            &PlotOptions::default(),
        )?;
        names.push("plots/");
    }
    staged.commit()?;
    Ok(names)
}
