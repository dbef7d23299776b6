//! `mode = "shared"` around the engine (issue 29, DESIGN §13.4–13.5):
//! scenario loading and its errors, and the one-workload cases against
//! today's modes, byte for byte: every bundled model-mode scenario written
//! as a shared scenario (a `[service]` owning a cluster of G one-GPU
//! nodes, no `[jobs]`) gives model mode's `service/jobs.csv`,
//! `regret.csv`, `curves.csv` and `tenants.csv`; every bundled job-mode
//! scenario written without `[service]` gives job mode's files in
//! `background/`. Also: `low` priority leaves the background's files
//! unchanged, and a shared run is the same on 1 and 2 threads, in shards
//! and from the cache.

use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::testing::scenario_data;
use tenantsim::jobs::policy::JobRegistry;
use tenantsim::models::policy::registry::ModelRegistry;
use tenantsim::shared::run::background_jobs;
use tenantsim::shared::scenario::{SharedScenario, parse_shared_plan_with, parse_shared_scenario};
use tenantsim::shared::sim::{Preempt, Priority};
use toml::{Table, Value};

use crate::common::{bundled_tables as bundled, repo, tenantsim, tree};

/// Parse shared scenario `text` as if it sat in `scenarios/`.
fn parse(text: &str) -> tenantsim::Result<SharedScenario> {
    parse_shared_scenario(&repo("scenarios/test.toml"), text, Overrides::default())
}

const CLUSTER: &str = r#"
mode = "shared"
name = "t"
[cluster]
nodes = 2
gpus_per_node = 4
"#;

const SERVICE: &str = r#"
[service]
[service.trace]
path = "../traces/hand.csv"
"#;

const JOBS: &str = r#"
[jobs]
path = "../traces/jobs-hand.csv"
"#;

const POLICY: &str = r#"
[[policy]]
name = "rr"
scheduler = "round-robin"
selector = "in-order"
"#;

#[test]
fn a_service_gets_the_defaults_of_the_issue() {
    let s = parse(&format!("{CLUSTER}{SERVICE}{POLICY}")).expect("valid");
    let svc = s.service.as_ref().expect("a service");
    assert_eq!(svc.max_gpus, 8, "max_gpus defaults to the whole cluster");
    assert_eq!(svc.gpus_per_job, 1);
    assert_eq!(svc.priority, Priority::Equal);
    assert_eq!(svc.preempt, Preempt::Checkpoint);
    assert_eq!(svc.scenario.config.gpus, 8, "the service sees every GPU");
    assert!(s.background.is_none());
    assert_eq!(
        s.cluster_policies[0].spec.name, "fifo",
        "default cluster scheduler"
    );
    assert_eq!(s.load, 1.0);
}

#[test]
fn service_keys_and_cluster_schedulers_are_read_as_written() {
    let text = format!(
        r#"{CLUSTER}scheduler = "sjf"
{JOBS}load = 2.5
[service]
max_gpus = 3
gpus_per_job = 2
priority = "low"
preempt = "restart"
max_jobs_per_tenant = 2
[service.trace]
path = "../traces/hand.csv"
[service.split]
tenant_count = 2
{POLICY}
[[policy]]
name = "rr-las"
scheduler = "round-robin"
selector = "random"
cluster_scheduler = "las"
cluster = {{ backfill = true, queue_thresholds_gpu_s = [4] }}
"#
    );
    let s = parse(&text).expect("valid");
    let svc = s.service.as_ref().expect("a service");
    assert_eq!(
        (svc.max_gpus, svc.gpus_per_job, svc.priority, svc.preempt),
        (3, 2, Priority::Low, Preempt::Restart)
    );
    assert_eq!(svc.scenario.config.max_jobs_per_tenant, 2);
    assert_eq!(svc.scenario.split.tenant_count, Some(2));
    let names: Vec<&str> = s
        .cluster_policies
        .iter()
        .map(|p| p.spec.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["sjf", "las"],
        "[cluster] scheduler, then the override"
    );
    assert!(!s.cluster_policies[0].backfill && s.cluster_policies[1].backfill);
    assert_eq!(s.load, 2.5);
    assert!(
        s.service_segments(),
        "with a background a service job can be preempted"
    );
}

