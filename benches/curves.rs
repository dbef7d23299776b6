//! Benchmarks of the multi-fidelity selectors on learning-curve traces
//! (issue 20, DESIGN §12; divan): whole repetitions, simulation and
//! metrics (`simulate_one`), with divan's allocation profiler so each
//! benchmark also reports the allocations of one repetition.
//!
//! ```sh
//! cargo bench --bench curves                    # everything (a few minutes)
//! cargo bench --bench curves -- lcdb_curves     # one group: lcdb_curves, syn_curves
//! ```
//!
//! docs/PERFORMANCE.md ("Learning curves") has the figures and how to read
//! the allocation counts. CI only type-checks them (clippy --all-targets).

use std::path::PathBuf;

use divan::counter::ItemsCount;
use divan::{AllocProfiler, Bencher, black_box};
use tenantsim::Result;
use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::experiment::simulate_one;
use tenantsim::models::scenario::{Scenario, parse_scenario};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

fn ok<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

/// A one-policy scenario: `trace` is the body of its `[trace]` table (or
/// a `[trace.syn]` table), `split` of `[split]`.
fn scenario(trace: &str, split: &str, gpus: u32, scheduler: &str, selector: &str) -> Scenario {
    let text = format!(
        "name = \"bench-curves\"\nseed = 1\nfairness = false\n\
         {trace}\n[split]\n{split}\n[cluster]\ngpus = {gpus}\n\
         [[policy]]\nname = \"p\"\nscheduler = \"{scheduler}\"\nselector = \"{selector}\"\n"
    );
    // Relative paths resolve against benches/.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/bench-curves.toml");
    ok(parse_scenario(&path, &text, Overrides::default()))
}

/// Time repetition 0 of `s`, counting its simulated events (arrivals and
/// completions) so divan also reports events per second.
fn bench_rep(bencher: Bencher, s: &Scenario) {
    let events = ok(simulate_one(s, 0, 0)).metrics.events;
    bencher
        .counter(ItemsCount::new(events))
        .bench_local(|| black_box(ok(simulate_one(s, 0, 0))));
}

/// One repetition on the bundled LCDB curve trace `traces/lcdb-curves.csv`
/// (248 data sets × 20 learners, 4,367 pairs, 72,224 rows: anchors 16 to
/// the full size): half the users prior (124), the other 124 tenants, from
/// scratch, default keys (η = 3, r₀ = 16), on 1 and 8 GPUs.
mod lcdb_curves {
    use super::*;

    const TRACE: &str = "[trace]\npath = \"../traces/lcdb-curves.csv\"";
    const SPLIT: &str = "prior_fraction = 0.5";

    /// ASHA per tenant, tenants served round-robin.
    #[divan::bench(args = [1, 8], sample_count = 20)]
    fn asha_round_robin(bencher: Bencher, gpus: u32) {
        bench_rep(
            bencher,
            &scenario(TRACE, SPLIT, gpus, "round-robin", "asha"),
        );
    }

    /// ASHA per tenant, tenants served by greedy's gain per believed
    /// GPU-second from the prior users' curves (DESIGN §12.3).
    #[divan::bench(args = [1, 8], sample_count = 20)]
    fn asha_greedy(bencher: Bencher, gpus: u32) {
        bench_rep(bencher, &scenario(TRACE, SPLIT, gpus, "greedy", "asha"));
    }

    /// Successive halving per tenant, round-robin.
    #[divan::bench(args = [1, 8], sample_count = 20)]
    fn successive_halving_round_robin(bencher: Bencher, gpus: u32) {
        bench_rep(
            bencher,
            &scenario(TRACE, SPLIT, gpus, "round-robin", "successive-halving"),
        );
    }

    /// The full-fidelity baseline on the same trace: `random` runs every
    /// model at its top level only.
    #[divan::bench(args = [1, 8], sample_count = 20)]
    fn random_round_robin(bencher: Bencher, gpus: u32) {
        bench_rep(
            bencher,
            &scenario(TRACE, SPLIT, gpus, "round-robin", "random"),
        );
    }
}

/// One repetition of a 10,000-tenant SYN curve workload: `[trace.syn]`
/// with 10,200 users (200 prior, drawn per repetition) × 20 models ×
/// `L` fidelities (2^(j−L+1), the top at 1; `gen syn --fidelities L`), 64
/// GPUs, round-robin, from scratch. L = 4 and 8: the same tenants with
/// more rungs; `asha_40_models`: the same tenants with twice the models,
/// so about twice the events (the allocation count tells whether anything
/// is allocated per event).
mod syn_curves {
    use super::*;

    fn syn(levels: u32, selector: &str) -> Scenario {
        syn_k(levels, 20, selector)
    }

    fn syn_k(levels: u32, models: u32, selector: &str) -> Scenario {
        let trace = format!(
            "[trace.syn]\nusers = 10200\nmodels = {models}\nseed = 1\nfidelities = {levels}"
        );
        scenario(&trace, "prior_count = 200", 64, "round-robin", selector)
    }

    #[divan::bench(args = [4, 8], sample_count = 5, sample_size = 1)]
    fn asha(bencher: Bencher, levels: u32) {
        bench_rep(bencher, &syn(levels, "asha"));
    }

    #[divan::bench(args = [4], sample_count = 5, sample_size = 1)]
    fn asha_40_models(bencher: Bencher, levels: u32) {
        bench_rep(bencher, &syn_k(levels, 40, "asha"));
    }

    #[divan::bench(args = [4, 8], sample_count = 5, sample_size = 1)]
    fn successive_halving(bencher: Bencher, levels: u32) {
        bench_rep(bencher, &syn(levels, "successive-halving"));
    }

    /// The full-fidelity baseline on the same trace.
    #[divan::bench(args = [4], sample_count = 5, sample_size = 1)]
    fn random(bencher: Bencher, levels: u32) {
        bench_rep(bencher, &syn(levels, "random"));
    }
}
