//! `random`: a uniformly random untried model.

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::rng::{Purpose, SimRng, below, stream};
use crate::models::policy::entry::SelectorEntry;
use crate::models::sim::Tenants;
use crate::models::sim::{Proposal, RepContext, Selector, SelectorFactory};
use crate::models::trace::Trace;

/// Registry entry.
pub fn entry() -> SelectorEntry {
    SelectorEntry::from_parse(
        "random",
        "a uniformly random untried model (per-repetition RNG)",
        parse,
    )
}

fn parse(_params: &mut Params, _trace: &Trace) -> Result<SelectorFactory> {
    Ok(Arc::new(|ctx: &RepContext<'_>| {
        Ok(Box::new(RandomSelector {
            trace: Arc::clone(ctx.trace),
            rng: stream(ctx.seed, ctx.repetition, Purpose::Selector),
            pending: vec![None; ctx.tenants.len()],
        }) as Box<dyn Selector>)
    }))
}

/// Draws `r` uniform in `0..untried` from the repetition's selector stream
/// and proposes the tenant's `r`-th untried available model in index order.
/// The draw is kept until the job starts, so asking twice gives the same
/// answer.
#[derive(Debug, Clone)]
struct RandomSelector {
    trace: Arc<Trace>,
    rng: SimRng,
    pending: Vec<Option<usize>>,
}

impl RandomSelector {
    /// [`Selector::propose`] of this selector, which cannot fail.
    fn next_proposal(&mut self, tenants: &Tenants, tenant: usize) -> Option<Proposal> {
        let model = match self.pending[tenant] {
            Some(k) => k,
            None => {
                let untried = tenants.untried(tenant) as usize;
                if untried == 0 {
                    return None;
                }
                let r = below(&mut self.rng, untried);
                let u = tenants.user(tenant);
                let k = self
                    .trace
                    .models_of(u)
                    .iter()
                    .copied()
                    .filter(|&k| !tenants.is_tried(tenant, k))
                    .nth(r)?;
                self.pending[tenant] = Some(k);
                k
            }
        };
        Some(Proposal::plain(model))
    }
}

impl Selector for RandomSelector {
    fn fork(&self) -> Result<Box<dyn Selector>> {
        Ok(Box::new(self.clone()))
    }

    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, tenant))
    }

    fn started(&mut self, tenant: usize, _model: usize) -> Result<()> {
        self.pending[tenant] = None;
        Ok(())
    }
}