#[test]
fn load_divides_the_background_submit_times() {
    let at = |load: &str| {
        let s = parse(&format!(
            "{CLUSTER}{JOBS}load = {load}\n[[policy]]\nname = \"f\"\ncluster_scheduler = \"fifo\"\n"
        ))
        .expect("valid");
        let b = s.background.as_ref().expect("a background");
        let jobs = background_jobs(b, s.load, 0);
        let plain = b.rep_jobs(0);
        (jobs, plain)
    };
    let (one, plain) = at("1");
    assert_eq!(
        one.jobs, plain.jobs,
        "load 1 is the trace's own rate, exactly"
    );
    let (double, plain) = at("2");
    for (j, p) in double.jobs.iter().zip(&plain.jobs) {
        // jobs-hand.csv's submit times are whole seconds: halving is exact.
        assert_eq!(j.submit * 2, p.submit);
        assert_eq!((j.duration, j.gpus), (p.duration, p.gpus));
    }
    assert!(
        plain.jobs.iter().any(|j| j.submit > 0),
        "the test needs a later submit"
    );
}

#[test]
fn load_is_sweepable() {
    let text = format!(
        "{CLUSTER}{JOBS}[[policy]]\nname = \"f\"\ncluster_scheduler = \"fifo\"\n[sweep]\n\"jobs.load\" = [0.5, 1.0, 2.0]\n"
    );
    let plan = parse_shared_plan_with(
        &repo("scenarios/test.toml"),
        &text,
        Overrides::default(),
        &ModelRegistry::builtin(),
        &JobRegistry::builtin(),
        &tenantsim::workflows::WorkflowRegistry::builtin(),
    )
    .expect("valid");
    let loads: Vec<f64> = plan.scenarios().iter().map(|s| s.load).collect();
    assert_eq!(loads, [0.5, 1.0, 2.0]);
}

#[test]
fn a_typed_cluster_gives_the_service_the_backgrounds_gpu_types() {
    let text = r#"
mode = "shared"
name = "t"
[cluster]
nodes = [{type = "v100", count = 1, gpus_per_node = 2}, {type = "k80", count = 2, gpus_per_node = 1}]
[service]
[service.speed]
k80 = 0.5
[service.trace]
path = "../traces/hand.csv"
[[policy]]
name = "rr"
scheduler = "round-robin"
selector = "in-order"
"#;
    let s = parse(text).expect("valid");
    let types = &s.service.as_ref().expect("service").scenario.gpu_types;
    assert!(types.is_typed());
    assert_eq!(
        types.names(),
        s.cluster.cluster.types(),
        "one ClusterSpec for both"
    );
    // GPUs are numbered node by node: 0 and 1 on the v100 node, 2 and 3 the k80s.
    let of: Vec<String> = (0..4u32)
        .map(|g| types.names()[usize::from(types.type_of(g))].clone())
        .collect();
    assert_eq!(of, ["v100", "v100", "k80", "k80"]);
}

