//! The ease.ml schedulers (`greedy`, `hybrid`, `easeml-proto`) on the real
//! engine: `greedy` against a reference O(n) scan on random scenarios,
//! tie-breaking by the lowest tenant index, and constructed cases for the
//! hybrid switch and the prototype's drop rule.

use std::sync::Arc;
use tenantsim::models::sim::TenantUsers;

use proptest::prelude::*;
use tenantsim::models::policy::Params;
use tenantsim::models::policy::registry::{self, schedulers, selectors};
use tenantsim::models::policy::scheduler::easeml_proto::EasemlProto;
use tenantsim::models::policy::scheduler::greedy::{Greedy, Score};
use tenantsim::models::policy::scheduler::hybrid::Hybrid;
use tenantsim::models::sim::{GpuTypes, Proposal, RepContext, Scheduler, Selector};
use tenantsim::models::sim::{SimConfig, SimInput, Tenants, simulate};
use tenantsim::models::trace::{Micros, Trace, TraceBuilder, TraceRow, parse_trace};

fn trace_from_csv(csv: &str) -> Arc<Trace> {
    match parse_trace("test", csv.as_bytes()) {
        Ok(t) => Arc::new(t),
        Err(e) => panic!("{e}"),
    }
}

/// Build a selector by registry name with `pairs` as its keys.
fn selector(
    name: &str,
    pairs: &[(&str, toml::Value)],
    trace: &Arc<Trace>,
    prior: &[usize],
    tenants: &[usize],
) -> Box<dyn Selector> {
    match try_selector(name, pairs, trace, prior, tenants) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// [`selector`], or the error of building it for this repetition (the
/// default kernel's data-driven parameters can be undefined, DESIGN §3).
fn try_selector(
    name: &str,
    pairs: &[(&str, toml::Value)],
    trace: &Arc<Trace>,
    prior: &[usize],
    tenants: &[usize],
) -> tenantsim::core::error::Result<Box<dyn Selector>> {
    let Some(spec) = registry::selector(name) else {
        panic!("no selector {name}")
    };
    let map = pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect();
    let mut params = Params::new(name, map);
    let make = match (spec.parse)(&mut params, trace) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    if let Err(e) = params.finish(name) {
        panic!("{e}");
    }
    let ctx = RepContext {
        trace,
        gpu_types: &Arc::new(GpuTypes::untyped(1)),
        tenants: &TenantUsers::list(tenants),
        prior,
        seed: 0,
        repetition: 0,
    };
    make(&ctx)
}

/// (tenant, model, gpu, start) of every job, in start order.
fn run(
    trace: &Trace,
    tenants: &[usize],
    arrivals: &[Micros],
    gpus: u32,
    max_jobs: u32,
    scheduler: &mut dyn Scheduler,
    selector: &mut dyn Selector,
) -> Vec<(u32, u32, u32, Micros)> {
    let input = SimInput {
        trace,
        tenants: &TenantUsers::list(tenants),
        arrivals,
        gpu_types: &GpuTypes::untyped(gpus),
        config: SimConfig {
            gpus,
            max_jobs_per_tenant: max_jobs,
            horizon: None,
            ..SimConfig::default()
        },
    };
    match simulate(&input, scheduler, selector) {
        Ok(out) => out
            .jobs
            .to_vec()
            .expect("the job log")
            .into_iter()
            .map(|j| (j.tenant, j.model, j.gpu, j.start))
            .collect(),
        Err(e) => panic!("{e}"),
    }
}

/// The reference: DESIGN §4's greedy rule as a plain scan over every
/// tenant at every decision, with the score written out independently of
/// `Score::of`: gain_i = a − best_i for the UCB selectors, the EI for the
/// EI selectors, divided by the believed seconds ĉˢ (`per-second`) or the
/// believed relative cost ĉ (`per-relative-cost`). Highest score wins;
/// ties and NaN go to the lowest index / the bottom.
#[derive(Debug)]
struct ReferenceScan {
    ei: bool,
    per_second: bool,
}

impl Scheduler for ReferenceScan {
    fn pick(
        &mut self,
        tenants: &Tenants,
        selector: &mut dyn Selector,
    ) -> tenantsim::Result<Option<usize>> {
        let mut best: Option<(usize, f64)> = None;
        for i in 0..tenants.len() {
            if !tenants.is_eligible(i) {
                continue;
            }
            let Some(p) = selector.propose(tenants, i)? else {
                return Ok(None);
            };
            let gain = if self.ei {
                match p.gain {
                    Some(ei) => ei,
                    None => panic!("an EI selector's proposal carries its EI"),
                }
            } else {
                p.acquisition - tenants.best(i)
            };
            let cost = if self.per_second {
                p.believed_seconds
            } else {
                p.believed_cost
            };
            let score = gain / cost;
            let better = match best {
                None => true,
                Some((_, b)) => score > b || (b.is_nan() && !score.is_nan()),
            };
            if better {
                best = Some((i, score));
            }
        }
        Ok(best.map(|(i, _)| i))
    }
}

#[derive(Debug, Clone)]
struct Case {
    trace: Arc<Trace>,
    prior: Vec<usize>,
    tenants: Vec<usize>,
    arrivals: Vec<Micros>,
    gpus: u32,
    max_jobs: u32,
}

/// Random traces with coarse accuracies (many exact ties), 1–3 prior users,
/// random arrivals, GPUs and per-tenant limits.
fn case() -> impl Strategy<Value = Case> {
    (3usize..14, 1usize..6, 1usize..4, 1u32..5, 1u32..3)
        .prop_flat_map(|(users, models, n_prior, gpus, max_jobs)| {
            (
                Just((users, models, n_prior.min(users - 1), gpus, max_jobs)),
                proptest::collection::vec((any::<bool>(), 0u32..6, 1u32..5), users * models),
                proptest::collection::vec(0u64..4, users),
            )
        })
        .prop_map(
            |((users, models, n_prior, gpus, max_jobs), cells, arrive)| {
                let mut b = TraceBuilder::new("random", false, false);
                for u in 0..users {
                    for m in 0..models {
                        let (present, acc, rt) = cells[u * models + m];
                        if present || m == u % models {
                            let row = TraceRow {
                                user: format!("u{u}"),
                                model: format!("m{m}"),
                                accuracy: f64::from(acc) / 5.0,
                                runtime_s: f64::from(rt),
                                model_year: None,
                                model_citations: None,
                            };
                            if let Err(e) = b.push(&row, "generated") {
                                panic!("{e}");
                            }
                        }
                    }
                }
                let trace = match b.finish() {
                    Ok(t) => Arc::new(t),
                    Err(e) => panic!("{e}"),
                };
                let prior: Vec<usize> = (0..n_prior).collect();
                let tenants: Vec<usize> = (n_prior..users).collect();
                let arrivals = tenants.iter().map(|&u| arrive[u] * 1_000_000).collect();
                Case {
                    trace,
                    prior,
                    tenants,
                    arrivals,
                    gpus,
                    max_jobs,
                }
            },
        )
}

/// Policy keys as (key, value) pairs.
type Keys = Vec<(&'static str, toml::Value)>;

/// The pre-revision semantics, named explicitly: the tests written for
/// them (tie-breaking, incremental rescoring, the hybrid switch) run with
/// `kernel = "empirical"` and greedy's `per-relative-cost` score; the
/// defaults have their own tests below.
fn old_semantics() -> Keys {
    vec![("kernel", "empirical".into())]
}

/// Every GP selector, with the keys that change its scores, and whether its
/// acquisition is an expected improvement.
fn gp_variants() -> Vec<(&'static str, Keys, bool)> {
    vec![
        ("gp-ucb", vec![], false),
        ("gp-ucb", vec![("kernel", "empirical".into())], false),
        ("gp-ucb", vec![("beta_scale", 0.1.into())], false),
        ("gp-ucb", vec![("kernel", "flat".into())], false),
        (
            "gp-ucb",
            vec![
                ("kernel", "rbf".into()),
                ("variance", 0.02.into()),
                ("lengthscale", 0.2.into()),
            ],
            false,
        ),
        ("gp-ucb-cost", vec![], false),
        ("gp-ucb-cost", vec![("kernel", "empirical".into())], false),
        ("gp-ucb-cost", vec![("cost_belief", "prior".into())], false),
        ("gp-ei", vec![], true),
        ("gp-ei", vec![("xi", 0.05.into())], true),
        ("gp-ei-per-second", vec![], true),
        (
            "gp-ei-per-second",
            vec![("cost_belief", "prior".into())],
            true,
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// `greedy` (indexed heap, rescoring only changed tenants) and the O(n)
    /// reference scan start the same jobs in the same order on the same
    /// GPUs at the same times.
    #[test]
    fn greedy_picks_what_a_full_scan_picks(c in case()) {
        for (name, pairs, ei) in gp_variants() {
            for (score, per_second) in [(Score::PerSecond, true), (Score::PerRelativeCost, false)] {
                // The default kernel's v or ℓ can be undefined for these
                // prior users (e.g. one prior user): that is an error of the
                // repetition, tested elsewhere; skip the variant here.
                let Ok(mut sel_a) = try_selector(name, &pairs, &c.trace, &c.prior, &c.tenants) else {
                    prop_assert!(!pairs.iter().any(|(k, _)| *k == "kernel"), "{} {:?}", name, pairs);
                    continue;
                };
                let mut sel_b = selector(name, &pairs, &c.trace, &c.prior, &c.tenants);
                let mut greedy = Greedy::new(c.tenants.len(), score);
                let mut reference = ReferenceScan { ei, per_second };
                let got = run(&c.trace, &c.tenants, &c.arrivals, c.gpus, c.max_jobs, &mut greedy, sel_a.as_mut());
                let want = run(&c.trace, &c.tenants, &c.arrivals, c.gpus, c.max_jobs, &mut reference, sel_b.as_mut());
                prop_assert_eq!(&got, &want, "{} {:?} {:?}", name, pairs, score);
                let pairs_total: usize = c.tenants.iter().map(|&u| c.trace.models_of(u).len()).sum();
                prop_assert_eq!(got.len(), pairs_total);
            }
        }
    }
}

/// Counts `propose` calls of the selector it wraps.
struct Counting<'a> {
    inner: &'a mut dyn Selector,
    proposals: usize,
}

impl Selector for Counting<'_> {
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> tenantsim::Result<Option<Proposal>> {
        self.proposals += 1;
        self.inner.propose(tenants, tenant)
    }
    fn started(&mut self, tenant: usize, model: usize) -> tenantsim::Result<()> {
        self.inner.started(tenant, model)
    }
    fn observe(&mut self, tenant: usize, model: usize, accuracy: f64) -> tenantsim::Result<()> {
        self.inner.observe(tenant, model, accuracy)
    }
}

/// `greedy` asks for O(1) proposals per event, not O(n) per decision: with
/// 300 tenants × 3 models (900 jobs, 300 arrivals) it makes at most one
/// proposal per tenant change (arrival, start, completion) plus the
/// engine's own one per job; a scan would make about 300 per decision.
#[test]
fn greedy_rescores_only_changed_tenants() {
    let mut csv = String::from("user,model,accuracy,runtime_s\n");
    for u in 0..302u32 {
        for (m, acc) in [0.3, 0.5, 0.7].iter().enumerate() {
            let a = acc + f64::from(u % 7) / 100.0;
            csv.push_str(&format!("u{u},m{m},{a},{}\n", 1 + (u as usize + m) % 4));
        }
    }
    let trace = trace_from_csv(&csv);
    let prior = [0, 1];
    let tenants: Vec<usize> = (2..302).collect();
    let arrivals = vec![0; tenants.len()];
    let mut inner = selector("gp-ucb", &old_semantics(), &trace, &prior, &tenants);
    let mut counting = Counting {
        inner: inner.as_mut(),
        proposals: 0,
    };
    let mut greedy = Greedy::new(tenants.len(), Score::PerRelativeCost);
    let jobs = run(
        &trace,
        &tenants,
        &arrivals,
        4,
        1,
        &mut greedy,
        &mut counting,
    );
    assert_eq!(jobs.len(), 900);
    // Changes: 300 arrivals + 900 starts + 900 completions; plus 900 engine
    // proposals.
    assert!(
        counting.proposals <= 300 + 900 + 900 + 900,
        "{} proposals",
        counting.proposals
    );
}

/// Tenants t1 and t2 are identical and tied; t0 scores lower. Every
/// ease.ml scheduler serves t1 before t2 (lowest index), and `greedy`
/// serves t1 first of all.
#[test]
fn tied_tenants_go_to_the_lowest_index() {
    let csv = "user,model,accuracy,runtime_s\n\
               p,a,0.8,1\np,b,0.4,1\nq,a,0.6,1\nq,b,0.2,1\n\
               t0,b,0.3,1\n\
               t1,a,0.7,1\nt1,b,0.3,1\n\
               t2,a,0.7,1\nt2,b,0.3,1\n";
    let trace = trace_from_csv(csv);
    let (prior, tenants) = ([0, 1], [2, 3, 4]);
    let arrivals = [0, 0, 0];
    // The old semantics, then the defaults (rbf, per-second).
    for (keys, score) in [
        (old_semantics(), Score::PerRelativeCost),
        (Vec::new(), Score::PerSecond),
    ] {
        for name in ["gp-ucb", "gp-ucb-cost", "gp-ei", "gp-ei-per-second"] {
            let mut sel = selector(name, &keys, &trace, &prior, &tenants);
            let mut greedy = Greedy::new(3, score);
            let jobs = run(&trace, &tenants, &arrivals, 1, 1, &mut greedy, sel.as_mut());
            assert_eq!(
                jobs[0].0, 1,
                "{name} {score:?}: greedy's first pick {jobs:?}"
            );
            // With three GPUs all three start at 0, in score order with the tie
            // broken by index: t1, t2, then t0.
            let mut sel = selector(name, &keys, &trace, &prior, &tenants);
            let mut greedy = Greedy::new(3, score);
            let jobs = run(&trace, &tenants, &arrivals, 3, 1, &mut greedy, sel.as_mut());
            let first: Vec<u32> = jobs.iter().take(3).map(|j| j.0).collect();
            assert_eq!(first, [1, 2, 0], "{name}");
            // `hybrid` before its switch is greedy.
            let mut sel = selector(name, &keys, &trace, &prior, &tenants);
            let mut hybrid = Hybrid::new(3, f64::NEG_INFINITY, 0, score);
            let jobs = run(&trace, &tenants, &arrivals, 3, 1, &mut hybrid, sel.as_mut());
            let first: Vec<u32> = jobs.iter().take(3).map(|j| j.0).collect();
            assert_eq!(first, [1, 2, 0], "{name}: hybrid");
        }
    }
}

/// A selector with scripted values: tenant i's proposal is its first
/// untried model in index order, with acquisition `acq[i][r]` and
/// exploration bonus `bonus[i][r]` at its r-th decision (r = jobs completed,
/// the only state with one GPU and one job per tenant), ĉ = 1.
#[derive(Debug)]
struct Scripted {
    trace: Arc<Trace>,
    acq: Vec<Vec<f64>>,
    bonus: Vec<Vec<f64>>,
}

impl Scripted {
    fn next_proposal(&mut self, tenants: &Tenants, tenant: usize) -> Option<Proposal> {
        let u = tenants.user(tenant);
        let model = self
            .trace
            .models_of(u)
            .iter()
            .copied()
            .find(|&k| !tenants.is_tried(tenant, k))?;
        let r = tenants.completed(tenant) as usize;
        Some(Proposal {
            acquisition: self.acq[tenant][r],
            bonus: Some(self.bonus[tenant][r]),
            ..Proposal::plain(model)
        })
    }
}

impl Selector for Scripted {
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> tenantsim::Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, tenant))
    }
}

