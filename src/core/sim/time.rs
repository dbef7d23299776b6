//! Simulated time: integer microseconds inside the engine (DESIGN §7).

/// Simulated time or duration in microseconds.
pub type Micros = u64;

/// Largest accepted runtime, in seconds (about 31.7 years). Keeps every
/// event time of a realistic run far from `u64` overflow.
pub const MAX_RUNTIME_S: f64 = 1.0e9;

/// Smallest runtime an importer or generator emits: one microsecond, the
/// engine's time resolution. Where a format documents it, a measured runtime
/// below it (e.g. a mean rounded to 0 in the source) is raised to it.
pub const RUNTIME_FLOOR_S: f64 = 1e-6;

/// Round a duration in seconds to the nearest microsecond, at least 1 µs
/// (DESIGN §7). The caller guarantees `0 < secs <= MAX_RUNTIME_S`.
pub fn secs_to_micros(secs: f64) -> Micros {
    debug_assert!(secs > 0.0 && secs <= MAX_RUNTIME_S);
    // `as` saturates; the bound above keeps the value exact in f64.
    let us = (secs * 1.0e6).round() as u64;
    us.max(1)
}

/// A duration in microseconds as seconds (`us / 10^6`; exact below 2^53
/// µs, about 285 years).
pub fn to_seconds(us: Micros) -> f64 {
    us as f64 / 1.0e6
}

/// Format microseconds as seconds with exactly six decimals, with no float
/// rounding: `1_500_000` → `"1.500000"`.
///
/// ```
/// use tenantsim::core::sim::time::{micros_to_secs_string, secs_to_micros};
/// assert_eq!(micros_to_secs_string(1_500_000), "1.500000");
/// assert_eq!(micros_to_secs_string(secs_to_micros(0.1 + 0.2)), "0.300000");
/// assert_eq!(secs_to_micros(1e-9), 1); // at least 1 µs
/// ```
pub fn micros_to_secs_string(us: Micros) -> String {
    format!("{}.{:06}", us / 1_000_000, us % 1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_microsecond_and_at_least_one() {
        assert_eq!(secs_to_micros(1.0), 1_000_000);
        assert_eq!(secs_to_micros(0.000_000_4), 1);
        assert_eq!(secs_to_micros(0.000_001_6), 2);
        assert_eq!(secs_to_micros(2.5e-7), 1);
        assert_eq!(secs_to_micros(0.07636), 76_360);
    }

    #[test]
    fn formats_exact_seconds() {
        assert_eq!(micros_to_secs_string(0), "0.000000");
        assert_eq!(micros_to_secs_string(1_500_000), "1.500000");
        assert_eq!(micros_to_secs_string(7), "0.000007");
    }
}
