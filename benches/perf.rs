//! Micro and macro benchmarks of the model-selection engine (divan).
//!
//! ```sh
//! cargo bench --bench perf                 # everything
//! cargo bench --bench perf -- gp::         # one group
//! ```
//!
//! docs/PERFORMANCE.md lists what each one measures and the figures on the
//! reference machine. CI only compiles them (`cargo bench --no-run`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use tenantsim::models::sim::TenantUsers;

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use tenantsim::Result;
use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::experiment::simulate_one;
use tenantsim::models::policy::{Params, registry};
use tenantsim::models::scenario::{Scenario, parse_scenario};
use tenantsim::models::sim::decision_bench::DecisionHarness;
use tenantsim::models::sim::{EventQueue, Tenants};
use tenantsim::models::sim::{GpuTypes, RepContext, Selector};
use tenantsim::models::trace::{SynParams, Trace, TraceBuilder, generate_syn};

fn main() {
    divan::main();
}

fn ok<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

/// A SYN trace (defaults: model sd 0.1, user sd 0.05, uniform(0,2) s) of
/// `users` × `models`, built in memory.
fn syn_trace(users: usize, models: usize, seed: u64) -> Arc<Trace> {
    let params = SynParams {
        users,
        models,
        seed,
        ..SynParams::default()
    };
    let rows = generate_syn(&params);
    let mut builder = TraceBuilder::new("bench syn", true, true);
    for row in &rows {
        ok(builder.push(row, "bench syn"));
    }
    Arc::new(ok(builder.finish()))
}

/// A GP selector by registry name, default keys, for `tenants` with
/// `prior` as the history.
fn gp_selector(
    name: &str,
    trace: &Arc<Trace>,
    tenants: &[usize],
    prior: &[usize],
) -> Box<dyn Selector> {
    let Some(spec) = registry::selector(name) else {
        panic!("no selector {name}")
    };
    let mut params = Params::new("bench", BTreeMap::new());
    let make = ok((spec.parse)(&mut params, trace));
    ok(make(&RepContext {
        trace,
        gpu_types: &Arc::new(GpuTypes::untyped(1)),
        tenants: &TenantUsers::list(tenants),
        prior,
        seed: 0,
        repetition: 0,
    }))
}

/// The GP math of one tenant at K models.
mod gp {
    use super::*;
    use tenantsim::models::gp::{GpPrior, Kernel, TenantPosterior};

    /// 50 prior users and one tenant (the last user) over `k` models.
    fn setup(k: usize) -> (Arc<Trace>, Vec<usize>, usize) {
        let trace = syn_trace(51, k, 3);
        (trace, (0..50).collect(), 50)
    }

    /// One rank-one posterior update (DESIGN §3) of a tenant that has
    /// already observed 3 models: O(K²).
    #[divan::bench(args = [20, 179, 1000])]
    fn posterior_update(bencher: Bencher, k: usize) {
        let (trace, prior, tenant) = setup(k);
        let gp = ok(GpPrior::from_trace(&trace, &prior, Kernel::Empirical));
        let models = trace.models_of(tenant);
        let mut post = ok(TenantPosterior::new(&gp, models, 1e-4));
        for (j, &m) in models.iter().enumerate().take(3) {
            post.observe(j, trace.accuracy(tenant, m));
        }
        let (j, y) = (k / 2, trace.accuracy(tenant, models[k / 2]));
        bencher
            .with_inputs(|| post.clone())
            .bench_local_refs(|p| p.observe(black_box(j), black_box(y)));
    }

    /// One `gp-ucb-cost` proposal: UCB_c of every untried model from the
    /// posterior (3 models observed, one running) and the argmax: O(K).
    #[divan::bench(args = [20, 179, 1000])]
    fn ucb_argmax(bencher: Bencher, k: usize) {
        let (trace, prior, tenant) = setup(k);
        let users = [tenant];
        let mut sel = gp_selector("gp-ucb-cost", &trace, &users, &prior);
        let state = Tenants::new(
            &trace,
            &TenantUsers::list(&users),
            &[0],
            1,
            Default::default(),
        );
        for m in 0..3 {
            ok(sel.observe(0, m, trace.accuracy(tenant, m)));
        }
        bencher.bench_local(|| {
            // `started` drops the cached proposal, so `propose` rescores.
            ok(sel.started(0, 3));
            black_box(ok(sel.propose(&state, 0)))
        });
    }
}

