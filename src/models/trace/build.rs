//! Validation of trace rows into a dense [`Trace`] (DESIGN §1.1).

use std::collections::HashMap;
use std::sync::Arc;

use ndarray::Array2;

use super::cells::Cells;
use super::model_lists::ModelLists;
use super::user_ids::UserIds;
use super::{CostMode, Curves, MAX_RUNTIME_S, Micros, SynBacking, Trace, TraceRow, secs_to_micros};
use crate::core::error::{Error, Result};
use crate::core::io::echo::shown;
use crate::core::limits::{MAX_TRACE_INDEX, grouped};

/// Accumulates trace rows, checking each one, and builds a [`Trace`].
///
/// Every rejection names the row's location (`where_` as given by the
/// caller, e.g. `traces/x.csv: line 4`), the field and what was expected.
#[derive(Debug)]
pub struct TraceBuilder {
    source: String,
    users: Vec<String>,
    user_index: HashMap<String, usize>,
    models: Vec<String>,
    model_index: HashMap<String, usize>,
    /// (user, model, accuracy, runtime µs)
    cells: Vec<(usize, usize, f64, Micros)>,
    seen: HashMap<(usize, usize), String>,
    has_year: bool,
    has_citations: bool,
    /// Per model: (value, where it was first given).
    year: Vec<Option<(i64, String)>>,
    citations: Vec<Option<(i64, String)>>,
    rows_per_user: Vec<usize>,
    /// GPU type names of the per-type runtime columns `runtime_s.<type>`.
    typed_names: Vec<String>,
    /// (column slot, user, model, runtime µs) of the per-type cells given.
    typed_cells: Vec<(usize, usize, usize, Micros)>,
    /// Whether rows carry a fidelity (a curve trace, DESIGN §12.1).
    curve: bool,
    /// Curve rows: (user, model, fidelity, accuracy, runtime µs).
    levels: Vec<(usize, usize, f64, f64, Micros)>,
    /// Per curve pair: its last fidelity, its number of levels and where it
    /// was first given.
    pair_last: HashMap<(usize, usize), (f64, usize, String)>,
}

/// The most levels one (user, model) pair may have.
pub const MAX_LEVELS: usize = u16::MAX as usize;

impl TraceBuilder {
    /// A builder for a trace from `source`; `has_year` / `has_citations` say
    /// whether the optional metadata columns are present (then every row must
    /// carry them).
    pub fn new(source: impl Into<String>, has_year: bool, has_citations: bool) -> Self {
        Self {
            source: source.into(),
            users: Vec::new(),
            user_index: HashMap::new(),
            models: Vec::new(),
            model_index: HashMap::new(),
            cells: Vec::new(),
            seen: HashMap::new(),
            has_year,
            has_citations,
            year: Vec::new(),
            citations: Vec::new(),
            rows_per_user: Vec::new(),
            typed_names: Vec::new(),
            typed_cells: Vec::new(),
            curve: false,
            levels: Vec::new(),
            pair_last: HashMap::new(),
        }
    }

    /// Make this a curve trace's builder: rows come through
    /// [`TraceBuilder::push_level`], several per (user, model) pair, one per
    /// fidelity, in strictly increasing fidelity per pair (DESIGN §12.1).
    pub fn set_curve(&mut self) {
        self.curve = true;
    }

    /// Declare per-type runtime columns `runtime_s.<name>` (DESIGN §11.4),
    /// one GPU type name each, in the order [`TraceBuilder::push_with_runtimes`]
    /// gets their values.
    pub fn set_runtime_columns(&mut self, names: Vec<String>) {
        self.typed_names = names;
    }

    /// Declare a user id so that it gets an index now (order of first
    /// appearance) even before its rows come; a declared user that never gets
    /// a row is an error in [`TraceBuilder::finish`].
    pub fn declare_user(&mut self, id: &str) -> usize {
        if let Some(&i) = self.user_index.get(id) {
            return i;
        }
        let i = self.users.len();
        self.users.push(id.to_string());
        self.user_index.insert(id.to_string(), i);
        self.rows_per_user.push(0);
        i
    }

    fn model_idx(&mut self, id: &str) -> usize {
        if let Some(&k) = self.model_index.get(id) {
            return k;
        }
        let k = self.models.len();
        self.models.push(id.to_string());
        self.model_index.insert(id.to_string(), k);
        self.year.push(None);
        self.citations.push(None);
        k
    }

    /// Check and add one row found at `where_`.
    pub fn push(&mut self, row: &TraceRow, where_: &str) -> Result<()> {
        self.push_with_runtimes(row, &[], where_)
    }