#[test]
fn bad_input_names_the_file_and_the_key() {
    let cases: [(String, &str); 8] = [
        (
            format!("{CLUSTER}{SERVICE}[service.split]\nprior = [\"nobody\"]\n{POLICY}"),
            "test.toml: [service.split].prior: unknown user `nobody`",
        ),
        (
            format!("{CLUSTER}{SERVICE}max_gpus = 9\n{POLICY}").replace(
                "[service]\n[service.trace]\npath = \"../traces/hand.csv\"\nmax_gpus = 9",
                "[service]\nmax_gpus = 9\n[service.trace]\npath = \"../traces/hand.csv\"",
            ),
            "test.toml: [service].max_gpus: 9 GPUs exceed the cluster's 8 GPUs",
        ),
        (
            format!(
                "{CLUSTER}[service]\npriority = \"urgent\"\n[service.trace]\npath = \"../traces/hand.csv\"\n{POLICY}"
            ),
            "test.toml: [service].priority: unknown priority `urgent`",
        ),
        (
            format!("{CLUSTER}{JOBS}load = -1\n[[policy]]\nname = \"f\"\n"),
            "test.toml: [jobs].load: expected a factor on the arrival rate that is finite and > 0",
        ),
        (
            format!("{CLUSTER}{JOBS}load = nan\n[[policy]]\nname = \"f\"\n"),
            "test.toml: [jobs].load: expected a factor on the arrival rate that is finite and > 0",
        ),
        (
            format!("{CLUSTER}{SERVICE}[service.limits]\nmax_jobs = 0\n{POLICY}"),
            "test.toml: [service.limits].max_jobs: expected at least 1 job, got 0",
        ),
        (
            format!("{CLUSTER}{JOBS}{POLICY}"),
            "test.toml: [[policy]] #1 (\"rr\"): `scheduler`, `selector` and their keys are the service's",
        ),
        (
            format!(
                "{CLUSTER}[service]\ngpus_per_job = 5\n[service.trace]\npath = \"../traces/hand.csv\"\n{POLICY}"
            ),
            "test.toml: [service].gpus_per_job: 5 GPUs per job, but the largest node has 4",
        ),
    ];
    for (text, want) in &cases {
        let e = parse(text).expect_err(want).to_string();
        assert!(e.contains(want), "expected `{want}` in:\n{e}");
    }
}

#[test]
fn the_bundled_shared_scenario_validates() {
    tenantsim()
        .args(["validate"])
        .arg(repo("scenarios/shared-quickstart.toml"))
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "ok: shared scenario `shared-quickstart`",
        ));
}

#[test]
fn every_bundled_scenario_written_as_a_shared_one_validates() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = scenario_folder(tmp.path());
    // Scenarios that read ../shared/data are skipped (with a note) on a
    // fresh clone; they still count as found.
    let (mut n, mut skipped) = (0, 0);
    for (path, table) in bundled() {
        let converted = match mode_of(&table) {
            "models" if scenario_data(&path) => model_as_shared(table),
            "models" => {
                skipped += 1;
                continue;
            }
            "jobs" => jobs_as_shared(table),
            _ => continue,
        };
        let stem = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let shared = dir.join(format!("{stem}.toml"));
        fs::write(&shared, toml::to_string(&converted).expect("toml")).expect("write");
        let out = tenantsim()
            .arg("validate")
            .arg(&shared)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        n += 1;
    }
    assert!(
        n + skipped >= 25,
        "only {n} scenarios converted ({skipped} skipped)"
    );
}

fn mode_of(t: &Table) -> &str {
    t.get("mode").and_then(Value::as_str).unwrap_or("models")
}

/// A folder `T/a/scenarios/` beside which `../traces`, `../../shared` and
/// every non-scenario entry of `scenarios/` resolve as they do for the
/// bundled scenarios (symbolic links), so a converted scenario keeps its
/// relative paths.
fn scenario_folder(tmp: &Path) -> PathBuf {
    let dir = tmp.join("a/scenarios");
    fs::create_dir_all(&dir).expect("mkdir");
    let link = |from: &Path, to: &Path| {
        #[cfg(unix)]
        std::os::unix::fs::symlink(from, to).expect("symlink");
    };
    link(&repo("traces"), &tmp.join("a/traces"));
    link(&repo("../shared"), &tmp.join("shared"));
    for e in fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .flatten()
    {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "toml") {
            link(&p, &dir.join(e.file_name()));
        }
    }
    dir
}

