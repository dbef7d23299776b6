//! A policy author's whole binary: a scheduler and a model selector
//! registered by name, and every `tenantsim` subcommand (`run`, `merge`,
//! `validate`, `plot`, `table`, `check`...) knowing them (DESIGN §10):
//! `cargo run --example custom_policy -- run examples/custom_policy.toml`.
use std::{process::ExitCode, sync::Arc};
use tenantsim::prelude::*;

/// The eligible tenant that has started the fewest jobs (lowest index on ties).
struct FewestStarted;
impl Scheduler for FewestStarted {
    fn pick(&mut self, tenants: &Tenants, _: &mut dyn Selector) -> Result<Option<usize>> {
        let eligible = (0..tenants.len()).filter(|&t| tenants.is_eligible(t));
        Ok(eligible.min_by_key(|&t| (tenants.started(t), t)))
    }
}

/// The tenant's untried model with the smallest runtime (lowest index on ties).
struct CheapestFirst(Arc<Trace>, Vec<usize>);
impl Selector for CheapestFirst {
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        let (trace, user) = (&self.0, self.1[tenant]);
        let untried = (0..trace.n_models())
            .filter(|&k| trace.is_available(user, k) && !tenants.is_tried(tenant, k));
        let cheapest = untried.min_by_key(|&k| (trace.runtime_us(user, k), k));
        Ok(cheapest.map(Proposal::plain))
    }
}

fn main() -> ExitCode {
    let mut registry = Registry::builtin();
    let scheduler = SchedulerEntry::of("fewest-started", "fewest started jobs first", || {
        FewestStarted
    });
    let selector = SelectorEntry::new("cheapest-first", "cheapest untried model", |_, _| {
        Ok(|c: &RepContext<'_>| Ok(CheapestFirst(c.trace.clone(), c.tenants.to_vec())))
    });
    // Both names are new: registering them cannot fail.
    let added = registry.add_scheduler(scheduler);
    added
        .and(registry.add_selector(selector))
        .expect("new names");
    tenantsim::cli::main_with(registry)
}