/// Two tenants, four 1-second models each, one GPU. u0's accuracies fall
/// (0.5, 0.4, 0.3, 0.2) so after its first job it never improves; the
/// scripted acquisitions are 1.0 for u0 and 0.5 for u1 throughout.
///
/// Pure greedy: scores u0 = 1.0 − best_0, u1 = 0.5 − best_1.
///   τ=0: u0 1.0 vs u1 0.5 → u0 (best_0 becomes 0.5, an improvement)
///   τ=1: u0 0.5 vs u1 0.5 → tie → u0 (0.4: no improvement, stale 1)
///   τ=2: tie → u0 (0.3: stale 2)   τ=3: tie → u0 (0.2: stale 3)
///   then u1 four times: [0, 0, 0, 0, 1, 1, 1, 1].
fn hybrid_case() -> (Arc<Trace>, Scripted) {
    let csv = "user,model,accuracy,runtime_s\n\
               u0,m0,0.5,1\nu0,m1,0.4,1\nu0,m2,0.3,1\nu0,m3,0.2,1\n\
               u1,m0,0.1,1\nu1,m1,0.1,1\nu1,m2,0.1,1\nu1,m3,0.1,1\n";
    let trace = trace_from_csv(csv);
    let scripted = Scripted {
        trace: Arc::clone(&trace),
        acq: vec![vec![1.0; 5], vec![0.5; 5]],
        bonus: vec![vec![0.0; 5]; 2],
    };
    (trace, scripted)
}

