//! `speedups_up_to.csv`: each policy's largest speedup over the baseline on
//! a dense θ grid, with the θ where it occurs.

use std::fmt::Write as _;

use super::csv_field;
use crate::models::aggregate::Aggregate;

/// Header of `speedups_up_to.csv`.
pub const SPEEDUPS_UP_TO_HEADER: &str =
    crate::core::io::schema::model_files::speedups_up_to::HEADER;

/// Render `speedups_up_to.csv`: one row per policy (the baseline included),
/// the largest finite T_B(θ)/T_X(θ) of the mean curves over `points`
/// log-spaced θ from `theta_low` to `theta_high`, and its θ; `n/a` in both
/// columns when no θ of the grid gives a finite ratio. The figure is
/// unstable (a maximum of a ratio of step functions), so it is always
/// written with its θ; `speedups.csv` holds the fixed-θ speedups.
pub fn speedups_up_to_csv(agg: &Aggregate) -> String {
    let mut out = String::from(SPEEDUPS_UP_TO_HEADER);
    out.push('\n');
    for r in &agg.up_to {
        let (speedup, theta) = match r.up_to {
            Some(u) => (u.speedup.to_string(), u.theta.to_string()),
            None => ("n/a".to_string(), "n/a".to_string()),
        };
        let _ = writeln!(
            out,
            "{},{},{speedup},{theta},{},{},{}",
            csv_field(&agg.policies[r.policy].name),
            csv_field(&agg.policies[r.baseline].name),
            r.range.0,
            r.range.1,
            r.points
        );
    }
    out
}
