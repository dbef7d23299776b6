//! The real binary on the bundled scenario.

use crate::common;
use common::{RESULTS_MARK, assert_same_result_files, repo, run_scenario, tenantsim, tree};

use std::fs;
use std::path::Path;

use predicates::str::contains;

fn run_quickstart(out: &Path, extra: &[&str]) {
    run_scenario("scenarios/quickstart.toml", out, extra);
}

#[test]
fn quickstart_writes_its_results_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--jobs")
        .assert()
        .success()
        .stderr(contains("results in"))
        .stderr(contains("run.json, plots/\n"));
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let mut lines = summary.lines();
    assert_eq!(
        lines.next(),
        Some(
            "policy,rep,tenants,final_loss,cumulative_regret,time_to_0.2_s,time_to_0.1_s,\
             time_to_0.05_s,jobs,gpu_busy_fraction,end_s,events,regret_area_mean,regret_area_p50,\
             regret_area_p90,regret_area_max,jain_index,abandoned"
        )
    );
    // 10 repetitions × 4 policies; the first row is the hand-computed run
    // of tests/it/hand_trace.rs (R = 15.3, end 21 s, busy 41/42); its tenants'
    // regret areas are u1 3.3, u2 1.65, u3 10.35 (mean 5.1, median 3.3).
    assert_eq!(lines.clone().count(), 40);
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with(
            "rr-in-order,0,3,0,15.3,7.000000,20.000000,20.000000,11,0.9761904761904762,21.000000,14,5.1,3.3,"
        ),
        "{first}"
    );
    assert!(first.ends_with(",10.35,0.9848048705840707,0"), "{first}");
    let tenants = fs::read_to_string(out.join("tenants.csv")).expect("tenants.csv");
    assert_eq!(tenants.lines().count(), 1 + 40 * 3);
    for (file, header) in [
        ("curves.csv", tenantsim::models::report::CURVES_HEADER),
        ("speedups.csv", tenantsim::models::report::SPEEDUPS_HEADER),
        ("regret.csv", tenantsim::models::report::REGRET_HEADER),
    ] {
        let text = fs::read_to_string(out.join(file)).expect(file);
        assert_eq!(text.lines().next(), Some(header), "{file}");
    }
    // 4 policies × 3 thresholds, and one regret row per policy.
    let speedups = fs::read_to_string(out.join("speedups.csv")).expect("speedups.csv");
    assert_eq!(speedups.lines().count(), 1 + 4 * 3);
    assert!(speedups.contains("\nrr-in-order,rr-in-order,0.2,7.000000,7.000000,1,1\n"));
    let regret = fs::read_to_string(out.join("regret.csv")).expect("regret.csv");
    assert!(regret.contains("\nrr-in-order,rr-in-order,10,15.3,15.3,15.3,15.3,1,1\n"));
    let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    assert!(jobs.starts_with("policy,rep,job,gpu,user,model,start_s,end_s,accuracy\n"));
    assert_eq!(jobs.lines().count(), 1 + 40 * 11);
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("run.json is JSON");
    assert_eq!(manifest["seed"], 7);
    assert_eq!(manifest["trace"]["pairs"], 11);
    assert_eq!(manifest["trace"]["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(manifest["scenario"]["name"], "quickstart");
    assert_eq!(manifest["baseline"], "rr-in-order");
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        manifest["git_commit"]
            .as_str()
            .is_some_and(|c| !c.is_empty())
    );
    assert_eq!(manifest["policies"][0]["name"], "rr-in-order");
    assert_eq!(manifest["policies"][0]["events"], 140);
    assert!(manifest["policies"][0]["events_per_s"].is_number());
    assert!(manifest["wall_time_s"].is_number());
    // No temporary files are left behind.
    for entry in fs::read_dir(&out).expect("results folder") {
        let name = entry.expect("entry").file_name();
        assert!(
            name == RESULTS_MARK || !name.to_string_lossy().starts_with('.'),
            "left {name:?}"
        );
    }
}

