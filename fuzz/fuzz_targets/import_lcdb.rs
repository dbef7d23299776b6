//! The LCDB importer must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tenantsim::models::import::RuntimeModel;
use tenantsim::models::import::lcdb::{LcdbOptions, LcdbScore, parse};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let opts = LcdbOptions {
            score: LcdbScore::Test,
            complete_only: data.len() % 2 == 0,
            runtime: RuntimeModel::Measured,
        };
        let _ = parse("fuzz.csv", text, &opts);
    }
});
