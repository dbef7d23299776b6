//! Writing a results folder (DESIGN §6). Every file is written atomically.

mod curves_by_job_csv;
mod curves_csv;
mod fold;
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

pub use crate::core::io::csv_text::{csv_field, secs_or_inf};
pub use curves_by_job_csv::{CURVES_BY_JOB_HEADER, curves_by_job_csv};
pub use curves_csv::{CURVES_HEADER, curves_csv};
pub use fold::ExperimentResult;
pub use jobs_csv::{jobs_csv, jobs_header, jobs_rows, jobs_rows_of};
pub use manifest::{GIT_COMMIT, run_manifest};
pub use regret_csv::{REGRET_HEADER, regret_csv};
pub use run_summary::{baseline_name, summary_json, summary_table};
pub use speedups_csv::{SPEEDUPS_HEADER, speedups_csv};
pub use speedups_up_to_csv::{SPEEDUPS_UP_TO_HEADER, speedups_up_to_csv};
pub use spool::RowSpools;
pub use summary_csv::{summary_csv, summary_header, summary_row};
pub use sweep_csv::{SweepRow, sweep_csv};
pub use tenants_csv::{tenants_csv, tenants_header, tenants_rows, tenants_rows_of};

use crate::core::error::{Error, Result};
use crate::core::io::schema::Layout;
use crate::core::io::write_atomic;
use crate::core::run::execution::Execution;
use crate::core::run::mode::PointInfo;
use crate::models::aggregate::Aggregate;
use crate::models::scenario::Scenario;
use crate::models::warnings::run_warnings;

/// What the header of a per-run file of `scenario` depends on (its
/// schema's [`Layout`]): the thresholds, the GPU types (on a typed
/// cluster), a curve trace, reported end reasons.
pub fn layout(scenario: &Scenario) -> Layout {
    Layout {
        thresholds: scenario.thresholds.clone(),
        gpu_types: scenario.gpu_types.names().to_vec(),
        swept_keys: Vec::new(),
        curve_trace: scenario.trace.is_curve(),
        typed: scenario.gpu_types.is_typed(),
        end_reasons: scenario.reports_end_reasons(),
        cpus: false,
    }
}

/// Write the result files of `scenario`'s run into the folder `dir` (the
/// runner stages it, [`crate::core::run::runner::write_plan`]): `agg` is the
/// run's aggregate, `jobs.csv` is written with `jobs`, and `point` places
/// the folder in a sweep. Returns the names of the files written. The
/// per-run files are copied from the rows spooled while the runs were
/// folded.
pub fn write_results(
    dir: &Path,
    scenario: &Scenario,
    result: &ExperimentResult,
    agg: &Aggregate,
    jobs: bool,
    point: Option<PointInfo<'_>>,
    execution: &Execution,
) -> Result<Vec<&'static str>> {
    let mut names: Vec<&'static str> = vec!["summary.csv", "tenants.csv"];
    result.rows.summary.copy_to(&dir.join("summary.csv"))?;
    result.rows.tenants.copy_to(&dir.join("tenants.csv"))?;
    let files: [(&'static str, String); 5] = [
        ("curves.csv", curves_csv(agg)),
        ("curves_by_job.csv", curves_by_job_csv(agg)),
        ("speedups.csv", speedups_csv(agg)),
        ("speedups_up_to.csv", speedups_up_to_csv(agg)),
        ("regret.csv", regret_csv(agg)),
    ];
    for (name, text) in &files {
        write_atomic(&dir.join(name), text.as_bytes())?;
        names.push(name);
    }
    if jobs {
        let jobs = result.rows.jobs.as_ref().ok_or_else(|| {
            Error::input("internal: jobs.csv asked for, but the runs did not keep their job logs")
        })?;
        jobs.copy_to(&dir.join("jobs.csv"))?;
        names.push("jobs.csv");
    }
    write_atomic(
        &dir.join(crate::core::io::manifest_doc::FILE),
        run_manifest(
            scenario,
            result,
            &run_warnings(scenario, agg),
            point,
            execution,
        )
        .as_bytes(),
    )?;
    names.push(crate::core::io::manifest_doc::FILE);
    Ok(names)
}
