//! A policy author's own binary (`examples/custom_policy.rs`, issue 28):
//! one scheduler and one selector registered, then `tenantsim::cli::
//! main_with`, gives every subcommand on a scenario that names them
//! (`examples/custom_policy.toml`). The example binary is the one cargo
//! builds next to this test binary (`target/<profile>/examples/`); the
//! test asks cargo to build it first, which is a no-op under `cargo test`
//! (it builds examples) and builds it under `cargo test --test it`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common::{assert_same_result_files, repo, tenantsim};

/// The example binary, built (once per test process) by the cargo that
/// runs the tests, into the target folder this test binary is in.
fn custom_policy() -> Command {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    let bin = BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/<profile>/deps/it-HASH → target/<profile>
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test binary is in <target>/<profile>/deps");
        let target_dir = profile_dir.parent().expect("<target>/<profile>");
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a profile folder name");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .args([
                "build",
                "--quiet",
                "--example",
                "custom_policy",
                "--manifest-path",
            ])
            .arg(repo("Cargo.toml"))
            .arg("--target-dir")
            .arg(target_dir);
        match profile {
            "debug" => {}
            "release" => {
                build.arg("--release");
            }
            other => {
                build.args(["--profile", other]);
            }
        }
        let status = build.status().expect("cargo runs");
        assert!(
            status.success(),
            "cargo build --example custom_policy: {status}"
        );
        let bin = profile_dir
            .join("examples")
            .join(format!("custom_policy{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.is_file(), "{} not built", bin.display());
        bin
    });
    Command::new(bin)
}

/// Run the example binary with `args` in `cwd`; its output.
fn custom(cwd: &Path, args: &[&str]) -> Output {
    custom_policy()
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("the example binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `(policy, rep)` of every row of a results folder's summary.csv.
fn summary_rows(dir: &Path) -> Vec<(String, String)> {
    let text = fs::read_to_string(dir.join("summary.csv")).expect("summary.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (policy, rep) = (col("policy"), col("rep"));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[policy].to_string(), c[rep].to_string())
        })
        .collect()
}

/// The job log of the custom pair on the hand trace, derived by hand on
/// one GPU: (user, model, start s, end s). At each free GPU the tenant
/// with the fewest started jobs (then the lowest index) trains its
/// cheapest untried model (then the lowest model index: linear 0, forest
/// 1, boosting 2, deepnet 3). u3's models cost linear 3 s, forest 1 s,
/// boosting 1 s, deepnet 10 s, so its third job (at 20 s) is linear; at
/// 23 s u1 and u3 have both started 3 jobs and u1, the lower index, goes
/// first. (u2 has no deepnet in the trace.)
const BY_HAND: [(&str, &str, &str, &str); 11] = [
    ("u1", "linear", "0.000000", "2.000000"),
    ("u2", "linear", "2.000000", "3.000000"),
    ("u3", "forest", "3.000000", "4.000000"),
    ("u1", "forest", "4.000000", "8.000000"),
    ("u2", "boosting", "8.000000", "10.000000"),
    ("u3", "boosting", "10.000000", "11.000000"),
    ("u1", "boosting", "11.000000", "17.000000"),
    ("u2", "forest", "17.000000", "20.000000"),
    ("u3", "linear", "20.000000", "23.000000"),
    ("u1", "deepnet", "23.000000", "31.000000"),
    ("u3", "deepnet", "31.000000", "41.000000"),
];

/// The jobs of policy `mine` in repetition `rep`: (user, model, start, end).
fn jobs_of_mine(dir: &Path, rep: &str) -> Vec<(String, String, String, String)> {
    let text = fs::read_to_string(dir.join("jobs.csv")).expect("jobs.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (policy, r, user, model, start, end) = (
        col("policy"),
        col("rep"),
        col("user"),
        col("model"),
        col("start_s"),
        col("end_s"),
    );
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[policy] == "mine" && c[r] == rep)
        .map(|c| {
            (
                c[user].to_string(),
                c[model].to_string(),
                c[start].to_string(),
                c[end].to_string(),
            )
        })
        .collect()
}

