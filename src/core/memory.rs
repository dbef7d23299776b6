//! Limits from memory, not from counts (docs/REFERENCE.md, "Limits";
//! DESIGN §8.5): an [`Estimate`] of the bytes a command will hold, item by
//! item, checked against the memory this machine can give it
//! ([`machine_memory`]) or the `--max-memory` override before anything of
//! that size is read, generated or allocated. A scenario that would need
//! 50 GB is refused by `validate` in milliseconds, naming its largest
//! items, instead of aborting an allocation halfway through a run.
//!
//! The estimates themselves live with what they estimate (a model
//! scenario's in `models::scenario::footprint`); this module holds the
//! machine's side, the size syntax and the one refusal message.

use std::fs;
use std::path::Path;

use crate::core::error::{Error, Result};
use crate::core::resources::{address_space_limit, human_bytes, parse_meminfo};

/// What tenantsim holds before any scenario: 32 MiB (every mode's
/// estimate counts it, as the item [`PROGRAM_ITEM`]).
pub const PROGRAM_BYTES: u64 = 32 << 20;

/// The estimate item of [`PROGRAM_BYTES`].
pub const PROGRAM_ITEM: &str = "the program itself";

/// Bytes of each of a run's loss curves kept in memory before its points
/// move to a temporary file (DESIGN §2.6 "Where a run's curves and rows
/// live"; `models::metrics` holds the curves, the model scenario's
/// estimate counts them): 8 MiB, about 420,000 points (a run of about 70,000
/// tenants at K = 20), or this process's spill threshold if smaller. Below
/// the 64 MiB default because a large run's two curves are held beside
/// everything else while the run goes: at scale-year, the in-memory points
/// before the spill were its peak (about 150 MB above the rest,
/// docs/PERFORMANCE.md "Internet scale").
pub const CURVE_IN_MEMORY: usize = 8 << 20;

/// Bytes of a run's tenant rows (each of their two record sequences:
/// fixed figures, times to thresholds) kept in memory before they move to
/// a temporary file (DESIGN §2.6 "Where a run's curves and rows live";
/// `models::metrics::TenantRows`): 8 MiB, about 180,000 rows, so a run
/// of 100,000 tenants keeps its rows in memory and scale-year's 10^7
/// (1.4 GB as a vector of rows) are on disk.
pub const ROWS_IN_MEMORY: usize = 8 << 20;

/// Bytes of a sealed per-run sequence (`core::io::sealed`: a run's job
/// log kept with `--jobs`, its records and its completion order each)
/// kept in memory before it moves to a temporary file (DESIGN §2.6 "Where
/// a run's curves and rows live"): 8 MiB, about 210,000 jobs, so a
/// thousand-tenant run keeps its log in memory and scale-1m's 21 million
/// jobs (0.8 GB of records) are on disk.
pub const SEALED_IN_MEMORY: usize = 8 << 20;

/// Bytes of a run's segment log kept in memory before it moves to a
/// temporary file: 1 MiB, about 22,800 of job mode's segments
/// (`jobs::sim::segment_log`: every interval a job held GPUs, 46 bytes
/// each; the shared engine's log is one) or 29,100 of the shared
/// service's kept segments (`shared::sim::outcome`, 36 bytes each; also
/// the written runs `service/jobs.csv`'s sort keeps in memory). A
/// preemptive scheduler's log grows with its preemptions, which nothing
/// knows before the run, so the estimate counts this bound for each of
/// its runs (DESIGN §8.5); a log of fewer segments stays in memory.
pub const SEGMENTS_IN_MEMORY: usize = 1 << 20;

/// Done tenants a sorted run of a fold's parked figures holds (DESIGN
/// §2.6 "Done tenants"; `models::metrics`' fold sorts them in runs,
/// `core::io::sorted_runs`, and the model scenario's estimate counts the
/// open run): 32,768, about 4.7 MB in memory at three thresholds until
/// the run is sorted and written; scale-year's 10^7 are 306 runs.
pub const PARKED_RUN: usize = 1 << 15;

/// Bytes of a shared run's share log (`shares.csv`'s rows: a record of
/// 17 bytes whenever a workload's GPUs changed in an instant,
/// `shared::sim::outcome`) kept in memory before it moves to a temporary
/// file: 1 MiB, about 61,700 changes. A preemptive cluster scheduler
/// changes the holdings at every round, which nothing knows before the
/// run, so the service's estimate counts this bound for each of its runs
/// (DESIGN §8.5).
pub const SHARES_IN_MEMORY: usize = 1 << 20;

