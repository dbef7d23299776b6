//! Limits from memory for the workflows (issue 34, DESIGN §8.5
//! "Workflows"): their memory is estimated and checked with the rest of a
//! shared scenario before anything runs, `gen workflows` checks its own,
//! and neither aborts on an allocation.

use std::fs;
use std::path::Path;
use std::process::Command;

use super::memory_estimate::{
    assert_bounds_growth, binary, bytes_stated, growths_at, stated_estimate_at, stderr,
};
use tenantsim::jobs::footprint::ESTIMATE_FACTOR;
use tenantsim::shared::workflows_footprint::FIGURES_BYTES;
use tenantsim::shared::workflows_report::WorkflowMetrics;

/// `tenantsim ARGS` in `dir`.
fn tenantsim(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(binary())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs")
}

/// A workflows-only shared scenario over `w<n>.csv` (64 GPUs and 512
/// CPUs; an LRU cache; two retries).
fn workflows_scenario(n: u64) -> String {
    format!(
        "mode = \"shared\"\nname = \"wf\"\nseed = 1\nrepetitions = 2\n\
         [cluster]\nnodes = 8\ngpus_per_node = 8\ncpus_per_node = 64\nscheduler = \"fifo\"\n\
         [workflows]\npath = \"w{n}.csv\"\n\
         [workflows.cache]\ncapacity_bytes = 100_000_000_000\n\
         [workflows.retry]\nmax_retries = 2\n\
         [[policy]]\nname = \"lru\"\ncache = \"lru\"\n"
    )
}

/// The workflows of a shared scenario were estimated nowhere: their
/// trace, their runs' jobs, steps and cache and their results were held
/// unchecked (a 160,000-step run peaked at 141,224 KB against no
/// estimate; release build). Now `validate` states `workflows memory`
/// and the estimate grows by at least what the peak RSS grows by, and at
/// most [`ESTIMATE_FACTOR`] times it, from 1,000 to 10,000 generated
/// pipelines (8,000 to 80,000 steps), on one thread with and without
/// `--jobs` and on two threads with `--jobs`. Measured when written
/// (release build, 2,000 → 20,000 pipelines, docs/PERFORMANCE.md "The
/// workflows' memory, estimated"): 1.18×, 1.34× and 1.52× (debug
/// build, these sizes: 1.13×, 1.27× and 1.58×).
#[test]
fn a_workflows_runs_memory_was_estimated_nowhere() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let sizes = [1_000u64, 10_000];
    for n in sizes {
        let o = tenantsim(
            &[
                "gen",
                "workflows",
                "--workflows",
                &n.to_string(),
                "--tenants",
                "40",
                "--rate",
                "1",
                "--out",
                &format!("w{n}.csv"),
            ],
            tmp.path(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for (what, threads, jobs) in [
        ("one thread", "1", false),
        ("one thread with --jobs", "1", true),
        ("two threads with --jobs", "2", true),
    ] {
        let dir = tmp.path().join(what.replace(' ', "-"));
        fs::create_dir(&dir).expect("mkdir");
        for n in sizes {
            fs::copy(
                tmp.path().join(format!("w{n}.csv")),
                dir.join(format!("w{n}.csv")),
            )
            .expect("copy");
        }
        let Some(growth) = growths_at(sizes, threads, workflows_scenario, &dir, jobs) else {
            eprintln!("note: GNU time is missing: the estimate was not measured");
            return;
        };
        assert_bounds_growth(&format!("workflows, {what}"), growth, ESTIMATE_FACTOR);
    }
    // The line validate states is the workflows' own.
    let dir = tmp.path().join("one-thread");
    let e = stated_estimate_at("s10000.toml", &dir, false, "1");
    let o = tenantsim(
        &[
            "validate",
            "s10000.toml",
            "--threads",
            "1",
            "--max-memory",
            "1T",
        ],
        &dir,
    );
    let text = stderr(&o);
    let line = text
        .lines()
        .find(|l| l.starts_with("  workflows memory (--threads 1): an estimated "))
        .unwrap_or_else(|| panic!("no workflows memory line in {text}"));
    assert_eq!(bytes_stated(line), e, "{line}");
    assert!(
        line.contains("workflow runs at once (1 of up to 80,000 jobs"),
        "{line}"
    );
    assert!(
        text.contains("  workflows: 10000 workflow(s) of 80000 step(s) from w10000.csv, load 1, up to 80,000 job(s) a run"),
        "{text}"
    );
}

/// The quickstart's workflows with `[workflows.retry] max_retries =
/// 4_000_000_000`: `validate` said `ok`, and `run` aborted on a 2.5 TB
/// allocation (signal 6): the engine's jobs are sized for every retry a
/// run may make. Now both exit 1 with the estimate, its largest item the
/// workflows' runs, before anything is allocated.
#[test]
fn a_workflows_retries_bound_aborted_an_allocation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join("scenarios/shared-workflows-quickstart.toml"))
        .expect("the quickstart")
        .replace("../traces/", &format!("{}/traces/", root.display()))
        .replace("max_retries = 2", "max_retries = 4_000_000_000");
    assert!(text.contains("max_retries = 4_000_000_000"), "{text}");
    fs::write(dir.join("s.toml"), &text).expect("write");
    for cmd in ["validate", "run"] {
        let o = tenantsim(&[cmd, "s.toml", "--max-memory", "64G"], dir);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{cmd}: {err}");
        assert!(
            err.contains("s.toml: needs an estimated ")
                && err.contains("workflow runs at once")
                && err.contains("more than the 64.0 GiB of `--max-memory`"),
            "{cmd}: {err}"
        );
    }
    // Every step may fail, so every workflow may retry: past what a run
    // can number (20 workflows × 4·10^9 retries each), refused by name,
    // whatever memory is allowed.
    let many = text
        .replace("max_retries = 4_000_000_000", "max_retries = 4_294_967_295")
        .replace(
            "split_overhead_s = 30",
            "split_overhead_s = 30\nfailure_p = 0.5",
        );
    fs::write(dir.join("many.toml"), many).expect("write");
    let o = tenantsim(&["validate", "many.toml", "--max-memory", "1000T"], dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[workflows]: a run's workflows may submit up to ")
            && err.contains("[workflows.retry] max_retries = 4294967295")
            && err.contains("more than the 4,294,967,295 one run can number"),
        "{err}"
    );
    // Without a step that can fail no retry is made: the bound is the
    // steps alone, and the scenario validates.
    let safe = text.replace(
        "split_overhead_s = 30",
        "split_overhead_s = 30\nfailure_p = 0.0",
    );
    fs::write(dir.join("safe.toml"), safe).expect("write");
    let o = tenantsim(&["validate", "safe.toml"], dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("up to 107 job(s) a run"), "{err}");
}

