//! The policy API of model-selection mode (DESIGN §2): what a scheduler and
//! a selector implement, next to the state they read ([`Tenants`]). The
//! simulation calls them through these traits only; it knows no policy.

use std::sync::Arc;

use super::{GpuTypes, TenantUsers, Tenants};
use crate::core::error::{Error, Result};
pub use crate::core::sim::prefetch::PrefetchStep;
use crate::models::trace::Trace;

/// A selector's proposal for a tenant's next job, with what schedulers may
/// weigh it by. Fields a selector has no value for take their neutral value
/// (NaN acquisition, no gain, costs of 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proposal {
    /// Trace model index to run next (available and untried).
    pub model: usize,
    /// The selector's acquisition value of that model (e.g. UCB); NaN for
    /// selectors that have none.
    pub acquisition: f64,
    /// The expected accuracy gain of that model when the acquisition is not
    /// an optimistic accuracy: the EI for the EI selectors. `None` means the
    /// gain is `acquisition − best_i` (UCB, UCB_c), see [`Proposal::gain`].
    pub gain: Option<f64>,
    /// The cost ĉ the selector believes that model has, relative to the
    /// tenant's mean (1.0 for cost-oblivious selectors).
    pub believed_cost: f64,
    /// The runtime ĉˢ in seconds the selector believes that model has
    /// (DESIGN §3.6; 1.0 for cost-oblivious selectors, which believe every
    /// cost is 1).
    pub believed_seconds: f64,
    /// The GP-UCB exploration bonus √β_t σ of that model, for schedulers
    /// that weigh uncertainty (`easeml-proto`); `None` for selectors
    /// without a posterior.
    pub bonus: Option<f64>,
    /// The level (index into the pair's fidelities, ascending) to train at
    /// on a curve trace (DESIGN §12.2); `None`: the pair's largest.
    pub level: Option<usize>,
}

impl Proposal {
    /// A proposal of `model` from a selector with no acquisition, gain or
    /// cost belief (NaN acquisition, costs of 1).
    pub fn plain(model: usize) -> Self {
        Self {
            model,
            acquisition: f64::NAN,
            gain: None,
            believed_cost: 1.0,
            believed_seconds: 1.0,
            bonus: None,
            level: None,
        }
    }

    /// This proposal at level `level` of the pair's fidelities.
    pub fn at_level(self, level: usize) -> Self {
        Self {
            level: Some(level),
            ..self
        }
    }

    /// DESIGN §4.3's gain_i of a tenant whose best accuracy so far is `best`:
    /// `a_i − best_i` for an optimistic-accuracy acquisition (UCB, UCB_c),
    /// or the selector's own [`Proposal::gain`] (the EI).
    pub fn gain(&self, best: f64) -> f64 {
        self.gain.unwrap_or(self.acquisition - best)
    }
}

/// Chooses which model a tenant trains next.
///
/// Every call may fail: an `Err` (a user policy's own error, e.g. a Python
/// exception) stops the run at once with that error, and no result is
/// written.
pub trait Selector: Send {
    /// The next model for tenant `tenant`, which is eligible: it has at least
    /// one untried model. `Ok(None)`: nothing to start now; the tenant then
    /// waits until one of its running jobs completes, and with none running
    /// it is done (DESIGN §12.2).
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>>;

    /// A job of `tenant` on trace model `model` started.
    fn started(&mut self, _tenant: usize, _model: usize) -> Result<()> {
        Ok(())
    }

    /// A job of `tenant` on trace model `model` completed with `accuracy`.
    fn observe(&mut self, _tenant: usize, _model: usize, _accuracy: f64) -> Result<()> {
        Ok(())
    }

    /// A hint: a job of `tenant` completes soon, or the scheduler expects
    /// to pick `tenant` soon ([`Scheduler::next_picks`]); `step` says how
    /// soon ([`PrefetchStep`]). A selector may start loading what its
    /// `observe` and `propose` for the tenant will read
    /// ([`crate::core::sim::prefetch`]); it must change nothing a call
    /// sees. Default: nothing.
    fn prefetch(&self, _tenant: usize, _step: PrefetchStep) {}

    /// Whether `tenant`'s schedule is over and the selector will propose
    /// nothing for it again (the multi-fidelity selectors under
    /// `after_schedule = "stop"`, DESIGN §12.3). Read when the run ends, for
    /// the tenant's [`EndReason`](super::EndReason): a scheduler that scores
    /// tenants by their proposals (`greedy`) drops a tenant that proposes
    /// nothing without the engine seeing it wait. Default: never.
    fn schedule_over(&self, _tenant: usize) -> bool {
        false
    }

    /// An independent copy of this selector in its current state, for a
    /// fork of a run (DESIGN §15.2): continued on the same events it makes
    /// the same proposals as the original. Default: an error (the selector
    /// cannot be forked); every built-in selector forks.
    fn fork(&self) -> Result<Box<dyn Selector>> {
        Err(Error::policy(
            "this selector cannot be forked (it does not implement `Selector::fork`)",
        ))
    }
}

