//! `tenantsim table`: the LaTeX form names every policy and carries the
//! numbers of speedups.csv and regret.csv to 3 significant digits; the
//! markdown form matches its snapshot; the default tables of the bundled
//! quickstarts (both modes) match their goldens byte for byte; huge and
//! sub-second values print in a fitting unit and never as zero; bold marks
//! every tied best and nothing when all tie; job mode gives the JCT columns
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

/// `v` to 3 significant digits, computed independently of the table's
/// code: the decimals from log10, then `format!` with fixed decimals (one
/// fewer when rounding carried into the next decade).
pub fn three_sig(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    let d = (2 - mag).max(0) as usize;
    let s = format!("{v:.d$}");
    let carried = s.trim_start_matches('-').parse::<f64>().expect("number") >= 10f64.powi(mag + 1);
    if carried && d > 0 {
        format!("{v:.0$}", d - 1)
    } else if mag >= 3 {
        // 3 significant digits of a number ≥ 1000: round to the tens, hundreds…
        let unit = 10f64.powi(mag - 2);
        format!("{}", (v / unit).round() * unit)
    } else {
        s
    }
}

/// A CSV value as the LaTeX table writes it at 3 significant digits.
fn rounded(v: &str) -> String {
    match v {
        "inf" => "$\\infty$".to_string(),
        "n/a" => "n/a".to_string(),
        v => three_sig(v.parse::<f64>().expect("number")),
    }
}

/// The headers of a LaTeX table: each column's two header lines (title,
/// then unit) joined by a space.
fn latex_heads(tex: &str) -> Vec<String> {
    let head = tex
        .split("\\toprule\n")
        .nth(1)
        .and_then(|h| h.split("\\midrule").next())
        .expect("a booktabs header");
    let lines: Vec<Vec<&str>> = head
        .lines()
        .map(|l| l.trim_end_matches(" \\\\").split(" & ").collect())
        .collect();
    (0..lines[0].len())
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].trim())
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
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
    let every = [
        "--format", "latex", "--metric", "regret", "--metric", "ratio", "--metric", "time",
        "--metric", "speedup",
    ];
    let tex = table(&dir, &every);
    assert!(
        tex.contains("\\toprule") && tex.contains("\\bottomrule"),
        "{tex}"
    );
    assert!(tex.contains("to 3 significant digits"), "{tex}");
    let rows = latex_rows(&tex);
    // The header's two lines (title, then unit) joined by a space.
    let titles = latex_heads(&tex);
    let col = |t: &str| {
        titles
            .iter()
            .position(|x| x == t)
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
            row[col(&format!("T({}) (s)", s[2]))],
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
        assert_eq!(row[col("regret (acc$\\cdot$s)")], rounded(&r[3]));
        assert_eq!(
            row[col("regret interval (acc$\\cdot$s)")],
            format!("[{}, {}]", rounded(&r[4]), rounded(&r[5]))
        );
        assert_eq!(row[col("rel. regret")], rounded(&r[7]));
    }
    assert_eq!(rows.len(), 3, "one row per policy: {rows:?}");
    // The best per column is bold: beta-fast has the lowest regret.
    assert!(tex.contains("\\textbf{1.55}"), "{tex}");
    // Fixed decimals when asked.
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
    let mut args = vec!["--format", "csv", "--digits", "3"];
    for m in [
        "mean_jct_s",
        "median_jct_s",
        "p95_jct_s",
        "p99_jct_s",
        "mean_queueing_delay_s",
        "makespan_s",
        "gpu_utilization",
    ] {
        args.extend(["--metric", m]);
    }
    let csv_text = table(&out, &args);
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
        err.contains("--metric nope") && err.contains("regret, ratio, time, speedup"),
        "{err}"
    );
}

#[test]
fn default_model_table_of_the_quickstart_matches_its_golden() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("r");
    run_scenario("scenarios/quickstart.toml", &out, &["--quiet"]);
    let tex = table(&out, &[]);
    let golden = fs::read_to_string(repo("tests/golden/quickstart/table.tex")).expect("golden");
    assert_eq!(
        tex, golden,
        "update tests/golden/quickstart/table.tex (scripts/update-goldens) if the change is meant"
    );
    // The golden's numbers are regret.csv's and speedups.csv's at 3
    // significant digits, computed here independently.
    let rows = latex_rows(&tex);
    for r in csv_rows(&out.join("regret.csv")) {
        let row = rows.iter().find(|x| x[0] == r[0]).expect("policy row");
        assert_eq!(row[1], rounded(&r[3]), "regret of {}", r[0]);
        assert_eq!(row[2], rounded(&r[7]), "ratio of {}", r[0]);
    }
    for s in csv_rows(&out.join("speedups.csv")) {
        let row = rows.iter().find(|x| x[0] == s[0]).expect("policy row");
        assert!(row[3..].contains(&rounded(&s[4])), "T of {s:?} in {row:?}");
    }
}

