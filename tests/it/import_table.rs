//! `tenantsim import table`: a long CSV with its own column names becomes a
//! canonical trace (the "bring your own data" tutorial,
//! docs/guide/bring-your-own-data.md), and `--help` names Gavel among the
//! `import-jobs` formats.

use std::fs;

use crate::common::tenantsim;

/// A hand-made results table: columns in another order and with other
/// names, an extra column, a quoted id with a comma, a `NA` cell, a runtime
/// of 0 (raised to the 1 µs floor) and model years.
const TABLE: &str = "\
learner,dataset,seed,acc,seconds,year
svm,iris,1,0.9,0.5,1995
tree,iris,1,0.75,2,1984
svm,\"wine, red\",1,0.5,0.25,1995
tree,\"wine, red\",1,NA,3,1984
knn,iris,1,0.8,0,1967
";

/// The trace written by hand from TABLE: one row per pair in file order,
/// the NA row dropped, the quoted id quoted again, 0 s raised to 1e-6 s.
const EXPECTED: &str = "\
user,model,accuracy,runtime_s,model_year
iris,svm,0.9,0.5,1995
iris,tree,0.75,2,1984
\"wine, red\",svm,0.5,0.25,1995
iris,knn,0.8,0.000001,1967
";

#[test]
fn import_table_renames_columns_into_the_exact_trace_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("results.csv");
    fs::write(&input, TABLE).expect("write table");
    let out = dir.path().join("mine.csv");
    let run = tenantsim()
        .args(["import", "table"])
        .arg(&input)
        .args([
            "--user",
            "dataset",
            "--model",
            "learner",
            "--accuracy",
            "acc",
            "--runtime",
            "seconds",
            "--model-year",
            "year",
            "--missing",
            "NA",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert_eq!(fs::read_to_string(&out).expect("trace written"), EXPECTED);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "imported table trace: 2 users, 3 models, 4 pairs (1 dropped); runtimes: column \
             `seconds` (1 raised to the 1 µs floor); wrote {}",
            out.display()
        )
    );
    // The written trace is one `validate` accepts.
    let v = tenantsim()
        .arg("validate")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
}

#[test]
fn import_table_with_runtime_unit_gives_every_job_one_second() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("r.csv");
    fs::write(&input, "task,algo,score\nt1,a,0.25\nt1,b,1\n").expect("write");
    let out = dir.path().join("t.csv");
    let run = tenantsim()
        .args(["import", "table"])
        .arg(&input)
        .args([
            "--user",
            "task",
            "--model",
            "algo",
            "--accuracy",
            "score",
            "--runtime",
            "unit",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        fs::read_to_string(&out).expect("written"),
        "user,model,accuracy,runtime_s\nt1,a,0.25,1\nt1,b,1,1\n"
    );
}

#[test]
fn help_names_gavel_among_the_import_jobs_formats() {
    for args in [&["--help"][..], &["import-jobs", "--help"][..]] {
        let out = tenantsim().args(args).output().expect("runs");
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.contains("job log"))
            .unwrap_or_else(|| {
                panic!(
                    "`tenantsim {}` describes import-jobs:\n{text}",
                    args.join(" ")
                )
            });
        assert!(line.contains("Gavel"), "{}: {line}", args.join(" "));
    }
}
