//! `regret.csv`: cumulative regret per policy and its ratio to the baseline.

use std::fmt::Write as _;

use super::csv_field;
use crate::models::aggregate::Aggregate;

/// Header of `regret.csv`.
pub const REGRET_HEADER: &str = crate::core::io::schema::model_files::regret::HEADER;

/// Render `regret.csv`: per policy, the mean cumulative regret R(end)
/// (accuracy·s) over repetitions with its Student-t band, the median, the
/// ratio of the mean to the baseline's mean (R_X / R_B: below 1 is less
/// regret than the baseline) and the median over repetitions of R_X,r /
/// R_B,r. A ratio whose denominator is 0 is `inf` (`1` when both are 0).
pub fn regret_csv(agg: &Aggregate) -> String {
    let mut out = String::from(REGRET_HEADER);
    out.push('\n');
    let baseline = csv_field(super::baseline_name(agg));
    for r in &agg.regret {
        let p = &agg.policies[r.policy];
        let _ = writeln!(
            out,
            "{},{baseline},{},{},{},{},{},{},{}",
            csv_field(&p.name),
            p.regret.n,
            p.regret.mean,
            p.regret.low,
            p.regret.high,
            p.regret_median,
            r.ratio,
            r.median_rep_ratio
        );
    }
    out
}
