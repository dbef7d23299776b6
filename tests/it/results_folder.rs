//! Results folders are safe (issue 14, D1): `run` and `plot --out` never
//! replace a folder tenantsim did not write (unless `--force`), never one
//! holding the scenario, its trace, the plotted results or the current
//! directory (not even with `--force`), and resolve what killed runs left.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{RESULTS_MARK, repo, tenantsim};

/// Every entry under `root` (hidden ones included): files with their
/// bytes, folders as `None`.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
        for entry in fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path.strip_prefix(root).expect("prefix").to_path_buf();
            if path.is_dir() {
                out.insert(rel, None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(fs::read(&path).expect("read")));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// `root/proj/s.toml` with its trace in `root/proj/traces/hand.csv`, and a
/// user's folder `root/mydata` with a file and a subfolder.
fn layout(root: &Path) -> PathBuf {
    let proj = root.join("proj");
    fs::create_dir_all(proj.join("traces")).expect("mkdir");
    fs::copy(repo("traces/hand.csv"), proj.join("traces/hand.csv")).expect("copy trace");
    let scenario = proj.join("s.toml");
    fs::write(
        &scenario,
        "name = \"s\"\n[trace]\npath = \"traces/hand.csv\"\n[cluster]\ngpus = 1\n\
         [output]\nplots = false\n\
         [[policy]]\nname = \"p\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n",
    )
    .expect("write scenario");
    fs::create_dir_all(root.join("mydata/sub")).expect("mkdir");
    fs::write(root.join("mydata/thesis.txt"), "precious\n").expect("write");
    fs::write(root.join("mydata/sub/notes.md"), "notes\n").expect("write");
    scenario
}

fn run_in(cwd: &Path, scenario: &Path, out: &str, extra: &[&str]) -> Output {
    tenantsim()
        .current_dir(cwd)
        .arg("run")
        .arg(scenario)
        .args(["--out", out, "--quiet"])
        .args(extra)
        .output()
        .expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run, expect a refusal mentioning `why`, and that nothing under `root`
/// changed.
fn assert_refused(root: &Path, cwd: &Path, scenario: &Path, out: &str, extra: &[&str], why: &str) {
    let before = snapshot(root);
    let o = run_in(cwd, scenario, out, extra);
    let err = stderr(&o);
    assert_ne!(
        o.status.code(),
        Some(0),
        "--out {out} {extra:?} must fail: {err}"
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(why),
        "--out {out}: message lacks `{why}`: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        snapshot(root),
        before,
        "--out {out} {extra:?}: every file must stay as it was"
    );
}

#[test]
fn a_folder_with_a_user_file_is_not_replaced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    assert_refused(
        root,
        root,
        &s,
        "mydata",
        &[],
        "not a results folder written by tenantsim",
    );
    let o = run_in(root, &s, "mydata", &[]);
    assert!(stderr(&o).contains("--force"), "says how to proceed");
}

#[test]
fn the_scenarios_own_folder_is_not_replaced_even_with_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    for extra in [&[][..], &["--force"][..]] {
        assert_refused(root, root, &s, "proj", extra, "holds the scenario file");
    }
}

#[test]
fn the_traces_folder_is_not_replaced_even_with_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    for extra in [&[][..], &["--force"][..]] {
        assert_refused(root, root, &s, "proj/traces", extra, "holds the trace");
    }
}

#[test]
fn a_parent_of_earlier_results_is_not_replaced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    for name in ["results/a", "results/b"] {
        let o = run_in(root, &s, name, &[]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_refused(
        root,
        root,
        &s,
        "results",
        &[],
        "not a results folder written by tenantsim",
    );
}

#[test]
fn the_current_directory_is_not_replaced_even_with_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    let work = root.join("work");
    fs::create_dir(&work).expect("mkdir");
    fs::write(work.join("draft.txt"), "mine\n").expect("write");
    for out in [".", "../work", "./sub/..", "../work/"] {
        for extra in [&[][..], &["--force"][..]] {
            assert_refused(root, &work, &s, out, extra, "holds the current directory");
        }
    }
    assert_refused(
        root,
        &work,
        &s,
        "..",
        &["--force"],
        "refusing to write results to ..",
    );
    // An empty current directory is protected too.
    let empty = root.join("empty");
    fs::create_dir(&empty).expect("mkdir");
    assert_refused(
        root,
        &empty,
        &s,
        "../empty",
        &["--force"],
        "holds the current directory",
    );
}

#[cfg(unix)]
#[test]
fn a_link_to_the_scenarios_folder_is_not_replaced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    std::os::unix::fs::symlink(root.join("proj"), root.join("link")).expect("link");
    assert_refused(
        root,
        root,
        &s,
        "link",
        &["--force"],
        "holds the scenario file",
    );
}

