//! `tenantsim merge SHARD_DIR... --out DIR`: the shards of one
//! `run --shard I/N` folded, in task order, into the results folder of the
//! whole scenario (DESIGN §10.3).

use std::collections::BTreeMap;

use serde_json::Value;

use super::MergeOptions;
use super::scenario::{Say, task_list, write_and_summarise};
use super::shard::{SCENARIO_PART, plan_identity};
use crate::core::error::{Error, Result};
use crate::core::io::scenario::{Overrides, ScenarioMode, scenario_mode};
use crate::core::io::{Protected, prepare_target};
use crate::core::resources::open_files_budget;
use crate::core::run::identity::TOOL_BUILD;
use crate::core::run::mode::Mode;
use crate::core::run::runner::{finish_reports, merge_scenarios, thread_pool};
use crate::core::run::shard::{MANIFEST, Manifest, Recipe, RunsReader};
use crate::registry::Registry;

/// With more shards than this (or than half the open-file limit,
/// [`open_files_budget`]), each shard's file is opened for each of its
/// records and closed again (task k is in shard k mod N, so a merge reads
/// the shards round-robin; keeping a thousand files open would meet the
/// usual limit of 1,024 open files).
const KEEP_OPEN: usize = 256;

/// No shard holds this task ([`Checked::owner`]).
const NO_OWNER: u32 = u32::MAX;

/// The shards of a merge, checked.
struct Checked {
    /// One per shard folder, in command-line order.
    manifests: Vec<Manifest>,
    /// Per flat task: the shard holding it ([`NO_OWNER`]: missing).
    owner: Vec<u32>,
    /// The missing task ids.
    missing: Vec<u64>,
}