/// A model-mode scenario written as a shared one: its `[trace]`,
/// `[split]`, `[arrivals]` and `[limits]` under `[service]`, its
/// `[cluster] gpus = G` as G one-GPU nodes (typed node groups as they
/// are), its speeds and `max_jobs_per_tenant` in `[service]`; swept keys
/// renamed the same way.
fn model_as_shared(mut t: Table) -> Table {
    t.insert("mode".into(), "shared".into());
    let mut service = Table::new();
    for key in ["trace", "split", "arrivals", "limits"] {
        if let Some(v) = t.remove(key) {
            service.insert(key.into(), v);
        }
    }
    let mut cluster = match t.remove("cluster") {
        Some(Value::Table(c)) => c,
        _ => Table::new(),
    };
    for key in ["speed", "model_speed", "max_jobs_per_tenant"] {
        if let Some(v) = cluster.remove(key) {
            service.insert(key.into(), v);
        }
    }
    if let Some(g) = cluster.remove("gpus") {
        cluster.insert("nodes".into(), g);
        cluster.insert("gpus_per_node".into(), 1.into());
    }
    t.insert("cluster".into(), Value::Table(cluster));
    t.insert("service".into(), Value::Table(service));
    if let Some(Value::Table(sweep)) = t.remove("sweep") {
        let renamed: Table = sweep
            .into_iter()
            .map(|(k, v)| {
                let k = if k == "cluster.gpus" {
                    "cluster.nodes".to_string()
                } else if let Some(rest) = k.strip_prefix("cluster.") {
                    if rest.starts_with("speed")
                        || rest.starts_with("model_speed")
                        || rest == "max_jobs_per_tenant"
                    {
                        format!("service.{rest}")
                    } else {
                        k
                    }
                } else if ["trace.", "split.", "arrivals.", "limits."]
                    .iter()
                    .any(|p| k.starts_with(p))
                {
                    format!("service.{k}")
                } else {
                    k
                };
                (k, v)
            })
            .collect();
        t.insert("sweep".into(), Value::Table(renamed));
    }
    t
}

/// A job-mode scenario written as a shared one without `[service]`: each
/// policy's `scheduler` becomes its `cluster_scheduler` and its other keys
/// go to its `cluster` table; swept policy keys likewise.
fn jobs_as_shared(mut t: Table) -> Table {
    t.insert("mode".into(), "shared".into());
    if let Some(Value::Array(policies)) = t.remove("policy") {
        let converted: Vec<Value> = policies
            .into_iter()
            .map(|p| {
                let Value::Table(mut p) = p else { return p };
                let mut out = Table::new();
                if let Some(name) = p.remove("name") {
                    out.insert("name".into(), name);
                }
                if let Some(s) = p.remove("scheduler") {
                    out.insert("cluster_scheduler".into(), s);
                }
                if !p.is_empty() {
                    out.insert("cluster".into(), Value::Table(p));
                }
                Value::Table(out)
            })
            .collect();
        t.insert("policy".into(), Value::Array(converted));
    }
    if let Some(Value::Table(sweep)) = t.remove("sweep") {
        let renamed: Table = sweep
            .into_iter()
            .map(|(k, v)| {
                let parts: Vec<&str> = k.splitn(3, '.').collect();
                let k = match parts[..] {
                    ["policy", i, "scheduler"] => format!("policy.{i}.cluster_scheduler"),
                    ["policy", _, "name"] => k.clone(),
                    ["policy", i, rest] => format!("policy.{i}.cluster.{rest}"),
                    _ => k.clone(),
                };
                (k, v)
            })
            .collect();
        t.insert("sweep".into(), Value::Table(renamed));
    }
    t
}

/// `tenantsim run` of `scenario` into `out`, one repetition, the job log,
/// no figures.
fn run(scenario: &Path, out: &Path) {
    tenantsim()
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(["--reps", "1", "--jobs", "--no-plots", "--quiet"])
        .assert()
        .success();
}

/// The results folders of a run: itself, or its sweep points in order.
fn points(out: &Path) -> Vec<PathBuf> {
    if !out.join("sweep.csv").exists() {
        return vec![out.to_path_buf()];
    }
    let mut p: Vec<PathBuf> = fs::read_dir(out)
        .expect("results")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("point-"))
        })
        .collect();
    p.sort();
    p
}