/// One `greedy` decision (pick, start, complete) among n tenants × 20
/// models with `gp-ucb-cost`: O(K² + K + log n), not O(n).
mod greedy {
    use super::*;

    const DECISIONS: usize = 1000;

    #[divan::bench(args = [100, 10_000, 100_000], sample_count = 20, sample_size = 1)]
    fn decision(bencher: Bencher, n: usize) {
        let prior_users = 200;
        let trace = syn_trace(n + prior_users, 20, 5);
        let prior: Vec<usize> = (0..prior_users).collect();
        let users: Vec<usize> = (prior_users..prior_users + n).collect();
        let Some(greedy) = registry::scheduler("greedy") else {
            panic!("no greedy")
        };
        let make = ok((greedy.parse)(&mut Params::new("bench", BTreeMap::new())));
        bencher
            .counter(ItemsCount::new(DECISIONS))
            .with_inputs(|| {
                let ctx = RepContext {
                    trace: &trace,
                    gpu_types: &Arc::new(GpuTypes::untyped(1)),
                    tenants: &TenantUsers::list(&users),
                    prior: &prior,
                    seed: 0,
                    repetition: 0,
                };
                let mut h = ok(DecisionHarness::new(
                    &trace,
                    &users,
                    ok(make(&ctx)),
                    gp_selector("gp-ucb-cost", &trace, &users, &prior),
                ));
                // Score every tenant once (the first decision is O(n K)),
                // then run well into the steady state.
                for _ in 0..n.min(2 * DECISIONS) {
                    ok(h.decide());
                }
                h
            })
            .bench_local_refs(|h| {
                for _ in 0..DECISIONS {
                    black_box(ok(h.decide()));
                }
            });
    }
}

/// The event queue alone: 10M events through a queue holding 256 pending
/// (one per GPU of the scale scenario), pop one, push one later.
mod event_queue {
    use super::*;

    const EVENTS: u64 = 10_000_000;

    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn hold_10m(bencher: Bencher) {
        bencher.counter(ItemsCount::new(EVENTS)).bench_local(|| {
            let mut q = EventQueue::with_capacity(256);
            // A cheap deterministic stream of durations (xorshift).
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for g in 0..256u32 {
                q.push(u64::from(g), 0, g);
            }
            let mut last = 0;
            for _ in 0..EVENTS {
                let Some(e) = q.pop() else { break };
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                last = e.time;
                q.push(e.time + 1 + x % 2_000_000, (x >> 60) as u8 & 1, e.payload);
            }
            black_box(last)
        });
    }

    /// Push 10M events, then pop them all.
    #[divan::bench(sample_count = 3, sample_size = 1)]
    fn fill_drain_10m(bencher: Bencher) {
        bencher.counter(ItemsCount::new(EVENTS)).bench_local(|| {
            let mut q = EventQueue::with_capacity(EVENTS as usize);
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for i in 0..EVENTS {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                q.push(x % 10_000_000_000, 0, i as u32);
            }
            let mut sum = 0u64;
            while let Some(e) = q.pop() {
                sum = sum.wrapping_add(e.time);
            }
            black_box(sum)
        });
    }

