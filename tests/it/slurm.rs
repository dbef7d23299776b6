//! `tenantsim slurm` (issue 19): the scripts it writes, run by bash with a
//! stand-in `sbatch` and tenantsim (paths with spaces and quotes reach the
//! programs intact, the merge depends on the array), and on a real
//! one-node Slurm: a 4-shard array of the bundled sweep, merged, is byte
//! for byte the single-machine run.
//!
//! The real-Slurm test uses the controller that `SLURM_CONF` (or the
//! default configuration) names when `sinfo` answers; with
//! `TENANTSIM_REQUIRE_SLURM=1` and no controller answering it starts one
//! with `scripts/slurm-up` and stops it (by pid, `scripts/slurm-down`)
//! when it ends. Without Slurm and without that variable it skips with a
//! note; with the variable, no Slurm is a failure (CI, `.ci/run`).
#![cfg(unix)]

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{assert_same_result_files, repo, run_scenario, tenantsim};
use tenantsim::core::run::slurm::shell_quote;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tenantsim"))
}

/// A folder name with a space and a quote, so every script quotes paths.
const AWKWARD: &str = "a dir's name";

fn write_exe(path: &Path, text: &str) {
    fs::write(path, text).expect("write script");
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn run_bash(script: &Path, cwd: &Path, env: &[(&str, &str)]) -> Output {
    let out = Command::new("bash")
        .arg(script)
        .current_dir(cwd)
        .envs(env.iter().copied())
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{} failed: {}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The arguments a stand-in program recorded, one call per line, the
/// arguments separated by `|`.
fn calls(log: &Path) -> Vec<String> {
    fs::read_to_string(log)
        .expect("stand-in was called")
        .lines()
        .map(str::to_string)
        .collect()
}

/// A stand-in that appends its arguments to `log` (one line per call,
/// `|`-separated) and prints `stdout`.
fn recorder(path: &Path, log: &Path, stdout: &str) {
    write_exe(
        path,
        &format!(
            "#!/bin/bash\n(IFS='|'; echo \"$*\") >> '{}'\n{stdout}\n",
            log.display()
        ),
    );
}

#[test]
fn slurm_writes_three_executable_scripts_naming_this_binary_and_refuses_to_overwrite_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = tmp.path();
    let scenario = repo("scenarios/sweep.toml");
    let out = tenantsim()
        .current_dir(cwd)
        .args(["slurm", "--shards", "4", "--cpus", "2"])
        .arg(&scenario)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "wrote sweep-array.sbatch, sweep-merge.sbatch and sweep-submit.sh (4 shards of `sweep`, 96 tasks)"
        ),
        "{stderr}"
    );
    for name in [
        "sweep-array.sbatch",
        "sweep-merge.sbatch",
        "sweep-submit.sh",
    ] {
        let path = cwd.join(name);
        let mode = fs::metadata(&path).expect(name).permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "{name} is not executable: {mode:o}");
    }
    let array = fs::read_to_string(cwd.join("sweep-array.sbatch")).expect("array");
    let exe = fs::canonicalize(bin()).expect("binary path");
    assert!(
        array.contains(&format!(
            "exec {} run {} ",
            exe.display(),
            scenario.display()
        )),
        "the array script should call this binary by its absolute path:\n{array}"
    );
    assert!(array.contains("#SBATCH --array=0-3\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=2\n"));
    assert!(array.contains("--threads 2 --quiet"), "{array}");
    let merge = fs::read_to_string(cwd.join("sweep-merge.sbatch")).expect("merge");
    assert!(
        merge.contains(&format!(
            "\nout={}\n",
            shell_quote(&cwd.join("results/sweep").display().to_string())
        )) && merge.contains("--out \"$out\"\n"),
        "the merge goes to results/<name> by default:\n{merge}"
    );

    // A second run replaces nothing, names the file and says --force.
    fs::write(cwd.join("sweep-submit.sh"), "mine\n").expect("write");
    let again = tenantsim()
        .current_dir(cwd)
        .args(["slurm", "--shards", "2"])
        .arg(&scenario)
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("sweep-array.sbatch already exists: not replaced (pass --force"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(cwd.join("sweep-submit.sh")).expect("read"),
        "mine\n"
    );
    assert_eq!(
        fs::read_to_string(cwd.join("sweep-array.sbatch")).expect("read"),
        array
    );
    // --force replaces them.
    tenantsim()
        .current_dir(cwd)
        .args(["slurm", "--shards", "2", "--force", "--bin", "tenantsim"])
        .arg(&scenario)
        .assert()
        .success();
    let array = fs::read_to_string(cwd.join("sweep-array.sbatch")).expect("array");
    assert!(array.contains("#SBATCH --array=0-1\n"), "{array}");
    assert!(array.contains("exec tenantsim run "), "{array}");
}

