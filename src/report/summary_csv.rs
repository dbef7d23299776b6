//! `summary.csv`: one row per (policy, repetition).

use std::fmt::Write as _;

use super::{csv_field, secs_or_inf};
use crate::experiment::ExperimentResult;
use crate::scenario::Scenario;
use crate::trace::micros_to_secs_string;

/// Render `summary.csv`.
///
/// Columns: `policy,rep,tenants,final_loss,cumulative_regret,`
/// `time_to_<θ>_s` for each θ (seconds, `inf` if never reached),
/// `jobs,gpu_busy_fraction,end_s,events`. Floats use Rust's shortest
/// round-trip formatting, so the text is the same on every machine.
pub fn summary_csv(scenario: &Scenario, result: &ExperimentResult) -> String {
    let mut out = String::from("policy,rep,tenants,final_loss,cumulative_regret");
    for t in &scenario.thresholds {
        let _ = write!(out, ",time_to_{t}_s");
    }
    out.push_str(",jobs,gpu_busy_fraction,end_s,events\n");
    for r in &result.runs {
        let m = &r.metrics;
        let _ = write!(
            out,
            "{},{},{},{},{}",
            csv_field(&scenario.policies[r.policy].name),
            r.rep,
            r.split.tenants.len(),
            m.final_loss,
            m.cumulative_regret
        );
        for t in &m.time_to {
            let _ = write!(out, ",{}", secs_or_inf(*t));
        }
        let _ = writeln!(
            out,
            ",{},{},{},{}",
            m.jobs,
            m.gpu_busy_fraction,
            micros_to_secs_string(m.end),
            m.events
        );
    }
    out
}
