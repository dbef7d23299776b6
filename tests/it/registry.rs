//! The open registry (issues 16 and 28): policies defined outside the
//! crate are named by scenarios in both modes; the built-ins stay; names
//! are unique; a user registers a policy with one short constructor (no
//! `Arc`/`Box`), and a policy's error is the `Result` of its own method.

use std::fs;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::named::{Named, NamedList};
use tenantsim::jobs::policy::{JobRegistry, fifo, las, max_min_fairness, priority_order};
use tenantsim::models::policy::registry::ModelRegistry;
use tenantsim::models::policy::scheduler::greedy;
use tenantsim::models::policy::selector::gp;
use tenantsim::models::scenario::{load_plan, load_plan_with};
use tenantsim::prelude::*;

use crate::common::{assert_same_result_files, repo};

/// Always the lowest eligible tenant.
struct Lowest;

impl Scheduler for Lowest {
    fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
        Ok((0..tenants.len()).find(|&t| tenants.is_eligible(t)))
    }
}

/// The short form: a policy without keys, one value per repetition.
fn lowest() -> SchedulerEntry {
    SchedulerEntry::of("lowest-first", "the lowest eligible tenant", || Lowest)
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
        .add_scheduler(SchedulerEntry::of("round-robin", "", || Lowest))
        .expect_err("built-in name");
    assert!(
        e.to_string()
            .contains("`round-robin`: a scheduler of that name is already registered")
    );
    registry.add_scheduler(lowest()).expect("new");
    assert!(registry.add_scheduler(lowest()).is_err(), "twice");
    assert!(
        registry
            .add_selector(SelectorEntry::of(" ", "", || InOrder))
            .is_err(),
        "empty name"
    );
    let e = registry
        .add_job_scheduler(JobSchedulerEntry::from_parse("fifo", "", |_| {
            Err(Error::usage("never parsed"))
        }))
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
        .add_job_scheduler(JobSchedulerEntry::from_parse(
            "my-fifo",
            "fifo, registered from outside",
            |p: &mut Params| (fifo::entry().parse)(p),
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
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/jobs-quickstart.toml")).expect("read");
    let text = text.replace("../traces/", &format!("{}/", repo("traces").display()));
    let mut registry = Registry::builtin();
    registry
        .add_job_scheduler(JobSchedulerEntry::new(
            "shortest-by-priority",
            "priority = duration",
            |_p: &mut Params| {
                Ok(|init: &SchedInit<'_>| {
                    Ok(priority_order(init.jobs.len(), |job, _index, _now| {
                        Ok(job.duration as f64)
                    }))
                })
            },
        ))
        .expect("new");
    registry
        .add_job_scheduler(JobSchedulerEntry::new(
            "nan",
            "a broken priority",
            |_p: &mut Params| {
                Ok(|init: &SchedInit<'_>| {
                    Ok(priority_order(init.jobs.len(), |_job, _index, _now| {
                        Ok(f64::NAN)
                    }))
                })
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
        fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
            std::thread::sleep(std::time::Duration::from_millis(1));
            Ok((0..tenants.len()).find(|&t| tenants.is_eligible(t)))
        }
        fn tenant_changed(&mut self, _: &Tenants, _: usize) -> Result<()> {
            std::thread::sleep(std::time::Duration::from_millis(1));
            Ok(())
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
        .add_scheduler(SchedulerEntry::of("sleepy", "sleeps", || Sleepy))
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

/// The first untried of the tenant's first four models (the hand trace's).
struct InOrder;

impl Selector for InOrder {
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        Ok((0..4)
            .find(|&k| !tenants.is_tried(tenant, k))
            .map(Proposal::plain))
    }
}

/// One policy `p` on the hand trace with one GPU and one repetition.
fn hand_scenario(dir: &std::path::Path, scheduler: &str, selector: &str) -> std::path::PathBuf {
    let path = dir.join("s.toml");
    fs::write(
        &path,
        format!(
            "name = \"s\"\n[trace]\npath = \"{}\"\n[cluster]\ngpus = 1\n\
             [[policy]]\nname = \"p\"\nscheduler = \"{scheduler}\"\nselector = \"{selector}\"\n",
            repo("traces/hand.csv").display()
        ),
    )
    .expect("write");
    path
}

/// The short constructors: `of` for a policy without keys (and a scenario
/// giving it a key is an unknown-key error), `new` for one that reads its
/// keys and builds per repetition, without `Arc` or `Box` in user code.
/// `lowest-first` with a key `from_top = true` serves the highest index
/// first; the run equals the same policy registered with `of`.
#[test]
fn the_short_constructors_register_policies_without_arc_or_box() {
    struct Highest;
    impl Scheduler for Highest {
        fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
            Ok((0..tenants.len()).rev().find(|&t| tenants.is_eligible(t)))
        }
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut registry = Registry::builtin();
    registry
        .add_scheduler(SchedulerEntry::new(
            "ends",
            "one end first",
            |p: &mut Params| {
                let from_top = p.bool("from_top", false)?;
                Ok(move |_ctx: &RepContext<'_>| -> Result<Box<dyn Scheduler>> {
                    Ok(if from_top {
                        Box::new(Highest)
                    } else {
                        Box::new(Lowest)
                    })
                })
            },
        ))
        .expect("new");
    registry
        .add_scheduler(SchedulerEntry::of("highest-first", "", || Highest))
        .expect("new");
    registry
        .add_selector(SelectorEntry::of("first-four", "", || InOrder))
        .expect("new");
    let run = |scheduler: &str, extra: &str, name: &str| {
        let dir = tmp.path().join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        let path = hand_scenario(&dir, scheduler, "first-four");
        let text = fs::read_to_string(&path).expect("read") + extra;
        fs::write(&path, text).expect("write");
        let out = dir.join("out");
        run_with(path, out.clone(), &registry).map(|_| out)
    };
    let keyed = run("ends", "from_top = true\n", "keyed").expect("runs");
    let short = run("highest-first", "", "short").expect("runs");
    assert_same_result_files(&keyed, &short, "ends(from_top) and highest-first");
    let low = run("ends", "", "low").expect("runs");
    let jobs = fs::read_to_string(low.join("jobs.csv")).expect("jobs.csv");
    let first_user = jobs.lines().nth(1).map(|l| l.split(',').nth(4));
    assert_eq!(first_user, Some(Some("u1")), "{jobs}");
    // `of` takes no keys: one in the scenario is reported, not ignored.
    let e = run("highest-first", "from_top = true\n", "unknown").expect_err("unknown key");
    assert!(e.to_string().contains("from_top"), "{e}");
}

/// Both registries have one shape: a `NamedList` per policy kind whose
/// entries are the ones each built-in file exposes, in `--help` order,
/// with their flags (set by the builder methods).
#[test]
fn both_registries_have_the_same_shape() {
    fn names<E: Named>(list: &NamedList<E>) -> String {
        list.names()
    }
    let models = ModelRegistry::builtin();
    let jobs = JobRegistry::builtin();
    assert_eq!(
        names(&models.schedulers),
        "round-robin, random, greedy, hybrid, easeml-proto"
    );
    assert_eq!(
        names(&models.selectors),
        "in-order, most-recent, most-cited, random, gp-ucb, gp-ucb-cost, gp-ei, \
         gp-ei-per-second, successive-halving, hyperband, asha"
    );
    assert_eq!(
        names(&jobs.schedulers),
        "fifo, sjf, srtf, las, fair-share, ftf, max-min-fairness"
    );
    let flags = |name: &str| {
        let e = models.scheduler(name).expect("built in");
        e.needs_acquisition
    };
    assert!(flags("greedy") && greedy::entry().needs_acquisition);
    assert!(!flags("round-robin"));
    let ucb = models.selector("gp-ucb").expect("built in");
    assert_eq!(
        (ucb.provides_acquisition, ucb.gp_prior),
        (true, true),
        "{ucb:?}"
    );
    assert_eq!(gp::gp_ucb().name, ucb.name);
    let asha = models.selector("asha").expect("built in");
    assert_eq!((asha.provides_acquisition, asha.gp_prior), (true, false));
    assert!(jobs.scheduler("las").expect("built in").preemptive && las::entry().preemptive);
    assert!(!jobs.scheduler("fifo").expect("built in").preemptive);
    assert!(max_min_fairness::entry().needs_rounds);
    assert!(!fifo::entry().needs_rounds);
    // The builder methods set each flag.
    let e = SchedulerEntry::of("x", "", || Lowest).needs_acquisition(true);
    assert!(e.needs_acquisition);
    let e = SelectorEntry::of("x", "", || InOrder)
        .provides_acquisition(true)
        .gp_prior(true);
    assert!(e.provides_acquisition && e.gp_prior);
    let e = JobSchedulerEntry::from_parse("x", "", |p| (fifo::entry().parse)(p))
        .preemptive(true)
        .needs_rounds(true);
    assert!(e.preemptive && e.needs_rounds);
}

/// A selector whose `observe` returns an error ends the run with that
/// error: a policy error (exit 1) naming the policy, and no results folder
/// (issue 16: a Python exception in a policy leaves no results folder).
#[test]
fn a_policy_error_ends_the_run_with_that_error() {
    struct FailsToObserve;
    impl Selector for FailsToObserve {
        fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
            InOrder.propose(tenants, tenant)
        }
        fn observe(&mut self, _: usize, _: usize, _: f64) -> Result<()> {
            Err(Error::policy("observe failed on purpose"))
        }
    }
    struct FailsToPick;
    impl Scheduler for FailsToPick {
        fn pick(&mut self, _: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
            Err(Error::policy("pick failed on purpose"))
        }
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut registry = Registry::builtin();
    registry
        .add_selector(SelectorEntry::of("failing", "", || FailsToObserve))
        .expect("new");
    registry
        .add_scheduler(SchedulerEntry::of("fails-to-pick", "", || FailsToPick))
        .expect("new");
    for (scheduler, selector, message) in [
        ("round-robin", "failing", "observe failed on purpose"),
        ("fails-to-pick", "in-order", "pick failed on purpose"),
    ] {
        let dir = tmp.path().join(selector);
        fs::create_dir_all(&dir).expect("mkdir");
        let path = hand_scenario(&dir, scheduler, selector);
        let out = dir.join("out");
        let e = run_with(path, out.clone(), &registry).expect_err("fails");
        assert_eq!(e.kind(), ErrorKind::Policy, "{e}");
        assert_eq!(e.exit_code(), 1, "{e}");
        let text = e.to_string();
        assert!(text.contains(message), "{text}");
        assert!(text.contains("`p`"), "names the policy: {text}");
        assert!(!out.exists(), "no results folder");
    }
}

/// A job scheduler that cannot be made ends the run with the builder's
/// error (the job factory returns a `Result`), naming the policy.
#[test]
fn a_job_scheduler_that_cannot_be_made_ends_the_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/jobs-quickstart.toml")).expect("read");
    let text = text.replace("../traces/", &format!("{}/", repo("traces").display()));
    let head = &text[..text.find("[[policy]]").expect("policies")];
    let path = tmp.path().join("s.toml");
    fs::write(
        &path,
        format!("{head}[[policy]]\nname = \"p\"\nscheduler = \"unmade\"\n"),
    )
    .expect("write");
    let mut registry = Registry::builtin();
    registry
        .add_job_scheduler(JobSchedulerEntry::new("unmade", "", |_p: &mut Params| {
            Ok(|_init: &SchedInit<'_>| -> Result<Box<dyn JobScheduler>> {
                Err(Error::policy("cannot be made on purpose"))
            })
        }))
        .expect("new");
    let out = tmp.path().join("out");
    let e = run_with(path, out.clone(), &registry).expect_err("fails");
    assert_eq!(e.kind(), ErrorKind::Policy, "{e}");
    assert_eq!(e.exit_code(), 1, "{e}");
    assert!(e.to_string().contains("cannot be made on purpose"), "{e}");
    assert!(
        e.to_string().contains("policy `p`"),
        "names the policy: {e}"
    );
    assert!(!out.exists(), "no results folder");
}
