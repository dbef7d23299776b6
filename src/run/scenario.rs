//! Run a scenario (either mode, one scenario or a sweep) through the
//! shared runner ([`crate::core::run::runner`]) and write its results folder:
//! what `tenantsim run` does, for every caller.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::cache::{cache_notes, open_cache, resumable, trim_cache};
use super::{Progress, RunOptions, shard};
use crate::core::error::Result;
use crate::core::io::scenario::{Overrides, ScenarioMode, scenario_mode};
use crate::core::io::{PLOTS_DIR, Protected, prepare_target};
use crate::core::resources::human_bytes;
use crate::core::run::execution::Execution;
use crate::core::run::manifest::MemoryPart;
use crate::core::run::mode::Mode;
use crate::core::run::runner::{
    FigureJob, Folded, Sources, finish_reports, folder_width, run_scenarios_from, thread_pool,
    write_plan,
};
use crate::core::run::sweep::{Plan, SweepPoint};
use crate::jobs::JobMode;
use crate::present::figures::{
    PlotOptions, Source, plot_jobs, plot_model, plot_shared_dir, plot_sweep,
};
use crate::registry::Registry;
use crate::shared::SharedMode;

/// Run `scenario` with the policies of `registry` (options checked by the
/// caller); the `--json` document.
pub(super) fn run(
    registry: &Registry,
    progress: &dyn Progress,
    scenario: &Path,
    options: &RunOptions,
) -> Result<Value> {
    match scenario_mode(scenario)? {
        ScenarioMode::Jobs => run_mode(&registry.job_mode(), progress, scenario, options),
        ScenarioMode::Models => run_mode(&registry.model_mode(), progress, scenario, options),
        ScenarioMode::Shared => run_mode(&registry.shared_mode(), progress, scenario, options),
    }
}

/// The overrides `options` make to the scenario file.
pub(super) fn overrides(options: &RunOptions) -> Overrides {
    Overrides {
        seed: options.seed,
        repetitions: options.reps,
        plots: (!options.plots).then_some(false),
        memory: crate::core::memory::MemoryBudget {
            max: options.max_memory,
            threads: options.threads,
            keep_jobs: options.keep_jobs,
        },
    }
}

/// The name of a plan: its first scenario's, `run` if it has none.
fn plan_name<M: Mode>(mode: &M, scenarios: &[&M::Scenario]) -> String {
    scenarios
        .first()
        .map_or("run", |s| mode.name(s))
        .to_string()
}

/// The scenario's name and task count after validating every point.
pub(super) fn name_and_tasks(scenario: &Path, registry: &Registry) -> Result<(String, u64)> {
    let (name, tasks, _) = plan_facts(scenario, registry, Overrides::default())?;
    Ok((name, tasks))
}

/// The scenario's name, its tasks and its memory estimate in bytes at
/// `threads` worker threads (the largest point's for a sweep; `None`
/// where the mode makes none), for `tenantsim slurm`. The estimate is not
/// checked against this machine's memory: the shards run elsewhere, and
/// each checks its own node's.
pub(super) fn name_tasks_and_memory(
    scenario: &Path,
    registry: &Registry,
    threads: u32,
) -> Result<(String, u64, Option<u64>)> {
    let overrides = Overrides {
        memory: crate::core::memory::MemoryBudget {
            max: Some(u64::MAX),
            threads: Some(threads),
            keep_jobs: false,
        },
        ..Overrides::default()
    };
    plan_facts(scenario, registry, overrides)
}

/// The plan of `scenario` loaded with `overrides` (every point
/// validated): its name, tasks and largest memory estimate.
fn plan_facts(
    scenario: &Path,
    registry: &Registry,
    overrides: Overrides,
) -> Result<(String, u64, Option<u64>)> {
    fn of<M: Mode>(mode: &M, scenario: &Path, o: Overrides) -> Result<(String, u64, Option<u64>)> {
        let plan = mode.load_plan(scenario, o)?;
        let scenarios = plan.scenarios();
        let tasks = scenarios.iter().map(|s| mode.tasks(s)).sum();
        let memory = largest_estimate(mode, &scenarios);
        Ok((plan_name(mode, &scenarios), tasks, memory))
    }
    match scenario_mode(scenario)? {
        ScenarioMode::Jobs => of(&registry.job_mode(), scenario, overrides),
        ScenarioMode::Models => of(&registry.model_mode(), scenario, overrides),
        ScenarioMode::Shared => of(&registry.shared_mode(), scenario, overrides),
    }
}

/// The largest memory estimate of a plan's scenarios: a sweep's largest
/// point (each counts what earlier points keep); `None` where the mode
/// makes none.
fn largest_estimate<M: Mode>(mode: &M, scenarios: &[&M::Scenario]) -> Option<u64> {
    scenarios
        .iter()
        .filter_map(|s| mode.memory_estimate(s))
        .max()
}

