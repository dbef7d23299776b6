//! `run.json` of a model-mode run: the one manifest type of both modes
//! ([`crate::core::run::manifest`]) filled in from the scenario and the
//! run.

use crate::core::run::execution::Execution;
use crate::core::run::manifest::{
    MODEL_VARYING_FIELDS, MemoryPart, ModePart, ModelPart, ModelPolicy, ModelTrace, RunManifest,
};
use crate::core::run::mode::PointInfo;
use crate::models::report::ExperimentResult;
use crate::models::scenario::Scenario;

pub use crate::core::run::manifest::GIT_COMMIT;

/// Render `run.json`: tool, version and git commit; the resolved scenario
/// (after command-line overrides and sweep expansion) and, in a sweep, the
/// point's swept values; seed, repetitions and baseline; the trace's path,
/// SHA-256 and size; threads and wall time; per policy the simulated events
/// and events per second of simulation (summed over repetitions; the rate
/// divides by the summed worker time of its simulations).
///
/// The fields that may differ between two runs of the same scenario are
/// listed in the document itself, as `varying_fields`
/// ([`MODEL_VARYING_FIELDS`]); in a sweep `wall_time_s` is the wall time of
/// the whole sweep. `execution` says how the tasks were obtained
/// (simulated, from the result cache, merged from shards; `partial` when
/// tasks are missing).
pub fn run_manifest(
    scenario: &Scenario,
    result: &ExperimentResult,
    warnings: &[String],
    point: Option<PointInfo<'_>>,
    execution: &Execution,
) -> String {
    let trace = &scenario.trace;
    let policies = scenario
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let totals = result.totals.get(i).copied().unwrap_or_default();
            let (events, secs) = (totals.events, totals.secs);
            ModelPolicy {
                name: p.name.clone(),
                events,
                events_per_s: (secs > 0.0).then(|| events as f64 / secs),
                time: totals.time_json(),
            }
        })
        .collect();
    RunManifest {
        tool: "tenantsim",
        version: env!("CARGO_PKG_VERSION"),
        scenario_path: scenario.path.display().to_string(),
        scenario: serde_json::to_value(&scenario.file).unwrap_or_default(),
        seed: scenario.seed(),
        repetitions: scenario.repetitions(),
        threads: result.threads,
        wall_time_s: result.wall.as_secs_f64(),
        varying_fields: MODEL_VARYING_FIELDS,
        warnings: warnings.to_vec(),
        sweep_point: point.map(|pt| pt.to_json()),
        memory: MemoryPart::measure(scenario.memory_estimate(), execution),
        mode: ModePart::Models(ModelPart {
            git_commit: GIT_COMMIT,
            baseline: scenario
                .policies
                .get(scenario.baseline)
                .map(|p| p.name.clone()),
            trace: ModelTrace {
                path: scenario.trace_path.display().to_string(),
                sha256: scenario.trace_sha256.hex().to_owned(),
                users: trace.n_users(),
                models: trace.n_models(),
                pairs: trace.n_pairs(),
            },
            policies,
        }),
    }
    .render(execution)
}
