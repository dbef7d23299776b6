//! Job-trace mode through the real binary: `run`, `validate`,
//! `import-jobs`, determinism, and the mode switch.

use crate::common;
use common::{RESULTS_MARK, repo, run_scenario, tenantsim};

use tenantsim::core::testing::shared_data;

use std::fs;
use std::path::Path;

use predicates::str::contains;

fn run_quickstart(out: &Path, extra: &[&str]) {
    run_scenario("scenarios/jobs-quickstart.toml", out, extra);
}

#[test]
fn jobs_quickstart_writes_its_results_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/jobs-quickstart.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "--no-plots"])
        .assert()
        .success()
        .stderr(contains("(jobs mode)"))
        .stderr(contains("results in"));
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(
        lines[0],
        "policy,rep,jobs,mean_jct_s,median_jct_s,p95_jct_s,p99_jct_s,mean_queueing_delay_s,\
         makespan_s,gpu_utilization,jain_index,preemptions,events"
    );
    assert_eq!(lines.len(), 1 + 7);
    // FIFO of tests/it/jobs_hand.rs: JCTs 10, 11, 14, 14, 16; starts 0, 10,
    // 10, 16, 17 (waits 0, 9, 8, 13, 13); makespan 20 s; 33 GPU-s of 40.
    // p95: h = 4 · 0.95 = 3.8 → 14 + 0.8 · 2 = 15.6; p99 → 15.92.
    assert!(
        lines[1].starts_with(
            "fifo,0,5,13.000000,14.000000,15.600000,15.920000,8.600000,20.000000,0.825,"
        ),
        "{}",
        lines[1]
    );
    let srtf = lines
        .iter()
        .find(|l| l.starts_with("srtf,"))
        .expect("srtf row");
    assert!(srtf.starts_with("srtf,0,5,6.200000,3.000000,"), "{srtf}");
    assert!(srtf.contains(",2,"), "two preemptions: {srtf}");
    let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let mut jl = jobs.lines();
    assert_eq!(
        jl.next(),
        Some("policy,rep,job_id,user,submit_s,start_s,end_s,gpus")
    );
    assert_eq!(
        jl.next(),
        Some("fifo,0,j0,alice,0.000000,0.000000,10.000000,2")
    );
    assert_eq!(jobs.lines().count(), 1 + 7 * 5);
    let users = fs::read_to_string(out.join("users.csv")).expect("users.csv");
    assert!(users.starts_with("policy,rep,user,jobs,mean_jct_s,mean_slowdown,ftf_rho\n"));
    // alice (j0: 10/10, j2: 14/6): mean slowdown (1 + 7/3)/2, ρ = 24/16.
    assert!(users.contains("fifo,0,alice,2,12.000000,1.6666666666666667,1.5\n"));
    let util = fs::read_to_string(out.join("utilization.csv")).expect("utilization.csv");
    assert!(util.starts_with("policy,rep,time_s,duration_s,busy_gpus,utilization\n"));
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(manifest["mode"], "jobs");
    assert_eq!(manifest["job_trace"]["jobs"], 5);
    assert_eq!(manifest["cluster"]["gpus"], 2);
    assert_eq!(manifest["scenario"]["cluster"]["placement"], "consolidate");
    for entry in fs::read_dir(&out).expect("results folder") {
        let name = entry.expect("entry").file_name();
        assert!(
            name == RESULTS_MARK || !name.to_string_lossy().starts_with('.'),
            "left {name:?}"
        );
    }
}

#[test]
fn jobs_results_are_byte_identical_for_any_thread_count() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_quickstart(&a, &["--jobs", "--threads", "1"]);
    run_quickstart(&b, &["--jobs", "--threads", "2"]);
    for f in [
        "summary.csv",
        "jobs.csv",
        "users.csv",
        "utilization.csv",
        "plots/utilization.png",
        "plots/utilization.svg",
        "plots/jct-cdf.png",
        "plots/jct-cdf.svg",
    ] {
        assert_eq!(
            fs::read(a.join(f)).expect("read"),
            fs::read(b.join(f)).expect("read"),
            "{f} differs"
        );
    }
}

#[test]
fn json_summary_goes_to_stdout() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    let output = tenantsim()
        .arg("run")
        .arg(repo("scenarios/jobs-quickstart.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--json", "--quiet", "--no-plots"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    assert_eq!(doc["mode"], "jobs");
    assert_eq!(doc["policies"].as_array().map(Vec::len), Some(7));
    assert_eq!(doc["policies"][0]["mean_jct_s"]["mean"], 13.0);
    assert!(output.stderr.is_empty(), "--quiet prints nothing");
}

#[test]
fn sampled_jobs_differ_between_repetitions_but_not_between_policies() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("s.toml");
    fs::write(
        &scenario,
        format!(
            "mode = \"jobs\"\nname = \"sampled\"\nseed = 3\nrepetitions = 4\n\
             [jobs]\npath = \"{}\"\nsample = 3\n\
             [cluster]\nnodes = 1\ngpus_per_node = 2\n\
             [[policy]]\nname = \"a\"\nscheduler = \"fifo\"\n\
             [[policy]]\nname = \"b\"\nscheduler = \"sjf\"\n",
            repo("traces/jobs-hand.csv").display()
        ),
    )
    .expect("write");
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "--no-plots"])
        .assert()
        .success();
    let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let ids = |policy: &str, rep: u32| -> Vec<String> {
        jobs.lines()
            .filter(|l| l.starts_with(&format!("{policy},{rep},")))
            .map(|l| l.split(',').nth(2).unwrap_or("").to_string())
            .collect()
    };
    let reps: Vec<Vec<String>> = (0..4).map(|r| ids("a", r)).collect();
    for (r, set) in reps.iter().enumerate() {
        assert_eq!(set.len(), 3);
        assert_eq!(*set, ids("b", r as u32), "same sample for every policy");
    }
    assert!(reps.windows(2).any(|w| w[0] != w[1]), "samples should vary");
}

