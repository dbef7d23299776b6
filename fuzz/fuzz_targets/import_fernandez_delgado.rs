//! The Fernández-Delgado importer must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tenantsim::models::import::RuntimeModel;
use tenantsim::models::import::fernandez_delgado::parse;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse("fuzz.txt", text, RuntimeModel::Unit);
    }
});