#[test]
fn default_job_table_of_the_jobs_quickstart_matches_its_golden() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("r");
    run_scenario("scenarios/jobs-quickstart.toml", &out, &["--quiet"]);
    let tex = table(&out, &[]);
    let golden =
        fs::read_to_string(repo("tests/golden/jobs-quickstart/table.tex")).expect("golden");
    assert_eq!(
        tex, golden,
        "update tests/golden/jobs-quickstart/table.tex (scripts/update-goldens) if the change is meant"
    );
    // mean JCT, makespan, and mean JCT / the first policy's (the baseline).
    let summary = csv_rows(&out.join("summary.csv"));
    let base: f64 = summary[0][3].parse().expect("mean");
    let rows = latex_rows(&tex);
    assert_eq!(rows.len(), summary.len());
    for s in &summary {
        let row = rows.iter().find(|x| x[0] == s[0]).expect("policy row");
        let mean: f64 = s[3].parse().expect("mean");
        assert_eq!(row[1], three_sig(mean), "{s:?}");
        assert_eq!(row[2], rounded(&s[8]), "{s:?}");
        assert_eq!(row[3], three_sig(mean / base), "{s:?}");
    }
}

/// A job-mode results folder in `dir` holding `summary.csv` (and the
/// `utilization.csv` that marks the mode).
fn job_folder(dir: &std::path::Path, summary: &str) {
    fs::create_dir_all(dir).expect("mkdir");
    fs::write(dir.join("summary.csv"), summary).expect("write");
    fs::write(dir.join("utilization.csv"), "policy,rep,t_s,gpus_held\n").expect("write");
}

/// A model-mode results folder in `dir`: `speedups.csv`, `regret.csv` (and
/// the `curves.csv` that marks the mode).
fn model_folder(dir: &std::path::Path, speedups: &str, regret: &str) {
    fs::create_dir_all(dir).expect("mkdir");
    fs::write(dir.join("speedups.csv"), speedups).expect("write");
    fs::write(dir.join("regret.csv"), regret).expect("write");
    fs::write(dir.join("curves.csv"), "policy,t_s\n").expect("write");
}

const SUMMARY_HEAD: &str = "policy,rep,jobs,mean_jct_s,median_jct_s,p95_jct_s,p99_jct_s,mean_queueing_delay_s,makespan_s,gpu_utilization\n";

#[test]
fn a_makespan_of_70_days_prints_in_hours_with_3_significant_digits() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("big");
    job_folder(
        &dir,
        &format!(
            "{SUMMARY_HEAD}fifo,0,9,21600.5,1,1,1,1,6072174.02,0.5\nsrtf,0,9,900.25,1,1,1,1,5400000,0.6\n"
        ),
    );
    let md = table(&dir, &["--format", "markdown"]);
    // 6072174.02 s = 1686.7 h; 5400000 s = 1500 h; 21600.5 s = 360.0 min;
    // 900.25 s = 15.0 min; 900.25 / 21600.5 = 0.04168.
    let expected = "| policy | mean JCT (min) | makespan (h) | rel. JCT |\n\
                    | :--- | ---: | ---: | ---: |\n\
                    | fifo | 360 | 1690 | 1.00 |\n\
                    | srtf | **15.0** | **1500** | **0.0417** |\n";
    assert!(md.starts_with(expected), "{md}");
    assert!(!md.contains("6072174"), "{md}");
    assert_eq!(
        latex_heads(&table(&dir, &[])),
        ["policy", "mean JCT (min)", "makespan (h)", "rel. JCT"]
    );
    // CSV keeps seconds and every digit, for machines.
    let csv_text = table(&dir, &["--format", "csv"]);
    assert_eq!(
        csv_text,
        format!(
            "policy,mean JCT (s),makespan (s),rel. JCT\n\
             fifo,21600.5,6072174.02,1\n\
             srtf,900.25,5400000,{}\n",
            900.25_f64 / 21600.5
        )
    );
    // Fewer significant digits when asked.
    let two = table(&dir, &["--format", "markdown", "--sig-digits", "2"]);
    assert!(two.contains("| fifo | 360 | 1700 | 1.0 |"), "{two}");
}

