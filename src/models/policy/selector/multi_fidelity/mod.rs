//! The multi-fidelity selectors (DESIGN §12.3): `successive-halving`, `hyperband`, `asha` and the rung arithmetic, ladder, prior curves and after-schedule rule they share; they may import the policy API (`crate::models::policy`), never the other selectors.

pub mod asha;
pub mod asha_rungs;
pub mod hyperband;
pub mod ladder;
pub mod prior_curves;
pub mod rungs;
pub mod successive_halving;
pub mod sync_rung;
pub mod top_sweep;
