//! `tenantsim run SCENARIO`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::{Value, json};

use super::RunArgs;
use super::progress::Progress;
use crate::core::error::{Error, Result};
use crate::core::io::{Protected, StagedDir, prepare_target, write_atomic};
use crate::core::runner::thread_pool;
use crate::core::scenario::Overrides;
use crate::core::sweep::SweepAxis;
use crate::models::aggregate::{Aggregate, aggregate};
use crate::models::experiment::{ExperimentResult, run_grid};
use crate::models::report::{
    PointInfo, ReportOptions, SweepRow, summary_json, summary_table, sweep_csv, write_results,
};
use crate::models::scenario::{Plan, SweepPoint, load_plan};
use crate::plot::{PLOTS_DIR, PlotOptions, Source, plot_sweep};

/// Run a scenario (or every point of its sweep) and write its results.
pub fn run(args: &RunArgs) -> Result<()> {
    crate::core::interrupt::install_handler();
    if crate::cli::jobs::is_jobs_scenario(&args.scenario)? {
        return crate::cli::jobs::run_jobs(args);
    }
    let plan = load_plan(
        &args.scenario,
        Overrides {
            seed: args.seed,
            repetitions: args.reps,
            plots: args.no_plots.then_some(false),
        },
    )?;
    let scenarios = plan.scenarios();
    let name = scenarios.first().map_or("run", |s| s.name()).to_string();
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
        inputs.push(Protected {
            what: "the trace",
            path: &s.trace_path,
        });
    }
    check_out(&out, args, &inputs)?;
    // Degenerate set-ups are said before the run (and again in run.json);
    // they never change a result.
    for s in &scenarios {
        for w in crate::models::warnings::setup_warnings(s) {
            eprintln!("warning: `{}`: {w}", s.name());
        }
    }
    let pool = thread_pool(args.threads.map(|t| t as usize))?;
    let total: u64 = scenarios
        .iter()
        .map(|s| u64::from(s.repetitions()) * s.policies.len() as u64)
        .sum();
    let progress = Progress::new(total, !args.quiet);
    let results = run_grid(&pool, &scenarios, args.jobs, &|| progress.inc());
    progress.finish();
    let results = results?;
    let aggregates: Vec<Aggregate> = pool.install(|| {
        scenarios
            .par_iter()
            .zip(results.par_iter())
            .map(|(s, r)| aggregate(s, r))
            .collect()
    });
    for (s, agg) in scenarios.iter().zip(&aggregates) {
        for w in crate::models::warnings::result_warnings(agg) {
            eprintln!("warning: `{}`: {w}", s.name());
        }
    }
    let options = ReportOptions { jobs: args.jobs };
    let (threads, wall) = results
        .first()
        .map_or((0, 0.0), |r| (r.threads, r.wall.as_secs_f64()));
    let doc = match &plan {
        Plan::Single(s) => {
            let written = write_results(&out, s, &results[0], &aggregates[0], options, None)?;
            if !args.quiet {
                eprintln!(
                    "ran `{}`: {} repetition(s) × {} policies in {wall:.3} s on {threads} thread(s)",
                    s.name(),
                    s.repetitions(),
                    s.policies.len(),
                );
                eprintln!("results in {}: {}", out.display(), written.join(", "));
                if !args.json {
                    eprint!("\n{}", summary_table(&aggregates[0]));
                }
            }
            let mut doc = summary_json(&aggregates[0]);
            if let Some(obj) = doc.as_object_mut() {
                obj.insert("scenario".into(), json!(s.name()));
                obj.insert("results".into(), json!(out.display().to_string()));
            }
            doc
        }
        Plan::Sweep { axes, points } => {
            let files = write_sweep(&out, axes, points, &results, &aggregates, options)?;
            if !args.quiet {
                eprintln!(
                    "ran sweep `{name}`: {} point(s), {total} runs in {wall:.3} s on {threads} thread(s)",
                    points.len()
                );
                eprintln!("results in {}: sweep.csv and {files}", out.display());
                if !args.json {
                    let width = folder_width(points.len());
                    for (p, agg) in points.iter().zip(&aggregates) {
                        eprint!(
                            "\npoint {} ({}) in {}/\n{}",
                            p.index,
                            describe_values(&p.values),
                            p.folder_name(width),
                            summary_table(agg)
                        );
                    }
                }
            }
            sweep_json(&name, &out, points, &aggregates)
        }
    };
    stopped_after_commit(&out)?;
    if args.json {
        let mut doc = doc;
        if let Some(obj) = doc.as_object_mut() {
            obj.insert("threads".into(), json!(threads));
            obj.insert("wall_time_s".into(), json!(wall));
        }
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::input(format!("cannot render the JSON summary: {e}")))?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{text}")
            .and_then(|()| stdout.flush())
            .map_err(|e| Error::input(format!("cannot write the JSON summary to stdout: {e}")))?;
    }
    Ok(())
}

/// Check the results folder `out` before anything runs (see
/// [`prepare_target`]) and report what was found beside it.
fn check_out(out: &Path, args: &RunArgs, inputs: &[Protected<'_>]) -> Result<()> {
    for note in prepare_target(out, args.force, inputs)? {
        eprintln!("warning: {note}");
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

fn folder_width(points: usize) -> usize {
    points.saturating_sub(1).to_string().len().max(3)
}

/// Write one results folder per point and `sweep.csv`; describe the files.
fn write_sweep(
    out: &Path,
    axes: &[SweepAxis],
    points: &[SweepPoint],
    results: &[ExperimentResult],
    aggregates: &[Aggregate],
    options: ReportOptions,
) -> Result<String> {
    // The whole sweep folder is staged and moved into place complete.
    let staged = StagedDir::new(out)?;
    let dir = staged.path();
    let width = folder_width(points.len());
    let folders: Vec<String> = points.iter().map(|p| p.folder_name(width)).collect();
    let mut written = Vec::new();
    for (((p, r), agg), folder) in points.iter().zip(results).zip(aggregates).zip(&folders) {
        let info = PointInfo {
            index: p.index,
            folder,
            values: &p.values,
        };
        written = write_results(&dir.join(folder), &p.scenario, r, agg, options, Some(info))?;
    }
    let rows: Vec<SweepRow<'_>> = points
        .iter()
        .zip(aggregates)
        .zip(&folders)
        .map(|((p, agg), folder)| SweepRow {
            index: p.index,
            folder,
            values: &p.values,
            aggregate: agg,
        })
        .collect();
    let sweep_text = sweep_csv(axes, &rows);
    write_atomic(&dir.join("sweep.csv"), sweep_text.as_bytes())?;
    let plots = points.first().is_some_and(|p| p.scenario.output().plots);
    if plots {
        let mut src = Source::texts(out, &[("sweep.csv", sweep_text.as_str())]);
        src.name = points.first().map(|p| p.scenario.name().to_string());
        plot_sweep(&src, &dir.join(PLOTS_DIR), &PlotOptions::default())?;
    }
    staged.commit()?;
    Ok(format!(
        "{}{} point folders ({})",
        if plots { "plots/, " } else { "" },
        points.len(),
        written.join(", ")
    ))
}

fn describe_values(values: &[(String, toml::Value)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn sweep_json(name: &str, out: &Path, points: &[SweepPoint], aggregates: &[Aggregate]) -> Value {
    let width = folder_width(points.len());
    let pts: Vec<Value> = points
        .iter()
        .zip(aggregates)
        .map(|(p, agg)| {
            let mut v = summary_json(agg);
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
        "scenario": name,
        "results": out.display().to_string(),
        "sweep": pts,
    })
}
