//! `curves_by_job.csv`: the mean loss as a function of the number of
//! completed jobs, per policy, across repetitions (the per-trial view of
//! the ease.ml prototypes, beside `curves.csv`'s time axis).

use std::fmt::Write as _;

use super::csv_field;
use crate::models::aggregate::Aggregate;

/// Header of `curves_by_job.csv`: `curves.csv`'s columns with `jobs` (a
/// count of completed jobs) in place of `time_s`.
pub const CURVES_BY_JOB_HEADER: &str = crate::core::io::schema::model_files::curves_by_job::HEADER;

/// Render `curves_by_job.csv` from the job-axis aggregate
/// ([`Aggregate::by_jobs`]): per policy and job count j (ascending, from
/// 0), the mean over repetitions of L right after the j-th completion
/// (a repetition that completed fewer jobs holds its final loss), its
/// Student-t band, the median and the inter-quantile band. Without a
/// job-axis aggregate, the header alone.
pub fn curves_by_job_csv(agg: &Aggregate) -> String {
    let mut out = String::from(CURVES_BY_JOB_HEADER);
    out.push('\n');
    let Some(jobs) = agg.by_jobs.as_deref() else {
        return out;
    };
    for p in &jobs.policies {
        let name = csv_field(&p.name);
        for c in &p.curve {
            let _ = writeln!(
                out,
                "{name},{},{},{},{},{},{},{},{}",
                c.time, c.band.mean, c.band.low, c.band.high, c.band.n, c.median, c.q_low, c.q_high
            );
        }
    }
    out
}
