//! `successive-halving`: synchronous successive halving per tenant
//! (Jamieson & Talwalkar, AISTATS 2016; DESIGN §12.3).
//!
//! Each tenant runs one [`SyncRung`] over all its models from rung 0 to the
//! top rung: rung 0 trains them in trace order; when every job of a rung
//! has completed, the top ⌈n/η⌉ (best first, ties to the lowest model
//! index) go on to the next rung, best first. While a rung waits on running
//! jobs the tenant waits (`propose` returns `None`). When the top rung is
//! done the tenant is done (`after_schedule = "stop"`, the default: it
//! proposes nothing more, so it is never eligible again), or with
//! `"sweep"` it [sweeps](super::top_sweep) the models not trained at their
//! top level, best last observed accuracy first.

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::models::policy::entry::SelectorEntry;
use crate::models::sim::{Proposal, RepContext, Selector, SelectorFactory, Tenants};
use crate::models::trace::Trace;

use super::ladder::{Ladder, RungKeys};
use super::sync_rung::{Step, SyncRung};
use super::top_sweep::Sweep;

/// Registry entry.
pub fn entry() -> SelectorEntry {
    SelectorEntry::from_parse(
        "successive-halving",
        "synchronous successive halving per tenant on rungs min_fidelity·eta^j; after it the tenant is done, or with after_schedule = sweep trains the rest at the top fidelity (keys: eta, min_fidelity, after_schedule)",
        parse,
    )
    .provides_acquisition(true)
}

fn parse(params: &mut Params, trace: &Trace) -> Result<SelectorFactory> {
    let keys = RungKeys::parse(params, trace)?;
    Ok(Arc::new(move |ctx: &RepContext<'_>| {
        Ok(Box::new(SuccessiveHalving::new(keys, ctx)) as Box<dyn Selector>)
    }))
}

/// One repetition's successive halving.
#[derive(Debug, Clone)]
struct SuccessiveHalving {
    ladder: Ladder,
    runs: Vec<SyncRung>,
    sweeps: Vec<Sweep>,
}

impl SuccessiveHalving {
    fn new(keys: RungKeys, ctx: &RepContext<'_>) -> Self {
        let ladder = Ladder::new(keys, ctx);
        let top = ladder.n_rungs() - 1;
        let runs = ctx
            .tenants
            .iter()
            .map(|u| {
                let models = ctx.trace.models_of(u);
                let mut run = SyncRung::with_capacity(keys.eta, models.len());
                run.reset(0, top, models.iter().copied());
                run
            })
            .collect();
        let sweeps = ctx
            .tenants
            .iter()
            .map(|u| Sweep::new(keys.after, ctx.trace.models_of(u).len()))
            .collect();
        Self {
            ladder,
            runs,
            sweeps,
        }
    }
}

impl SuccessiveHalving {
    /// [`Selector::propose`] of this selector, which cannot fail.
    fn next_proposal(&mut self, tenants: &Tenants, i: usize) -> Option<Proposal> {
        let u = tenants.user(i);
        let ladder = &self.ladder;
        let sweep = &mut self.sweeps[i];
        if !sweep.is_active() {
            let run = &mut self.runs[i];
            match run.step(
                |k, r| ladder.level_of(u, k, r),
                |k| ladder.done(tenants, i, k),
            ) {
                Step::Start { model, .. } => {
                    return Some(ladder.proposal(tenants, i, model, run.rung()));
                }
                Step::Wait => return None,
                Step::Finished => sweep.begin(ladder.trace().models_of(u), |k| ladder.last(i, k)),
            }
        }
        let k = sweep.next(|k| tenants.is_tried(i, k))?;
        Some(ladder.proposal(tenants, i, k, ladder.n_rungs() - 1))
    }
}

impl Selector for SuccessiveHalving {
    fn fork(&self) -> Result<Box<dyn Selector>> {
        Ok(Box::new(self.clone()))
    }

    fn propose(&mut self, tenants: &Tenants, i: usize) -> Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, i))
    }

    fn started(&mut self, i: usize, k: usize) -> Result<()> {
        if !self.sweeps[i].is_active() {
            self.runs[i].started(k);
        }
        Ok(())
    }

    fn schedule_over(&self, i: usize) -> bool {
        self.sweeps[i].is_done()
    }

    fn observe(&mut self, i: usize, k: usize, accuracy: f64) -> Result<()> {
        self.ladder.record(i, k, accuracy);
        if !self.sweeps[i].is_active() {
            self.runs[i].observe(k, accuracy);
        }
        Ok(())
    }
}