    /// [`TraceBuilder::push`], with the row's per-type runtimes in seconds,
    /// one per column of [`TraceBuilder::set_runtime_columns`] (`None`: the
    /// cell is empty, the type falls back to `runtime_s`).
    pub fn push_with_runtimes(
        &mut self,
        row: &TraceRow,
        typed: &[Option<f64>],
        where_: &str,
    ) -> Result<()> {
        let (u, k) = self.check_row(row, typed, where_)?;
        self.seen.insert((u, k), where_.to_string());
        self.rows_per_user[u] += 1;
        self.cells
            .push((u, k, row.accuracy, secs_to_micros(row.runtime_s)));
        Ok(())
    }

    /// Check one row's fields, ids, metadata and per-type runtimes (and,
    /// for a plain trace, that its pair is new); index its user and model.
    fn check_row(
        &mut self,
        row: &TraceRow,
        typed: &[Option<f64>],
        where_: &str,
    ) -> Result<(usize, usize)> {
        if row.user.trim().is_empty() {
            return Err(Error::input(format!(
                "{where_}: field `user`: expected a non-empty id"
            )));
        }
        if row.model.trim().is_empty() {
            return Err(Error::input(format!(
                "{where_}: field `model`: expected a non-empty id"
            )));
        }
        if !row.accuracy.is_finite() || !(0.0..=1.0).contains(&row.accuracy) {
            return Err(Error::input(format!(
                "{where_}: field `accuracy`: expected a number in [0, 1], got {}",
                row.accuracy
            )));
        }
        if !row.runtime_s.is_finite() || row.runtime_s <= 0.0 || row.runtime_s > MAX_RUNTIME_S {
            return Err(Error::input(format!(
                "{where_}: field `runtime_s`: expected a number of seconds > 0 and <= {MAX_RUNTIME_S:e}, got {}",
                row.runtime_s
            )));
        }
        let u = self.declare_user(&row.user);
        let k = self.model_idx(&row.model);
        // How many cells the dense table may have is the memory check's
        // (made before the trace is read, models/scenario/footprint.rs);
        // here only what would overflow a u32 index.
        if self.users.len() as u64 > MAX_TRACE_INDEX || self.models.len() as u64 > MAX_TRACE_INDEX {
            return Err(Error::input(format!(
                "{where_}: {} users × {} models: at most {} of each (they are indexed as 32-bit numbers)",
                grouped(self.users.len() as u64),
                grouped(self.models.len() as u64),
                grouped(MAX_TRACE_INDEX)
            )));
        }
        if let Some(first) = self.seen.get(&(u, k)).filter(|_| !self.curve) {
            return Err(Error::input(format!(
                "{where_}: duplicate pair (user `{}`, model `{}`): already given at {first}",
                shown(&row.user),
                shown(&row.model)
            )));
        }
        check_meta(
            "model_year",
            self.has_year,
            row.model_year,
            &mut self.year[k],
            &row.model,
            where_,
        )?;
        check_meta(
            "model_citations",
            self.has_citations,
            row.model_citations,
            &mut self.citations[k],
            &row.model,
            where_,
        )?;
        for (slot, v) in typed.iter().enumerate() {
            let Some(secs) = *v else { continue };
            if !secs.is_finite() || secs <= 0.0 || secs > MAX_RUNTIME_S {
                return Err(Error::input(format!(
                    "{where_}: field `runtime_s.{}`: expected a number of seconds > 0 and <= {MAX_RUNTIME_S:e} \
                     (or an empty cell: the type then takes `runtime_s`), got {secs}",
                    self.typed_names.get(slot).map_or("?", String::as_str)
                )));
            }
            self.typed_cells.push((slot, u, k, secs_to_micros(secs)));
        }
        Ok((u, k))
    }

