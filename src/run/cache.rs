//! The result cache of a run ([`Cache`]: none, the default folder or a
//! folder) and what a cache says during a run (DESIGN §10.2).

use std::path::PathBuf;

use super::Cache;
use crate::core::error::{Error, ErrorKind, Result};
use crate::core::run::cache::{DEFAULT_MAX_BYTES, ResultCache, parse_size};

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
    if *cache != Cache::None {
        // A bad cap is said before the run, not after it.
        cache_max_size()?;
    }
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
        if c.misplaced_entries() > 0 {
            eprintln!(
                "warning: {} result cache entr(y/ies) in {} held the run of another task (copied or swapped by hand) and were ignored; their tasks ran again",
                c.misplaced_entries(),
                c.dir().display()
            );
        }
        if c.too_large_runs() > 0 {
            eprintln!(
                "note: {} run(s) were not stored in the result cache {}: each is larger than the {} MiB \
                 it keeps of a run (reading one back would hold it whole in memory); they run again next time",
                c.too_large_runs(),
                c.dir().display(),
                c.max_run() >> 20
            );
        }
        if let Some(e) = c.write_error() {
            eprintln!("warning: the result cache could not store every task: {e}");
        }
    }
}

/// The size cap of a result cache: `$TENANTSIM_CACHE_MAX_SIZE` (a size
/// such as `500M` or `2G`; `off`: no cap), else
/// [`DEFAULT_MAX_BYTES`] (1 GiB).
pub fn cache_max_size() -> Result<Option<u64>> {
    match std::env::var("TENANTSIM_CACHE_MAX_SIZE") {
        Err(_) => Ok(Some(DEFAULT_MAX_BYTES)),
        Ok(v) if v.trim().is_empty() => Ok(Some(DEFAULT_MAX_BYTES)),
        Ok(v) if v.trim() == "off" => Ok(None),
        Ok(v) => parse_size(&v)
            .map(Some)
            .map_err(|e| Error::usage(format!("TENANTSIM_CACHE_MAX_SIZE: {e}"))),
    }
}

/// Keep the cache within its cap after a run: its least recently used
/// entries are removed ([`ResultCache::prune`]). Never stops a run: a
/// failure is a warning unless `quiet`.
pub(super) fn trim_cache(cache: Option<&ResultCache>, quiet: bool) {
    let Some(c) = cache else { return };
    let pruned = cache_max_size().and_then(|cap| match cap {
        Some(cap) => c.prune(None, Some(cap)).map(Some),
        None => Ok(None),
    });
    match pruned {
        Ok(Some(p)) if p.entries > 0 && !quiet => eprintln!(
            "note: the result cache {} was over its size cap: its {} least recently used entr(y/ies) were removed",
            c.dir().display(),
            p.entries
        ),
        Ok(_) => {}
        Err(e) if !quiet => eprintln!("warning: the result cache was not trimmed: {e}"),
        Err(_) => {}
    }
}