/// `tenantsim ARGS --out w.csv --max-memory 64G` in `dir` exits 1
/// naming `what`'s estimate and its item `item`, and writes nothing.
fn assert_refused_before_writing(args: &[&str], what: &str, item: &str, dir: &Path) {
    let mut all = args.to_vec();
    all.extend(["--out", "w.csv", "--max-memory", "64G"]);
    let o = tenantsim(&all, dir);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{what}: needs an estimated "))
            && err.contains(item)
            && err.contains("more than the 64.0 GiB of `--max-memory`"),
        "{err}"
    );
    assert!(!dir.join("w.csv").exists(), "nothing written");
}

/// `gen workflows --workflows 4000000000` aborted on a 352 GB allocation;
/// now it exits 1 with its estimate before generating anything.
#[test]
fn gen_workflows_of_four_billion_pipelines_aborted_an_allocation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    assert_refused_before_writing(
        &["gen", "workflows", "--workflows", "4000000000"],
        "gen workflows",
        "rows (32,000,000,000 steps)",
        tmp.path(),
    );
    // The default size passes and is written.
    let o = tenantsim(&["gen", "workflows", "--out", "w.csv"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(tmp.path().join("w.csv").exists());
}

/// `import-workflows --copies 4000000000` aborted on a 4.2 TB allocation
/// (the rows of every copy are made before they are written); now it
/// exits 1 with its estimate. The estimate's growth from 20,000 to
/// 200,000 copies of a five-task instance was 1.72× the peak's (release
/// build: 59,376 → 517,124 KB, 114.9 → 882.2 MiB estimated).
#[test]
fn import_workflows_of_four_billion_copies_aborted_an_allocation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("x.json"), super::wfformat::V15).expect("write");
    assert_refused_before_writing(
        &[
            "import-workflows",
            "wfformat",
            "x.json",
            "--copies",
            "4000000000",
        ],
        "import-workflows",
        "rows (8,000,000,000 steps)",
        tmp.path(),
    );
    let o = tenantsim(
        &[
            "import-workflows",
            "wfformat",
            "x.json",
            "--out",
            "w.csv",
            "--copies",
            "3",
        ],
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = fs::read_to_string(tmp.path().join("w.csv")).expect("written");
    assert_eq!(rows.lines().count(), 1 + 3 * 2, "{rows}");
}

/// A scenario of workflows only made no estimate: its `run.json` stated
/// `estimate_bytes: null` beside its peak, and `slurm` asked for no
/// memory. Now the run states the estimate `validate` describes.
#[test]
fn a_workflows_only_runs_json_stated_no_estimate() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = root.join("scenarios/shared-workflows-quickstart.toml");
    let scenario = scenario.to_str().expect("a UTF-8 path");
    let o = tenantsim(
        &[
            "run",
            scenario,
            "--threads",
            "1",
            "--no-cache",
            "--quiet",
            "--no-plots",
            "--json",
            "--out",
            "r",
        ],
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json");
    let estimate = doc["memory"]["estimate_bytes"]
        .as_u64()
        .unwrap_or_else(|| panic!("no estimate: {}", doc["memory"]));
    let stated = stated_estimate_at(scenario, tmp.path(), false, "1");
    // `validate` states it in MiB with one decimal.
    assert!(
        estimate.abs_diff(stated) <= 1 << 17,
        "run.json {estimate} B, validate {stated} B"
    );
}

/// The figures a fold keeps per run are counted by their layout.
#[test]
fn the_workflow_figures_bytes_are_their_layout() {
    assert_eq!(size_of::<(usize, WorkflowMetrics)>() as u64, FIGURES_BYTES);
}
