//! The rows a workflow trace is built from (DESIGN §14.1): a list of
//! [`StepRow`]s, as importers and generators make them, or
//! [`CompactRows`], the rows of a CSV as `WorkflowTrace::read` holds them
//! while it builds the trace: every text cell of every row in one string,
//! the numbers in a fixed record a row (DESIGN §8.5 "Workflows": a
//! `StepRow` is 208 bytes and a heap allocation of at least 32 bytes for
//! each of its four ids and each parent; a compact row is
//! [`COMPACT_ROW_BYTES`] and its cells' bytes). `WorkflowTrace::from_rows_at`
//! reads either through [`Rows`], one [`RowRef`] at a time.

use crate::core::error::{Error, Result};

/// One row of the workflow CSV.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepRow {
    /// Workflow id.
    pub workflow: String,
    /// Tenant id (the same on every row of the workflow).
    pub tenant: String,
    /// Submit time of the workflow, s.
    pub submit_s: f64,
    /// Step id, unique within the workflow.
    pub step: String,
    /// Parent step ids (same workflow).
    pub parents: Vec<String>,
    /// Run time of one attempt, s.
    pub runtime_s: f64,
    /// Run time per GPU type, s (`runtime_s.<type>` columns).
    pub type_runtimes: Vec<(String, f64)>,
    /// GPUs one attempt holds.
    pub gpus: u32,
    /// CPUs one attempt holds.
    pub cpus: u32,
    /// Memo key; empty: never cached.
    pub cache_key: String,
    /// Size of its outputs.
    pub output_bytes: u64,
    /// Deadline relative to `submit_s`, s.
    pub deadline_s: Option<f64>,
    /// Probability that an attempt fails, in [0, 1).
    pub failure_p: f64,
    /// May be split into sub-jobs.
    pub parallel: bool,
}

/// One row as the trace builder reads it: its cells borrowed.
#[derive(Debug, Clone, Copy)]
pub struct RowRef<'a> {
    /// Workflow id.
    pub workflow: &'a str,
    /// Tenant id.
    pub tenant: &'a str,
    /// Submit time of the workflow, s.
    pub submit_s: f64,
    /// Step id.
    pub step: &'a str,
    /// Parent step ids.
    pub parents: Parents<'a>,
    /// Run time of one attempt, s.
    pub runtime_s: f64,
    /// Run time per GPU type, s.
    pub types: Types<'a>,
    /// GPUs one attempt holds.
    pub gpus: u32,
    /// CPUs one attempt holds.
    pub cpus: u32,
    /// Memo key; empty: never cached.
    pub cache_key: &'a str,
    /// Size of its outputs.
    pub output_bytes: u64,
    /// Deadline relative to `submit_s`, s.
    pub deadline_s: Option<f64>,
    /// Probability that an attempt fails.
    pub failure_p: f64,
    /// May be split into sub-jobs.
    pub parallel: bool,
}

/// A row's parent ids: a list, or a CSV cell of ids separated by `;`
/// (each trimmed; an empty cell has none).
#[derive(Debug, Clone, Copy)]
pub enum Parents<'a> {
    /// Owned ids.
    List(&'a [String]),
    /// The `parents` cell.
    Cell(&'a str),
}

impl<'a> Parents<'a> {
    /// The ids, in order.
    pub fn iter(self) -> impl Iterator<Item = &'a str> {
        let (list, cell): (&'a [String], &'a str) = match self {
            Parents::List(l) => (l, ""),
            Parents::Cell(c) => (&[], c),
        };
        list.iter().map(String::as_str).chain(
            cell.split(';')
                .filter(move |_| !cell.is_empty())
                .map(str::trim),
        )
    }
}

/// A row's run times per GPU type: (name, seconds) pairs, or (type
/// column, seconds) pairs with the columns' names.
#[derive(Debug, Clone, Copy)]
pub enum Types<'a> {
    /// Named pairs.
    List(&'a [(String, f64)]),
    /// Column indices into the names.
    Cells(&'a [(u16, f64)], &'a [String]),
}

