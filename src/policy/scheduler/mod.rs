//! User schedulers: who gets the next free GPU (DESIGN §4).

pub mod random;
pub mod round_robin;
