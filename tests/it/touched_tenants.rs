//! `ModelRun::track_touched` (DESIGN §15.3, "Incremental encoding"): the
//! run lists every tenant whose state changed. A gym environment
//! re-encodes only those tenants' observation, so a tenant left out
//! would keep a stale observation. Checked here against the state itself:
//! at every step of random episodes (random eligible tenants and pairs,
//! idle choices among them), every tenant whose readable state differs
//! from what it was at the last clear is listed.

use std::sync::Arc;

use tenantsim::core::testing::scenario_data;
use tenantsim::models::experiment::Episode;
use tenantsim::models::scenario::{Scenario, load_scenario};
use tenantsim::models::sim::{Choice, TenantLimits, Tenants};

use crate::common::repo;

/// Everything a policy or an observation can read of tenant `i`.
fn state(t: &Tenants, k_models: usize, i: usize) -> Vec<u64> {
    let mut v = vec![
        u64::from(t.has_arrived(i)),
        u64::from(t.is_eligible(i)),
        u64::from(t.running(i)),
        u64::from(t.completed(i)),
        u64::from(t.untried(i)),
        t.best(i).to_bits(),
        t.used(i),
        u64::from(t.is_waiting(i)),
        u64::from(t.has_left(i)),
        u64::from(t.is_exhausted(i)),
        u64::from(t.started(i)),
    ];
    for k in 0..k_models {
        v.push(u64::from(t.is_tried(i, k)));
        v.push(t.level_started(i, k).map_or(u64::MAX, |l| l as u64));
        v.push(t.level_done(i, k).map_or(u64::MAX, |l| l as u64));
    }
    v
}

/// A small deterministic random stream (xorshift64*).
struct Stream(u64);

impl Stream {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

/// A random allowed choice: idle one time in eight, else an eligible
/// tenant, with one of its allowed models one time in three.
fn random_choice(ep: &Episode, rng: &mut Stream) -> Choice {
    let run = ep.run();
    let (t, trace) = (run.tenants(), run.trace());
    let eligible: Vec<usize> = (0..t.len()).filter(|&i| t.is_eligible(i)).collect();
    if eligible.is_empty() || rng.below(8) == 0 {
        return Choice::Idle;
    }
    let i = eligible[rng.below(eligible.len())];
    if rng.below(3) == 0 {
        let u = t.user(i);
        let models: Vec<usize> = (0..trace.n_models())
            .filter(|&k| {
                trace.is_available(u, k)
                    && !t.is_tried(i, k)
                    && t.level_started(i, k)
                        .is_none_or(|s| s < trace.top_level(u, k))
            })
            .collect();
        if !models.is_empty() {
            return Choice::Pair(i, models[rng.below(models.len())]);
        }
    }
    Choice::Tenant(i)
}

/// Step repetitions `reps` of `scenario` (policy 0) with random choices;
/// at every step, every tenant whose state changed since the last clear
/// is listed as touched. The number of changed tenants seen.
fn check(scenario: &Arc<Scenario>, reps: std::ops::Range<u64>) -> usize {
    let mut changes = 0;
    for rep in reps {
        let mut ep = Episode::new(Arc::clone(scenario), rep, 0).expect("an episode");
        ep.track_touched();
        let k = ep.run().trace().n_models();
        let n = ep.tenants().len();
        assert_eq!(ep.touched().len(), n, "every tenant is touched at first");
        let mut last: Vec<Vec<u64>> = (0..n).map(|i| state(ep.tenants(), k, i)).collect();
        ep.clear_touched();
        let mut rng = Stream(0x9e37_79b9_7f4a_7c15 ^ rep);
        let mut compare = |ep: &mut Episode, what: &str| {
            for (i, before) in last.iter_mut().enumerate() {
                let now = state(ep.tenants(), k, i);
                if now != *before {
                    changes += 1;
                    assert!(
                        ep.touched().contains(&(i as u32)),
                        "{} rep {rep}: tenant {i} changed {what} but is not listed as touched",
                        scenario.name()
                    );
                    *before = now;
                }
            }
            ep.clear_touched();
        };
        let mut steps = 0;
        while let Some(_point) = ep.next_decision().expect("a decision") {
            compare(&mut ep, "in the events before a decision");
            let choice = random_choice(&ep, &mut rng);
            ep.decide(choice).expect("an allowed choice");
            compare(&mut ep, "in a decision");
            steps += 1;
            if steps == 4000 {
                break;
            }
        }
        compare(&mut ep, "at the end");
    }
    changes
}

fn scenario(name: &str) -> Arc<Scenario> {
    let path = repo("scenarios").join(name);
    Arc::new(load_scenario(&path, Default::default()).expect("a bundled scenario loads"))
}

#[test]
fn every_tenant_whose_state_changed_is_listed_as_touched() {
    // Tenants arriving after t = 0 on 4 GPUs, with a patience some run
    // out of (their jobs cancelled), a budget and a job cap.
    let mut limited = (*scenario("online-lcdb-high-load.toml")).clone();
    limited.config.limits = TenantLimits {
        patience: Some(120_000_000),
        budget: Some(4_000_000_000),
        max_jobs: Some(12),
    };
    let limited = Arc::new(limited);
    let mut changes = check(&limited, 0..2);
    let left = {
        let mut ep = Episode::new(Arc::clone(&limited), 0, 0).expect("an episode");
        let mut rng = Stream(1);
        while ep.next_decision().expect("a decision").is_some() {
            let c = random_choice(&ep, &mut rng);
            ep.decide(c).expect("an allowed choice");
        }
        (0..ep.tenants().len())
            .filter(|&i| ep.tenants().has_left(i))
            .count()
    };
    assert!(
        left > 0,
        "no tenant ran out of patience: the case tests less than it says"
    );
    // Typed GPUs; curves (levels) on 8 GPUs; a plain trace on 2 GPUs.
    for name in [
        "easeml-dl-mixed.toml",
        "lcdb-curves-8gpu.toml",
        "quickstart.toml",
    ] {
        // easeml-dl-mixed reads ../shared/data: a fresh clone skips it
        // with a note (tests/it/fresh_clone.rs).
        if !scenario_data(&repo("scenarios").join(name)) {
            continue;
        }
        changes += check(&scenario(name), 0..2);
    }
    assert!(changes > 1000, "only {changes} changes seen");
}
