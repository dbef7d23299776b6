//! Helpers shared by the integration tests (`mod common;` in each).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// A path inside the repository.
pub fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// The tenantsim binary built for these tests.
pub fn tenantsim() -> Command {
    Command::cargo_bin("tenantsim").expect("binary built")
}

/// The bundled scenarios too large to run in the test suite (issue 34:
/// 10^6 and 10^7 tenants, docs/PERFORMANCE.md "Internet scale"): tests
/// that run every bundled scenario leave them out; `scale_scenarios`
/// validates them.
pub const INTERNET_SCALE: [&str; 2] = ["scale-1m", "scale-year"];

/// The file that marks a folder as written by tenantsim.
pub const RESULTS_MARK: &str = ".tenantsim-results";

/// Every file under `dir` but the results mark ([`RESULTS_MARK`]), by path
/// relative to it, with its bytes.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.file_name().is_some_and(|n| n != RESULTS_MARK) {
                let rel = path.strip_prefix(root).expect("prefix").to_path_buf();
                out.insert(rel, fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Two results folders hold the same files, byte for byte, every
/// `run.json` (which records paths and timings) excepted.
pub fn assert_same_result_files(a: &Path, b: &Path, what: &str) {
    let (ta, tb) = (tree(a), tree(b));
    assert_eq!(
        ta.keys().collect::<Vec<_>>(),
        tb.keys().collect::<Vec<_>>(),
        "{what}: different files"
    );
    for (rel, bytes) in &ta {
        if rel.file_name().is_some_and(|n| n != "run.json") {
            assert!(bytes == &tb[rel], "{what}: {} differs", rel.display());
        }
    }
}

/// `tenantsim run SCENARIO --out OUT EXTRA…` succeeds (`scenario` relative
/// to the repository).
pub fn run_scenario(scenario: &str, out: &Path, extra: &[&str]) {
    tenantsim()
        .arg("run")
        .arg(repo(scenario))
        .arg("--out")
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

/// Every bundled model-mode scenario (no sweep, not `mode = "jobs"` or
/// `"shared"`), but the internet-scale ones and `scale` (10^5 tenants:
/// seconds per run in a debug build), and those whose `../shared/data` is
/// absent (`scenario_data`).
pub fn model_scenarios() -> Vec<PathBuf> {
    let out: Vec<PathBuf> = bundled_tables()
        .into_iter()
        .filter(|(p, t)| {
            p.file_stem().is_none_or(|s| s != "scale")
                && t.get("mode").is_none_or(|m| m.as_str() == Some("models"))
                && !t.contains_key("sweep")
        })
        .map(|(p, _)| p)
        // The easeml-dl ones and two others read ../shared/data: a fresh
        // clone skips them with a note (tests/it/fresh_clone.rs).
        .filter(|p| tenantsim::core::testing::scenario_data(p))
        .collect();
    assert!(out.len() >= 12, "only {} model scenarios", out.len());
    out
}

/// Every bundled scenario file, in name order, with its parsed table, but
/// the internet-scale ones ([`INTERNET_SCALE`]: minutes and gigabytes
/// each; `scale_scenarios` validates them).
pub fn bundled_tables() -> Vec<(PathBuf, toml::Table)> {
    let mut out: Vec<(PathBuf, toml::Table)> = fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| {
            p.file_stem()
                .is_none_or(|s| !INTERNET_SCALE.iter().any(|n| s == *n))
        })
        .map(|p| {
            let t: toml::Table = fs::read_to_string(&p)
                .expect("readable")
                .parse()
                .expect("valid TOML");
            (p, t)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A result without its measurements (wall and policy times), as JSON.
pub fn comparable(r: &tenantsim::models::metrics::RepResult) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("serialises");
    let o = v.as_object_mut().expect("an object");
    o.remove("elapsed");
    o.remove("policy_time");
    if let Some(out) = o
        .get_mut("outcome")
        .and_then(serde_json::Value::as_object_mut)
    {
        out.remove("policy_clock");
    }
    v
}

/// The first GPU of `0..gpus` that runs two of `jobs` at once (a job
/// starting before the one before it on that GPU ended), if any.
pub fn double_booked_gpu(jobs: &[tenantsim::models::sim::JobRecord], gpus: u32) -> Option<u32> {
    (0..gpus).find(|&g| {
        let mut on: Vec<_> = jobs.iter().filter(|j| j.gpu == g).collect();
        on.sort_by_key(|j| j.start);
        on.windows(2).any(|w| w[1].start < w[0].end)
    })
}

#[test]
fn double_booked_gpu_finds_an_overlap_and_only_one() {
    let job = |gpu, start, end| tenantsim::models::sim::JobRecord {
        tenant: 0,
        model: 0,
        level: 0,
        gpu,
        start,
        end,
        accuracy: 0.5,
        completed: true,
        cancelled: false,
    };
    // Back to back on GPU 0 is fine; GPU 1's second job starts early.
    let jobs = [job(1, 5, 9), job(0, 0, 4), job(0, 4, 8), job(1, 0, 6)];
    assert_eq!(double_booked_gpu(&jobs, 2), Some(1));
    assert_eq!(double_booked_gpu(&jobs[..3], 2), None);
}

/// `tenantsim run SCENARIO --out OUT --quiet --no-plots EXTRA` with
/// `TENANTSIM_SPILL_BYTES` set to `spill` (if any): its files, and how
/// many tasks the result cache served (`run.json`).
pub fn run_with_spill(
    scenario: &Path,
    spill: Option<&str>,
    extra: &[&str],
    out: &Path,
) -> (BTreeMap<PathBuf, Vec<u8>>, u64) {
    let mut cmd = tenantsim();
    if let Some(bytes) = spill {
        cmd.env("TENANTSIM_SPILL_BYTES", bytes);
    }
    cmd.arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--no-plots"])
        .args(extra)
        .assert()
        .success();
    let files = tree(out);
    let run_json = files.get(Path::new("run.json")).expect("run.json");
    let doc: serde_json::Value = serde_json::from_slice(run_json).expect("JSON");
    let served = doc["execution"]["from_cache"].as_u64().unwrap_or(0);
    (files, served)
}
