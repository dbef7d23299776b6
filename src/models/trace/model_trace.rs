//! The validated, indexed form of a model trace.

use std::borrow::Cow;
use std::sync::Arc;

use ndarray::Array2;

use super::cells::Cells;
use super::model_lists::ModelLists;
use super::user_ids::UserIds;
use super::{CostMode, Curves, Micros};

/// A validated model trace: `users × models` accuracies and runtimes with
/// an availability mask. Users and models are indexed in order of first
/// appearance in the source (DESIGN §1.1); every tie in the simulator is broken
/// by the lowest index. The cells are dense matrices, or, for a large
/// `[trace.syn]` trace, each user's row produced when it is read
/// ([`Trace::is_lazy`], DESIGN §1.2 "Per-user rows").
#[derive(Debug, Clone)]
pub struct Trace {
    pub(super) source: String,
    pub(super) users: UserIds,
    pub(super) models: Vec<String>,
    /// Accuracy, runtime (µs, rounded once at load) and availability per
    /// (user, model); 0 where the pair is missing.
    pub(super) cells: Cells,
    /// Available model indices per user, ascending. Users with the same
    /// list share one allocation (every user of a generated trace, most of
    /// an imported one): 16 bytes a user instead of 8 a pair (issue 34).
    pub(super) models_of_user: ModelLists,
    pub(super) model_year: Option<Vec<i64>>,
    pub(super) model_citations: Option<Vec<i64>>,
    /// Per-type runtime columns `runtime_s.<type>` (DESIGN §11.4): the GPU
    /// type name and the runtime per (user, model) in µs, rounded once at
    /// load; 0 where the cell is empty or the pair missing.
    pub(super) typed_runtime_us: Vec<(String, Array2<Micros>)>,
    /// The levels of a curve trace (DESIGN §12.1); `None` for a plain
    /// trace (one level per pair: the matrices above). For a curve trace
    /// the matrices hold each pair's top level: its accuracy, and the cost
    /// of training it there with no checkpoint.
    pub(super) curves: Option<Curves>,
}

