//! The arrivals file parser (`[arrivals] kind = "file"`) must reject bad
//! bytes with an error, never panic. Users are those of the bundled hand
//! trace (`u1`, `u2`, `u3`), so well-formed rows reach the time checks.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn trace() -> &'static tenantsim::models::trace::Trace {
    static TRACE: OnceLock<tenantsim::models::trace::Trace> = OnceLock::new();
    TRACE.get_or_init(|| {
        tenantsim::models::trace::parse_trace(
            "hand.csv",
            &include_bytes!("../../traces/hand.csv")[..],
        )
        .expect("the bundled hand trace is valid")
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = tenantsim::models::scenario::parse_arrival_times("fuzz.csv", data, trace());
});