    /// Check and add one row of a curve trace (see
    /// [`TraceBuilder::set_curve`]) at fidelity `fidelity`, found at
    /// `where_`. A pair's rows must come in strictly increasing fidelity.
    pub fn push_level(&mut self, row: &TraceRow, fidelity: f64, where_: &str) -> Result<()> {
        if !self.curve {
            return Err(Error::input(format!(
                "{where_}: internal: a fidelity row for a trace without a `fidelity` column"
            )));
        }
        if !fidelity.is_finite() || fidelity <= 0.0 {
            return Err(Error::input(format!(
                "{where_}: field `fidelity`: expected a finite number > 0, got {fidelity}"
            )));
        }
        let (u, k) = self.check_row(row, &[], where_)?;
        match self.pair_last.get_mut(&(u, k)) {
            None => {
                self.pair_last
                    .insert((u, k), (fidelity, 1, where_.to_string()));
                self.rows_per_user[u] += 1;
            }
            Some((last, n, first)) => {
                if fidelity == *last {
                    return Err(Error::input(format!(
                        "{where_}: duplicate row (user `{}`, model `{}`, fidelity {fidelity}): the pair was first given at {first}",
                        shown(&row.user),
                        shown(&row.model)
                    )));
                }
                if fidelity < *last {
                    return Err(Error::input(format!(
                        "{where_}: field `fidelity`: expected the fidelities of (user `{}`, model `{}`) in strictly increasing order, got {fidelity} after {last}",
                        shown(&row.user),
                        shown(&row.model)
                    )));
                }
                if *n >= MAX_LEVELS {
                    return Err(Error::input(format!(
                        "{where_}: (user `{}`, model `{}`) has more than {MAX_LEVELS} fidelities",
                        shown(&row.user),
                        shown(&row.model)
                    )));
                }
                *last = fidelity;
                *n += 1;
            }
        }
        self.levels
            .push((u, k, fidelity, row.accuracy, secs_to_micros(row.runtime_s)));
        Ok(())
    }

    /// Build the dense trace, rejecting an empty trace and users with no rows.
    pub fn finish(mut self) -> Result<Trace> {
        let curves = self.curve.then(|| self.take_curves());
        if self.cells.is_empty() {
            return Err(Error::input(format!(
                "{}: the trace has no rows: expected at least one (user, model) pair",
                self.source
            )));
        }
        if let Some(u) = self.rows_per_user.iter().position(|&n| n == 0) {
            return Err(Error::input(format!(
                "{}: user `{}` has no available model: expected at least one row per user",
                self.source,
                shown(&self.users[u])
            )));
        }
        let (n, k) = (self.users.len(), self.models.len());
        let mut accuracy = Array2::zeros((n, k));
        let mut runtime_us = Array2::zeros((n, k));
        let mut available = Array2::from_elem((n, k), false);
        for &(u, m, a, r) in &self.cells {
            accuracy[[u, m]] = a;
            runtime_us[[u, m]] = r;
            available[[u, m]] = true;
        }
        let avail = &available;
        let models_of_user = shared_lists((0..n).map(|u| (0..k).filter(move |&m| avail[[u, m]])));
        let mut typed: Vec<(String, Array2<Micros>)> = self
            .typed_names
            .into_iter()
            .map(|name| (name, Array2::zeros((n, k))))
            .collect();
        for &(slot, u, m, r) in &self.typed_cells {
            typed[slot].1[[u, m]] = r;
        }
        let take = |v: Vec<Option<(i64, String)>>, has: bool| {
            has.then(|| v.into_iter().map(|x| x.map_or(0, |(y, _)| y)).collect())
        };
        Ok(Trace {
            source: self.source,
            users: UserIds::Listed(self.users),
            models: self.models,
            cells: Cells::Dense {
                accuracy,
                runtime_us,
                available,
            },
            models_of_user: ModelLists::PerUser(models_of_user),
            model_year: take(self.year, self.has_year),
            model_citations: take(self.citations, self.has_citations),
            typed_runtime_us: typed,
            curves,
        })
    }

