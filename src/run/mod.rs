//! Running a scenario from a program: the library entry point (DESIGN §10).
//!
//! [`RunOptions`] says how (results folder, threads, seed and repetition
//! overrides, figures, job log, result cache, shard, what to print);
//! [`run_scenario`] (built-in policies) or [`run_scenario_with`] (a
//! [`Registry`] holding a user's policies) loads the scenario, protects its
//! inputs, prepares the results folder, runs every task on a thread pool
//! (through the result cache when one is asked for), writes the results
//! folder and returns the `--json` document. [`merge_shards`] folds the
//! shard folders of `run --shard I/N` likewise, and [`validate_file`]
//! checks a trace or a scenario. The command line ([`crate::cli`]) is one
//! caller: it turns its arguments into these options; the Python package
//! is another.
//!
//! This module may import `registry`, `models`, `jobs`, `plot` and `core`,
//! never `cli` (`tests/it/architecture.rs`). The crate documentation ([`crate`]) shows a run in a few lines.

mod cache;
mod merge;
mod options;
mod progress;
mod scenario;
mod shard;
mod validate;

use std::path::Path;

use serde_json::Value;

pub use self::cache::{cache_max_size, default_cache_dir};
pub use self::options::{Cache, MAX_THREADS, MergeOptions, RunOptions};
pub use self::progress::{NoProgress, Progress};
pub use self::validate::{validate_file, validate_file_with, validate_file_within};
use crate::core::error::Result;
pub use crate::core::run::shard::ShardSpec;
use crate::registry::Registry;

/// Runs scenarios and merges shards with the policies of a registry,
/// telling an observer about its progress.
pub struct Runner<'a> {
    registry: &'a Registry,
    progress: &'a dyn Progress,
}

impl std::fmt::Debug for Runner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("registry", self.registry)
            .finish_non_exhaustive()
    }
}

impl<'a> Runner<'a> {
    /// A runner of the policies in `registry`, observing nothing.
    pub fn new(registry: &'a Registry) -> Self {
        Self {
            registry,
            progress: &NoProgress,
        }
    }

    /// Tell `progress` how the tasks advance.
    #[must_use]
    pub fn progress(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = progress;
        self
    }

    /// Run the scenario file `scenario` (either mode, any sweep) as
    /// `options` say, write its results folder (or shard folder), print
    /// what `options.quiet` / `options.json` allow on stderr, and return
    /// the `--json` document (DESIGN §10). Installs no signal handler: the
    /// caller keeps its own.
    pub fn run(&self, scenario: &Path, options: &RunOptions) -> Result<Value> {
        options.check()?;
        not_a_data_file(scenario)?;
        crate::core::resources::check_open_files_limit("run")?;
        scenario::run(self.registry, self.progress, scenario, options)
    }

    /// Merge shard folders into the results folder of the whole scenario,
    /// byte for byte what one run writes (DESIGN §10.3); the `--json`
    /// document.
    pub fn merge(&self, options: &MergeOptions) -> Result<Value> {
        options.check()?;
        crate::core::resources::check_open_files_limit("merge")?;
        merge::merge_shards(options, self.registry)
    }
}

/// Refuse a trace or other data file given where a scenario is expected
/// (`tenantsim run traces/hand.csv` was reported as a TOML syntax error
/// at line 1 of the CSV header): a `.csv` or `.json` file is named as
/// what it probably is, with the command that checks it.
fn not_a_data_file(scenario: &Path) -> Result<()> {
    let ext = scenario
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let what = match ext.as_deref() {
        Some("csv") => "a CSV file (a trace?)",
        Some("json") => "a JSON file (a workflow execution or a run.json?)",
        _ => return Ok(()),
    };
    Err(crate::core::error::Error::input(format!(
        "{}: `run` takes a scenario (a .toml file), and this is {what}; a scenario names \
         its trace under [trace] path (see scenarios/quickstart.toml), and `tenantsim \
         validate {}` checks a trace",
        scenario.display(),
        scenario.display()
    )))
}

/// [`Runner::run`] with the built-in policies.
pub fn run_scenario(scenario: &Path, options: &RunOptions) -> Result<Value> {
    Runner::new(&Registry::builtin()).run(scenario, options)
}

/// [`Runner::run`] with the policies of `registry`: a scenario may name
/// any policy registered there.
pub fn run_scenario_with(
    scenario: &Path,
    options: &RunOptions,
    registry: &Registry,
) -> Result<Value> {
    Runner::new(registry).run(scenario, options)
}

/// [`Runner::merge`] with the policies of `registry`.
pub fn merge_shards(options: &MergeOptions, registry: &Registry) -> Result<Value> {
    Runner::new(registry).merge(options)
}

/// The scenario's name and task count after validating every point (what
/// `tenantsim slurm` needs), with the policies of `registry`.
pub fn name_and_tasks(scenario: &Path, registry: &Registry) -> Result<(String, u64)> {
    scenario::name_and_tasks(scenario, registry)
}

/// The scenario's name, its tasks and its memory estimate in bytes at
/// `threads` worker threads (DESIGN §8.5; the largest point's for a
/// sweep, `None` where the mode makes none), not checked against this
/// machine's memory: what `tenantsim slurm` asks each shard's node for.
pub fn name_tasks_and_memory(
    scenario: &Path,
    registry: &Registry,
    threads: u32,
) -> Result<(String, u64, Option<u64>)> {
    scenario::name_tasks_and_memory(scenario, registry, threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_options_bounds_name_the_option() {
        assert!(RunOptions::default().check().is_ok());
        assert!(RunOptions::default().threads(1).check().is_ok());
        assert!(RunOptions::default().threads(MAX_THREADS).check().is_ok());
        for (o, start) in [
            (RunOptions::default().threads(0), "threads: "),
            (RunOptions::default().threads(MAX_THREADS + 1), "threads: "),
            (RunOptions::default().reps(0), "reps: "),
        ] {
            let e = o.check().expect_err("out of bounds");
            assert_eq!(e.kind(), crate::core::error::ErrorKind::Usage);
            assert!(e.message().starts_with(start), "{e}");
        }
        assert!(RunOptions::default().reps(1).check().is_ok());
    }

    #[test]
    fn merge_options_need_a_shard_and_bounded_threads() {
        let ok = MergeOptions::new(vec![std::path::PathBuf::from("a")], "out");
        assert!(ok.check().is_ok());
        let none = MergeOptions::new(Vec::new(), "out");
        assert!(
            none.check()
                .expect_err("no shard")
                .message()
                .starts_with("shards: ")
        );
        let mut zero = ok;
        zero.threads = Some(0);
        assert!(
            zero.check()
                .expect_err("0")
                .message()
                .starts_with("threads: ")
        );
    }
}
