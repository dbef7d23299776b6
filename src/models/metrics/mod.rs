//! Metrics of one run (DESIGN §2.6): the loss step function L(τ), cumulative
//! regret, time to quality and cluster figures.

mod compensated_sum;
mod curve_builder;
mod curve_point;
mod loss_curve;
mod rep_result;
mod run_fold;
mod run_metrics;
pub mod stall;
mod tenant_fold;
mod tenant_metrics;
mod tenant_rows;

pub use crate::core::io::spill;
pub use crate::core::memory::{CURVE_IN_MEMORY, ROWS_IN_MEMORY};
pub use compensated_sum::CompensatedSum;
pub use curve_point::{Cursor, Point};
pub use loss_curve::LossCurve;
pub use rep_result::RepResult;
pub use run_fold::{FoldedRun, RunFold};
pub use run_metrics::RunMetrics;
pub use tenant_metrics::{TenantAggregate, TenantMetrics, tenant_metrics};
pub use tenant_rows::{RowsIter, TenantRows, TenantRowsBuilder, aggregate_tenants};

/// Slack in every "loss ≤ θ" test. Losses are differences of accuracies
/// (A* − best), and float subtraction can land a hair above a threshold the
/// decimal values meet exactly (0.9 − 0.7 = 0.20000000000000007 > 0.2), so
/// L(τ) ≤ θ is tested as L(τ) ≤ θ + 1e-12. Accuracies lie in [0, 1], so
/// rounding errors are ~1e-16 and no genuine difference is this small.
pub const THETA_SLACK: f64 = 1e-12;