#[test]
fn a_rerun_over_earlier_results_replaces_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    // The earlier run writes jobs.csv, the later one does not: the
    // earlier run's file must go with its folder. (Until 2026-12-06 this
    // test added a file of its own for that; a file the user adds is now
    // kept, `a_rerun_deleted_the_files_the_user_added_to_its_results`.)
    let o = run_in(root, &s, "r", &["--seed", "1", "--jobs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        root.join("r").join(RESULTS_MARK).is_file(),
        "results are marked"
    );
    assert!(root.join("r/jobs.csv").is_file());
    let o = run_in(root, &s, "r", &["--seed", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !root.join("r/jobs.csv").exists(),
        "the old folder was replaced"
    );
    let manifest = fs::read_to_string(root.join("r/run.json")).expect("run.json");
    assert!(manifest.contains("\"seed\": 2"), "{manifest}");
    let hidden: Vec<_> = fs::read_dir(root)
        .expect("ls")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "no staging folder is left: {hidden:?}");
}

/// A re-run replaced a results folder as a whole, files the user had put
/// in it since included (found by a first-contact audit, 2026-12-06: notes
/// kept beside the results were gone). The mark now lists what tenantsim
/// wrote; a folder holding anything else is refused (exit 1, every file as
/// it was) unless `--force`. What tenantsim's own later commands write
/// there (`plot`'s `plots/`, `report`'s `report.html`) does not count, nor
/// does a folder written before the marks listed their entries.
#[test]
fn a_rerun_deleted_the_files_the_user_added_to_its_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mark = fs::read_to_string(root.join("r").join(RESULTS_MARK)).expect("mark");
    assert!(
        mark.lines().any(|l| l == "summary.csv") && mark.lines().any(|l| l == "run.json"),
        "{mark}"
    );
    // tenantsim's own later outputs: the re-run replaces them.
    for args in [&["plot", "r"][..], &["report", "r"]] {
        let o = tenantsim()
            .current_dir(root)
            .args(args)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    assert!(root.join("r/plots").is_dir() && root.join("r/report.html").is_file());
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!root.join("r/report.html").exists());
    // The user's notes and notebook folder: refused, named, kept.
    fs::write(root.join("r/analysis.txt"), "mine\n").expect("write");
    fs::create_dir(root.join("r/notebooks")).expect("mkdir");
    assert_refused(
        root,
        root,
        &s,
        "r",
        &[],
        "it also holds entries it did not write (`analysis.txt`, `notebooks`)",
    );
    assert!(stderr(&run_in(root, &s, "r", &[])).contains("--force"));
    // With --force the folder is replaced, as asked.
    let o = run_in(root, &s, "r", &["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!root.join("r/analysis.txt").exists());
    // A folder marked before the marks listed their entries: replaced as
    // a whole, as it was then.
    fs::write(root.join("r/analysis.txt"), "mine\n").expect("write");
    let first_line = mark.lines().next().expect("a line").to_string() + "\n";
    fs::write(root.join("r").join(RESULTS_MARK), first_line).expect("old mark");
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!root.join("r/analysis.txt").exists());
}

#[test]
fn results_written_before_the_mark_existed_are_replaced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    fs::remove_file(root.join("r").join(RESULTS_MARK)).expect("unmark");
    let o = run_in(root, &s, "r", &[]);
    assert!(
        o.status.success(),
        "run.json names tenantsim: {}",
        stderr(&o)
    );
    // A run.json of another tool is not enough.
    fs::remove_file(root.join("r").join(RESULTS_MARK)).expect("unmark");
    fs::write(root.join("r/run.json"), "{\"tool\": \"other\"}").expect("write");
    assert_refused(root, root, &s, "r", &[], "not a results folder");
}

#[test]
fn force_replaces_a_results_folder_and_a_users_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    fs::write(root.join("r/extra.txt"), "x").expect("write");
    let o = run_in(root, &s, "r", &["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!root.join("r/extra.txt").exists());
    assert!(root.join("r/summary.csv").is_file());
    let o = run_in(root, &s, "mydata", &["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !root.join("mydata/thesis.txt").exists(),
        "--force replaced it"
    );
    assert!(root.join("mydata/summary.csv").is_file());
    assert!(root.join("mydata").join(RESULTS_MARK).is_file());
}

#[test]
fn an_empty_folder_is_used_without_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    fs::create_dir(root.join("fresh")).expect("mkdir");
    let o = run_in(root, &s, "fresh", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(root.join("fresh/summary.csv").is_file());
}

#[test]
fn job_mode_refuses_a_users_folder_and_its_trace_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    layout(root);
    let jobs = root.join("jobs");
    fs::create_dir(&jobs).expect("mkdir");
    fs::copy(repo("traces/jobs-hand.csv"), jobs.join("jobs-hand.csv")).expect("copy");
    let s = root.join("j.toml");
    fs::write(
        &s,
        "mode = \"jobs\"\nname = \"j\"\n[jobs]\npath = \"jobs/jobs-hand.csv\"\n\
         [cluster]\nnodes = 1\ngpus_per_node = 2\n[output]\nplots = false\n\
         [[policy]]\nname = \"fifo\"\nscheduler = \"fifo\"\n",
    )
    .expect("write");
    assert_refused(
        root,
        root,
        &s,
        "mydata",
        &[],
        "not a results folder written by tenantsim",
    );
    assert_refused(root, root, &s, "jobs", &["--force"], "holds the job trace");
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "rerun replaces: {}", stderr(&o));
}

