//! Stepping shared scenarios (issue 31, DESIGN §15.6): the cluster
//! scheduler's decisions of a shared run (background jobs, the
//! model-selection service and workflows on one cluster) driven one at a
//! time by the scheduler's own choices give the batch run byte for byte;
//! forks continued the same way give the unforked run; a choice that
//! breaks the rules is refused and changes nothing.

use serde_json::Value;
use tenantsim::core::io::scenario::Overrides;
use tenantsim::core::run::mode::Mode;
use tenantsim::core::sim::held::Held;
use tenantsim::jobs::sim::{JobChoice, JobSchedulerFactory};
use tenantsim::shared::run::{encode_shared_run, simulate_shared_run, simulate_shared_run_with};
use tenantsim::shared::scenario::SharedScenario;
use tenantsim::shared::sim::{
    PolicyPair, SharedInput, SharedOutcome, SharedStepper, simulate_shared,
};

use crate::common::repo;

/// Background jobs drawn per run (a sample of the gavel trace keeps a
/// debug-build test within seconds).
const CUT: usize = 40;

/// The service's horizon in the scenarios stepped here, hours.
const SERVICE_HOURS: u64 = 12;

/// Decisions at which a fork is taken (three per run: every run here has
/// more than 30 decisions).
const FORKS: [usize; 3] = [0, 7, 30];

/// The bundled shared scenarios (`scenarios/shared-*.toml`: their traces
/// are bundled in traces/); each has a test below.
const SCENARIOS: [&str; 4] = [
    "shared-lcdb-gavel-mmf.toml",
    "shared-lcdb-gavel.toml",
    "shared-quickstart.toml",
    "shared-workflows-quickstart.toml",
];

#[test]
fn every_bundled_shared_scenario_has_a_stepping_test() {
    let mut found: Vec<String> = std::fs::read_dir(repo("scenarios"))
        .expect("scenarios/")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.starts_with("shared-") && n.ends_with(".toml"))
        .collect();
    found.sort();
    assert_eq!(
        found, SCENARIOS,
        "a new shared scenario needs its test here"
    );
}

/// The scenario `file` of scenarios/: of a sweep, the first point of each
/// service priority (so both `low` and `equal` are stepped), its
/// background drawn as a sample of at most [`CUT`] jobs per repetition and
/// its service's horizon at most [`SERVICE_HOURS`].
fn scenario_points(file: &str) -> Vec<SharedScenario> {
    let path = repo("scenarios").join(file);
    let plan = tenantsim::registry::Registry::builtin()
        .shared_mode()
        .load_plan(&path, Overrides::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out: Vec<SharedScenario> = Vec::new();
    for s in plan.scenarios() {
        let priority = s.service.as_ref().map(|v| v.priority);
        if out
            .iter()
            .any(|o| o.service.as_ref().map(|v| v.priority) == priority)
        {
            continue;
        }
        let mut s = s.clone();
        if let Some(b) = &mut s.background {
            // A sample of CUT jobs per repetition, as `[jobs] sample`.
            let n = b.trace.jobs().len();
            let k = b.file.jobs.sample.unwrap_or(n).min(n).min(CUT);
            b.file.jobs.sample = Some(k);
        }
        if let Some(v) = &mut s.service {
            // The service decides for its first hours only (its horizon,
            // DESIGN §13.2): under `equal` every request is a pass.
            let h = v
                .scenario
                .config
                .horizon
                .unwrap_or(u64::MAX)
                .min(SERVICE_HOURS * 3_600_000_000);
            v.scenario.config.horizon = Some(h);
        }
        out.push(s);
    }
    out
}

/// An outcome without its measurements (the policy clocks), as JSON.
fn comparable(o: &SharedOutcome) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("policy_clock");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(o).expect("serialises");
    strip(&mut v);
    v
}

/// Drive `run` with the scheduler's choices to its end.
fn follow(mut run: SharedStepper<'_>) -> (SharedOutcome, usize) {
    let mut steps = 0;
    while let Some(point) = run.next_decision().expect("a decision").cloned() {
        run.decide(point.policy_choice.expect("the scheduler advises"))
            .expect("the scheduler's choice is valid");
        steps += 1;
    }
    (run.into_outcome().expect("an outcome"), steps)
}

