//! `tenantsim check`: passes on a fresh run of the bundled scenario against
//! its golden results, and fails when any golden number is perturbed.

use crate::common;
use common::{repo, tenantsim};

use std::fs;
use std::path::{Path, PathBuf};

use predicates::str::contains;

fn fresh_quickstart(dir: &Path) -> PathBuf {
    let out = dir.join("quickstart");
    tenantsim()
        .args(["run", "--quiet", "--no-plots", "--out"])
        .arg(&out)
        .arg(repo("scenarios/quickstart.toml"))
        .assert()
        .success();
    out
}

#[test]
fn fresh_run_matches_golden() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = fresh_quickstart(tmp.path());
    tenantsim()
        .arg("check")
        .arg(&out)
        .arg("--against")
        .arg(repo("tests/golden/quickstart"))
        .assert()
        .success()
        .stderr(contains("ok: 640 values"));
}

#[test]
fn perturbed_golden_number_fails_the_check() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = fresh_quickstart(tmp.path());
    let golden = tmp.path().join("golden");
    fs::create_dir_all(&golden).expect("mkdir");
    let text = fs::read_to_string(repo("tests/golden/quickstart/summary.csv")).expect("golden");
    // rr-in-order rep 0 has cumulative regret 15.3; move it by 1e-6 relative.
    let perturbed = text.replacen(
        "rr-in-order,0,3,0,15.3,",
        "rr-in-order,0,3,0,15.3000153,",
        1,
    );
    assert_ne!(perturbed, text, "the golden row to perturb exists");
    fs::write(golden.join("summary.csv"), perturbed).expect("write");
    tenantsim()
        .arg("check")
        .arg(&out)
        .arg("--against")
        .arg(&golden)
        .assert()
        .code(1)
        .stderr(contains("cumulative_regret"))
        .stderr(contains("15.3000153"))
        .stderr(contains("1 of 640 values drifted"));
    // A loose enough tolerance accepts it.
    tenantsim()
        .arg("check")
        .arg(&out)
        .arg("--against")
        .arg(&golden)
        .args(["--rtol", "1e-5"])
        .assert()
        .success();
}

#[test]
fn different_thresholds_or_policies_fail_the_check() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = fresh_quickstart(tmp.path());
    let text = fs::read_to_string(repo("tests/golden/quickstart/summary.csv")).expect("golden");
    let golden = tmp.path().join("g1");
    fs::create_dir_all(&golden).expect("mkdir");
    fs::write(
        golden.join("summary.csv"),
        text.replacen("time_to_0.2_s", "time_to_0.3_s", 1),
    )
    .expect("write");
    tenantsim()
        .arg("check")
        .arg(&out)
        .arg("--against")
        .arg(&golden)
        .assert()
        .code(1)
        .stderr(contains("columns differ"));
    let golden = tmp.path().join("g2");
    fs::create_dir_all(&golden).expect("mkdir");
    fs::write(
        golden.join("summary.csv"),
        text.replace("random-random", "other"),
    )
    .expect("write");
    tenantsim()
        .arg("check")
        .arg(&out)
        .arg("--against")
        .arg(&golden)
        .assert()
        .code(1)
        .stderr(contains("policies differ"));
}
