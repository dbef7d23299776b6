//! `tenantsim run`, `merge` and `validate`: the arguments turned into
//! [`crate::run`]'s options and run with the caller's registry; what goes
//! to stdout (`--json`) is printed here.

use std::io::Write as _;

use serde_json::Value;

use super::args::{MergeArgs, RunArgs, ValidateArgs};
use super::progress::Bar;
use crate::core::error::{Error, Result};
use crate::registry::Registry;
use crate::run::{Cache, MergeOptions, RunOptions, Runner, validate_file_within};

impl From<&RunArgs> for RunOptions {
    /// The options of `tenantsim run`: without `--cache` or `--no-cache`,
    /// the default result cache ([`Cache::Default`]).
    fn from(args: &RunArgs) -> Self {
        Self {
            out: args.out.clone(),
            force: args.force,
            threads: args.threads,
            seed: args.seed,
            reps: args.reps,
            plots: !args.no_plots,
            keep_jobs: args.jobs,
            cache: match (&args.cache, args.no_cache) {
                (Some(dir), _) => Cache::Dir(dir.clone()),
                (None, true) => Cache::None,
                (None, false) => Cache::Default,
            },
            shard: args.shard,
            quiet: args.quiet,
            json: args.json,
            max_memory: args.max_memory,
        }
    }
}

impl From<&MergeArgs> for MergeOptions {
    fn from(args: &MergeArgs) -> Self {
        Self {
            shards: args.shards.clone(),
            out: args.out.clone(),
            force: args.force,
            allow_partial: args.allow_partial,
            threads: args.threads,
            quiet: args.quiet,
            json: args.json,
        }
    }
}

/// Whether `registry` holds only the built-in policies (by name). The
/// build identity in a result cache key covers the crate's code only, so
/// a registry with a user's policies gets no cache unless `--cache DIR`
/// asks for one (DESIGN §10.2).
fn only_builtin(registry: &Registry) -> bool {
    let builtin = Registry::builtin();
    registry.models.schedulers.names() == builtin.models.schedulers.names()
        && registry.models.selectors.names() == builtin.models.selectors.names()
        && registry.jobs.schedulers.names() == builtin.jobs.schedulers.names()
}

/// Run a scenario (or every point of its sweep) and write its results.
pub fn run(args: &RunArgs, registry: &Registry) -> Result<()> {
    crate::core::interrupt::install_handler();
    let mut options = RunOptions::from(args);
    if options.cache == Cache::Default && !only_builtin(registry) {
        options.cache = Cache::None;
    }
    let bar = Bar::new(!args.quiet);
    let doc = Runner::new(registry)
        .progress(&bar)
        .run(&args.scenario, &options)?;
    if args.json {
        print_json(&doc)?;
    }
    Ok(())
}

/// Merge shards and write the results folder.
pub fn merge(args: &MergeArgs, registry: &Registry) -> Result<()> {
    crate::core::interrupt::install_handler();
    let doc = Runner::new(registry).merge(&MergeOptions::from(args))?;
    if args.json {
        print_json(&doc)?;
    }
    Ok(())
}

/// Check a trace or scenario; describe it on stderr.
pub fn validate(args: &ValidateArgs, registry: &Registry) -> Result<()> {
    let memory = crate::core::memory::MemoryBudget {
        max: args.max_memory,
        threads: args.threads,
        keep_jobs: args.jobs,
    };
    eprint!("{}", validate_file_within(&args.file, registry, memory)?);
    Ok(())
}

/// Print the `--json` document on stdout (`run` and `merge`).
fn print_json(doc: &Value) -> Result<()> {
    let text = serde_json::to_string_pretty(doc)
        .map_err(|e| Error::input(format!("cannot render the JSON summary: {e}")))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}")
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::stdout("the JSON summary", &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn options(line: &[&str]) -> RunOptions {
        let cli = super::super::args::Cli::try_parse_from(line).expect("parses");
        match cli.command {
            super::super::args::Command::Run(args) => RunOptions::from(&args),
            other => panic!("not run: {other:?}"),
        }
    }

    #[test]
    fn run_arguments_become_the_same_options() {
        let o = options(&["tenantsim", "run", "s.toml"]);
        assert_eq!(
            o,
            RunOptions {
                cache: Cache::Default,
                ..RunOptions::default()
            }
        );
        let o = options(&[
            "tenantsim",
            "run",
            "s.toml",
            "--out",
            "o",
            "--force",
            "--jobs",
            "--threads",
            "3",
            "--seed",
            "7",
            "--reps",
            "2",
            "--quiet",
            "--no-plots",
            "--json",
            "--shard",
            "1/4",
            "--cache",
            "c",
        ]);
        let expected = RunOptions::default()
            .out("o")
            .force(true)
            .keep_jobs(true)
            .threads(3)
            .seed(7)
            .reps(2)
            .quiet(true)
            .plots(false)
            .json(true)
            .shard(crate::run::ShardSpec { index: 1, count: 4 })
            .cache(Cache::Dir("c".into()));
        assert_eq!(o, expected);
        assert_eq!(
            options(&["tenantsim", "run", "s.toml", "--no-cache"]).cache,
            Cache::None
        );
    }

    /// A selector that proposes nothing.
    struct Never;
    impl crate::models::sim::Selector for Never {
        fn propose(
            &mut self,
            _: &crate::models::sim::Tenants,
            _: usize,
        ) -> Result<Option<crate::models::sim::Proposal>> {
            Ok(None)
        }
    }

    #[test]
    fn a_registry_with_a_user_policy_is_not_only_builtin() {
        assert!(only_builtin(&Registry::builtin()));
        let mut r = Registry::builtin();
        r.add_selector(crate::models::policy::entry::SelectorEntry::of(
            "never",
            "proposes nothing",
            || Never,
        ))
        .expect("new name");
        assert!(!only_builtin(&r));
    }
}