#[test]
fn every_bundled_model_scenario_as_a_shared_scenario_gives_model_modes_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = scenario_folder(tmp.path());
    let (mut cases, mut skipped) = (Vec::new(), 0);
    for (path, table) in bundled() {
        if mode_of(&table) != "models" {
            continue;
        }
        // On the test's own thread: it names the test in the skip note and
        // in the fresh-clone log (src/core/testing.rs).
        if !scenario_data(&path) {
            skipped += 1; // reads ../shared/data, absent: a note was printed
            continue;
        }
        let stem = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let shared = dir.join(format!("{stem}.toml"));
        fs::write(
            &shared,
            toml::to_string(&model_as_shared(table)).expect("toml"),
        )
        .expect("write");
        cases.push((stem, path, shared));
    }
    // Each scenario is run and compared on its own, two at a time: the
    // runs are separate processes writing separate folders, so the order
    // changes nothing they write (docs/CI.md, "CI time").
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some((stem, path, shared)) =
                    cases.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let (m, s) = (
                        tmp.path().join(format!("m-{stem}")),
                        tmp.path().join(format!("s-{stem}")),
                    );
                    run(path, &m);
                    run(shared, &s);
                    same_as_model_mode(stem, &m, &s);
                }
            });
        }
    });
    let ran = cases.len();
    assert!(
        ran + skipped >= 20,
        "only {ran} model-mode scenarios ran ({skipped} skipped)"
    );
}

/// The service's files of shared run `s` are model mode's (run `m`), point
/// for point.
fn same_as_model_mode(stem: &str, m: &Path, s: &Path) {
    let (mp, sp) = (points(m), points(s));
    assert_eq!(mp.len(), sp.len(), "{stem}: sweep points");
    for (a, b) in mp.iter().zip(&sp) {
        for file in ["jobs.csv", "regret.csv", "curves.csv", "tenants.csv"] {
            let want = fs::read(a.join(file)).unwrap_or_else(|e| panic!("{stem}: {file}: {e}"));
            let got = fs::read(b.join("service").join(file))
                .unwrap_or_else(|e| panic!("{stem}: service/{file}: {e}"));
            assert!(
                want == got,
                "{stem} ({}): service/{file} differs from model mode's",
                a.display()
            );
        }
        assert!(
            !b.join("background").exists(),
            "{stem}: no background, no background/"
        );
    }
}

#[test]
fn every_bundled_job_scenario_without_a_service_gives_job_modes_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = scenario_folder(tmp.path());
    let mut ran = 0;
    for (path, table) in bundled() {
        if mode_of(&table) != "jobs" {
            continue;
        }
        let stem = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let shared = dir.join(format!("{stem}.toml"));
        fs::write(
            &shared,
            toml::to_string(&jobs_as_shared(table)).expect("toml"),
        )
        .expect("write");
        let (m, s) = (
            tmp.path().join(format!("j-{stem}")),
            tmp.path().join(format!("s-{stem}")),
        );
        run(&path, &m);
        run(&shared, &s);
        let (mp, sp) = (points(&m), points(&s));
        assert_eq!(mp.len(), sp.len(), "{stem}: sweep points");
        for (a, b) in mp.iter().zip(&sp) {
            let (want, got) = (tree(a), tree(&b.join("background")));
            let names = |t: &std::collections::BTreeMap<PathBuf, Vec<u8>>| {
                t.keys()
                    .filter(|k| !k.ends_with("run.json"))
                    .cloned()
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                names(&want),
                names(&got),
                "{stem}: the files of background/"
            );
            for (rel, bytes) in &want {
                if !rel.ends_with("run.json") {
                    assert!(
                        bytes == &got[rel],
                        "{stem}: background/{} differs from job mode's",
                        rel.display()
                    );
                }
            }
            assert!(
                !b.join("service").exists(),
                "{stem}: no service, no service/"
            );
            assert!(b.join("shares.csv").is_file(), "{stem}: shares.csv");
        }
        ran += 1;
    }
    assert!(ran >= 5, "only {ran} job-mode scenarios ran");
}