/// `run.json` without the fields that legitimately vary between identical
/// runs: those it lists itself under `varying_fields` (thread count, wall
/// time, events per second, policy time, paths), each of which must exist.
fn manifest_without_timing(bytes: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(bytes).expect("run.json is JSON");
    let varying: Vec<String> = v["varying_fields"]
        .as_array()
        .expect("varying_fields")
        .iter()
        .map(|f| f.as_str().expect("a dotted path").to_string())
        .collect();
    assert!(varying.iter().any(|f| f == "wall_time_s"), "{varying:?}");
    for field in &varying {
        if let Some((list, key)) = field.split_once("[].") {
            for p in v[list].as_array_mut().expect("a list") {
                assert!(
                    p.as_object_mut().expect("object").remove(key).is_some(),
                    "{field}"
                );
            }
        } else {
            let mut parts: Vec<&str> = field.split('.').collect();
            let last = parts.pop().expect("a key");
            let mut at = &mut v;
            for p in parts {
                at = &mut at[p];
            }
            assert!(
                at.as_object_mut().expect("object").remove(last).is_some(),
                "{field}"
            );
        }
    }
    v
}

/// Two result trees are equal: every file byte for byte, except `run.json`
/// which must be equal once timing fields are removed.
fn assert_same_results(a: &Path, b: &Path, what: &str) {
    let (ta, tb) = (tree(a), tree(b));
    assert_eq!(
        ta.keys().collect::<Vec<_>>(),
        tb.keys().collect::<Vec<_>>(),
        "{what}: different files"
    );
    for (rel, bytes) in &ta {
        if rel.file_name().is_some_and(|n| n == "run.json") {
            assert_eq!(
                manifest_without_timing(bytes),
                manifest_without_timing(&tb[rel]),
                "{what}: {} differs beyond timing",
                rel.display()
            );
        } else {
            assert!(bytes == &tb[rel], "{what}: {} differs", rel.display());
        }
    }
}

#[test]
fn same_scenario_gives_byte_identical_results_for_any_thread_count() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    run_quickstart(&a, &["--jobs", "--threads", "1"]);
    run_quickstart(&b, &["--jobs", "--threads", "1"]);
    run_quickstart(&c, &["--jobs", "--threads", "2"]);
    let files: Vec<String> = tree(&a).keys().map(|p| p.display().to_string()).collect();
    assert_eq!(
        files,
        [
            "curves.csv",
            "curves_by_job.csv",
            "jobs.csv",
            "plots/regret-curves-by-job.png",
            "plots/regret-curves-by-job.svg",
            "plots/regret-curves.png",
            "plots/regret-curves.svg",
            "plots/regret.png",
            "plots/regret.svg",
            "plots/speedups.png",
            "plots/speedups.svg",
            "plots/tenant-accuracy.png",
            "plots/tenant-accuracy.svg",
            "plots/tenant-regret.png",
            "plots/tenant-regret.svg",
            "regret.csv",
            "run.json",
            "speedups.csv",
            "speedups_up_to.csv",
            "summary.csv",
            "tenants.csv"
        ]
    );
    assert_same_results(&a, &b, "two runs on 1 thread");
    assert_same_results(&a, &c, "1 thread vs 2 threads");
    // Without --jobs the job logs are dropped early; nothing else changes
    // but the per-tenant accuracy figure, which is drawn from jobs.csv.
    let d = tmp.path().join("d");
    run_quickstart(&d, &["--threads", "2"]);
    for f in [
        "jobs.csv",
        "plots/tenant-accuracy.png",
        "plots/tenant-accuracy.svg",
    ] {
        fs::remove_file(a.join(f)).expect("remove");
    }
    assert_same_results(&a, &d, "with vs without --jobs");
}

#[test]
fn sweep_gives_byte_identical_results_for_any_thread_count() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for (out, threads) in [(&a, "1"), (&b, "2")] {
        tenantsim()
            .arg("run")
            .arg(repo("scenarios/sweep.toml"))
            .arg("--out")
            .arg(out)
            .args(["--jobs", "--quiet", "--threads", threads])
            .assert()
            .success();
    }
    assert_eq!(
        tree(&a).len(),
        1 + 4 + 6 * (9 + 12),
        "sweep.csv + 2 sweep figures × 2 formats + 6 points × (9 files + 6 figures × 2 formats)"
    );
    for f in ["sweep-regret_mean", "sweep-time_to_0.2_s"] {
        for ext in ["png", "svg"] {
            assert!(a.join("plots").join(format!("{f}.{ext}")).is_file());
        }
    }
    assert_same_results(&a, &b, "sweep on 1 vs 2 threads");
}

