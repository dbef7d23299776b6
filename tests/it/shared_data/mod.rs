//! Access to the public data sets in `../shared/data` (relative to the
//! crate root) for tests. When a data set is absent the test prints a note
//! and skips, unless `TENANTSIM_REQUIRE_SHARED_DATA=1` (as in CI), in which
//! case it fails.

use std::path::PathBuf;

/// The path of `relative` under `../shared/data`, or `None` (after printing
/// why) when it is absent and the data is not required. Panics when it is
/// absent and `TENANTSIM_REQUIRE_SHARED_DATA=1`.
pub fn shared_data(relative: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(relative);
    if path.exists() {
        return Some(path);
    }
    let required = std::env::var("TENANTSIM_REQUIRE_SHARED_DATA").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "{} is absent but TENANTSIM_REQUIRE_SHARED_DATA=1",
        path.display()
    );
    eprintln!("note: skipping: {} is absent", path.display());
    None
}