fn hybrid_sequence(epsilon: f64, after: u64) -> (Vec<u32>, bool) {
    let (trace, mut sel) = hybrid_case();
    let mut hybrid = Hybrid::new(2, epsilon, after, Score::PerRelativeCost);
    let jobs = run(&trace, &[0, 1], &[0, 0], 1, 1, &mut hybrid, &mut sel);
    (jobs.iter().map(|j| j.0).collect(), hybrid.switched())
}

#[test]
fn hybrid_is_greedy_while_no_condition_holds() {
    let (trace, mut sel) = hybrid_case();
    let mut greedy = Greedy::new(2, Score::PerRelativeCost);
    let jobs = run(&trace, &[0, 1], &[0, 0], 1, 1, &mut greedy, &mut sel);
    let greedy_seq: Vec<u32> = jobs.iter().map(|j| j.0).collect();
    assert_eq!(greedy_seq, [0, 0, 0, 0, 1, 1, 1, 1]);
    // ε = 0.39 is below every best score (0.5 while u0 has models, then
    // u1's 0.5 − 0.1 = 0.4); switch_after disabled.
    assert_eq!(hybrid_sequence(0.39, 0), (greedy_seq.clone(), false));
    assert_eq!(hybrid_sequence(f64::NEG_INFINITY, 0), (greedy_seq, false));
}