/// The shards' manifests, checked against each other: one scenario, one
/// trace, one build, one shard count, each task at most once.
fn check_shards(args: &MergeOptions) -> Result<Checked> {
    let manifests = args
        .shards
        .iter()
        .map(|d| Manifest::read(d))
        .collect::<Result<Vec<_>>>()?;
    let first = &manifests[0];
    let shown = |i: usize| args.shards[i].display().to_string();
    for (i, m) in manifests.iter().enumerate().skip(1) {
        // With both manifests' parts, each changed input is named; the
        // two whole hashes otherwise (older manifests).
        let by_parts = !m.parts.is_empty() && !first.parts.is_empty();
        let hashes: Vec<(String, &String, &String)> = if by_parts {
            changed_parts(&m.parts, &first.parts)
                .into_iter()
                .map(|(name, a, b)| (part_label(name), a, b))
                .collect()
        } else {
            vec![
                (
                    "scenario (resolved, with its seed, repetitions and policies)".into(),
                    &m.scenario_sha256,
                    &first.scenario_sha256,
                ),
                (
                    "trace (its content hash)".into(),
                    &m.trace_sha256,
                    &first.trace_sha256,
                ),
            ]
        };
        let differs: Vec<String> = [
            ("tenantsim build".to_string(), &m.tool, &first.tool),
            ("mode".to_string(), &m.mode, &first.mode),
        ]
        .into_iter()
        .chain(hashes)
        .filter(|(_, a, b)| a != b)
        .map(|(what, a, b)| format!("{what}: {a} there, {b} in {}", shown(0)))
        .chain(different_runs(&m.recipe, &first.recipe).then(|| {
            format!(
                "how it was run: {} there, {} in {}",
                describe_recipe(m),
                describe_recipe(first),
                shown(0)
            )
        }))
        .chain((m.shard.count != first.shard.count).then(|| {
            format!(
                "shard count: {} there, {} in {}",
                m.shard.count,
                first.shard.count,
                shown(0)
            )
        }))
        .collect();
        if !differs.is_empty() {
            return Err(Error::input(format!(
                "cannot merge: shard {} is not of the same run as {}: different {}",
                shown(i),
                shown(0),
                differs.join("; different ")
            )));
        }
    }
    // Every size the manifests give is checked before the owner table is
    // allocated: `total_tasks` against its limit and each manifest's own
    // task list (a shard I/N of T tasks lists exactly I, I + N, ...).
    let max = crate::core::limits::MAX_MERGE_TASKS;
    for (i, m) in manifests.iter().enumerate() {
        let file = args.shards[i].join(MANIFEST);
        if m.total_tasks != first.total_tasks {
            return Err(Error::input(format!(
                "cannot merge: {}: `total_tasks` is {}, but {} in {}: the shards are not of one run",
                file.display(),
                m.total_tasks,
                first.total_tasks,
                args.shards[0].join(MANIFEST).display()
            )));
        }
        if m.total_tasks > max {
            return Err(Error::input(format!(
                "cannot merge: {}: `total_tasks` is {}, above the limit of {} tasks a merge folds; \
                 the manifest is damaged",
                file.display(),
                m.total_tasks,
                crate::core::limits::grouped(max)
            )));
        }
        let listed = m.tasks.len() as u64;
        let expected = m.shard.len(m.total_tasks);
        let first_wrong = (0..listed).find(|&j| m.tasks[j as usize] != m.shard.task(j));
        if listed != expected || first_wrong.is_some() {
            return Err(Error::input(format!(
                "cannot merge: {}: `tasks` does not match `total_tasks` = {} and `shard` = {}: \
                 expected the {expected} tasks {}, {}, ... of that shard, found {listed}{}; \
                 the manifest is damaged",
                file.display(),
                m.total_tasks,
                m.shard,
                m.shard.task(0),
                m.shard.task(1),
                first_wrong.map_or(String::new(), |j| format!(
                    " (entry {j} is {})",
                    m.tasks[j as usize]
                )),
            )));
        }
    }
    let total = usize::try_from(first.total_tasks)
        .map_err(|_| Error::input("shard manifest: too many tasks for this machine"))?;
    let mut owner: Vec<u32> = vec![NO_OWNER; total];
    for (i, m) in manifests.iter().enumerate() {
        let mut last = None;
        for &t in &m.tasks {
            let slot = usize::try_from(t)
                .ok()
                .and_then(|t| owner.get_mut(t))
                .ok_or_else(|| {
                    Error::input(format!(
                        "cannot merge: shard {} lists task {t}, but the scenario has {total} tasks",
                        shown(i)
                    ))
                })?;
            if last.is_some_and(|l| l >= t) {
                return Err(Error::input(format!(
                    "cannot merge: shard {} lists its tasks out of order (task {t}); the manifest is damaged",
                    shown(i)
                )));
            }
            last = Some(t);
            if *slot != NO_OWNER {
                return Err(Error::input(format!(
                    "cannot merge: task {t} is in two shards, {} and {} (duplicated shard?); give each shard once",
                    shown(*slot as usize),
                    shown(i)
                )));
            }
            *slot = u32::try_from(i).map_err(|_| Error::input("cannot merge: too many shards"))?;
        }
    }
    let missing: Vec<u64> = owner
        .iter()
        .enumerate()
        .filter(|(_, o)| **o == NO_OWNER)
        .map(|(k, _)| k as u64)
        .collect();
    if !missing.is_empty() && !args.allow_partial {
        let count = first.shard.count;
        let mut absent: Vec<u64> = missing.iter().map(|k| k % count).collect();
        absent.dedup();
        absent.sort_unstable();
        absent.dedup();
        let shards: Vec<String> = absent.iter().map(|i| format!("{i}/{count}")).collect();
        return Err(Error::input(format!(
            "cannot merge: {} of {total} tasks are missing (task ids {}): shard(s) {} of `{}` were not given; \
             run them (`tenantsim run SCENARIO --shard I/{count}`) or pass --allow-partial",
            missing.len(),
            task_list(&missing),
            shards.join(", "),
            first.name
        )));
    }
    Ok(Checked {
        manifests,
        owner,
        missing,
    })
}

/// The parts (by name) whose hashes differ between `a` and `b`, in name
/// order, the resolved scenario first; a part only one side has counts.
fn changed_parts<'a>(
    a: &'a BTreeMap<String, String>,
    b: &'a BTreeMap<String, String>,
) -> Vec<(&'a str, &'a String, &'a String)> {
    static NONE: String = String::new();
    let mut names: Vec<&str> = a.keys().chain(b.keys()).map(String::as_str).collect();
    names.sort_by_key(|n| (*n != SCENARIO_PART, *n));
    names.dedup();
    names
        .into_iter()
        .map(|n| (n, a.get(n).unwrap_or(&NONE), b.get(n).unwrap_or(&NONE)))
        .filter(|(_, x, y)| x != y)
        .collect()
}