impl<'a> Types<'a> {
    /// The (type name, seconds) pairs, in column order.
    pub fn iter(self) -> impl Iterator<Item = (&'a str, f64)> {
        let (list, cells, names) = match self {
            Types::List(l) => (l, None, &[][..]),
            Types::Cells(c, n) => (&[][..], Some(c), n),
        };
        list.iter().map(|(n, s)| (n.as_str(), *s)).chain(
            cells
                .into_iter()
                .flatten()
                .map(move |&(t, s)| (names[usize::from(t)].as_str(), s)),
        )
    }
}

/// Rows a trace is built from.
pub trait Rows {
    /// Number of rows.
    fn len(&self) -> usize;
    /// Row `i` (`i < len()`).
    fn row(&self, i: usize) -> RowRef<'_>;
    /// Whether there is none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Rows for [StepRow] {
    fn len(&self) -> usize {
        <[StepRow]>::len(self)
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        let r = &self[i];
        RowRef {
            workflow: &r.workflow,
            tenant: &r.tenant,
            submit_s: r.submit_s,
            step: &r.step,
            parents: Parents::List(&r.parents),
            runtime_s: r.runtime_s,
            types: Types::List(&r.type_runtimes),
            gpus: r.gpus,
            cpus: r.cpus,
            cache_key: &r.cache_key,
            output_bytes: r.output_bytes,
            deadline_s: r.deadline_s,
            failure_p: r.failure_p,
            parallel: r.parallel,
        }
    }
}

impl RowRef<'_> {
    /// The row as an owned [`StepRow`].
    pub fn to_step_row(&self) -> StepRow {
        StepRow {
            workflow: self.workflow.to_string(),
            tenant: self.tenant.to_string(),
            submit_s: self.submit_s,
            step: self.step.to_string(),
            parents: self.parents.iter().map(str::to_string).collect(),
            runtime_s: self.runtime_s,
            type_runtimes: self.types.iter().map(|(n, s)| (n.to_string(), s)).collect(),
            gpus: self.gpus,
            cpus: self.cpus,
            cache_key: self.cache_key.to_string(),
            output_bytes: self.output_bytes,
            deadline_s: self.deadline_s,
            failure_p: self.failure_p,
            parallel: self.parallel,
        }
    }
}

/// A compact row: where its five text cells lie in the shared text
/// (workflow, tenant, step, cache key, parents cell, one after the
/// other), its per-type run times' place, and its numbers.
#[derive(Debug, Clone, Copy)]
struct Compact {
    text_at: u64,
    lens: [u32; 5],
    types_at: u64,
    types_n: u32,
    submit_s: f64,
    runtime_s: f64,
    failure_p: f64,
    output_bytes: u64,
    deadline_s: Option<f64>,
    gpus: u32,
    cpus: u32,
    parallel: bool,
}

/// Bytes of a compact row's record (its cells' text is beside it).
pub const COMPACT_ROW_BYTES: u64 = size_of::<Compact>() as u64;

/// Rows with their text cells in one string.
#[derive(Debug, Default)]
pub struct CompactRows {
    text: String,
    rows: Vec<Compact>,
    types: Vec<(u16, f64)>,
    type_names: Vec<String>,
}

impl CompactRows {
    /// Empty rows whose per-type cells name `type_names` (the
    /// `runtime_s.<type>` columns, in column order).
    pub fn new(type_names: Vec<String>) -> Self {
        Self {
            type_names,
            ..Self::default()
        }
    }

