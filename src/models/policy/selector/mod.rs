//! Model selectors: which model a tenant trains next (DESIGN §3, §4.6).

pub mod asha_rungs;
pub mod fixed_order;
pub mod gp;
pub mod random;
pub mod rungs;
pub mod sync_rung;
