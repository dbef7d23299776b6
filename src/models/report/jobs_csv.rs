//! `jobs.csv`: every completed job of every run.

use std::fmt::Write as _;
use std::ops::Range;

use super::csv_field;
use crate::core::error::Result;
use crate::models::metrics::RepResult;
use crate::models::scenario::Scenario;
use crate::models::trace::micros_to_secs_string;

/// Render `jobs.csv`: `policy,rep,job,gpu,user,model,start_s,end_s,accuracy`
/// (DESIGN §6.1). `job` numbers jobs in start order from 0 within a run; jobs
/// cut off by the horizon are not listed (their accuracy was never seen).
///
/// On a curve trace (DESIGN §12.1) a column `fidelity` follows: the
/// fidelity the job trained at. On a typed cluster (DESIGN §11.4) a last
/// column `gpu_type` names the type of the job's GPU ([`jobs_header`]). A
/// plain trace on an untyped cluster gives the file unchanged.
///
/// An error: a run's log could not be read back (spilled, an I/O error).
pub fn jobs_csv(scenario: &Scenario, runs: &[RepResult]) -> Result<String> {
    let mut out = jobs_header(scenario);
    for r in runs {
        jobs_rows(&mut out, scenario, r)?;
    }
    Ok(out)
}

/// The header line of `jobs.csv` for `scenario`, from its schema
/// ([`crate::core::io::schema::model_files::jobs`]): `fidelity` on a curve
/// trace and `gpu_type` on a typed cluster.
pub fn jobs_header(scenario: &Scenario) -> String {
    crate::core::io::schema::model_files::jobs::FILE.header(&super::layout(scenario))
}

/// Append the `jobs.csv` rows of run `r` (its completed jobs) to `out`.
pub fn jobs_rows(out: &mut String, scenario: &Scenario, r: &RepResult) -> Result<()> {
    jobs_rows_of(out, scenario, r, 0..r.outcome.jobs.len())
}

/// [`jobs_rows`] of the jobs `range` of the run's log only (in order; a
/// row's `job` is its place in the whole log): a large log is written a
/// range at a time, never as one text beside the log (which is read from
/// its temporary file when it spilled: an I/O error is the error).
pub fn jobs_rows_of(
    out: &mut String,
    scenario: &Scenario,
    r: &RepResult,
    range: Range<usize>,
) -> Result<()> {
    let trace = &scenario.trace;
    let policy = csv_field(&scenario.policies[r.policy].name);
    let types = &scenario.gpu_types;
    let start = range.start;
    for (j, job) in r
        .outcome
        .jobs
        .iter_range(range.start, range.end)
        .enumerate()
    {
        let (j, job) = (start + j, job?);
        if !job.completed {
            continue;
        }
        let user = trace.user_id(r.split.tenants.user(job.tenant as usize));
        let model = &trace.models()[job.model as usize];
        let _ = write!(
            out,
            "{policy},{},{j},{},{},{},{},{},{}",
            r.rep,
            job.gpu,
            csv_field(&user),
            csv_field(model),
            micros_to_secs_string(job.start),
            micros_to_secs_string(job.end),
            job.accuracy
        );
        if trace.is_curve() {
            let u = r.split.tenants.user(job.tenant as usize);
            let f = trace.level_fidelity(u, job.model as usize, job.level as usize);
            let _ = write!(out, ",{f}");
        }
        if types.is_typed() {
            out.push(',');
            out.push_str(&types.names()[usize::from(types.type_of(job.gpu))]);
        }
        out.push('\n');
    }
    Ok(())
}
