//! `tenants.csv`: one row per (policy, repetition, tenant).

use std::fmt::Write as _;

use super::{csv_field, secs_or_inf};
use crate::experiment::ExperimentResult;
use crate::scenario::Scenario;
use crate::trace::micros_to_secs_string;

/// Render `tenants.csv`: `policy,rep,user,arrival_s,regret_area,`
/// `time_to_<θ>_s` per θ (from the tenant's arrival until its own loss is
/// within θ; `inf` if never), `wait_first_job_s` (`inf` if never served),
/// `longest_gap_s,jobs,gpu_s,isolated_regret_area` (`n/a` with `fairness =
/// false`), `abandoned,budget_exhausted`.
pub fn tenants_csv(scenario: &Scenario, result: &ExperimentResult) -> String {
    let mut out = String::from("policy,rep,user,arrival_s,regret_area");
    for t in &scenario.thresholds {
        let _ = write!(out, ",time_to_{t}_s");
    }
    out.push_str(
        ",wait_first_job_s,longest_gap_s,jobs,gpu_s,isolated_regret_area,abandoned,budget_exhausted\n",
    );
    let users = scenario.trace.users();
    for r in &result.runs {
        let policy = csv_field(&scenario.policies[r.policy].name);
        for (i, t) in r.tenants.iter().enumerate() {
            let _ = write!(
                out,
                "{policy},{},{},{},{}",
                r.rep,
                csv_field(&users[r.split.tenants[i]]),
                micros_to_secs_string(t.arrival),
                t.regret_area
            );
            for tt in &t.time_to {
                let _ = write!(out, ",{}", secs_or_inf(*tt));
            }
            let iso = r
                .isolated_area
                .as_ref()
                .map_or_else(|| "n/a".to_string(), |a| a[i].to_string());
            let _ = writeln!(
                out,
                ",{},{},{},{},{iso},{},{}",
                secs_or_inf(t.wait_first_job),
                micros_to_secs_string(t.longest_gap),
                t.jobs,
                micros_to_secs_string(t.gpu_us),
                t.abandoned,
                t.budget_exhausted
            );
        }
    }
    out
}