/// A run in mode `mode`; the `--json` document.
fn run_mode<M: Mode>(
    mode: &M,
    progress: &dyn Progress,
    scenario: &Path,
    options: &RunOptions,
) -> Result<Value> {
    let plan = mode.load_plan(scenario, overrides(options))?;
    let scenarios = plan.scenarios();
    let name = plan_name(mode, &scenarios);
    let out = options.out.clone().unwrap_or_else(|| match options.shard {
        Some(shard) => shard.default_folder(&name),
        None => PathBuf::from("results").join(&name),
    });
    // Before simulating: may the results folder be replaced, can it be
    // made, and what did killed runs leave beside it?
    let mut inputs = vec![Protected {
        what: "the scenario file",
        path: scenario,
    }];
    for s in &scenarios {
        inputs.extend(mode.inputs(s));
    }
    let cache = open_cache(&options.cache, options.quiet)?;
    if let Some(c) = &cache {
        inputs.push(Protected {
            what: "the result cache",
            path: c.dir(),
        });
    }
    for note in prepare_target(&out, options.force, &inputs)? {
        eprintln!("warning: {note}");
    }
    // Degenerate set-ups are said before the run (and again in run.json);
    // they never change a result.
    for s in &scenarios {
        for w in mode.setup_warnings(s) {
            eprintln!("warning: `{}`: {w}", mode.name(s));
        }
    }
    let pool = thread_pool(options.threads.map(|t| t as usize))?;
    let sources = Sources {
        cache: cache.as_ref(),
    };
    if let Some(spec) = options.shard {
        let job = shard::ShardJob {
            scenario,
            options,
            progress,
            name: &name,
            out: &out,
        };
        return shard::run_shard_folder(mode, &job, &pool, &scenarios, sources, spec);
    }
    let total: u64 = scenarios.iter().map(|s| mode.tasks(s)).sum();
    progress.start(total);
    let folded = run_scenarios_from(mode, &pool, &scenarios, options.keep_jobs, sources, &|| {
        progress.task_done();
    });
    progress.finish();
    if !options.quiet {
        cache_notes(cache.as_ref());
    }
    trim_cache(cache.as_ref(), options.quiet);
    let folded = folded.map_err(|e| resumable(e, cache.as_ref()))?;
    let folded = finish_reports(mode, &pool, &scenarios, folded)?;
    let say = Say {
        quiet: options.quiet,
        json: options.json,
        jobs: options.keep_jobs,
    };
    write_and_summarise(mode, &plan, &name, &out, &folded, say)
}

/// What the run prints and writes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Say {
    pub quiet: bool,
    pub json: bool,
    pub jobs: bool,
}

/// Every task's count summed over the plan, for the summary and `--json`.
fn execution_totals(executions: &[Execution]) -> Execution {
    let mut t = Execution::default();
    for e in executions {
        t.tasks += e.tasks;
        t.ran += e.ran;
        t.from_cache += e.from_cache;
        t.merged += e.merged;
        t.missing.extend_from_slice(&e.missing);
        if t.cache.is_none() {
            t.cache.clone_from(&e.cache);
        }
        if t.shards.is_empty() {
            t.shards.clone_from(&e.shards);
        }
    }
    t
}

/// The line of the summary that says where the tasks came from.
fn tasks_line(t: &Execution) -> String {
    if !t.shards.is_empty() {
        return format!(
            "tasks: {} of {} merged from {} shard folder(s)",
            t.merged,
            t.tasks,
            t.shards.len()
        );
    }
    match &t.cache {
        Some(dir) => format!(
            "tasks: {} ran, {} from the result cache ({dir})",
            t.ran, t.from_cache
        ),
        None => format!("tasks: {} ran (no result cache)", t.ran),
    }
}

