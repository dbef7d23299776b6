//! A repetition's set-up as one call (its finish, [`super::finish_rep`],
//! sits beside the batch run's in `runner.rs`), for a run simulated
//! elsewhere and later (a shared scenario's service stepped one decision
//! at a time, DESIGN §15.6): what [`super::simulate_rep_with`] does before
//! and after its main run, exactly.

use std::time::Instant;

use super::runner::{rep_context, rep_setup};
use crate::core::error::{Error, Result};
use crate::models::scenario::{Scenario, Split};
use crate::models::sim::{RepContext, Scheduler, Selector};
use crate::models::trace::Micros;

/// Repetition `rep` of policy `policy` set up, nothing simulated: its
/// split, arrivals and the policy's scheduler and selector, built as the
/// batch run builds them (scheduler first).
pub struct RepStart {
    /// The repetition.
    pub rep: u64,
    /// The policy's index.
    pub policy: usize,
    /// Prior users and tenants.
    pub split: Split,
    /// Each tenant's arrival, µs.
    pub arrivals: std::sync::Arc<[Micros]>,
    /// The policy's scheduler for this repetition.
    pub scheduler: Box<dyn Scheduler>,
    /// The policy's selector for this repetition.
    pub selector: Box<dyn Selector>,
    /// When the set-up began (the result's `elapsed`).
    pub started: Instant,
}

impl std::fmt::Debug for RepStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepStart")
            .field("rep", &self.rep)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// Set up repetition `rep` of policy `policy` of `scenario` (errors carry
/// the policy and repetition).
pub fn start_rep(scenario: &Scenario, rep: u64, policy: usize) -> Result<RepStart> {
    let started = Instant::now();
    let n = scenario.policies.len();
    let p = scenario.policies.get(policy).ok_or_else(|| {
        Error::usage(format!(
            "policy {policy}: the scenario has {n} policies (0 to {})",
            n.saturating_sub(1)
        ))
    })?;
    let context = || rep_context(scenario, rep, policy);
    let (split, arrivals) = rep_setup(scenario, rep)?;
    let ctx = RepContext {
        trace: &scenario.trace,
        gpu_types: &scenario.gpu_types,
        tenants: &split.tenants,
        prior: &split.prior,
        seed: scenario.seed(),
        repetition: rep,
    };
    let scheduler = (p.make_scheduler)(&ctx).map_err(|e| e.context(context()))?;
    let selector = (p.make_selector)(&ctx).map_err(|e| e.context(context()))?;
    Ok(RepStart {
        rep,
        policy,
        split,
        // Listed: the shared engine and a stepped episode read every
        // tenant's time.
        arrivals: arrivals.to_list(),
        scheduler,
        selector,
        started,
    })
}