/// What a manifest part is, for messages (after "different" or "the").
fn part_label(name: &str) -> String {
    match name {
        SCENARIO_PART => "scenario file".into(),
        "trace" => "trace (its content)".into(),
        "arrivals" => "arrivals (an arrivals file or its settings)".into(),
        "job trace" => "job trace (its content)".into(),
        "cluster" => "cluster (its node list)".into(),
        "job types" => "jobs' GPU types (the speed table or the trace's type columns)".into(),
        other => format!("input `{other}`"),
    }
}

/// Whether two shards were run with different options. The scenario's
/// path may differ (machines mount a shared folder in different places):
/// its content is compared through the scenario hash.
fn different_runs(a: &Recipe, b: &Recipe) -> bool {
    (a.seed, a.repetitions, a.no_plots, a.jobs) != (b.seed, b.repetitions, b.no_plots, b.jobs)
}

fn describe_recipe(m: &Manifest) -> String {
    let r = &m.recipe;
    format!(
        "{} (seed {}, repetitions {}, jobs {}, no-plots {})",
        r.scenario_path.display(),
        r.seed.map_or("as in the file".into(), |s| s.to_string()),
        r.repetitions
            .map_or("as in the file".into(), |s| s.to_string()),
        r.jobs,
        r.no_plots
    )
}

/// `tenantsim merge` with the policies of `registry` (options checked by
/// the caller); the `--json` document.
pub(super) fn merge_shards(args: &MergeOptions, registry: &Registry) -> Result<Value> {
    let Checked {
        manifests,
        owner,
        missing,
    } = check_shards(args)?;
    let path = manifests[0].recipe.scenario_path.clone();
    match scenario_mode(&path)? {
        ScenarioMode::Jobs => merge_mode(&registry.job_mode(), args, &manifests, &owner, &missing),
        ScenarioMode::Models => {
            merge_mode(&registry.model_mode(), args, &manifests, &owner, &missing)
        }
        ScenarioMode::Shared => {
            merge_mode(&registry.shared_mode(), args, &manifests, &owner, &missing)
        }
    }
}