/// Service segments sorted at once in memory while a shared run's
/// `service/jobs.csv` is written by job (`shared::report`, through
/// `core::io::sorted_runs`; the service's estimate counts it): 2^15
/// segments of 40 bytes, 1.25 MiB, and 8 bytes each for their order while
/// they are sorted; a run's segments past it are sorted in runs on disk.
pub const SERVICE_SEGMENTS_RUN: usize = 1 << 15;

/// Places of parked tenants a run of more than 65,536 tenants holds in
/// memory before they are sorted and written to disk as a run
/// (`models::sim`'s parked places, `core::io::sorted_runs`; the model
/// scenario's estimate counts them): 2^16 pairs of 8 bytes, 512 KiB, and
/// as much again for their order while they are sorted; scale-year's
/// 10^7 tenants are 153 runs, a lookup of one place up to 17 reads of
/// each.
pub const PLACES_RUN: usize = 1 << 16;

/// Regret areas a policy's open run holds before it is sorted and written
/// while the `tenant-regret` figure reads `tenants.csv`
/// (`present::figures::area_summary`; the model scenario's estimate
/// counts it): 2^16 areas of 8 bytes, 512 KiB; scale-year's 10^7 are 153
/// runs.
pub const AREAS_RUN: usize = 1 << 16;

/// Bytes of a policy's written runs of regret areas kept in memory
/// before they move to a temporary file: 1 MiB.
pub const AREAS_IN_MEMORY: usize = 1 << 20;

/// What the memory check of a command may assume: the `--max-memory`
/// override, the worker threads and whether job logs are kept. Part of
/// the scenario [`Overrides`](crate::core::io::scenario::Overrides), so
/// every entry point that loads a scenario checks it the same way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryBudget {
    /// Bytes the command may hold (`--max-memory`); replaces the
    /// machine's memory as the limit. `None`: the machine's memory.
    pub max: Option<u64>,
    /// Worker threads, so repetitions running at once (`--threads`);
    /// `None`: every core.
    pub threads: Option<u32>,
    /// Job logs are kept for `jobs.csv` (`--jobs`).
    pub keep_jobs: bool,
}

impl MemoryBudget {
    /// Repetitions that may run at once out of `tasks`: the threads (or
    /// the cores), at most `tasks`, at least 1.
    pub fn concurrent(&self, tasks: u64) -> u64 {
        let threads = match self.threads {
            Some(t) => u64::from(t),
            None => std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
        };
        threads.min(tasks).max(1)
    }
}

/// How long an item of an estimate is held, for the points of a sweep,
/// which are loaded one after the other and run together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// While the point loads or runs (its scratch, its runs' state).
    Now,
    /// An input shared by the points that name the same one (a trace),
    /// held until the end.
    Shared,
    /// This point's, held until the end (its loss curves).
    ToEnd,
}

/// One item of an estimate: what it is, its bytes and how long it is held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What the bytes hold, for the message (`trace matrices (…)`).
    pub what: String,
    /// Bytes.
    pub bytes: u64,
    /// How long.
    pub held: Held,
}

/// The bytes a command will hold at its peak, itemised. Every sum
/// saturates: an absurd scenario gives `u64::MAX`, never an overflow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Estimate {
    /// The items, in the order they were added.
    pub items: Vec<Item>,
}

impl Estimate {
    /// Add an item held while the command runs (items of 0 bytes are
    /// left out).
    pub fn add(&mut self, what: impl Into<String>, bytes: u64) {
        self.add_held(what, bytes, Held::Now);
    }

    /// Add an item held as `held` says.
    pub fn add_held(&mut self, what: impl Into<String>, bytes: u64, held: Held) {
        if bytes > 0 {
            self.items.push(Item {
                what: what.into(),
                bytes,
                held,
            });
        }
    }

    /// The sum of the items held as `held`.
    pub fn total_held(&self, held: Held) -> u64 {
        self.items
            .iter()
            .filter(|i| i.held == held)
            .fold(0u64, |sum, i| sum.saturating_add(i.bytes))
    }

    /// Leave out the items held as `held`.
    pub fn without(mut self, held: Held) -> Self {
        self.items.retain(|i| i.held != held);
        self
    }

