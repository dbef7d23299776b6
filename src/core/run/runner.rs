//! The runner both modes share (DESIGN §5, §10): tasks on a thread pool,
//! folded in task order whatever the thread count; the results folders of
//! a plan (one scenario or a sweep), staged and moved into place.

use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::core::error::{Error, Result};
use crate::core::io::{StagedDir, write_atomic};
use crate::core::run::cache::{ResultCache, StoredRun};
use crate::core::run::execution::Execution;
use crate::core::run::identity::TaskKeys;
use crate::core::run::mode::{Mode, PointInfo};
use crate::core::run::shard::ShardSpec;
use crate::core::run::sweep::Plan;

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
    /// Per scenario: how its tasks were obtained.
    pub executions: Vec<Execution>,
}

/// Where a task's result may come from besides a simulation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sources<'a> {
    /// The result cache: every task is looked up first, and every task
    /// simulated is stored.
    pub cache: Option<&'a ResultCache>,
}

/// The first flat task number of each scenario, and the total.
fn offsets<M: Mode>(mode: &M, scenarios: &[&M::Scenario]) -> (Vec<u64>, u64) {
    let mut offsets = Vec::with_capacity(scenarios.len() + 1);
    let mut total = 0u64;
    for s in scenarios {
        offsets.push(total);
        total += mode.tasks(s);
    }
    offsets.push(total);
    (offsets, total)
}

/// The scenario of flat task `k`.
fn scenario_of(offsets: &[u64], k: u64) -> usize {
    offsets.partition_point(|&o| o <= k).saturating_sub(1)
}

/// Each scenario's task keys for the cache (only with a cache).
fn task_keys<M: Mode>(
    mode: &M,
    scenarios: &[&M::Scenario],
    keep_jobs: bool,
    sources: Sources<'_>,
) -> Vec<TaskKeys> {
    if sources.cache.is_none() {
        return Vec::new();
    }
    all_task_keys(mode, scenarios, keep_jobs)
}

/// The key of flat task `k`, of scenario `s` (whose tasks start at
/// `offsets[s]`).
fn flat_task_key(keys: &[TaskKeys], offsets: &[u64], s: usize, k: u64) -> String {
    keys.get(s)
        .map(|t| t.key(k - offsets[s]))
        .unwrap_or_default()
}

/// Each scenario's task keys (the identity a shard record is bound to).
fn all_task_keys<M: Mode>(mode: &M, scenarios: &[&M::Scenario], keep_jobs: bool) -> Vec<TaskKeys> {
    scenarios
        .iter()
        .map(|s| mode.identity(s).task_keys(keep_jobs))
        .collect()
}

/// A task's run, from the cache or simulated (and then stored): the run
/// and whether it came from the cache. An entry that does not decode is
/// treated as missing (simulated again and replaced).
fn obtain<M: Mode>(
    mode: &M,
    scenario: &M::Scenario,
    task: u64,
    keep_jobs: bool,
    cache: Option<(&ResultCache, &TaskKeys)>,
) -> Result<(M::Run, bool)> {
    let key = cache.map(|(_, keys)| keys.key(task));
    if let (Some((cache, _)), Some(key)) = (cache, &key)
        && let Some(mut stored) = cache.get_run(key)?
        && let Ok(run) = mode.decode_run_from(scenario, &mut stored)
    {
        return Ok((run, true));
    }
    let run = mode.run(scenario, task, keep_jobs)?;
    if let (Some((cache, _)), Some(key)) = (cache, &key) {
        // Streamed into the entry's file as it is encoded (DESIGN §10.2).
        cache.put_with(key, &mut |out| mode.encode_run(scenario, &run, out))?;
    }
    Ok((run, false))
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
    run_scenarios_from(
        mode,
        pool,
        scenarios,
        keep_jobs,
        Sources::default(),
        on_done,
    )
}