/// The scripts run by bash with stand-ins for sbatch and tenantsim: every
/// path (with a space and a quote) arrives as one argument, the shard
/// index comes from `SLURM_ARRAY_TASK_ID`, the merge names every shard and
/// is submitted with `afterok` on the array's id.
#[test]
fn generated_scripts_pass_awkward_paths_intact_and_chain_the_merge_after_the_array() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = tmp.path().join(AWKWARD);
    let stubs = tmp.path().join("stubs");
    fs::create_dir_all(&cwd).expect("mkdir");
    fs::create_dir_all(&stubs).expect("mkdir");
    let scenario = cwd.join("my scenario.toml");
    fs::copy(repo("scenarios/quickstart.toml"), &scenario).expect("copy");
    // The copied scenario's trace path is relative to its folder.
    let text = fs::read_to_string(&scenario).expect("read");
    let trace = repo("traces");
    fs::write(
        &scenario,
        text.replace("\"../traces/", &format!("\"{}/", trace.display())),
    )
    .expect("write");
    let fake_tenantsim = stubs.join("fake tenantsim");
    let tenantsim_log = tmp.path().join("tenantsim.log");
    recorder(&fake_tenantsim, &tenantsim_log, "");
    let sbatch_log = tmp.path().join("sbatch.log");
    // sbatch --parsable prints `id;cluster` on federated clusters: the
    // submit script keeps the id.
    recorder(
        &stubs.join("sbatch"),
        &sbatch_log,
        "n=$(wc -l < \"$(dirname \"$0\")/../sbatch.log\"); echo \"$((41 + n));cluster\"",
    );
    let cache = tmp.path().join("the cache");
    tenantsim()
        .current_dir(&cwd)
        .args([
            "slurm",
            "--shards",
            "3",
            "--partition",
            "short",
            "--time",
            "10:00",
        ])
        .arg(&scenario)
        .arg("--bin")
        .arg(&fake_tenantsim)
        .arg("--cache")
        .arg(&cache)
        .assert()
        .success();
    let name = "quickstart";
    let path = std::env::var("PATH").unwrap_or_default();
    let path = format!("{}:{path}", stubs.display());

    let submit = run_bash(
        &cwd.join(format!("{name}-submit.sh")),
        tmp.path(),
        &[("PATH", &path)],
    );
    let logs = cwd.join("results/quickstart.slurm-logs");
    assert!(logs.is_dir(), "the submit script makes the logs folder");
    let cwd_s = cwd.display().to_string();
    assert_eq!(
        calls(&sbatch_log),
        vec![
            format!(
                "--parsable|--chdir={cwd_s}|--output={}/array-%A_%a.out|{cwd_s}/{name}-array.sbatch",
                logs.display()
            ),
            format!(
                "--parsable|--chdir={cwd_s}|--output={}/merge-%j.out|--dependency=afterok:42|\
                 --kill-on-invalid-dep=yes|{cwd_s}/{name}-merge.sbatch",
                logs.display()
            ),
        ]
    );
    let said = String::from_utf8_lossy(&submit.stdout);
    assert!(
        said.starts_with("array job 42 (3 shards), merge job 43\n"),
        "{said}"
    );

    // The array script as Slurm runs it: task 2 of 3.
    run_bash(
        &cwd.join(format!("{name}-array.sbatch")),
        tmp.path(),
        &[("SLURM_ARRAY_TASK_ID", "2")],
    );
    run_bash(&cwd.join(format!("{name}-merge.sbatch")), tmp.path(), &[]);
    let shard = |i: u32| format!("{cwd_s}/results/quickstart.shard-{i}-of-3");
    assert_eq!(
        calls(&tenantsim_log),
        vec![
            format!(
                "run|{}|--shard|2/3|--out|{}|--threads|1|--cache|{}|--quiet",
                scenario.display(),
                shard(2),
                cache.display()
            ),
            format!(
                "merge|{}|{}|{}|--out|{cwd_s}/results/quickstart",
                shard(0),
                shard(1),
                shard(2)
            ),
        ]
    );
    // Outside a job array the array script stops with a message.
    let out = Command::new("bash")
        .arg(cwd.join(format!("{name}-array.sbatch")))
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .expect("bash runs");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a Slurm job array task"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A one-node Slurm for the real test: one that answers already, or one
/// started by `scripts/slurm-up` (stopped, by pid, on drop).
struct Cluster {
    /// The state folder of a cluster this test started.
    started: Option<(tempfile::TempDir, PathBuf)>,
    /// `SLURM_CONF` for the Slurm commands, when not inherited.
    conf: Option<PathBuf>,
}

