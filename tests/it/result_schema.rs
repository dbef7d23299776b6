//! Every result file follows its schema (`tenantsim::core::io::schema`): the
//! header is the schema's columns in order (optional and per-θ / per-type /
//! per-key columns as the run calls for), every row has the header's
//! width, and every cell is of its column's kind. The Python package's
//! `schema.json` is `tenantsim schema --json`.

use std::fs;
use std::path::Path;

use tenantsim::core::io::schema::{self, Mode};

use tenantsim::core::testing::scenario_data;

use crate::common::{repo, run_scenario, tenantsim};

/// Check every CSV under `dir` (a sweep's points too) against the schema of
/// `mode`; returns the files checked, as `folder/name` relative to `dir`.
fn check_folder(dir: &Path, mode: Mode, root: &Path, checked: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "plots" {
                check_folder(&path, mode, root, checked);
            }
            continue;
        }
        if !name.ends_with(".csv") {
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .expect("prefix")
            .display()
            .to_string();
        // A shared folder's `workflows/` files are named by their path.
        let in_workflows = mode == Mode::Shared
            && path.parent().and_then(|p| p.file_name()) == Some("workflows".as_ref());
        let key = if in_workflows {
            format!("workflows/{name}")
        } else {
            name.to_string()
        };
        let file = schema::find(mode, &key).unwrap_or_else(|| panic!("{rel}: no schema"));
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_path(&path)
            .expect("open");
        let header: Vec<String> = reader
            .headers()
            .expect("header")
            .iter()
            .map(str::to_string)
            .collect();
        let columns = file
            .match_header(&header)
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let mut rows = 0;
        for record in reader.records() {
            let record = record.unwrap_or_else(|e| panic!("{rel}: {e}"));
            assert_eq!(record.len(), header.len(), "{rel}: row width");
            for ((cell, col), h) in record.iter().zip(&columns).zip(&header) {
                assert!(
                    col.kind.accepts(cell),
                    "{rel}: column `{h}` ({}): `{cell}` is not {}",
                    col.kind.name(),
                    col.kind.meaning()
                );
            }
            rows += 1;
        }
        checked.push(format!("{rel} ({rows} rows)"));
    }
}

/// Run `scenario` with one repetition and every file (`--jobs`), then hold
/// each CSV to its schema; `expect` names files that must be among them.
/// Returns the temporary folder holding the results (`out`).
fn run_and_check(scenario: &str, mode: Mode, expect: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out");
    run_scenario(
        scenario,
        &out,
        &[
            "--reps",
            "1",
            "--jobs",
            "--no-plots",
            "--no-cache",
            "--quiet",
            "--threads",
            "1",
        ],
    );
    let mut checked = Vec::new();
    check_folder(&out, mode, &out, &mut checked);
    for e in expect {
        assert!(
            checked.iter().any(|c| c.starts_with(e)),
            "{scenario}: `{e}` not among {checked:?}"
        );
    }
    tmp
}

#[test]
fn model_mode_files_follow_their_schemas() {
    let _ = run_and_check(
        "scenarios/quickstart.toml",
        Mode::Models,
        &[
            "summary.csv",
            "tenants.csv",
            "curves.csv",
            "curves_by_job.csv",
            "speedups.csv",
            "speedups_up_to.csv",
            "regret.csv",
            "jobs.csv",
        ],
    );
}

/// A typed cluster adds `gpu_busy_fraction.<type>` and `gpu_type`.
#[test]
fn typed_model_mode_files_follow_their_schemas() {
    // Its trace is imported from ../shared/data (skips with a note without it).
    if !scenario_data(&repo("scenarios/easeml-dl-mixed.toml")) {
        return;
    }
    let _ = run_and_check(
        "scenarios/easeml-dl-mixed.toml",
        Mode::Models,
        &["jobs.csv"],
    );
}

/// A curve trace adds `fidelity`, `low_fidelity_gpu_s` and (early
/// stoppers) `ended`.
#[test]
fn curve_trace_files_follow_their_schemas() {
    let _ = run_and_check(
        "scenarios/lcdb-curves-1gpu.toml",
        Mode::Models,
        &["tenants.csv"],
    );
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out");
    run_scenario(
        "scenarios/lcdb-curves-1gpu.toml",
        &out,
        &[
            "--reps",
            "1",
            "--jobs",
            "--no-plots",
            "--no-cache",
            "--quiet",
            "--threads",
            "1",
        ],
    );
    let head = |f: &str| {
        fs::read_to_string(out.join(f))
            .expect("read")
            .lines()
            .next()
            .unwrap_or("")
            .to_string()
    };
    assert!(
        head("tenants.csv").ends_with(",ended"),
        "{}",
        head("tenants.csv")
    );
    assert!(head("summary.csv").ends_with(",low_fidelity_gpu_s"));
    assert!(head("jobs.csv").ends_with(",accuracy,fidelity"));
}

#[test]
fn model_sweep_files_follow_their_schemas() {
    let _ = run_and_check(
        "scenarios/sweep.toml",
        Mode::Models,
        &[
            "sweep.csv",
            "point-000-cluster.gpus=1+split.tenant_count=2/summary.csv",
        ],
    );
}

#[test]
fn job_mode_files_follow_their_schemas() {
    let _ = run_and_check(
        "scenarios/jobs-quickstart.toml",
        Mode::Jobs,
        &["summary.csv", "users.csv", "utilization.csv", "jobs.csv"],
    );
}