/// [`run_scenarios`], each task read from `sources.cache` when it holds
/// it (and stored there when simulated, as soon as it finishes: an
/// interrupted run leaves its finished tasks in the cache).
pub fn run_scenarios_from<M: Mode>(
    mode: &M,
    pool: &rayon::ThreadPool,
    scenarios: &[&M::Scenario],
    keep_jobs: bool,
    sources: Sources<'_>,
    on_done: &(dyn Fn() + Sync),
) -> Result<Folded<M::Fold>> {
    let mut folds = scenarios
        .iter()
        .map(|s| mode.start(s, keep_jobs))
        .collect::<Result<Vec<_>>>()?;
    let (offsets, total) = offsets(mode, scenarios);
    let keys = task_keys(mode, scenarios, keep_jobs, sources);
    let mut executions = new_executions(mode, scenarios, sources);
    let start = Instant::now();
    let task = |k: u64| {
        let s = scenario_of(&offsets, k);
        let cache = sources.cache.zip(keys.get(s));
        let run = obtain(mode, scenarios[s], k - offsets[s], keep_jobs, cache);
        on_done();
        run.map(|(r, cached)| (s, r, cached))
    };
    let chunk = pool.current_num_threads().max(1) * M::CHUNK_PER_THREAD;
    fold_in_order(pool, total, chunk, &task, &mut |(s, run, cached)| {
        count(&mut executions[s], cached);
        mode.fold(scenarios[s], &mut folds[s], run)
    })?;
    Ok(Folded {
        folds,
        threads: pool.current_num_threads(),
        wall: start.elapsed(),
        executions,
    })
}

fn new_executions<M: Mode>(
    mode: &M,
    scenarios: &[&M::Scenario],
    sources: Sources<'_>,
) -> Vec<Execution> {
    scenarios
        .iter()
        .map(|s| Execution {
            tasks: mode.tasks(s),
            cache: sources.cache.map(|c| c.dir().display().to_string()),
            ..Execution::default()
        })
        .collect()
}

fn count(e: &mut Execution, cached: bool) {
    if cached {
        e.from_cache += 1;
    } else {
        e.ran += 1;
    }
}

/// Where [`run_shard`] hands each task's run: (flat id, the task's key,
/// a function writing the run's encoding to the writer it is given, as
/// it is encoded: [`Mode::encode_run`]).
pub type ShardSink<'a> = dyn FnMut(u64, &str, &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>) -> Result<()>
    + Send
    + 'a;

/// Where [`merge_scenarios`] gets task k's encoded run, given k and the
/// task's key: a checked run to read as it is decoded, `None` when no
/// shard holds it.
pub type NextRun<'a> = dyn FnMut(u64, &str) -> Result<Option<StoredRun>> + 'a;

/// What [`run_shard`] did.
#[derive(Debug, Clone)]
pub struct ShardRun {
    /// The flat task ids written, ascending.
    pub tasks: Vec<u64>,
    /// Of those, read from the cache.
    pub from_cache: u64,
    /// And simulated.
    pub ran: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time.
    pub wall: Duration,
}

/// Run shard `shard` of the flat task list of `scenarios` (the tasks k
/// with k mod N = I, [`ShardSpec`]) and hand each task's encoded run to
/// `sink` in task order, with its flat id and its key (the task's
/// identity, which the shard record is bound to). Nothing is folded:
/// merging the shards does that ([`merge_scenarios`]).
#[allow(clippy::too_many_arguments)]
pub fn run_shard<M: Mode>(
    mode: &M,
    pool: &rayon::ThreadPool,
    scenarios: &[&M::Scenario],
    keep_jobs: bool,
    sources: Sources<'_>,
    shard: ShardSpec,
    sink: &mut ShardSink<'_>,
    on_done: &(dyn Fn() + Sync),
) -> Result<ShardRun> {
    let (offsets, total) = offsets(mode, scenarios);
    let keys = all_task_keys(mode, scenarios, keep_jobs);
    let start = Instant::now();
    let task = |j: u64| {
        let k = shard.task(j);
        let s = scenario_of(&offsets, k);
        let cache = sources.cache.zip(keys.get(s));
        let got = obtain(mode, scenarios[s], k - offsets[s], keep_jobs, cache);
        on_done();
        let (run, cached) = got?;
        let key = flat_task_key(&keys, &offsets, s, k);
        Ok((k, key, s, run, cached))
    };
    let mut done = ShardRun {
        tasks: Vec::new(),
        from_cache: 0,
        ran: 0,
        threads: pool.current_num_threads(),
        wall: Duration::ZERO,
    };
    let chunk = pool.current_num_threads().max(1) * M::CHUNK_PER_THREAD;
    fold_in_order(pool, shard.len(total), chunk, &task, &mut |(
        k,
        key,
        s,
        run,
        cached,
    )| {
        done.tasks.push(k);
        if cached {
            done.from_cache += 1;
        } else {
            done.ran += 1;
        }
        // Encoded into the shard's file as it is written, in task order
        // (never into a buffer of its own: a run of 10^7 tenants is
        // gigabytes encoded).
        sink(k, &key, &mut |out| mode.encode_run(scenarios[s], &run, out))
    })?;
    done.wall = start.elapsed();
    Ok(done)
}

