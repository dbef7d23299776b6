//! `tenants.csv`: one row per (policy, repetition, tenant).

use std::fmt::Write as _;

use super::csv_field;
use crate::core::error::Result;
use crate::core::io::csv_text::{push_secs, push_secs_or_inf};
use crate::models::metrics::{RepResult, TenantMetrics};
use crate::models::scenario::Scenario;
#[cfg(doc)]
use crate::models::sim::EndReason;

/// Render `tenants.csv`: `policy,rep,user,arrival_s,regret_area,`
/// `time_to_<θ>_s` per θ (from the tenant's arrival until its own loss is
/// within θ; `inf` if never), `wait_first_job_s` (`inf` if never served),
/// `longest_gap_s,jobs,gpu_s,isolated_regret_area` (`n/a` with `fairness =
/// false`), `abandoned,budget_exhausted`, and `ended` (why the tenant
/// ended, [`EndReason`]) when some policy may end a tenant by its schedule
/// ([`Scenario::reports_end_reasons`]).
pub fn tenants_csv(scenario: &Scenario, runs: &[RepResult]) -> Result<String> {
    let mut out = tenants_header(scenario);
    for r in runs {
        tenants_rows(&mut out, scenario, r)?;
    }
    Ok(out)
}

/// The header line of `tenants.csv` (see [`tenants_csv`]).
/// From its schema, [`crate::core::io::schema::model_files::tenants`].
pub fn tenants_header(scenario: &Scenario) -> String {
    crate::core::io::schema::model_files::tenants::FILE.header(&super::layout(scenario))
}

/// Append the `tenants.csv` rows of run `r` (one per tenant) to `out`; an
/// error if its rows cannot be read back (spilled, an I/O error).
pub fn tenants_rows(out: &mut String, scenario: &Scenario, r: &RepResult) -> Result<()> {
    let rows = r.tenants.to_vec()?;
    tenants_rows_of(out, scenario, r, 0, &rows);
    Ok(())
}

/// [`tenants_rows`] of the rows `rows` of run `r`, the first being tenant
/// `start`'s (in order): a run of 10^7 tenants is written a range at a
/// time, never as one text (2.2 GB and a copy of it) nor as a vector of
/// every row (docs/PERFORMANCE.md "Internet scale").
pub fn tenants_rows_of(
    out: &mut String,
    scenario: &Scenario,
    r: &RepResult,
    start: usize,
    rows: &[TenantMetrics],
) {
    let trace = &scenario.trace;
    // Written in place, field by field: 100,000 tenants make as many rows,
    // and no field needs a `String` of its own.
    let policy = csv_field(&scenario.policies[r.policy].name);
    let ended = scenario.reports_end_reasons();
    for (i, t) in rows.iter().enumerate() {
        let i = start + i;
        let _ = write!(
            out,
            "{policy},{},{},",
            r.rep,
            csv_field(&trace.user_id(r.split.tenants.user(i)))
        );
        push_secs(out, t.arrival);
        let _ = write!(out, ",{}", t.regret_area);
        for tt in &t.time_to {
            out.push(',');
            push_secs_or_inf(out, *tt);
        }
        out.push(',');
        push_secs_or_inf(out, t.wait_first_job);
        out.push(',');
        push_secs(out, t.longest_gap);
        let _ = write!(out, ",{},", t.jobs);
        push_secs(out, t.gpu_us);
        match &r.isolated_area {
            Some(a) => {
                let _ = write!(out, ",{}", a[i]);
            }
            None => out.push_str(",n/a"),
        }
        let _ = write!(out, ",{},{}", t.abandoned, t.budget_exhausted);
        if ended {
            let _ = write!(out, ",{}", t.ended.name());
        }
        out.push('\n');
    }
}
