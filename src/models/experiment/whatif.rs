//! What-if forks of a finished run (DESIGN §15.4): re-run one repetition
//! of each policy of a results folder's scenario up to a simulated
//! instant, fork it there, and continue one copy unchanged (the baseline)
//! and one with a change (another policy, or GPUs added or removed); both
//! continuations are written as results folders of the usual form.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use super::episode::{Episode, write_episodes};
use crate::core::error::{Error, Result};
use crate::core::io::StagedDir;
use crate::core::io::echo::shown_number;
use crate::core::io::manifest_doc::ManifestDoc;
use crate::core::io::scenario::Overrides;
use crate::core::io::write_atomic;
use crate::core::sim::time::{micros_to_secs_string, to_seconds};
use crate::models::metrics::RepResult;
use crate::models::policy::registry::ModelRegistry;
use crate::models::scenario::{Scenario, ScenarioFile, TraceCache, build_scenario};
use crate::models::trace::Micros;

/// The sub-folder of the unchanged continuations.
pub const BASELINE_DIR: &str = "baseline";
/// The sub-folder of the changed continuations.
pub const CHANGED_DIR: &str = "changed";
/// The file that says what was forked where.
pub const WHATIF_JSON: &str = "whatif.json";

/// What changes at the fork (DESIGN §15.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The scenario's policy of this index runs from the fork on (the run
    /// of that policy itself goes on unchanged).
    Policy(usize),
    /// GPUs added (positive) or removed (negative) at the fork.
    Gpus(i64),
}

impl Change {
    /// The change as the command line says it: `policy NAME`, `gpus +N`.
    pub fn describe(&self, scenario: &Scenario) -> String {
        match *self {
            Change::Policy(p) => format!(
                "policy {}",
                scenario.policies.get(p).map_or("?", |p| p.name.as_str())
            ),
            Change::Gpus(n) => format!("gpus {n:+}"),
        }
    }
}

/// One policy's fork: where it happened and the two continuations.
#[derive(Debug, Clone)]
pub struct Fork {
    /// The scenario's policy that ran up to the fork.
    pub policy: usize,
    /// The instant of the fork: the first decision point at or after the
    /// asked time, µs.
    pub at: Micros,
    /// The run continued unchanged (the plain run, DESIGN §15.2).
    pub baseline: RepResult,
    /// The run continued with the change.
    pub changed: RepResult,
}

/// A what-if: every policy of a scenario forked at one time in one
/// repetition.
#[derive(Debug, Clone)]
pub struct WhatIf {
    /// The scenario.
    pub scenario: Arc<Scenario>,
    /// The repetition.
    pub rep: u64,
    /// The time asked for, µs.
    pub at: Micros,
    /// The change.
    pub change: Change,
    /// Per policy, in the scenario's order.
    pub forks: Vec<Fork>,
}

/// The scenario a model-mode results folder `dir` of `tenantsim run` was
/// run with, rebuilt from its `run.json` (the resolved scenario, after
/// command-line overrides, and the scenario file's path, against which its
/// relative paths resolve as at the run), policies named in `registry`.
/// The trace must still have the SHA-256 recorded. A job-mode or shared
/// folder, a sweep's top folder, or a folder without `run.json` is an
/// error that says what is supported.
pub fn results_scenario(dir: &Path, registry: &ModelRegistry) -> Result<Scenario> {
    let shown = dir.display();
    if !dir.is_dir() {
        return Err(Error::input(format!(
            "{shown}: no such results folder (expected the folder `tenantsim run` wrote)"
        )));
    }
    let doc = ManifestDoc::read(dir, "`whatif` rebuilds the run's scenario from it")?;
    let Some(doc) = doc else {
        let sweep = if dir.join("sweep.csv").is_file() {
            " (a sweep's folder: give one of its points' folders)"
        } else {
            ""
        };
        return Err(Error::input(format!(
            "{shown}: no run.json: expected a model-mode results folder of `tenantsim run`{sweep}"
        )));
    };
    let manifest = doc.path();
    if let Some(mode) = doc.mode() {
        return Err(Error::input(format!(
            "{shown}: its run.json says `mode` = \"{mode}\": what-if forks model-mode \
             runs only (a scenario without `mode`, or `mode = \"models\"`)"
        )));
    }
    let (Some(file), Some(path), Some(sha)) = (
        doc.scenario(),
        doc.scenario_path(),
        doc.pointer("/trace/sha256").and_then(Value::as_str),
    ) else {
        return Err(Error::input(format!(
            "{}: expected the keys `scenario`, `scenario_path` and `trace.sha256` of a \
             model-mode run's manifest",
            manifest.display()
        )));
    };
    let file: ScenarioFile = serde_json::from_value(file.clone()).map_err(|e| {
        Error::input(format!(
            "{}: `scenario` is not a model-mode scenario: {e}",
            manifest.display()
        ))
    })?;
    let scenario = build_scenario(
        Path::new(path),
        file,
        Overrides::default(),
        &mut TraceCache::default(),
        registry,
    )
    .map_err(|e| {
        e.context(format!(
            "{}: rebuilding the run's scenario (paths relative to {path}, as at the run)",
            manifest.display()
        ))
    })?;
    if scenario.trace_sha256 != sha {
        return Err(Error::input(format!(
            "{}: the trace {} has changed since the run (SHA-256 {} now, {sha} then)",
            manifest.display(),
            scenario.trace_path.display(),
            scenario.trace_sha256
        )));
    }
    Ok(scenario)
}

