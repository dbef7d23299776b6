//! The runner both modes share (DESIGN §5, §10): tasks on a thread pool,
//! folded in task order whatever the thread count; the results folders of
//! a plan (one scenario or a sweep), staged and moved into place.

use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::core::error::{Error, Result};
use crate::core::io::{StagedDir, write_atomic};
use crate::core::mode::{Mode, PointInfo};
use crate::core::sweep::Plan;

/// A rayon pool of `threads` workers (default: all cores).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::input(format!("cannot start {threads} worker threads: {e}")))
}

/// Compute `task(k)` for k in `0..total` on `pool` and hand the results to
/// `sink` in order of k, whatever the thread count: tasks run in chunks of
/// `chunk`, and one chunk is folded (on one worker) while the next is
/// computed (on the others), so at most two chunks of results are held.
/// Stops with an error between tasks once an interrupt was requested.
pub fn fold_in_order<T: Send>(
    pool: &rayon::ThreadPool,
    total: u64,
    chunk: usize,
    task: &(dyn Fn(u64) -> Result<T> + Sync),
    sink: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<()> {
    let run = |k: u64| {
        if crate::core::interrupt::requested() {
            return Err(Error::interrupted(
                "interrupted: the run stopped before finishing; no results were written",
            ));
        }
        task(k)
    };
    let chunk = chunk.max(1) as u64;
    let mut ready: Vec<T> = Vec::new();
    let mut from = 0u64;
    while from < total {
        let to = total.min(from.saturating_add(chunk));
        let (computed, folded) = pool.install(|| {
            rayon::join(
                || {
                    (from..to)
                        .into_par_iter()
                        .map(run)
                        .collect::<Result<Vec<_>>>()
                },
                || ready.drain(..).try_for_each(&mut *sink),
            )
        });
        folded?;
        ready = computed?;
        from = to;
    }
    ready.into_iter().try_for_each(sink)
}

/// A [`Mode`]'s scenarios run and folded: one fold per scenario, in
/// scenario order, with the threads used and the wall time of the whole.
#[derive(Debug)]
pub struct Folded<F> {
    /// One per scenario.
    pub folds: Vec<F>,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time of the simulations.
    pub wall: Duration,
}

/// Run every (scenario, repetition, policy) task of `scenarios` on `pool`
/// as one flat list, calling `on_done` after each task (progress), and
/// fold each run into its scenario's fold as it finishes, in (scenario,
/// repetition, policy) order whatever the thread count. The list itself
/// is never built: task `k` belongs to the scenario whose range of task
/// numbers holds it. At most two chunks of
/// [`Mode::CHUNK_PER_THREAD`] × threads runs are held at once.
pub fn run_scenarios<M: Mode>(
    mode: &M,
    pool: &rayon::ThreadPool,
    scenarios: &[&M::Scenario],
    keep_jobs: bool,
    on_done: &(dyn Fn() + Sync),
) -> Result<Folded<M::Fold>> {
    let mut folds = scenarios
        .iter()
        .map(|s| mode.start(s, keep_jobs))
        .collect::<Result<Vec<_>>>()?;
    let mut offsets = Vec::with_capacity(scenarios.len() + 1);
    let mut total = 0u64;
    for s in scenarios {
        offsets.push(total);
        total += mode.tasks(s);
    }
    offsets.push(total);
    let start = Instant::now();
    let task = |k: u64| {
        let s = offsets.partition_point(|&o| o <= k) - 1;
        let run = mode.run(scenarios[s], k - offsets[s], keep_jobs);
        on_done();
        run.map(|r| (s, r))
    };
    let chunk = pool.current_num_threads().max(1) * M::CHUNK_PER_THREAD;
    fold_in_order(pool, total, chunk, &task, &mut |(s, run)| {
        mode.fold(scenarios[s], &mut folds[s], run)
    })?;
    Ok(Folded {
        folds,
        threads: pool.current_num_threads(),
        wall: start.elapsed(),
    })
}

/// [`run_scenarios`], then every fold finished ([`Mode::finish`], the
/// aggregation), the scenarios in parallel on `pool`: one report per
/// scenario in `folds`.
pub fn run_reports<M: Mode>(
    mode: &M,
    pool: &rayon::ThreadPool,
    scenarios: &[&M::Scenario],
    keep_jobs: bool,
    on_done: &(dyn Fn() + Sync),
) -> Result<Folded<M::Report>> {
    let Folded {
        folds,
        threads,
        wall,
    } = run_scenarios(mode, pool, scenarios, keep_jobs, on_done)?;
    let reports = pool.install(|| {
        folds
            .into_par_iter()
            .zip(scenarios.par_iter())
            .map(|(f, s)| mode.finish(s, f, threads, wall))
            .collect::<Result<Vec<_>>>()
    })?;
    Ok(Folded {
        folds: reports,
        threads,
        wall,
    })
}

/// What the figures hook of [`write_plan`] is asked to draw.
#[derive(Debug, Clone, Copy)]
pub enum FigureJob<'a> {
    /// The figures of one results folder `dir` of mode `mode`.
    Results {
        /// [`Mode::NAME`].
        mode: &'static str,
        /// The (staged) results folder.
        dir: &'a Path,
        /// The scenario's name.
        name: &'a str,
    },
    /// The sweep figures of `sweep.csv` (text `sweep_csv`) into `dir`.
    Sweep {
        /// The sweep folder as named on the command line (for messages).
        out: &'a Path,
        /// The (staged) sweep folder.
        dir: &'a Path,
        /// `sweep.csv`.
        sweep_csv: &'a str,
        /// The sweep's name.
        name: &'a str,
    },
}