    /// Group the curve rows by pair into [`Curves`], and make each pair's
    /// top level its cell (accuracy, and the from-scratch cost there; the
    /// scenario's `cost` mode may change it, [`Trace::set_cost_mode`]).
    fn take_curves(&mut self) -> Curves {
        let k = self.models.len();
        let mut levels = std::mem::take(&mut self.levels);
        // Stable: a pair's rows keep their (increasing) file order.
        levels.sort_by_key(|l| l.0 * k + l.1);
        let n_pairs = self.users.len() * k;
        let mut offsets = vec![0u32; n_pairs + 1];
        for l in &levels {
            offsets[l.0 * k + l.1 + 1] += 1;
        }
        for p in 0..n_pairs {
            offsets[p + 1] += offsets[p];
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (i, l) in levels.iter().enumerate() {
            lo = lo.min(l.2);
            hi = hi.max(l.2);
            let top = levels.get(i + 1).is_none_or(|n| (n.0, n.1) != (l.0, l.1));
            if top {
                self.cells.push((l.0, l.1, l.3, l.4));
            }
        }
        Curves {
            offsets,
            fidelity: levels.iter().map(|l| l.2).collect(),
            accuracy: levels.iter().map(|l| l.3).collect(),
            runtime_us: levels.iter().map(|l| l.4).collect(),
            cost: CostMode::FromScratch,
            restore_us: 0,
            min_fidelity: lo,
            max_fidelity: hi,
        }
    }
}

impl Trace {
    /// A trace where every user has every model, from its dense parts (the
    /// generators' fast path), its users `u0…` ([`super::generate::padded_id`]).
    /// The caller guarantees what
    /// [`TraceBuilder`] would check: unique non-empty ids, accuracies in
    /// [0, 1], runtimes of at least 1 µs and at most
    /// [`MAX_RUNTIME_S`] as rounded by [`secs_to_micros`], metadata with
    /// one value per model.
    pub(crate) fn complete(
        source: String,
        models: Vec<String>,
        accuracy: Array2<f64>,
        runtime_us: Array2<Micros>,
        model_year: Option<Vec<i64>>,
        model_citations: Option<Vec<i64>>,
    ) -> Trace {
        let (n, k) = accuracy.dim();
        debug_assert_eq!(models.len(), k);
        debug_assert_eq!(runtime_us.dim(), (n, k));
        debug_assert!(accuracy.iter().all(|a| (0.0..=1.0).contains(a)));
        debug_assert!(runtime_us.iter().all(|&r| r >= 1));
        let available = Array2::from_elem((n, k), true);
        let cells = Cells::Dense {
            accuracy,
            runtime_us,
            available,
        };
        Trace::generated(source, models, n, cells, model_year, model_citations)
    }
}

impl Trace {
    /// The lazy form of the complete trace `backing` describes: its cells
    /// read through `backing` (every pair available), its users `u0…`, no
    /// byte per user (DESIGN §1.2 "Per-user rows").
    pub(crate) fn lazy(
        source: String,
        models: Vec<String>,
        backing: SynBacking,
        model_year: Option<Vec<i64>>,
        model_citations: Option<Vec<i64>>,
    ) -> Trace {
        let n = backing.rows().n_users();
        debug_assert_eq!(models.len(), backing.rows().n_models());
        let cells = Cells::Lazy(Box::new(backing));
        Trace::generated(source, models, n, cells, model_year, model_citations)
    }

    /// A generated trace: `n` users `u0…` ([`super::generate::padded_id`])
    /// with every model of `models`, their cells `cells`.
    fn generated(
        source: String,
        models: Vec<String>,
        n: usize,
        cells: Cells,
        model_year: Option<Vec<i64>>,
        model_citations: Option<Vec<i64>>,
    ) -> Trace {
        Trace {
            source,
            users: UserIds::Padded { n },
            models_of_user: ModelLists::Every {
                list: (0..models.len()).collect(),
                users: n,
            },
            models,
            cells,
            model_year,
            model_citations,
            typed_runtime_us: Vec::new(),
            curves: None,
        }
    }
}

fn check_meta(
    column: &str,
    has: bool,
    value: Option<i64>,
    slot: &mut Option<(i64, String)>,
    model: &str,
    where_: &str,
) -> Result<()> {
    match (has, value) {
        (false, _) => Ok(()),
        (true, None) => Err(Error::input(format!(
            "{where_}: field `{column}`: expected an integer (the column is present, so every row needs it)"
        ))),
        (true, Some(v)) => match slot {
            None => {
                *slot = Some((v, where_.to_string()));
                Ok(())
            }
            Some((first, at)) if *first != v => Err(Error::input(format!(
                "{where_}: field `{column}`: model `{model}` has {column} {v} here but {first} at {at}: expected one value per model"
            ))),
            Some(_) => Ok(()),
        },
    }
}

/// Each user's model list, a user with the same list as the user before it
/// sharing that one's allocation (`Trace::models_of_user`).
fn shared_lists<L: Iterator<Item = usize>>(lists: impl Iterator<Item = L>) -> Vec<Arc<[usize]>> {
    let mut out: Vec<Arc<[usize]>> = Vec::with_capacity(lists.size_hint().0);
    let mut buf = Vec::new();
    for list in lists {
        buf.clear();
        buf.extend(list);
        match out.last() {
            Some(prev) if **prev == *buf => {
                let same = Arc::clone(prev);
                out.push(same);
            }
            _ => out.push(Arc::from(buf.as_slice())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::shared_lists;

    /// Issue 34: users with the same model list share one allocation, and
    /// every list stays the user's own.
    #[test]
    fn equal_consecutive_model_lists_share_one_allocation() {
        let lists = [vec![0, 1, 2], vec![0, 1, 2], vec![1], vec![0, 1, 2]];
        let out = shared_lists(lists.iter().map(|l| l.iter().copied()));
        let seen: Vec<Vec<usize>> = out.iter().map(|l| l.to_vec()).collect();
        assert_eq!(seen, lists);
        assert!(Arc::ptr_eq(&out[0], &out[1]));
        assert!(!Arc::ptr_eq(&out[1], &out[3]));
    }
}