/// `scenarios/shared-quickstart.toml` with `edit` applied to its table,
/// written into `dir`.
fn quickstart_with(dir: &Path, name: &str, edit: impl FnOnce(&mut Table)) -> PathBuf {
    let mut t: Table = fs::read_to_string(repo("scenarios/shared-quickstart.toml"))
        .expect("bundled")
        .parse()
        .expect("TOML");
    edit(&mut t);
    let path = dir.join(format!("{name}.toml"));
    fs::write(&path, toml::to_string(&t).expect("toml")).expect("write");
    path
}

#[test]
fn low_priority_leaves_the_background_files_unchanged_under_every_cluster_scheduler() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = scenario_folder(tmp.path());
    for scheduler in [
        "fifo",
        "sjf",
        "srtf",
        "las",
        "fair-share",
        "ftf",
        "max-min-fairness",
    ] {
        let set = |t: &mut Table, service: bool| {
            let Some(Value::Table(c)) = t.get_mut("cluster") else {
                panic!("[cluster]")
            };
            c.insert("scheduler".into(), scheduler.into());
            c.insert("round_s".into(), 360.into());
            if let Some(Value::Table(j)) = t.get_mut("jobs") {
                j.insert("sample".into(), 20.into());
            }
            if !service {
                t.remove("service");
                let Some(Value::Array(ps)) = t.get_mut("policy") else {
                    panic!("policies")
                };
                for p in ps.iter_mut() {
                    if let Value::Table(p) = p {
                        p.remove("scheduler");
                        p.remove("selector");
                    }
                }
            }
        };
        let with = quickstart_with(&dir, &format!("low-{scheduler}"), |t| set(t, true));
        let without = quickstart_with(&dir, &format!("alone-{scheduler}"), |t| set(t, false));
        let (a, b) = (
            tmp.path().join(format!("w-{scheduler}")),
            tmp.path().join(format!("a-{scheduler}")),
        );
        run(&with, &a);
        run(&without, &b);
        let (ta, tb) = (tree(&a.join("background")), tree(&b.join("background")));
        for (rel, bytes) in &tb {
            if !rel.ends_with("run.json") {
                assert!(
                    ta.get(rel) == Some(bytes),
                    "{scheduler}: background/{} changed when a low-priority service joined",
                    rel.display()
                );
            }
        }
    }
}

#[test]
fn a_shared_run_is_the_same_on_one_and_two_threads_in_shards_and_from_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = repo("scenarios/shared-quickstart.toml");
    let run_with = |out: &Path, extra: &[&str]| {
        tenantsim()
            .arg("run")
            .arg(&scenario)
            .arg("--out")
            .arg(out)
            .args(["--reps", "2", "--jobs", "--no-plots", "--quiet"])
            .args(extra)
            .assert()
            .success();
    };
    let one = tmp.path().join("one");
    run_with(&one, &["--threads", "1"]);
    let two = tmp.path().join("two");
    run_with(&two, &["--threads", "2"]);
    crate::common::assert_same_result_files(&one, &two, "1 and 2 threads");
    for f in [
        "shares.csv",
        "service/regret.csv",
        "service/jobs.csv",
        "background/summary.csv",
    ] {
        assert!(one.join(f).is_file(), "{f} is written");
    }
    let header = fs::read_to_string(one.join("shares.csv")).expect("shares.csv");
    assert!(
        header.starts_with("policy,rep,time_s,workload,gpus\n"),
        "{header}"
    );
    let cache = tmp.path().join("cache");
    let cache_arg = cache.display().to_string();
    let first = tmp.path().join("cached-1");
    run_with(&first, &["--cache", &cache_arg]);
    let second = tmp.path().join("cached-2");
    run_with(&second, &["--cache", &cache_arg]);
    crate::common::assert_same_result_files(&one, &second, "from the cache");
    let mut shards = Vec::new();
    for i in 0..2 {
        let out = tmp.path().join(format!("shard-{i}"));
        run_with(&out, &["--shard", &format!("{i}/2")]);
        shards.push(out);
    }
    let merged = tmp.path().join("merged");
    tenantsim()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--quiet")
        .assert()
        .success();
    crate::common::assert_same_result_files(&one, &merged, "merged shards");
}

