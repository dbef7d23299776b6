//! `speedups.csv`: time-to-quality speedups over the baseline policy.

use std::fmt::Write as _;

use super::{csv_field, secs_or_inf};
use crate::models::aggregate::Aggregate;

/// Header of `speedups.csv`.
pub const SPEEDUPS_HEADER: &str = crate::core::io::schema::model_files::speedups::HEADER;

/// Render `speedups.csv`: one row per (policy, θ), the baseline included
/// (its speedup is 1, or `n/a` where it never reaches θ). T is read off the
/// mean curves (`inf` if never reached); `speedup` = T_B / T_X with `inf`
/// when only the baseline never reaches θ, `0` when only the policy never
/// does, `n/a` when neither does; `median_rep_speedup` is the median over
/// repetitions of the per-repetition ratio (same conventions, `n/a`
/// repetitions left out).
pub fn speedups_csv(agg: &Aggregate) -> String {
    let mut out = String::from(SPEEDUPS_HEADER);
    out.push('\n');
    let baseline = csv_field(super::baseline_name(agg));
    for r in &agg.speedups {
        let _ = writeln!(
            out,
            "{},{baseline},{},{},{},{},{}",
            csv_field(&agg.policies[r.policy].name),
            agg.thresholds[r.theta],
            secs_or_inf(r.t_baseline),
            secs_or_inf(r.t_policy),
            r.speedup,
            r.median_rep_speedup
        );
    }
    out
}
