//! Validation against Gavel (docs/VALIDATION.md, DESIGN §11.2) on the
//! shared Gavel data (`../shared/data/gavel`, SOURCE.md there): the import
//! keeps every job with durations equal to steps / throughput (recomputed
//! here from the JSON, independently of the importer), FIFO on 32 V100s is
//! within 1 % of Gavel's aligned result, and on 16:16:16 V100/P100/K80 the
//! heterogeneity-aware type policy beats the agnostic one, the ordering
//! Gavel reports. Tests skip with a note when the data is absent (and fail
//! under `TENANTSIM_REQUIRE_SHARED_DATA=1`).

use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::testing::shared_data;
use tenantsim::jobs::import::gavel::GavelOptions;
use tenantsim::jobs::import::{ImportFormat, ImportOptions, import_jobs};
use tenantsim::jobs::run_job_experiment;
use tenantsim::jobs::scenario::parse_job_scenario;
use tenantsim::jobs::trace::write_job_trace;

/// Gavel's aligned FIFO on `-c 32:0:0` (SOURCE.md), hours.
const GAVEL_ALIGNED_FIFO_H: f64 = 15.702;

fn gavel_files() -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let trace = shared_data("gavel/gavel-generated-500.trace")?;
    let json = shared_data("gavel/simulation_throughputs.json")?;
    Some((trace, json))
}

fn import(trace: &Path, json: &Path) -> Vec<tenantsim::jobs::JobRow> {
    let (rows, report) = import_jobs(
        ImportFormat::Gavel,
        trace,
        ImportOptions {
            gavel: GavelOptions {
                throughputs: Some(json.to_path_buf()),
                worker_types: Vec::new(),
            },
            ..ImportOptions::default()
        },
    )
    .expect("imports");
    assert_eq!(report.rows, 500);
    assert_eq!(report.kept, 500);
    assert_eq!(
        report.duplicates, 0,
        "SOURCE.md: this file has no duplicate"
    );
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    rows
}

#[test]
fn gavel_import_keeps_every_job_with_durations_steps_over_throughput() {
    let Some((trace, json)) = gavel_files() else {
        return;
    };
    let rows = import(&trace, &json);
    // Recompute from the files: the key is Python's repr of the tuple.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parses");
    let text = std::fs::read_to_string(&trace).expect("trace");
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), rows.len());
    let mut restricted = 0;
    for (i, (f, row)) in lines.iter().zip(&rows).enumerate() {
        let steps: f64 = f[5].parse().expect("steps");
        let sf: u32 = f[6].parse().expect("scale factor");
        let key = format!("('{}', {sf})", f[0]);
        assert_eq!(row.gpus, sf);
        assert_eq!(row.submit_s, f[9].parse::<f64>().expect("arrival"));
        assert_eq!(row.group.as_deref(), Some(f[0]));
        let mut runs_on = Vec::new();
        for w in ["v100", "p100", "k80"] {
            let t = doc[w][&key]["null"].as_f64().expect("throughput");
            let got = row
                .type_durations
                .iter()
                .find(|(n, _)| n == w)
                .map(|(_, d)| *d);
            if t > 0.0 {
                let want = steps / t;
                let d = got.expect("a duration where the throughput is positive");
                assert!(
                    (d - want).abs() <= 1e-9 * want,
                    "job {i} on {w}: {d} vs {want}"
                );
                runs_on.push(w);
            } else {
                assert_eq!(got, None, "job {i} cannot run on {w}");
            }
        }
        assert_eq!(
            row.duration_s,
            steps / doc["v100"][&key]["null"].as_f64().expect("t")
        );
        let allowed = row.gpu_type.as_deref().unwrap_or("");
        if runs_on.len() < 3 {
            restricted += 1;
            assert_eq!(allowed, runs_on.join("|"));
        } else {
            assert_eq!(allowed, "");
        }
    }
    // ResNet-50 (batch size 128) on 2, 4 or 8 GPUs has no k80 throughput.
    assert!(restricted > 0);
}

