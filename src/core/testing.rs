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
//! Two environment variables serve `.ci/run`'s fresh-clone step
//! (docs/CI.md, "CI time"), read at run time so that setting them rebuilds
//! nothing: [`SHARED_DATA_LOG_ENV`] names a file to which [`shared_data`]
//! appends the name of every test that asks for the shared data, and
//! [`SHARED_DATA_DIR_ENV`] names the folder that stands for
//! `../shared/data` (a missing one: what a fresh clone sees).
//!
//! The notes are written to the process's stderr directly, not through
//! `eprintln!`, so `cargo test` shows them even for tests that pass (the
//! test harness captures only the print macros): a fresh clone's
//! `cargo test` says which tests skipped and why.

use std::ffi::OsString;
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

/// Environment variable naming the folder that stands for
/// `<crate>/../shared/data` in [`shared_data`] and [`scenario_data`] (unset
/// or empty: that folder). `.ci/run` points it at a missing folder to run
/// the tests as a fresh clone (no `../shared` beside it) runs them, with
/// the test binaries already built.
pub const SHARED_DATA_DIR_ENV: &str = "TENANTSIM_SHARED_DATA_DIR";

/// Environment variable naming a file to which [`shared_data`] appends the
/// name of the calling test, one line per call (unset or empty: nothing is
/// written). `.ci/run` collects the tests that read the shared data this
/// way and runs exactly those again under [`SHARED_DATA_DIR_ENV`].
pub const SHARED_DATA_LOG_ENV: &str = "TENANTSIM_SHARED_DATA_LOG";

/// Environment variable naming a file to which [`shared_data`] appends the
/// name of the calling test when it skips for want of the data (unset or
/// empty: nothing is written). `.ci/run`'s fresh-clone step checks that
/// every test that read the data skipped, from this file rather than from
/// the notes on stderr: two of those notes were once missing from the
/// step's captured output although their tests had run and passed (CI of
/// stop 48), which failed the step.
pub const SHARED_DATA_SKIP_LOG_ENV: &str = "TENANTSIM_SHARED_DATA_SKIP_LOG";

/// The folder the shared data sets are read from: [`SHARED_DATA_DIR_ENV`]
/// when set, else `../shared/data` beside the crate.
fn shared_root() -> PathBuf {
    shared_root_from(std::env::var_os(SHARED_DATA_DIR_ENV))
}

/// [`shared_root`] for the variable's value `dir`.
fn shared_root_from(dir: Option<OsString>) -> PathBuf {
    match dir {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    }
}

/// Appends the calling test's name to the file [`SHARED_DATA_LOG_ENV`]
/// names, if any. One `write` of the whole line to a file opened for
/// appending, so lines of tests running in parallel do not mix.
///
/// # Panics
/// When the file cannot be written, or when called off a test's own thread
/// (libtest names it after the test): the test could not be run again by
/// name, so the fresh-clone step would silently miss it.
fn log_reader() {
    log_test_to(SHARED_DATA_LOG_ENV);
}

/// Appends the calling test's name to the file the variable `env` names,
/// if any (see [`log_reader`]).
fn log_test_to(env: &str) {
    let Some(log) = std::env::var_os(env).filter(|v| !v.is_empty()) else {
        return;
    };
    let thread = std::thread::current();
    let test = match thread.name() {
        Some(name) if name != "main" => name,
        other => panic!(
            "shared_data was called on thread {other:?}, not on a test's own thread: \
             {env} cannot name the test (call it from the test itself)"
        ),
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut f| f.write_all(format!("{test}\n").as_bytes()));
    if let Err(e) = written {
        panic!("cannot append to {env}={}: {e}", log.to_string_lossy());
    }
}

/// The path of `relative` inside `<crate>/../shared/data/` (or
/// [`SHARED_DATA_DIR_ENV`]), or `None` (after printing a note on stderr)
/// when it does not exist and `TENANTSIM_REQUIRE_SHARED_DATA` is not `1`.
/// The calling test is logged first ([`SHARED_DATA_LOG_ENV`]).
///
/// Use it as `let Some(path) = shared_data("lcdb/lcdb_final.csv") else { return };`.
///
/// # Panics
/// When the path is absent and `TENANTSIM_REQUIRE_SHARED_DATA=1`, or the
/// log cannot be written.
pub fn shared_data(relative: &str) -> Option<PathBuf> {
    log_reader();
    let path = shared_root().join(relative);
    let required = std::env::var(REQUIRE_SHARED_DATA_ENV).is_ok_and(|v| v == "1");
    let found = resolve(path.clone(), required);
    if found.is_none() {
        note(&format!(
            "{} is absent (set {REQUIRE_SHARED_DATA_ENV}=1 to make this a failure)",
            path.display()
        ));
        log_test_to(SHARED_DATA_SKIP_LOG_ENV);
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

/// A reader of `bytes` giving at most `step` bytes a read, and an error
/// once `fail_at` bytes are given (never, from [`Trickle::new`]): for
/// tests of what decodes as it reads (a stored run read from its file).
#[derive(Debug, Clone)]
pub struct Trickle<'a> {
    bytes: &'a [u8],
    at: usize,
    step: usize,
    fail_at: usize,
}

impl<'a> Trickle<'a> {
    /// `bytes`, at most `step` (≥ 1) a read.
    pub fn new(bytes: &'a [u8], step: usize) -> Self {
        Self {
            bytes,
            at: 0,
            step: step.max(1),
            fail_at: usize::MAX,
        }
    }

    /// The same reader, failing once `fail_at` bytes are given.
    pub fn failing_at(self, fail_at: usize) -> Self {
        Self { fail_at, ..self }
    }
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at >= self.fail_at {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = buf
            .len()
            .min(self.step)
            .min(self.bytes.len() - self.at)
            .min(self.fail_at - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
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
    fn the_shared_data_folder_can_be_pointed_elsewhere() {
        // (The variable itself is not set here: set_var is unsafe in
        // edition 2024 and would reach the tests running beside this one.)
        let default = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
        assert_eq!(
            shared_root_from(Some("/elsewhere/data".into())),
            PathBuf::from("/elsewhere/data")
        );
        assert_eq!(shared_root_from(Some("".into())), default);
        assert_eq!(shared_root_from(None), default);
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
