//! `scenarios/easeml-dl.toml`: ease.ml against its authors' two heuristics
//! on their deep-learning matrix with runtimes (DS3Lab/GP-UCB `TS-MS/`,
//! imported from ../shared/data at run time; docs/EXPERIMENTS.md, last
//! section). Skipped with a note when the data is absent, a failure when
//! `TENANTSIM_REQUIRE_SHARED_DATA=1`.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use common::{repo, tenantsim};
use tenantsim::core::testing::shared_data;

/// The reconstructed orders (1-based matrix columns), ambiguous positions
/// resolved lowest column first, as docs/EXPERIMENTS.md states them.
const LATEST_FIRST: [usize; 9] = [9, 5, 3, 1, 6, 8, 2, 7, 4];
const MOST_CITED: [usize; 9] = [4, 7, 8, 2, 3, 1, 5, 6, 9];

/// Columns ordered by a metadata column of the committed rank CSV, highest
/// first (the selectors' order; the ranks are distinct).
fn order_by(meta: &str, column: usize) -> Vec<usize> {
    let mut rows: Vec<(i64, usize)> = meta
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let col = f[0][1..].parse::<usize>().expect("model id m<k>") + 1;
            (f[column].parse().expect("integer rank"), col)
        })
        .collect();
    rows.sort_by(|a, b| b.cmp(a));
    rows.into_iter().map(|(_, c)| c).collect()
}

fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .map(|h| h.to_string())
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn num(row: &BTreeMap<String, String>, key: &str) -> f64 {
    row[key]
        .parse()
        .unwrap_or_else(|_| panic!("{key} = {}", row[key]))
}

#[test]
fn committed_ranks_give_the_reconstructed_orders() {
    let meta = fs::read_to_string(repo("scenarios/easeml-dl-model-ranks.csv")).expect("csv");
    assert_eq!(
        meta.lines().next(),
        Some("model,model_year,model_citations")
    );
    assert_eq!(order_by(&meta, 1), LATEST_FIRST);
    assert_eq!(order_by(&meta, 2), MOST_CITED);
}

#[test]
fn easeml_dl_imports_ts_ms_runs_the_heuristic_orders_and_beats_both() {
    let Some(ts_ms) = shared_data("easeml-prototypes/DS3Lab-GP-UCB/TS-MS") else {
        return;
    };
    let scenario = repo("scenarios/easeml-dl.toml");

    // Import shape: 10 prior + 8 tenant data sets × 9 CNNs, with metadata.
    let out = tenantsim()
        .arg("validate")
        .arg(&scenario)
        .output()
        .expect("runs");
    let described = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{described}");
    for want in [
        "18 users × 9 models, 162 of 162 pairs available, with model_year, with model_citations",
        "split: 10 prior users, 8 tenants (fixed)",
        "cluster: 1 GPUs",
    ] {
        assert!(described.contains(want), "lacks `{want}`:\n{described}");
    }

    let dir = tempfile::tempdir().expect("temp dir");
    let res = dir.path().join("r");
    let out = tenantsim()
        .args([
            "run",
            "--quiet",
            "--no-plots",
            "--jobs",
            "--reps",
            "3",
            "--out",
        ])
        .arg(&res)
        .arg(&scenario)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let jobs = csv_rows(&res.join("jobs.csv"));

    // Runtimes attached: each tenant job lasts its TS-MS/test_time.txt cell
    // (tenant u1r = test row r - 9, model mk = column k + 1).
    let times: Vec<Vec<f64>> = fs::read_to_string(ts_ms.join("test_time.txt"))
        .expect("test_time.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .map(|v| v.parse().expect("number"))
                .collect()
        })
        .collect();
    let policies = [
        "rr-most-recent",
        "rr-most-cited",
        "ease.ml",
        "ease.ml-prior-cost",
        "rr-gp-ucb",
        "rr-random",
    ];
    assert_eq!(jobs.len(), policies.len() * 3 * 8 * 9, "every pair once");
    for j in &jobs {
        let row: usize = j["user"][1..].parse::<usize>().expect("u<n>") - 10;
        let col: usize = j["model"][1..].parse().expect("m<k>");
        let took = num(j, "end_s") - num(j, "start_s");
        assert!(
            (took - times[row][col]).abs() < 1e-6,
            "{} {} {}: ran {took} s, test_time.txt says {}",
            j["policy"],
            j["user"],
            j["model"],
            times[row][col]
        );
    }

    // Every tenant of every repetition tries the models in the
    // reconstructed orders.
    for (policy, order) in [
        ("rr-most-recent", LATEST_FIRST),
        ("rr-most-cited", MOST_CITED),
    ] {
        let mut seq: BTreeMap<(String, String), Vec<(f64, usize)>> = BTreeMap::new();
        for j in jobs.iter().filter(|j| j["policy"] == policy) {
            seq.entry((j["rep"].clone(), j["user"].clone()))
                .or_default()
                .push((
                    num(j, "start_s"),
                    j["model"][1..].parse::<usize>().expect("m<k>") + 1,
                ));
        }
        assert_eq!(seq.len(), 3 * 8);
        for ((rep, user), mut s) in seq {
            s.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
            let got: Vec<usize> = s.into_iter().map(|(_, c)| c).collect();
            assert_eq!(got, order, "{policy} rep {rep} {user}");
        }
    }

    // The headline: measured on 1 GPU, ease.ml reaches θ = 0.02, 0.01 and
    // 0.005 5.0–12.4× sooner than either heuristic (docs/EXPERIMENTS.md);
    // the test asks for at least 4× (and at least 4× less cumulative
    // regret, measured 9.5× and 11.8×), so a change that loses the
    // advantage fails while one that moves a step does not.
    let summary = csv_rows(&res.join("summary.csv"));
    let rep0 = |policy: &str| {
        summary
            .iter()
            .find(|r| r["policy"] == policy && r["rep"] == "0")
            .unwrap_or_else(|| panic!("{policy} in summary.csv"))
    };
    let easeml = rep0("ease.ml");
    for heuristic in ["rr-most-recent", "rr-most-cited"] {
        let h = rep0(heuristic);
        for theta in ["0.02", "0.01", "0.005"] {
            let key = format!("time_to_{theta}_s");
            let speedup = num(h, &key) / num(easeml, &key);
            assert!(
                speedup >= 4.0,
                "ease.ml over {heuristic} at θ = {theta}: {speedup:.2}× (measured ≥ 5.0×)"
            );
        }
        let ratio = num(h, "cumulative_regret") / num(easeml, "cumulative_regret");
        assert!(
            ratio >= 4.0,
            "{heuristic} / ease.ml cumulative regret {ratio:.2} (measured ≥ 9.5)"
        );
    }
}