/// Fresh copies of the service's policies (nothing happened to them yet).
fn twin<'o>(svc: &Option<PolicyPair<'_>>) -> Option<PolicyPair<'o>> {
    svc.as_ref().map(|p| PolicyPair {
        scheduler: Held::Owned(p.scheduler.fork().expect("forkable scheduler")),
        selector: Held::Owned(p.selector.fork().expect("forkable selector")),
    })
}

/// The batch outcome of `input`.
fn batch(
    input: &SharedInput<'_>,
    cluster: &JobSchedulerFactory,
    seed: u64,
    rep: u64,
    mut svc: Option<PolicyPair<'_>>,
) -> SharedOutcome {
    let policies = svc
        .as_mut()
        .map(|p| (&mut *p.scheduler as _, &mut *p.selector as _));
    simulate_shared(input, cluster, seed, rep, policies).expect("the batch run")
}

/// The first and last policies of every point of `file` (repetition 0),
/// stepped by the
/// cluster scheduler's choices, is the batch run; forks taken at the
/// [`FORKS`] decisions and continued the same way are too.
fn stepped_is_batch_and_forks_continue(file: &str) {
    let mut runs = 0;
    let mut forks = 0;
    for s in scenario_points(file) {
        // The first policy and the last (ease.ml's GP selector where the
        // scenario has it) keep a debug-build test near 5 s.
        let mut policies = vec![0, s.policies() - 1];
        policies.dedup();
        for policy in policies {
            let name = format!("{file} policy {policy}");
            simulate_shared_run_with(
                &s,
                0,
                policy,
                true,
                &mut |input, cluster, seed, rep, svc| {
                    let expected = comparable(&batch(input, cluster, seed, rep, twin(&svc)));
                    let mut run = SharedStepper::new(input, cluster, seed, rep, svc)?;
                    let mut taken = Vec::new();
                    let mut k = 0;
                    while let Some(point) = run.next_decision()?.cloned() {
                        if FORKS.contains(&k) {
                            taken.push((k, run.fork()?));
                        }
                        run.decide(point.policy_choice.expect("the scheduler advises"))?;
                        k += 1;
                    }
                    let got = run.into_outcome()?;
                    assert_eq!(comparable(&got), expected, "{name}: stepped != batch");
                    assert!(
                        taken.len() >= FORKS.len().min(k),
                        "{name}: {} forks at {k} decisions",
                        taken.len()
                    );
                    for (at, fork) in taken {
                        let (o, _) = follow(fork);
                        assert_eq!(comparable(&o), expected, "{name}: fork at decision {at}");
                        forks += 1;
                    }
                    if let Some(o) = &got.service {
                        assert!(!o.jobs.is_empty(), "{name}: the service ran no job");
                    }
                    runs += 1;
                    Ok(got)
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    assert!(runs >= 2, "{file}: only {runs} runs compared");
    assert!(
        forks >= 3 * runs,
        "{file}: only {forks} forks for {runs} runs"
    );
}

#[test]
fn shared_lcdb_gavel_mmf_stepped_is_the_batch_run_and_so_are_its_forks() {
    stepped_is_batch_and_forks_continue(SCENARIOS[0]);
}

#[test]
fn shared_lcdb_gavel_stepped_is_the_batch_run_and_so_are_its_forks() {
    stepped_is_batch_and_forks_continue(SCENARIOS[1]);
}

#[test]
fn shared_quickstart_stepped_is_the_batch_run_and_so_are_its_forks() {
    stepped_is_batch_and_forks_continue(SCENARIOS[2]);
}

#[test]
fn shared_workflows_quickstart_stepped_is_the_batch_run_and_so_are_its_forks() {
    stepped_is_batch_and_forks_continue(SCENARIOS[3]);
}

#[test]
fn a_stepped_shared_run_gives_the_batch_runs_results_byte_for_byte() {
    // The whole scenario, uncut: the run `tenantsim run` simulates for
    // repetition 0 (its encoding holds every result file's data), the
    // wall-clock time and policy clocks aside.
    let path = repo("scenarios/shared-quickstart.toml");
    let registry = tenantsim::registry::Registry::builtin();
    let plan = registry
        .shared_mode()
        .load_plan(&path, Overrides::default())
        .expect("loads");
    let s = plan.scenarios()[0];
    for policy in 0..s.policies() {
        let mut expected = simulate_shared_run(s, 0, policy, true).expect("batch");
        let mut got =
            simulate_shared_run_with(s, 0, policy, true, &mut |input, c, seed, rep, svc| {
                Ok(follow(SharedStepper::new(input, c, seed, rep, svc)?).0)
            })
            .expect("stepped");
        for run in [&mut expected, &mut got] {
            if let Some(b) = &mut run.background {
                b.elapsed = std::time::Duration::ZERO;
                b.outcome.policy_clock = Default::default();
            }
            if let Some(r) = &mut run.service {
                r.elapsed = std::time::Duration::ZERO;
                r.policy_time = std::time::Duration::ZERO;
                r.outcome.policy_clock = Default::default();
            }
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        encode_shared_run(&expected, &mut a).expect("encodes");
        encode_shared_run(&got, &mut b).expect("encodes");
        assert!(
            a == b,
            "policy {policy}: the stepped run's encoding differs"
        );
    }
}

#[test]
fn an_invalid_choice_is_refused_and_changes_nothing() {
    let path = repo("scenarios/shared-quickstart.toml");
    let registry = tenantsim::registry::Registry::builtin();
    let plan = registry
        .shared_mode()
        .load_plan(&path, Overrides::default())
        .expect("loads");
    let s = plan.scenarios()[0];
    let mut checked = 0;
    simulate_shared_run_with(s, 0, 0, true, &mut |input, cluster, seed, rep, svc| {
        let expected = comparable(&batch(input, cluster, seed, rep, twin(&svc)));
        let mut run = SharedStepper::new(input, cluster, seed, rep, svc)?;
        let n = run.state().jobs().len() as u32;
        while let Some(point) = run.next_decision()?.cloned() {
            if checked < 3 && !point.waiting.is_empty() {
                let before = run.pending().cloned();
                let e = run
                    .decide(JobChoice::Start(n + 3))
                    .expect_err("out of range")
                    .to_string();
                assert!(e.contains(&format!("job {}", n + 3)), "{e}");
                let w = point.waiting[0];
                let e = run
                    .decide(JobChoice::Preempt(w))
                    .expect_err("a waiting job is not running")
                    .to_string();
                assert!(e.contains("not running"), "{e}");
                assert_eq!(run.pending().cloned(), before, "the point stays pending");
                assert!(!run.is_detached(), "a refused choice detaches nothing");
                checked += 1;
            }
            run.decide(point.policy_choice.expect("advised"))?;
        }
        let got = run.into_outcome()?;
        assert_eq!(
            comparable(&got),
            expected,
            "refused choices changed the run"
        );
        Ok(got)
    })
    .expect("runs");
    assert_eq!(checked, 3);
}

#[test]
fn a_deviation_detaches_the_cluster_scheduler_and_a_driver_finishes_the_run() {
    // The `equal` point of shared-lcdb-gavel: the service's requests wait
    // in the cluster's queue beside the background's jobs.
    let s = scenario_points(SCENARIOS[1])
        .into_iter()
        .find(|s| {
            s.service
                .as_ref()
                .is_some_and(|v| v.priority == tenantsim::shared::sim::Priority::Equal)
        })
        .expect("an `equal` point");
    let mut deviated = false;
    simulate_shared_run_with(&s, 0, 0, true, &mut |input, cluster, seed, rep, svc| {
        let expected = comparable(&batch(input, cluster, seed, rep, twin(&svc)));
        let mut run = SharedStepper::new(input, cluster, seed, rep, svc)?;
        while let Some(point) = run.next_decision()?.cloned() {
            if !deviated {
                if matches!(
                    point.policy_choice,
                    Some(JobChoice::Start(_) | JobChoice::StartOn(..))
                ) {
                    // The deviation: end the pass instead of starting.
                    run.decide(JobChoice::EndPass)?;
                    assert!(run.is_detached(), "ending a pass early detaches");
                    deviated = true;
                } else {
                    run.decide(point.policy_choice.expect("advised until the deviation"))?;
                }
                continue;
            }
            assert_eq!(point.policy_choice, None, "detached: no advice");
            // The driver: the first waiting job that fits, else end.
            let fits = point
                .waiting
                .iter()
                .any(|&j| run.decide(JobChoice::Start(j)).is_ok());
            if !fits {
                run.decide(JobChoice::EndPass)?;
            }
        }
        assert!(run.is_detached(), "the driver deviated");
        let got = run.into_outcome()?;
        let bg = got.background.as_ref().expect("a background");
        assert!(
            bg.end.iter().all(|&e| e != u64::MAX),
            "every background job completes under the driver"
        );
        assert_ne!(comparable(&got), expected, "the deviations changed the run");
        Ok(got)
    })
    .expect("the driven run ends");
    assert!(deviated);
}
