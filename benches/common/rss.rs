//! The process's peak resident memory, for the benches that report it
//! (included by `#[path]`: each bench is its own crate).

/// Peak resident set size in MB (`VmHWM` of /proc/self/status); NaN where
/// it cannot be read.
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<f64>().ok())
            })
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}