/// The sweep runs the full grid (3 GPU counts × 2 tenant counts), one
/// folder per point in grid order (last key fastest), and each folder is
/// what a plain run of that point's resolved scenario (from its run.json)
/// writes.
#[test]
fn sweep_points_equal_plain_runs_of_their_resolved_scenarios() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("sweep");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/sweep.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success()
        .stdout("")
        .stderr("");
    let mut folders: Vec<String> = fs::read_dir(&out)
        .expect("sweep folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "sweep.csv" && n != "plots" && n != RESULTS_MARK)
        .collect();
    folders.sort();
    assert!(out.join("plots/sweep-regret_mean.png").is_file());
    let expected: Vec<String> = [(1, 2), (1, 3), (2, 2), (2, 3), (3, 2), (3, 3)]
        .iter()
        .enumerate()
        .map(|(i, (g, t))| format!("point-{i:03}-cluster.gpus={g}+split.tenant_count={t}"))
        .collect();
    assert_eq!(folders, expected);

    let sweep = fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let mut lines = sweep.lines();
    assert_eq!(
        lines.next(),
        Some(
            "point,folder,cluster.gpus,split.tenant_count,policy,baseline,reps,final_loss_mean,\
             regret_mean,regret_ci_low,regret_ci_high,regret_ratio,time_to_0.2_s,time_to_0.1_s,\
             speedup_0.2,speedup_0.1"
        )
    );
    assert_eq!(lines.clone().count(), 6 * 2, "one row per point × policy");
    let first: Vec<&str> = lines.next().expect("row").split(',').collect();
    assert_eq!(
        first[..7],
        [
            "0",
            &expected[0],
            "1",
            "2",
            "rr-in-order",
            "rr-in-order",
            "8"
        ]
    );

    let trace = repo("traces/hand.csv");
    for (i, folder) in expected.iter().enumerate() {
        let dir = out.join(folder);
        let manifest: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("run.json")).expect("run.json"))
                .expect("JSON");
        assert_eq!(manifest["sweep_point"]["index"], i);
        let mut resolved = manifest["scenario"].clone();
        assert_eq!(
            resolved["cluster"]["gpus"],
            manifest["sweep_point"]["values"]["cluster.gpus"]
        );
        assert_eq!(
            resolved["split"]["tenant_count"],
            manifest["sweep_point"]["values"]["split.tenant_count"]
        );
        assert!(
            resolved.get("sweep").is_none(),
            "the resolved scenario has no sweep"
        );
        resolved["trace"]["path"] = serde_json::json!(trace.display().to_string());
        let toml_text = toml::to_string(&resolved).expect("scenario as TOML");
        let plain_scenario = tmp.path().join(format!("point-{i}.toml"));
        fs::write(&plain_scenario, toml_text).expect("write");
        let plain = tmp.path().join(format!("plain-{i}"));
        tenantsim()
            .arg("run")
            .arg(&plain_scenario)
            .arg("--out")
            .arg(&plain)
            .arg("--quiet")
            .assert()
            .success();
        assert_same_result_files(&dir, &plain, folder);
    }
}

#[test]
fn terminal_summary_json_and_quiet() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Default: a table on stderr, nothing on stdout, no progress bar
    // (stderr is not a terminal here).
    let out = tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(tmp.path().join("a"))
        .arg("--no-plots")
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("baseline `rr-in-order`"), "{stderr}");
    let header = stderr
        .lines()
        .find(|l| l.starts_with("policy "))
        .expect("table header");
    for col in [
        "T(0.2) s",
        "T(0.05) s",
        "regret",
        "± 95%",
        "regret/base",
        "speedup@0.1",
    ] {
        assert!(header.contains(col), "header lacks {col}: {header}");
    }
    let row = stderr
        .lines()
        .find(|l| l.starts_with("rr-most-cited "))
        .expect("row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    // T(0.2) = 4 s (mean curve), regret 17.05, speedup 7/4 at θ = 0.2.
    assert_eq!(cells[1], "4.000");
    assert_eq!(cells[4], "17.050");
    assert_eq!(cells[7], "1.750");
    assert!(
        !stderr.contains("runs (repetition"),
        "no progress bar off a terminal"
    );

    // --json: exactly one JSON document on stdout; --quiet: nothing on
    // stderr.
    let out = tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(tmp.path().join("b"))
        .args(["--json", "--quiet", "--no-plots"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["scenario"], "quickstart");
    assert_eq!(doc["repetitions"], 10);
    assert_eq!(doc["baseline"], "rr-in-order");
    assert_eq!(doc["policies"][2]["name"], "rr-most-cited");
    assert_eq!(doc["policies"][2]["time_to_s"][0], 4.0);
    assert_eq!(doc["policies"][2]["speedup"][0], 1.75);
    assert!(doc["wall_time_s"].is_number());

    // --quiet alone: silent.
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(tmp.path().join("c"))
        .args(["--quiet", "--no-plots"])
        .assert()
        .success()
        .stdout("")
        .stderr("");
}

#[test]
fn seed_and_reps_overrides_apply() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_quickstart(&a, &["--reps", "3", "--seed", "1", "--no-plots"]);
    run_quickstart(&b, &["--reps", "3", "--seed", "2", "--no-plots"]);
    let sa = fs::read_to_string(a.join("summary.csv")).expect("read");
    let sb = fs::read_to_string(b.join("summary.csv")).expect("read");
    assert_eq!(sa.lines().count(), 1 + 3 * 4);
    // The deterministic policies agree; the random one differs by seed.
    assert_ne!(sa, sb);
}