fn merge_mode<M: Mode>(
    mode: &M,
    args: &MergeOptions,
    manifests: &[Manifest],
    owner: &[u32],
    missing: &[u64],
) -> Result<Value> {
    let first = &manifests[0];
    if first.tool != TOOL_BUILD {
        return Err(Error::input(format!(
            "cannot merge: the shards were written by {}, this is {TOOL_BUILD}; \
             merge with the binary that ran them (a run's encoding is that build's)",
            first.tool
        )));
    }
    let r = &first.recipe;
    let plan = mode
        .load_plan(
            &r.scenario_path,
            Overrides {
                seed: r.seed,
                repetitions: r.repetitions,
                plots: r.no_plots.then_some(false),
                // The shards' runs passed the memory check where they
                // ran; merging simulates nothing.
                memory: crate::core::memory::MemoryBudget {
                    max: Some(u64::MAX),
                    ..Default::default()
                },
            },
        )
        .map_err(|e| e.context("loading the shards' scenario again"))?;
    let scenarios = plan.scenarios();
    let (scenario_sha256, trace_sha256, parts) = plan_identity(mode, &scenarios);
    if scenario_sha256 != first.scenario_sha256 || trace_sha256 != first.trace_sha256 {
        let named: Vec<String> = changed_parts(&parts, &first.parts)
            .into_iter()
            .map(|(name, ..)| format!("the {}", part_label(name)))
            .collect();
        let what = if !first.parts.is_empty() && !named.is_empty() {
            format!("{} changed", named.join(" and "))
        } else if trace_sha256 != first.trace_sha256 {
            // A manifest without parts: the inputs' hash tells this much.
            "an input of the scenario (its trace, arrivals or node list) changed".to_string()
        } else {
            "the scenario file changed".to_string()
        };
        return Err(Error::input(format!(
            "cannot merge: {what} since the shards were run ({}): run the shards again",
            r.scenario_path.display()
        )));
    }
    let plan_total: u64 = scenarios.iter().map(|s| mode.tasks(s)).sum();
    if plan_total != first.total_tasks {
        return Err(Error::input(format!(
            "cannot merge: {}: `total_tasks` is {}, but the scenario has {plan_total} tasks: \
             the manifest is damaged",
            args.shards[0].join(MANIFEST).display(),
            first.total_tasks
        )));
    }
    if !missing.is_empty() {
        empty_policies(mode, &scenarios, missing)?;
    }
    let name = first.name.clone();
    let mut inputs = vec![Protected {
        what: "the scenario file",
        path: &r.scenario_path,
    }];
    for s in &scenarios {
        inputs.extend(mode.inputs(s));
    }
    for d in &args.shards {
        inputs.push(Protected {
            what: "a shard folder",
            path: d,
        });
    }
    for note in prepare_target(&args.out, args.force, &inputs)? {
        eprintln!("warning: {note}");
    }
    let mut readers = args
        .shards
        .iter()
        .map(|d| RunsReader::open(d))
        .collect::<Result<Vec<_>>>()?;
    let keep_open = readers.len() <= open_files_budget(KEEP_OPEN);
    let pool = thread_pool(args.threads.map(|t| t as usize))?;
    let folded = merge_scenarios(mode, &pool, &scenarios, r.jobs, &mut |k, key| {
        let Some(i) = usize::try_from(k)
            .ok()
            .and_then(|k| owner.get(k))
            .copied()
            .filter(|&o| o != NO_OWNER)
        else {
            return Ok(None);
        };
        let dir = &args.shards[i as usize];
        let reader = &mut readers[i as usize];
        let record = reader.next_record()?;
        if !keep_open {
            reader.close();
        }
        let task = record.task;
        if task != k {
            return Err(Error::input(format!(
                "cannot merge: shard {} holds task {task} where its manifest says task {k}: the shard is damaged; run it again",
                dir.display()
            )));
        }
        Ok(Some(record.run(key)?))
    })?;
    let mut folded = finish_reports(mode, &pool, &scenarios, folded)?;
    let shards: Vec<String> = args
        .shards
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    for e in &mut folded.executions {
        e.shards.clone_from(&shards);
    }
    debug_assert_eq!(
        folded
            .executions
            .iter()
            .map(|e| e.missing.len())
            .sum::<usize>(),
        missing.len()
    );
    let say = Say {
        quiet: args.quiet,
        json: args.json,
        jobs: r.jobs,
    };
    let doc = write_and_summarise(mode, &plan, &name, &args.out, &folded, say)?;
    Ok(doc)
}

/// A partial merge still needs one repetition of every policy at every
/// point: with none there is nothing to aggregate (no curve, no mean).
fn empty_policies<M: Mode>(mode: &M, scenarios: &[&M::Scenario], missing: &[u64]) -> Result<()> {
    let mut offset = 0u64;
    let mut empty = Vec::new();
    let mut next = missing.iter().peekable();
    for (point, s) in scenarios.iter().enumerate() {
        let tasks = mode.tasks(s);
        let policies = mode.identity(s).policies;
        let p = policies.len().max(1) as u64;
        let mut lost = vec![0u64; policies.len().max(1)];
        while let Some(&&k) = next.peek() {
            if k >= offset + tasks {
                break;
            }
            lost[((k - offset) % p) as usize] += 1;
            next.next();
        }
        for (i, &n) in lost.iter().enumerate() {
            if n == tasks / p && n > 0 {
                let name = policies
                    .get(i)
                    .and_then(|v| v.get("name"))
                    .and_then(|v| v.as_str())
                    .unwrap_or("?");
                empty.push(format!("policy `{name}` at point {point}"));
            }
        }
        offset += tasks;
    }
    if empty.is_empty() {
        return Ok(());
    }
    Err(Error::input(format!(
        "cannot merge even with --allow-partial: no repetition of {} is in the shards given, so \
         there is nothing to aggregate; give more shards",
        empty.join(", ")
    )))
}
