//! Helpers for tests (unit and integration). Not part of the stable API.
//!
//! Tests on the real data sets under `../shared/data/` (beside the
//! repository) go through [`shared_data`], so every such test follows the
//! same rule: when the folder is absent the test prints a note and is
//! skipped, unless `TENANTSIM_REQUIRE_SHARED_DATA=1` is set, in which case
//! the absence is a failure. A test that runs a bundled scenario reading
//! that data asks [`scenario_data`] first, which applies the same rule to
//! every `shared/data/` path the scenario names.
//!
//! The notes are written to the process's stderr directly, not through
//! `eprintln!`, so `cargo test` shows them even for tests that pass (the
//! test harness captures only the print macros): a fresh clone's
//! `cargo test` says which tests skipped and why.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A note on the real stderr, past the test harness's capture, naming the
/// test (libtest names each test's thread after it).
fn note(text: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    let line = format!("note: skipping `{test}`: {text}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// Environment variable that turns a missing shared data folder into a test
/// failure instead of a skip.
pub const REQUIRE_SHARED_DATA_ENV: &str = "TENANTSIM_REQUIRE_SHARED_DATA";

/// The path of `relative` inside `<crate>/../shared/data/`, or `None` (after
/// printing a note on stderr) when it does not exist and
/// `TENANTSIM_REQUIRE_SHARED_DATA` is not `1`.
///
/// Use it as `let Some(path) = shared_data("lcdb/lcdb_final.csv") else { return };`.
///
/// # Panics
/// When the path is absent and `TENANTSIM_REQUIRE_SHARED_DATA=1`.
pub fn shared_data(relative: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(relative);
    let required = std::env::var(REQUIRE_SHARED_DATA_ENV).is_ok_and(|v| v == "1");
    let found = resolve(path.clone(), required);
    if found.is_none() {
        note(&format!(
            "{} is absent (set {REQUIRE_SHARED_DATA_ENV}=1 to make this a failure)",
            path.display()
        ));
    }
    found
}

fn resolve(path: PathBuf, required: bool) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    assert!(
        !required,
        "{} is absent but {REQUIRE_SHARED_DATA_ENV}=1 requires the shared data",
        path.display()
    );
    None
}

/// Whether every `shared/data/…` file the scenario file `scenario` names
/// (written as `"…/shared/data/<relative>"` anywhere in it) is present,
/// by [`shared_data`]'s rule: a note for the first absent one and `false`,
/// or a panic under `TENANTSIM_REQUIRE_SHARED_DATA=1`. A scenario that names no
/// such file needs nothing: `true`.
///
/// Use it as `if !scenario_data(&path) { return; }` before running a
/// bundled scenario such as `scenarios/easeml-dl.toml`.
///
/// # Panics
/// When the scenario cannot be read, or a file is absent and
/// `TENANTSIM_REQUIRE_SHARED_DATA=1`.
pub fn scenario_data(scenario: &Path) -> bool {
    let text = std::fs::read_to_string(scenario)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", scenario.display()));
    shared_paths(&text)
        .iter()
        .all(|rel| shared_data(rel).is_some())
}

/// The `<relative>` of every `…shared/data/<relative>` in `text`, up to a
/// quote or white space (a comment's mention of a folder counts too: the
/// scenario reads from it).
fn shared_paths(text: &str) -> Vec<String> {
    const MARK: &str = "shared/data/";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(MARK) {
        let after = &rest[i + MARK.len()..];
        let end = after
            .find(['"', '\'', '\n', ' ', '\t'])
            .unwrap_or(after.len());
        let rel = after[..end].to_string();
        if !rel.is_empty() && !out.contains(&rel) {
            out.push(rel);
        }
        rest = &after[end..];
    }
    out
}

/// Environment variable that turns a missing external tool (poppler's
/// `pdfinfo`, Debian's `chromium`: `scripts/install-viewers`) into a test
/// failure instead of a skip.
pub const REQUIRE_TOOLS_ENV: &str = "TENANTSIM_REQUIRE_TOOLS";

/// Whether the program `name` is on `PATH`; when it is not, a note on
/// stderr and `false`, the same rule as [`shared_data`].
///
/// # Panics
/// When it is absent and `TENANTSIM_REQUIRE_TOOLS=1`.
pub fn external_tool(name: &str) -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()));
    if !found {
        let required = std::env::var(REQUIRE_TOOLS_ENV).is_ok_and(|v| v == "1");
        assert!(
            !required,
            "{name} is not installed but {REQUIRE_TOOLS_ENV}=1 requires it (scripts/install-viewers)"
        );
        note(&format!(
            "{name} is not installed (scripts/install-viewers; set {REQUIRE_TOOLS_ENV}=1 to make this a failure)"
        ));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_data_is_skipped_unless_required() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(resolve(here.clone(), false), Some(here.clone()));
        assert_eq!(resolve(here.join("no-such-folder"), false), None);
    }

    #[test]
    fn a_scenarios_shared_paths_are_found_wherever_they_are_quoted() {
        let text = "inputs = [\n  \"../../shared/data/a/prior.txt\",\n  \"../../shared/data/a/test.txt\",\n]\n\
                    path = '../../shared/data/lcdb/x.csv' # twice: ../../shared/data/lcdb/x.csv\n\
                    other = \"../traces/hand.csv\"\n";
        assert_eq!(
            shared_paths(text),
            ["a/prior.txt", "a/test.txt", "lcdb/x.csv"]
        );
        assert!(shared_paths("path = \"../traces/hand.csv\"").is_empty());
    }

    #[test]
    fn a_bundled_scenario_without_shared_data_needs_nothing() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert!(scenario_data(&here.join("scenarios/quickstart.toml")));
    }

    #[test]
    #[should_panic(expected = "requires the shared data")]
    fn absent_data_fails_when_required() {
        let _ = resolve(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("no-such-folder"),
            true,
        );
    }
}
