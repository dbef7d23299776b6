//! What a fresh clone runs: `.ci/run` runs `cargo test` once with
//! `../shared` beside the repository (missing data fails the tests), while
//! `tenantsim::core::testing::shared_data` logs the name of every test that
//! asks for the shared data (`TENANTSIM_SHARED_DATA_LOG`). It then runs
//! exactly those tests again with the shared data pointed at a missing
//! folder (`TENANTSIM_SHARED_DATA_DIR`), where each must skip with a note
//! and pass: what a fresh clone of the README sees, with the test binaries
//! already built (docs/CI.md, "CI time").
//!
//! That rerun sees only the tests that reach the data through the helpers
//! (`shared_data`, or `scenario_data` for a bundled scenario that names
//! `shared/data/` files). This guard keeps it that way: a test file whose
//! code names such a scenario, or `../shared` itself, must call one of
//! them, or a fresh clone's `cargo test` would fail where CI passes.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::repo;

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("a folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file names (`easeml-dl.toml`) of the bundled scenarios that read
/// `../shared/data` (their text names a `shared/data/` path, the rule of
/// `scenario_data`).
fn shared_scenarios() -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            fs::read_to_string(p)
                .expect("readable")
                .contains("shared/data/")
        })
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    out.sort();
    out
}

/// The code of `text`: every line but comments (`//`, `//!`, `///`).
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What in `code` reaches the shared data: a named scenario of `shared`, or
/// a `../shared` path.
fn reaches(code: &str, shared: &[String]) -> Vec<String> {
    let mut found: Vec<String> = shared
        .iter()
        .filter(|name| code.contains(name.as_str()))
        .cloned()
        .collect();
    if code.contains("\"../shared") || code.contains("\"../../shared") {
        found.push("../shared".to_string());
    }
    found
}

#[test]
fn tests_reach_the_shared_data_only_through_the_helpers() {
    let shared = shared_scenarios();
    // easeml-dl*, fernandez-delgado-unit and lcdb-unit-cost when written.
    assert!(
        shared.len() >= 5,
        "only {shared:?} read ../shared/data: the scan has lost its way"
    );
    // Built at run time, so this file is not taken for a caller.
    let helpers = [
        format!("{}(", "shared_data"),
        format!("{}(", "scenario_data"),
    ];
    let mut readers = 0;
    let mut missing = Vec::new();
    for root in ["src", "tests/it"] {
        let mut files = Vec::new();
        rust_files(&repo(root), &mut files);
        for f in files {
            if f.ends_with("src/core/testing.rs") || f.ends_with("tests/it/fresh_clone.rs") {
                continue;
            }
            let code = code(&fs::read_to_string(&f).expect("readable"));
            let found = reaches(&code, &shared);
            if found.is_empty() {
                continue;
            }
            readers += 1;
            if !helpers.iter().any(|h| code.contains(h.as_str())) {
                missing.push(format!("{} (names {})", f.display(), found.join(", ")));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these files reach ../shared/data without shared_data or scenario_data \
         (tenantsim::core::testing), so a fresh clone's cargo test fails in them \
         and .ci/run's fresh-clone step does not see it:\n{}",
        missing.join("\n")
    );
    assert!(readers >= 3, "only {readers} files name shared data");
}

#[test]
fn a_scenario_named_in_a_comment_is_not_a_read() {
    let shared = vec!["easeml-dl.toml".to_string()];
    let text = "//! runs easeml-dl.toml\n/// see \"../shared/data\"\nfn f() {}\n";
    assert!(reaches(&code(text), &shared).is_empty());
    let text = "let p = repo(\"scenarios/easeml-dl.toml\");\nlink(&repo(\"../shared\"));\n";
    assert_eq!(
        reaches(&code(text), &shared),
        ["easeml-dl.toml", "../shared"]
    );
}
