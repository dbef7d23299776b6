//! The open registry (issue 16): policies defined outside the crate are
//! named by scenarios in both modes; the built-ins stay; names are unique.

use std::fs;
use std::sync::Arc;

use tenantsim::core::scenario::Overrides;
use tenantsim::jobs::policy::fifo;
use tenantsim::models::scenario::{load_plan, load_plan_with};
use tenantsim::prelude::*;

use crate::common::{assert_same_result_files, repo};

/// Always the lowest eligible tenant.
struct Lowest;

impl Scheduler for Lowest {
    fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Option<usize> {
        (0..tenants.len()).find(|&t| tenants.is_eligible(t))
    }
}

fn lowest() -> SchedulerEntry {
    SchedulerEntry::new(
        "lowest-first",
        "the lowest eligible tenant",
        |_p: &mut Params| {
            let f: SchedulerFactory =
                Arc::new(|_c: &RepContext<'_>| Ok(Box::new(Lowest) as Box<dyn Scheduler>));
            Ok(f)
        },
    )
}

fn scenario_naming(dir: &std::path::Path, scheduler: &str) -> std::path::PathBuf {
    let path = dir.join("s.toml");
    fs::write(
        &path,
        format!(
            "name = \"s\"\nrepetitions = 2\n[trace]\npath = \"{}\"\n[cluster]\ngpus = 1\n\
             [[policy]]\nname = \"p\"\nscheduler = \"{scheduler}\"\nselector = \"in-order\"\n",
            repo("traces/hand.csv").display()
        ),
    )
    .expect("write");
    path
}

/// Run `scenario` into `out` with `registry` as the tests here need: the
/// job log, two threads, quiet, no figures.
fn run_with(
    scenario: std::path::PathBuf,
    out: std::path::PathBuf,
    registry: &Registry,
) -> Result<serde_json::Value> {
    let options = RunOptions::default()
        .out(out)
        .keep_jobs(true)
        .threads(2)
        .quiet(true)
        .plots(false);
    run_scenario_with(&scenario, &options, registry)
}

#[test]
fn a_registered_scheduler_is_named_by_a_scenario_and_unknown_without_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = scenario_naming(tmp.path(), "lowest-first");
    let e = load_plan(&path, Overrides::default()).expect_err("not a built-in");
    assert!(
        e.to_string()
            .contains("unknown scheduler `lowest-first`: expected one of round-robin"),
        "{e}"
    );
    let mut registry = Registry::builtin();
    registry.add_scheduler(lowest()).expect("new name");
    let plan = load_plan_with(&path, Overrides::default(), &registry.models).expect("loads");
    assert_eq!(
        plan.scenarios()[0].policies[0].scheduler.name,
        "lowest-first"
    );
    // With one GPU, "lowest first" runs tenant 0's models before anyone
    // else's: its 4 jobs come first in every repetition.
    let out = tmp.path().join("out");
    run_with(path, out.clone(), &registry).expect("runs");
    let jobs = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    for rep in ["0", "1"] {
        let users: Vec<&str> = jobs
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|c| c[1] == rep)
            .map(|c| c[4])
            .collect();
        assert_eq!(users[..4], ["u1"; 4], "rep {rep}: {users:?}");
        assert_eq!(users.len(), 11);
    }
}

#[test]
fn registered_names_are_unique_and_non_empty() {
    let mut registry = Registry::builtin();
    let e = registry
        .add_scheduler(SchedulerEntry::new("round-robin", "", |_| unreachable!()))
        .expect_err("built-in name");
    assert!(
        e.to_string()
            .contains("`round-robin`: a scheduler of that name is already registered")
    );
    registry.add_scheduler(lowest()).expect("new");
    assert!(registry.add_scheduler(lowest()).is_err(), "twice");
    assert!(
        registry
            .add_selector(SelectorEntry::new(" ", "", |_, _| unreachable!()))
            .is_err(),
        "empty name"
    );
    let e = registry
        .add_job_scheduler(JobSchedulerEntry::new("fifo", "", |_| unreachable!()))
        .expect_err("built-in job scheduler");
    assert!(e.to_string().contains("job scheduler `fifo`"), "{e}");
}

