//! Metrics of one run (DESIGN §2): the loss step function L(τ), cumulative
//! regret, time to quality and cluster figures.

mod loss_curve;
mod run_metrics;

pub use loss_curve::LossCurve;
pub use run_metrics::RunMetrics;