/// Chooses which tenant gets the next free GPU.
///
/// Every call may fail: an `Err` stops the run at once with that error.
pub trait Scheduler: Send {
    /// The tenant that gets the GPU, or `Ok(None)` to leave it idle. Must
    /// return an eligible tenant ([`Tenants::is_eligible`]). A scheduler
    /// that asks the selector for proposals passes the selector's errors
    /// on (`selector.propose(tenants, i)?`).
    fn pick(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Result<Option<usize>>;

    /// Tenant `tenant` changed (arrived, started or completed a job). Lets
    /// incremental schedulers rescore only what changed.
    fn tenant_changed(&mut self, _tenants: &Tenants, _tenant: usize) -> Result<()> {
        Ok(())
    }

    /// A hint: a job of `tenant` completes soon, or `tenant` is among
    /// [`Scheduler::next_picks`]; `step` says how soon ([`PrefetchStep`]).
    /// A scheduler may start loading what its `tenant_changed` and `pick`
    /// for the tenant will read ([`crate::core::sim::prefetch`]); it must
    /// change nothing a call sees. Default: nothing.
    fn prefetch(&self, _tenant: usize, _step: PrefetchStep) {}

    /// A hint: the tenants this scheduler expects its next three picks to
    /// return if no tenant changes before them, first pick first. The
    /// engine hints their state ahead of the picks (DESIGN §10.4); a wrong
    /// guess only costs loads. It must change nothing and should read only
    /// what is in the caches (a greedy heap's top slots). Default: none.
    fn next_picks(&self) -> [Option<usize>; 3] {
        [None; 3]
    }

    /// An independent copy of this scheduler in its current state, for a
    /// fork of a run (DESIGN §15.2). Default: an error (the scheduler
    /// cannot be forked); every built-in scheduler forks.
    fn fork(&self) -> Result<Box<dyn Scheduler>> {
        Err(Error::policy(
            "this scheduler cannot be forked (it does not implement `Scheduler::fork`)",
        ))
    }
}

/// A boxed selector is one (a builder may choose its selector's type at
/// run time and return a `Box<dyn Selector>`).
impl<S: Selector + ?Sized> Selector for Box<S> {
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        (**self).propose(tenants, tenant)
    }

    fn started(&mut self, tenant: usize, model: usize) -> Result<()> {
        (**self).started(tenant, model)
    }

    fn observe(&mut self, tenant: usize, model: usize, accuracy: f64) -> Result<()> {
        (**self).observe(tenant, model, accuracy)
    }

    fn schedule_over(&self, tenant: usize) -> bool {
        (**self).schedule_over(tenant)
    }

    fn prefetch(&self, tenant: usize, step: PrefetchStep) {
        (**self).prefetch(tenant, step);
    }

    fn fork(&self) -> Result<Box<dyn Selector>> {
        (**self).fork()
    }
}

/// A boxed scheduler is one (a builder may return a `Box<dyn Scheduler>`).
impl<S: Scheduler + ?Sized> Scheduler for Box<S> {
    fn pick(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Result<Option<usize>> {
        (**self).pick(tenants, selector)
    }

    fn tenant_changed(&mut self, tenants: &Tenants, tenant: usize) -> Result<()> {
        (**self).tenant_changed(tenants, tenant)
    }

    fn prefetch(&self, tenant: usize, step: PrefetchStep) {
        (**self).prefetch(tenant, step);
    }

    fn next_picks(&self) -> [Option<usize>; 3] {
        (**self).next_picks()
    }

    fn fork(&self) -> Result<Box<dyn Scheduler>> {
        (**self).fork()
    }
}

/// What a factory gets to build the policies of one repetition.
#[derive(Debug, Clone, Copy)]
pub struct RepContext<'a> {
    /// The trace (shared read-only by every repetition).
    pub trace: &'a Arc<Trace>,
    /// The cluster's GPU types and the runtime of every pair on each
    /// (DESIGN §11.4; [`GpuTypes::untyped`] for identical GPUs). The type
    /// of the GPU a decision fills is [`Tenants::gpu_type`].
    pub gpu_types: &'a Arc<GpuTypes>,
    /// Trace user indices of this repetition's tenants, ascending.
    pub tenants: &'a TenantUsers,
    /// Trace user indices of this repetition's prior (history) users.
    pub prior: &'a [usize],
    /// Scenario seed.
    pub seed: u64,
    /// Repetition number, from 0.
    pub repetition: u64,
}

/// Builds a scheduler for each repetition.
pub type SchedulerFactory =
    Arc<dyn Fn(&RepContext<'_>) -> Result<Box<dyn Scheduler>> + Send + Sync>;

/// Builds a selector for each repetition.
pub type SelectorFactory = Arc<dyn Fn(&RepContext<'_>) -> Result<Box<dyn Selector>> + Send + Sync>;