/// `at` seconds as µs, rounded to the nearest: finite, ≥ 0 and at most
/// 10^12 s.
pub fn parse_at(at: f64) -> Result<Micros> {
    if !(0.0..=1.0e12).contains(&at) {
        return Err(Error::usage(format!(
            "--at {}: expected a simulated time in seconds, at least 0 (and at most 1e12)",
            shown_number(at)
        )));
    }
    Ok((at * 1.0e6).round() as Micros)
}

/// `at` seconds as µs ([`parse_at`]), before the scenario's horizon if it
/// has one.
pub fn fork_time(scenario: &Scenario, at: f64) -> Result<Micros> {
    let us = parse_at(at)?;
    if let Some(h) = scenario.config.horizon
        && us >= h
    {
        return Err(Error::usage(format!(
            "--at {at}: past the end: the scenario's horizon is {} s",
            micros_to_secs_string(h)
        )));
    }
    Ok(us)
}

/// Fork repetition `rep` of every policy of `scenario` at the first
/// decision point at or after `at` (µs; every decision before it the
/// scheduler's pick), and continue one copy unchanged and one with
/// `change` to their ends (DESIGN §15.4). A run with no decision point
/// at or after `at` is an error naming its end.
pub fn what_if(scenario: Arc<Scenario>, rep: u64, at: Micros, change: Change) -> Result<WhatIf> {
    if rep >= u64::from(scenario.repetitions()) {
        return Err(Error::usage(format!(
            "--rep {rep}: the run has {} repetition(s) (0 to {})",
            scenario.repetitions(),
            scenario.repetitions().saturating_sub(1)
        )));
    }
    if let Change::Policy(p) = change
        && p >= scenario.policies.len()
    {
        return Err(Error::usage(format!("no policy {p} in the scenario")));
    }
    let mut forks = Vec::with_capacity(scenario.policies.len());
    for policy in 0..scenario.policies.len() {
        let name = &scenario.policies[policy].name;
        let mut baseline = Episode::new(Arc::clone(&scenario), rep, policy)?;
        let mut last = None;
        let point = loop {
            match baseline.next_decision()? {
                Some(p) if p.now >= at => break p,
                Some(p) => {
                    last = Some(p.now);
                    baseline.decide(p.policy_choice)?;
                }
                None => {
                    let last = last.map_or("none".to_string(), |t| {
                        format!("the last at {} s", micros_to_secs_string(t))
                    });
                    return Err(Error::usage(format!(
                        "--at {}: past the end: the run of policy `{name}` (repetition {rep}) \
                         has no decision point at or after it ({last}; the run ended at {} s)",
                        to_seconds(at),
                        micros_to_secs_string(baseline.run().now())
                    )));
                }
            }
        };
        let mut changed = baseline.fork()?;
        let context = |e: Error| {
            e.context(format!(
                "policy `{name}`, forked at {} s",
                micros_to_secs_string(point.now)
            ))
        };
        match change {
            Change::Policy(p) if p != policy => changed.switch_policy(p).map_err(context)?,
            // The policy that already runs goes on as it is.
            Change::Policy(_) => {}
            Change::Gpus(n) => {
                let size = u32::try_from(n.unsigned_abs()).map_err(|_| {
                    Error::usage(format!("--gpus {n:+}: at most {} GPUs", u32::MAX))
                })?;
                if n >= 0 {
                    changed.add_gpus(size).map_err(context)?;
                } else {
                    changed.remove_gpus(size).map_err(context)?;
                }
            }
        }
        baseline.run_to_end()?;
        changed.run_to_end()?;
        let mut changed = changed.finish(true)?;
        // The row is the run forked from `policy` (DESIGN §15.4).
        changed.policy = policy;
        forks.push(Fork {
            policy,
            at: point.now,
            baseline: baseline.finish(true)?,
            changed,
        });
    }
    Ok(WhatIf {
        scenario,
        rep,
        at,
        change,
        forks,
    })
}

/// The whole of `tenantsim whatif` but its printing: fork the model-mode
/// results folder `results` (its scenario's policies named in `registry`)
/// at `at` seconds in repetition `rep` with exactly one of `policy` (a
/// policy's name) and `gpus` (±N), and write the folder `out` (default
/// [`WhatIf::default_dir`]; it must not exist). The what-if and the folder
/// written.
pub fn run_what_if(
    results: &Path,
    at: f64,
    policy: Option<&str>,
    gpus: Option<i64>,
    rep: u64,
    out: Option<&Path>,
    registry: &ModelRegistry,
) -> Result<(WhatIf, PathBuf)> {
    parse_at(at)?;
    if policy.is_some() == gpus.is_some() {
        return Err(Error::usage(
            "give exactly one of --policy NAME and --gpus ±N",
        ));
    }
    if let Some(out) = out
        && out.exists()
    {
        return Err(Error::usage(format!(
            "--out {}: already exists; the what-if writes a new folder",
            out.display()
        )));
    }
    let scenario = Arc::new(results_scenario(results, registry)?);
    let at = fork_time(&scenario, at)?;
    let change = match (policy, gpus) {
        (Some(name), _) => {
            Change::Policy(scenario.policy_index(name, &format!("--policy {name}"))?)
        }
        (None, n) => Change::Gpus(n.unwrap_or(0)),
    };
    let what = what_if(scenario, rep, at, change)?;
    let dir = out.map_or_else(|| what.default_dir(results), Path::to_path_buf);
    what.write(&dir, results)?;
    Ok((what, dir))
}