/// A typed cluster adds `gpu_utilization.<type>`, `gpu_type` and
/// `utilization_by_type.csv`.
#[test]
fn typed_job_mode_files_follow_their_schemas() {
    let _ = run_and_check(
        "scenarios/gavel-16-16-16.toml",
        Mode::Jobs,
        &["utilization_by_type.csv", "jobs.csv"],
    );
}

#[test]
fn job_sweep_files_follow_their_schemas() {
    let _ = run_and_check("scenarios/jobs-sweep.toml", Mode::Jobs, &["sweep.csv"]);
}

/// A shared folder: `service/` holds model mode's files (its `jobs.csv`
/// by segment, shared mode's own schema), `background/` job mode's, and
/// `shares.csv` at the top shared mode's.
#[test]
fn shared_mode_files_follow_their_schemas() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out");
    run_scenario(
        "scenarios/shared-quickstart.toml",
        &out,
        &[
            "--reps",
            "1",
            "--jobs",
            "--no-plots",
            "--no-cache",
            "--quiet",
            "--threads",
            "1",
        ],
    );
    let mut checked = Vec::new();
    check_folder(&out.join("background"), Mode::Jobs, &out, &mut checked);
    // service/jobs.csv is by segment here (a background can preempt it):
    // check it apart, against shared mode's schema.
    let service = out.join("service");
    let segments = tmp.path().join("segments");
    fs::create_dir(&segments).expect("mkdir");
    fs::rename(service.join("jobs.csv"), segments.join("jobs.csv")).expect("move jobs.csv");
    check_folder(&service, Mode::Models, &out, &mut checked);
    check_folder(&segments, Mode::Shared, tmp.path(), &mut checked);
    fs::rename(out.join("shares.csv"), segments.join("shares.csv")).expect("move shares.csv");
    fs::remove_file(segments.join("jobs.csv")).expect("rm");
    check_folder(&segments, Mode::Shared, tmp.path(), &mut checked);
    for e in [
        "background/summary.csv",
        "background/utilization.csv",
        "service/summary.csv",
        "service/tenants.csv",
        "segments/jobs.csv",
        "segments/shares.csv",
    ] {
        assert!(
            checked.iter().any(|c| c.starts_with(e)),
            "`{e}` not among {checked:?}"
        );
    }
    // The segments file has rows: its cells were checked, not only its header.
    assert!(
        checked
            .iter()
            .any(|c| c.starts_with("segments/jobs.csv") && !c.ends_with("(0 rows)")),
        "{checked:?}"
    );
}

/// A shared folder's `workflows/` (DESIGN §14.7): each of its four files
/// (`--jobs`) holds to its schema (`workflows/summary.csv`...), with rows.
#[test]
fn workflows_files_follow_their_schemas() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("out");
    run_scenario(
        "scenarios/shared-workflows-quickstart.toml",
        &out,
        &[
            "--reps",
            "1",
            "--jobs",
            "--no-plots",
            "--no-cache",
            "--quiet",
            "--threads",
            "1",
        ],
    );
    let mut checked = Vec::new();
    check_folder(&out.join("workflows"), Mode::Shared, &out, &mut checked);
    for e in ["summary", "workflows", "steps", "jobs"] {
        let e = format!("workflows/{e}.csv");
        assert!(
            checked
                .iter()
                .any(|c| c.starts_with(&e) && !c.ends_with("(0 rows)")),
            "`{e}` with rows not among {checked:?}"
        );
    }
}

/// `python/tenantsim/schema.json` (what the Python package reads) is what
/// `tenantsim schema --json` prints; regenerate it with
/// `tenantsim schema --json > python/tenantsim/schema.json`.
#[test]
fn python_schema_json_is_tenantsim_schema_json() {
    let out = tenantsim()
        .args(["schema", "--json"])
        .output()
        .expect("run tenantsim schema");
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(printed, schema::to_json());
    let checked_in =
        fs::read_to_string(repo("python/tenantsim/schema.json")).expect("read schema.json");
    assert!(
        checked_in == printed,
        "python/tenantsim/schema.json differs from `tenantsim schema --json`: \
         regenerate it with `tenantsim schema --json > python/tenantsim/schema.json`"
    );
}

/// `tenantsim schema` prints one Markdown table per file, every column.
#[test]
fn schema_command_prints_every_file_and_column() {
    let out = tenantsim().arg("schema").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    for f in schema::all() {
        assert!(text.contains(&format!("#### `{}`", f.name)), "{}", f.name);
        for c in f.columns {
            assert!(text.contains(&format!("| `{}` |", c.name)), "{}", c.name);
        }
    }
}

/// docs/REFERENCE.md "Columns of every file" is `tenantsim schema`'s
/// output, between its two marker lines.
#[test]
fn reference_columns_are_tenantsim_schema() {
    const BEGIN: &str = "<!-- BEGIN `tenantsim schema`";
    const END: &str = "<!-- END `tenantsim schema` -->";
    let doc = fs::read_to_string(repo("docs/REFERENCE.md")).expect("read REFERENCE.md");
    let start = doc.find(BEGIN).expect("begin marker");
    let start = start + doc[start..].find('\n').expect("marker line") + 1;
    let end = doc.find(END).expect("end marker");
    assert!(
        doc[start..end] == schema::to_markdown(),
        "docs/REFERENCE.md \"Columns of every file\" differs from `tenantsim schema`: \
         paste its output between the markers"
    );
}
