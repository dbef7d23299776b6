//! `tenantsim run SCENARIO --shard I/N`: one shard's tasks into a shard
//! folder (DESIGN §10.3); `tenantsim merge` folds the shards.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::cache::{cache_notes, resumable, trim_cache};
use super::{Progress, RunOptions};
use crate::core::error::{Error, Result};
use crate::core::io::{StagedDir, write_atomic};
use crate::core::run::identity::{TOOL_BUILD, sha256_hex};
use crate::core::run::mode::Mode;
use crate::core::run::runner::{Sources, run_shard};
use crate::core::run::shard::{self, Manifest, Recipe, RunsWriter, ShardSpec};

/// The scenario and trace hashes of a plan's scenarios (a shard
/// manifest's `scenario_sha256` and `trace_sha256`), and its parts (the
/// manifest's `parts`): the resolved scenarios' hash under `scenario`,
/// and each named input's hash over every point.
pub(super) fn plan_identity<M: Mode>(
    mode: &M,
    scenarios: &[&M::Scenario],
) -> (String, String, BTreeMap<String, String>) {
    let (mut full, mut inputs) = (String::new(), String::new());
    let mut parts: BTreeMap<String, String> = BTreeMap::new();
    for s in scenarios {
        let id = mode.identity(s);
        full.push_str(&id.full);
        full.push('\n');
        inputs.push_str(&id.inputs);
        inputs.push('\n');
        let mut add = |name: &str, hash: &str| {
            let text = parts.entry(name.to_string()).or_default();
            text.push_str(hash);
            text.push('\n');
        };
        add(SCENARIO_PART, &id.resolved_sha256);
        for (name, hash) in &id.input_parts {
            add(name, hash);
        }
    }
    let parts = parts
        .into_iter()
        .map(|(k, v)| (k, sha256_hex(v.as_bytes())))
        .collect();
    (
        sha256_hex(full.as_bytes()),
        sha256_hex(inputs.as_bytes()),
        parts,
    )
}

/// The name of the resolved scenario among a manifest's `parts`.
pub(super) const SCENARIO_PART: &str = "scenario";

/// What a shard run is: the scenario file, its options, the observer of
/// its progress, the scenario's name and the shard folder.
pub(super) struct ShardJob<'a> {
    pub scenario: &'a Path,
    pub options: &'a RunOptions,
    pub progress: &'a dyn Progress,
    pub name: &'a str,
    pub out: &'a Path,
}

/// `run --shard I/N`: the shard's tasks, their runs into the shard folder
/// `job.out` (staged, moved into place complete) with its manifest.
pub(super) fn run_shard_folder<M: Mode>(
    mode: &M,
    job: &ShardJob<'_>,
    pool: &rayon::ThreadPool,
    scenarios: &[&M::Scenario],
    sources: Sources<'_>,
    shard: ShardSpec,
) -> Result<Value> {
    let ShardJob {
        scenario,
        options: args,
        progress,
        name,
        out,
    } = *job;
    let total: u64 = scenarios.iter().map(|s| mode.tasks(s)).sum();
    let (scenario_sha256, trace_sha256, parts) = plan_identity(mode, scenarios);
    let scenario_path =
        std::path::absolute(scenario).map_err(|e| Error::io("resolve", scenario, &e))?;
    let staged = StagedDir::new(out)?;
    let mut runs = RunsWriter::create(&staged.path().join(shard::RUNS))?;
    progress.start(shard.len(total));
    let done = run_shard(
        mode,
        pool,
        scenarios,
        args.keep_jobs,
        sources,
        shard,
        &mut |k, key, encode| runs.push_with(k, key, encode),
        &|| progress.task_done(),
    );
    progress.finish();
    if !args.quiet {
        cache_notes(sources.cache);
    }
    trim_cache(sources.cache, args.quiet);
    let done = done.map_err(|e| resumable(e, sources.cache))?;
    runs.finish()?;
    let manifest = Manifest {
        format: shard::FORMAT.into(),
        tool: TOOL_BUILD.into(),
        mode: M::NAME.into(),
        name: name.into(),
        scenario_sha256,
        trace_sha256,
        parts,
        recipe: Recipe {
            scenario_path,
            seed: args.seed,
            repetitions: args.reps,
            no_plots: !args.plots,
            jobs: args.keep_jobs,
        },
        shard,
        total_tasks: total,
        tasks: done.tasks.clone(),
        from_cache: done.from_cache,
        ran: done.ran,
    };
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| Error::input(format!("cannot render the shard manifest: {e}")))?;
    write_atomic(
        &staged.path().join(shard::MANIFEST),
        format!("{text}\n").as_bytes(),
    )?;
    staged.commit()?;
    let wall = done.wall.as_secs_f64();
    if !args.quiet {
        eprintln!(
            "ran shard {shard} of `{name}`: {} of {total} tasks ({} ran, {} from the result cache) in {wall:.3} s on {} thread(s)",
            done.tasks.len(),
            done.ran,
            done.from_cache,
            done.threads
        );
        eprintln!(
            "shard folder {}: merge all {} with `tenantsim merge SHARD_DIR... --out DIR`",
            out.display(),
            shard.count
        );
    }
    stopped_after_commit(out)?;
    Ok(json!({
        "mode": M::NAME,
        "scenario": name,
        "shard": { "index": shard.index, "count": shard.count },
        "results": out.display().to_string(),
        "tasks": done.tasks.len(),
        "total_tasks": total,
        "ran": done.ran,
        "from_cache": done.from_cache,
        "threads": done.threads,
        "wall_time_s": wall,
    }))
}

/// A signal that arrived after the results were moved into place still
/// stops the command with its exit code; the results stay.
pub(super) fn stopped_after_commit(out: &Path) -> Result<()> {
    if crate::core::interrupt::requested() {
        return Err(Error::interrupted(format!(
            "interrupted after the results were complete: they are in {}",
            out.display()
        )));
    }
    Ok(())
}
