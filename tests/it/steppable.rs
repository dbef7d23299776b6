//! The steppable engine (issue 31, DESIGN §15): a model-mode run driven one
//! decision at a time by the scheduler's own picks is the batch run; a fork
//! continued by the same policy is the unforked run; a choice that breaks
//! the rules is refused and changes nothing.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use tenantsim::models::experiment::{Episode, simulate_one, write_episode};
use tenantsim::models::scenario::{Scenario, load_scenario};
use tenantsim::models::sim::Choice;

use crate::common::{comparable, model_scenarios, repo, tenantsim, tree};

fn load(path: &Path) -> Arc<Scenario> {
    Arc::new(load_scenario(path, Default::default()).expect("a bundled scenario loads"))
}

/// Step `episode` to its end, every decision the scheduler's; the number
/// of decisions taken.
fn to_end(episode: &mut Episode) -> usize {
    let mut n = 0;
    while let Some(point) = episode.next_decision().expect("steps") {
        episode
            .decide(point.policy_choice)
            .expect("the policy's choice is valid");
        n += 1;
    }
    n
}

#[test]
fn every_bundled_model_scenario_stepped_by_its_own_policy_is_the_batch_run() {
    for path in model_scenarios() {
        let scenario = load(&path);
        for policy in 0..scenario.policies.len() {
            for rep in 0..u64::from(scenario.repetitions()).min(2) {
                let mut e = Episode::new(Arc::clone(&scenario), rep, policy).expect("episode");
                to_end(&mut e);
                let stepped = e.finish(true).expect("finishes");
                let batch = simulate_one(&scenario, rep, policy).expect("batch");
                assert!(
                    comparable(&stepped) == comparable(&batch),
                    "{}: policy {policy}, repetition {rep}: the stepped run differs from the batch run",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn a_fork_continued_by_the_same_policy_is_the_unforked_run_at_every_fork_point() {
    for path in model_scenarios() {
        let scenario = load(&path);
        let policy = scenario.policies.len() - 1;
        let batch = comparable(&simulate_one(&scenario, 0, policy).expect("batch"));
        let mut whole = Episode::new(Arc::clone(&scenario), 0, policy).expect("episode");
        let n = to_end(&mut whole);
        for at in [0, n / 3, 2 * n / 3, n.saturating_sub(1)] {
            let mut e = Episode::new(Arc::clone(&scenario), 0, policy).expect("episode");
            for _ in 0..at {
                let point = e.next_decision().expect("steps").expect("a decision");
                e.decide(point.policy_choice).expect("valid");
            }
            let mut fork = e.fork().expect("every built-in policy forks");
            // The original goes on first, then the fork: they share nothing.
            to_end(&mut e);
            to_end(&mut fork);
            let (a, b) = (
                e.finish(true).expect("ends"),
                fork.finish(true).expect("ends"),
            );
            assert!(
                comparable(&a) == batch && comparable(&b) == batch,
                "{}: forked at decision {at} of {n}: a continuation differs from the unforked run",
                path.display()
            );
        }
    }
}

#[test]
fn a_choice_that_breaks_the_rules_is_refused_and_changes_nothing() {
    let scenario = load(&repo("scenarios/quickstart.toml"));
    let batch = comparable(&simulate_one(&scenario, 0, 0).expect("batch"));
    let mut e = Episode::new(Arc::clone(&scenario), 0, 0).expect("episode");
    let point = e.next_decision().expect("steps").expect("a decision");
    let n = e.tenants().len();
    let err = e.decide(Choice::Tenant(n)).expect_err("out of range");
    assert!(err.to_string().contains(&format!("tenant {n}")), "{err}");
    // Tenant 0's model 0 is its first; naming a model past the trace's is refused.
    let err = e
        .decide(Choice::Pair(0, 10_000))
        .expect_err("no such model");
    assert!(err.to_string().contains("model 10000"), "{err}");
    assert_eq!(
        e.next_decision().expect("steps"),
        Some(point),
        "the point is still pending"
    );
    to_end(&mut e);
    assert!(comparable(&e.finish(true).expect("ends")) == batch);
}

#[test]
fn switching_to_another_policy_at_the_first_decision_is_that_policys_run() {
    // At the first decision only arrivals have happened: the new
    // scheduler hears of them, the new selector has observed nothing.
    let scenario = load(&repo("scenarios/quickstart.toml"));
    for to in 1..scenario.policies.len() {
        let mut e = Episode::new(Arc::clone(&scenario), 0, 0).expect("episode");
        e.next_decision().expect("steps").expect("a decision");
        e.switch_policy(to).expect("switches");
        to_end(&mut e);
        let switched = e.finish(true).expect("ends");
        let batch = simulate_one(&scenario, 0, to).expect("batch");
        assert!(comparable(&switched) == comparable(&batch), "policy {to}");
    }
}

#[test]
fn an_episodes_results_folder_is_the_run_of_its_policy_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let text = fs::read_to_string(repo("scenarios/quickstart.toml")).expect("readable");
    let mut t: toml::Table = text.parse().expect("TOML");
    t.insert("repetitions".into(), toml::Value::Integer(1));
    let second = t["policy"].as_array().expect("policies")[1].clone();
    t.insert("policy".into(), toml::Value::Array(vec![second]));
    let trace = repo("traces/hand.csv");
    t["trace"].as_table_mut().expect("[trace]").insert(
        "path".into(),
        toml::Value::String(trace.display().to_string()),
    );
    let alone = tmp.path().join("alone.toml");
    fs::write(&alone, toml::to_string(&t).expect("TOML")).expect("write");
    let cli = tmp.path().join("cli");
    tenantsim()
        .args(["run", "--quiet", "--jobs", "--no-plots", "--out"])
        .arg(&cli)
        .arg(&alone)
        .assert()
        .success();
    // The second policy of the four, stepped to its end in the scenario
    // with all four.
    let scenario = load(&repo("scenarios/quickstart.toml"));
    let mut e = Episode::new(Arc::clone(&scenario), 0, 1).expect("episode");
    to_end(&mut e);
    let result = e.finish(true).expect("ends");
    let stepped = tmp.path().join("stepped");
    write_episode(&stepped, &scenario, &result, true).expect("writes");
    let (mut a, mut b) = (tree(&cli), tree(&stepped));
    a.remove(Path::new("run.json"));
    b.remove(Path::new("run.json"));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(v == &b[k], "{} differs", k.display());
    }
}

#[test]
fn the_regret_accrued_step_by_step_is_the_runs_cumulative_regret() {
    for path in model_scenarios() {
        let scenario = load(&path);
        let mut e = Episode::new(Arc::clone(&scenario), 0, 0).expect("episode");
        e.track_regret().expect("before the first step");
        let mut last = 0.0;
        while let Some(point) = e.next_decision().expect("steps") {
            let now = e.run().regret_area().expect("tracked");
            assert!(now >= last, "the area never shrinks");
            last = now;
            e.decide(point.policy_choice).expect("valid");
        }
        let area = e.run().regret_area().expect("tracked");
        let result = e.finish(false).expect("ends");
        if result.curve.stalled() {
            continue;
        }
        let r = result.metrics.cumulative_regret;
        assert!(
            (area - r).abs() <= 1e-9 * r.abs().max(1.0),
            "{}: accrued {area}, reported {r}",
            path.display()
        );
    }
}

/// Regression (found by python/examples/learn_allocator.py, EXPERIMENTS
/// §11): an episode that idles at every decision ends stalled at its last
/// arrival; its results report R(H) up to the stall horizon (DESIGN §2.6),
/// and `Episode::reported_regret` — minus a gym episode's return — must
/// be that figure, not the smaller R(end) accrued up to the stall.
#[test]
fn an_idle_episode_reports_the_stalled_runs_regret_up_to_the_stall_horizon() {
    for name in ["quickstart.toml", "online-lcdb-low-load.toml"] {
        let scenario = load(&repo(&format!("scenarios/{name}")));
        let mut e = Episode::new(Arc::clone(&scenario), 0, 0).expect("episode");
        e.track_regret().expect("before the first step");
        let mut steps = 0;
        while e.next_decision().expect("steps").is_some() {
            e.decide(Choice::Idle).expect("idle is always allowed");
            steps += 1;
        }
        assert!(steps > 0, "{name}: no decision");
        let area = e.run().regret_area().expect("tracked");
        let reported = e.reported_regret().expect("tracked");
        let result = e.finish(false).expect("ends");
        assert!(result.curve.stalled(), "{name}: idling stalls the run");
        let r = result.metrics.cumulative_regret;
        assert!(r > area, "{name}: R(H) {r} is above R(end) {area}");
        assert!(
            (reported - r).abs() <= 1e-9 * r.abs().max(1.0),
            "{name}: reported_regret {reported}, the results' {r}"
        );
    }
}

/// Regression (DESIGN §2.6, the loophole EXPERIMENTS §11's learner could
/// use): an episode that follows its policy for a few decisions and then
/// idles ends early, with nothing running, while tenants still have models
/// to run. Its loss was lowered, so it is not the "ran nothing" stall; it
/// is "left idle", and its results report its loss held up to the stall
/// horizon, R(H) > R(end) — the same figure `Episode::reported_regret`
/// gives a gym episode — so stopping early never pays.
#[test]
fn an_episode_that_idles_after_progress_reports_its_loss_up_to_the_stall_horizon() {
    use tenantsim::models::metrics::stall::Stall;
    for name in ["quickstart.toml", "online-lcdb-low-load.toml"] {
        let scenario = load(&repo(&format!("scenarios/{name}")));
        let mut e = Episode::new(Arc::clone(&scenario), 0, 0).expect("episode");
        e.track_regret().expect("before the first step");
        let mut steps = 0;
        while let Some(point) = e.next_decision().expect("steps") {
            let choice = if steps < 3 {
                point.policy_choice
            } else {
                Choice::Idle
            };
            e.decide(choice).expect("valid");
            steps += 1;
        }
        assert!(steps > 3, "{name}: too few decisions");
        let area = e.run().regret_area().expect("tracked");
        let reported = e.reported_regret().expect("tracked");
        let result = e.finish(false).expect("ends");
        assert_eq!(result.curve.stall(), Some(Stall::LeftIdle), "{name}");
        let r = result.metrics.cumulative_regret;
        assert!(r > area, "{name}: R(H) {r} is above R(end) {area}");
        assert!(
            (reported - r).abs() <= 1e-9 * r.abs().max(1.0),
            "{name}: reported_regret {reported}, the results' {r}"
        );
    }
}