/// Run `cluster` and `policies` on the imported trace; average JCTs, hours.
fn mean_jct_h(trace: &Path, json: &Path, cluster: &str, policies: &[(&str, &str)]) -> Vec<f64> {
    let tmp = tempfile::tempdir().expect("tempdir");
    let rows = import(trace, json);
    write_job_trace(&tmp.path().join("gavel.csv"), &rows).expect("writes");
    let mut text =
        format!("mode = \"jobs\"\nname = \"g\"\n[jobs]\npath = \"gavel.csv\"\n{cluster}\n");
    for (name, extra) in policies {
        text += &format!("[[policy]]\nname = \"{name}\"\nscheduler = \"fifo\"\n{extra}\n");
    }
    let s =
        parse_job_scenario(&tmp.path().join("s.toml"), &text, Overrides::default()).expect("loads");
    let r = run_job_experiment(&s, Some(1), false).expect("runs");
    r.runs
        .iter()
        .map(|run| {
            assert_eq!(run.jobs, 500);
            run.metrics.mean_jct / 3.6e9
        })
        .collect()
}

#[test]
fn gavel_fifo_on_32_v100_is_within_one_percent_of_gavel() {
    let Some((trace, json)) = gavel_files() else {
        return;
    };
    for cluster in [
        "[cluster]\nnodes = [{type = \"v100\", count = 1, gpus_per_node = 32}]\n",
        "[cluster]\nnodes = [{type = \"v100\", count = 4, gpus_per_node = 8}]\nplacement = \"spread\"\n",
    ] {
        let h = mean_jct_h(&trace, &json, cluster, &[("fifo", "")])[0];
        let rel = (h - GAVEL_ALIGNED_FIFO_H).abs() / GAVEL_ALIGNED_FIFO_H;
        assert!(
            rel < 0.01,
            "{cluster}: {h} h vs Gavel {GAVEL_ALIGNED_FIFO_H} h"
        );
    }
}

/// Gavel (OSDI '20, §7) reports that heterogeneity-aware policies lower
/// the average JCT against their heterogeneity-agnostic versions on
/// heterogeneous clusters. On 16:16:16 V100/P100/K80, FIFO with the
/// `fastest` type policy (and `fastest-or-wait`) must beat FIFO
/// `agnostic`.
#[test]
fn gavel_heterogeneity_aware_fifo_beats_agnostic_on_16_16_16() {
    let Some((trace, json)) = gavel_files() else {
        return;
    };
    let cluster = "[cluster]\nnodes = [{type = \"v100\", count = 1, gpus_per_node = 16}, {type = \"p100\", count = 1, gpus_per_node = 16}, {type = \"k80\", count = 1, gpus_per_node = 16}]\n";
    let h = mean_jct_h(
        &trace,
        &json,
        cluster,
        &[
            ("agnostic", ""),
            ("fastest", "type_policy = \"fastest\""),
            (
                "or-wait",
                "type_policy = \"fastest-or-wait\"\nmax_wait_s = 3600",
            ),
        ],
    );
    assert!(h[1] < h[0], "fastest {} h vs agnostic {} h", h[1], h[0]);
    assert!(
        h[2] < h[0],
        "fastest-or-wait {} h vs agnostic {} h",
        h[2],
        h[0]
    );
}

/// The shipped `traces/gavel-500.csv` is the import of the shared data,
/// byte for byte (`traces/GAVEL-LICENSE.md` gives the command).
#[test]
fn shipped_gavel_trace_is_the_import_of_the_shared_data() {
    let Some((trace, json)) = gavel_files() else {
        return;
    };
    let rows = import(&trace, &json);
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/gavel-500.csv");
    assert_eq!(
        tenantsim::jobs::trace::job_rows_to_csv(&rows),
        std::fs::read_to_string(shipped).expect("shipped trace")
    );
}

const SMALL_JSON: &str = r#"{"v100": {"('A (batch size 1)', 1)": {"null": 2.0}, "('B', 2)": {"null": 4.0}},
 "k80": {"('A (batch size 1)', 1)": {"null": 0.5}, "('B', 2)": {"null": 0.0}}}"#;

