//! Helpers shared by the integration tests (`mod common;` in each).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// A path inside the repository.
pub fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// The tenantsim binary built for these tests.
pub fn tenantsim() -> Command {
    Command::cargo_bin("tenantsim").expect("binary built")
}

/// The bundled scenarios too large to run in the test suite (issue 34:
/// 10^6 and 10^7 tenants, docs/PERFORMANCE.md "Internet scale"): tests
/// that run every bundled scenario leave them out; `scale_scenarios`
/// validates them.
pub const INTERNET_SCALE: [&str; 2] = ["scale-1m", "scale-year"];

/// The file that marks a folder as written by tenantsim.
pub const RESULTS_MARK: &str = ".tenantsim-results";

/// Every file under `dir` but the results mark ([`RESULTS_MARK`]), by path
/// relative to it, with its bytes.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.file_name().is_some_and(|n| n != RESULTS_MARK) {
                let rel = path.strip_prefix(root).expect("prefix").to_path_buf();
                out.insert(rel, fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Two results folders hold the same files, byte for byte, every
/// `run.json` (which records paths and timings) excepted.
pub fn assert_same_result_files(a: &Path, b: &Path, what: &str) {
    let (ta, tb) = (tree(a), tree(b));
    assert_eq!(
        ta.keys().collect::<Vec<_>>(),
        tb.keys().collect::<Vec<_>>(),
        "{what}: different files"
    );
    for (rel, bytes) in &ta {
        if rel.file_name().is_some_and(|n| n != "run.json") {
            assert!(bytes == &tb[rel], "{what}: {} differs", rel.display());
        }
    }
}

/// `tenantsim run SCENARIO --out OUT EXTRA…` succeeds (`scenario` relative
/// to the repository).
pub fn run_scenario(scenario: &str, out: &Path, extra: &[&str]) {
    tenantsim()
        .arg("run")
        .arg(repo(scenario))
        .arg("--out")
        .arg(out)
        .args(extra)
        .assert()
        .success();
}
