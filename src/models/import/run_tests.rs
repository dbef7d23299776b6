//! Tests of [`run_import`] on the small fixtures.

use std::path::{Path, PathBuf};

use super::*;
use crate::core::error::ErrorKind;
use crate::models::trace::load_trace;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

fn args(format: ImportFormat, inputs: &[&str]) -> ImportOptions {
    ImportOptions::new(format, inputs.iter().map(|i| fixture(i)).collect())
}

#[test]
fn imports_each_fixture_and_the_written_trace_loads_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("sub/trace.csv");
    let cases = [
        (args(ImportFormat::Lcdb, &["lcdb_small.csv"]), (2, 3, 5, 0)),
        (
            ImportOptions {
                runtime: Some(RuntimeModel::Unit),
                ..args(ImportFormat::FernandezDelgado, &["fd_small.txt"])
            },
            (3, 4, 10, 2),
        ),
        (
            ImportOptions {
                runtime: Some(RuntimeModel::Unit),
                ..args(ImportFormat::Aslib, &["aslib_small"])
            },
            (2, 2, 3, 1),
        ),
        (
            ImportOptions {
                runtime_matrix: vec![fixture("matrix_time.txt")],
                row_labels: vec![fixture("matrix_rows.txt")],
                col_labels: Some(fixture("matrix_cols.txt")),
                ..args(ImportFormat::Matrix, &["matrix_acc.txt"])
            },
            (3, 4, 12, 0),
        ),
    ];
    for (a, (users, models, pairs, dropped)) in cases {
        let report = run_import(&a, &out).expect("imports");
        assert_eq!(
            (report.users, report.models, report.pairs, report.dropped),
            (users, models, pairs, dropped),
            "{}",
            a.format.name()
        );
        let trace = load_trace(&out).expect("loads back");
        assert_eq!(
            (trace.n_users(), trace.n_models(), trace.n_pairs()),
            (users, models, pairs)
        );
        let line = report.to_string();
        assert!(
            line.starts_with(&format!(
                "imported {} trace: {users} users",
                a.format.name()
            )),
            "{line}"
        );
    }
}

#[test]
fn report_line_says_where_runtimes_come_from() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t.csv");
    let a = ImportOptions {
        runtime: Some(RuntimeModel::Unit),
        ..args(ImportFormat::FernandezDelgado, &["fd_small.txt"])
    };
    let line = run_import(&a, &out).expect("imports").to_string();
    assert_eq!(
        line,
        format!(
            "imported fernandez-delgado trace: 3 users, 4 models, 10 pairs (2 dropped); runtimes: unit (1 s per job, not from the data); wrote {}",
            out.display()
        )
    );
}

#[test]
fn wrong_options_are_usage_errors_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t.csv");
    let usage = |a: ImportOptions, needle: &str| {
        let e = run_import(&a, &out).expect_err("usage error");
        assert_eq!(e.kind(), ErrorKind::Usage, "{e}");
        assert!(e.message().contains(needle), "{e}");
    };
    usage(
        ImportOptions {
            complete_only: true,
            ..args(ImportFormat::FernandezDelgado, &["fd_small.txt"])
        },
        "option --complete-only does not apply to the fernandez-delgado format",
    );
    usage(
        args(ImportFormat::FernandezDelgado, &["fd_small.txt"]),
        "--runtime unit",
    );
    usage(
        args(ImportFormat::Lcdb, &["lcdb_small.csv", "lcdb_small.csv"]),
        "exactly one input, got 2",
    );
    usage(
        args(ImportFormat::Matrix, &["matrix_acc.txt"]),
        "--runtime unit",
    );
    usage(
        ImportOptions {
            runtime_matrix: vec![fixture("matrix_time.txt")],
            ..args(ImportFormat::Matrix, &["matrix_acc.txt", "matrix_acc.txt"])
        },
        "--runtime-matrix was given 1 times for 2 input matrices",
    );
    usage(
        ImportOptions {
            measure: Some("x".into()),
            ..args(ImportFormat::Lcdb, &["lcdb_small.csv"])
        },
        "--measure does not apply",
    );
    assert!(!out.exists());
}

#[test]
fn malformed_input_is_an_input_error_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t.csv");
    let e = run_import(&args(ImportFormat::Lcdb, &["lcdb_bad_number.csv"]), &out).expect_err("bad");
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(e.message().contains("lcdb_bad_number.csv: line 3"), "{e}");
    assert!(!out.exists());
}

#[test]
fn invalid_utf8_names_the_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, b"0.1 0.2\n0.3 \xff\n").expect("write");
    let e = read_text(&path, "matrix").expect_err("invalid UTF-8");
    assert!(
        e.message()
            .ends_with("bad.txt: line 2: invalid UTF-8: expected text encoded as UTF-8"),
        "{e}"
    );
}

#[test]
fn model_metadata_is_joined_on_the_column_labels_and_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t.csv");
    let a = ImportOptions {
        runtime_matrix: vec![fixture("matrix_time.txt")],
        col_labels: Some(fixture("matrix_cols.txt")),
        model_metadata: Some(fixture("matrix_meta.csv")),
        ..args(ImportFormat::Matrix, &["matrix_acc.txt"])
    };
    run_import(&a, &out).expect("imports");
    let trace = load_trace(&out).expect("loads back");
    // Columns VGG-16, GoogLeNet, ResNet-50, AlexNet; the file lists them in
    // another order.
    assert_eq!(trace.model_year(), Some(&[2014, 2014, 2015, 2012][..]));
    assert_eq!(
        trace.model_citations(),
        Some(&[80000, 40000, 150000, 90000][..])
    );

    // Without the labels the ids are m0..m3, which the file does not name.
    let a = ImportOptions {
        col_labels: None,
        ..a
    };
    let e = run_import(&a, &out).expect_err("unknown ids");
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(
        e.message().contains(
            "matrix_meta.csv: line 2, column `model`: unknown model `AlexNet`: expected one of the trace's model ids `m0`, `m1`, `m2`, `m3`"
        ),
        "{e}"
    );
}
