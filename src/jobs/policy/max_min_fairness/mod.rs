//! `max-min-fairness`: Gavel's heterogeneity-aware, time-sliced max-min fair
//! share of effective throughput (DESIGN §11.3). [`lp`] computes the
//! allocation (the fraction of time each active job should run on each
//! GPU type).

pub mod lp;

pub use lp::{Allocation, LpJob, max_min_allocation};