fn small_import(
    trace: &str,
    workers: &[&str],
) -> tenantsim::Result<(Vec<tenantsim::jobs::JobRow>, Vec<String>, usize)> {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("t.trace"), trace).expect("write");
    std::fs::write(tmp.path().join("tp.json"), SMALL_JSON).expect("write");
    let (rows, report) = import_jobs(
        ImportFormat::Gavel,
        &tmp.path().join("t.trace"),
        ImportOptions {
            gavel: GavelOptions {
                throughputs: Some(tmp.path().join("tp.json")),
                worker_types: workers.iter().map(|w| w.to_string()).collect(),
            },
            ..ImportOptions::default()
        },
    )?;
    Ok((rows, report.notes, report.duplicates))
}

fn line(job: &str, steps: &str, sf: &str, weight: &str, slo: &str, arrival: &str) -> String {
    format!("{job}\tpython3 x.py\tdir\t--steps\t1\t{steps}\t{sf}\t{weight}\t{slo}\t{arrival}\n")
}

#[test]
fn gavel_import_drops_the_duplicated_first_job_and_warns_for_weights_and_slos() {
    // Gavel's trace writer: the first job again with arrival 0.
    let trace = line("A (batch size 1)", "100", "1", "1", "-1.000000", "0.000000")
        + &line("A (batch size 1)", "100", "1", "1", "-1.000000", "5.5")
        + &line("B", "40", "2", "2", "3600", "7");
    let (rows, notes, dups) = small_import(&trace, &["v100", "k80"]).expect("imports");
    assert_eq!(dups, 1);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].job_id, "j0");
    assert_eq!(rows[0].submit_s, 5.5);
    // 100 steps at 2 and 0.5 steps/s; B cannot run on k80 (throughput 0).
    assert_eq!(
        rows[0].type_durations,
        [("v100".to_string(), 50.0), ("k80".to_string(), 200.0)]
    );
    assert_eq!(rows[0].duration_s, 50.0);
    assert_eq!(rows[1].type_durations, [("v100".to_string(), 10.0)]);
    assert_eq!(rows[1].gpu_type.as_deref(), Some("v100"));
    assert_eq!(rows[1].gpus, 2);
    let all = notes.join("\n");
    assert!(all.contains("line 1 repeats line 2"), "{all}");
    assert!(all.contains("priority_weight != 1 (lines 3)"), "{all}");
    assert!(all.contains("SLO != -1; lines 3"), "{all}");
    // Not a duplicate when the first arrival is not 0.
    let trace = line("A (batch size 1)", "100", "1", "1", "-1", "1")
        + &line("A (batch size 1)", "100", "1", "1", "-1", "5.5");
    let (rows, _, dups) = small_import(&trace, &["v100"]).expect("imports");
    assert_eq!((rows.len(), dups), (2, 0));
}

#[test]
fn gavel_import_rejections_name_line_and_field() {
    let err = |trace: &str, workers: &[&str]| {
        small_import(trace, workers)
            .expect_err("rejected")
            .to_string()
    };
    let e = err("A\tcmd\tdir\t--steps\t1\t100\t1\n", &["v100"]);
    assert!(e.contains("line 1: 7 tab-separated columns"), "{e}");
    assert!(e.contains("old-format Gavel (MSR) trace"), "{e}");
    let e = err(&line("C", "100", "1", "1", "-1", "0"), &["v100"]);
    assert!(
        e.contains("line 1: fields `job_type`, `scale_factor`"),
        "{e}"
    );
    assert!(e.contains("no throughput for (\"C\", 1)"), "{e}");
    let e = err(
        &line("A (batch size 1)", "x", "1", "1", "-1", "0"),
        &["v100"],
    );
    assert!(
        e.contains("line 1: field `total_steps`: expected a number"),
        "{e}"
    );
    let e = err(
        &line("A (batch size 1)", "100", "0", "1", "-1", "0"),
        &["v100"],
    );
    assert!(e.contains("line 1: field `scale_factor`"), "{e}");
    let e = err(
        &line("A (batch size 1)", "100", "1", "1", "-1", "0"),
        &["p100"],
    );
    assert!(e.contains("no worker type `p100`"), "{e}");
    let e = err(&line("B", "100", "2", "1", "-1", "0"), &["k80", "v100"]);
    assert!(
        e.contains("throughput 0 on `k80`, the first worker type"),
        "{e}"
    );
}
