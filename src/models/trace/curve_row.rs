//! One row of a curve trace CSV (a learning curve: one accuracy and cost
//! per (user, model, fidelity)).

/// One (user, model, fidelity) point of a learning curve, as written in the
/// curve trace CSV
/// `user,model,fidelity,accuracy,runtime_s[,model_year][,model_citations]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveRow {
    /// Tenant id (one dataset / task).
    pub user: String,
    /// Candidate model id.
    pub model: String,
    /// The fidelity of this point (> 0): e.g. the training-set size, or the
    /// fraction of the full budget. Strictly increasing within a pair.
    pub fidelity: f64,
    /// Quality in [0, 1] at this fidelity, higher is better.
    pub accuracy: f64,
    /// Seconds on one GPU for this point (> 0): the cost of training at this
    /// fidelity from scratch, or the extra cost over the previous fidelity,
    /// as the scenario's `[trace] cost` mode says.
    pub runtime_s: f64,
    /// Optional model metadata (constant per model).
    pub model_year: Option<i64>,
    /// Optional model metadata (constant per model).
    pub model_citations: Option<i64>,
}
