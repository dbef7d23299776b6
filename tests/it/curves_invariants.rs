//! Invariants of multi-fidelity runs (DESIGN §12), on random small curve
//! traces × selectors {successive-halving, hyperband, asha, random,
//! gp-ucb} × schedulers {round-robin, random, greedy, hybrid, easeml-proto}
//! × 1 or 3 GPUs × 1 or 2 jobs per tenant × cost from scratch or
//! incremental (restore 0 or 1 s):
//!
//! - every (tenant, model, fidelity) runs at most once;
//! - a model's later job follows its previous job, completed, at a lower
//!   level (a promotion only follows a completed evaluation at the lower
//!   rung); under successive halving and ASHA a model's first job is at its
//!   first-rung level or (the sweep) its top;
//! - each job lasts `Trace::cost_us` from the model's previous completed
//!   level, and the GPU busy time is the sum of those costs;
//! - no GPU runs two jobs at once, no tenant more than its limit;
//! - the loss never rises, and every pair ends trained at its top;
//! - ASHA's and random's runs are the same when repeated (same seed).
//!
//! The multi-fidelity selectors run with `after_schedule = "sweep"` for
//! the above and again with `"stop"` (DESIGN §12.3), where instead of
//! "every pair ends at its top": a tenant ends `all-models-run` exactly
//! when each of its pairs reached its top, else `schedule-over`; successive
//! halving and ASHA still start every pair; and since successive halving's
//! and Hyperband's schedule per tenant does not depend on timing, their
//! stop run's (tenant, model, level) triples are a subset of the sweep
//! run's (the sweep only adds jobs).

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;
use tenantsim::models::sim::TenantUsers;

use proptest::prelude::*;
use tenantsim::models::metrics::LossCurve;
use tenantsim::models::policy::Params;
use tenantsim::models::policy::registry;
use tenantsim::models::sim::{
    EndReason, GpuTypes, JobRecord, RepContext, RunOutcome, SimConfig, SimInput, TenantLimits,
    simulate,
};
use tenantsim::models::trace::{CostMode, Trace, parse_trace};

/// Fidelities a pair may have (a random increasing subset).
const FIDELITIES: [f64; 6] = [1.0, 2.0, 3.0, 4.0, 6.0, 9.0];

#[derive(Debug, Clone)]
struct Case {
    csv: String,
    n_prior: usize,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..5, 1usize..4, 0usize..3, any::<u64>())
        .prop_flat_map(|(users, models, n_prior, seed)| {
            let pair = (
                any::<bool>(),
                proptest::collection::vec(any::<bool>(), FIDELITIES.len()),
                proptest::collection::vec((0u32..=10, 1u32..5), FIDELITIES.len()),
            );
            (
                Just((users, models, n_prior, seed)),
                proptest::collection::vec(pair, users * models),
            )
        })
        .prop_map(|((users, models, n_prior, seed), pairs)| {
            let mut csv = String::from("user,model,fidelity,accuracy,runtime_s\n");
            for u in 0..users {
                for m in 0..models {
                    let (present, pick, rows) = &pairs[u * models + m];
                    if !present && m != 0 {
                        continue;
                    }
                    let mut any = false;
                    for (x, &f) in FIDELITIES.iter().enumerate() {
                        // Keep at least one fidelity per pair.
                        if pick[x] || (!any && x + 1 == FIDELITIES.len()) {
                            any = true;
                            let (acc, rt) = rows[x];
                            let _ = writeln!(csv, "u{u},m{m},{f},{},{rt}", f64::from(acc) / 10.0);
                        }
                    }
                }
            }
            Case {
                csv,
                n_prior: n_prior.min(users - 1),
                seed,
            }
        })
}

/// (tenant, model, level, start, end, completed) of every job.
fn log(out: &RunOutcome) -> Vec<(u32, u32, u16, u64, u64, bool)> {
    out.jobs
        .to_vec()
        .expect("the job log")
        .into_iter()
        .map(|j| (j.tenant, j.model, j.level, j.start, j.end, j.completed))
        .collect()
}

struct Setup<'a> {
    trace: &'a Arc<Trace>,
    scheduler: &'a str,
    selector: &'a str,
    gpus: u32,
    per_tenant: u32,
    prior: &'a [usize],
    tenants: &'a [usize],
    seed: u64,
    /// `after_schedule` of a multi-fidelity selector (`None`: not set).
    after: Option<&'a str>,
}

