//! The result cache of a run ([`Cache`]: none, the default folder or a
//! folder) and what a cache says during a run (DESIGN §10.2).

use std::path::PathBuf;

use super::Cache;
use crate::core::error::{Error, ErrorKind, Result};
use crate::core::run::cache::ResultCache;

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

/// Open the cache of a run: an explicit folder that cannot be made is an
/// error; the default one a warning unless `quiet` (the run goes on
/// without).
pub(super) fn open_cache(cache: &Cache, quiet: bool) -> Result<Option<ResultCache>> {
    let dir = match cache {
        Cache::None => return Ok(None),
        Cache::Default => match default_cache_dir() {
            Some(d) => d,
            None => return Ok(None),
        },
        Cache::Dir(d) => d.clone(),
    };
    match ResultCache::open(&dir) {
        Ok(c) => Ok(Some(c)),
        Err(e) if *cache == Cache::Default => {
            if !quiet {
                eprintln!("warning: no result cache ({e}); every task runs");
            }
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// An interrupted run with a cache says that a rerun resumes.
pub(super) fn resumable(e: Error, cache: Option<&ResultCache>) -> Error {
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
pub(super) fn cache_notes(cache: Option<&ResultCache>) {
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
