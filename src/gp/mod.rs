//! Gaussian-process model selection math (DESIGN §3), pure and allocation
//! free on the hot path.
//!
//! - [`GpPrior`] (`prior.rs`): the prior mean vector and covariance matrix
//!   over all K trace models, built from the prior users' rows with a
//!   [`Kernel`]; [`relative_cost_prior`] gives the `prior` cost belief.
//! - [`TenantPosterior`] (`posterior.rs`): one tenant's GP posterior over its
//!   own available models, updated by a rank-one step per observation.

mod posterior;
mod prior;

pub use posterior::{MIN_INNOVATION_VARIANCE, TenantPosterior};
pub use prior::{GpPrior, Kernel, relative_cost_prior};
