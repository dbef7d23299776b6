//! Gaussian-process model selection math (DESIGN §3), pure and allocation
//! free on the hot path.
//!
//! - [`GpPrior`] (`prior.rs`): the prior mean vector and covariance matrix
//!   over all K trace models, built from the prior users' rows with a
//!   [`Kernel`]; [`relative_cost_prior`] gives the `prior` cost belief.
//! - [`TenantPosterior`] (`posterior.rs`): one tenant's GP posterior over its
//!   own available models, updated by a rank-one step per observation.
//! - `acquisition.rs`: [`beta`], [`ucb`], [`ucb_cost`],
//!   [`expected_improvement`] and the lowest-index-tie-breaking
//!   [`argmax_by`] / [`argmax`].

mod acquisition;
mod posterior;
mod prior;

pub use acquisition::{argmax, argmax_by, argmax_of, beta, expected_improvement, ucb, ucb_cost};
pub use posterior::{MIN_INNOVATION_VARIANCE, TenantPosterior};
pub use prior::{
    GpPrior, Kernel, RbfDefaults, rbf_defaults, relative_cost_prior, relative_cost_prior_on,
    runtime_prior_s, runtime_prior_s_on,
};
