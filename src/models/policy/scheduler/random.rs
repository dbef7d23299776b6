//! `random`: a uniformly random eligible tenant (DESIGN §4.2).

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::core::sim::rng::{Purpose, SimRng, below, stream};
use crate::models::policy::entry::SchedulerEntry;
use crate::models::policy::tenant_set::TenantSet;
use crate::models::sim::Tenants;
use crate::models::sim::{RepContext, Scheduler, SchedulerFactory, Selector};

/// Registry entry.
pub fn entry() -> SchedulerEntry {
    SchedulerEntry::from_parse(
        "random",
        "a uniformly random eligible tenant (per-repetition RNG)",
        parse,
    )
}

fn parse(_params: &mut Params) -> Result<SchedulerFactory> {
    Ok(Arc::new(|ctx: &RepContext<'_>| {
        Ok(Box::new(RandomScheduler {
            eligible: TenantSet::new(ctx.tenants.len()),
            rng: stream(ctx.seed, ctx.repetition, Purpose::Scheduler),
        }) as Box<dyn Scheduler>)
    }))
}

/// Draws `r` uniform in `0..count` (rand 0.8 `gen_range`) from the
/// repetition's scheduler stream and serves the `r`-th eligible tenant in
/// index order.
#[derive(Debug, Clone)]
pub struct RandomScheduler {
    eligible: TenantSet,
    rng: SimRng,
}

impl Scheduler for RandomScheduler {
    fn fork(&self) -> Result<Box<dyn Scheduler>> {
        Ok(Box::new(self.clone()))
    }

    fn pick(&mut self, _tenants: &Tenants, _selector: &mut dyn Selector) -> Result<Option<usize>> {
        let count = self.eligible.count();
        if count == 0 {
            return Ok(None);
        }
        let r = below(&mut self.rng, count);
        Ok(self.eligible.nth(r))
    }

    fn tenant_changed(&mut self, tenants: &Tenants, tenant: usize) -> Result<()> {
        self.eligible.set(tenant, tenants.is_eligible(tenant));
        Ok(())
    }
}
