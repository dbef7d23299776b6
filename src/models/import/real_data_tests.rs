//! Imports of the real data sets in `../shared/data/` (skipped with a note
//! when absent, see [`crate::core::testing::shared_data`]).

use std::collections::HashSet;

use super::*;
use crate::core::testing::shared_data;
use crate::models::trace::load_trace;

/// Write the rows, load them back and check the pair count survives.
fn round_trip(imp: &Imported) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("trace.csv");
    write_trace(&out, &imp.rows).expect("written");
    let trace = load_trace(&out).expect("loads back");
    assert_eq!(trace.n_pairs(), imp.pairs());
    assert_eq!((trace.n_users(), trace.n_models()), (imp.users, imp.models));
}

#[test]
fn lcdb_final_has_4367_pairs_over_248_data_sets() {
    let Some(path) = shared_data("lcdb/lcdb_final.csv") else {
        return;
    };
    let imp = lcdb::read_with_stats(&path, &lcdb::LcdbOptions::default()).expect("imports");
    assert_eq!(
        (imp.users, imp.models, imp.pairs(), imp.dropped),
        (248, 20, 4367, 0)
    );
    assert_eq!(
        imp.runtime_floored, 0,
        "the smallest traintime_mean_s is 0.00032 s"
    );
    let models: HashSet<&str> = imp.rows.iter().map(|r| r.model.as_str()).collect();
    for m in [
        "SVC_linear",
        "RandomForestClassifier",
        "LinearDiscriminantAnalysis",
        "ExtraTreeClassifier",
    ] {
        assert!(models.contains(m), "{m}");
    }
    let first = &imp.rows[0];
    assert_eq!(
        (first.user.as_str(), first.model.as_str()),
        ("openml-3", "SVC_linear")
    );
    assert_eq!((first.accuracy, first.runtime_s), (0.9741, 0.07636));
    round_trip(&imp);

    let complete = lcdb::LcdbOptions {
        complete_only: true,
        ..lcdb::LcdbOptions::default()
    };
    let imp = lcdb::read_with_stats(&path, &complete).expect("imports");
    assert_eq!((imp.users, imp.models, imp.pairs()), (105, 20, 2100));
    assert_eq!(imp.dropped, 4367 - 2100);
    round_trip(&imp);
}

#[test]
fn fernandez_delgado_has_21210_pairs_over_121_by_179() {
    let Some(path) = shared_data("fernandez-delgado-2014/results.txt") else {
        return;
    };
    let imp = fernandez_delgado::read_with_stats(&path, RuntimeModel::Unit).expect("imports");
    assert_eq!((imp.users, imp.models), (121, 179));
    assert_eq!(imp.pairs() + imp.dropped, 121 * 179);
    assert_eq!((imp.pairs(), imp.dropped), (21_659 - 449, 449));
    let first = &imp.rows[0];
    assert_eq!(
        (first.user.as_str(), first.model.as_str(), first.accuracy),
        ("abalone", "elm_kernel_matlab", 0.661)
    );
    round_trip(&imp);
}

#[test]
fn aslib_openml_weka_is_105_by_30_complete() {
    let Some(dir) = shared_data("aslib-openml-weka-2017") else {
        return;
    };
    let opts = aslib::AslibOptions {
        runtime: Some(RuntimeModel::Unit),
        ..aslib::AslibOptions::default()
    };
    let imp = aslib::read_with_stats(&dir, &opts).expect("imports");
    assert_eq!(
        (imp.users, imp.models, imp.pairs(), imp.dropped),
        (105, 30, 3150, 0)
    );
    let first = &imp.rows[0];
    assert_eq!(
        (first.user.as_str(), first.model.as_str(), first.accuracy),
        ("2097", "8990_weka.MultilayerPerceptron", 0.883826)
    );
    // Without --runtime unit the import refuses: the scenario has no runtimes.
    let e = aslib::read(&dir, &aslib::AslibOptions::default()).expect_err("no runtimes");
    assert_eq!(e.kind(), crate::core::error::ErrorKind::Usage);
    round_trip(&imp);
}

#[test]
fn easeml_prototype_matrices_import() {
    let Some(dir) = shared_data("easeml-prototypes/DS3Lab-GP-UCB") else {
        return;
    };
    // TS-MS: 8 test data sets x 9 models with aligned runtimes.
    let parts = [matrix::MatrixFiles {
        accuracy: dir.join("TS-MS/test.txt"),
        runtime: Some(dir.join("TS-MS/test_time.txt")),
        row_labels: None,
    }];
    let imp = matrix::read_with_stats(&parts, &matrix::MatrixOptions::default()).expect("imports");
    assert_eq!((imp.users, imp.models, imp.pairs()), (8, 9, 72));
    let (lo, hi) = imp.rows.iter().fold((f64::MAX, 0.0f64), |(lo, hi), r| {
        (lo.min(r.runtime_s), hi.max(r.runtime_s))
    });
    assert_eq!((lo, hi), (1.0, 2250.0));
    round_trip(&imp);

    // Synthetic: prior (10 x 100) and test (5 x 100) stacked, one row of
    // per-model costs broadcast to every user of each.
    let cost = Some(dir.join("synthetic_plain/cost.txt"));
    let parts = [
        matrix::MatrixFiles {
            accuracy: dir.join("synthetic_plain/prior.txt"),
            runtime: cost.clone(),
            row_labels: None,
        },
        matrix::MatrixFiles {
            accuracy: dir.join("synthetic_plain/test.txt"),
            runtime: cost,
            row_labels: None,
        },
    ];
    let imp = matrix::read_with_stats(&parts, &matrix::MatrixOptions::default()).expect("imports");
    assert_eq!((imp.users, imp.models, imp.pairs()), (15, 100, 1500));
    assert_eq!(imp.rows[1400].user, "u14");
    assert_eq!(imp.rows[0].runtime_s, imp.rows[1400].runtime_s);

    // MS/test.txt uses 0 for a missing value: 12 x 9 with 2 zeros.
    let parts = [matrix::MatrixFiles {
        accuracy: dir.join("MS/test.txt"),
        runtime: None,
        row_labels: None,
    }];
    let opts = matrix::MatrixOptions {
        missing: Some("0".into()),
        runtime: Some(RuntimeModel::Unit),
        ..matrix::MatrixOptions::default()
    };
    let imp = matrix::read_with_stats(&parts, &opts).expect("imports");
    assert_eq!(
        (imp.users, imp.models, imp.pairs(), imp.dropped),
        (12, 9, 106, 2)
    );
}
