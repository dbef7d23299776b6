//! Files a command writes (issue 33, "Writes only where asked"):
//! `check --report`, `report --out` and `table --out` refuse to replace a
//! file they did not write unless `--force` (exit 2, the file left as it
//! was), never replace an input of the command even with `--force`, and
//! replace a file they wrote before. And the inputs that are there but
//! cannot be read: a FIFO golden is named, a FIFO or damaged `run.json`
//! makes `compare` fail rather than count as absent.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::common::{run_scenario, tenantsim, tree};

/// A small real results folder (quickstart, two repetitions).
fn results(tmp: &Path) -> PathBuf {
    let out = tmp.join("a");
    run_scenario(
        "scenarios/quickstart.toml",
        &out,
        &["--reps", "2", "--no-plots", "--no-cache", "--quiet"],
    );
    out
}

/// The command's exit code and stderr.
fn run(args: &[&str], dir: &Path) -> (Option<i32>, String) {
    let out = tenantsim()
        .args(args)
        .current_dir(dir)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_report_onto_a_file_it_did_not_write_exits_2_and_leaves_it_as_it_was() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = results(tmp.path());
    fs::write(tmp.path().join("notes.md"), "my notes\n").expect("write");
    let before = tree(&a);
    for args in [
        // The case: the checked folder's own run.json.
        &["check", "a", "--against", "a", "--report", "a/run.json"][..],
        &[
            "check",
            "a",
            "--against",
            "a",
            "--report",
            "a/run.json",
            "--force",
        ],
        // A file of the user's, outside the inputs, without --force.
        &["check", "a", "--against", "a", "--report", "notes.md"],
        // Nothing is written when any of the reports is refused.
        &[
            "check",
            "a",
            "--against",
            "a",
            "--report",
            "new.md",
            "--report",
            "notes.md",
        ],
    ] {
        let (code, stderr) = run(args, tmp.path());
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("--report "), "{args:?}: {stderr}");
    }
    assert_eq!(tree(&a), before, "the checked folder is unchanged");
    assert_eq!(
        fs::read_to_string(tmp.path().join("notes.md")).expect("read"),
        "my notes\n"
    );
    assert!(!tmp.path().join("new.md").exists());
    // With --force the user's file is replaced.
    let (code, stderr) = run(
        &[
            "check",
            "a",
            "--against",
            "a",
            "--report",
            "notes.md",
            "--force",
        ],
        tmp.path(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let text = fs::read_to_string(tmp.path().join("notes.md")).expect("read");
    assert!(text.starts_with("## tenantsim check: same"), "{text}");
}

#[test]
fn check_replaces_the_reports_it_wrote_even_inside_the_checked_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = results(tmp.path());
    let reports = ["a/check.md", "a/check.json", "a/check.xml", "a/check.txt"];
    let mut args = vec!["check", "a", "--against", "a"];
    for r in reports {
        args.extend(["--report", r]);
    }
    for round in 0..2 {
        let (code, stderr) = run(&args, tmp.path());
        assert_eq!(code, Some(0), "round {round}: {stderr}");
    }
    for r in reports {
        assert!(a.parent().expect("parent").join(r).is_file(), "{r}");
    }
    // The same file twice is refused before anything is written.
    let (code, stderr) = run(
        &[
            "check",
            "a",
            "--against",
            "a",
            "--report",
            "x.md",
            "--report",
            "x.md",
        ],
        tmp.path(),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("given twice"), "{stderr}");
}

