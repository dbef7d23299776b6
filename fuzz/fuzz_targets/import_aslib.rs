//! The ASlib importer must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tenantsim::models::import::RuntimeModel;
use tenantsim::models::import::aslib::{AslibOptions, parse};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let opts = AslibOptions {
            measure: Some("predictive_accuracy".into()),
            runtime: Some(RuntimeModel::Unit),
        };
        let _ = parse("fuzz.arff", text, None, &opts);
    }
});