/// A job scheduler registered under a new name (here built from fifo's own
/// factory) runs a job-mode scenario exactly like the built-in it wraps.
#[test]
fn a_registered_job_scheduler_runs_a_job_scenario() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/jobs-quickstart.toml")).expect("read");
    let text = text.replace("../traces/", &format!("{}/", repo("traces").display()));
    let mine = tmp.path().join("mine.toml");
    fs::write(
        &mine,
        text.replacen("scheduler = \"fifo\"", "scheduler = \"my-fifo\"", 1),
    )
    .expect("write");
    let builtin = tmp.path().join("builtin.toml");
    fs::write(&builtin, &text).expect("write");
    let mut registry = Registry::builtin();
    registry
        .add_job_scheduler(JobSchedulerEntry::new(
            "my-fifo",
            "fifo, registered from outside",
            |p: &mut Params| (fifo::SPEC.parse)(p),
        ))
        .expect("new name");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_with(mine, a.clone(), &registry).expect("runs");
    run_with(builtin, b.clone(), &Registry::builtin()).expect("runs");
    assert_same_result_files(&a, &b, "my-fifo and fifo");
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(a.join("run.json")).expect("run.json")).expect("JSON");
    assert_eq!(manifest["policies"][0]["scheduler"], "my-fifo");
}

/// `priority_order` turns a priority function into a job scheduler with
/// the engine's scan, blocking and backfilling: priority = duration gives
/// exactly `sjf` (duration, then submit, then index), on the hand trace
/// with and without backfilling; a NaN priority is a policy error.
#[test]
fn a_priority_function_becomes_a_job_scheduler() {
    use tenantsim::jobs::policy::priority_order;
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/jobs-quickstart.toml")).expect("read");
    let text = text.replace("../traces/", &format!("{}/", repo("traces").display()));
    let mut registry = Registry::builtin();
    registry
        .add_job_scheduler(JobSchedulerEntry::new(
            "shortest-by-priority",
            "priority = duration",
            |_p: &mut Params| {
                let f: JobSchedulerFactory = Arc::new(|init: &SchedInit<'_>| {
                    priority_order(init.jobs.len(), |job, _index, _now| Ok(job.duration as f64))
                });
                Ok(f)
            },
        ))
        .expect("new");
    registry
        .add_job_scheduler(JobSchedulerEntry::new(
            "nan",
            "a broken priority",
            |_p: &mut Params| {
                let f: JobSchedulerFactory = Arc::new(|init: &SchedInit<'_>| {
                    priority_order(init.jobs.len(), |_job, _index, _now| Ok(f64::NAN))
                });
                Ok(f)
            },
        ))
        .expect("new");
    for backfill in ["false", "true"] {
        let t = text.replace("backfill = false", &format!("backfill = {backfill}"));
        let sjf = tmp.path().join(format!("sjf-{backfill}.toml"));
        let mine = tmp.path().join(format!("mine-{backfill}.toml"));
        // Only the sjf policy, under both names.
        let only = |sched: &str| {
            let head = &t[..t.find("[[policy]]").expect("policies")];
            format!("{head}[[policy]]\nname = \"p\"\nscheduler = \"{sched}\"\n")
        };
        fs::write(&sjf, only("sjf")).expect("write");
        fs::write(&mine, only("shortest-by-priority")).expect("write");
        let (a, b) = (
            tmp.path().join(format!("a-{backfill}")),
            tmp.path().join(format!("b-{backfill}")),
        );
        run_with(sjf, a.clone(), &registry).expect("runs");
        run_with(mine, b.clone(), &registry).expect("runs");
        for f in ["summary.csv", "jobs.csv", "users.csv", "utilization.csv"] {
            assert_eq!(
                fs::read(a.join(f)).expect("read"),
                fs::read(b.join(f)).expect("read"),
                "{f} with backfill = {backfill}"
            );
        }
    }
    let head = &text[..text.find("[[policy]]").expect("policies")];
    let broken = tmp.path().join("nan.toml");
    fs::write(
        &broken,
        format!("{head}[[policy]]\nname = \"p\"\nscheduler = \"nan\"\n"),
    )
    .expect("write");
    let out = tmp.path().join("nan-out");
    let e = run_with(broken, out.clone(), &registry).expect_err("NaN priority");
    assert_eq!(e.kind(), ErrorKind::Policy, "{e}");
    assert!(e.to_string().contains("priority of job 0 is NaN"), "{e}");
    assert!(!out.exists(), "no results folder after a policy error");
}

