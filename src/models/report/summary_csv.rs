//! `summary.csv`: one row per (policy, repetition).

use std::fmt::Write as _;

use super::{csv_field, secs_or_inf};
use crate::core::io::cluster::GpuType;
use crate::models::metrics::RepResult;
use crate::models::scenario::Scenario;
use crate::models::trace::{Micros, micros_to_secs_string};

/// Render `summary.csv`.
///
/// Columns: `policy,rep,tenants,final_loss,cumulative_regret,`
/// `time_to_<θ>_s` for each θ (seconds, `inf` if never reached),
/// `jobs,gpu_busy_fraction,end_s,events`, then the per-tenant aggregates
/// `regret_area_mean,regret_area_p50,regret_area_p90,regret_area_max`
/// (accuracy·s from each tenant's arrival), `jain_index` (over regret areas
/// normalised by each tenant's isolated area; `n/a` with `fairness =
/// false`) and `abandoned` (tenants that left). Floats use Rust's shortest
/// round-trip formatting, so the text is the same on every machine.
///
/// On a typed cluster (DESIGN §11.4) one more column per GPU type follows,
/// `gpu_busy_fraction.<type>`: busy GPU time on that type / (its GPUs ×
/// end). On a curve trace (DESIGN §12.1) a last column
/// `low_fidelity_gpu_s` gives the GPU-seconds (up to the run's end) of jobs
/// below their pair's top fidelity. A plain trace on an untyped cluster
/// gives the file unchanged.
pub fn summary_csv(scenario: &Scenario, runs: &[RepResult]) -> String {
    let mut out = summary_header(scenario);
    for r in runs {
        summary_row(&mut out, scenario, r);
    }
    out
}

/// The header line of `summary.csv` (see [`summary_csv`]).
/// From its schema, [`crate::core::io::schema::model_files::summary`].
pub fn summary_header(scenario: &Scenario) -> String {
    crate::core::io::schema::model_files::summary::FILE.header(&super::layout(scenario))
}

/// Append the `summary.csv` row of run `r` to `out`.
pub fn summary_row(out: &mut String, scenario: &Scenario, r: &RepResult) {
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
    let a = &r.tenant_aggregate;
    let _ = write!(
        out,
        ",{},{},{},{},{},{},{},{},{},{}",
        m.jobs,
        m.gpu_busy_fraction,
        micros_to_secs_string(m.end),
        m.events,
        a.area_mean,
        a.area_p50,
        a.area_p90,
        a.area_max,
        a.jain.map_or_else(|| "n/a".to_string(), |j| j.to_string()),
        a.abandoned
    );
    let types = &scenario.gpu_types;
    if types.is_typed() {
        for (t, busy) in r.outcome.busy_by_type.iter().enumerate() {
            let capacity = u128::from(types.gpus_of_type(t as GpuType)) * u128::from(r.outcome.end);
            let f = if capacity == 0 {
                0.0
            } else {
                *busy as f64 / capacity as f64
            };
            let _ = write!(out, ",{f}");
        }
    }
    if scenario.trace.is_curve() {
        let us = r.outcome.low_fidelity_busy;
        let _ = write!(
            out,
            ",{}",
            micros_to_secs_string(Micros::try_from(us).unwrap_or(Micros::MAX))
        );
    }
    out.push('\n');
}