fn run(s: &Setup<'_>) -> Result<RunOutcome, TestCaseError> {
    let label = format!("{} + {}", s.scheduler, s.selector);
    let mut keys = BTreeMap::new();
    if s.selector == "gp-ucb" {
        // Tiny random priors have no data-driven v or ℓ: set them.
        keys.insert("variance".to_string(), toml::Value::from(0.02));
        keys.insert("lengthscale".to_string(), toml::Value::from(0.2));
    }
    if let Some(a) = s.after {
        keys.insert("after_schedule".to_string(), toml::Value::from(a));
    }
    let mut params = Params::new(label.clone(), keys);
    let fail = |e: tenantsim::core::error::Error| TestCaseError::fail(format!("{label}: {e}"));
    let sch = registry::scheduler(s.scheduler).ok_or_else(|| TestCaseError::fail("scheduler"))?;
    let sel = registry::selector(s.selector).ok_or_else(|| TestCaseError::fail("selector"))?;
    let make_sch = (sch.parse)(&mut params).map_err(fail)?;
    let make_sel = (sel.parse)(&mut params, s.trace).map_err(fail)?;
    let ctx = RepContext {
        trace: s.trace,
        gpu_types: &Arc::new(GpuTypes::untyped(1)),
        tenants: &TenantUsers::list(s.tenants),
        prior: s.prior,
        seed: s.seed,
        repetition: 0,
    };
    let mut scheduler = make_sch(&ctx).map_err(fail)?;
    let mut selector = make_sel(&ctx).map_err(fail)?;
    let arrivals = vec![0; s.tenants.len()];
    let input = SimInput {
        trace: s.trace,
        tenants: &TenantUsers::list(s.tenants),
        arrivals: &arrivals,
        gpu_types: &GpuTypes::untyped(s.gpus),
        config: SimConfig {
            gpus: s.gpus,
            max_jobs_per_tenant: s.per_tenant,
            horizon: None,
            limits: TenantLimits::default(),
        },
    };
    simulate(&input, scheduler.as_mut(), selector.as_mut()).map_err(fail)
}

fn check(s: &Setup<'_>, out: &RunOutcome) -> Result<(), TestCaseError> {
    let label = format!(
        "{} + {} ({:?}) on {} GPUs, {} per tenant, {:?}",
        s.scheduler,
        s.selector,
        s.after,
        s.gpus,
        s.per_tenant,
        s.trace.cost_mode()
    );
    let stop = s.after == Some("stop");
    let trace = s.trace;
    let jobs = &out
        .jobs
        .to_vec()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(
        jobs.iter().all(|j| j.completed),
        "{}: a job not completed",
        label
    );

    // Every (tenant, model, fidelity) at most once.
    let triples: HashSet<(u32, u32, u16)> =
        jobs.iter().map(|j| (j.tenant, j.model, j.level)).collect();
    prop_assert_eq!(triples.len(), jobs.len(), "{}: a triple ran twice", label);

    // Per (tenant, model), jobs in start order; each later job follows the
    // previous one, completed, at a lower level; its duration is the cost
    // from that level.
    let mut by_pair: BTreeMap<(u32, u32), Vec<&JobRecord>> = BTreeMap::new();
    for j in jobs {
        by_pair.entry((j.tenant, j.model)).or_default().push(j);
    }
    let mut costs: u128 = 0;
    let r0 = trace.min_fidelity();
    for (&(i, k), list) in &by_pair {
        let u = s.tenants[i as usize];
        let (k, top) = (k as usize, trace.top_level(u, k as usize) as u16);
        let mut from: Option<usize> = None;
        for (n, j) in list.iter().enumerate() {
            if n > 0 {
                let prev = list[n - 1];
                prop_assert!(
                    prev.completed && prev.end <= j.start && prev.level < j.level,
                    "{}: tenant {} model {} level {} does not follow a completed lower level",
                    label,
                    i,
                    k,
                    j.level
                );
            } else if matches!(s.selector, "successive-halving" | "asha") {
                let first = trace.level_at_least(u, k, r0) as u16;
                prop_assert!(
                    j.level == first || j.level == top,
                    "{}: model {} first ran at level {} (first rung {}, top {})",
                    label,
                    k,
                    j.level,
                    first,
                    top
                );
            }
            let cost = trace.cost_us(u, k, from, j.level as usize);
            prop_assert_eq!(j.end - j.start, cost, "{}: job cost", label);
            costs += u128::from(cost);
            from = Some(j.level as usize);
        }
        if !stop {
            prop_assert_eq!(
                list.last().map(|j| j.level),
                Some(top),
                "{}: tenant {} model {} never trained at its top",
                label,
                i,
                k
            );
        }
    }
    prop_assert_eq!(out.busy, costs, "{}: busy time", label);
    let pairs: usize = s.tenants.iter().map(|&u| trace.models_of(u).len()).sum();
    if !stop || s.selector != "hyperband" {
        prop_assert_eq!(by_pair.len(), pairs, "{}: a pair never ran", label);
    }

    // Why each tenant ended: all models run exactly when every pair of it
    // reached its top; else (only under stop) its schedule is over.
    for (i, &u) in s.tenants.iter().enumerate() {
        let all_top = trace.models_of(u).iter().all(|&k| {
            by_pair.get(&(i as u32, k as u32)).is_some_and(|l| {
                l.last()
                    .is_some_and(|j| j.level as usize == trace.top_level(u, k))
            })
        });
        let want = if all_top {
            EndReason::AllModelsRun
        } else {
            EndReason::ScheduleOver
        };
        prop_assert!(all_top || stop, "{}: tenant {} not swept", label, i);
        prop_assert_eq!(
            out.end_states.get(i).expect("end state").ended,
            want,
            "{}: tenant {} end reason",
            label,
            i
        );
    }

    // GPUs never double-booked; tenants within their limit.
    let booked = crate::common::double_booked_gpu(jobs, s.gpus);
    prop_assert!(
        booked.is_none(),
        "{}: GPU {:?} double-booked",
        label,
        booked
    );
    for j in jobs {
        let overlapping = jobs
            .iter()
            .filter(|o| o.tenant == j.tenant && o.start <= j.start && j.start < o.end)
            .count();
        prop_assert!(
            overlapping as u32 <= s.per_tenant,
            "{}: tenant over its limit",
            label
        );
    }

    // Each observation is the trace's accuracy at that level, never above
    // A*; the loss S(τ) = Σ_i A*_i − best_i(τ) (every tenant arrives at 0)
    // never rises and stays ≥ 0.
    for j in jobs {
        let u = s.tenants[j.tenant as usize];
        prop_assert_eq!(
            j.accuracy,
            trace.level_accuracy(u, j.model as usize, j.level as usize)
        );
        prop_assert!(j.accuracy <= trace.best_accuracy(u));
    }
    let arrivals = vec![0; s.tenants.len()];
    let curve = LossCurve::from_outcome(trace, s.tenants, &arrivals, out).expect("curve");
    prop_assert!(
        curve.sum_loss().expect("read").iter().all(|&l| l >= 0.0),
        "{}: loss < 0",
        label
    );
    prop_assert!(
        curve
            .sum_loss()
            .expect("read")
            .windows(2)
            .all(|w| w[1] <= w[0] + 1e-12),
        "{}: loss rose",
        label
    );
    Ok(())
}