/// Fold every task of `scenarios` from encoded runs, in flat task order:
/// `next(k, key)` gives task k's encoding (checked to be bound to `key`,
/// the task's identity), or `None` when no shard holds it
/// (the task is then left out and listed in the scenario's
/// [`Execution::missing`]). Runs are decoded and folded one at a time,
/// so memory is what the folds keep, never the shards' runs.
pub fn merge_scenarios<M: Mode>(
    mode: &M,
    pool: &rayon::ThreadPool,
    scenarios: &[&M::Scenario],
    keep_jobs: bool,
    next: &mut NextRun<'_>,
) -> Result<Folded<M::Fold>> {
    let mut folds = scenarios
        .iter()
        .map(|s| mode.start(s, keep_jobs))
        .collect::<Result<Vec<_>>>()?;
    let (offsets, total) = offsets(mode, scenarios);
    let keys = all_task_keys(mode, scenarios, keep_jobs);
    let mut executions = new_executions(mode, scenarios, Sources::default());
    let start = Instant::now();
    for k in 0..total {
        if crate::core::interrupt::requested() {
            return Err(Error::interrupted(
                "interrupted: the merge stopped before finishing; no results were written",
            ));
        }
        let s = scenario_of(&offsets, k);
        let key = flat_task_key(&keys, &offsets, s, k);
        match next(k, &key)? {
            Some(mut stored) => {
                let run = mode
                    .decode_run_from(scenarios[s], &mut stored)
                    .map_err(|e| {
                        e.context(format!("task {k}: its run in the shard cannot be read"))
                    })?;
                executions[s].merged += 1;
                mode.fold(scenarios[s], &mut folds[s], run)?;
            }
            None => executions[s].missing.push(k),
        }
    }
    Ok(Folded {
        folds,
        threads: pool.current_num_threads(),
        wall: start.elapsed(),
        executions,
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
    let folded = run_scenarios(mode, pool, scenarios, keep_jobs, on_done)?;
    finish_reports(mode, pool, scenarios, folded)
}

/// Every fold of `folded` finished ([`Mode::finish`], the aggregation),
/// the scenarios in parallel on `pool`.
pub fn finish_reports<M: Mode>(
    mode: &M,
    pool: &rayon::ThreadPool,
    scenarios: &[&M::Scenario],
    folded: Folded<M::Fold>,
) -> Result<Folded<M::Report>> {
    let Folded {
        folds,
        threads,
        wall,
        executions,
    } = folded;
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
        executions,
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
/// [`PLOTS_DIR`](crate::core::io::PLOTS_DIR). The command line passes one that calls [`crate::present::figures`];
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
    executions: &[Execution],
    keep_jobs: bool,
    figures: Figures<'_>,
) -> Result<Vec<String>> {
    let none = Execution::default();
    let execution = |i: usize| executions.get(i).unwrap_or(&none);
    match plan {
        Plan::Single(s) => {
            let report = reports
                .first()
                .ok_or_else(|| Error::input("internal: no report for the scenario"))?;
            write_folder(mode, out, s, report, execution(0), keep_jobs, None, figures)
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
            for (i, ((p, info), report)) in points.iter().zip(&infos).zip(reports).enumerate() {
                written = write_folder(
                    mode,
                    &dir.join(info.folder),
                    &p.scenario,
                    report,
                    execution(i),
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
#[allow(clippy::too_many_arguments)]
fn write_folder<M: Mode>(
    mode: &M,
    dir: &Path,
    scenario: &M::Scenario,
    report: &M::Report,
    execution: &Execution,
    keep_jobs: bool,
    point: Option<PointInfo<'_>>,
    figures: Figures<'_>,
) -> Result<Vec<&'static str>> {
    let staged = StagedDir::new(dir)?;
    let mut names = mode.write(staged.path(), scenario, report, keep_jobs, point, execution)?;
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
