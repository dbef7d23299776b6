//! A scheduler and a model selector written outside the crate, registered
//! by name and run from a scenario that names them (DESIGN §10):
//!
//! ```sh
//! cargo run --release --example custom_policy
//! ```
//!
//! - `fewest-started` (scheduler): the eligible tenant that has started
//!   the fewest jobs, ties to the lowest index.
//! - `cheapest-first` (selector): the tenant's untried model with the
//!   smallest runtime, ties to the lowest model index; it takes one key,
//!   `reverse` (default false), to show how a policy reads its table.
//!
//! The example runs them on the hand trace (`traces/hand.csv`, 3 tenants,
//! 1 GPU) and checks the job log against the sequence derived by hand
//! below; it exits 1 if they differ. `.ci/run` runs it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tenantsim::prelude::*;

/// The eligible tenant with the fewest started jobs (lowest index on ties).
struct FewestStarted;

impl Scheduler for FewestStarted {
    fn pick(&mut self, tenants: &Tenants, _selector: &mut dyn Selector) -> Result<Option<usize>> {
        // O(tenants) per decision: fine for an example; a scheduler for
        // large scenarios keeps its own index of eligible tenants, updated
        // in `tenant_changed` (see the built-in round-robin).
        Ok((0..tenants.len())
            .filter(|&t| tenants.is_eligible(t))
            .min_by_key(|&t| (tenants.started(t), t)))
    }
}

/// The untried model with the smallest (or, with `reverse`, largest)
/// runtime; ties to the lowest model index.
struct CheapestFirst {
    trace: Arc<Trace>,
    /// Trace user of each tenant.
    users: Vec<usize>,
    reverse: bool,
}

impl Selector for CheapestFirst {
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        let user = self.users[tenant];
        let untried = (0..self.trace.n_models())
            .filter(|&k| self.trace.available_mask()[[user, k]] && !tenants.is_tried(tenant, k));
        let model = if self.reverse {
            untried.max_by_key(|&k| (self.trace.runtime_us(user, k), std::cmp::Reverse(k)))
        } else {
            untried.min_by_key(|&k| (self.trace.runtime_us(user, k), k))
        };
        Ok(model.map(Proposal::plain))
    }
}

fn registry() -> Result<Registry> {
    let mut registry = Registry::builtin();
    registry.add_scheduler(SchedulerEntry::of(
        "fewest-started",
        "the eligible tenant that has started the fewest jobs",
        || FewestStarted,
    ))?;
    registry.add_selector(SelectorEntry::new(
        "cheapest-first",
        "the untried model with the smallest runtime",
        |params: &mut Params, _trace: &Trace| {
            let reverse = params.bool("reverse", false)?;
            Ok(move |ctx: &RepContext<'_>| {
                Ok(CheapestFirst {
                    trace: Arc::clone(ctx.trace),
                    users: ctx.tenants.to_vec(),
                    reverse,
                })
            })
        },
    ))?;
    Ok(registry)
}

/// The job log of the custom policy, derived by hand on one GPU:
/// (user, model, start s, end s). At each free GPU the tenant with the
/// fewest started jobs (then the lowest index) trains its cheapest untried
/// model (then the lowest model index: linear 0, forest 1, boosting 2,
/// deepnet 3).
/// u3's models cost linear 3 s, forest 1 s, boosting 1 s, deepnet 10 s,
/// so its third job (at 20 s) is linear; at 23 s u1 and u3 have both
/// started 3 jobs and u1, the lower index, goes first.
const BY_HAND: [(&str, &str, &str, &str); 11] = [
    ("u1", "linear", "0.000000", "2.000000"),
    ("u2", "linear", "2.000000", "3.000000"),
    ("u3", "forest", "3.000000", "4.000000"),
    ("u1", "forest", "4.000000", "8.000000"),
    ("u2", "boosting", "8.000000", "10.000000"),
    ("u3", "boosting", "10.000000", "11.000000"),
    ("u1", "boosting", "11.000000", "17.000000"),
    ("u2", "forest", "17.000000", "20.000000"),
    ("u3", "linear", "20.000000", "23.000000"),
    ("u1", "deepnet", "23.000000", "31.000000"),
    ("u3", "deepnet", "31.000000", "41.000000"),
];

fn run() -> std::result::Result<(), String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("tenantsim-custom-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let scenario = dir.join("custom.toml");
    let text = format!(
        "name = \"custom\"\nrepetitions = 2\nthresholds = [0.1]\n\
         [trace]\npath = \"{}\"\n[cluster]\ngpus = 1\n\
         [[policy]]\nname = \"mine\"\nscheduler = \"fewest-started\"\nselector = \"cheapest-first\"\n\
         [[policy]]\nname = \"rr-in-order\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n",
        root.join("traces/hand.csv").display()
    );
    std::fs::write(&scenario, text).map_err(|e| e.to_string())?;
    let out = dir.join("results");
    let args = RunArgs {
        scenario,
        out: Some(out.clone()),
        force: false,
        jobs: true,
        threads: Some(2),
        seed: None,
        reps: None,
        quiet: true,
        no_plots: true,
        json: true,
        shard: None,
        cache: None,
        no_cache: false,
    };
    let summary = run_scenario_with(&args, &registry().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let jobs = std::fs::read_to_string(out.join("jobs.csv")).map_err(|e| e.to_string())?;
    let header: Vec<&str> = jobs.lines().next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(policy), Some(rep), Some(user), Some(model), Some(start), Some(end)) = (
        col("policy"),
        col("rep"),
        col("user"),
        col("model"),
        col("start_s"),
        col("end_s"),
    ) else {
        return Err(format!("jobs.csv: unexpected header {header:?}"));
    };
    for r in 0..2 {
        let mine: Vec<(String, String, String, String)> = jobs
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|c| c[policy] == "mine" && c[rep] == r.to_string())
            .map(|c| {
                (
                    c[user].to_string(),
                    c[model].to_string(),
                    c[start].to_string(),
                    c[end].to_string(),
                )
            })
            .collect();
        let expected: Vec<(String, String, String, String)> = BY_HAND
            .iter()
            .map(|(u, m, s, e)| (u.to_string(), m.to_string(), s.to_string(), e.to_string()))
            .collect();
        if mine != expected {
            return Err(format!(
                "repetition {r}: the job log differs from the hand-derived one:\n  got      {mine:?}\n  expected {expected:?}"
            ));
        }
    }
    let names: Vec<&str> = summary["policies"]
        .as_array()
        .map(|ps| ps.iter().filter_map(|p| p["name"].as_str()).collect())
        .unwrap_or_default();
    if names != ["mine", "rr-in-order"] {
        return Err(format!("--json lists the policies {names:?}"));
    }
    std::fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;
    eprintln!(
        "custom_policy: `fewest-started` + `cheapest-first` ran from a scenario and match the hand-derived job log"
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("custom_policy: {e}");
            ExitCode::FAILURE
        }
    }
}
