//! A hand-driven decision step of the model-selection engine, for
//! benchmarks of one scheduling decision (`benches/`). Not part of the
//! stable API.

use super::Tenants;
use super::{Scheduler, Selector};
use crate::core::error::Result;
use crate::models::trace::Trace;

/// Every tenant arrived at time 0; [`DecisionHarness::decide`] makes one
/// decision the way the engine fills a free GPU (the scheduler picks a
/// tenant, the selector proposes its model, the job starts) and completes
/// that job at once (the selector observes its accuracy, the scheduler
/// hears of both changes), so the next decision rescores that tenant as it
/// would after a real completion.
pub struct DecisionHarness<'a> {
    trace: &'a Trace,
    tenants: Tenants,
    scheduler: Box<dyn Scheduler>,
    selector: Box<dyn Selector>,
}

impl std::fmt::Debug for DecisionHarness<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecisionHarness")
            .field("tenants", &self.tenants.len())
            .finish_non_exhaustive()
    }
}

impl<'a> DecisionHarness<'a> {
    /// Tenants `users` (trace indices, ascending), all arrived, one job at a
    /// time each, served by `scheduler` and `selector`; a policy's error
    /// is returned.
    pub fn new(
        trace: &'a Trace,
        users: &[usize],
        mut scheduler: Box<dyn Scheduler>,
        selector: Box<dyn Selector>,
    ) -> Result<Self> {
        let arrivals = vec![0; users.len()];
        let mut tenants = Tenants::new(trace, &users.into(), &arrivals, 1, Default::default());
        for i in 0..users.len() {
            tenants.arrive(i);
            scheduler.tenant_changed(&tenants, i)?;
        }
        Ok(Self {
            trace,
            tenants,
            scheduler,
            selector,
        })
    }

    /// One decision and the completion of the job it started; the tenant
    /// served, or `None` when no tenant is eligible any more (or its
    /// selector proposes nothing); a policy's error is returned.
    pub fn decide(&mut self) -> Result<Option<usize>> {
        let Some(i) = self.scheduler.pick(&self.tenants, self.selector.as_mut())? else {
            return Ok(None);
        };
        let Some(proposal) = self.selector.propose(&self.tenants, i)? else {
            return Ok(None);
        };
        let model = proposal.model;
        let u = self.tenants.user(i);
        self.tenants
            .start(i, model, 0, true, self.trace.runtime_us(u, model));
        self.selector.started(i, model)?;
        self.scheduler.tenant_changed(&self.tenants, i)?;
        let accuracy = self.trace.accuracy(u, model);
        self.tenants.complete(i, model, 0, accuracy);
        self.selector.observe(i, model, accuracy)?;
        self.scheduler.tenant_changed(&self.tenants, i)?;
        Ok(Some(i))
    }

    /// The tenants' state.
    pub fn tenants(&self) -> &Tenants {
        &self.tenants
    }
}
