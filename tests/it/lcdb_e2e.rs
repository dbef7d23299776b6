//! End to end on the bundled LCDB trace (`traces/lcdb.csv`, 248 data sets ×
//! 20 learners, written by `tenantsim import lcdb`; tests/it/trace_sources.rs
//! checks it equals an on-the-fly import of ../shared/data): 50 prior users,
//! the other 198 tenants, 1 and 4 GPUs, the five policies of the ease.ml
//! comparison. Asserts invariants, not a hoped-for ordering.

use std::collections::HashSet;
use std::path::Path;

use tenantsim::core::io::scenario::Overrides;
use tenantsim::models::experiment::{RunOptions, run_experiment};
use tenantsim::models::scenario::parse_scenario;

const POLICIES: &str = r#"
[[policy]]
name = "rr-random"
scheduler = "round-robin"
selector = "random"
[[policy]]
name = "rr-gp-ucb"
scheduler = "round-robin"
selector = "gp-ucb"
[[policy]]
name = "rr-gp-ucb-cost"
scheduler = "round-robin"
selector = "gp-ucb-cost"
[[policy]]
name = "greedy-gp-ucb-cost"
scheduler = "greedy"
selector = "gp-ucb-cost"
[[policy]]
name = "hybrid-gp-ucb-cost"
scheduler = "hybrid"
selector = "gp-ucb-cost"
"#;

fn check(gpus: u32) {
    let text = format!(
        "name = \"lcdb-e2e\"\nseed = 3\nrepetitions = 2\nfairness = false\nthresholds = [0.05, 0.02, 0.01]\n\
         [trace]\npath = \"../traces/lcdb.csv\"\n[split]\nprior_count = 50\n[cluster]\ngpus = {gpus}\n{POLICIES}"
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/lcdb-e2e.toml");
    let s = parse_scenario(&path, &text, Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    let options = RunOptions {
        keep_jobs: true,
        ..RunOptions::default()
    };
    let result = run_experiment(&s, options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.runs.len(), 2 * 5);
    for r in &result.runs {
        let name = &s.policies[r.policy].name;
        assert_eq!(r.split.prior.len(), 50);
        assert_eq!(r.split.tenants.len(), 198);
        // Every available pair ran exactly once.
        let pairs: HashSet<(u32, u32)> = r
            .outcome
            .jobs
            .to_vec()
            .expect("the job log")
            .into_iter()
            .map(|j| (j.tenant, j.model))
            .collect();
        assert_eq!(
            pairs.len(),
            r.outcome.jobs.len(),
            "{name}: a pair ran twice"
        );
        let available: usize = r
            .split
            .tenants
            .iter()
            .map(|u| s.trace.models_of(u).len())
            .sum();
        assert_eq!(
            r.outcome.jobs.len(),
            available,
            "{name}: not every pair ran"
        );
        // Each tenant's loss never increases: its best never decreases.
        let mut best = vec![0.0f64; r.split.tenants.len()];
        let log = r.outcome.jobs.to_vec().expect("the job log");
        for j in r.outcome.completion_order.to_vec().expect("the job log") {
            let job = &log[j as usize];
            let b = &mut best[job.tenant as usize];
            *b = b.max(job.accuracy);
        }
        // … and ends at its A*: final loss 0 when all models ran.
        for (i, u) in r.split.tenants.iter().enumerate() {
            assert_eq!(
                best[i],
                s.trace.best_accuracy(u),
                "{name}: tenant {i} missed its best"
            );
        }
        assert_eq!(r.metrics.final_loss, 0.0, "{name}");
        assert!(
            r.curve
                .sum_loss()
                .expect("read")
                .windows(2)
                .all(|w| w[1] <= w[0] + 1e-12),
            "{name}: L rose"
        );
        // No GPU runs two jobs at once.
        let log = r.outcome.jobs.records().expect("the job log");
        let booked = crate::common::double_booked_gpu(&log, gpus);
        assert!(booked.is_none(), "{name}: GPU {booked:?} double-booked");
    }
}

#[test]
fn lcdb_one_gpu_invariants() {
    check(1);
}

#[test]
fn lcdb_four_gpus_invariants() {
    check(4);
}