impl Trace {
    /// Where the trace came from (a path or a generator description).
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The id of user `user` (an index below [`Trace::n_users`]).
    pub fn user_id(&self, user: usize) -> Cow<'_, str> {
        self.users.get(user)
    }
    /// User ids in index order.
    pub fn user_ids(&self) -> impl ExactSizeIterator<Item = Cow<'_, str>> + '_ {
        (0..self.users.len()).map(|u| self.users.get(u))
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
        self.models_of_user.n_pairs()
    }
    /// Whether `model` is available to `user`.
    pub fn is_available(&self, user: usize, model: usize) -> bool {
        self.cells.is_available(user, model)
    }
    /// Accuracy of an available pair (0.0 for a missing pair).
    pub fn accuracy(&self, user: usize, model: usize) -> f64 {
        self.cells.accuracy(user, model)
    }
    /// Runtime of an available pair in µs (0 for a missing pair).
    pub fn runtime_us(&self, user: usize, model: usize) -> Micros {
        self.cells.runtime_us(user, model)
    }
    /// Prefetch hint for the user's runtimes, which the next decision
    /// about one of its tenants reads (a held trace only;
    /// [`crate::core::sim::prefetch`]).
    pub fn prefetch_runtimes(&self, user: usize) {
        self.cells.prefetch_runtimes(user);
    }
    /// Prefetch hint for the user's accuracies and runtimes, which a job
    /// start for one of its tenants reads (a held trace only).
    pub fn prefetch_row(&self, user: usize) {
        self.cells.prefetch_row(user);
    }
    /// `read` of the user's runtimes in µs, by model index (0 where
    /// missing): one row read for a decision that scores many models.
    /// `read` should not read the trace itself (a lazy trace then produces
    /// the inner row into buffers of its own: right, but an allocation).
    pub fn with_runtimes_us<R>(&self, user: usize, read: impl FnOnce(&[Micros]) -> R) -> R {
        self.cells.with_row(user, |_, runtimes| read(runtimes))
    }
    /// Whether the cells are produced row by row when read (a large
    /// `[trace.syn]` trace, DESIGN §1.2 "Per-user rows") rather than held:
    /// then the matrices below are `None`.
    pub fn is_lazy(&self) -> bool {
        matches!(self.cells, Cells::Lazy(_))
    }
    /// The accuracy matrix (0.0 where missing); `None` for a lazy trace.
    pub fn accuracy_matrix(&self) -> Option<&Array2<f64>> {
        match &self.cells {
            Cells::Dense { accuracy, .. } => Some(accuracy),
            Cells::Lazy(_) => None,
        }
    }
    /// The runtime matrix in µs (0 where missing); `None` for a lazy trace.
    pub fn runtime_matrix_us(&self) -> Option<&Array2<Micros>> {
        match &self.cells {
            Cells::Dense { runtime_us, .. } => Some(runtime_us),
            Cells::Lazy(_) => None,
        }
    }
    /// Available models of `user`, ascending by index.
    pub fn models_of(&self, user: usize) -> &[usize] {
        self.models_of_user.get(user)
    }
    /// The list every user shares, if the trace holds one for all (a
    /// generated trace, where every user has every model): a policy that
    /// needs a tenant's models only through [`Trace::models_of`] keeps no
    /// trace user per tenant then.
    pub fn shared_models(&self) -> Option<&Arc<[usize]>> {
        self.models_of_user.shared()
    }
    /// The same list as [`Trace::models_of`], as the shared allocation
    /// (a GP posterior keeps it instead of a copy).
    pub fn models_of_shared(&self, user: usize) -> &Arc<[usize]> {
        self.models_of_user.get(user)
    }
    /// A*_u: the best accuracy among the user's available models; for a
    /// curve trace, among all of the user's rows at any fidelity (DESIGN
    /// §12.1).
    pub fn best_accuracy(&self, user: usize) -> f64 {
        let models = self.models_of_user.get(user).iter();
        match &self.curves {
            None => self
                .cells
                .with_row(user, |acc, _| models.map(|&k| acc[k]).fold(0.0, f64::max)),
            Some(c) => models
                .flat_map(|&k| c.accuracy[c.range(user * self.n_models() + k)].iter())
                .fold(0.0, |a, &b| a.max(b)),
        }
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
        self.users.position(id)
    }

    /// Whether this is a curve trace (a `fidelity` column, DESIGN §12.1).
    pub fn is_curve(&self) -> bool {
        self.curves.is_some()
    }
    /// How `runtime_s` reads ([`CostMode::FromScratch`] for a plain trace).
    pub fn cost_mode(&self) -> CostMode {
        self.curves
            .as_ref()
            .map_or(CostMode::FromScratch, |c| c.cost)
    }
    /// The restore cost of a continued job under `incremental`, µs.
    pub fn restore_us(&self) -> Micros {
        self.curves.as_ref().map_or(0, |c| c.restore_us)
    }
    /// Number of fidelities ("levels") of pair (`user`, `model`): 1 for an
    /// available pair of a plain trace, 0 for a missing pair.
    pub fn n_levels(&self, user: usize, model: usize) -> usize {
        match &self.curves {
            None => usize::from(self.cells.is_available(user, model)),
            Some(c) => c.range(user * self.n_models() + model).len(),
        }
    }
    /// The top level of an available pair: `n_levels − 1`.
    pub fn top_level(&self, user: usize, model: usize) -> usize {
        self.n_levels(user, model).saturating_sub(1)
    }
    /// Fidelity of level `level` of a pair; a plain trace's single level
    /// has fidelity 1.
    pub fn level_fidelity(&self, user: usize, model: usize, level: usize) -> f64 {
        match &self.curves {
            None => 1.0,
            Some(c) => c.fidelity[c.range(user * self.n_models() + model).start + level],
        }
    }
    /// Accuracy of level `level` of a pair.
    pub fn level_accuracy(&self, user: usize, model: usize, level: usize) -> f64 {
        match &self.curves {
            None => self.cells.accuracy(user, model),
            Some(c) => c.accuracy[c.range(user * self.n_models() + model).start + level],
        }
    }
    /// The row's `runtime_s` of level `level` of a pair in µs, as given
    /// (under `incremental`, the increment over the previous level).
    pub fn level_runtime_us(&self, user: usize, model: usize, level: usize) -> Micros {
        match &self.curves {
            None => self.cells.runtime_us(user, model),
            Some(c) => c.runtime_us[c.range(user * self.n_models() + model).start + level],
        }
    }
    /// The lowest level of a pair whose fidelity is at least `fidelity`,
    /// or its top level when none is: a rung "snapped to the next available
    /// fidelity" (DESIGN §12.1).
    pub fn level_at_least(&self, user: usize, model: usize, fidelity: f64) -> usize {
        let n = self.n_levels(user, model);
        (0..n)
            .find(|&j| self.level_fidelity(user, model, j) >= fidelity)
            .unwrap_or(n.saturating_sub(1))
    }
    /// The smallest fidelity of any row (1 for a plain trace).
    pub fn min_fidelity(&self) -> f64 {
        self.curves.as_ref().map_or(1.0, |c| c.min_fidelity)
    }
    /// The largest fidelity of any row (1 for a plain trace).
    pub fn max_fidelity(&self) -> f64 {
        self.curves.as_ref().map_or(1.0, |c| c.max_fidelity)
    }
    /// GPU time of a job training the pair at level `to` when its highest
    /// completed level is `from` (`None`: never completed), µs (DESIGN
    /// §12.1). For a plain trace, the pair's runtime.
    pub fn cost_us(&self, user: usize, model: usize, from: Option<usize>, to: usize) -> Micros {
        match &self.curves {
            None => self.cells.runtime_us(user, model),
            Some(c) => c.cost_us(user * self.n_models() + model, from, to),
        }
    }
    /// Set how a curve trace's `runtime_s` reads and the restore cost
    /// (`[trace] cost`, `[trace] restore_s`); the runtime matrix becomes
    /// each pair's cost at its top level with no checkpoint. A plain trace
    /// is unchanged (its one level has no previous one).
    pub fn set_cost_mode(&mut self, cost: CostMode, restore_us: Micros) {
        let Some(c) = &mut self.curves else { return };
        c.cost = cost;
        c.restore_us = restore_us;
        // A curve trace is always dense (only a plain `[trace.syn]` trace
        // is lazy).
        let Cells::Dense { runtime_us, .. } = &mut self.cells else {
            return;
        };
        let k = self.models.len();
        for u in 0..self.users.len() {
            for &m in self.models_of_user.get(u).iter() {
                runtime_us[[u, m]] = c.full_cost_us(u * k + m);
            }
        }
    }
}
