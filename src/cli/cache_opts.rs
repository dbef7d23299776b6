//! The result cache options of `tenantsim run` (`--cache DIR`,
//! `--no-cache`, the default folder) and what a cache says during a run
//! (DESIGN §10.2).

use std::path::PathBuf;

use super::RunArgs;
use crate::core::cache::ResultCache;
use crate::core::error::{Error, ErrorKind, Result};

/// The result cache folder of a run: `--cache DIR`; none with
/// `--no-cache`; else, when `default` (the command line), the default
/// folder ([`default_cache_dir`]).
pub fn cache_dir(args: &RunArgs, default: bool) -> Option<PathBuf> {
    if args.no_cache {
        return None;
    }
    if let Some(dir) = &args.cache {
        return Some(dir.clone());
    }
    default.then(default_cache_dir).flatten()
}

/// The default result cache: `$TENANTSIM_CACHE` (empty, `off` or `0`:
/// none), else `$XDG_CACHE_HOME/tenantsim`, else `$HOME/.cache/tenantsim`
/// (none without a home). Never inside the working directory: a run
/// writes only its results folder there.
pub fn default_cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(v) = std::env::var_os("TENANTSIM_CACHE") {
        let off = v.is_empty() || v == "off" || v == "0";
        return (!off).then(|| PathBuf::from(v));
    }
    if let Some(x) = var("XDG_CACHE_HOME").map(PathBuf::from)
        && x.is_absolute()
    {
        return Some(x.join("tenantsim"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".cache").join("tenantsim"))
}

/// Open the cache of a run: an explicit `--cache` that cannot be made is
/// an error; the default one a warning (the run goes on without).
pub(crate) fn open_cache(args: &RunArgs, default: bool) -> Result<Option<ResultCache>> {
    let Some(dir) = cache_dir(args, default) else {
        return Ok(None);
    };
    match ResultCache::open(&dir) {
        Ok(c) => Ok(Some(c)),
        Err(e) if args.cache.is_none() => {
            if !args.quiet {
                eprintln!("warning: no result cache ({e}); every task runs");
            }
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// An interrupted run with a cache says that a rerun resumes.
pub(crate) fn resumable(e: Error, cache: Option<&ResultCache>) -> Error {
    match cache {
        Some(c) if e.kind() == ErrorKind::Interrupted => Error::interrupted(format!(
            "{}; its finished tasks are in the result cache {}: run the same command again to resume",
            e.message(),
            c.dir().display()
        )),
        _ => e,
    }
}

/// What a cache said during a run, on stderr.
pub(crate) fn cache_notes(cache: Option<&ResultCache>) {
    if let Some(c) = cache {
        if c.corrupt_entries() > 0 {
            eprintln!(
                "warning: {} damaged result cache entr(y/ies) in {} were ignored and their tasks ran again",
                c.corrupt_entries(),
                c.dir().display()
            );
        }
        if let Some(e) = c.write_error() {
            eprintln!("warning: the result cache could not store every task: {e}");
        }
    }
}
