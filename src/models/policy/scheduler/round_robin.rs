//! `round-robin`: cycle over tenants in index order (DESIGN §4.1).

use std::sync::Arc;

use crate::core::error::Result;
use crate::core::params::Params;
use crate::models::policy::entry::SchedulerEntry;
use crate::models::policy::tenant_set::TenantSet;
use crate::models::sim::Tenants;
use crate::models::sim::{RepContext, Scheduler, SchedulerFactory, Selector};

/// Registry entry.
pub fn entry() -> SchedulerEntry {
    SchedulerEntry::from_parse(
        "round-robin",
        "cycle over tenants in index order, skipping ineligible ones; the pointer continues after the last tenant served",
        parse,
    )
}

fn parse(_params: &mut Params) -> Result<SchedulerFactory> {
    Ok(Arc::new(|ctx: &RepContext<'_>| {
        Ok(Box::new(RoundRobin::new(ctx.tenants.len())) as Box<dyn Scheduler>)
    }))
}

/// Round-robin over eligible tenants. The cycle pointer starts at tenant 0;
/// each pick serves the first eligible tenant at or after the pointer
/// (wrapping around) and moves the pointer just past it.
#[derive(Debug, Clone)]
pub struct RoundRobin {
    eligible: TenantSet,
    pointer: usize,
}

impl RoundRobin {
    /// A scheduler over `n` tenants, pointer at 0.
    pub fn new(n: usize) -> Self {
        Self {
            eligible: TenantSet::new(n),
            pointer: 0,
        }
    }

    /// Move the cycle pointer: the next pick serves the first eligible
    /// tenant at or after `pointer` (wrapping around).
    pub fn set_pointer(&mut self, pointer: usize) {
        self.pointer = pointer;
    }
}

impl Scheduler for RoundRobin {
    fn fork(&self) -> Result<Box<dyn Scheduler>> {
        Ok(Box::new(self.clone()))
    }

    fn pick(&mut self, _tenants: &Tenants, _selector: &mut dyn Selector) -> Result<Option<usize>> {
        let Some(i) = self
            .eligible
            .next_at_or_after(self.pointer)
            .or_else(|| self.eligible.next_at_or_after(0))
        else {
            return Ok(None);
        };
        self.pointer = i + 1;
        Ok(Some(i))
    }

    fn tenant_changed(&mut self, tenants: &Tenants, tenant: usize) -> Result<()> {
        self.eligible.set(tenant, tenants.is_eligible(tenant));
        Ok(())
    }
}
