//! The `check` reader and comparison must reject bad `summary.csv` bytes
//! with an error, never panic. The input is split at its first NUL byte
//! into a results and a golden summary, which are then compared.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tenantsim::core::analysis::check::{Tolerance, compare_summaries, parse_summary};

fuzz_target!(|data: &[u8]| {
    let (a, b) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    };
    let (Ok(results), Ok(golden)) = (
        parse_summary("results.csv", a),
        parse_summary("golden.csv", b),
    ) else {
        return;
    };
    let _ = compare_summaries(&results, &golden, Tolerance::default());
    // A table always matches itself, whatever its cells hold.
    let own = compare_summaries(&golden, &golden, Tolerance::default());
    assert!(own.is_ok_and(|d| d.is_empty()));
});
