//! User schedulers: who gets the next free GPU (DESIGN §4).

pub mod easeml_proto;
pub mod greedy;
pub mod hybrid;
pub mod random;
pub mod round_robin;
