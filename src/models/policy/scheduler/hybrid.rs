//! `hybrid` (ease.ml): `greedy` until a switch condition holds, then
//! `round-robin` for the rest of the run (DESIGN §4.4).

use std::sync::Arc;

use super::greedy::{Greedy, Score};
use super::round_robin::RoundRobin;
use crate::core::error::Result;
use crate::core::params::Params;
use crate::models::policy::entry::SchedulerEntry;
use crate::models::sim::Tenants;
use crate::models::sim::{PrefetchStep, RepContext, Scheduler, SchedulerFactory, Selector};

/// Registry entry.
pub fn entry() -> SchedulerEntry {
    SchedulerEntry::from_parse(
        "hybrid",
        "ease.ml: greedy until the best score is <= switch_epsilon or switch_after jobs in a row improve no tenant, then round-robin (needs a GP or multi-fidelity selector)",
        parse,
    )
    .needs_acquisition(true)
}

/// Default `switch_epsilon`: switch once the best greedy score is ≤ 0.01
/// (no tenant is believed to gain more than one accuracy point per unit of
/// believed cost), in the units of the `score` in force: per GPU-second for
/// `per-second`, per unit of relative cost for `per-relative-cost`.
pub const DEFAULT_SWITCH_EPSILON: f64 = 0.01;

/// Default `switch_after`: switch after 10 consecutive completed jobs none
/// of which improved its tenant's best accuracy.
pub const DEFAULT_SWITCH_AFTER: u64 = 10;

fn parse(params: &mut Params) -> Result<SchedulerFactory> {
    let epsilon = params.f64("switch_epsilon", DEFAULT_SWITCH_EPSILON)?;
    if epsilon.is_nan() {
        return Err(params.invalid(
            "switch_epsilon",
            "expected a number (-inf disables the condition), got nan",
        ));
    }
    let after = params.u64("switch_after", DEFAULT_SWITCH_AFTER)?;
    let score = Score::parse(params)?;
    Ok(Arc::new(move |ctx: &RepContext<'_>| {
        let greedy = Greedy::with_types(ctx.tenants.len(), ctx.gpu_types.n_types(), score);
        Ok(Box::new(Hybrid::with_greedy(
            greedy,
            ctx.tenants.len(),
            epsilon,
            after,
        )) as Box<dyn Scheduler>)
    }))
}

/// [`Greedy`] until, at a decision, either
/// - the best greedy score is ≤ ε (`switch_epsilon`, default
///   [`DEFAULT_SWITCH_EPSILON`]; `-inf` disables it), or
/// - the last s completed jobs (s = `switch_after`, default
///   [`DEFAULT_SWITCH_AFTER`]; 0 disables it) all left their tenant's best
///   accuracy unchanged (a completion that raises best_i resets the count;
///   with one GPU this is the shared contract's "s consecutive greedy
///   picks with no tenant improving", and counting completions rather than
///   picks keeps the rule meaningful when many GPUs are filled at one
///   instant; DESIGN §4.4 and its list of differences);
///
/// then [`RoundRobin`] for the rest of the run, its pointer starting just
/// after the last tenant greedy served (round-robin's own rule: the pointer
/// continues after the last tenant served). The decision at which the
/// condition is found is already round-robin's.
///
/// Source: Li et al., PVLDB 11(5) 2018 (arXiv 1708.07308), the hybrid of
/// ease.ml's greedy user selection and round-robin.
#[derive(Debug, Clone)]
pub struct Hybrid {
    greedy: Greedy,
    rr: RoundRobin,
    epsilon: f64,
    after: u64,
    switched: bool,
    /// Completed jobs in a row that improved no tenant.
    stale: u64,
    /// Completed jobs per tenant as last seen, to spot completions.
    seen_completed: Vec<u32>,
    /// best_i as last seen.
    seen_best: Vec<f64>,
    last_served: Option<usize>,
}

impl Hybrid {
    /// A scheduler over `n` tenants with threshold `epsilon`, count `after`
    /// and greedy's `score`.
    pub fn new(n: usize, epsilon: f64, after: u64, score: Score) -> Self {
        Self::with_greedy(Greedy::new(n, score), n, epsilon, after)
    }

    /// [`Hybrid::new`] starting from `greedy` (e.g. one built for several
    /// GPU types, [`Greedy::with_types`]) over `n` tenants.
    pub fn with_greedy(greedy: Greedy, n: usize, epsilon: f64, after: u64) -> Self {
        Self {
            greedy,
            rr: RoundRobin::new(n),
            epsilon,
            after,
            switched: false,
            stale: 0,
            seen_completed: vec![0; n],
            seen_best: vec![0.0; n],
            last_served: None,
        }
    }

    /// Whether it has switched to round-robin.
    pub fn switched(&self) -> bool {
        self.switched
    }
}

impl Scheduler for Hybrid {
    fn fork(&self) -> Result<Box<dyn Scheduler>> {
        Ok(Box::new(self.clone()))
    }

    /// Greedy's hints while it schedules.
    fn prefetch(&self, tenant: usize, step: PrefetchStep) {
        if !self.switched {
            self.greedy.prefetch(tenant, step);
        }
    }

    /// Greedy's next picks while it schedules.
    fn next_picks(&self) -> [Option<usize>; 3] {
        if self.switched {
            [None; 3]
        } else {
            self.greedy.next_picks()
        }
    }

    fn pick(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Result<Option<usize>> {
        if !self.switched {
            let Some((i, score)) = self.greedy.best(tenants, selector)? else {
                return Ok(None);
            };
            let stale = self.after > 0 && self.stale >= self.after;
            if !(stale || score <= self.epsilon) {
                self.last_served = Some(i);
                return Ok(Some(i));
            }
            self.switched = true;
            self.rr.set_pointer(self.last_served.map_or(0, |j| j + 1));
        }
        self.rr.pick(tenants, selector)
    }

    fn tenant_changed(&mut self, tenants: &Tenants, tenant: usize) -> Result<()> {
        self.rr.tenant_changed(tenants, tenant)?;
        if self.switched {
            return Ok(());
        }
        self.greedy.tenant_changed(tenants, tenant)?;
        let done = tenants.completed(tenant);
        if done != self.seen_completed[tenant] {
            self.seen_completed[tenant] = done;
            let best = tenants.best(tenant);
            if best > self.seen_best[tenant] {
                self.seen_best[tenant] = best;
                self.stale = 0;
            } else {
                self.stale += 1;
            }
        }
        Ok(())
    }
}
