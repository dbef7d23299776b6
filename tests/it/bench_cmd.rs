//! `tenantsim bench` is wired into the command line. (The workloads are
//! checked, tiny, by the unit test in `src/bench.rs`; the full run is a
//! timing tool, not a test: no timed assertions anywhere.)

use assert_cmd::Command;
use predicates::str::contains;

#[test]
fn bench_is_a_subcommand_with_quick_and_threads() {
    Command::cargo_bin("tenantsim")
        .expect("binary built")
        .args(["bench", "--help"])
        .assert()
        .success()
        .stdout(contains("--quick"))
        .stdout(contains("--threads"));
    Command::cargo_bin("tenantsim")
        .expect("binary built")
        .args(["bench", "--threads", "0"])
        .assert()
        .code(2);
}