/// Policies that sleep in every call: `run.json` and `--json` show that
/// the time went to the policy, not to the engine (issue 16's cost
/// accounting; the policy clock samples 1 call in 16, DESIGN §10).
#[test]
fn run_json_and_json_split_time_between_policy_and_engine() {
    struct Sleepy;
    impl Scheduler for Sleepy {
        fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Option<usize> {
            std::thread::sleep(std::time::Duration::from_millis(1));
            (0..tenants.len()).find(|&t| tenants.is_eligible(t))
        }
        fn tenant_changed(&mut self, _: &Tenants, _: usize) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("s.toml");
    fs::write(
        &path,
        format!(
            "name = \"s\"\nrepetitions = 4\n[trace]\npath = \"{}\"\n[cluster]\ngpus = 1\n\
             [[policy]]\nname = \"sleepy\"\nscheduler = \"sleepy\"\nselector = \"in-order\"\n\
             [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n",
            repo("traces/hand.csv").display()
        ),
    )
    .expect("write");
    let mut registry = Registry::builtin();
    registry
        .add_scheduler(SchedulerEntry::new(
            "sleepy",
            "sleeps",
            |_p: &mut Params| {
                let f: SchedulerFactory =
                    Arc::new(|_c: &RepContext<'_>| Ok(Box::new(Sleepy) as Box<dyn Scheduler>));
                Ok(f)
            },
        ))
        .expect("new");
    let out = tmp.path().join("out");
    let doc = run_with(path, out.clone(), &registry).expect("runs");
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("run.json")).expect("run.json")).expect("JSON");
    for (what, policies) in [
        ("run.json", &manifest["policies"]),
        ("--json", &doc["policies"]),
    ] {
        let t = |i: usize, k: &str| policies[i]["time"][k].as_f64().unwrap_or(-1.0);
        // 4 repetitions × ~36 sleeping calls of ≥ 1 ms each.
        assert!(t(0, "simulation_s") > 0.1, "{what}: {policies}");
        assert!(
            t(0, "policy_share") > 0.8,
            "{what}: the sleeping policy: {policies}"
        );
        assert!(
            (t(0, "policy_s") + t(0, "engine_s") - t(0, "simulation_s")).abs() < 1e-9,
            "{what}: policy + engine = simulation"
        );
        assert!(
            t(1, "policy_s") < t(0, "policy_s") / 10.0,
            "{what}: {policies}"
        );
    }
    let varying = manifest["varying_fields"].to_string();
    assert!(varying.contains("policies[].time"), "{varying}");
}

/// A selector that meets an error where it cannot return one (here in
/// `observe`) hands it over with `take_error`: the run stops with it as a
/// policy error and writes nothing (issue 16: a Python exception in a
/// policy leaves no results folder).
#[test]
fn an_error_a_policy_could_not_return_stops_the_run_and_writes_nothing() {
    struct Failing {
        error: Option<Error>,
    }
    impl Selector for Failing {
        fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Option<Proposal> {
            (0..4)
                .find(|&k| !tenants.is_tried(tenant, k))
                .map(Proposal::plain)
        }
        fn observe(&mut self, _: usize, _: usize, _: f64) {
            self.error
                .get_or_insert_with(|| Error::policy("observe failed on purpose"));
        }
        fn take_error(&mut self) -> Option<Error> {
            self.error.take()
        }
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("s.toml");
    fs::write(
        &path,
        format!(
            "name = \"s\"\n[trace]\npath = \"{}\"\n[cluster]\ngpus = 1\n\
             [[policy]]\nname = \"p\"\nscheduler = \"round-robin\"\nselector = \"failing\"\n",
            repo("traces/hand.csv").display()
        ),
    )
    .expect("write");
    let mut registry = Registry::builtin();
    registry
        .add_selector(SelectorEntry::new(
            "failing",
            "",
            |_p: &mut Params, _t: &Trace| {
                let f: SelectorFactory = Arc::new(|_c: &RepContext<'_>| {
                    Ok(Box::new(Failing { error: None }) as Box<dyn Selector>)
                });
                Ok(f)
            },
        ))
        .expect("new");
    let out = tmp.path().join("out");
    let e = run_with(path, out.clone(), &registry).expect_err("fails");
    assert_eq!(e.kind(), ErrorKind::Policy, "{e}");
    assert!(e.to_string().contains("observe failed on purpose"), "{e}");
    assert!(!out.exists(), "no results folder");
}