impl WhatIf {
    /// The default output folder: `RESULTS/whatif-rep<R>-at<T>-<change>`
    /// (`T` in seconds as given to µs, the change `policy-NAME`,
    /// `gpus+N` or `gpus-N`).
    pub fn default_dir(&self, results: &Path) -> PathBuf {
        let change = match self.change {
            Change::Policy(p) => format!("policy-{}", self.scenario.policies[p].name),
            Change::Gpus(n) => format!("gpus{n:+}"),
        };
        let at = micros_to_secs_string(self.at);
        let at = at.trim_end_matches('0').trim_end_matches('.');
        results.join(format!("whatif-rep{}-at{at}-{change}", self.rep))
    }

    /// Write `dir` (which must not exist): `baseline/` and `changed/`, the
    /// continuations as results folders of the scenario with every policy
    /// and one repetition (`jobs.csv` included, no figures), and
    /// `whatif.json` (the fork). Built beside `dir` and moved into place
    /// when complete.
    pub fn write(&self, dir: &Path, results: &Path) -> Result<()> {
        if dir.exists() {
            return Err(Error::usage(format!(
                "{}: already exists; the what-if writes a new folder (choose another --out, \
                 or remove it)",
                dir.display()
            )));
        }
        let staged = StagedDir::new(dir)?;
        let base: Vec<RepResult> = self.forks.iter().map(|f| f.baseline.clone()).collect();
        let changed: Vec<RepResult> = self.forks.iter().map(|f| f.changed.clone()).collect();
        write_episodes(
            &staged.path().join(BASELINE_DIR),
            &self.scenario,
            &base,
            true,
        )?;
        write_episodes(
            &staged.path().join(CHANGED_DIR),
            &self.scenario,
            &changed,
            true,
        )?;
        let mut text = serde_json::to_string_pretty(&self.manifest(results))
            .map_err(|e| Error::input(format!("cannot write {WHATIF_JSON}: {e}")))?;
        text.push('\n');
        write_atomic(&staged.path().join(WHATIF_JSON), text.as_bytes())?;
        staged.commit()
    }

    /// `whatif.json`: the results folder forked, the repetition, the time
    /// asked, the change, and per policy the instant of its fork.
    fn manifest(&self, results: &Path) -> Value {
        let change = match self.change {
            Change::Policy(p) => json!({"policy": self.scenario.policies[p].name}),
            Change::Gpus(n) => json!({"gpus": n}),
        };
        json!({
            "tool": "tenantsim",
            "version": env!("CARGO_PKG_VERSION"),
            "results": results.display().to_string(),
            "repetition": self.rep,
            "at_s": to_seconds(self.at),
            "change": change,
            "forks": self.forks.iter().map(|f| json!({
                "policy": self.scenario.policies[f.policy].name,
                "forked_at_s": to_seconds(f.at),
            })).collect::<Vec<_>>(),
            "baseline": BASELINE_DIR,
            "changed": CHANGED_DIR,
        })
    }

    /// The comparison table: per policy and continuation, the fork's
    /// instant, R(end) (`cumulative_regret`, accuracy·s), the mean loss at
    /// the end, the GPUs' busy fraction and the run's end (s).
    pub fn table(&self) -> String {
        let what = self.change.describe(&self.scenario);
        let width = self
            .forks
            .iter()
            .map(|f| self.scenario.policies[f.policy].name.len())
            .max()
            .unwrap_or(0)
            .max("policy".len());
        let cw = what.len().max("continuation".len());
        let mut out = format!(
            "{:<width$}  {:<cw$}  {:>11}  {:>12}  {:>10}  {:>8}  {:>12}\n",
            "policy", "continuation", "forked at s", "regret", "final loss", "gpu busy", "end s"
        );
        for f in &self.forks {
            let name = &self.scenario.policies[f.policy].name;
            for (label, r) in [("baseline", &f.baseline), (what.as_str(), &f.changed)] {
                let m = &r.metrics;
                out.push_str(&format!(
                    "{name:<width$}  {label:<cw$}  {:>11.3}  {:>12.3}  {:>10.4}  {:>8.4}  {:>12.3}\n",
                    to_seconds(f.at),
                    m.cumulative_regret,
                    m.final_loss,
                    m.gpu_busy_fraction,
                    to_seconds(m.end),
                ));
            }
        }
        out
    }
}
