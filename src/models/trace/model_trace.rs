//! The validated, dense form of a model trace.

use ndarray::Array2;

use super::Micros;

/// A validated model trace: `users × models` accuracy and runtime matrices
/// with an availability mask. Users and models are indexed in order of first
/// appearance in the source (DESIGN §1.1); every tie in the simulator is broken
/// by the lowest index.
#[derive(Debug, Clone)]
pub struct Trace {
    pub(super) source: String,
    pub(super) users: Vec<String>,
    pub(super) models: Vec<String>,
    /// Accuracy per (user, model); 0.0 where the pair is missing.
    pub(super) accuracy: Array2<f64>,
    /// Runtime per (user, model) in µs, rounded once at load; 0 where missing.
    pub(super) runtime_us: Array2<Micros>,
    pub(super) available: Array2<bool>,
    /// Available model indices per user, ascending.
    pub(super) models_of_user: Vec<Vec<usize>>,
    pub(super) model_year: Option<Vec<i64>>,
    pub(super) model_citations: Option<Vec<i64>>,
    /// Per-type runtime columns `runtime_s.<type>` (DESIGN §11.4): the GPU
    /// type name and the runtime per (user, model) in µs, rounded once at
    /// load; 0 where the cell is empty or the pair missing.
    pub(super) typed_runtime_us: Vec<(String, Array2<Micros>)>,
}

impl Trace {
    /// Where the trace came from (a path or a generator description).
    pub fn source(&self) -> &str {
        &self.source
    }
    /// User ids in index order.
    pub fn users(&self) -> &[String] {
        &self.users
    }
    /// Model ids in index order.
    pub fn models(&self) -> &[String] {
        &self.models
    }
    /// Number of users.
    pub fn n_users(&self) -> usize {
        self.users.len()
    }
    /// Number of models.
    pub fn n_models(&self) -> usize {
        self.models.len()
    }
    /// Number of available (user, model) pairs.
    pub fn n_pairs(&self) -> usize {
        self.models_of_user.iter().map(Vec::len).sum()
    }
    /// Whether `model` is available to `user`.
    pub fn is_available(&self, user: usize, model: usize) -> bool {
        self.available[[user, model]]
    }
    /// Accuracy of an available pair (0.0 for a missing pair).
    pub fn accuracy(&self, user: usize, model: usize) -> f64 {
        self.accuracy[[user, model]]
    }
    /// Runtime of an available pair in µs (0 for a missing pair).
    pub fn runtime_us(&self, user: usize, model: usize) -> Micros {
        self.runtime_us[[user, model]]
    }
    /// The accuracy matrix (0.0 where missing; see [`Trace::available_mask`]).
    pub fn accuracy_matrix(&self) -> &Array2<f64> {
        &self.accuracy
    }
    /// The runtime matrix in µs (0 where missing).
    pub fn runtime_matrix_us(&self) -> &Array2<Micros> {
        &self.runtime_us
    }
    /// The availability mask.
    pub fn available_mask(&self) -> &Array2<bool> {
        &self.available
    }
    /// Available models of `user`, ascending by index.
    pub fn models_of(&self, user: usize) -> &[usize] {
        &self.models_of_user[user]
    }
    /// A*_u: the best accuracy among the user's available models.
    pub fn best_accuracy(&self, user: usize) -> f64 {
        self.models_of_user[user]
            .iter()
            .map(|&k| self.accuracy[[user, k]])
            .fold(0.0, f64::max)
    }
    /// `model_year` per model, if the trace has that column.
    pub fn model_year(&self) -> Option<&[i64]> {
        self.model_year.as_deref()
    }
    /// `model_citations` per model, if the trace has that column.
    pub fn model_citations(&self) -> Option<&[i64]> {
        self.model_citations.as_deref()
    }
    /// The per-type runtime columns `runtime_s.<type>` in file order: the
    /// type name and the runtime matrix in µs (0 where the cell is empty:
    /// that pair falls back to `runtime_s` on that type).
    pub fn typed_runtimes_us(&self) -> &[(String, Array2<Micros>)] {
        &self.typed_runtime_us
    }
    /// Index of a model id.
    pub fn model_index(&self, id: &str) -> Option<usize> {
        self.models.iter().position(|m| m == id)
    }
    /// Index of a user id.
    pub fn user_index(&self, id: &str) -> Option<usize> {
        self.users.iter().position(|u| u == id)
    }
}
