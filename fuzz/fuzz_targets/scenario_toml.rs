//! The scenario parser (TOML, validation, policy keys) must never panic.
//! `[trace].path` resolves against this crate's folder, so `../traces/hand.csv`
//! in an input reaches the bundled trace and the policy checks run too.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenario.toml");
        let _ = tenantsim::models::scenario::parse_scenario(&path, text, Default::default());
    }
});
