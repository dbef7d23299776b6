//! `run.json`: what was run, with what, and how long it took.

use serde_json::{Value, json};

use crate::core::execution::Execution;
use crate::core::mode::PointInfo;
use crate::models::report::ExperimentResult;
use crate::models::scenario::Scenario;

/// The git commit the binary was built from, or "unknown".
pub const GIT_COMMIT: &str = env!("TENANTSIM_GIT_COMMIT");

/// The fields of `run.json` that may differ between two runs of the same
/// scenario with the same binary, as dotted paths (`[]` = every element of
/// a list): the paths are as given on the command line, so they change
/// with the working directory; the rest measures the run. Every other
/// field is identical. `run.json` lists them under `varying_fields`.
pub const VARYING_FIELDS: [&str; 7] = [
    "scenario_path",
    "trace.path",
    "threads",
    "wall_time_s",
    "policies[].events_per_s",
    "policies[].time",
    "execution",
];

/// Render `run.json`: tool, version and git commit; the resolved scenario
/// (after command-line overrides and sweep expansion) and, in a sweep, the
/// point's swept values; seed, repetitions and baseline; the trace's path,
/// SHA-256 and size; threads and wall time; per policy the simulated events
/// and events per second of simulation (summed over repetitions; the rate
/// divides by the summed worker time of its simulations).
///
/// The fields that may differ between two runs of the same scenario are
/// listed in the document itself, as `varying_fields` (`VARYING_FIELDS`);
/// in a sweep `wall_time_s` is the wall time of the whole sweep.
/// `execution` says how the tasks were obtained (simulated, from the
/// result cache, merged from shards; `partial` when tasks are missing).
pub fn run_manifest(
    scenario: &Scenario,
    result: &ExperimentResult,
    warnings: &[String],
    point: Option<PointInfo<'_>>,
    execution: &Execution,
) -> String {
    let trace = &scenario.trace;
    let policies: Vec<Value> = scenario
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let totals = result.totals.get(i).copied().unwrap_or_default();
            let (events, secs) = (totals.events, totals.secs);
            json!({
                "name": p.name,
                "events": events,
                "events_per_s": if secs > 0.0 { json!(events as f64 / secs) } else { Value::Null },
                "time": totals.time_json(),
            })
        })
        .collect();
    let mut doc = json!({
        "tool": "tenantsim",
        "version": env!("CARGO_PKG_VERSION"),
        "git_commit": GIT_COMMIT,
        "scenario_path": scenario.path.display().to_string(),
        "scenario": scenario.file,
        "seed": scenario.seed(),
        "repetitions": scenario.repetitions(),
        "baseline": scenario.policies.get(scenario.baseline).map(|p| p.name.clone()),
        "trace": {
            "path": scenario.trace_path.display().to_string(),
            "sha256": scenario.trace_sha256,
            "users": trace.n_users(),
            "models": trace.n_models(),
            "pairs": trace.n_pairs(),
        },
        "threads": result.threads,
        "wall_time_s": result.wall.as_secs_f64(),
        "policies": policies,
        "varying_fields": VARYING_FIELDS,
        "warnings": warnings,
    });
    if let (Some(pt), Some(obj)) = (point, doc.as_object_mut()) {
        obj.insert("sweep_point".into(), pt.to_json());
    }
    execution.insert_into(&mut doc);
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