    /// 1M arrivals at t = 0 (scale-1m's start, issue 34), then drained
    /// while 2,048 completions circulate: one push each (`push`, the heap
    /// alone) against one batch (`push_batch`, sorted once beside the
    /// heap). Both pop the same sequence (unit tests of `EventQueue`).
    #[divan::bench(args = [false, true], sample_count = 5, sample_size = 1)]
    fn arrivals_1m(bencher: Bencher, batch: bool) {
        const N: u32 = 1_000_000;
        bencher.counter(ItemsCount::new(N)).bench_local(|| {
            let mut q = EventQueue::with_capacity(N as usize + 2048);
            if batch {
                q.push_batch(vec![0; N as usize], 1, |i| i);
            } else {
                for i in 0..N {
                    q.push(0, 1, i);
                }
            }
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            let mut sum = 0u64;
            while let Some(e) = q.pop() {
                sum = sum.wrapping_add(u64::from(e.payload));
                if e.kind == 1 && e.payload % 488 == 0 {
                    // One completion per 488 arrivals: 2,048 in flight.
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    q.push(e.time + 1 + x % 2_000_000, 0, e.payload);
                }
            }
            black_box(sum)
        });
    }
}

/// Whole repetitions of scenarios on the bundled LCDB trace (248 users ×
/// 20 models), greedy + gp-ucb-cost on 4 GPUs: simulation and metrics.
mod repetition {
    use super::*;

    fn scenario(split: &str, fairness: bool) -> Scenario {
        let text = format!(
            "name = \"bench-lcdb\"\nseed = 1\nfairness = {fairness}\n\
             [trace]\npath = \"../traces/lcdb.csv\"\n[split]\n{split}\n\
             [cluster]\ngpus = 4\n\
             [[policy]]\nname = \"ease.ml\"\nscheduler = \"greedy\"\nselector = \"gp-ucb-cost\"\n"
        );
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/bench-lcdb.toml");
        ok(parse_scenario(&path, &text, Overrides::default()))
    }

    /// Half the users prior (124), the other 124 tenants.
    #[divan::bench]
    fn lcdb_half_prior(bencher: Bencher) {
        let s = scenario("prior_fraction = 0.5", false);
        bencher.bench_local(|| black_box(ok(simulate_one(&s, 0, 0))));
    }

    /// The same with `fairness = true`: plus one isolated run per tenant.
    #[divan::bench(sample_count = 20)]
    fn lcdb_half_prior_fairness(bencher: Bencher) {
        let s = scenario("prior_fraction = 0.5", true);
        bencher.bench_local(|| black_box(ok(simulate_one(&s, 0, 0))));
    }

    /// 40 tenants × 20 models, half the users prior: the "LCDB-sized"
    /// repetition of the performance target (under 1 ms).
    #[divan::bench]
    fn lcdb_40_tenants(bencher: Bencher) {
        let s = scenario("prior_fraction = 0.5\ntenant_count = 40", false);
        bencher.bench_local(|| black_box(ok(simulate_one(&s, 0, 0))));
    }
}

/// What a synthetic trace's row costs when it is regenerated from
/// (seed, user) instead of read from the dense matrices (issue 34, the
/// lazy `[trace.syn]`; docs/PERFORMANCE.md "Internet scale").
mod syn_row {
    use super::*;
    use tenantsim::models::trace::{SynBacking, SynRows};
    use tenantsim::models::trace::{generate_syn_trace, lazy_syn_trace};

    /// Users cycled through: a stride that visits them out of order.
    const USERS: usize = 1_000_000;
    const STRIDE: usize = 7_919;

    fn params(models: usize) -> SynParams {
        SynParams {
            users: USERS,
            models,
            ..SynParams::default()
        }
    }

    /// One user's K accuracies and runtimes, regenerated (seek + K pairs).
    #[divan::bench(args = [1, 20, 100])]
    fn regenerate(bencher: Bencher, models: usize) {
        let rows = SynRows::new(&params(models));
        let (mut acc, mut secs) = (vec![0.0; models], vec![0.0; models]);
        let mut user = 0;
        bencher.counter(ItemsCount::new(1usize)).bench_local(|| {
            user = (user + STRIDE) % USERS;
            rows.row(user, &mut acc, &mut secs);
            black_box((&acc, &secs));
        });
    }

