//! `greedy` (ease.ml): the eligible tenant with the highest score
//! (DESIGN §4).

use std::sync::Arc;

use crate::engine::Tenants;
use crate::error::Result;
use crate::policy::registry::SchedulerSpec;
use crate::policy::score_heap::ScoreHeap;
use crate::policy::{Params, RepContext, Scheduler, SchedulerFactory, Selector};

/// Registry entry.
pub const SPEC: SchedulerSpec = SchedulerSpec {
    name: "greedy",
    about: "ease.ml: the eligible tenant with the highest (a − best)/ĉ of its selector's proposal, ties lowest index (needs a GP selector)",
    needs_acquisition: true,
    parse,
};

fn parse(_params: &mut Params) -> Result<SchedulerFactory> {
    Ok(Arc::new(|ctx: &RepContext<'_>| {
        Ok(Box::new(Greedy::new(ctx.tenants.len())) as Box<dyn Scheduler>)
    }))
}

/// Serves the eligible tenant with the highest [`Selector::greedy_score`]
/// of the selector's proposal for it (for the UCB selectors
/// [`crate::policy::gain_per_cost`], DESIGN §4), ties by the lowest tenant
/// index.
///
/// Incremental: a tenant's score depends only on its own state (its
/// posterior, completed count, best_i and untried models), which changes
/// only through the events the engine reports by
/// [`Scheduler::tenant_changed`]. Those tenants are marked dirty; a pick
/// rescores the dirty tenants (one `propose` each, served from the
/// selector's cache when unchanged) into an indexed max-heap and reads its
/// top. A decision therefore costs O(d log n) for d tenants changed since
/// the previous one (d is O(1) per event), not O(n). Nothing allocates
/// after construction.
#[derive(Debug, Clone)]
pub struct Greedy {
    heap: ScoreHeap,
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
}

impl Greedy {
    /// A scheduler over `n` tenants.
    pub fn new(n: usize) -> Self {
        Self {
            heap: ScoreHeap::new(n),
            dirty: Vec::with_capacity(n),
            is_dirty: vec![false; n],
        }
    }

    /// Rescore the tenants changed since the last call; the best eligible
    /// tenant and its score.
    pub fn best(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Option<(usize, f64)> {
        for i in self.dirty.drain(..) {
            let i = i as usize;
            self.is_dirty[i] = false;
            let proposal = if tenants.is_eligible(i) {
                selector.propose(tenants, i)
            } else {
                None
            };
            match proposal {
                Some(p) => self.heap.set(i, selector.greedy_score(&p, tenants.best(i))),
                None => self.heap.remove(i),
            }
        }
        self.heap.top()
    }
}

impl Scheduler for Greedy {
    fn pick(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Option<usize> {
        self.best(tenants, selector).map(|(i, _)| i)
    }

    fn tenant_changed(&mut self, _tenants: &Tenants, tenant: usize) {
        if !self.is_dirty[tenant] {
            self.is_dirty[tenant] = true;
            self.dirty.push(tenant as u32);
        }
    }
}