#[test]
fn a_user_binary_runs_plots_tables_checks_and_merges_its_own_policies() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = repo("examples/custom_policy.toml");
    let scenario = scenario.to_str().expect("utf-8 path");
    let results = tmp.path().join("results");
    let r = results.to_str().expect("utf-8");

    // run: the user's policies are found; a default cache is not used for
    // them (the build identity does not cover the user's code).
    let cache = tmp.path().join("cache");
    let o = custom_policy()
        .current_dir(tmp.path())
        .env("TENANTSIM_CACHE", &cache)
        .args(["run", scenario, "--out", r, "--jobs", "--threads", "2"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "run: {}", stderr(&o));
    assert!(
        stderr(&o).contains("tasks: 4 ran (no result cache)"),
        "{}",
        stderr(&o)
    );
    assert!(!cache.exists(), "a user's binary wrote the default cache");
    assert_eq!(
        summary_rows(&results),
        [
            ("mine", "0"),
            ("rr-in-order", "0"),
            ("mine", "1"),
            ("rr-in-order", "1")
        ]
        .map(|(p, r)| (p.to_string(), r.to_string()))
    );
    let expected: Vec<(String, String, String, String)> = BY_HAND
        .iter()
        .map(|(u, m, s, e)| (u.to_string(), m.to_string(), s.to_string(), e.to_string()))
        .collect();
    for rep in ["0", "1"] {
        assert_eq!(jobs_of_mine(&results, rep), expected, "repetition {rep}");
    }
    assert!(results.join("plots").join("regret-curves.png").is_file());

    // plot: the figures again, into a folder of their own.
    let figures = tmp.path().join("figures");
    let o = custom(
        tmp.path(),
        &[
            "plot",
            r,
            "--format",
            "svg",
            "--out",
            figures.to_str().expect("utf-8"),
        ],
    );
    assert!(o.status.success(), "plot: {}", stderr(&o));
    assert!(
        figures.join("regret-curves.svg").is_file(),
        "{}",
        stderr(&o)
    );

    // table: both policies, as CSV on stdout.
    let o = custom(tmp.path(), &["table", r, "--format", "csv"]);
    assert!(o.status.success(), "table: {}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    let first: Vec<&str> = table
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    assert_eq!(first, ["mine", "rr-in-order"], "{table}");

    // check against the run itself: the same.
    let o = custom(tmp.path(), &["check", r, "--against", r]);
    assert_eq!(o.status.code(), Some(0), "check: {}", stderr(&o));

    // two shards and their merge: byte for byte the single run.
    let mut shards = Vec::new();
    for i in 0..2 {
        let dir = tmp.path().join(format!("shard-{i}"));
        let d = dir.to_str().expect("utf-8").to_string();
        let spec = format!("{i}/2");
        let o = custom(
            tmp.path(),
            &[
                "run", scenario, "--shard", &spec, "--out", &d, "--jobs", "--quiet",
            ],
        );
        assert!(o.status.success(), "shard {i}: {}", stderr(&o));
        shards.push(d);
    }
    let merged = tmp.path().join("merged");
    let o = custom(
        tmp.path(),
        &[
            "merge",
            &shards[0],
            &shards[1],
            "--out",
            merged.to_str().expect("utf-8"),
            "--quiet",
        ],
    );
    assert!(o.status.success(), "merge: {}", stderr(&o));
    assert_same_result_files(&merged, &results, "merge of two shards vs one run");
    let o = custom(
        tmp.path(),
        &["check", merged.to_str().expect("utf-8"), "--against", r],
    );
    assert_eq!(o.status.code(), Some(0), "check merged: {}", stderr(&o));

    // validate knows the policies too; the built-in binary does not.
    let o = custom(tmp.path(), &["validate", scenario]);
    assert!(o.status.success(), "validate: {}", stderr(&o));
    assert!(
        stderr(&o).contains("policy `mine`: scheduler fewest-started, selector cheapest-first"),
        "{}",
        stderr(&o)
    );
    let o = tenantsim()
        .args(["validate", scenario])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown scheduler `fewest-started`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_user_binary_reports_usage_errors_like_tenantsim() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let o = custom(tmp.path(), &["run", "x.toml", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = custom(tmp.path(), &["--bogus"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("error: unexpected argument '--bogus' found"));
    let o = custom(tmp.path(), &["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("merge"));
}

/// Issue 28: the Python binding and the prelude use the library entry
/// point ([`tenantsim::run`]), never the command line. The prelude is also
/// a node of the architecture test (no `prelude → cli` edge); the Python
/// crate is outside `src/`, so it is read here.
#[test]
fn python_and_the_prelude_import_nothing_from_cli() {
    let mut files = vec![repo("src/prelude.rs")];
    for entry in fs::read_dir(repo("python/src")).expect("python/src") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    assert!(files.len() >= 3, "python/src has its Rust files: {files:?}");
    for f in files {
        let text = fs::read_to_string(&f).expect("read");
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.contains("cli::"),
                "{}:{}: names the command line: {line}",
                f.display(),
                n + 1
            );
        }
    }
}