impl Cluster {
    fn env(&self, cmd: &mut Command) {
        if let Some(conf) = &self.conf {
            cmd.env("SLURM_CONF", conf);
        }
    }

    fn slurm(&self, program: &str, args: &[&str]) -> Option<Output> {
        let mut cmd = Command::new(program);
        cmd.args(args);
        self.env(&mut cmd);
        cmd.output().ok()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some((_, state)) = &self.started {
            let status = Command::new(repo("scripts/slurm-down")).arg(state).status();
            if !matches!(status, Ok(s) if s.success()) {
                eprintln!(
                    "slurm test: scripts/slurm-down {} failed: {status:?}",
                    state.display()
                );
            }
        }
    }
}

/// `sinfo` answers (a controller is up and this user may talk to it).
fn controller_answers(conf: Option<&Path>) -> bool {
    let mut cmd = Command::new("sinfo");
    cmd.args(["-h", "-o", "%t"]);
    if let Some(c) = conf {
        cmd.env("SLURM_CONF", c);
    }
    cmd.output().is_ok_and(|o| o.status.success())
}

/// The cluster to use, or `None` (skip) when there is none and none is
/// required.
fn cluster() -> Option<Cluster> {
    let required = std::env::var("TENANTSIM_REQUIRE_SLURM").is_ok_and(|v| v == "1");
    if controller_answers(None) {
        return Some(Cluster {
            started: None,
            conf: None,
        });
    }
    if !required {
        eprintln!(
            "note: no Slurm controller answers `sinfo`: the real-Slurm test is skipped \
             (run scripts/slurm-up and export what it prints, or set TENANTSIM_REQUIRE_SLURM=1)"
        );
        return None;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("slurm");
    let started = Instant::now();
    let out = Command::new(repo("scripts/slurm-up"))
        .arg(&state)
        .output()
        .expect("scripts/slurm-up runs");
    let cluster = Cluster {
        started: Some((dir, state.clone())),
        conf: Some(state.join("slurm.conf")),
    };
    assert!(
        out.status.success(),
        "TENANTSIM_REQUIRE_SLURM=1 and no Slurm: scripts/slurm-up failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "slurm test: started a one-node Slurm in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        controller_answers(cluster.conf.as_deref()),
        "slurm-up returned but sinfo does not answer"
    );
    Some(cluster)
}

fn run_json(bytes: &[u8]) -> serde_json::Value {
    serde_json::from_slice(bytes).expect("run.json is JSON")
}

/// A `run.json` without the fields it lists itself as `varying_fields`
/// (measurements, paths, how tasks were obtained: DESIGN §10.3), given as
/// `key`, `a.b` or `list[].key`.
fn without_varying(mut doc: serde_json::Value) -> serde_json::Value {
    fn remove(v: &mut serde_json::Value, path: &[&str]) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        let (key, each) = match first.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (*first, false),
        };
        let Some(obj) = v.as_object_mut() else {
            return;
        };
        if rest.is_empty() {
            obj.remove(key);
        } else if let Some(child) = obj.get_mut(key) {
            match (each, child.as_array_mut()) {
                (true, Some(items)) => items.iter_mut().for_each(|i| remove(i, rest)),
                _ => remove(child, rest),
            }
        }
    }
    let fields: Vec<String> = doc["varying_fields"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    for f in &fields {
        remove(&mut doc, &f.split('.').collect::<Vec<_>>());
    }
    doc
}

