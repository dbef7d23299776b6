//! `run.json`: what was run, with what, and how long it took.

use serde_json::json;

use crate::experiment::ExperimentResult;
use crate::scenario::Scenario;

/// Render `run.json`: the resolved scenario, seed, repetitions, tool
/// version, trace path and SHA-256, threads and wall time. This is the one
/// output that differs between identical runs (wall time, threads).
pub fn run_manifest(scenario: &Scenario, result: &ExperimentResult) -> String {
    let trace = &scenario.trace;
    let doc = json!({
        "tool": "tenantsim",
        "version": env!("CARGO_PKG_VERSION"),
        "scenario_path": scenario.path.display().to_string(),
        "scenario": scenario.file,
        "seed": scenario.seed(),
        "repetitions": scenario.repetitions(),
        "trace": {
            "path": scenario.trace_path.display().to_string(),
            "sha256": scenario.trace_sha256,
            "users": trace.n_users(),
            "models": trace.n_models(),
            "pairs": trace.n_pairs(),
        },
        "threads": result.threads,
        "wall_time_s": result.wall.as_secs_f64(),
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