#[test]
fn validate_describes_trace_and_scenario() {
    tenantsim()
        .arg("validate")
        .arg(repo("traces/hand.csv"))
        .assert()
        .success()
        .stderr(contains(
            "3 users × 4 models, 11 of 12 pairs available, with model_year, with model_citations",
        ));
    tenantsim()
        .arg("validate")
        .arg(repo("scenarios/quickstart.toml"))
        .assert()
        .success()
        .stderr(contains(
            "policy `random-random`: scheduler random, selector random",
        ));
    tenantsim()
        .arg("validate")
        .arg(repo("scenarios/sweep.toml"))
        .assert()
        .success()
        .stderr(contains(
            "sweeps 6 point(s) over cluster.gpus (3 values) × split.tenant_count (2 values)",
        ));
    tenantsim()
        .arg("validate")
        .arg(repo("scenarios/bench-repetitions.toml"))
        .assert()
        .success()
        .stderr(contains("500 users × 60 models"));
}

#[test]
fn trace_with_bom_crlf_and_blank_lines_is_accepted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("t.csv");
    fs::write(
        &path,
        "\u{feff}user,model,accuracy,runtime_s\r\na,m,0.5,1\r\n\r\nb,m,0.25,2\r\n",
    )
    .expect("write");
    tenantsim()
        .arg("validate")
        .arg(&path)
        .assert()
        .success()
        .stderr(contains("2 users × 1 models, 2 of 2 pairs"));
}

#[test]
fn help_names_the_commands_and_exit_codes() {
    tenantsim()
        .arg("--help")
        .assert()
        .success()
        .stdout(contains("run"))
        .stdout(contains("validate"))
        .stdout(contains("Exit codes"));
}

#[test]
fn easeml_hand_scenario_runs_every_gp_policy() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/easeml-hand.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--no-plots"])
        .assert()
        .success();
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let rows: Vec<Vec<&str>> = summary
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        names,
        [
            "rr-in-order",
            "rr-gp-ucb",
            "ease.ml",
            "hybrid",
            "easeml-proto",
            "greedy-ei-per-second"
        ]
    );
    // Two tenants (u1: 4 models, u3: 4 models), every pair run, loss 0.
    for r in &rows {
        assert_eq!((r[2], r[3], r[8]), ("2", "0", "8"), "{r:?}");
    }
}