#[test]
fn leftovers_of_a_killed_run_are_reported_and_resolved_by_the_next_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    // A run (a process id no kernel gives) killed between the two renames:
    // the earlier results aside, the new ones staged, no `r`.
    let dead = 4_000_000_000u32;
    let old = root.join(format!(".r.old-{dead}"));
    let partial = root.join(format!(".r.partial-{dead}"));
    for d in [&old, &partial] {
        fs::create_dir(d).expect("mkdir");
        fs::write(d.join(RESULTS_MARK), "").expect("mark");
        fs::write(d.join("summary.csv"), "x").expect("write");
    }
    let o = run_in(root, &s, "r", &[]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!("restored {}", root.join("r").display())),
        "{err}"
    );
    assert!(err.contains("unfinished results"), "{err}");
    assert!(!old.exists() && !partial.exists());
    let hidden = fs::read_dir(root)
        .expect("ls")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(hidden, 0);
    assert_ne!(fs::read(root.join("r/summary.csv")).expect("new"), b"x");
}

#[test]
fn a_leftover_that_is_not_tenantsims_is_left_alone() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    let odd = root.join(".r.partial-4000000000");
    fs::create_dir(&odd).expect("mkdir");
    fs::write(odd.join("mine.txt"), "mine").expect("write");
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("left"), "{}", stderr(&o));
    assert_eq!(fs::read(odd.join("mine.txt")).expect("kept"), b"mine");
}

#[cfg(target_os = "linux")]
#[test]
fn a_mount_point_fails_before_the_simulation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    if !Path::new("/proc/self").exists() {
        return;
    }
    let o = run_in(root, &s, "/proc", &["--force"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is a mount point"), "{}", stderr(&o));
}

#[test]
fn plot_out_refuses_a_users_folder_and_the_plotted_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let s = layout(root);
    let o = run_in(root, &s, "r", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plot = |out: &str, extra: &[&str]| {
        tenantsim()
            .current_dir(root)
            .args(["plot", "r", "--format", "svg", "--out", out])
            .args(extra)
            .output()
            .expect("runs")
    };
    for (out, extra, why) in [
        (
            "mydata",
            &[][..],
            "not a results folder written by tenantsim",
        ),
        (
            "r",
            &["--force"][..],
            "holds the results folder being plotted",
        ),
        (".", &["--force"][..], "holds"),
    ] {
        let before = snapshot(root);
        let o = plot(out, extra);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
        assert_eq!(snapshot(root), before, "plot --out {out}: nothing changed");
    }
    // A figures folder it wrote is replaced by the next plot: the PNG of
    // the earlier one goes with it. (Until 2026-12-06 this test added a
    // file of its own for that; a file the user adds is now kept,
    // `a_rerun_deleted_the_files_the_user_added_to_its_results`.)
    let o = tenantsim()
        .current_dir(root)
        .args(["plot", "r", "--format", "png", "--out", "figs"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(root.join("figs/regret.png").is_file());
    let o = plot("figs", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!root.join("figs/regret.png").exists());
    assert!(root.join("figs/regret.svg").is_file());
    fs::write(root.join("figs/mine.svg"), "x").expect("write");
    let o = plot("figs", &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("`mine.svg`"), "{}", stderr(&o));
    assert!(root.join("figs/mine.svg").is_file());
    fs::remove_file(root.join("figs/mine.svg")).expect("rm");
    let o = plot("figs", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(root.join("figs/regret.svg").is_file());
    assert!(
        stderr(&o).contains("figs/regret.svg"),
        "names the final paths"
    );
    // The results folder's own plots/ may be rewritten.
    let o = tenantsim()
        .current_dir(root)
        .args(["plot", "r", "--format", "svg"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(root.join("r/plots/regret.svg").is_file());
    let o = plot("r/plots", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_sweep_refuses_a_users_folder_and_replaces_its_own() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    layout(root);
    let sweep = repo("scenarios/sweep.toml");
    assert_refused(
        root,
        root,
        &sweep,
        "mydata",
        &["--reps", "1", "--no-plots"],
        "not a results folder written by tenantsim",
    );
    for _ in 0..2 {
        let o = run_in(root, &sweep, "sw", &["--reps", "1", "--no-plots"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert!(root.join("sw").join(RESULTS_MARK).is_file());
    assert!(root.join("sw/sweep.csv").is_file());
}
