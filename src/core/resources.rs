//! What this process may use, as the system tells it (Linux:
//! `/proc/self/limits` and `/proc/meminfo`):
//!
//! - memory: the smaller of its address-space limit (`ulimit -v`,
//!   `prlimit --as`) and the machine's memory. Commands whose memory grows
//!   with an input compare their estimate with it before reading, so a
//!   too-large input is a clear error naming it rather than an aborted
//!   allocation;
//! - open files (`ulimit -n`): refused up front below what any command
//!   needs, and budgeted by commands that read many files (`merge`).

use std::fs;

use crate::core::error::{Error, Result};

/// The soft limit on this process's open files (`ulimit -n`), where the
/// system tells it without a system call (Linux: `/proc/self/limits`);
/// `None` when unknown or unlimited.
pub fn open_files_limit() -> Option<u64> {
    let text = fs::read_to_string("/proc/self/limits").ok()?;
    parse_limit(&text, "Max open files")
}

/// The fewest open files a command needs (the binary, its inputs, the
/// output being written, the thread pool's pipes, the result cache): a
/// soft limit below this is refused up front ([`check_open_files_limit`]).
pub const MIN_OPEN_FILES: u64 = 64;

/// Refuse, before any work, an open-file limit too low for `command`
/// ([`MIN_OPEN_FILES`]); no commands need more, whatever their size:
/// runs spool every point's rows into one file and merges of many shards
/// reopen them in turn ([`open_files_budget`]).
pub fn check_open_files_limit(command: &str) -> Result<()> {
    match open_files_limit() {
        Some(n) if n < MIN_OPEN_FILES => Err(Error::input(format!(
            "{command}: the open-file limit (`ulimit -n`) is {n}; tenantsim needs at least \
             {MIN_OPEN_FILES}: raise it (`ulimit -n 1024`)"
        ))),
        _ => Ok(()),
    }
}

/// How many input files a command may keep open at once besides what it
/// needs anyway: half the soft open-file limit, at most `cap` (`cap`
/// when the limit is unknown).
pub fn open_files_budget(cap: usize) -> usize {
    open_files_limit()
        .map_or(cap, |n| usize::try_from(n / 2).unwrap_or(cap))
        .min(cap)
}

/// The address-space soft limit in bytes (`None`: unlimited or unknown).
pub fn address_space_limit() -> Option<u64> {
    let text = fs::read_to_string("/proc/self/limits").ok()?;
    parse_limit(&text, "Max address space")
}

/// The machine's memory in bytes, `MemTotal` of `/proc/meminfo` (`None`:
/// unknown).
pub fn machine_memory() -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text, "MemTotal")
}

/// This process's resident set size now, in bytes: `VmRSS` of
/// `/proc/self/status` (`None`: unknown, not Linux). For a progress
/// display; [`peak_rss`] is what a run took.
pub fn resident() -> Option<u64> {
    proc_self_status("VmRSS")
}

/// This process's peak resident set size so far, in bytes: `VmHWM` of
/// `/proc/self/status`, the high-water mark that `getrusage`'s
/// `ru_maxrss` and GNU time's `%M` report (`None`: unknown, not Linux).
/// For the command line that is the run's; a library caller's process
/// counts everything it did before as well.
pub fn peak_rss() -> Option<u64> {
    proc_self_status("VmHWM")
}

/// The kB field `name` of `/proc/self/status`, in bytes.
fn proc_self_status(name: &str) -> Option<u64> {
    let text = fs::read_to_string("/proc/self/status").ok()?;
    parse_meminfo(&text, name)
}

/// The memory this process may use and where that figure comes from:
/// the smaller of [`address_space_limit`] and [`machine_memory`]; `None`
/// when neither is known.
pub fn memory_budget() -> Option<(u64, &'static str)> {
    match (address_space_limit(), machine_memory()) {
        (Some(a), Some(m)) if a <= m => Some((a, "its address-space limit, `ulimit -v`")),
        (_, Some(m)) => Some((m, "the machine's memory")),
        (Some(a), None) => Some((a, "its address-space limit, `ulimit -v`")),
        (None, None) => None,
    }
}

/// A byte count for people: bytes, then KiB, MiB, GiB or TiB with one
/// decimal (`80 B`, `76.0 MiB`, `4.0 GiB`; `ulimit -v` counts KiB).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// The soft limit on the line of `/proc/self/limits` that starts with
/// `name` (its first number; `unlimited` gives `None`).
fn parse_limit(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

/// The value of `name` in `/proc/meminfo`, in bytes (the file gives kB).
pub(crate) fn parse_meminfo(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.split(':').next() == Some(name))?;
    let kb: u64 = line
        .split(':')
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_meminfo_are_read_as_the_kernel_writes_them() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max open files            1024                 1048576              files     \n\
                      Max address space         4294967296           unlimited            bytes     \n";
        assert_eq!(
            parse_limit(limits, "Max address space"),
            Some(4_294_967_296)
        );
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(parse_limit(unlimited, "Max address space"), None);
        let meminfo = "MemTotal:        8123456 kB\nMemFree:          123456 kB\n";
        assert_eq!(parse_meminfo(meminfo, "MemTotal"), Some(8_123_456 * 1024));
        assert_eq!(parse_meminfo(meminfo, "MemAvailable"), None);
    }

    #[test]
    fn the_resident_set_and_its_peak_are_read_from_proc_self_status() {
        // As Linux writes it: the peak of the virtual size comes first and
        // must not be taken for the resident one.
        let status = "Name:\ttenantsim\nVmPeak:\t  917504 kB\nVmSize:\t  900000 kB\n\
                      VmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n";
        assert_eq!(parse_meminfo(status, "VmHWM"), Some(2048 * 1024));
        assert_eq!(parse_meminfo(status, "VmRSS"), Some(1024 * 1024));
        if cfg!(target_os = "linux") {
            // 64 MiB written page by page is resident at once (beside the
            // test binary's own pages) while the block lives: the resident
            // set and its mark are at least that.
            let mut block = vec![0u8; 64 << 20];
            for page in block.chunks_mut(4096) {
                page[0] = 1;
            }
            let now = resident().expect("VmRSS on Linux");
            assert!(now >= 64 << 20, "resident {now}");
            let peak = peak_rss().expect("VmHWM on Linux");
            assert!(peak >= 64 << 20, "peak {peak}");
            assert_eq!(block.iter().map(|&b| u64::from(b)).sum::<u64>(), 16384);
        }
    }

    #[test]
    fn byte_counts_read_as_people_write_them() {
        assert_eq!(human_bytes(80), "80 B");
        assert_eq!(human_bytes(12 * 1024), "12.0 KiB");
        assert_eq!(human_bytes(4_294_967_296), "4.0 GiB");
        assert_eq!(human_bytes(1536 * 1024 * 1024), "1.5 GiB");
    }
}