    /// The sum of the items.
    pub fn total(&self) -> u64 {
        self.items
            .iter()
            .fold(0u64, |sum, i| sum.saturating_add(i.bytes))
    }

    /// The estimate of parts held at once (a shared scenario's service
    /// and background): every item of each, named `part: item`, and the
    /// program ([`PROGRAM_ITEM`]) once.
    pub fn combined(parts: &[(&str, &Estimate)]) -> Estimate {
        let mut e = Estimate::default();
        e.add(PROGRAM_ITEM, PROGRAM_BYTES);
        for (part, estimate) in parts {
            for i in estimate.items.iter().filter(|i| i.what != PROGRAM_ITEM) {
                e.add_held(format!("{part}: {}", i.what), i.bytes, i.held);
            }
        }
        e
    }

    /// The three largest items, largest first, as `what: size` text.
    pub fn largest(&self) -> String {
        let mut items: Vec<&Item> = self.items.iter().collect();
        items.sort_by_key(|i| std::cmp::Reverse(i.bytes));
        items
            .iter()
            .take(3)
            .map(|i| format!("{} {}", human_bytes(i.bytes), i.what))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Heap bytes glibc's allocator takes for a string of `len` bytes: its
/// bytes and an 8-byte header rounded up to 16, at least a 32-byte chunk;
/// nothing for an empty string. `string_heap(7) = 32`, `string_heap(30)
/// = 48`.
pub fn string_heap(len: u64) -> u64 {
    if len == 0 {
        0
    } else {
        (len + 8).div_ceil(16).saturating_mul(16).max(32)
    }
}

/// Bytes of the hash table of `n` entries of `entry` bytes that grew by
/// doubling: hashbrown's buckets (`n × 8 / 7` rounded up to a power of
/// two, an entry and a control byte each), and the old table beside the
/// new while it last grew (half as many buckets).
pub fn hash_table(n: u64, entry: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let buckets = n.saturating_mul(8).div_ceil(7).next_power_of_two();
    buckets.saturating_mul(entry + 1).saturating_mul(3) / 2
}

/// The memory this process can count on and where the figure comes
/// from: the smallest of `MemAvailable` in `/proc/meminfo` (`MemTotal`
/// on kernels without it), the cgroup's `memory.max` (cgroup v2) and the
/// address-space limit (`ulimit -v`); `None` where none is known (not
/// Linux): then only `--max-memory` is checked.
pub fn machine_memory() -> Option<(u64, &'static str)> {
    let meminfo = fs::read_to_string("/proc/meminfo").ok();
    let cgroup = fs::read_to_string("/sys/fs/cgroup/memory.max").ok();
    let mut best = meminfo.as_deref().and_then(meminfo_available);
    let mut keep = |v: Option<u64>, source: &'static str| {
        if let Some(v) = v
            && best.is_none_or(|(b, _)| v < b)
        {
            best = Some((v, source));
        }
    };
    keep(
        cgroup.as_deref().and_then(parse_cgroup_max),
        "the cgroup's memory.max",
    );
    keep(
        address_space_limit(),
        "the address-space limit (`ulimit -v`)",
    );
    best
}

/// `MemAvailable` of a `/proc/meminfo` text, else `MemTotal`, with its
/// name.
fn meminfo_available(text: &str) -> Option<(u64, &'static str)> {
    parse_meminfo(text, "MemAvailable")
        .map(|b| (b, "the machine's available memory (MemAvailable)"))
        .or_else(|| parse_meminfo(text, "MemTotal").map(|b| (b, "the machine's memory (MemTotal)")))
}

/// A cgroup v2 `memory.max`: bytes, or `max` (no limit: `None`).
fn parse_cgroup_max(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// A size as `--max-memory` takes it: a whole number of bytes, or a
/// number (decimals allowed) with a binary suffix `K`, `M`, `G` or `T`
/// (×2^10, 2^20, 2^30, 2^40; `KiB`, `MB`, … are read the same), e.g.
/// `64G`, `500M`, `1.5G`, `1000000`. The message says what was expected.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let expected = || {
        format!(
            "expected a size such as 64G, 500M or a number of bytes (suffixes K, M, G, T: powers of 1024), got `{}`",
            text.escape_debug()
        )
    };
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return Err(expected()),
    };
    let value: f64 = number.parse().map_err(|_| expected())?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes >= u64::MAX as f64 {
        return Err(expected());
    }
    Ok(bytes as u64)
}

