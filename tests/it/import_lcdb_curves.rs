//! `tenantsim import lcdb-curves` on the real LCDB curves
//! (`../shared/data/lcdb/lcdb_curves_mean.csv`; these tests skip with a note
//! without it and fail when `TENANTSIM_REQUIRE_SHARED_DATA=1`), the bundled
//! `traces/lcdb-curves.csv` it wrote, and `gen syn --fidelities`.

use std::collections::HashMap;
use std::fs;

use tenantsim::core::testing::shared_data;
use tenantsim::models::import::lcdb::LcdbOptions;
use tenantsim::models::import::lcdb_curves;
use tenantsim::models::trace::{CurveRow, Trace, load_trace, parse_trace, secs_to_micros};

use crate::common::{repo, tenantsim};

/// Every row of LCDB's curve table survives, with the counts SOURCE.md
/// gives (72,224 rows; 248 data sets × 20 learners present as 4,367 pairs).
#[test]
fn lcdb_curves_import_keeps_all_72224_rows_of_4367_pairs() {
    let Some(path) = shared_data("lcdb/lcdb_curves_mean.csv") else {
        return;
    };
    let imp = lcdb_curves::read_with_stats(&path, &LcdbOptions::default()).expect("imports");
    assert_eq!(
        (
            imp.rows.len(),
            imp.users,
            imp.models,
            imp.pairs,
            imp.dropped
        ),
        (72_224, 248, 20, 4_367, 0)
    );
    assert_eq!(imp.runtime_floored, 0, "no traintime_mean_s is below 1 µs");

    // A few rows against the raw file, read here independently: row n of
    // the trace is line n + 2 of the file (after the header).
    let raw = fs::read_to_string(&path).expect("raw file");
    let lines: Vec<&str> = raw.lines().collect();
    assert_eq!(
        lines[0],
        "openmlid,learner,size_train,n_runs,traintime_mean_s,score_train_mean,score_valid_mean,score_test_mean"
    );
    for n in [0, 1, 36_111, 50_000, 72_223] {
        let f: Vec<&str> = lines[n + 1].split(',').collect();
        let r = &imp.rows[n];
        let model = f[1].rsplit('.').next().expect("learner");
        assert_eq!(r.user, format!("openml-{}", f[0]), "row {n}");
        assert_eq!(r.model, model, "row {n}");
        assert_eq!(
            r.fidelity,
            f[2].parse::<f64>().expect("size_train"),
            "row {n}"
        );
        assert_eq!(r.runtime_s, f[4].parse::<f64>().expect("time"), "row {n}");
        assert_eq!(
            r.accuracy,
            f[7].parse::<f64>().expect("test score"),
            "row {n}"
        );
    }
    let first = &imp.rows[0];
    assert_eq!(
        (first.user.as_str(), first.model.as_str()),
        ("openml-3", "SVC_linear")
    );
    assert_eq!(
        (first.fidelity, first.accuracy, first.runtime_s),
        (16.0, 0.69177, 0.00096)
    );
    let mlp = &imp.rows[36_111];
    assert_eq!(
        (mlp.user.as_str(), mlp.model.as_str(), mlp.fidelity),
        ("openml-1000", "MLPClassifier", 32.0)
    );

    // Written and loaded back, the trace holds every row as its levels.
    let text = tenantsim::models::trace::curve_trace_to_csv(&imp.rows);
    let trace = parse_trace("lcdb-curves.csv", text.as_bytes()).expect("loads back");
    assert_same_levels(&trace, &imp.rows);

    let valid = LcdbOptions {
        score: tenantsim::models::import::lcdb::LcdbScore::Valid,
        ..LcdbOptions::default()
    };
    let imp = lcdb_curves::read_with_stats(&path, &valid).expect("imports");
    assert_eq!(imp.rows[0].accuracy, 0.6875, "score_valid_mean of line 2");
}