#[test]
fn report_and_table_never_replace_a_results_file_even_with_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = results(tmp.path());
    let before = tree(&a);
    for args in [
        &["report", "a", "--out", "a/summary.csv", "--force"][..],
        &["report", "a", "--out", "a/run.json"],
        &["table", "a", "--out", "a/summary.csv", "--force"],
        &["table", "a", "--out", "a/run.json", "--force"],
    ] {
        let (code, stderr) = run(args, tmp.path());
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("an input is never replaced"),
            "{args:?}: {stderr}"
        );
    }
    assert_eq!(tree(&a), before, "the results folder is unchanged");
    // The default report.html: written, then replaced (report wrote it).
    for round in 0..2 {
        let (code, stderr) = run(&["report", "a"], tmp.path());
        assert_eq!(code, Some(0), "round {round}: {stderr}");
    }
    // A table file of the user's needs --force.
    fs::write(tmp.path().join("t.tex"), "mine\n").expect("write");
    let (code, stderr) = run(&["table", "a", "--out", "t.tex"], tmp.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        fs::read_to_string(tmp.path().join("t.tex")).expect("read"),
        "mine\n"
    );
    let (code, stderr) = run(&["table", "a", "--out", "t.tex", "--force"], tmp.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_ne!(
        fs::read_to_string(tmp.path().join("t.tex")).expect("read"),
        "mine\n"
    );
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn a_fifo_golden_summary_is_named_and_does_not_block() {
    let tmp = tempfile::tempdir().expect("tempdir");
    results(tmp.path());
    fs::create_dir(tmp.path().join("g")).expect("mkdir");
    mkfifo(&tmp.path().join("g/summary.csv"));
    let started = Instant::now();
    let (code, stderr) = run(&["check", "a", "--against", "g"], tmp.path());
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("g/summary.csv is not a regular file (a FIFO)"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn compare_refuses_an_unreadable_run_json_instead_of_taking_it_for_absent() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let a = results(tmp.path());
    let b = tmp.path().join("b");
    fs::create_dir(&b).expect("mkdir");
    fs::copy(a.join("summary.csv"), b.join("summary.csv")).expect("copy");
    // Absent: compared, unpaired.
    let (code, stderr) = run(&["compare", "a", "b"], tmp.path());
    assert_eq!(code, Some(0), "{stderr}");
    // A FIFO: named at once, never opened.
    mkfifo(&b.join("run.json"));
    let started = Instant::now();
    let (code, stderr) = run(&["compare", "a", "b"], tmp.path());
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("b/run.json is not a regular file"),
        "{stderr}"
    );
    // Damaged JSON.
    fs::remove_file(b.join("run.json")).expect("rm");
    fs::write(b.join("run.json"), "{\"seed\": ").expect("write");
    let (code, stderr) = run(&["compare", "a", "b"], tmp.path());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("b/run.json: line 1, column 9: not JSON"),
        "{stderr}"
    );
}

/// `import`, `import-jobs` and `gen workflows` replaced their own input
/// when `--out` named it (found by a first-contact audit, 2026-12-06):
/// the user's table, log or model trace was gone, only the output left.
/// Now each refuses with exit 2 before reading anything, even with its
/// input under another spelling, and the file stays as it was; another
/// existing file is still replaced, as documented.
#[test]
fn an_import_whose_out_was_its_own_input_replaced_the_input() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = "dataset,learner,acc,seconds\niris,svm,0.9,0.5\niris,tree,0.75,2\n";
    fs::write(dir.join("table.csv"), table).expect("write");
    fs::copy(
        root.join("tests/fixtures/helios_cluster_log.csv"),
        dir.join("helios.csv"),
    )
    .expect("copy");
    fs::copy(root.join("traces/hand.csv"), dir.join("mt.csv")).expect("copy");
    fs::create_dir(dir.join("sub")).expect("mkdir");
    let import_table = |out: &'static str| -> Vec<&'static str> {
        vec![
            "import",
            "table",
            "table.csv",
            "--user",
            "dataset",
            "--model",
            "learner",
            "--accuracy",
            "acc",
            "--runtime",
            "seconds",
            "--out",
            out,
        ]
    };
    let before = tree(dir);
    let cases: [Vec<&str>; 5] = [
        import_table("table.csv"),
        import_table("sub/../table.csv"),
        vec!["import-jobs", "helios", "helios.csv", "--out", "helios.csv"],
        vec![
            "gen",
            "workflows",
            "--model-trace",
            "mt.csv",
            "--workflows",
            "3",
            "--out",
            "./mt.csv",
        ],
        vec!["import", "lcdb", "mt.csv", "--out", "mt.csv"],
    ];
    for args in cases {
        let (code, err) = run(&args, dir);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("refusing to replace it"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert_eq!(tree(dir), before, "an input was touched");
    // Another existing file is replaced, as before.
    fs::write(dir.join("old.csv"), "old\n").expect("write");
    let (code, err) = run(&import_table("old.csv"), dir);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        fs::read_to_string(dir.join("old.csv"))
            .expect("read")
            .starts_with("user,model,accuracy,runtime_s")
    );
}
