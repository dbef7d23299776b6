//! `tenantsim table`: the LaTeX form names every policy and carries the
//! numbers of speedups.csv and regret.csv rounded to the stated decimals;
//! the markdown form matches its snapshot; job mode gives the JCT columns
//! of summary.csv; `--out` never replaces a file without `--force`.

use crate::common::{repo, run_scenario, tenantsim};

use std::fs;

fn table(results: &std::path::Path, args: &[&str]) -> String {
    let out = tenantsim()
        .arg("table")
        .arg(results)
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The rows of a LaTeX tabular body: cells without `\textbf{}`.
fn latex_rows(tex: &str) -> Vec<Vec<String>> {
    let body = tex
        .split("\\midrule\n")
        .nth(1)
        .and_then(|b| b.split("\\bottomrule").next())
        .expect("a booktabs body");
    body.lines()
        .filter(|l| l.ends_with("\\\\"))
        .map(|l| {
            l.trim_end_matches("\\\\")
                .split(" & ")
                .map(|c| {
                    let c = c.trim();
                    c.strip_prefix("\\textbf{")
                        .and_then(|c| c.strip_suffix('}'))
                        .unwrap_or(c)
                        .to_string()
                })
                .collect()
        })
        .collect()
}

/// A CSV value as the table writes it at 2 decimals.
fn rounded(v: &str) -> String {
    match v {
        "inf" => "$\\infty$".to_string(),
        "n/a" => "n/a".to_string(),
        v => format!("{:.2}", v.parse::<f64>().expect("number")),
    }
}

fn csv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).expect("csv");
    r.records()
        .map(|x| x.expect("record").iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn latex_names_every_policy_and_matches_speedups_and_regret_csv() {
    let dir = repo("tests/fixtures/plots/model");
    let tex = table(&dir, &["--format", "latex"]);
    assert!(
        tex.contains("\\toprule") && tex.contains("\\bottomrule"),
        "{tex}"
    );
    assert!(tex.contains("rounded to 2 decimal(s)"), "{tex}");
    let rows = latex_rows(&tex);
    let head = tex
        .lines()
        .find(|l| l.starts_with("policy &"))
        .expect("header");
    let titles: Vec<&str> = head.trim_end_matches(" \\\\").split(" & ").collect();
    let col = |t: &str| {
        titles
            .iter()
            .position(|x| x.starts_with(t))
            .unwrap_or_else(|| panic!("no column {t}: {titles:?}"))
    };
    // speedups.csv: policy, baseline, theta, t_baseline_s, t_policy_s, speedup, …
    let speedups = csv_rows(&dir.join("speedups.csv"));
    for s in &speedups {
        let row = rows
            .iter()
            .find(|r| r[0] == s[0])
            .unwrap_or_else(|| panic!("no row for {}", s[0]));
        assert_eq!(
            row[col(&format!("T({})", s[2]))],
            rounded(&s[4]),
            "T: {s:?}"
        );
        assert_eq!(
            row[col(&format!("speedup at $\\theta$={}", s[2]))],
            rounded(&s[5]),
            "speedup: {s:?}"
        );
    }
    // regret.csv: policy, baseline, reps, mean_regret, ci_low, ci_high, …
    for r in csv_rows(&dir.join("regret.csv")) {
        let row = rows.iter().find(|x| x[0] == r[0]).expect("policy row");
        assert_eq!(row[col("cumulative regret")], rounded(&r[3]));
        assert_eq!(
            row[col("regret interval")],
            format!("[{}, {}]", rounded(&r[4]), rounded(&r[5]))
        );
    }
    assert_eq!(rows.len(), 3, "one row per policy: {rows:?}");
    // The best per column is bold: beta-fast has the lowest regret.
    assert!(tex.contains("\\textbf{1.55}"), "{tex}");
    // Fewer decimals when asked.
    let tex0 = table(&dir, &["--digits", "0", "--metric", "regret"]);
    assert!(tex0.contains("& \\textbf{2} & [2, 2]"), "{tex0}");
    assert!(!tex0.contains("T(0.2)"), "{tex0}");
}

#[test]
fn markdown_matches_its_snapshot() {
    let md = table(
        &repo("tests/fixtures/plots/model"),
        &["--format", "markdown"],
    );
    let snapshot =
        fs::read_to_string(repo("tests/fixtures/plots/model-table.md")).expect("snapshot");
    assert_eq!(
        md, snapshot,
        "update tests/fixtures/plots/model-table.md if the change is meant"
    );
}

#[test]
fn job_mode_tables_the_jct_statistics_of_summary_csv() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("r");
    run_scenario("scenarios/jobs-quickstart.toml", &out, &["--quiet"]);
    let csv_text = table(&out, &["--format", "csv", "--digits", "3"]);
    let mut lines = csv_text.lines();
    let head: Vec<&str> = lines.next().expect("header").split(',').collect();
    assert_eq!(head[0], "policy");
    assert!(head.contains(&"p99 JCT (s)"), "{head:?}");
    let summary = csv_rows(&out.join("summary.csv"));
    // summary.csv: policy, rep, jobs, mean_jct_s, median_jct_s, p95, p99, …
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let s = summary
            .iter()
            .find(|s| s[0] == cells[0])
            .expect("policy in summary.csv");
        let mean: f64 = s[3].parse().expect("mean");
        assert_eq!(cells[1], format!("{mean:.3}"), "{line}");
    }
}

#[test]
fn out_is_written_atomically_and_never_replaces_a_file_without_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("t.tex");
    fs::write(&out, "my notes").expect("write");
    let dir = repo("tests/fixtures/plots/model");
    let refused = tenantsim()
        .arg("table")
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--force"));
    assert_eq!(fs::read_to_string(&out).expect("read"), "my notes");
    tenantsim()
        .arg("table")
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .arg("--force")
        .assert()
        .success();
    assert!(
        fs::read_to_string(&out)
            .expect("read")
            .contains("\\toprule")
    );
    let bad = tenantsim()
        .arg("table")
        .arg(&dir)
        .args(["--metric", "nope"])
        .output()
        .expect("runs");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--metric nope") && err.contains("time, speedup, regret"),
        "{err}"
    );
}