/// The limit an estimate is checked against, and where it comes from:
/// `budget.max` (`--max-memory`), else [`machine_memory`]; `None` where
/// neither is known.
fn limit_of(budget: &MemoryBudget) -> Option<(u64, &'static str)> {
    match budget.max {
        Some(m) => Some((m, "`--max-memory`")),
        None => machine_memory(),
    }
}

/// What `validate` says of an estimate that passed [`check`] (DESIGN
/// §8.5): its total and largest items, and the limit it is within
/// ("an estimated 1.2 GiB (…), within the 22.9 GiB of the machine's
/// available memory (MemAvailable)").
pub fn within(estimate: &Estimate, budget: &MemoryBudget) -> String {
    let limit = match limit_of(budget) {
        Some((limit, source)) => format!("within the {} of {source}", human_bytes(limit)),
        None => "no limit known on this system".to_string(),
    };
    format!(
        "an estimated {} ({}), {limit}",
        human_bytes(estimate.total()),
        estimate.largest()
    )
}

/// Refuse `estimate` when it exceeds `budget.max` (the override) or,
/// without one, [`machine_memory`]; `at` names the input (the scenario
/// file, or `gen syn`). The message states the estimate, its largest
/// items, the limit and where it comes from, and the override.
pub fn check(at: &str, estimate: &Estimate, budget: &MemoryBudget) -> Result<()> {
    let Some((limit, source)) = limit_of(budget) else {
        return Ok(());
    };
    let total = estimate.total();
    if total <= limit {
        return Ok(());
    }
    let remedy = if budget.max.is_some() {
        "make it smaller or raise `--max-memory`"
    } else {
        "make it smaller or give `--max-memory SIZE` (e.g. --max-memory 64G) to run it anyway"
    };
    Err(Error::input(format!(
        "{at}: needs an estimated {} of memory ({}), more than the {} of {source}; {remedy}",
        human_bytes(total),
        estimate.largest(),
        human_bytes(limit),
    )))
}

/// Refuse a trace file (`what`: "job trace") whose bytes alone, beside
/// the program, exceed `budget`, before the file is scanned for its
/// shape. The scan and the reader hold a record at a time (the file is
/// read as a stream since 2026-12-07, core/io/hashed_input.rs), but a
/// file without line ends is one record held whole (a 1 TiB sparse file
/// was scanned until memory ran out), and a scan reads all of it
/// (minutes for a file of tens of GB). Nothing is checked when the
/// file's size cannot be read (the reader then says why).
pub fn check_file_size(at: &str, what: &str, path: &Path, budget: &MemoryBudget) -> Result<()> {
    let Ok(meta) = fs::metadata(path) else {
        return Ok(());
    };
    let mut e = Estimate::default();
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);
    e.add(
        format!("reading the {what} (the file's bytes, were it one record)"),
        meta.len(),
    );
    check(at, &e, budget)
}