    /// Append `r`, whose per-type cells are [`Types::Cells`] of this
    /// rows' names (or none); `source` and `line` name it in the error of
    /// a cell longer than 4 GiB.
    pub fn push(&mut self, r: &RowRef<'_>, source: &str, line: u64) -> Result<()> {
        let parents = match r.parents {
            Parents::Cell(c) => c,
            Parents::List(_) => {
                return Err(Error::input(
                    "internal error: compact rows take the parents cell",
                ));
            }
        };
        let cells = [r.workflow, r.tenant, r.step, r.cache_key, parents];
        let mut lens = [0u32; 5];
        for (len, cell) in lens.iter_mut().zip(cells) {
            *len = u32::try_from(cell.len()).map_err(|_| {
                Error::input(format!(
                    "{source}: line {line}: a cell of {} bytes: expected at most 4 GiB",
                    cell.len()
                ))
            })?;
        }
        let text_at = self.text.len() as u64;
        for cell in cells {
            self.text.push_str(cell);
        }
        let types_at = self.types.len() as u64;
        let mut types_n = 0u32;
        if let Types::Cells(cells, _) = r.types {
            self.types.extend_from_slice(cells);
            types_n = cells.len() as u32;
        }
        self.rows.push(Compact {
            text_at,
            lens,
            types_at,
            types_n,
            submit_s: r.submit_s,
            runtime_s: r.runtime_s,
            failure_p: r.failure_p,
            output_bytes: r.output_bytes,
            deadline_s: r.deadline_s,
            gpus: r.gpus,
            cpus: r.cpus,
            parallel: r.parallel,
        });
        Ok(())
    }
}

impl Rows for CompactRows {
    fn len(&self) -> usize {
        self.rows.len()
    }
    fn row(&self, i: usize) -> RowRef<'_> {
        let c = &self.rows[i];
        let mut at = c.text_at as usize;
        let mut cell = |k: usize| {
            let s = &self.text[at..at + c.lens[k] as usize];
            at += c.lens[k] as usize;
            s
        };
        let (workflow, tenant, step, cache_key, parents) =
            (cell(0), cell(1), cell(2), cell(3), cell(4));
        let types = &self.types[c.types_at as usize..c.types_at as usize + c.types_n as usize];
        RowRef {
            workflow,
            tenant,
            submit_s: c.submit_s,
            step,
            parents: Parents::Cell(parents),
            runtime_s: c.runtime_s,
            types: Types::Cells(types, &self.type_names),
            gpus: c.gpus,
            cpus: c.cpus,
            cache_key,
            output_bytes: c.output_bytes,
            deadline_s: c.deadline_s,
            failure_p: c.failure_p,
            parallel: c.parallel,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step_row(workflow: &str, step: &str, parents: &[&str], types: &[(&str, f64)]) -> StepRow {
        StepRow {
            workflow: workflow.into(),
            tenant: "t".into(),
            submit_s: 1.5,
            step: step.into(),
            parents: parents.iter().map(|p| p.to_string()).collect(),
            runtime_s: 2.0,
            type_runtimes: types.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
            gpus: 3,
            cpus: 4,
            cache_key: if step == "a" {
                "k".into()
            } else {
                String::new()
            },
            output_bytes: 9,
            deadline_s: Some(7.0),
            failure_p: 0.25,
            parallel: step == "b",
        }
    }

    /// Rows pushed compactly read back as the `StepRow`s they came from:
    /// text cells, parents split at `;` and trimmed, per-type cells by
    /// name, the numbers.
    #[test]
    fn compact_rows_read_back_as_the_step_rows_they_hold() {
        let names = vec!["v100".to_string(), "k80".to_string()];
        let rows = [
            step_row("w1", "a", &[], &[("k80", 3.0)]),
            step_row("w1", "b", &["a"], &[]),
            step_row("w2", "c", &["x", "y"], &[("v100", 1.0), ("k80", 2.0)]),
        ];
        let mut compact = CompactRows::new(names.clone());
        for (i, r) in rows.iter().enumerate() {
            let owned = rows.as_slice().row(i);
            let cell = r.parents.join(" ; ");
            let cells: Vec<(u16, f64)> = r
                .type_runtimes
                .iter()
                .map(|(n, s)| {
                    (
                        names.iter().position(|m| m == n).expect("a column") as u16,
                        *s,
                    )
                })
                .collect();
            let view = RowRef {
                parents: Parents::Cell(&cell),
                types: Types::Cells(&cells, &names),
                ..owned
            };
            compact.push(&view, "w.csv", i as u64 + 2).expect("pushed");
        }
        assert_eq!(Rows::len(&compact), 3);
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(compact.row(i).to_step_row(), *r, "row {i}");
        }
        let list = Parents::List(&rows[2].parents);
        assert_eq!(list.iter().collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(Parents::Cell("").iter().count(), 0);
    }
}
