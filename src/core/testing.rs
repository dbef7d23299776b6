//! Helpers for tests (unit and integration). Not part of the stable API.
//!
//! Tests on the real data sets under `../shared/data/` (beside the
//! repository) go through [`shared_data`], so every such test follows the
//! same rule: when the folder is absent the test prints a note and is
//! skipped, unless `TENANTSIM_REQUIRE_SHARED_DATA=1` is set, in which case
//! the absence is a failure.

use std::path::PathBuf;

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
    resolve(path, required)
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
    eprintln!(
        "note: skipping test: {} is absent (set {REQUIRE_SHARED_DATA_ENV}=1 to make this a failure)",
        path.display()
    );
    None
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
        eprintln!(
            "note: skipping test: {name} is not installed (scripts/install-viewers; set {REQUIRE_TOOLS_ENV}=1 to make this a failure)"
        );
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
    #[should_panic(expected = "requires the shared data")]
    fn absent_data_fails_when_required() {
        let _ = resolve(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("no-such-folder"),
            true,
        );
    }
}