fn check_case(c: &Case) -> Result<(), TestCaseError> {
    let plain = parse_trace("random.csv", c.csv.as_bytes())
        .map_err(|e| TestCaseError::fail(format!("{e}\n{}", c.csv)))?;
    let mut traces = vec![Arc::new(plain.clone())];
    for restore_us in [0, 1_000_000] {
        let mut t = plain.clone();
        t.set_cost_mode(CostMode::Incremental, restore_us);
        traces.push(Arc::new(t));
    }
    for trace in &traces {
        for selector in [
            "successive-halving",
            "hyperband",
            "asha",
            "random",
            "gp-ucb",
        ] {
            // GP-UCB builds its prior from at least one prior user.
            let n_prior = if selector == "gp-ucb" {
                c.n_prior.max(1)
            } else {
                c.n_prior
            };
            let prior: Vec<usize> = (0..n_prior).collect();
            let tenants: Vec<usize> = (n_prior..trace.n_users()).collect();
            for scheduler in ["round-robin", "random", "greedy", "hybrid", "easeml-proto"] {
                let sch = registry::scheduler(scheduler)
                    .ok_or_else(|| TestCaseError::fail("scheduler"))?;
                if sch.needs_acquisition && selector == "random" {
                    continue; // greedy and the like need a selector with a score
                }
                let multi = matches!(selector, "successive-halving" | "hyperband" | "asha");
                for gpus in [1, 3] {
                    for per_tenant in [1, 2] {
                        let mut s = Setup {
                            trace,
                            scheduler,
                            selector,
                            gpus,
                            per_tenant,
                            prior: &prior,
                            tenants: &tenants,
                            seed: c.seed,
                            after: multi.then_some("sweep"),
                        };
                        let out = run(&s)?;
                        check(&s, &out)?;
                        if matches!(selector, "asha" | "random") {
                            prop_assert_eq!(log(&out), log(&run(&s)?), "not deterministic");
                        }
                        if multi {
                            s.after = Some("stop");
                            let stopped = run(&s)?;
                            check(&s, &stopped)?;
                            if selector != "asha" {
                                let triples = |o: &RunOutcome| -> HashSet<(u32, u32, u16)> {
                                    o.jobs
                                        .to_vec()
                                        .expect("the job log")
                                        .into_iter()
                                        .map(|j| (j.tenant, j.model, j.level))
                                        .collect()
                                };
                                prop_assert!(
                                    triples(&stopped).is_subset(&triples(&out)),
                                    "{} + {}: stop ran a job the sweep did not",
                                    scheduler,
                                    selector
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn multi_fidelity_runs_keep_the_invariants(c in case()) {
        check_case(&c)?;
    }
}
