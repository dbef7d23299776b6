//! Arrivals drawn as the run goes (`[arrivals] order = "streamed"`,
//! DESIGN §2.8; issue 34): the engine holds one instant's arrivals at a
//! time instead of every tenant's time, and a run is the run of the same
//! times listed, bit for bit (job log, outcome, folded metrics), with ties
//! at one microsecond, patience, a horizon that leaves tenants unarrived,
//! and every policy.

use std::path::Path;
use std::sync::{Arc, Mutex};

use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::experiment::{simulate_one, simulate_rep_with};
use tenantsim::models::metrics::{RepResult, RunFold};
use tenantsim::models::scenario::{Scenario, parse_scenario};
use tenantsim::models::sim::{
    Arrivals, JobSink, ModelRun, RunEndState, SharedInput, simulate, simulate_observed_shared,
};

use crate::common::comparable;

/// A scenario of 50 tenants arriving by a streamed Poisson process of
/// `rate_per_hour`, with `extra` top-level keys.
fn scenario(rate_per_hour: f64, extra: &str) -> Scenario {
    let text = format!(
        "name = \"streamed\"\nseed = 5\nrepetitions = 3\nthresholds = [0.05, 0.01]\n{extra}\n\
         [trace.syn]\nusers = 60\nmodels = 5\nmodel_sd = 0.1\nuser_sd = 0.05\n\
         cost = \"uniform(0,500)\"\nseed = 2\n\
         [split]\nprior_count = 10\n\
         [arrivals]\nkind = \"poisson\"\nrate_per_hour = {rate_per_hour}\norder = \"streamed\"\n\
         [limits]\npatience_s = 400\n\
         [cluster]\ngpus = 3\n\
         [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n\
         [[policy]]\nname = \"rr\"\nscheduler = \"round-robin\"\nselector = \"random\"\n"
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/streamed.toml");
    parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// `r` comparable to a run of the same times listed: its arrivals as a
/// list.
fn with_listed_arrivals(r: &RepResult) -> serde_json::Value {
    let mut v = comparable(r);
    if let Some(o) = v.as_object_mut() {
        o.insert(
            "arrivals".into(),
            serde_json::to_value(Arrivals::Listed(r.arrivals.to_list())).expect("serialises"),
        );
    }
    v
}

/// The input with its arrival times listed.
fn listed<'a>(i: &SharedInput<'a>) -> SharedInput<'a> {
    SharedInput {
        arrivals: Arrivals::Listed(i.arrivals.to_list()),
        ..i.clone()
    }
}

#[test]
fn a_streamed_run_is_the_run_of_its_listed_times() {
    let cases = [
        // About 4 tenants present at once.
        (300.0, ""),
        // Every arrival within a few microseconds: ties at one instant.
        (3.6e12, ""),
        // A horizon before the last arrivals: tenants that never arrive,
        // whose times the end of the run draws again.
        (120.0, "horizon_s = 900"),
    ];
    for (rate, extra) in cases {
        let s = scenario(rate, extra);
        for policy in 0..s.policies.len() {
            for rep in 0..u64::from(s.repetitions()) {
                let label = format!("rate {rate} {extra}: policy {policy}, repetition {rep}");
                // The default run: streamed, folded.
                let streamed = simulate_one(&s, rep, policy).expect("runs");
                assert!(streamed.arrivals.listed().is_none(), "{label}: listed");
                // The same engine and fold, with the job log, streamed and
                // listed.
                let folded = |list: bool| {
                    simulate_rep_with(&s, rep, policy, true, &mut |i, a, b| {
                        let input = if list { listed(i) } else { i.clone() };
                        let fold = RunFold::new(i.tenants.len(), &s.thresholds);
                        simulate_observed_shared(&input, a, b, Box::new(fold), true)
                    })
                    .expect("runs")
                };
                let (from_stream, from_list) = (folded(false), folded(true));
                assert!(!from_stream.outcome.jobs.is_empty(), "{label}: no job ran");
                assert_eq!(
                    with_listed_arrivals(&from_stream),
                    with_listed_arrivals(&from_list),
                    "{label}: streamed and listed runs differ"
                );
                // And the metrics computed from the listed run's log.
                let batch = simulate_rep_with(&s, rep, policy, true, &mut |i, mut a, mut b| {
                    simulate(&listed(i).lent()?, a.as_mut(), b.as_mut())
                })
                .expect("runs");
                assert_eq!(
                    with_listed_arrivals(&from_stream),
                    with_listed_arrivals(&batch),
                    "{label}: the streamed fold differs from the log's metrics"
                );
                assert_eq!(
                    with_listed_arrivals(&streamed),
                    with_listed_arrivals(&from_list),
                    "{label}: the default run differs"
                );
            }
        }
    }
}

