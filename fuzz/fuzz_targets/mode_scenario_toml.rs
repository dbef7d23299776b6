//! The job-mode and shared-mode scenario parsers (TOML, validation,
//! policy keys, typed clusters, services, backgrounds, workflows) and the
//! model-mode sweep expansion must never panic. The first byte picks the
//! parser. Paths resolve against this crate's folder, so
//! `../traces/jobs-hand.csv` and `../traces/hand.csv` in an input reach
//! the bundled traces and the checks that need a trace run too.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tenantsim::core::io::scenario::Overrides;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenario.toml");
    match which % 3 {
        0 => {
            let _ =
                tenantsim::jobs::scenario::parse_job_scenario(&path, text, Overrides::default());
        }
        1 => {
            let _ = tenantsim::shared::scenario::parse_shared_scenario(
                &path,
                text,
                Overrides::default(),
            );
        }
        _ => {
            let _ = tenantsim::models::scenario::parse_plan(&path, text, Overrides::default());
        }
    }
});
