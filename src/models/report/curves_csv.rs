//! `curves.csv`: L(τ) per policy on the time grid, across repetitions.

use std::fmt::Write as _;

use super::csv_field;
use crate::models::aggregate::Aggregate;
use crate::models::trace::micros_to_secs_string;

/// Header of `curves.csv` (DESIGN §6.3); its first six columns are the
/// shared contract's.
pub const CURVES_HEADER: &str = crate::core::io::schema::model_files::curves::HEADER;

/// Render `curves.csv`: per policy (scenario order) and grid instant
/// (ascending), the mean of L(τ) over the `reps` repetitions defined at τ,
/// its Student-t band, the median and the inter-quantile band.
pub fn curves_csv(agg: &Aggregate) -> String {
    let mut out = String::from(CURVES_HEADER);
    out.push('\n');
    for p in &agg.policies {
        let name = csv_field(&p.name);
        for c in &p.curve {
            let _ = writeln!(
                out,
                "{name},{},{},{},{},{},{},{},{}",
                micros_to_secs_string(c.time),
                c.band.mean,
                c.band.low,
                c.band.high,
                c.band.n,
                c.median,
                c.q_low,
                c.q_high
            );
        }
    }
    out
}