#[test]
fn sub_second_times_and_tiny_regrets_never_print_as_zero() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("fast");
    model_folder(
        &dir,
        "policy,baseline,theta,t_baseline_s,t_policy_s,speedup\n\
         a,a,0.1,0.0042,0.0042,1\n\
         b,a,0.1,0.0042,0.000731,5.745554035567715\n",
        "policy,baseline,reps,mean_regret,ci_low,ci_high,median_regret,ratio_to_baseline\n\
         a,a,1,0.000123,0.000123,0.000123,0.000123,1\n\
         b,a,1,0.0000456,0.0000456,0.0000456,0.0000456,0.37073170731707317\n",
    );
    let md = table(&dir, &["--format", "markdown"]);
    let expected = "| policy | regret (acc·s) | rel. regret | T(0.1) (s) |\n\
                    | :--- | ---: | ---: | ---: |\n\
                    | a | 0.000123 | 1.00 | 0.00420 |\n\
                    | b | **4.56e-5** | **0.371** | **0.000731** |\n";
    assert!(md.starts_with(expected), "{md}");
    let tex = table(&dir, &[]);
    assert!(tex.contains("\\textbf{$4.56\\times10^{-5}$}"), "{tex}");
    // Fixed decimals that would round a non-zero value to zero give it one
    // significant digit instead.
    let dec = table(&dir, &["--format", "markdown", "--digits", "2"]);
    assert!(dec.contains("| a | 0.0001 | 1.00 | 0.004 |"), "{dec}");
    assert!(!dec.contains(" 0.00 "), "{dec}");
}

#[test]
fn bold_marks_every_row_tied_in_print_and_none_when_all_tie() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("ties");
    // mean JCT: 12.341 and 12.344 both print 12.3 (tied best), 20 does not;
    // makespan: every row prints 100 (nothing stands out); utilisation:
    // 0.5 is best alone.
    job_folder(
        &dir,
        &format!(
            "{SUMMARY_HEAD}a,0,1,12.341,1,1,1,1,100.2,0.5\nb,0,1,12.344,1,1,1,1,100.4,0.4\nc,0,1,20,1,1,1,1,100,0.3\n"
        ),
    );
    let md = table(
        &dir,
        &[
            "--format",
            "markdown",
            "--metric",
            "mean_jct_s",
            "--metric",
            "makespan_s",
            "--metric",
            "gpu_utilization",
        ],
    );
    let expected = "| policy | mean JCT (s) | makespan (s) | GPU utilisation |\n\
                    | :--- | ---: | ---: | ---: |\n\
                    | a | **12.3** | 100 | **0.500** |\n\
                    | b | **12.3** | 100 | 0.400 |\n\
                    | c | 20.0 | 100 | 0.300 |\n";
    assert!(md.starts_with(expected), "{md}");
    // With more digits the tie is broken and only the best is bold.
    let five = table(&dir, &["--format", "markdown", "--sig-digits", "5"]);
    assert!(five.contains("| a | **12.341** |"), "{five}");
    assert!(five.contains("| b | 12.344 |"), "{five}");
    // A single row has nothing to stand out from.
    let one = tmp.path().join("one");
    job_folder(&one, &format!("{SUMMARY_HEAD}a,0,1,12,1,1,1,1,100,0.5\n"));
    let md1 = table(&one, &["--format", "markdown"]);
    assert!(!md1.contains("**"), "{md1}");
}

#[test]
fn digits_and_sig_digits_cannot_both_be_given() {
    let out = tenantsim()
        .arg("table")
        .arg(repo("tests/fixtures/plots/model"))
        .args(["--digits", "2", "--sig-digits", "3"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be used with"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn job_ratio_uses_the_run_json_baseline_and_names_a_missing_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("base");
    job_folder(
        &dir,
        &format!("{SUMMARY_HEAD}a,0,1,10,1,1,1,1,100,0.5\nb,0,1,40,1,1,1,1,100,0.5\n"),
    );
    fs::write(dir.join("run.json"), r#"{"scenario": {"baseline": "b"}}"#).expect("write");
    let md = table(&dir, &["--format", "markdown", "--metric", "ratio"]);
    assert!(md.contains("| a | **0.250** |\n| b | 1.00 |"), "{md}");
    assert!(md.contains("that of the baseline, b,"), "{md}");
    fs::write(dir.join("run.json"), r#"{"scenario": {"baseline": "zz"}}"#).expect("write");
    let bad = tenantsim().arg("table").arg(&dir).output().expect("runs");
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("summary.csv") && err.contains("`zz`"), "{err}");
    fs::write(dir.join("run.json"), "{not json").expect("write");
    let bad = tenantsim().arg("table").arg(&dir).output().expect("runs");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.contains("run.json: line 1, column 2: not JSON"),
        "{err}"
    );
}
