//! The canonical trace parser must reject bad bytes with an error, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = tenantsim::models::trace::parse_trace("fuzz.csv", data);
});