/// Every call the engine makes to a sink, in order.
#[derive(Debug, Clone, Default)]
struct Calls(Arc<Mutex<Vec<String>>>);

impl Calls {
    fn push(&self, call: String) {
        if let Ok(mut v) = self.0.lock() {
            v.push(call);
        }
    }
    fn taken(&self) -> Vec<String> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

impl JobSink for Calls {
    fn arrived(&mut self, now: u64, i: usize, best_possible: f64) {
        self.push(format!("arrived {now} {i} {best_possible}"));
    }
    fn started(&mut self, i: usize, start: u64, end: u64) {
        self.push(format!("started {i} {start} {end}"));
    }
    fn completed(&mut self, i: usize, start: u64, at: u64, acc: f64) {
        self.push(format!("completed {i} {start} {at} {acc}"));
    }
    fn cancelled(&mut self, i: usize, start: u64, at: u64) {
        self.push(format!("cancelled {i} {start} {at}"));
    }
    fn done(&mut self, i: usize) {
        self.push(format!("done {i}"));
    }
    fn fork(&self) -> Box<dyn JobSink> {
        Box::new(Calls(Arc::new(Mutex::new(self.taken()))))
    }
    fn finish(
        self: Box<Self>,
        state: &RunEndState<'_>,
        _models: &dyn Fn(usize) -> usize,
        _best_possible: &dyn Fn(usize) -> f64,
        _cut: &mut dyn Iterator<Item = (usize, u64, u64)>,
    ) -> Arc<dyn std::any::Any + Send + Sync> {
        self.push(format!("end {} last {}", state.end, state.arrivals.last()));
        Arc::new(())
    }
}

/// At one instant the tenants arrive in tenant order, as the listed
/// batch has them: the engine's calls, in order, are those of the listed
/// run (the outcomes above cannot tell: the built-in policies break ties
/// by tenant, whatever the order they were told in).
#[test]
fn tenants_arriving_at_one_instant_arrive_in_tenant_order() {
    for (rate, extra) in [(3.6e12, ""), (3.6e9, ""), (300.0, "horizon_s = 500")] {
        let s = scenario(rate, extra);
        for policy in 0..s.policies.len() {
            let calls = |list: bool| {
                let sink = Calls::default();
                simulate_rep_with(&s, 0, policy, false, &mut |i, a, b| {
                    let input = if list { listed(i) } else { i.clone() };
                    simulate_observed_shared(&input, a, b, Box::new(sink.clone()), false)
                })
                .expect("runs");
                sink.taken()
            };
            let (streamed, listed) = (calls(false), calls(true));
            let at_once = listed
                .windows(2)
                .filter(|w| {
                    let time = |c: &str| {
                        c.strip_prefix("arrived ")
                            .map(|r| r.split(' ').next().map(str::to_owned))
                    };
                    w[0].starts_with("arrived") && time(&w[0]) == time(&w[1])
                })
                .count();
            assert!(
                rate < 1e6 || at_once > 5,
                "rate {rate}: {at_once} arrivals at once"
            );
            assert_eq!(streamed, listed, "rate {rate}, policy {policy}");
        }
    }
}

/// Ties: a rate of 10^9 arrivals a second puts many tenants at one
/// microsecond; they still arrive in tenant order there (the listed
/// batch's order), checked on the job log above. Here: the horizon case
/// really leaves tenants unarrived, and an input drawn as the run goes
/// cannot be lent as a list.
#[test]
fn a_horizon_leaves_streamed_tenants_unarrived_with_their_drawn_times() {
    let s = scenario(120.0, "horizon_s = 900");
    let r = simulate_one(&s, 0, 0).expect("runs");
    let times = r.arrivals.to_list();
    let late = times.iter().filter(|&&t| t > 900_000_000).count();
    assert!(late > 10, "{late} tenants after the horizon");
    let rows = r.tenants.to_vec().expect("rows");
    for (row, &t) in rows.iter().zip(times.iter()) {
        assert_eq!(row.arrival, t);
    }
    // A result holds the draw, not a list, and reads back as it was
    // stored (the result cache and the shards store results this way).
    let mut bytes = Vec::new();
    tenantsim::core::io::codec::encode(&r, &mut bytes).expect("encodes");
    let back: RepResult = tenantsim::core::io::codec::decode(&bytes).expect("decodes");
    assert!(back.arrivals.listed().is_none());
    assert_eq!(comparable(&back), comparable(&r));
    let err = simulate_rep_with(&s, 0, 0, false, &mut |i, mut a, mut b| {
        simulate(&i.lent()?, a.as_mut(), b.as_mut())
    })
    .expect_err("not listed");
    assert!(err.to_string().contains("cannot be lent"), "{err}");
}

/// Repetition `rep` of `s`'s first policy as a run stepped by hand, its
/// tenants arriving by the streamed Poisson process of `rate_per_hour`
/// and `seed` (the scenario's), drawn as the run goes or, with
/// `as_listed`, the same times listed; and those times, listed.
fn stepped(
    s: &Scenario,
    rep: u64,
    rate_per_hour: f64,
    seed: u64,
    as_listed: bool,
) -> (ModelRun<'_>, Arc<[u64]>) {
    let Ok(parts) = tenantsim::models::experiment::start_rep(s, rep, 0) else {
        panic!("set-up")
    };
    let arrivals = tenantsim::models::sim::PoissonStream::new(
        parts.split.tenants.len(),
        rate_per_hour,
        seed,
        rep,
    )
    .expect("stream");
    let list = arrivals.to_list();
    let run = ModelRun::sharing(
        tenantsim::core::sim::held::Shared::Borrowed(&s.trace),
        tenantsim::core::sim::held::Shared::Borrowed(&s.gpu_types),
        parts.split.tenants.clone(),
        if as_listed {
            Arrivals::Listed(Arc::clone(&list))
        } else {
            Arrivals::Streamed(Arc::new(arrivals))
        },
        s.config,
        tenantsim::core::sim::held::Held::Owned(parts.scheduler),
        tenantsim::core::sim::held::Held::Owned(parts.selector),
    )
    .expect("a run");
    (run, list)
}

/// `Tenants::arrival` of a streamed run answers an arrived tenant's time
/// (live or parked once done) and nothing for one not arrived yet, at
/// every decision of a run stepped by hand.
#[test]
fn a_streamed_runs_tenants_know_the_arrival_of_those_that_arrived() {
    arrival_times_are_known_once_tenants_arrive(false);
}

/// Regression: with the arrival times listed (every order but
/// `streamed`), `Tenants::arrival`, and so a policy (a Python policy's
/// `arrival_s`), answered the time of a tenant not arrived yet: a policy
/// could see the future, and saw what it never sees when the same times
/// are streamed. It now answers as in a streamed run.
#[test]
fn listed_runs_told_policies_the_arrival_times_of_tenants_not_arrived_yet() {
    arrival_times_are_known_once_tenants_arrive(true);
}

/// At every decision of a run stepped by hand (times listed or
/// streamed), `Tenants::arrival` is an arrived tenant's time (live or
/// parked once done) and nothing for one not arrived yet.
fn arrival_times_are_known_once_tenants_arrive(as_listed: bool) {
    let s = scenario(300.0, "");
    let (mut run, list) = stepped(&s, 1, 300.0, 5, as_listed);
    let (mut checked, mut done_seen, mut unarrived_seen) = (0, 0, 0);
    while let Some(point) = run.next_decision().expect("a decision") {
        let t = run.tenants();
        for i in 0..t.len() {
            if t.has_arrived(i) {
                assert_eq!(t.arrival(i), Some(list[i]), "tenant {i}");
                checked += 1;
                done_seen += usize::from(t.is_done(i));
            } else {
                assert_eq!(t.arrival(i), None, "tenant {i} not arrived");
                unarrived_seen += 1;
            }
        }
        run.decide(point.policy_choice).expect("decides");
    }
    assert!(
        checked > 1_000 && done_seen > 100 && unarrived_seen > 100,
        "{checked} {done_seen} {unarrived_seen}"
    );
}

/// A run of more than 65,536 tenants holds its tenants' end states in
/// sorted runs on disk, not a byte a tenant (issue 34: memory by the
/// tenants present; `models/sim/end_states.rs`): each tenant's state read
/// from them, in tenant order and one by one, is the state the engine
/// answers for that tenant alone at the run's end (a point read of its
/// live, fresh or parked state). Tenants leave (patience), hit their
/// budget, run every model, or never arrive (the horizon).
#[test]
fn a_large_runs_end_states_on_disk_are_each_tenants_own() {
    use tenantsim::models::sim::{EndReason, EndState};
    let tenants = 70_000;
    let text = format!(
        "name = \"large\"\nseed = 3\nrepetitions = 1\nthresholds = [0.05]\nhorizon_s = 3600\n\
         [trace.syn]\nusers = {}\nmodels = 3\nmodel_sd = 0.1\nuser_sd = 0.05\n\
         cost = \"uniform(0,500)\"\nseed = 2\n\
         [split]\nprior_count = 10\n\
         [arrivals]\nkind = \"poisson\"\nrate_per_hour = 600\norder = \"streamed\"\n\
         [limits]\npatience_s = 300\nbudget_gpu_s = 450\n\
         [cluster]\ngpus = 60\n\
         [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n",
        tenants + 10
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/large.toml");
    let s = parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    let (mut run, list) = stepped(&s, 0, 600.0, 3, false);
    assert_eq!(list.len(), tenants);
    while let Some(point) = run.next_decision().expect("a decision") {
        run.decide(point.policy_choice).expect("decides");
    }
    let want: Vec<EndState> = (0..tenants)
        .map(|i| EndState {
            ended: run.end_reason(i),
            budget_exhausted: run.tenants().is_exhausted(i),
        })
        .collect();
    let out = run.into_outcome().expect("the outcome");
    assert!(out.end_states.is_in_runs());
    assert_eq!(out.end_states.len(), tenants);
    assert!(out.end_states.to_vec().expect("read in order") == want);
    for i in (0..tenants).step_by(997).chain([tenants - 1]) {
        assert_eq!(
            out.end_states.get(i).expect("read one"),
            want[i],
            "tenant {i}"
        );
    }
    // Every kind of end the scenario was made for.
    for reason in [
        EndReason::Patience,
        EndReason::Budget,
        EndReason::AllModelsRun,
        EndReason::Horizon,
    ] {
        let count = want.iter().filter(|s| s.ended == reason).count();
        assert!(count > 10, "{count} tenants ended by {reason:?}");
    }
    assert!(want.iter().filter(|s| s.budget_exhausted).count() > 10);
}
