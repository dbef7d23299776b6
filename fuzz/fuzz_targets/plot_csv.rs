//! The `plot` readers must reject bad results files with an error, never
//! panic. The first byte picks which file of a results folder the rest of
//! the input replaces; the other files are the valid fixtures of
//! `tests/fixtures/plots/`, so the fuzzed file is read in full context
//! (a sweep folder has only `sweep.csv`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use tenantsim::present::figures::{JobResults, ModelResults, Source, SweepResults};

const MODEL: [(&str, &str); 5] = [
    (
        "curves.csv",
        include_str!("../../tests/fixtures/plots/model/curves.csv"),
    ),
    (
        "speedups.csv",
        include_str!("../../tests/fixtures/plots/model/speedups.csv"),
    ),
    (
        "regret.csv",
        include_str!("../../tests/fixtures/plots/model/regret.csv"),
    ),
    (
        "tenants.csv",
        include_str!("../../tests/fixtures/plots/model/tenants.csv"),
    ),
    (
        "jobs.csv",
        include_str!("../../tests/fixtures/plots/model/jobs.csv"),
    ),
];
const JOBS: [(&str, &str); 2] = [
    (
        "utilization.csv",
        include_str!("../../tests/fixtures/plots/jobs/utilization.csv"),
    ),
    (
        "jobs.csv",
        include_str!("../../tests/fixtures/plots/jobs/jobs.csv"),
    ),
];

fn with(
    files: &[(&'static str, &'static str)],
    pick: usize,
    text: &str,
) -> Vec<(&'static str, String)> {
    files
        .iter()
        .enumerate()
        .map(|(i, (n, t))| {
            (
                *n,
                if i == pick {
                    text.to_string()
                } else {
                    t.to_string()
                },
            )
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let dir = Path::new("fuzz-results");
    let pick = usize::from(which) % (MODEL.len() + JOBS.len() + 1);
    let files = if pick < MODEL.len() {
        with(&MODEL, pick, &text)
    } else if pick < MODEL.len() + JOBS.len() {
        with(&JOBS, pick - MODEL.len(), &text)
    } else {
        vec![("sweep.csv", text.to_string())]
    };
    let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let mut src = Source::texts(dir, &refs);
    src.name = Some("fuzz".into());
    if pick < MODEL.len() {
        let _ = ModelResults::read(&src, None);
        let _ = ModelResults::read(&src, Some(u64::from(which)));
    } else if pick < MODEL.len() + JOBS.len() {
        let _ = JobResults::read(&src);
    } else {
        let _ = SweepResults::read(&src);
    }
});
