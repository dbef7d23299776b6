//! User schedulers and model selectors.
//!
//! A [`Scheduler`] decides *which tenant* gets a free GPU; a [`Selector`]
//! decides *which model* that tenant trains next. Both are built per
//! repetition by factories found by name in the [`registry`]. Adding a policy
//! means one file under `scheduler/` or `selector/` plus one line in the
//! registry.

mod params;
pub mod registry;
pub mod scheduler;
pub mod score_heap;
pub mod selector;
pub mod tenant_set;

use std::sync::Arc;

pub use params::Params;

use crate::engine::Tenants;
use crate::error::Result;
use crate::trace::Trace;

/// A selector's proposal for a tenant's next job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proposal {
    /// Trace model index to run next (available and untried).
    pub model: usize,
    /// The selector's acquisition value of that model (e.g. UCB); NaN for
    /// selectors that have none.
    pub acquisition: f64,
    /// The cost the selector believes that model has, relative to the
    /// tenant's mean (1.0 for cost-oblivious selectors).
    pub believed_cost: f64,
}

/// Chooses which model a tenant trains next.
pub trait Selector: Send {
    /// The next model for tenant `tenant`, which is eligible: it has at least
    /// one untried model. `None` only if it has none.
    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Option<Proposal>;

    /// A job of `tenant` on trace model `model` started.
    fn started(&mut self, _tenant: usize, _model: usize) {}

    /// A job of `tenant` on trace model `model` completed with `accuracy`.
    fn observe(&mut self, _tenant: usize, _model: usize, _accuracy: f64) {}

    /// The score `greedy`-type schedulers rank tenants by when this
    /// selector proposes `proposal` to a tenant whose best accuracy so far
    /// is `best`: what the tenant stands to gain per unit of believed cost.
    /// The default is [`gain_per_cost`], DESIGN §4's score for selectors
    /// whose acquisition is an optimistic accuracy (UCB, UCB_c); selectors
    /// whose acquisition already is an improvement (EI) override it.
    fn greedy_score(&self, proposal: &Proposal, best: f64) -> f64 {
        gain_per_cost(proposal, best)
    }

    /// The GP-UCB exploration bonus `√β_t σ` of the model
    /// [`Selector::propose`] returns for `tenant` in the same state, for
    /// schedulers that weigh uncertainty (`easeml-proto`); `None` for
    /// selectors without a posterior.
    fn exploration_bonus(&mut self, _tenants: &Tenants, _tenant: usize) -> Option<f64> {
        None
    }
}

/// DESIGN §4's `greedy` score of a tenant whose selector proposes
/// `proposal` and whose best accuracy so far is `best`:
///
/// score_i = (a_i − best_i) / ĉ_i
///
/// where a_i is the selector's own acquisition value ([`Proposal::acquisition`]:
/// UCB for `gp-ucb`, UCB_c for `gp-ucb-cost`) and ĉ_i the believed cost of
/// the proposed model ([`Proposal::believed_cost`]: 1 for cost-oblivious
/// selectors, so the score is a_i − best_i; DESIGN §4 divides by ĉ for
/// `gp-ucb-cost`, and every cost-aware selector is treated alike).
///
/// Source: Li et al., "Ease.ml: Towards Multi-tenant Resource Sharing for
/// Machine Learning Workloads", PVLDB 11(5), 2018 (arXiv 1708.07308), the
/// greedy user-selection rule.
pub fn gain_per_cost(proposal: &Proposal, best: f64) -> f64 {
    (proposal.acquisition - best) / proposal.believed_cost
}

/// Chooses which tenant gets the next free GPU.
pub trait Scheduler: Send {
    /// The tenant that gets the GPU, or `None` to leave it idle. Must return
    /// an eligible tenant ([`Tenants::is_eligible`]).
    fn pick(&mut self, tenants: &Tenants, selector: &mut dyn Selector) -> Option<usize>;

    /// Tenant `tenant` changed (arrived, started or completed a job). Lets
    /// incremental schedulers rescore only what changed.
    fn tenant_changed(&mut self, _tenants: &Tenants, _tenant: usize) {}
}

/// What a factory gets to build the policies of one repetition.
#[derive(Debug, Clone, Copy)]
pub struct RepContext<'a> {
    /// The trace (shared read-only by every repetition).
    pub trace: &'a Arc<Trace>,
    /// Trace user indices of this repetition's tenants, ascending.
    pub tenants: &'a [usize],
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
