//! What a fresh clone runs: `.ci/run` runs `cargo test` once with
//! `../shared` beside the repository (missing data fails the tests) and
//! again in a clone without it, where the tests that read
//! `../shared/data` skip with a note. The second run takes only the
//! modules listed in `.ci/fresh-clone-tests`: the others do not depend on
//! `../shared`. This guard keeps that list whole: every module that calls
//! `shared_data` or `scenario_data` (tenantsim::core::testing, the one
//! way tests reach the shared data) must be on it.

use std::fs;
use std::path::Path;

use crate::common::repo;

/// The libtest filters of `.ci/fresh-clone-tests` (comments and blank
/// lines left out).
fn filters() -> Vec<String> {
    fs::read_to_string(repo(".ci/fresh-clone-tests"))
        .expect(".ci/fresh-clone-tests")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in fs::read_dir(dir).expect("a folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The test-name prefix of the module in `file` under `root`
/// (`src/a/b.rs` → `a::b::`, `src/a/mod.rs` → `a::`,
/// `tests/it/x.rs` → `x::`).
fn module_path(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).expect("under its root");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts.iter().map(|p| format!("{p}::")).collect()
}

#[test]
fn every_module_that_reads_the_shared_data_runs_in_the_fresh_clone_step() {
    let filters = filters();
    // Built at run time, so this file is not taken for a reader.
    let calls = [
        format!("{}(", "shared_data"),
        format!("{}(", "scenario_data"),
    ];
    let mut checked = 0;
    let mut missing = Vec::new();
    for root in ["src", "tests/it"] {
        let root = repo(root);
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        for f in files {
            let text = fs::read_to_string(&f).expect("readable");
            if f.ends_with("src/core/testing.rs")
                || !calls.iter().any(|c| text.contains(c.as_str()))
            {
                continue;
            }
            checked += 1;
            let m = module_path(&root, &f);
            if !filters.iter().any(|flt| m.starts_with(flt.as_str())) {
                missing.push(format!("{} (tests named {m}…)", f.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these modules read ../shared/data but .ci/fresh-clone-tests does not list them, \
         so a fresh clone's run would not show that they skip cleanly:\n{}",
        missing.join("\n")
    );
    // The guard found the known readers (16 modules when it was written);
    // a scan that finds none has lost its way.
    assert!(checked >= 15, "only {checked} modules read ../shared/data");
}

#[test]
fn module_paths_are_test_name_prefixes() {
    let root = Path::new("/r/src");
    assert_eq!(
        module_path(root, Path::new("/r/src/models/import/real_data_tests.rs")),
        "models::import::real_data_tests::"
    );
    assert_eq!(
        module_path(root, Path::new("/r/src/shared/mod.rs")),
        "shared::"
    );
    assert_eq!(module_path(root, Path::new("/r/src/lib.rs")), "");
    assert_eq!(
        module_path(Path::new("/r/tests/it"), Path::new("/r/tests/it/shards.rs")),
        "shards::"
    );
}