#[test]
fn hybrid_switches_when_the_best_score_falls_to_epsilon() {
    // ε = 0.5: τ=0 best score 1.0 > 0.5 → greedy serves u0. τ=1: best
    // score 0.5 ≤ 0.5 → switch; round-robin resumes after u0: u1, u0, …
    assert_eq!(
        hybrid_sequence(0.5, 0),
        (vec![0, 1, 0, 1, 0, 1, 0, 1], true)
    );
}

#[test]
fn hybrid_switches_after_s_jobs_without_improvement() {
    // s = 2: the jobs completing at τ=2 (0.4) and τ=3 (0.3) improve
    // nothing, so the decision at τ=3 switches: round-robin after u0 → u1,
    // then u0 (its last model), then u1.
    assert_eq!(
        hybrid_sequence(f64::NEG_INFINITY, 2),
        (vec![0, 0, 0, 1, 0, 1, 1, 1], true)
    );
    // s = 3 needs one more stale job: the switch comes at τ=4, when u0 has
    // no model left.
    assert_eq!(
        hybrid_sequence(f64::NEG_INFINITY, 3),
        (vec![0, 0, 0, 0, 1, 1, 1, 1], true)
    );
}

/// Three tenants, four 1-second models each, one GPU, scripted values:
///
/// ```text
///          acquisition at run r=0,1,2,3    bonus after r completed = 0,1,2,3
/// t0       1.0  0.2  0.2  0.2              0.1  0.1  0.1  0.1
/// t1       1.0  0.5  0.5  0.5              0.3  0.3  0.3  0.0
/// t2       1.0  0.9  0.9  0.9              0.5  0.5  0.5  0.0
/// ```
///
/// Warm-up (two round-robin rounds): t0 t1 t2 t0 t1 t2. Then the drops
/// are Δ = (1.0−0.2, 1.0−0.5, 1.0−0.9) = (0.8, 0.5, 0.1):
/// - decision 7: bonuses (0.1, 0.3, 0.5), mean 0.3; strictly above: t2
///   only → t2 (though t0 has the largest drop);
/// - decision 8: bonuses (0.1, 0.3, 0.0), mean 0.1333: above: t1 → t1;
/// - decision 9: bonuses (0.1, 0.0, 0.0), mean 0.0333: above: t0 → t0;
/// - decision 10: t0 has run 3 times; bonuses (0.1, 0.0, 0.0) → t0 again
///   (its 4th and last model); then only t1 and t2 remain, both with bonus
///   0 (none above the mean: all candidates) and drop 0.5−0.5 = 0 and
///   0.9−0.9 = 0: tie → t1, then t2.
fn proto_sequence(bonus: Vec<Vec<f64>>) -> Vec<u32> {
    let csv = "user,model,accuracy,runtime_s\n\
               t0,m0,0.1,1\nt0,m1,0.1,1\nt0,m2,0.1,1\nt0,m3,0.1,1\n\
               t1,m0,0.1,1\nt1,m1,0.1,1\nt1,m2,0.1,1\nt1,m3,0.1,1\n\
               t2,m0,0.1,1\nt2,m1,0.1,1\nt2,m2,0.1,1\nt2,m3,0.1,1\n";
    let trace = trace_from_csv(csv);
    let mut sel = Scripted {
        trace: Arc::clone(&trace),
        acq: vec![
            vec![1.0, 0.2, 0.2, 0.2, 0.2],
            vec![1.0, 0.5, 0.5, 0.5, 0.5],
            vec![1.0, 0.9, 0.9, 0.9, 0.9],
        ],
        bonus,
    };
    let mut proto = EasemlProto::new(3);
    let jobs = run(&trace, &[0, 1, 2], &[0, 0, 0], 1, 1, &mut proto, &mut sel);
    jobs.iter().map(|j| j.0).collect()
}