/// The figures hook: draws a [`FigureJob`] into its folder's
/// [`PLOTS_DIR`](crate::core::io::PLOTS_DIR). The command line passes one that calls [`crate::plot`];
/// the core knows no figure.
pub type Figures<'a> = &'a (dyn Fn(FigureJob<'_>) -> Result<()> + Sync);

/// The width of the point index in sweep folder names: at least 3 digits.
pub fn folder_width(points: usize) -> usize {
    points.saturating_sub(1).to_string().len().max(3)
}

/// Write the results of `plan` to `out`: one results folder, or for a
/// sweep one folder per point plus `sweep.csv`. Every folder is staged
/// and moved into place complete ([`StagedDir`]); a sweep's points are
/// staged inside the staged sweep folder. Unless a scenario says
/// `[output] plots = false`, `figures` draws into each folder's `plots/`
/// before it is moved into place. Returns the names written (`plots/` for
/// the figures; for a sweep, a description of the point folders).
pub fn write_plan<M: Mode>(
    mode: &M,
    out: &Path,
    plan: &Plan<M::Scenario>,
    reports: &[M::Report],
    keep_jobs: bool,
    figures: Figures<'_>,
) -> Result<Vec<String>> {
    match plan {
        Plan::Single(s) => {
            let report = reports
                .first()
                .ok_or_else(|| Error::input("internal: no report for the scenario"))?;
            write_folder(mode, out, s, report, keep_jobs, None, figures)
                .map(|names| names.into_iter().map(String::from).collect())
        }
        Plan::Sweep { axes, points } => {
            let staged = StagedDir::new(out)?;
            let dir = staged.path();
            let width = folder_width(points.len());
            let folders: Vec<String> = points.iter().map(|p| p.folder_name(width)).collect();
            let infos: Vec<PointInfo<'_>> = points
                .iter()
                .zip(&folders)
                .map(|(p, folder)| PointInfo {
                    index: p.index,
                    folder,
                    values: &p.values,
                })
                .collect();
            let mut written = Vec::new();
            for ((p, info), report) in points.iter().zip(&infos).zip(reports) {
                written = write_folder(
                    mode,
                    &dir.join(info.folder),
                    &p.scenario,
                    report,
                    keep_jobs,
                    Some(*info),
                    figures,
                )?;
            }
            let rows: Vec<(PointInfo<'_>, &M::Report)> =
                infos.iter().copied().zip(reports.iter()).collect();
            let sweep_text = mode.sweep_csv(axes, &rows);
            write_atomic(&dir.join("sweep.csv"), sweep_text.as_bytes())?;
            let plots = points.first().is_some_and(|p| mode.plots(&p.scenario));
            if plots {
                let name = points.first().map_or("", |p| mode.name(&p.scenario));
                figures(FigureJob::Sweep {
                    out,
                    dir,
                    sweep_csv: &sweep_text,
                    name,
                })?;
            }
            staged.commit()?;
            let mut names = vec!["sweep.csv".to_string()];
            if plots {
                names.push("plots/".into());
            }
            names.push(format!(
                "{} point folders ({})",
                points.len(),
                written.join(", ")
            ));
            Ok(names)
        }
    }
}

/// One results folder, staged, with its figures.
fn write_folder<M: Mode>(
    mode: &M,
    dir: &Path,
    scenario: &M::Scenario,
    report: &M::Report,
    keep_jobs: bool,
    point: Option<PointInfo<'_>>,
    figures: Figures<'_>,
) -> Result<Vec<&'static str>> {
    let staged = StagedDir::new(dir)?;
    let mut names = mode.write(staged.path(), scenario, report, keep_jobs, point)?;
    if mode.plots(scenario) {
        figures(FigureJob::Results {
            mode: M::NAME,
            dir: staged.path(),
            name: mode.name(scenario),
        })?;
        names.push("plots/");
    }
    staged.commit()?;
    Ok(names)
}