/// Check the memory of reading the trace file `path` alone (`what`:
/// "job trace") against `budget` before it is read: a file larger than
/// the budget is refused before it is scanned ([`check_file_size`]),
/// then its `estimate` (a mode's, from one pass over it) is checked. The
/// estimate checked; `None` when the file cannot be scanned (the reader
/// then says why).
pub fn check_trace_file(
    path: &Path,
    what: &str,
    budget: &MemoryBudget,
    estimate: impl FnOnce(&Path) -> Option<Estimate>,
) -> Result<Option<Estimate>> {
    let at = path.display().to_string();
    check_file_size(&at, what, path, budget)?;
    let Some(e) = estimate(path) else {
        return Ok(None);
    };
    check(&at, &e, budget)?;
    Ok(Some(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strings_heap_is_its_malloc_chunk() {
        assert_eq!(string_heap(0), 0);
        assert_eq!(string_heap(1), 32);
        assert_eq!(string_heap(24), 32);
        assert_eq!(string_heap(25), 48);
        assert_eq!(string_heap(30), 48);
        assert_eq!(string_heap(40), 48);
        assert_eq!(string_heap(41), 64);
    }

    #[test]
    fn a_hash_table_counts_its_buckets_and_its_last_growth() {
        // 7 entries fit 8 buckets; 8 need 16 (load factor 7/8).
        assert_eq!(hash_table(7, 31), 8 * 32 * 3 / 2);
        assert_eq!(hash_table(8, 31), 16 * 32 * 3 / 2);
        assert_eq!(hash_table(0, 31), 0);
    }

    #[test]
    fn sizes_read_with_binary_suffixes() {
        assert_eq!(parse_size("1000000"), Ok(1_000_000));
        assert_eq!(parse_size("500M"), Ok(500 << 20));
        assert_eq!(parse_size("64G"), Ok(64 << 30));
        assert_eq!(parse_size("64GiB"), Ok(64 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("2T"), Ok(2 << 40));
        for bad in ["", "G", "-1G", "0", "12X", "1e3", "NaNG", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn machine_memory_takes_mem_available_then_mem_total() {
        let both = "MemTotal: 8000 kB\nMemFree: 10 kB\nMemAvailable: 6000 kB\n";
        assert_eq!(meminfo_available(both).map(|m| m.0), Some(6000 * 1024));
        let old = "MemTotal: 8000 kB\nMemFree: 10 kB\n";
        assert_eq!(meminfo_available(old).map(|m| m.0), Some(8000 * 1024));
        assert_eq!(parse_cgroup_max("max\n"), None);
        assert_eq!(parse_cgroup_max("4294967296\n"), Some(4 << 30));
    }

    #[test]
    fn estimate_saturates_and_names_its_largest_items() {
        let mut e = Estimate::default();
        e.add("a", 10);
        e.add("empty", 0);
        e.add("b", u64::MAX);
        e.add("c", 2048);
        e.add("d", 1);
        assert_eq!(e.total(), u64::MAX);
        assert_eq!(e.items.len(), 4);
        let b = human_bytes(u64::MAX);
        assert_eq!(e.largest(), format!("{b} b, 2.0 KiB c, 10 B a"));
    }

    /// A shared scenario's service and background were each checked
    /// alone, so two parts that fit one by one but not together passed.
    /// Their combined estimate holds both parts' items and the program
    /// once: the sum of the parts less one program.
    #[test]
    fn parts_held_at_once_were_checked_one_by_one() {
        let part = |what: &str, bytes| {
            let mut e = Estimate::default();
            e.add(PROGRAM_ITEM, PROGRAM_BYTES);
            e.add_held(what, bytes, Held::Shared);
            e
        };
        let (a, b) = (part("trace", 3 << 30), part("job trace", 5 << 20));
        let both = Estimate::combined(&[("service", &a), ("background", &b)]);
        assert_eq!(both.total(), a.total() + b.total() - PROGRAM_BYTES);
        assert_eq!(
            both.largest(),
            "3.0 GiB service: trace, 32.0 MiB the program itself, 5.0 MiB background: job trace"
        );
        assert_eq!(both.total_held(Held::Shared), (3 << 30) + (5 << 20));
        let budget = MemoryBudget {
            max: Some(a.total() + (4 << 20)),
            ..MemoryBudget::default()
        };
        assert!(check("s.toml", &a, &budget).is_ok());
        assert!(check("s.toml", &b, &budget).is_ok());
        assert!(check("s.toml", &both, &budget).is_err());
    }

    #[test]
    fn a_passing_estimate_is_described_with_its_limit() {
        let mut e = Estimate::default();
        e.add("trace", 3 << 30);
        e.add("tenants", 5 << 20);
        let budget = MemoryBudget {
            max: Some(64 << 30),
            ..MemoryBudget::default()
        };
        assert_eq!(
            within(&e, &budget),
            "an estimated 3.0 GiB (3.0 GiB trace, 5.0 MiB tenants), within the 64.0 GiB of \
             `--max-memory`"
        );
    }

    #[test]
    fn check_refuses_past_the_override_and_passes_within_it() {
        let mut e = Estimate::default();
        e.add("trace", 3 << 30);
        let budget = |max| MemoryBudget {
            max: Some(max),
            ..MemoryBudget::default()
        };
        assert!(check("s.toml", &e, &budget(3 << 30)).is_ok());
        let err = check("s.toml", &e, &budget(1 << 30)).expect_err("refused");
        assert_eq!(
            err.message(),
            "s.toml: needs an estimated 3.0 GiB of memory (3.0 GiB trace), more than the 1.0 GiB \
             of `--max-memory`; make it smaller or raise `--max-memory`"
        );
        assert_eq!(err.exit_code(), 1);
    }
}
