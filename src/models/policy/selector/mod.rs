//! Model selectors: which model a tenant trains next (DESIGN §3, §4.6),
//! and at which fidelity (the multi-fidelity selectors, DESIGN §12.3).

pub mod asha;
pub mod asha_rungs;
pub mod fixed_order;
pub mod gp;
pub mod hyperband;
pub mod ladder;
pub mod prior_curves;
pub mod random;
pub mod rungs;
pub mod successive_halving;
pub mod sync_rung;
pub mod top_sweep;
