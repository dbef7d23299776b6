//! Model selectors: which model a tenant trains next (DESIGN §3, §4.6),
//! and at which fidelity (the multi-fidelity selectors, DESIGN §12.3,
//! in their own folder [`multi_fidelity`]).

pub mod fixed_order;
pub mod gp;
pub mod multi_fidelity;
pub mod random;