/// `JobState` of a job, from `scontrol show job` (kept `MinJobAge` after
/// it ends); `None` once Slurm forgot it.
fn job_state(cluster: &Cluster, id: &str) -> Option<String> {
    let out = cluster.slurm("scontrol", &["show", "job", id])?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find_map(|w| w.strip_prefix("JobState="))
        .map(str::to_string)
}

fn logs_text(dir: &Path) -> String {
    let mut text = String::new();
    if let Ok(entries) = fs::read_dir(dir) {
        let mut paths: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            text += &format!(
                "--- {}\n{}\n",
                p.display(),
                fs::read_to_string(&p).unwrap_or_default()
            );
        }
    }
    text
}

#[test]
fn real_slurm_runs_a_four_shard_sweep_whose_merge_is_byte_identical_to_one_machine() {
    let Some(cluster) = cluster() else {
        return;
    };
    let started = Instant::now();
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = tmp.path().join(AWKWARD);
    fs::create_dir_all(&cwd).expect("mkdir");
    let scenario = repo("scenarios/sweep.toml");
    let single = tmp.path().join("single");
    run_scenario("scenarios/sweep.toml", &single, &["--quiet"]);

    let cache = cwd.join("cache");
    let mut make = tenantsim();
    make.current_dir(&cwd)
        .args(["slurm", "--shards", "4", "--cpus", "1", "--time", "10:00"])
        .arg(&scenario)
        .arg("--cache")
        .arg(&cache);
    make.assert().success();
    let mut submit = Command::new("bash");
    submit.arg(cwd.join("sweep-submit.sh")).current_dir(&cwd);
    cluster.env(&mut submit);
    let out = submit.output().expect("submit runs");
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "sweep-submit.sh failed:\n{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merge_id = said
        .split_whitespace()
        .skip_while(|w| *w != "merge")
        .nth(2)
        .expect("submit prints `merge job ID`")
        .to_string();
    let logs = cwd.join("results/sweep.slurm-logs");
    let deadline = Instant::now() + Duration::from_secs(600);
    let state = loop {
        let state = job_state(&cluster, &merge_id);
        match state.as_deref() {
            Some("PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING") => {}
            Some(s) => break s.to_string(),
            None => break "forgotten".to_string(),
        }
        assert!(
            Instant::now() < deadline,
            "the merge job {merge_id} is still {state:?} after 600 s; logs:\n{}",
            logs_text(&logs)
        );
        sleep(Duration::from_millis(500));
    };
    assert_eq!(
        state,
        "COMPLETED",
        "merge job {merge_id} ended {state}; logs:\n{}",
        logs_text(&logs)
    );
    let merged = cwd.join("results/sweep");
    assert!(
        merged.join("sweep.csv").is_file(),
        "no merged sweep.csv; logs:\n{}",
        logs_text(&logs)
    );
    assert_same_result_files(&single, &merged, "4 Slurm shards merged vs one machine");
    // Every run.json too, but the fields documented to differ.
    let (ta, tb) = (common::tree(&single), common::tree(&merged));
    let mut run_jsons = 0;
    for (rel, bytes) in &ta {
        if rel.file_name().is_some_and(|n| n == "run.json") {
            let (a, b) = (run_json(bytes), run_json(&tb[rel]));
            assert_eq!(
                without_varying(a.clone()),
                without_varying(b.clone()),
                "{} differs beyond the varying fields",
                rel.display()
            );
            run_jsons += 1;
            if rel.parent().is_some_and(|p| p.as_os_str().is_empty()) {
                continue; // the sweep's own run.json
            }
            let tasks = &b["execution"]["tasks"];
            assert!(
                tasks.as_u64().is_some_and(|t| t > 0),
                "{}: {b}",
                rel.display()
            );
            assert_eq!(
                &b["execution"]["merged"],
                tasks,
                "{}: every task merged",
                rel.display()
            );
        }
    }
    assert!(run_jsons > 1, "a sweep writes one run.json per point");
    for i in 0..4 {
        assert!(
            cwd.join(format!("results/sweep.shard-{i}-of-4")).is_dir(),
            "shard {i}'s folder is missing"
        );
    }
    eprintln!(
        "slurm test: 4-shard sweep submitted, run, merged and compared in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// The code blocks of docs/DISTRIBUTED.md that show the scripts are what
/// the script generator writes for the command the page gives.
#[test]
fn distributed_md_shows_the_scripts_tenantsim_slurm_writes() {
    use tenantsim::core::run::slurm::{Cache, SlurmJob, slurm_scripts};
    let doc = fs::read_to_string(repo("docs/DISTRIBUTED.md")).expect("docs/DISTRIBUTED.md");
    let block = |file: &str| -> String {
        let start = doc
            .find(&format!("`{file}`:\n\n```bash\n"))
            .unwrap_or_else(|| panic!("DISTRIBUTED.md shows {file}"));
        let body = &doc[start..];
        let body = &body[body.find("```bash\n").expect("fence") + "```bash\n".len()..];
        body[..body.find("```").expect("closing fence")].to_string()
    };
    // `tenantsim slurm scenarios/sweep.toml --shards 4 --cpus 2 --time
    // 1:00:00 --partition short --cache /tmp/study/cache --bin
    // /opt/tenantsim/bin/tenantsim`, run in /tmp/study.
    let root = Path::new("/tmp/study");
    let job = SlurmJob {
        name: "sweep",
        scenario: &root.join("scenarios/sweep.toml"),
        shards: 4,
        bin: Path::new("/opt/tenantsim/bin/tenantsim"),
        workdir: root,
        out: &root.join("results/sweep"),
        partition: Some("short"),
        time: Some("1:00:00"),
        cpus: 2,
        // What `tenantsim slurm` asks for: the sweep's estimate at 2 threads.
        mem: tenantsim::run::name_tasks_and_memory(
            &repo("scenarios/sweep.toml"),
            &tenantsim::registry::Registry::builtin(),
            2,
        )
        .expect("the sweep loads")
        .2,
        cache: Cache::Dir(root.join("cache")),
    };
    let s = slurm_scripts(&job).expect("scripts");
    assert_eq!(block("sweep-array.sbatch"), s.array);
    assert_eq!(block("sweep-merge.sbatch"), s.merge);
    assert_eq!(block("sweep-submit.sh"), s.submit);
}

/// Job-trace scenarios get scripts too (one runner, both modes).
#[test]
fn slurm_writes_scripts_for_a_job_mode_sweep() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tenantsim()
        .current_dir(tmp.path())
        .args(["slurm", "--shards", "3"])
        .arg(repo("scenarios/jobs-sweep.toml"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let array = fs::read_to_string(tmp.path().join("jobs-sweep-array.sbatch")).expect("array");
    assert!(array.contains("#SBATCH --array=0-2\n"), "{array}");
    // Job mode estimates its memory too (it made none before, so its
    // shards took the cluster's default): the largest point's at --cpus 1.
    let mib = array
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --mem=")?.strip_suffix('M'))
        .unwrap_or_else(|| panic!("no --mem line:\n{array}"));
    assert!(
        stderr.contains(&format!(
            "each shard asks Slurm for --mem={mib}M: the scenario's memory estimate at --cpus 1, "
        )),
        "{stderr}"
    );
    assert!(
        array.contains(&format!(
            "\nout={}\n",
            shell_quote(&tmp.path().join("results/jobs-sweep").display().to_string())
        )),
        "{array}"
    );
}

#[test]
fn slurm_refuses_an_out_the_merge_would_refuse_before_writing_any_script() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = repo("scenarios/quickstart.toml");
    let refused = |out: &str, fragment: &str| {
        let o = tenantsim()
            .current_dir(tmp.path())
            .arg("slurm")
            .arg(&scenario)
            .args(["--shards", "2", "--out", out])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "--out {out}: {stderr}");
        assert!(stderr.contains(fragment), "--out {out}: {stderr}");
        assert!(
            stderr.contains("no script written"),
            "--out {out}: {stderr}"
        );
        let written: Vec<_> = fs::read_dir(tmp.path())
            .expect("read_dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().starts_with("quickstart-"))
            .collect();
        assert!(
            written.is_empty(),
            "--out {out}: scripts written: {written:?}"
        );
    };
    // The issue's case: the current folder, where the merge job runs.
    refused(".", "it holds the working folder");
    // A folder above it.
    let parent = tmp.path().parent().expect("parent").display().to_string();
    refused(&parent, "it holds the working folder");
    // A folder of the user's that the merge (without --force) would refuse.
    fs::create_dir(tmp.path().join("mine")).expect("mkdir");
    fs::write(tmp.path().join("mine/notes.txt"), "mine").expect("write");
    refused("mine", "a folder tenantsim did not write");
    // A fine --out is accepted.
    let o = tenantsim()
        .current_dir(tmp.path())
        .arg("slurm")
        .arg(&scenario)
        .args(["--shards", "2", "--out", "results/q"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Before, the array asked Slurm for no memory: a shard took the
/// cluster's default (a share of a node, or a whole node, so array tasks
/// ran one at a time), whatever the scenario needed. Now it asks for the
/// scenario's memory estimate at `--cpus` threads, the figure a run at
/// that many threads states in `run.json` (checked here by running it),
/// in whole MiB rounded up; `--mem SIZE` overrides it, with a warning
/// when it is below the estimate.
#[test]
fn the_array_asked_slurm_for_no_memory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cwd = tmp.path();
    let scenario = repo("scenarios/quickstart.toml");
    let slurm = |extra: &[&str]| {
        let o = tenantsim()
            .current_dir(cwd)
            .args(["slurm", "--shards", "2", "--cpus", "2", "--force"])
            .args(extra)
            .arg(&scenario)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{stderr}");
        let array = fs::read_to_string(cwd.join("quickstart-array.sbatch")).expect("array");
        let mib: u64 = array
            .lines()
            .find_map(|l| {
                l.strip_prefix("#SBATCH --mem=")?
                    .strip_suffix('M')?
                    .parse()
                    .ok()
            })
            .unwrap_or_else(|| panic!("no --mem line:\n{array}"));
        (mib, stderr)
    };
    let (mib, stderr) = slurm(&[]);
    let o = tenantsim()
        .current_dir(cwd)
        .arg("run")
        .arg(&scenario)
        .args([
            "--threads",
            "2",
            "--no-cache",
            "--quiet",
            "--json",
            "--out",
            "r",
        ])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json");
    let estimate = doc["memory"]["estimate_bytes"]
        .as_u64()
        .expect("an estimate");
    assert_eq!(mib, estimate.div_ceil(1 << 20), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "each shard asks Slurm for --mem={mib}M: the scenario's memory estimate at --cpus 2, "
        )),
        "{stderr}"
    );
    // Given: taken as is.
    let (mib, stderr) = slurm(&["--mem", "2G"]);
    assert_eq!(mib, 2048);
    assert!(
        stderr.contains("each shard asks Slurm for --mem=2048M\n"),
        "{stderr}"
    );
    // Below the estimate: written, with a warning.
    let (mib, stderr) = slurm(&["--mem", "1M"]);
    assert_eq!(mib, 1);
    assert!(
        stderr
            .contains("warning: --mem 1.0 MiB is below the scenario's memory estimate at --cpus 2"),
        "{stderr}"
    );
}