#[test]
fn validate_describes_job_scenarios_and_traces() {
    tenantsim()
        .arg("validate")
        .arg(repo("scenarios/jobs-quickstart.toml"))
        .assert()
        .success()
        .stderr(contains("ok: job scenario `jobs-quickstart`"))
        .stderr(contains("cluster: 1 nodes, 2 GPUs, placement consolidate"))
        .stderr(contains("policy `las`: scheduler las (preemptive)"));
    tenantsim()
        .arg("validate")
        .arg(repo("traces/jobs-hand.csv"))
        .assert()
        .success()
        .stderr(contains(
            "5 jobs of 3 users, 7 GPUs requested (largest job 2)",
        ));
}

#[test]
fn model_scenarios_accept_mode_models_and_reject_job_keys() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/quickstart.toml")).expect("quickstart");
    let with_mode = tmp.path().join("m.toml");
    fs::write(
        &with_mode,
        format!(
            "mode = \"models\"\n{}",
            text.replace(
                "../traces/hand.csv",
                &repo("traces/hand.csv").display().to_string()
            )
        ),
    )
    .expect("write");
    tenantsim()
        .arg("validate")
        .arg(&with_mode)
        .assert()
        .success()
        .stderr(contains("ok: scenario `quickstart`"));
    let as_jobs = tmp.path().join("j.toml");
    fs::write(&as_jobs, format!("mode = \"jobs\"\n{text}")).expect("write");
    tenantsim()
        .arg("validate")
        .arg(&as_jobs)
        .assert()
        .code(1)
        .stderr(contains("unknown field"));
}

/// Import the real Alibaba pod list through the command line and replay it
/// on its own node list.
#[test]
fn import_jobs_alibaba_then_replay_on_its_node_list() {
    let Some(pods) = shared_data("alibaba-gpu-v2023/openb_pod_list_default.csv") else {
        return;
    };
    let Some(nodes) = shared_data("alibaba-gpu-v2023/openb_node_list_gpu_node.csv") else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let jobs = tmp.path().join("alibaba.csv");
    tenantsim()
        .args(["import-jobs", "alibaba"])
        .arg(&pods)
        .arg("--out")
        .arg(&jobs)
        .assert()
        .success()
        .stderr(contains(
            "8152 rows: 6203 jobs kept (6571 GPUs); skipped 1088 with no GPU, 861 that never ran",
        ));
    let scenario = tmp.path().join("s.toml");
    fs::write(
        &scenario,
        format!(
            "mode = \"jobs\"\nname = \"alibaba\"\n[jobs]\npath = \"alibaba.csv\"\n\
             [cluster]\nnode_list = \"{}\"\n[[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n",
            nodes.display()
        ),
    )
    .expect("write");
    tenantsim()
        .arg("validate")
        .arg(&scenario)
        .assert()
        .success()
        .stderr(contains("cluster: 1213 nodes, 6212 GPUs"));
    let out = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--no-plots"])
        .assert()
        .success();
    let summary = fs::read_to_string(out.join("summary.csv")).expect("summary");
    assert!(
        summary
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("fifo,0,6203,"))
    );
}

/// Regression (issue 27): an under-loaded job scenario, where every
/// scheduler gives the same result, ran without a word, and job-mode
/// `run.json` had no `warnings`. The 5-job hand trace on 50 nodes of 2
/// GPUs: no job waits, so each ends at submit + duration (10, 3, 8, 4,
/// 7 s): JCTs 10, 2, 6, 1, 3 (mean 4.4 s), makespan 10 s, GPU-time held
/// 2·10 + 2 + 6 + 2·1 + 3 = 33 GPU-s of 100 × 10: utilisation 3.3 %.
#[test]
fn under_loaded_job_run_where_policies_agree_is_warned_in_run_json_and_stderr() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("idle.toml");
    fs::write(
        &scenario,
        format!(
            "mode = \"jobs\"\nname = \"idle\"\nseed = 1\nrepetitions = 1\n\
             [jobs]\npath = \"{}\"\n[cluster]\nnodes = 50\ngpus_per_node = 2\n\
             [[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n\
             [[policy]]\nname = \"sjf\"\nscheduler = \"sjf\"\n",
            repo("traces/jobs-hand.csv").display()
        ),
    )
    .expect("write scenario");
    let out = tmp.path().join("res");
    let assert = tenantsim()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .arg("--no-plots")
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    let under = "warning: `idle`: the cluster is under-loaded: GPU utilisation is at most 3.3 % under every policy (below 10 %)";
    let same = "warning: `idle`: every policy gives the same result (mean JCT 4.4 s, makespan 10 s): the 2 policies cannot be told apart on this workload";
    assert!(stderr.contains(under), "{stderr}");
    assert!(stderr.contains(same), "{stderr}");
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("JSON");
    let warnings: Vec<&str> = manifest["warnings"]
        .as_array()
        .expect("warnings list")
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let prefix = "warning: `idle`: ";
    assert!(
        warnings[0].starts_with(&under[prefix.len()..]),
        "{warnings:?}"
    );
    assert_eq!(warnings[1], &same[prefix.len()..]);
}

/// The hand scenario itself (one node of 2 GPUs, 82.5 % busy under FIFO,
/// schedulers that differ) gets no warning.
#[test]
fn busy_job_run_whose_policies_differ_has_an_empty_warnings_list() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("res");
    run_quickstart(&out, &["--no-plots"]);
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("run.json")).expect("run.json"))
            .expect("JSON");
    assert_eq!(manifest["warnings"], serde_json::json!([]));
}