#[test]
fn plot_table_check_compare_and_report_accept_a_shared_results_folder() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("run");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/shared-quickstart.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--reps", "2", "--jobs", "--quiet"])
        .assert()
        .success();
    for f in [
        "plots/shares.svg",
        "service/plots/regret.svg",
        "background/plots/utilization.svg",
    ] {
        assert!(out.join(f).is_file(), "the run drew {f}");
    }
    let plots = tmp.path().join("plots");
    tenantsim()
        .arg("plot")
        .arg(&out)
        .arg("--out")
        .arg(&plots)
        .assert()
        .success();
    for f in [
        "shares.svg",
        "service/regret.svg",
        "background/utilization.svg",
    ] {
        assert!(plots.join(f).is_file(), "plot drew {f}");
    }
    let table = tenantsim()
        .arg("table")
        .arg(&out)
        .args(["--format", "markdown"])
        .output()
        .expect("runs");
    assert!(table.status.success());
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("**service/**") && text.contains("**background/**"),
        "{text}"
    );
    tenantsim()
        .arg("check")
        .arg(&out)
        .arg("--against")
        .arg(&out)
        .assert()
        .success()
        .stderr(
            predicates::str::contains("service/:").and(predicates::str::contains("background/:")),
        );
    let compare = tenantsim()
        .arg("compare")
        .arg(&out)
        .arg(&out)
        .args(["--format", "csv"])
        .output()
        .expect("runs");
    assert!(compare.status.success());
    let text = String::from_utf8_lossy(&compare.stdout);
    assert!(text.lines().any(|l| l.starts_with("service,")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("background,")), "{text}");
    let html = tmp.path().join("report.html");
    tenantsim()
        .arg("report")
        .arg(&out)
        .arg("--out")
        .arg(&html)
        .assert()
        .success();
    let page = fs::read_to_string(&html).expect("report");
    assert!(
        page.contains("shares"),
        "the report shows the shares figure"
    );
}

/// The built-ins plus a registered service scheduler (`last-first`: the
/// eligible tenant with the highest index) and a registered cluster
/// scheduler (`my-fifo`: FIFO's entry under another name).
fn registry_with_user_policies() -> tenantsim::registry::Registry {
    use tenantsim::prelude::*;
    struct LastFirst;
    impl Scheduler for LastFirst {
        fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
            Ok((0..tenants.len()).rev().find(|&t| tenants.is_eligible(t)))
        }
    }
    let mut registry = Registry::builtin();
    registry
        .add_scheduler(SchedulerEntry::of(
            "last-first",
            "highest index first",
            || LastFirst,
        ))
        .expect("new name");
    let mut fifo = (**registry.jobs.scheduler("fifo").expect("fifo")).clone();
    fifo.name = "my-fifo".into();
    registry.add_job_scheduler(fifo).expect("new name");
    registry
}

const USER_POLICIES: &str = r#"
mode = "shared"
name = "user-policies"
repetitions = 2
[cluster]
nodes = 1
gpus_per_node = 2
scheduler = "my-fifo"
[jobs]
path = "../traces/jobs-hand.csv"
[service]
priority = "low"
[service.trace]
path = "../traces/hand.csv"
[[policy]]
name = "mine"
scheduler = "last-first"
selector = "in-order"
"#;

