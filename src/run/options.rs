//! How a run goes: [`RunOptions`] (and [`MergeOptions`] for `merge`),
//! clap-free, with their bounds checked once here.

use std::path::PathBuf;

use crate::core::error::{Error, Result};
use crate::core::run::shard::ShardSpec;

/// The largest worker thread count a run accepts.
pub const MAX_THREADS: u32 = 1024;

/// Which result cache a run uses (DESIGN §10.2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Cache {
    /// No cache: every task is simulated, nothing is stored (the library's
    /// default: a caller's own policies are not part of the cache key's
    /// build identity).
    #[default]
    None,
    /// The default folder ([`default_cache_dir`](super::default_cache_dir): `$TENANTSIM_CACHE`, else
    /// `$XDG_CACHE_HOME/tenantsim`, else `~/.cache/tenantsim`); one that
    /// cannot be made is a warning and the run goes on without.
    Default,
    /// This folder; one that cannot be made is an error.
    Dir(PathBuf),
}

/// How to run a scenario: every option of `tenantsim run` but the
/// scenario itself. `Default` is a run of the scenario as written into
/// `results/<name>`, on every core, with figures, no job log, no result
/// cache, printing its summary on stderr. Set fields directly or chain the
/// setters; the bounds are checked when the run starts
/// ([`RunOptions::check`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// Results folder (default: `results/<scenario name>`, or
    /// `results/<name>.shard-I-of-N` for a shard). An existing one is
    /// replaced only if tenantsim wrote it, or with `force`.
    pub out: Option<PathBuf>,
    /// Replace `out` even if tenantsim did not write it (never one holding
    /// the scenario, its trace or the current directory).
    pub force: bool,
    /// Worker threads, 1 to [`MAX_THREADS`] (default: all cores). Results
    /// do not depend on it.
    pub threads: Option<u32>,
    /// Replace the scenario's seed.
    pub seed: Option<u64>,
    /// Replace the scenario's number of repetitions (at least 1).
    pub reps: Option<u32>,
    /// Draw the figures (`false` is `[output] plots = false`, the command
    /// line's `--no-plots`).
    pub plots: bool,
    /// Also write `jobs.csv` with every job of every run (`--jobs`).
    pub keep_jobs: bool,
    /// The result cache.
    pub cache: Cache,
    /// Run only this shard of the flat task list and write a shard folder.
    pub shard: Option<ShardSpec>,
    /// Print nothing on stderr but errors (no summary, no warnings about
    /// the set-up).
    pub quiet: bool,
    /// The caller prints the returned document (`--json`): the terminal
    /// table is not printed on stderr.
    pub json: bool,
    /// Bytes the run may hold (`--max-memory`): replaces the machine's
    /// memory in the check made before the scenario's trace is loaded
    /// (docs/REFERENCE.md, "Limits").
    pub max_memory: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            out: None,
            force: false,
            threads: None,
            seed: None,
            reps: None,
            plots: true,
            keep_jobs: false,
            cache: Cache::None,
            shard: None,
            quiet: false,
            json: false,
            max_memory: None,
        }
    }
}

impl RunOptions {
    /// Write the results into `dir`.
    #[must_use]
    pub fn out(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out = Some(dir.into());
        self
    }

    /// Replace `out` even if tenantsim did not write it.
    #[must_use]
    pub fn force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// Run on `n` worker threads (1 to [`MAX_THREADS`]).
    #[must_use]
    pub fn threads(mut self, n: u32) -> Self {
        self.threads = Some(n);
        self
    }

    /// Replace the scenario's seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Replace the scenario's number of repetitions (at least 1).
    #[must_use]
    pub fn reps(mut self, reps: u32) -> Self {
        self.reps = Some(reps);
        self
    }

    /// Draw the figures or not.
    #[must_use]
    pub fn plots(mut self, plots: bool) -> Self {
        self.plots = plots;
        self
    }

    /// Let the run hold up to `bytes` (`--max-memory`): the memory check
    /// made before the trace is loaded compares its estimate with this
    /// instead of the machine's memory.
    #[must_use]
    pub fn max_memory(mut self, bytes: u64) -> Self {
        self.max_memory = Some(bytes);
        self
    }

    /// Write `jobs.csv` or not.
    #[must_use]
    pub fn keep_jobs(mut self, keep: bool) -> Self {
        self.keep_jobs = keep;
        self
    }

    /// Use this result cache.
    #[must_use]
    pub fn cache(mut self, cache: Cache) -> Self {
        self.cache = cache;
        self
    }

    /// Run only this shard.
    #[must_use]
    pub fn shard(mut self, shard: ShardSpec) -> Self {
        self.shard = Some(shard);
        self
    }

    /// Print nothing on stderr but errors.
    #[must_use]
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.quiet = quiet;
        self
    }

    /// Leave the summary to the returned document (no table on stderr).
    #[must_use]
    pub fn json(mut self, json: bool) -> Self {
        self.json = json;
        self
    }

    /// The bounds of the options, checked once for every caller: a usage
    /// error naming the option.
    pub fn check(&self) -> Result<()> {
        check_threads(self.threads)?;
        if self.reps == Some(0) {
            return Err(Error::usage(
                "reps: expected a number of repetitions of at least 1, got 0",
            ));
        }
        if let Some(s) = self.shard
            && s.index >= s.count
        {
            return Err(Error::usage(format!(
                "shard: expected I/N with 0 <= I < N, got {}/{}",
                s.index, s.count
            )));
        }
        Ok(())
    }
}

/// `threads` within 1..=[`MAX_THREADS`], or a usage error naming it.
fn check_threads(threads: Option<u32>) -> Result<()> {
    match threads {
        Some(t) if !(1..=MAX_THREADS).contains(&t) => Err(Error::usage(format!(
            "threads: expected a number of worker threads from 1 to {MAX_THREADS}, got {t}"
        ))),
        _ => Ok(()),
    }
}

/// How to merge shards: every option of `tenantsim merge`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOptions {
    /// The shard folders written by `run --shard I/N` (at least one).
    pub shards: Vec<PathBuf>,
    /// The results folder to write.
    pub out: PathBuf,
    /// Replace `out` even if tenantsim did not write it.
    pub force: bool,
    /// Merge what is there when shards are missing (the results are marked
    /// partial).
    pub allow_partial: bool,
    /// Worker threads for the aggregation, 1 to [`MAX_THREADS`] (default:
    /// all cores).
    pub threads: Option<u32>,
    /// Print nothing on stderr but errors.
    pub quiet: bool,
    /// The caller prints the returned document: no table on stderr.
    pub json: bool,
}

impl MergeOptions {
    /// Merge `shards` into `out`, every other option at its default.
    pub fn new(shards: Vec<PathBuf>, out: impl Into<PathBuf>) -> Self {
        Self {
            shards,
            out: out.into(),
            force: false,
            allow_partial: false,
            threads: None,
            quiet: false,
            json: false,
        }
    }

    /// The bounds of the options: a usage error naming the option.
    pub fn check(&self) -> Result<()> {
        check_threads(self.threads)?;
        if self.shards.is_empty() {
            return Err(Error::usage("shards: expected at least one shard folder"));
        }
        Ok(())
    }
}
