//! One row of the canonical trace CSV.

/// One (user, model) pair of a trace, as written in the canonical CSV
/// `user,model,accuracy,runtime_s[,model_year][,model_citations]`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRow {
    /// Tenant id (one dataset / task).
    pub user: String,
    /// Candidate model id.
    pub model: String,
    /// Quality in [0, 1], higher is better.
    pub accuracy: f64,
    /// Seconds to train the model on the user's data on one GPU (> 0).
    pub runtime_s: f64,
    /// Optional model metadata (constant per model).
    pub model_year: Option<i64>,
    /// Optional model metadata (constant per model).
    pub model_citations: Option<i64>,
}