#[test]
fn registered_policies_are_named_by_a_shared_scenario_and_unknown_to_the_builtins() {
    use tenantsim::core::run::mode::Mode as _;
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = scenario_folder(tmp.path());
    let path = dir.join("user-policies.toml");
    fs::write(&path, USER_POLICIES).expect("write");
    let registry = registry_with_user_policies();
    let plan = registry
        .shared_mode()
        .load_plan(&path, Overrides::default())
        .expect("the registered names resolve");
    let s = plan.scenarios()[0];
    assert_eq!(s.cluster_policies[0].spec.name, "my-fifo");
    let svc = s.service.as_ref().expect("service");
    assert_eq!(svc.scenario.policies[0].scheduler.name, "last-first");
    let builtin = tenantsim::registry::Registry::builtin();
    let e = builtin
        .shared_mode()
        .load_plan(&path, Overrides::default())
        .expect_err("not a built-in")
        .to_string();
    assert!(e.contains("unknown job scheduler `my-fifo`"), "{e}");
}

#[test]
fn a_registered_service_scheduler_and_cluster_scheduler_run_a_shared_scenario() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = scenario_folder(tmp.path());
    let path = dir.join("user-policies.toml");
    fs::write(&path, USER_POLICIES).expect("write");
    let out = tmp.path().join("out");
    let options = tenantsim::run::RunOptions::default()
        .out(&out)
        .plots(false)
        .keep_jobs(true)
        .quiet(true);
    let doc = tenantsim::run::run_scenario_with(&path, &options, &registry_with_user_policies())
        .expect("runs");
    assert_eq!(doc["mode"], "shared");
    assert_eq!(doc["repetitions"], 2);
    assert!(
        doc["service"].is_object() && doc["background"].is_object(),
        "{doc}"
    );
    let jobs = fs::read_to_string(out.join("service/jobs.csv")).expect("service/jobs.csv");
    assert!(
        jobs.lines().skip(1).all(|l| l.starts_with("mine,")),
        "{jobs}"
    );
    assert!(jobs.lines().count() > 1, "the service ran jobs:\n{jobs}");
}

#[test]
fn a_stored_run_that_is_not_a_shared_runs_encoding_is_an_error_not_a_panic() {
    use tenantsim::core::run::mode::Mode as _;
    let s = parse(&format!("{CLUSTER}{SERVICE}{JOBS}{POLICY}")).expect("valid");
    let mode = tenantsim::registry::Registry::builtin().shared_mode();
    for bytes in [&[][..], &[0][..], &[1, 2, 3, 4, 5][..], &[0xff; 64][..]] {
        assert!(mode.decode_run(&s, bytes).is_err(), "{bytes:?} decoded");
    }
}

/// Regression: with `--jobs` and a background that preempts the service
/// (priority `low`), `service/jobs.csv` had an empty `accuracy` on every
/// segment but the completing one, and the run failed reading its own
/// file back ("expected a finite number"). Every segment row now carries
/// its job's accuracy, and the preempted jobs show as several segments.
#[test]
fn service_jobs_csv_with_preempted_segments_is_written_and_read_back() {
    let tmp = tempfile::tempdir().expect("tmp");
    let scenario = repo("scenarios/shared-quickstart.toml");
    let text = fs::read_to_string(&scenario).expect("scenario");
    // A busier background, so the low-priority service is preempted.
    let text = text
        .replace("load = 1\n", "load = 8\n")
        .replace("../traces/", &format!("{}/", repo("traces").display()));
    let path = tmp.path().join("busy.toml");
    fs::write(&path, text).expect("write");
    let out = tmp.path().join("out");
    run(&path, &out);
    let jobs = fs::read_to_string(out.join("service/jobs.csv")).expect("service/jobs.csv");
    let mut lines = jobs.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let (acc, segment) = (col("accuracy"), col("segment"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(
        rows.iter()
            .all(|r| r[acc].parse::<f64>().is_ok_and(f64::is_finite))
    );
    assert!(
        rows.iter().any(|r| r[segment] != "0"),
        "no service job was preempted: the case does not test segments"
    );
}
