//! The matrix importer must never panic. The input is split at the first
//! `#` line into an accuracy and a runtime matrix.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tenantsim::models::import::matrix::{MatrixTexts, NamedText, parse};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let (acc, rt) = text.split_once("\n#\n").unwrap_or((text, "1"));
        let part = MatrixTexts {
            accuracy: NamedText {
                name: "acc.txt",
                text: acc,
            },
            runtime: Some(NamedText {
                name: "time.txt",
                text: rt,
            }),
            row_labels: None,
        };
        let _ = parse(&[part], None, Some("0"), None);
    }
});
