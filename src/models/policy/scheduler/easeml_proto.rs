//! `easeml-proto`: the user scheduler of the ease.ml prototype — the user
//! whose UCB dropped the most between its last two runs, among the users
//! that are still uncertain.

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::heap::ranks_above;
use crate::models::policy::entry::SchedulerEntry;
use crate::models::policy::tenant_set::TenantSet;
use crate::models::sim::Tenants;
use crate::models::sim::{RepContext, Scheduler, SchedulerFactory, Selector};

/// Registry entry.
pub fn entry() -> SchedulerEntry {
    SchedulerEntry::from_parse(
        "easeml-proto",
        "ease.ml prototype: two round-robin warm-up runs per tenant, then the largest drop of the acquisition between a tenant's last two runs among tenants with √β·σ above the average (needs a GP or multi-fidelity selector)",
        parse,
    )
    .needs_acquisition(true)
}

/// Runs each tenant makes round-robin before the drop rule applies.
pub const WARMUP_RUNS: u32 = 2;

fn parse(_params: &mut Params) -> Result<SchedulerFactory> {
    Ok(Arc::new(|ctx: &RepContext<'_>| {
        Ok(Box::new(EasemlProto::new(ctx.tenants.len())) as Box<dyn Scheduler>)
    }))
}

/// The ease.ml prototype's user selection, exactly:
///
/// 1. Warm-up: while some eligible tenant has started fewer than
///    [`WARMUP_RUNS`] = 2 jobs, serve those tenants round-robin (index
///    order, the pointer continuing after the last tenant served). With all
///    tenants arriving at once and one job per tenant this is two
///    round-robin rounds.
/// 2. Otherwise, over the eligible tenants E:
///
///    ```text
///    b_i = √β_t σ_i(k_i)                       (the proposal's `bonus`)
///    b̄   = (1/|E|) Σ_{i∈E} b_i                 (summed in index order)
///    C   = { i ∈ E : b_i > b̄ },  or E if that is empty
///    Δ_i = a_i⁽ʳ⁻¹⁾ − a_i⁽ʳ⁾
///    pick argmax_{i∈C} Δ_i, ties by the lowest index (NaN lowest)
///    ```
///
///    where k_i is the model the selector proposes for i now, β_t its β
///    (t = i's completed jobs + 1), and a_i⁽ʳ⁾, a_i⁽ʳ⁻¹⁾ are the
///    acquisition values ([`crate::models::sim::Proposal::acquisition`]: UCB for
///    `gp-ucb`, UCB_c for `gp-ucb-cost`, EI for the EI selectors) of the
///    proposals i started at its latest and second-latest run, recorded
///    when they were picked.
///
/// Source: Li et al., PVLDB 11(5) 2018 (arXiv 1708.07308): the heuristic
/// of ease.ml's first prototype that the paper's greedy rule replaced.
///
/// Cost: the drop rule scans the eligible tenants, O(n) per decision (the
/// warm-up is O(1)); use `greedy` for very many tenants.
#[derive(Debug, Clone)]
pub struct EasemlProto {
    eligible: TenantSet,
    /// Eligible tenants that have started fewer than [`WARMUP_RUNS`] jobs.
    warming: TenantSet,
    pointer: usize,
    /// a_i⁽ʳ⁻¹⁾ and a_i⁽ʳ⁾.
    previous: Vec<f64>,
    latest: Vec<f64>,
    /// b_i of the current decision.
    bonus: Vec<f64>,
}

impl EasemlProto {
    /// A scheduler over `n` tenants.
    pub fn new(n: usize) -> Self {
        Self {
            eligible: TenantSet::new(n),
            warming: TenantSet::new(n),
            pointer: 0,
            previous: vec![f64::NAN; n],
            latest: vec![f64::NAN; n],
            bonus: vec![f64::NAN; n],
        }
    }

    /// Record the acquisition of the proposal tenant `i` is about to start
    /// (the engine starts the picked tenant's proposal right away).
    fn serve(
        &mut self,
        tenants: &Tenants,
        selector: &mut dyn Selector,
        i: usize,
    ) -> Result<Option<usize>> {
        let a = selector
            .propose(tenants, i)?
            .map_or(f64::NAN, |p| p.acquisition);
        self.previous[i] = self.latest[i];
        self.latest[i] = a;
        Ok(Some(i))
    }

    fn eligible_iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut next = self.eligible.next_at_or_after(0);
        std::iter::from_fn(move || {
            let i = next?;
            next = self.eligible.next_at_or_after(i + 1);
            Some(i)
        })
    }
}

impl Scheduler for EasemlProto {
    fn fork(&self) -> Result<Box<dyn Scheduler>> {
        Ok(Box::new(self.clone()))
    }

    fn pick(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Result<Option<usize>> {
        if let Some(i) = self
            .warming
            .next_at_or_after(self.pointer)
            .or_else(|| self.warming.next_at_or_after(0))
        {
            self.pointer = i + 1;
            return self.serve(tenants, selector, i);
        }
        let (mut sum, mut count) = (0.0, 0usize);
        let mut i = self.eligible.next_at_or_after(0);
        while let Some(t) = i {
            let b = selector
                .propose(tenants, t)?
                .and_then(|p| p.bonus)
                .unwrap_or(f64::NAN);
            self.bonus[t] = b;
            sum += b;
            count += 1;
            i = self.eligible.next_at_or_after(t + 1);
        }
        if count == 0 {
            return Ok(None);
        }
        let mean = sum / count as f64;
        let above = |t: usize| self.bonus[t] > mean;
        let any_above = self.eligible_iter().any(above);
        let mut best: Option<(usize, f64)> = None;
        for t in self.eligible_iter() {
            if any_above && !above(t) {
                continue;
            }
            let drop = self.previous[t] - self.latest[t];
            if best.is_none_or(|(b, db)| ranks_above(drop, t, db, b)) {
                best = Some((t, drop));
            }
        }
        let Some((i, _)) = best else {
            return Ok(None);
        };
        self.pointer = i + 1;
        self.serve(tenants, selector, i)
    }

    fn tenant_changed(&mut self, tenants: &Tenants, tenant: usize) -> Result<()> {
        let eligible = tenants.is_eligible(tenant);
        let started = tenants.completed(tenant) + tenants.running(tenant);
        self.eligible.set(tenant, eligible);
        self.warming.set(tenant, eligible && started < WARMUP_RUNS);
        Ok(())
    }
}
