//! `tenantsim cache`: what the result cache holds (folder, entries, size,
//! ages), and `tenantsim cache prune` to remove entries by age, by size
//! (least recently used first) or all (DESIGN §10.2).

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::core::error::{Error, Result};
use crate::core::resources::human_bytes;
use crate::core::run::cache::{ResultCache, Usage, parse_age, parse_size};
use crate::run::{cache_max_size, default_cache_dir};

/// Arguments of `tenantsim cache`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Without a subcommand: the cache's folder, entries, size and ages. The \
cache is $TENANTSIM_CACHE, else $XDG_CACHE_HOME/tenantsim, else ~/.cache/tenantsim; after \
every run it is trimmed to $TENANTSIM_CACHE_MAX_SIZE (default 1G; `off`: no cap), least \
recently used entries first. Removing entries only costs reruns."
)]
pub struct CacheArgs {
    /// The cache folder [default: the one `run` uses].
    #[arg(long, value_name = "DIR", global = true)]
    pub cache: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// What to do (nothing: describe the cache).
    #[command(subcommand)]
    pub action: Option<CacheAction>,
}

/// `tenantsim cache` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum CacheAction {
    /// Remove entries: those not used for --older-than, then the least
    /// recently used until the cache fits in --max-size, or --all.
    Prune(PruneArgs),
}

/// Arguments of `tenantsim cache prune`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true)))]
pub struct PruneArgs {
    /// Remove the entries not used (written or served) for this long:
    /// 30d, 12h, 90m, 45s or 2w.
    #[arg(long, value_name = "AGE", value_parser = parse_age, group = "what")]
    pub older_than: Option<Duration>,
    /// Then remove the least recently used entries until the cache holds
    /// at most this much: 500M, 2G, 1048576 (bytes).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, group = "what")]
    pub max_size: Option<u64>,
    /// Remove every entry.
    #[arg(long, group = "what", conflicts_with_all = ["older_than", "max_size"])]
    pub all: bool,
}

/// The cache folder of the command: `--cache DIR`, else the default. A
/// path that exists and is not a folder is an error, as it is for `run`
/// (`cache --cache FILE` described it as an empty cache).
fn folder(args: &CacheArgs) -> Result<PathBuf> {
    let dir = args.cache.clone().or_else(default_cache_dir).ok_or_else(|| {
        Error::usage(
            "no result cache: TENANTSIM_CACHE is off and there is no home folder; give --cache DIR",
        )
    })?;
    if dir.exists() && !dir.is_dir() {
        return Err(Error::usage(format!(
            "the result cache {}: not a folder; expected the cache's folder (--cache DIR or \
             TENANTSIM_CACHE)",
            dir.display()
        )));
    }
    Ok(dir)
}

/// How long ago `t` was, for people (`3 d`, `5 h`, `12 min`, `40 s`).
fn ago(t: SystemTime) -> String {
    let s = SystemTime::now()
        .duration_since(t)
        .unwrap_or_default()
        .as_secs();
    match s {
        0..120 => format!("{s} s ago"),
        120..7200 => format!("{} min ago", s / 60),
        7200..172_800 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86_400),
    }
}

fn unix(t: Option<SystemTime>) -> serde_json::Value {
    t.and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(serde_json::Value::Null, |d| d.as_secs().into())
}

fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::stdout("the cache's description", &e))
}

fn describe(dir: &std::path::Path, u: &Usage, cap: Option<u64>, json: bool) -> String {
    if json {
        let doc = serde_json::json!({
            "cache": dir.display().to_string(),
            "entries": u.entries,
            "bytes": u.bytes,
            "temporary_files": u.temporary,
            "max_bytes": cap,
            "oldest_used_unix_s": unix(u.oldest),
            "newest_used_unix_s": unix(u.newest),
        });
        return format!("{doc}\n");
    }
    let mut text = format!(
        "cache: {}\nentries: {}\nsize: {} ({} bytes)\nsize cap: {}\n",
        dir.display(),
        u.entries,
        human_bytes(u.bytes),
        u.bytes,
        cap.map_or_else(|| "none".to_owned(), human_bytes),
    );
    if let (Some(o), Some(n)) = (u.oldest, u.newest) {
        text.push_str(&format!(
            "least recently used: {}\nmost recently used: {}\n",
            ago(o),
            ago(n)
        ));
    }
    if u.temporary > 0 {
        text.push_str(&format!(
            "temporary files left by killed runs: {} (pruned once an hour old)\n",
            u.temporary
        ));
    }
    text
}

/// `tenantsim cache [prune ...]`.
pub fn cache(args: &CacheArgs) -> Result<()> {
    let dir = folder(args)?;
    let cap = cache_max_size()?;
    match &args.action {
        None => {
            if !dir.is_dir() {
                return print(&describe(&dir, &Usage::default(), cap, args.json));
            }
            let usage = ResultCache::at(&dir).usage()?;
            print(&describe(&dir, &usage, cap, args.json))
        }
        Some(CacheAction::Prune(p)) => {
            if !dir.is_dir() {
                return Err(Error::input(format!(
                    "{}: no result cache there (nothing to prune)",
                    dir.display()
                )));
            }
            let cache = ResultCache::at(&dir);
            let (older_than, max_size) = if p.all {
                (None, Some(0))
            } else {
                (p.older_than, p.max_size)
            };
            let pruned = cache.prune(older_than, max_size)?;
            let usage = cache.usage()?;
            if args.json {
                let doc = serde_json::json!({
                    "cache": dir.display().to_string(),
                    "removed_entries": pruned.entries,
                    "freed_bytes": pruned.bytes,
                    "entries": usage.entries,
                    "bytes": usage.bytes,
                });
                print(&format!("{doc}\n"))
            } else {
                print(&format!(
                    "removed {} entr(y/ies), {} freed; {} left: {} entr(y/ies), {}\n",
                    pruned.entries,
                    human_bytes(pruned.bytes),
                    dir.display(),
                    usage.entries,
                    human_bytes(usage.bytes)
                ))
            }
        }
    }
}