#[test]
fn easeml_proto_warms_up_then_takes_the_largest_drop_among_uncertain_tenants() {
    let seq = proto_sequence(vec![
        vec![0.1, 0.1, 0.1, 0.1, 0.1],
        vec![0.3, 0.3, 0.3, 0.0, 0.0],
        vec![0.5, 0.5, 0.5, 0.0, 0.0],
    ]);
    assert_eq!(seq, [0, 1, 2, 0, 1, 2, 2, 1, 0, 0, 1, 2]);
}

#[test]
fn easeml_proto_with_equal_bonuses_takes_the_largest_drop() {
    // Every bonus equal: nobody is strictly above the mean, so every
    // eligible tenant is a candidate. Decision 7: drops (0.8, 0.5, 0.1) →
    // t0, whose drop becomes 0.2 − 0.2 = 0. Decision 8: (0, 0.5, 0.1) → t1
    // (drop now 0). Decision 9: (0, 0, 0.1) → t2. Then all drops are 0:
    // ties → lowest index: t0, t1, t2.
    let seq = proto_sequence(vec![vec![0.2; 5]; 3]);
    assert_eq!(seq, [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
}

/// Every ease.ml scheduler is registered with `needs_acquisition` and
/// every GP selector with `provides_acquisition`.
#[test]
fn ease_ml_policies_are_registered() {
    for name in ["greedy", "hybrid", "easeml-proto"] {
        let s = schedulers().find(|s| s.name == name);
        assert!(s.is_some_and(|s| s.needs_acquisition), "{name}");
    }
    for name in ["gp-ucb", "gp-ucb-cost", "gp-ei", "gp-ei-per-second"] {
        let s = selectors().find(|s| s.name == name);
        assert!(s.is_some_and(|s| s.provides_acquisition), "{name}");
    }
}

/// Build a scheduler by registry name with `pairs` as its keys.
fn scheduler(
    name: &str,
    pairs: &[(&str, toml::Value)],
    ctx: &RepContext<'_>,
) -> Box<dyn Scheduler> {
    let Some(spec) = registry::scheduler(name) else {
        panic!("no scheduler {name}")
    };
    let map = pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect();
    let mut params = Params::new(name, map);
    let make = match (spec.parse)(&mut params) {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    };
    if let Err(e) = params.finish(name) {
        panic!("{e}");
    }
    match make(ctx) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// Two tenants: tf's models take 1 s, ts's are all 100× slower (100 s).
/// The prior users p and q agree exactly, so with `kernel = "empirical"`
/// every prior variance is 0, and `beta_scale = 0` makes UCB_c = μ = m_k.
///
/// ```text
///        f1    f2    s1    s2        runtimes
/// p     0.5   0.4   0.8   0.7        f 1 s, s 100 s
/// q     0.5   0.4   0.8   0.7
/// tf    0.6   0.3    -     -         1 s each
/// ts     -     -    0.9   0.2        100 s each
/// ```
///
/// gp-ucb-cost (oracle): relative cost ĉ = 1 for every model (each tenant's
/// models cost their own mean); ĉˢ = the tenant's runtime. At τ = 0 tf
/// proposes f1 (μ 0.5), ts proposes s1 (μ 0.8), best 0 for both:
/// - `per-relative-cost`: tf 0.5/1 = 0.5, ts 0.8/1 = 0.8 → ts.
/// - `per-second`: tf 0.5/1 s = 0.5, ts 0.8/100 s = 0.008 → tf. Then tf's
///   f1 ends at 1 s (best 0.6); tf proposes f2 with gain 0.4 − 0.6 = −0.2,
///   score −0.2/1 = −0.2 < ts's 0.008 → ts at τ = 1 s.
/// - gp-ucb is cost-oblivious (ĉ = ĉˢ = 1): 0.5 vs 0.8 → ts under both.
#[test]
fn per_second_and_per_relative_cost_pick_different_tenants() {
    let csv = "user,model,accuracy,runtime_s\n\
               p,f1,0.5,1\np,f2,0.4,1\np,s1,0.8,100\np,s2,0.7,100\n\
               q,f1,0.5,1\nq,f2,0.4,1\nq,s1,0.8,100\nq,s2,0.7,100\n\
               tf,f1,0.6,1\ntf,f2,0.3,1\n\
               ts,s1,0.9,100\nts,s2,0.2,100\n";
    let trace = trace_from_csv(csv);
    let (prior, tenants) = ([0, 1], [2, 3]);
    let ctx = RepContext {
        trace: &trace,
        gpu_types: &Arc::new(GpuTypes::untyped(1)),
        tenants: &TenantUsers::list(&tenants),
        prior: &prior,
        seed: 0,
        repetition: 0,
    };
    let keys: Keys = vec![("kernel", "empirical".into()), ("beta_scale", 0.0.into())];
    let first_two = |sel: &str, score: &str| {
        let mut s = selector(sel, &keys, &trace, &prior, &tenants);
        let mut g = scheduler("greedy", &[("score", score.into())], &ctx);
        let jobs = run(&trace, &tenants, &[0, 0], 1, 1, g.as_mut(), s.as_mut());
        jobs.iter()
            .take(2)
            .map(|j| (j.0, j.1, j.3))
            .collect::<Vec<_>>()
    };
    let (f1, s1) = (0, 2); // trace model indices
    let second = 1_000_000; // 1 s in µs
    assert_eq!(
        first_two("gp-ucb-cost", "per-relative-cost")[0],
        (1, s1, 0),
        "per-relative-cost serves the slow tenant first"
    );
    assert_eq!(
        first_two("gp-ucb-cost", "per-second"),
        vec![(0, f1, 0), (1, s1, second)],
        "per-second serves the fast tenant first"
    );
    // The default score is per-second.
    let mut s = selector("gp-ucb-cost", &keys, &trace, &prior, &tenants);
    let mut g = scheduler("greedy", &[], &ctx);
    let jobs = run(&trace, &tenants, &[0, 0], 1, 1, g.as_mut(), s.as_mut());
    assert_eq!((jobs[0].0, jobs[0].1), (0, f1));
    for score in ["per-second", "per-relative-cost"] {
        assert_eq!(first_two("gp-ucb", score)[0], (1, s1, 0), "gp-ucb, {score}");
    }
    // hybrid uses the same score before it switches.
    let mut s = selector("gp-ucb-cost", &keys, &trace, &prior, &tenants);
    let mut h = scheduler(
        "hybrid",
        &[
            ("switch_epsilon", f64::NEG_INFINITY.into()),
            ("switch_after", 0.into()),
        ],
        &ctx,
    );
    let jobs = run(&trace, &tenants, &[0, 0], 1, 1, h.as_mut(), s.as_mut());
    assert_eq!((jobs[0].0, jobs[0].1), (0, f1), "hybrid, per-second");
}

#[test]
fn greedy_score_key_rejects_unknown_values() {
    let Some(spec) = registry::scheduler("greedy") else {
        panic!("greedy")
    };
    let map = [("score".to_string(), toml::Value::from("per-hour"))]
        .into_iter()
        .collect();
    let mut params = Params::new("greedy", map);
    let Err(e) = (spec.parse)(&mut params) else {
        panic!("score = per-hour accepted")
    };
    assert!(
        e.message().contains("per-second") && e.message().contains("score"),
        "{}",
        e.message()
    );
}

/// A policy that returns an impossible answer is a policy error (its own
/// kind, "policy error: …"), not bad input: a scheduler picking a tenant
/// that is not eligible, a selector proposing a model already tried.
#[test]
fn impossible_answers_are_policy_errors() {
    use tenantsim::core::error::ErrorKind;

    #[derive(Debug)]
    struct PicksTenantOne;
    impl Scheduler for PicksTenantOne {
        fn pick(
            &mut self,
            _tenants: &Tenants,
            _selector: &mut dyn Selector,
        ) -> tenantsim::Result<Option<usize>> {
            Ok(Some(1)) // tenant 1 does not exist: one tenant only
        }
    }
    #[derive(Debug)]
    struct AlwaysModelZero;
    impl Selector for AlwaysModelZero {
        fn propose(
            &mut self,
            _tenants: &Tenants,
            _tenant: usize,
        ) -> tenantsim::Result<Option<Proposal>> {
            Ok(Some(Proposal::plain(0))) // tried after the first job
        }
    }
    let trace = trace_from_csv("user,model,accuracy,runtime_s\nt,a,0.5,1\nt,b,0.7,1\n");
    let input = SimInput {
        trace: &trace,
        tenants: &TenantUsers::list(&[0]),
        arrivals: &[0],
        gpu_types: &GpuTypes::untyped(1),
        config: SimConfig {
            gpus: 1,
            max_jobs_per_tenant: 1,
            horizon: None,
            ..SimConfig::default()
        },
    };
    let mut rr = tenantsim::models::policy::scheduler::round_robin::RoundRobin::new(1);
    let err = simulate(&input, &mut PicksTenantOne, &mut AlwaysModelZero).expect_err("tenant 1");
    assert_eq!(err.kind(), ErrorKind::Policy);
    assert!(
        err.message()
            .starts_with("policy error: the scheduler picked tenant 1"),
        "{err}"
    );
    assert_eq!(err.exit_code(), 1);
    let err = simulate(&input, &mut rr, &mut AlwaysModelZero).expect_err("model a twice");
    assert_eq!(err.kind(), ErrorKind::Policy);
    assert!(
        err.message().contains(
            "the selector proposed model 0 for tenant 0, which is unavailable or already tried"
        ),
        "{err}"
    );
}
