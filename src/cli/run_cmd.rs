//! `tenantsim run SCENARIO`: either mode, one scenario or a sweep, through
//! the shared runner ([`crate::core::runner`]).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::RunArgs;
use super::progress::Progress;
use crate::core::error::{Error, Result};
use crate::core::io::{PLOTS_DIR, Protected, prepare_target};
use crate::core::mode::Mode;
use crate::core::runner::{FigureJob, folder_width, run_reports, thread_pool, write_plan};
use crate::core::scenario::{Overrides, ScenarioMode, scenario_mode};
use crate::core::sweep::{Plan, SweepPoint};
use crate::jobs::JobMode;
use crate::plot::{PlotOptions, Source, plot_jobs, plot_model, plot_sweep};
use crate::registry::Registry;

/// Run a scenario (or every point of its sweep) and write its results.
pub fn run(args: &RunArgs) -> Result<()> {
    crate::core::interrupt::install_handler();
    let doc = run_scenario(args)?;
    if args.json {
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::input(format!("cannot render the JSON summary: {e}")))?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{text}")
            .and_then(|()| stdout.flush())
            .map_err(|e| Error::input(format!("cannot write the JSON summary to stdout: {e}")))?;
    }
    Ok(())
}

/// What `tenantsim run` does, for library callers (the Python package):
/// run the scenario `args.scenario` (either mode, any sweep), write its
/// results folder, print what `args.quiet` / `args.json` allow on stderr,
/// and return the `--json` document (DESIGN §10). Installs no signal
/// handler: the caller keeps its own.
pub fn run_scenario(args: &RunArgs) -> Result<Value> {
    run_scenario_with(args, &Registry::builtin())
}

/// [`run_scenario`] with the policies of `registry`: a scenario may name
/// any policy registered there (DESIGN §10).
pub fn run_scenario_with(args: &RunArgs, registry: &Registry) -> Result<Value> {
    match scenario_mode(&args.scenario)? {
        ScenarioMode::Jobs => run_mode(&registry.job_mode(), args),
        ScenarioMode::Models => run_mode(&registry.model_mode(), args),
    }
}

/// `tenantsim run` in mode `mode`; the `--json` document.
fn run_mode<M: Mode>(mode: &M, args: &RunArgs) -> Result<Value> {
    let plan = mode.load_plan(
        &args.scenario,
        Overrides {
            seed: args.seed,
            repetitions: args.reps,
            plots: args.no_plots.then_some(false),
        },
    )?;
    let scenarios = plan.scenarios();
    let name = scenarios
        .first()
        .map_or("run", |s| mode.name(s))
        .to_string();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(&name));
    // Before simulating: may the results folder be replaced, can it be
    // made, and what did killed runs leave beside it?
    let mut inputs = vec![Protected {
        what: "the scenario file",
        path: &args.scenario,
    }];
    for s in &scenarios {
        inputs.extend(mode.inputs(s));
    }
    for note in prepare_target(&out, args.force, &inputs)? {
        eprintln!("warning: {note}");
    }
    // Degenerate set-ups are said before the run (and again in run.json);
    // they never change a result.
    for s in &scenarios {
        for w in mode.setup_warnings(s) {
            eprintln!("warning: `{}`: {w}", mode.name(s));
        }
    }
    let pool = thread_pool(args.threads.map(|t| t as usize))?;
    let total: u64 = scenarios.iter().map(|s| mode.tasks(s)).sum();
    let progress = Progress::new(total, !args.quiet);
    let folded = run_reports(mode, &pool, &scenarios, args.jobs, &|| progress.inc());
    progress.finish();
    let folded = folded?;
    let reports = &folded.folds;
    let (threads, wall) = (folded.threads, folded.wall.as_secs_f64());
    for (s, r) in scenarios.iter().zip(reports) {
        for w in mode.result_warnings(r) {
            eprintln!("warning: `{}`: {w}", mode.name(s));
        }
    }
    let written = write_plan(mode, &out, &plan, reports, args.jobs, &draw_figures)?;
    let mut doc = match &plan {
        Plan::Single(s) => {
            if !args.quiet {
                eprintln!("{}", mode.describe(s, &reports[0]));
                eprintln!("results in {}: {}", out.display(), written.join(", "));
                if !args.json {
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
            if !args.quiet {
                eprintln!(
                    "ran sweep `{name}`: {} point(s), {total} runs in {wall:.3} s on {threads} thread(s)",
                    points.len()
                );
                let (first, rest) = written.split_first().map_or(("", &[][..]), |(f, r)| (f, r));
                eprintln!(
                    "results in {}: {first} and {}",
                    out.display(),
                    rest.join(", ")
                );
                if !args.json {
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
            sweep_json(mode, &name, &out, points, reports)
        }
    };
    stopped_after_commit(&out)?;
    if let Some(obj) = doc.as_object_mut() {
        obj.insert("threads".into(), json!(threads));
        obj.insert("wall_time_s".into(), json!(wall));
    }
    Ok(doc)
}

/// The figures hook of the runner: the figures of [`crate::plot`], drawn
/// from the staged folder's CSVs exactly as `tenantsim plot` would.
fn draw_figures(job: FigureJob<'_>) -> Result<()> {
    let options = PlotOptions::default();
    match job {
        FigureJob::Results { mode, dir, name } => {
            let mut src = Source::dir(dir);
            src.name = Some(name.to_string());
            let target = dir.join(PLOTS_DIR);
            if mode == JobMode::NAME {
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

/// A signal that arrived after the results were moved into place still
/// stops the command with its exit code; the results stay.
fn stopped_after_commit(out: &Path) -> Result<()> {
    if crate::core::interrupt::requested() {
        return Err(Error::interrupted(format!(
            "interrupted after the results were complete: they are in {}",
            out.display()
        )));
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
