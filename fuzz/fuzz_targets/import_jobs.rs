//! The job-trace importers (`tenantsim import-jobs`: Alibaba, Philly,
//! Helios, Gavel) must never panic. The first byte picks the importer;
//! for Gavel the rest is split at the first NUL into the `.trace` file and
//! the throughput JSON. The importers read files, so the input is written
//! to a folder of this process's own in the system's temporary folder
//! first, removed after each input.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tenantsim::jobs::import::gavel::GavelOptions;
use tenantsim::jobs::import::{Fractional, ImportFormat, ImportOptions, import_jobs};

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tenantsim-fuzz-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let input = dir.join("input");
    let (trace, json) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &b""[..]),
    };
    let (format, options) = match which % 5 {
        0 => (ImportFormat::Alibaba, ImportOptions::default()),
        1 => (
            ImportFormat::Alibaba,
            ImportOptions {
                fractional: Fractional::Drop,
                ..ImportOptions::default()
            },
        ),
        2 => (ImportFormat::Philly, ImportOptions::default()),
        3 => (ImportFormat::Helios, ImportOptions::default()),
        _ => {
            let tp = dir.join("tp.json");
            if std::fs::write(&tp, json).is_err() {
                let _ = std::fs::remove_dir_all(&dir);
                return;
            }
            let gavel = GavelOptions {
                throughputs: Some(tp),
                worker_types: vec!["v100".into(), "k80".into()],
            };
            (
                ImportFormat::Gavel,
                ImportOptions {
                    gavel,
                    ..ImportOptions::default()
                },
            )
        }
    };
    let body = if matches!(format, ImportFormat::Gavel) {
        trace
    } else {
        rest
    };
    if std::fs::write(&input, body).is_ok() {
        let _ = import_jobs(format, &input, options);
    }
    let _ = std::fs::remove_dir_all(&dir);
});