/// The JSON summary carries the per-tenant figures: for rr-in-order (the
/// same run in every repetition) the mean tenant regret area is 5.1 and the
/// worst tenant's (u3) is 10.35 — see tests/it/hand_trace.rs and tests/it/online.rs.
#[test]
fn json_summary_reports_per_tenant_fairness() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(tmp.path().join("r"))
        .args(["--json", "--quiet", "--no-plots"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let t = &doc["policies"][0]["tenants"];
    assert_eq!(doc["policies"][0]["name"], "rr-in-order");
    assert!(
        (t["regret_area_mean"].as_f64().unwrap_or(f64::NAN) - 5.1).abs() < 1e-9,
        "{t}"
    );
    assert!(
        (t["regret_area_worst"].as_f64().unwrap_or(f64::NAN) - 10.35).abs() < 1e-9,
        "{t}"
    );
    assert_eq!(t["abandoned"], 0.0);
    assert!(
        t["jain_index"]
            .as_f64()
            .is_some_and(|j| j > 0.0 && j <= 1.0)
    );
}

/// Online multi-tenancy is deterministic too: Poisson arrivals, budgets and
/// patience, every scheduler, per-tenant outputs — identical files on 1 and
/// 2 threads.
#[test]
fn online_scenario_is_byte_identical_for_any_thread_count() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("online.toml");
    fs::write(
        &scenario,
        r#"name = "online"
seed = 9
repetitions = 4
[trace.syn]
users = 40
models = 6
seed = 2
[split]
prior_count = 10
[arrivals]
kind = "poisson"
rate_per_hour = 7200
[limits]
budget_gpu_s = 4
patience_s = 3
[cluster]
gpus = 3
[output]
plots = false
[[policy]]
name = "rr"
scheduler = "round-robin"
selector = "random"
[[policy]]
name = "greedy"
scheduler = "greedy"
selector = "gp-ucb-cost"
[[policy]]
name = "hybrid"
scheduler = "hybrid"
selector = "gp-ucb"
[[policy]]
name = "proto"
scheduler = "easeml-proto"
selector = "gp-ucb"
"#,
    )
    .expect("write scenario");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for (out, threads) in [(&a, "1"), (&b, "2")] {
        tenantsim()
            .arg("run")
            .arg(&scenario)
            .arg("--out")
            .arg(out)
            .args(["--jobs", "--quiet", "--threads", threads])
            .assert()
            .success();
    }
    assert_same_results(&a, &b, "online scenario on 1 vs 2 threads");
    // The scenario exercises what it claims: tenants left and budgets ran out.
    let tenants = fs::read_to_string(a.join("tenants.csv")).expect("tenants.csv");
    assert!(
        tenants.lines().any(|l| l.ends_with(",true,false")),
        "nobody abandoned"
    );
    assert!(
        tenants.lines().any(|l| l.ends_with(",true")),
        "no budget ran out"
    );
}

/// Degenerate set-ups run, and say so on stderr and in run.json: here the
/// horizon (0.5 s) is shorter than every job of the hand trace (the
/// shortest takes 1 s), so no job finishes and no policy reaches any θ.
#[test]
fn degenerate_setups_warn_on_stderr_and_in_run_json() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("s.toml");
    fs::write(
        &scenario,
        format!(
            "name = \"w\"\nthresholds = [0.1]\nhorizon_s = 0.5\n[trace]\npath = \"{}\"\n\
             [cluster]\ngpus = 1\n[output]\nplots = false\n\
             [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n",
            repo("traces/hand.csv").display()
        ),
    )
    .expect("scenario");
    let out = tmp.path().join("out");
    let run = tenantsim()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    assert!(
        stderr.contains("warning: `w`: horizon_s = 0.5 is shorter than every job"),
        "{stderr}"
    );
    // `validate` says the set-up warning too (the other needs a run).
    let validate = tenantsim()
        .arg("validate")
        .arg(&scenario)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&validate.get_output().stderr).into_owned();
    assert!(
        text.contains("  warning: horizon_s = 0.5 is shorter than every job"),
        "{text}"
    );
    assert!(
        stderr.contains("policy `rr` never reaches any threshold (0.1)"),
        "{stderr}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("json");
    let warnings: Vec<&str> = manifest["warnings"]
        .as_array()
        .expect("warnings array")
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("horizon_s = 0.5") && warnings[0].contains("1 s"));
    assert!(warnings[1].contains("never reaches any threshold"));
    // A healthy scenario has none.
    let ok = tmp.path().join("ok");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(&ok)
        .args(["--quiet", "--no-plots"])
        .assert()
        .success();
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(ok.join("run.json")).expect("run.json"))
            .expect("json");
    assert_eq!(manifest["warnings"], serde_json::json!([]));
}

/// Regression (issue 27): `tenantsim run … --json | head -c 10` exited 1
/// with "Broken pipe". Here the reader closes the pipe before the JSON is
/// written (as `head` does once it has its bytes), so every write to
/// stdout fails: the run still ends with 0, says nothing about stdout, and
/// its results folder is complete.
#[test]
fn broken_pipe_on_json_stdout_exits_0_quietly() {
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("tenantsim"))
        .arg("run")
        .arg(repo("scenarios/quickstart.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--json", "--no-plots"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tenantsim");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
    assert!(out.join("summary.csv").is_file() && out.join("run.json").is_file());
}