/// The bundled trace is what the command writes today, byte for byte.
#[test]
fn bundled_lcdb_curves_equals_a_fresh_import() {
    let Some(path) = shared_data("lcdb/lcdb_curves_mean.csv") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("lcdb-curves.csv");
    let run = tenantsim()
        .args(["import", "lcdb-curves"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.starts_with(
            "imported lcdb-curves trace: 248 users, 20 models, 4367 pairs, 72224 curve rows (0 pairs dropped); accuracy: score_test_mean"
        ),
        "{stderr}"
    );
    let fresh = fs::read(&out).expect("written");
    let bundled = fs::read(repo("traces/lcdb-curves.csv")).expect("bundled trace");
    assert!(
        fresh == bundled,
        "traces/lcdb-curves.csv differs from a fresh `tenantsim import lcdb-curves` ({} vs {} bytes)",
        bundled.len(),
        fresh.len()
    );
}

/// The top (largest-anchor) row of every pair of the bundled curve trace is
/// the row of the bundled `traces/lcdb.csv` (LCDB's final anchor, same
/// aggregate), text for text; every pair's anchors strictly increase.
#[test]
fn bundled_curve_top_levels_equal_the_bundled_lcdb_trace() {
    let curves = fs::read_to_string(repo("traces/lcdb-curves.csv")).expect("curve trace");
    let plain = fs::read_to_string(repo("traces/lcdb.csv")).expect("plain trace");
    let mut lines = curves.lines();
    assert_eq!(lines.next(), Some("user,model,fidelity,accuracy,runtime_s"));
    // (user, model) -> (last fidelity, accuracy text, runtime text)
    let mut top: HashMap<(&str, &str), (f64, &str, &str)> = HashMap::new();
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 5, "{line}");
        let fidelity: f64 = f[2].parse().expect("fidelity");
        if let Some(&(last, _, _)) = top.get(&(f[0], f[1])) {
            assert!(fidelity > last, "{line}: after {last}");
        }
        top.insert((f[0], f[1]), (fidelity, f[3], f[4]));
        rows += 1;
    }
    assert_eq!((rows, top.len()), (72_224, 4_367));
    let mut plain_lines = plain.lines();
    assert_eq!(plain_lines.next(), Some("user,model,accuracy,runtime_s"));
    let mut pairs = 0;
    for line in plain_lines {
        let f: Vec<&str> = line.split(',').collect();
        let &(_, accuracy, runtime) = top
            .get(&(f[0], f[1]))
            .unwrap_or_else(|| panic!("{line}: pair absent from the curve trace"));
        assert_eq!((accuracy, runtime), (f[2], f[3]), "{line}");
        pairs += 1;
    }
    assert_eq!(pairs, 4_367);
}

/// `trace` holds exactly `rows` (each pair's rows adjacent, in increasing
/// fidelity), level by level.
fn assert_same_levels(trace: &Trace, rows: &[CurveRow]) {
    assert!(trace.is_curve());
    let mut i = 0;
    while i < rows.len() {
        let (user, model) = (&rows[i].user, &rows[i].model);
        let u = trace.user_index(user).expect("user");
        let k = trace.model_index(model).expect("model");
        let n = trace.n_levels(u, k);
        for (j, r) in rows[i..i + n].iter().enumerate() {
            assert_eq!((&r.user, &r.model), (user, model), "row {}", i + j);
            assert_eq!(
                (
                    trace.level_fidelity(u, k, j),
                    trace.level_accuracy(u, k, j),
                    trace.level_runtime_us(u, k, j)
                ),
                (r.fidelity, r.accuracy, secs_to_micros(r.runtime_s)),
                "row {}",
                i + j
            );
        }
        i += n;
    }
}

/// The bundled curve trace loads as a curve trace whose top levels are the
/// bundled plain LCDB trace: same ids, accuracy and runtime matrices.
#[test]
fn bundled_lcdb_curves_loads_with_the_plain_trace_as_its_top_levels() {
    let curves = load_trace(&repo("traces/lcdb-curves.csv")).expect("curve trace loads");
    let plain = load_trace(&repo("traces/lcdb.csv")).expect("plain trace loads");
    assert!(curves.is_curve() && !plain.is_curve());
    assert_eq!(
        (curves.n_users(), curves.n_models(), curves.n_pairs()),
        (248, 20, 4_367)
    );
    assert_eq!(
        (curves.user_ids().collect::<Vec<_>>(), curves.models()),
        (plain.user_ids().collect::<Vec<_>>(), plain.models())
    );
    assert_eq!(curves.accuracy_matrix(), plain.accuracy_matrix());
    assert_eq!(curves.runtime_matrix_us(), plain.runtime_matrix_us());
    let levels: usize = (0..curves.n_users())
        .flat_map(|u| curves.models_of(u).iter().map(move |&k| (u, k)))
        .map(|(u, k)| curves.n_levels(u, k))
        .sum();
    assert_eq!(levels, 72_224);
    // The smallest and largest size_train of the raw file.
    assert_eq!(
        (curves.min_fidelity(), curves.max_fidelity()),
        (16.0, 2_205_023.0)
    );
}