/// Write the results folder of `plan` from its reports and print what
/// `say` allows; the `--json` document (shared by `run` and `merge`).
pub(super) fn write_and_summarise<M: Mode>(
    mode: &M,
    plan: &Plan<M::Scenario>,
    name: &str,
    out: &Path,
    folded: &Folded<M::Report>,
    say: Say,
) -> Result<Value> {
    let reports = &folded.folds;
    let (threads, wall) = (folded.threads, folded.wall.as_secs_f64());
    let scenarios = plan.scenarios();
    for (s, r) in scenarios.iter().zip(reports) {
        for w in mode.result_warnings(r) {
            eprintln!("warning: `{}`: {w}", mode.name(s));
        }
    }
    let totals = execution_totals(&folded.executions);
    let estimate = largest_estimate(mode, &scenarios);
    let written = write_plan(
        mode,
        out,
        plan,
        reports,
        &folded.executions,
        say.jobs,
        &draw_figures,
    )?;
    let total = totals.tasks;
    let memory = MemoryPart::measure(estimate, &totals);
    let mut doc = match plan {
        Plan::Single(s) => {
            if !say.quiet {
                eprintln!("{}", mode.describe(s, &reports[0]));
                eprintln!("{}", tasks_line(&totals));
                if let Some(line) = peak_line(&memory, "") {
                    eprintln!("{line}");
                }
                eprintln!("results in {}: {}", out.display(), written.join(", "));
                if !say.json {
                    eprint!("\n{}", mode.summary_table(&reports[0]));
                }
            }
            let mut doc = mode.summary_json(&reports[0]);
            if let Some(obj) = doc.as_object_mut() {
                obj.insert("mode".into(), json!(M::NAME));
                obj.insert("scenario".into(), json!(mode.name(s)));
                obj.insert("results".into(), json!(out.display().to_string()));
            }
            doc
        }
        Plan::Sweep { points, .. } => {
            if !say.quiet {
                eprintln!(
                    "ran sweep `{name}`: {} point(s), {total} runs in {wall:.3} s on {threads} thread(s)",
                    points.len()
                );
                eprintln!("{}", tasks_line(&totals));
                if let Some(line) = peak_line(&memory, " at the largest point") {
                    eprintln!("{line}");
                }
                let (first, rest) = written.split_first().map_or(("", &[][..]), |(f, r)| (f, r));
                eprintln!(
                    "results in {}: {first} and {}",
                    out.display(),
                    rest.join(", ")
                );
                if !say.json {
                    let width = folder_width(points.len());
                    for (p, r) in points.iter().zip(reports) {
                        eprint!(
                            "\npoint {} ({}) in {}/\n{}",
                            p.index,
                            describe_values(&p.values),
                            p.folder_name(width),
                            mode.summary_table(r)
                        );
                    }
                }
            }
            sweep_json(mode, name, out, points, reports)
        }
    };
    if totals.partial() {
        eprintln!(
            "warning: PARTIAL results in {}: {} of {} tasks are missing ({}); run.json says so",
            out.display(),
            totals.missing.len(),
            total,
            task_list(&totals.missing)
        );
    }
    shard::stopped_after_commit(out)?;
    if let Some(obj) = doc.as_object_mut() {
        obj.insert("threads".into(), json!(threads));
        obj.insert("wall_time_s".into(), json!(wall));
        obj.insert("memory".into(), json!(memory));
        totals.insert_into(&mut doc);
    }
    Ok(doc)
}

/// The summary's memory line (DESIGN §8.5): the peak the process
/// measured and the estimate (`of` says which scenario's, for a sweep);
/// `None` when neither is known.
fn peak_line(m: &MemoryPart, of: &str) -> Option<String> {
    let estimate = m
        .estimate_bytes
        .map(|e| format!("estimated {}{of}", human_bytes(e)));
    match (m.peak_rss_bytes, estimate) {
        (Some(p), Some(e)) => Some(format!(
            "memory: {} at peak (resident), {e}",
            human_bytes(p)
        )),
        (Some(p), None) => Some(format!("memory: {} at peak (resident)", human_bytes(p))),
        (None, Some(e)) => Some(format!(
            "memory: {e} (this system does not report the peak)"
        )),
        (None, None) => None,
    }
}

/// Task ids as ranges: `0-3, 7, 9-10`.
pub(super) fn task_list(ids: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            ids[i].to_string()
        } else {
            format!("{}-{}", ids[i], ids[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// The figures hook of the runner: the figures of [`crate::present::figures`], drawn
/// from the staged folder's CSVs exactly as `tenantsim plot` would.
fn draw_figures(job: FigureJob<'_>) -> Result<()> {
    let options = PlotOptions::default();
    match job {
        FigureJob::Results { mode, dir, name } => {
            let mut src = Source::dir(dir);
            src.name = Some(name.to_string());
            let target = dir.join(PLOTS_DIR);
            if mode == SharedMode::NAME {
                plot_shared_dir(dir, None, Some(name), &options)?;
            } else if mode == JobMode::NAME {
                plot_jobs(&src, &target, &options)?;
            } else {
                plot_model(&src, &target, &options)?;
            }
        }
        FigureJob::Sweep {
            out,
            dir,
            sweep_csv,
            name,
        } => {
            let mut src = Source::texts(out, &[("sweep.csv", sweep_csv)]);
            src.name = Some(name.to_string());
            plot_sweep(&src, &dir.join(PLOTS_DIR), &options)?;
        }
    }
    Ok(())
}

fn describe_values(values: &[(String, toml::Value)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `--json` document of a sweep: the mode, the scenario's name, the
/// results folder and per point its summary with `index`, `folder` and
/// `values`.
fn sweep_json<M: Mode>(
    mode: &M,
    name: &str,
    out: &Path,
    points: &[SweepPoint<M::Scenario>],
    reports: &[M::Report],
) -> Value {
    let width = folder_width(points.len());
    let pts: Vec<Value> = points
        .iter()
        .zip(reports)
        .map(|(p, r)| {
            let mut v = mode.summary_json(r);
            if let Some(obj) = v.as_object_mut() {
                obj.insert("index".into(), json!(p.index));
                obj.insert("folder".into(), json!(p.folder_name(width)));
                let values: serde_json::Map<String, Value> = p
                    .values
                    .iter()
                    .map(|(k, x)| (k.clone(), serde_json::to_value(x).unwrap_or(Value::Null)))
                    .collect();
                obj.insert("values".into(), Value::Object(values));
            }
            v
        })
        .collect();
    json!({
        "mode": M::NAME,
        "scenario": name,
        "results": out.display().to_string(),
        "sweep": pts,
    })
}