    /// The SHA-256 of a lazy generated trace's canonical CSV text, what
    /// `run.json` records and the result cache keys on (scale-year's 2 ×
    /// 10^8 rows, when a run first reads it): 50,000 users × 20 models,
    /// items = rows. The digest is deferred, so the iteration reads it.
    #[divan::bench(sample_count = 5, sample_size = 1)]
    fn csv_sha256_1m_rows(bencher: Bencher) {
        let p = SynParams {
            users: 50_000,
            models: 20,
            ..SynParams::default()
        };
        bencher
            .counter(ItemsCount::new(p.users * p.models))
            .bench_local(|| black_box(lazy_syn_trace(&p, "bench").csv_sha256.hex().to_owned()));
    }

    /// Each iteration: the next user (`next`), then the sum of its K
    /// cells read through `read` (accuracy plus runtime), one item.
    fn read_rows(
        bencher: Bencher,
        models: usize,
        next: impl Fn(usize) -> usize,
        read: impl Fn(usize, usize) -> f64,
    ) {
        let mut user = 0;
        bencher.counter(ItemsCount::new(1usize)).bench_local(|| {
            user = next(user);
            let mut sum = 0.0;
            for k in 0..models {
                sum += read(user, k);
            }
            black_box(sum);
        });
    }

    /// The same row read from a dense trace of 10^6 users (K = 20), users
    /// visited out of order as the regenerated ones: the K runtimes and
    /// accuracies of one user, a cache miss or two each.
    #[divan::bench(sample_count = 20)]
    fn dense_read(bencher: Bencher) {
        let models = 20;
        let t = generate_syn_trace(&params(models), "bench").trace;
        read_rows(
            bencher,
            models,
            |u| (u + STRIDE) % USERS,
            |u, k| t.accuracy(u, k) + t.runtime_us(u, k) as f64,
        );
    }

    /// The same K reads through a lazy backing (`SynBacking`), users out
    /// of order: the first read of a user regenerates its row into the
    /// per-thread cache, the other K − 1 hit it.
    #[divan::bench]
    fn lazy_read_new_user(bencher: Bencher) {
        let models = 20;
        let t = SynBacking::new(&params(models), &[]);
        read_rows(
            bencher,
            models,
            |u| (u + STRIDE) % USERS,
            |u, k| t.accuracy(u, k) + t.runtime_us(u, k) as f64,
        );
    }

    /// K reads of a user whose row the cache holds (a working set of
    /// 512 users, under the 8,192 slots at K = 20).
    #[divan::bench]
    fn lazy_read_cached_user(bencher: Bencher) {
        let models = 20;
        let t = SynBacking::new(&params(models), &[]);
        for u in 0..512 {
            black_box(t.accuracy(u, 0)); // the rows enter the cache
        }
        read_rows(
            bencher,
            models,
            |u| (u + 1) % 512,
            |u, k| t.accuracy(u, k) + t.runtime_us(u, k) as f64,
        );
    }
}

/// A float's canonical CSV text, `{}` against `push_f64` (issue 34: a
/// generated trace's hash formats two a row; docs/PERFORMANCE.md
/// "Hashing a generated trace"): 4,096 accuracies and runtimes of a
/// `[trace.syn]` trace's ranges, items = floats.
mod float_text {
    use super::*;
    use std::fmt::Write as _;
    use tenantsim::core::io::float_text::push_f64;

    /// Fractions in [0, 1) and runtimes in [0, 500) s, from a fixed hash.
    fn values() -> Vec<f64> {
        (0..4096u64)
            .map(|i| {
                let u = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
                if i % 2 == 0 { u } else { 500.0 * u }
            })
            .collect()
    }

    #[divan::bench(args = ["display", "push_f64"])]
    fn format(bencher: Bencher, how: &str) {
        let xs = values();
        let mut out = String::with_capacity(1 << 17);
        bencher.counter(ItemsCount::new(xs.len())).bench_local(|| {
            out.clear();
            for &x in &xs {
                if how == "display" {
                    let _ = write!(out, "{x}");
                } else {
                    push_f64(&mut out, x);
                }
                out.push(',');
            }
            black_box(out.len());
        });
    }
}