/// `--fidelities 1` (the default) writes today's `gen syn` trace byte for
/// byte; `--fidelities 3` writes a curve trace whose top levels are it.
#[test]
fn gen_syn_with_one_fidelity_is_byte_identical_to_plain_gen_syn() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gen_syn = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        tenantsim()
            .args([
                "gen", "syn", "--users", "12", "--models", "5", "--seed", "4",
            ])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        fs::read_to_string(out).expect("written")
    };
    let plain = gen_syn("plain.csv", &[]);
    assert_eq!(gen_syn("one.csv", &["--fidelities", "1"]), plain);
    let curves = gen_syn("three.csv", &["--fidelities", "3"]);
    let mut lines = curves.lines();
    assert_eq!(
        lines.next(),
        Some("user,model,fidelity,accuracy,runtime_s,model_year,model_citations")
    );
    let tops: Vec<String> = lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2] == "1").then(|| [f[0], f[1], f[3], f[4], f[5], f[6]].join(","))
        })
        .collect();
    let plain_rows: Vec<&str> = plain.lines().skip(1).collect();
    assert_eq!(tops, plain_rows);
    let c = parse_trace("three.csv", curves.as_bytes()).expect("curve trace loads");
    let p = parse_trace("plain.csv", plain.as_bytes()).expect("plain trace loads");
    assert_eq!((c.n_levels(0, 0), c.min_fidelity()), (3, 0.25));
    assert_eq!(c.accuracy_matrix(), p.accuracy_matrix());
    assert_eq!(c.runtime_matrix_us(), p.runtime_matrix_us());
}

/// `[trace.syn] fidelities = L` loads the curve trace `gen syn --fidelities
/// L` writes (same SHA-256 of the CSV text); `fidelities = 1` is the plain
/// trace of the same table without the key.
#[test]
fn scenario_trace_syn_fidelities_is_the_gen_syn_curve_trace() {
    use sha2::{Digest, Sha256};
    use tenantsim::core::io::scenario::Overrides;
    use tenantsim::models::scenario::parse_scenario;

    let scenario = |syn: &str| {
        let text = format!(
            "name = \"c\"\n[trace]\ncost = \"from-scratch\"\n[trace.syn]\nusers = 9\nmodels = 4\nseed = 2\n{syn}\
             [cluster]\ngpus = 1\n[[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n"
        );
        parse_scenario(&repo("scenarios/x.toml"), &text, Overrides::default())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("c.csv");
    tenantsim()
        .args(["gen", "syn", "--users", "9", "--models", "4", "--seed", "2"])
        .args(["--fidelities", "3", "--out"])
        .arg(&out)
        .assert()
        .success();
    let bytes = fs::read(&out).expect("written");
    let want: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let s = scenario("fidelities = 3\n");
    assert!(s.trace.is_curve());
    assert_eq!(s.trace_sha256, want);
    assert!(
        s.trace_path
            .display()
            .to_string()
            .ends_with("--seed 2 --fidelities 3"),
        "{}",
        s.trace_path.display()
    );
    let plain = scenario("");
    let one = scenario("fidelities = 1\n");
    assert!(!one.trace.is_curve());
    assert_eq!(one.trace_sha256, plain.trace_sha256);
    assert_eq!(s.trace.accuracy_matrix(), plain.trace.accuracy_matrix());
    let e = parse_scenario(
        &repo("scenarios/x.toml"),
        "name = \"c\"\n[trace.syn]\nusers = 2\nmodels = 2\nfidelities = 0\n[cluster]\ngpus = 1\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n",
        Overrides::default(),
    )
    .expect_err("zero fidelities");
    assert!(
        e.to_string()
            .contains("[trace.syn]: fidelities = 0: expected 1 to 30"),
        "{e}"
    );
}
