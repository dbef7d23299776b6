//! A scenario's `[trace]` can name a file, import a published table on the
//! fly, or generate a synthetic trace in memory.

use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::testing::shared_data;
use tenantsim::models::scenario::parse_scenario;

fn scenario_text(trace_table: &str) -> String {
    format!(
        "name = \"src\"\n{trace_table}\n[cluster]\ngpus = 2\n[[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n"
    )
}

#[test]
fn generated_trace_is_deterministic_and_sized_as_asked() {
    let text = scenario_text("[trace.syn]\nusers = 30\nmodels = 7\nmodel_sd = 0.2\nseed = 5\n");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/x.toml");
    let a = parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    let b = parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.trace.n_users(), 30);
    assert_eq!(a.trace.n_models(), 7);
    assert_eq!(a.trace.n_pairs(), 210);
    assert_eq!(a.trace_sha256, b.trace_sha256);
    assert!(
        a.trace_path
            .display()
            .to_string()
            .starts_with("gen syn --users 30")
    );
    let other = scenario_text("[trace.syn]\nusers = 30\nmodels = 7\nmodel_sd = 0.2\nseed = 6\n");
    let c = parse_scenario(&path, &other, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(a.trace_sha256, c.trace_sha256);
}

/// Importing LCDB on the fly gives exactly the bundled `traces/lcdb.csv`,
/// which the same importer wrote: same pairs and the same SHA-256.
#[test]
fn imported_lcdb_equals_the_bundled_trace() {
    let Some(lcdb) = shared_data("lcdb/lcdb_final.csv") else {
        return;
    };
    let text = scenario_text(&format!(
        "[trace.import]\nformat = \"lcdb\"\ninputs = [\"{}\"]\n",
        lcdb.display()
    ));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/x.toml");
    let s = parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.trace.n_pairs(), 4367);
    assert_eq!(s.trace.n_users(), 248);
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/lcdb.csv");
    let from_file = scenario_text("[trace]\npath = \"../traces/lcdb.csv\"\n");
    let f =
        parse_scenario(&path, &from_file, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        f.trace_path,
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/../traces/lcdb.csv")
    );
    assert!(bundled.exists());
    assert_eq!(s.trace_sha256, f.trace_sha256);
}
