//! The workflow trace (DESIGN §14.1): one row per step of a DAG.
//!
//! [`StepRow`] is one CSV row as importers and generators produce it;
//! [`WorkflowTrace::from_rows`] groups, numbers and checks them (every
//! parent known, no cycle, sizes valid) into the form the simulator
//! reads: workflows in order of first appearance, each one's steps
//! contiguous and in row order, parents and children as flat index
//! lists.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use crate::core::error::{Error, Result};
use crate::core::io::cluster::check_type_name;
use crate::core::io::csv_columns::{csv_with_header, match_columns, number_field};
use crate::core::io::csv_text::csv_field;
use crate::core::io::echo::shown;
use crate::core::io::{open_input, write_atomic};
use crate::core::sim::time::{MAX_RUNTIME_S, Micros};

/// Largest accepted `submit_s`, s (as a job trace's, about 31,700 years).
pub const MAX_SUBMIT_S: f64 = 1.0e12;

/// No cache key: the step is never cached.
pub const NO_KEY: u32 = u32::MAX;

pub use super::rows::StepRow;
use super::rows::{CompactRows, Parents, RowRef, Rows, Types};

/// One workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkflowSpec {
    /// Tenant index.
    pub tenant: u32,
    /// Submit time, µs.
    pub submit: Micros,
    /// Deadline relative to `submit`, µs.
    pub deadline: Option<Micros>,
    /// Index of its first step; its steps are `first_step..first_step +
    /// steps`.
    pub first_step: u32,
    /// Number of steps.
    pub steps: u32,
}

/// One step, numbered globally (workflow by workflow).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Its workflow.
    pub workflow: u32,
    /// Run time of one attempt, µs (at least 1).
    pub runtime: Micros,
    /// GPUs one attempt holds.
    pub gpus: u32,
    /// CPUs one attempt holds.
    pub cpus: u32,
    /// Interned cache key ([`NO_KEY`]: never cached).
    pub cache_key: u32,
    /// Size of its outputs.
    pub output_bytes: u64,
    /// Probability that an attempt fails.
    pub failure_p: f64,
    /// May be split into sub-jobs.
    pub parallel: bool,
    /// Its parents: `parents[parents_at.0 .. parents_at.0 + parents_at.1]`.
    pub parents_at: (u32, u32),
    /// Its children, likewise in the trace's children list ([`WorkflowTrace::children_of`]).
    pub children_at: (u32, u32),
}

/// A validated workflow trace.
#[derive(Debug, Clone)]
pub struct WorkflowTrace {
    source: String,
    workflows: Vec<WorkflowSpec>,
    workflow_ids: Vec<String>,
    steps: Vec<Step>,
    step_ids: Vec<String>,
    tenants: Vec<String>,
    cache_keys: Vec<String>,
    parents: Vec<u32>,
    children: Vec<u32>,
    type_names: Vec<String>,
    /// `steps.len() × type_names.len()`, 0 where a type has no run time
    /// of its own (the step's `runtime` applies).
    type_runtimes: Vec<Micros>,
}

impl WorkflowTrace {
    /// Group, number and check rows; `source` names them in errors (a
    /// file path; row `i` is line `i + 2`).
    pub fn from_rows(source: &str, rows: &[StepRow]) -> Result<Self> {
        Self::from_rows_at(source, rows, None)
    }

    /// [`WorkflowTrace::from_rows`] with each row's physical line in the
    /// file (`lines[i]` for row `i`; `None`: line `i + 2`), as
    /// [`WorkflowTrace::parse`] knows them (blank lines and quoted
    /// newlines counted).
    pub fn from_rows_at<R: Rows + ?Sized>(
        source: &str,
        rows: &R,
        lines: Option<&[u64]>,
    ) -> Result<Self> {
        let line_of = |i: usize| {
            lines
                .and_then(|l| l.get(i).copied())
                .unwrap_or(i as u64 + 2)
        };
        let at = |i: usize| format!("{source}: line {}", line_of(i));
        if rows.is_empty() {
            return Err(Error::input(format!(
                "{source}: the workflow trace has no rows: expected at least one step"
            )));
        }
        let mut wf_index: HashMap<&str, u32> = HashMap::new();
        let mut wf_rows: Vec<Vec<usize>> = Vec::new();
        for i in 0..rows.len() {
            let r = rows.row(i);
            let next = wf_rows.len() as u32;
            let w = *wf_index.entry(r.workflow).or_insert(next);
            if w == next {
                wf_rows.push(Vec::new());
            }
            wf_rows[w as usize].push(i);
        }
        let mut t = Self {
            source: source.to_string(),
            workflows: Vec::with_capacity(wf_rows.len()),
            workflow_ids: Vec::with_capacity(wf_rows.len()),
            steps: Vec::with_capacity(rows.len()),
            step_ids: Vec::with_capacity(rows.len()),
            tenants: Vec::new(),
            cache_keys: Vec::new(),
            parents: Vec::new(),
            children: Vec::new(),
            type_names: Vec::new(),
            type_runtimes: Vec::new(),
        };
        let mut tenant_index: HashMap<&str, u32> = HashMap::new();
        let mut key_index: HashMap<&str, u32> = HashMap::new();
        let mut type_index: HashMap<&str, usize> = HashMap::new();
        for i in 0..rows.len() {
            for (name, _) in rows.row(i).types.iter() {
                if !type_index.contains_key(name) {
                    type_index.insert(name, t.type_names.len());
                    t.type_names.push(name.to_string());
                }
            }
        }
        let n_types = t.type_names.len();
        for (w, idx) in wf_rows.iter().enumerate() {
            let first = rows.row(idx[0]);
            let next = t.tenants.len() as u32;
            let tenant = *tenant_index.entry(first.tenant).or_insert(next);
            if tenant == next {
                t.tenants.push(first.tenant.to_string());
            }
            let submit = seconds(first.submit_s, &at(idx[0]), "submit_s", false)?;
            let deadline = first
                .deadline_s
                .map(|d| seconds(d, &at(idx[0]), "deadline_s", true))
                .transpose()?;
            let first_step = t.steps.len() as u32;
            let mut step_index: HashMap<&str, u32> = HashMap::new();
            for (k, &i) in idx.iter().enumerate() {
                let r = rows.row(i);
                let differs = if r.tenant != first.tenant {
                    Some("tenant")
                } else if r.submit_s != first.submit_s {
                    Some("submit_s")
                } else if r.deadline_s != first.deadline_s {
                    Some("deadline_s")
                } else {
                    None
                };
                if let Some(column) = differs {
                    return Err(Error::input(format!(
                        "{}: field `{column}`: workflow `{}`: expected the same {column} on every row of a workflow, as on line {}",
                        at(i),
                        shown(r.workflow),
                        line_of(idx[0])
                    )));
                }
                if r.workflow.is_empty() {
                    return Err(Error::input(format!(
                        "{}: field `workflow`: expected a non-empty workflow id",
                        at(i)
                    )));
                }
                if r.tenant.is_empty() {
                    return Err(Error::input(format!(
                        "{}: field `tenant`: expected a non-empty tenant id",
                        at(i)
                    )));
                }
                if r.step.is_empty() {
                    return Err(Error::input(format!(
                        "{}: field `step`: expected a non-empty step id",
                        at(i)
                    )));
                }
                if step_index.insert(r.step, first_step + k as u32).is_some() {
                    let before = idx[..k]
                        .iter()
                        .find(|&&j| rows.row(j).step == r.step)
                        .map_or(0, |&j| line_of(j));
                    return Err(Error::input(format!(
                        "{}: field `step`: workflow `{}` has step `{}` twice (first on line {before})",
                        at(i),
                        shown(r.workflow),
                        shown(r.step)
                    )));
                }
            }
            for &i in idx {
                let r = rows.row(i);
                if !(0.0..1.0).contains(&r.failure_p) {
                    return Err(Error::input(format!(
                        "{}: field `failure_p`: expected a probability in [0, 1), got {}",
                        at(i),
                        r.failure_p
                    )));
                }
                let runtime = seconds(r.runtime_s, &at(i), "runtime_s", true)?.max(1);
                let p0 = t.parents.len() as u32;
                for p in r.parents.iter() {
                    let Some(&g) = step_index.get(p) else {
                        return Err(Error::input(format!(
                            "{}: field `parents`: step `{}` names an unknown parent `{}`: workflow `{}` has no such step",
                            at(i),
                            shown(r.step),
                            shown(p),
                            shown(r.workflow)
                        )));
                    };
                    t.parents.push(g);
                }
                let cache_key = if r.cache_key.is_empty() {
                    NO_KEY
                } else {
                    let next = t.cache_keys.len() as u32;
                    let k = *key_index.entry(r.cache_key).or_insert(next);
                    if k == next {
                        t.cache_keys.push(r.cache_key.to_string());
                    }
                    k
                };
                let base = t.type_runtimes.len();
                t.type_runtimes.resize(base + n_types, 0);
                for (name, s) in r.types.iter() {
                    let v = seconds(s, &at(i), &format!("runtime_s.{name}"), true)?.max(1);
                    t.type_runtimes[base + type_index[name]] = v;
                }
                t.steps.push(Step {
                    workflow: w as u32,
                    runtime,
                    gpus: r.gpus,
                    cpus: r.cpus,
                    cache_key,
                    output_bytes: r.output_bytes,
                    failure_p: r.failure_p,
                    parallel: r.parallel,
                    parents_at: (p0, t.parents.len() as u32 - p0),
                    children_at: (0, 0),
                });
                t.step_ids.push(r.step.to_string());
            }
            t.workflows.push(WorkflowSpec {
                tenant,
                submit,
                deadline,
                first_step,
                steps: idx.len() as u32,
            });
            t.workflow_ids.push(first.workflow.to_string());
            t.check_acyclic(w, idx, &line_of)?;
        }
        t.link_children();
        Ok(t)
    }

    /// Kahn's algorithm on workflow `w`: every step is reached from the
    /// roots, else the steps left form at least one cycle.
    fn check_acyclic(&self, w: usize, idx: &[usize], line_of: &dyn Fn(usize) -> u64) -> Result<()> {
        let spec = self.workflows[w];
        let first = spec.first_step as usize;
        let n = spec.steps as usize;
        let mut indegree: Vec<u32> = (first..first + n)
            .map(|s| self.steps[s].parents_at.1)
            .collect();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for s in first..first + n {
            for &p in self.parents_of(s as u32) {
                children[p as usize - first].push(s - first);
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&k| indegree[k] == 0).collect();
        let mut seen = 0;
        while let Some(k) = ready.pop() {
            seen += 1;
            for &c in &children[k] {
                indegree[c] -= 1;
                if indegree[c] == 0 {
                    ready.push(c);
                }
            }
        }
        if seen == n {
            return Ok(());
        }
        // The steps left all have a parent left; walking parents from the
        // first of them must revisit a step: the cycle is the walk from
        // that step's first visit on.
        let Some(start) = (0..n).find(|&k| indegree[k] > 0) else {
            return Ok(());
        };
        let mut walk: Vec<usize> = vec![start];
        let mut pos: Vec<Option<usize>> = vec![None; n];
        pos[start] = Some(0);
        let cycle_from = loop {
            let k = walk[walk.len() - 1];
            let Some(p) = self
                .parents_of((first + k) as u32)
                .iter()
                .map(|&p| p as usize - first)
                .find(|&p| indegree[p] > 0)
            else {
                break 0; // unreachable: a step left has a parent left
            };
            if let Some(at) = pos[p] {
                break at;
            }
            pos[p] = Some(walk.len());
            walk.push(p);
        };
        // The walk follows parents; the cycle reads parent → child.
        let mut cycle: Vec<usize> = walk[cycle_from..].to_vec();
        cycle.reverse();
        let lowest = cycle.iter().copied().min().unwrap_or(start);
        let rot = cycle.iter().position(|&k| k == lowest).unwrap_or(0);
        cycle.rotate_left(rot);
        let names: Vec<String> = cycle
            .iter()
            .chain(cycle.first())
            .map(|&k| format!("`{}`", shown(&self.step_ids[first + k])))
            .collect();
        Err(Error::input(format!(
            "{}: line {}: field `parents`: workflow `{}` has a cycle: {}",
            self.source,
            line_of(idx[lowest]),
            shown(&self.workflow_ids[w]),
            names.join(" → ")
        )))
    }

    fn link_children(&mut self) {
        let n = self.steps.len();
        let mut count = vec![0u32; n];
        for &p in &self.parents {
            count[p as usize] += 1;
        }
        let mut at = 0u32;
        for (s, c) in count.iter().enumerate() {
            self.steps[s].children_at = (at, 0);
            at += c;
        }
        self.children = vec![0; self.parents.len()];
        for s in 0..n {
            let (p0, pn) = self.steps[s].parents_at;
            for k in p0..p0 + pn {
                let p = self.parents[k as usize] as usize;
                let (c0, cn) = self.steps[p].children_at;
                self.children[(c0 + cn) as usize] = s as u32;
                self.steps[p].children_at.1 += 1;
            }
        }
    }

    /// Where the trace came from.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The workflows, in order of first appearance.
    pub fn workflows(&self) -> &[WorkflowSpec] {
        &self.workflows
    }
    /// Workflow `w`'s id.
    pub fn workflow_id(&self, w: u32) -> &str {
        &self.workflow_ids[w as usize]
    }
    /// Every step, workflow by workflow.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
    /// Step `s`'s id (unique within its workflow).
    pub fn step_id(&self, s: u32) -> &str {
        &self.step_ids[s as usize]
    }
    /// Tenant ids, by index.
    pub fn tenants(&self) -> &[String] {
        &self.tenants
    }
    /// Cache key `k`'s text.
    pub fn cache_key(&self, k: u32) -> &str {
        &self.cache_keys[k as usize]
    }
    /// Number of distinct cache keys.
    pub fn cache_keys(&self) -> usize {
        self.cache_keys.len()
    }
    /// Step `s`'s parents (global step indices, in row order).
    pub fn parents_of(&self, s: u32) -> &[u32] {
        let (a, n) = self.steps[s as usize].parents_at;
        &self.parents[a as usize..(a + n) as usize]
    }
    /// Step `s`'s children (global step indices, in step order).
    pub fn children_of(&self, s: u32) -> &[u32] {
        let (a, n) = self.steps[s as usize].children_at;
        &self.children[a as usize..(a + n) as usize]
    }
    /// GPU type names of the `runtime_s.<type>` columns.
    pub fn type_names(&self) -> &[String] {
        &self.type_names
    }
    /// Step `s`'s run time on type column `t`, µs (its `runtime` when the
    /// column is empty).
    pub fn runtime_on(&self, s: u32, t: usize) -> Micros {
        let v = self.type_runtimes[s as usize * self.type_names.len() + t];
        if v == 0 {
            self.steps[s as usize].runtime
        } else {
            v
        }
    }
}

/// The columns every workflow trace has, in the order the writer puts
/// them.
pub const REQUIRED: [&str; 10] = [
    "workflow",
    "tenant",
    "submit_s",
    "step",
    "parents",
    "runtime_s",
    "gpus",
    "cpus",
    "cache_key",
    "output_bytes",
];

/// The optional columns (besides `runtime_s.<type>`), in the writer's
/// order.
pub const OPTIONAL: [&str; 3] = ["deadline_s", "failure_p", "parallel"];

/// Prefix of a per-type run-time column, `runtime_s.<type>`.
pub const TYPE_RUNTIME_PREFIX: &str = "runtime_s.";

/// Whether the CSV header line `header` is a workflow trace's (it has the
/// columns `workflow` and `step`). `tenantsim validate` tells the kinds
/// of CSV apart with it.
pub fn looks_like_workflow_trace(header: &str) -> bool {
    let names: Vec<&str> = header
        .trim_start_matches('\u{feff}')
        .trim_end_matches(['\r', '\n'])
        .split(',')
        .map(|c| c.trim().trim_matches('"'))
        .collect();
    names.contains(&"workflow") && names.contains(&"step")
}

impl WorkflowTrace {
    /// Read and check the workflow trace CSV at `path` (DESIGN §14.1).
    pub fn read(path: &Path) -> Result<Self> {
        let file = open_input(path, "workflow trace")?;
        let source = path.display().to_string();
        let (rows, lines) = parse_compact(&source, file)?;
        Self::from_rows_at(&source, &rows, Some(&lines))
    }

    /// Parse and check a workflow trace CSV read from `input`; `source`
    /// names it in errors.
    pub fn parse(source: &str, input: impl Read) -> Result<Self> {
        let (rows, lines) = parse_compact(source, input)?;
        Self::from_rows_at(source, &rows, Some(&lines))
    }

    /// Number of steps.
    pub fn n_steps(&self) -> usize {
        self.steps.len()
    }
}

/// The rows of the workflow CSV at `path` and the physical line of each,
/// each row's fields checked (numbers, sizes, `parallel`); the DAG is
/// checked by [`WorkflowTrace::from_rows_at`].
pub fn read_rows(path: &Path) -> Result<(Vec<StepRow>, Vec<u64>)> {
    let file = open_input(path, "workflow trace")?;
    parse_rows(&path.display().to_string(), file)
}

/// [`read_rows`] from any reader; `source` names it in errors.
pub fn parse_rows(source: &str, input: impl Read) -> Result<(Vec<StepRow>, Vec<u64>)> {
    struct Owned {
        rows: Vec<StepRow>,
        lines: Vec<u64>,
    }
    impl RowSink for Owned {
        fn columns(&mut self, _: &[String]) {}
        fn push(&mut self, r: &RowRef<'_>, line: u64) -> Result<()> {
            self.rows.push(r.to_step_row());
            self.lines.push(line);
            Ok(())
        }
    }
    let mut sink = Owned {
        rows: Vec::new(),
        lines: Vec::new(),
    };
    parse_each(source, input, &mut sink)?;
    Ok((sink.rows, sink.lines))
}

/// [`parse_rows`] into [`CompactRows`] (what [`WorkflowTrace::read`]
/// holds while it builds the trace; DESIGN §8.5 "Workflows").
pub fn parse_compact(source: &str, input: impl Read) -> Result<(CompactRows, Vec<u64>)> {
    struct Compact<'s> {
        source: &'s str,
        rows: CompactRows,
        lines: Vec<u64>,
    }
    impl RowSink for Compact<'_> {
        fn columns(&mut self, type_names: &[String]) {
            self.rows = CompactRows::new(type_names.to_vec());
        }
        fn push(&mut self, r: &RowRef<'_>, line: u64) -> Result<()> {
            self.rows.push(r, self.source, line)?;
            self.lines.push(line);
            Ok(())
        }
    }
    let mut sink = Compact {
        source,
        rows: CompactRows::default(),
        lines: Vec::new(),
    };
    parse_each(source, input, &mut sink)?;
    Ok((sink.rows, sink.lines))
}

/// Where [`parse_each`] puts what it reads.
trait RowSink {
    /// The `runtime_s.<type>` columns' type names, in column order
    /// (before any row).
    fn columns(&mut self, type_names: &[String]);
    /// A row, checked field by field, and its physical line.
    fn push(&mut self, r: &RowRef<'_>, line: u64) -> Result<()>;
}

/// Read the workflow CSV from `input` row by row, each row's fields
/// checked (numbers, sizes, `parallel`), into `sink`; `source` names it
/// in errors.
fn parse_each(source: &str, input: impl Read, sink: &mut dyn RowSink) -> Result<()> {
    let (mut reader, headers) = csv_with_header(source, input)?;
    // `runtime_s.<type>` columns are set aside; the others are matched.
    let mut named = csv::StringRecord::new();
    let mut named_index = Vec::new();
    let mut type_columns: Vec<(String, usize)> = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        let h = h.trim_start_matches('\u{feff}');
        match h.strip_prefix(TYPE_RUNTIME_PREFIX) {
            Some(t) => {
                check_type_name(&format!("{source}: line 1: column `{}`", shown(h)), t)?;
                if type_columns.iter().any(|(c, _)| c == t) {
                    return Err(Error::input(format!(
                        "{source}: line 1: column `{}` appears twice",
                        shown(h)
                    )));
                }
                type_columns.push((t.to_string(), i));
            }
            None => {
                named.push_field(h);
                named_index.push(i);
            }
        }
    }
    let col: Vec<Option<usize>> = match_columns(source, &named, &REQUIRED, &OPTIONAL)?
        .into_iter()
        .map(|c| c.map(|k| named_index[k]))
        .collect();
    // A row's per-type cells are numbered by their column in a u16.
    if type_columns.len() > usize::from(u16::MAX) + 1 {
        return Err(Error::input(format!(
            "{source}: line 1: {} `{TYPE_RUNTIME_PREFIX}<type>` columns: expected at most 65536",
            type_columns.len()
        )));
    }
    let names: Vec<String> = type_columns.iter().map(|(t, _)| t.clone()).collect();
    sink.columns(&names);
    let mut types: Vec<(u16, f64)> = Vec::with_capacity(type_columns.len());
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let text = |slot: usize| col[slot].map_or("", |i| record.get(i).unwrap_or(""));
        let number = |slot: usize| {
            let name = REQUIRED
                .iter()
                .chain(&OPTIONAL)
                .nth(slot)
                .copied()
                .unwrap_or("");
            number_field(text(slot), source, line, name)
        };
        types.clear();
        for (k, (t, i)) in type_columns.iter().enumerate() {
            let cell = record.get(*i).unwrap_or("");
            if !cell.is_empty() {
                let name = format!("{TYPE_RUNTIME_PREFIX}{t}");
                // At most 2^16 columns (checked above).
                types.push((k as u16, number_field(cell, source, line, &name)?));
            }
        }
        let row = RowRef {
            workflow: text(0),
            tenant: text(1),
            submit_s: number(2)?,
            step: text(3),
            parents: Parents::Cell(text(4)),
            runtime_s: number(5)?,
            types: Types::Cells(&types, &names),
            gpus: size_field(text(6), source, line, "gpus", u64::from(u32::MAX))? as u32,
            cpus: size_field(text(7), source, line, "cpus", u64::from(u32::MAX))? as u32,
            cache_key: text(8),
            output_bytes: size_field(text(9), source, line, "output_bytes", u64::MAX)?,
            deadline_s: match text(10) {
                "" => None,
                _ => Some(number(10)?),
            },
            failure_p: match text(11) {
                "" => 0.0,
                _ => number(11)?,
            },
            parallel: match text(12) {
                "" | "0" => false,
                "1" => true,
                other => {
                    return Err(Error::input(format!(
                        "{source}: line {line}: field `parallel`: expected 0 or 1, got `{}`",
                        shown(other)
                    )));
                }
            },
        };
        sink.push(&row, line)?;
    }
    Ok(())
}

/// A size (`gpus`, `cpus`, `output_bytes`): a whole number in
/// `0..=max`; the error names the file, line and field.
fn size_field(text: &str, source: &str, line: u64, field: &str, max: u64) -> Result<u64> {
    let what = if text.starts_with('-') && text.len() > 1 {
        "a negative number"
    } else if text.parse::<f64>().is_ok() && text.parse::<u64>().is_err() {
        "not a whole number"
    } else {
        ""
    };
    match text.parse::<u64>() {
        Ok(v) if v <= max => Ok(v),
        Ok(_) => Err(Error::input(format!(
            "{source}: line {line}: field `{field}`: expected a whole number from 0 to {max}, got `{}`",
            shown(text)
        ))),
        Err(_) => Err(Error::input(format!(
            "{source}: line {line}: field `{field}`: expected a whole number >= 0, got `{}`{}",
            shown(text),
            if what.is_empty() {
                String::new()
            } else {
                format!(" ({what})")
            }
        ))),
    }
}

/// Render rows as the workflow CSV (DESIGN §14.1): the required columns,
/// then `deadline_s`, `failure_p` and `parallel` when any row needs them,
/// then a `runtime_s.<type>` column per type in order of first
/// appearance. Numbers are written in Rust's shortest round-trip form, so
/// reading the text back gives the same rows. A step id holding `;` (the
/// parents' separator) cannot be written and is an error.
pub fn rows_to_csv(rows: &[StepRow]) -> Result<String> {
    let has_deadline = rows.iter().any(|r| r.deadline_s.is_some());
    let has_failure = rows.iter().any(|r| r.failure_p != 0.0);
    let has_parallel = rows.iter().any(|r| r.parallel);
    let mut types: Vec<&str> = Vec::new();
    for r in rows {
        for (t, _) in &r.type_runtimes {
            if !types.contains(&t.as_str()) {
                types.push(t);
            }
        }
    }
    let mut out = REQUIRED.join(",");
    for (name, on) in OPTIONAL
        .iter()
        .zip([has_deadline, has_failure, has_parallel])
    {
        if on {
            out.push(',');
            out.push_str(name);
        }
    }
    for t in &types {
        out.push(',');
        out.push_str(&csv_field(&format!("{TYPE_RUNTIME_PREFIX}{t}")));
    }
    out.push('\n');
    for (i, r) in rows.iter().enumerate() {
        if let Some(bad) = std::iter::once(&r.step)
            .chain(&r.parents)
            .find(|s| s.contains(';'))
        {
            return Err(Error::input(format!(
                "row {}: workflow `{}`: step id `{}` contains `;`, the separator of `parents`",
                i + 1,
                shown(&r.workflow),
                shown(bad)
            )));
        }
        let _ = write!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            csv_field(&r.workflow),
            csv_field(&r.tenant),
            r.submit_s,
            csv_field(&r.step),
            csv_field(&r.parents.join(";")),
            r.runtime_s,
            r.gpus,
            r.cpus,
            csv_field(&r.cache_key),
            r.output_bytes
        );
        if has_deadline {
            out.push(',');
            if let Some(d) = r.deadline_s {
                let _ = write!(out, "{d}");
            }
        }
        if has_failure {
            let _ = write!(out, ",{}", r.failure_p);
        }
        if has_parallel {
            out.push_str(if r.parallel { ",1" } else { ",0" });
        }
        for t in &types {
            out.push(',');
            if let Some((_, v)) = r.type_runtimes.iter().find(|(n, _)| n == t) {
                let _ = write!(out, "{v}");
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// Write rows as a workflow CSV at `path`, atomically (temp file, fsync,
/// rename: a reader never sees half a file).
pub fn write_rows(path: &Path, rows: &[StepRow]) -> Result<()> {
    write_atomic(path, rows_to_csv(rows)?.as_bytes())
}

/// Seconds → µs, rounded to the nearest µs and checked: finite, ≥ 0
/// (> 0 when `positive`), at most 1e12 s for a time (`submit_s`) and
/// [`MAX_RUNTIME_S`] for a duration (`positive`: run times, deadlines).
fn seconds(s: f64, at: &str, column: &str, positive: bool) -> Result<Micros> {
    let max = if positive {
        MAX_RUNTIME_S
    } else {
        MAX_SUBMIT_S
    };
    if !s.is_finite() || s < 0.0 || (positive && s == 0.0) || s > max {
        return Err(Error::input(format!(
            "{at}: field `{column}`: expected a finite number of seconds in {}, {max:e}], got {s}",
            if positive { "(0" } else { "[0" }
        )));
    }
    // Exact: s ≤ 1e12 keeps s·1e6 below 2^63.
    Ok((s * 1.0e6).round() as Micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str =
        "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes";

    fn parse(body: &str) -> Result<WorkflowTrace> {
        WorkflowTrace::parse("w.csv", format!("{HEAD}\n{body}").as_bytes())
    }

    fn message(body: &str) -> String {
        parse(body).expect_err("rejected").to_string()
    }

    /// A diamond a → {b, c} → d and a second workflow of one step, rows of
    /// the first split around it: the parse groups them by workflow, keeps
    /// file order within each, and links parents and children both ways.
    #[test]
    fn a_diamond_is_grouped_numbered_and_linked() -> Result<()> {
        let t = parse(
            "w1,t1,0,a,,1,0,2,ka,10\n\
             w1,t1,0,b,a,2,1,0,kb,20\n\
             w2,t2,5,x,,3,0,1,,0\n\
             w1,t1,0,c,a,2,1,0,,0\n\
             w1,t1,0,d,b;c,1.5,0,0,kd,5\n",
        )?;
        assert_eq!(t.workflows().len(), 2);
        assert_eq!(t.workflow_id(0), "w1");
        assert_eq!(t.workflows()[0].steps, 4);
        assert_eq!(t.workflows()[1].first_step, 4);
        assert_eq!(t.workflows()[1].submit, 5_000_000);
        assert_eq!(t.tenants(), ["t1", "t2"]);
        let ids: Vec<&str> = (0..5).map(|s| t.step_id(s)).collect();
        assert_eq!(ids, ["a", "b", "c", "d", "x"]);
        assert_eq!(t.parents_of(3), [1, 2]);
        assert_eq!(t.children_of(0), [1, 2]);
        assert_eq!(t.children_of(1), [3]);
        assert_eq!(t.steps()[3].runtime, 1_500_000);
        assert_eq!(t.steps()[2].cache_key, NO_KEY);
        assert_eq!(t.cache_key(t.steps()[3].cache_key), "kd");
        assert_eq!(t.cache_keys(), 3);
        assert_eq!(t.n_steps(), 5);
        Ok(())
    }

    #[test]
    fn optional_columns_and_type_runtimes_are_read() -> Result<()> {
        let t = WorkflowTrace::parse(
            "w.csv",
            format!(
                "{HEAD},deadline_s,failure_p,parallel,runtime_s.v100\n\
                 w,t,0,a,,10,1,1,k,1,100,0.25,1,4\n\
                 w,t,0,b,a,10,1,1,k2,1,100,,0,\n"
            )
            .as_bytes(),
        )?;
        assert_eq!(t.workflows()[0].deadline, Some(100_000_000));
        assert_eq!(t.steps()[0].failure_p, 0.25);
        assert!(t.steps()[0].parallel && !t.steps()[1].parallel);
        assert_eq!(t.steps()[1].failure_p, 0.0);
        assert_eq!(t.type_names(), ["v100"]);
        assert_eq!(t.runtime_on(0, 0), 4_000_000);
        assert_eq!(t.runtime_on(1, 0), 10_000_000, "empty cell: runtime_s");
        Ok(())
    }

    #[test]
    fn a_cycle_is_an_error_listing_its_steps() {
        // a is a root; b → c → d → b is the cycle; e hangs below it.
        let m = message(
            "w,t,0,a,,1,0,1,,0\n\
             w,t,0,b,a;d,1,0,1,,0\n\
             w,t,0,c,b,1,0,1,,0\n\
             w,t,0,d,c,1,0,1,,0\n\
             w,t,0,e,d,1,0,1,,0\n",
        );
        assert_eq!(
            m,
            "w.csv: line 3: field `parents`: workflow `w` has a cycle: `b` → `c` → `d` → `b`"
        );
        let m = message("w,t,0,s,s,1,0,1,,0\n");
        assert_eq!(
            m,
            "w.csv: line 2: field `parents`: workflow `w` has a cycle: `s` → `s`"
        );
    }

    #[test]
    fn an_unknown_parent_and_a_duplicate_step_are_errors() {
        assert_eq!(
            message("w,t,0,a,,1,0,1,,0\nw,t,0,b,z,1,0,1,,0\n"),
            "w.csv: line 3: field `parents`: step `b` names an unknown parent `z`: workflow `w` has no such step"
        );
        // A step of another workflow is no parent.
        assert!(message("v,t,0,z,,1,0,1,,0\nw,t,0,b,z,1,0,1,,0\n").contains("unknown parent `z`"));
        assert_eq!(
            message("w,t,0,a,,1,0,1,,0\nv,t,0,a,,1,0,1,,0\n\nw,t,0,a,,1,0,1,,0\n"),
            "w.csv: line 5: field `step`: workflow `w` has step `a` twice (first on line 2)"
        );
    }

    #[test]
    fn sizes_must_be_whole_numbers_at_least_zero() {
        assert_eq!(
            message("w,t,0,a,,1,0,1,,-5\n"),
            "w.csv: line 2: field `output_bytes`: expected a whole number >= 0, got `-5` (a negative number)"
        );
        assert_eq!(
            message("w,t,0,a,,1,1.5,1,,0\n"),
            "w.csv: line 2: field `gpus`: expected a whole number >= 0, got `1.5` (not a whole number)"
        );
        assert_eq!(
            message("w,t,0,a,,1,0,x,,0\n"),
            "w.csv: line 2: field `cpus`: expected a whole number >= 0, got `x`"
        );
        assert!(message("w,t,0,a,,1,4294967296,1,,0\n").contains("from 0 to 4294967295"));
    }

    #[test]
    fn bad_numbers_and_out_of_range_values_name_their_field() {
        assert_eq!(
            message("w,t,0,a,,fast,0,1,,0\n"),
            "w.csv: line 2: field `runtime_s`: expected a number, got `fast`"
        );
        assert!(message("w,t,0,a,,0,0,1,,0\n").starts_with(
            "w.csv: line 2: field `runtime_s`: expected a finite number of seconds in (0, 1e9]"
        ));
        assert!(message("w,t,-1,a,,1,0,1,,0\n").starts_with("w.csv: line 2: field `submit_s`"));
        let with = |extra: &str, row: &str| {
            WorkflowTrace::parse("w.csv", format!("{HEAD},{extra}\n{row}\n").as_bytes())
                .expect_err("rejected")
                .to_string()
        };
        assert_eq!(
            with("failure_p", "w,t,0,a,,1,0,1,,0,1"),
            "w.csv: line 2: field `failure_p`: expected a probability in [0, 1), got 1"
        );
        assert!(with("failure_p", "w,t,0,a,,1,0,1,,0,-0.1").contains("got -0.1"));
        assert_eq!(
            with("parallel", "w,t,0,a,,1,0,1,,0,yes"),
            "w.csv: line 2: field `parallel`: expected 0 or 1, got `yes`"
        );
        assert!(with("deadline_s", "w,t,0,a,,1,0,1,,0,0").contains("field `deadline_s`"));
        assert!(with("runtime_s.v100", "w,t,0,a,,1,0,1,,0,-2").contains("field `runtime_s.v100`"));
    }

    #[test]
    fn tenant_submit_and_deadline_must_agree_within_a_workflow() {
        assert_eq!(
            message("w,t,0,a,,1,0,1,,0\nw,u,0,b,,1,0,1,,0\n"),
            "w.csv: line 3: field `tenant`: workflow `w`: expected the same tenant on every row of a workflow, as on line 2"
        );
        assert!(message("w,t,0,a,,1,0,1,,0\nw,t,1,b,,1,0,1,,0\n").contains("field `submit_s`"));
        let m = WorkflowTrace::parse(
            "w.csv",
            format!("{HEAD},deadline_s\nw,t,0,a,,1,0,1,,0,5\nw,t,0,b,,1,0,1,,0,\n").as_bytes(),
        )
        .expect_err("rejected")
        .to_string();
        assert!(m.contains("line 3: field `deadline_s`"), "{m}");
    }

    #[test]
    fn empty_ids_are_errors_naming_their_field() {
        assert_eq!(
            message(",t,0,a,,1,0,1,,0\n"),
            "w.csv: line 2: field `workflow`: expected a non-empty workflow id"
        );
        assert_eq!(
            message("w,,0,a,,1,0,1,,0\n"),
            "w.csv: line 2: field `tenant`: expected a non-empty tenant id"
        );
        assert_eq!(
            message("w,t,0,,,1,0,1,,0\n"),
            "w.csv: line 2: field `step`: expected a non-empty step id"
        );
    }

    #[test]
    fn header_errors_name_the_column() {
        let e = WorkflowTrace::parse("w.csv", format!("{HEAD},colour\n").as_bytes())
            .expect_err("unknown column")
            .to_string();
        assert!(
            e.starts_with("w.csv: line 1: unknown column `colour`"),
            "{e}"
        );
        let e = WorkflowTrace::parse("w.csv", "workflow,tenant\n".as_bytes())
            .expect_err("missing")
            .to_string();
        assert!(e.contains("missing column `submit_s`"), "{e}");
        assert!(message("").contains("has no rows"));
        assert!(looks_like_workflow_trace(HEAD));
        assert!(!looks_like_workflow_trace(
            "job_id,user,submit_s,duration_s,gpus"
        ));
    }

    /// Rows → CSV → rows is the identity (the writer's numbers are Rust's
    /// shortest round-trip form), and the optional columns appear only
    /// when a row needs them.
    #[test]
    fn rows_round_trip_through_the_writer() -> Result<()> {
        let rows = vec![
            StepRow {
                workflow: "w,1".into(),
                tenant: "t".into(),
                submit_s: 0.1 + 0.2,
                step: "a".into(),
                parents: vec![],
                runtime_s: 1e-6,
                type_runtimes: vec![("v100".into(), 0.5)],
                gpus: 2,
                cpus: 3,
                cache_key: "k\"q".into(),
                output_bytes: u64::MAX,
                deadline_s: Some(7.25),
                failure_p: 0.0,
                parallel: true,
            },
            StepRow {
                workflow: "w,1".into(),
                tenant: "t".into(),
                submit_s: 0.1 + 0.2,
                step: "b".into(),
                parents: vec!["a".into()],
                runtime_s: 123_456.789,
                type_runtimes: vec![],
                gpus: 0,
                cpus: 1,
                cache_key: String::new(),
                output_bytes: 0,
                deadline_s: Some(7.25),
                failure_p: 0.125,
                parallel: false,
            },
        ];
        let text = rows_to_csv(&rows)?;
        assert!(text.starts_with(&format!(
            "{HEAD},deadline_s,failure_p,parallel,runtime_s.v100\n"
        )));
        let (back, lines) = parse_rows("w.csv", text.as_bytes())?;
        assert_eq!(back, rows);
        assert_eq!(lines, [2, 3]);
        let plain = vec![StepRow {
            deadline_s: None,
            failure_p: 0.0,
            parallel: false,
            type_runtimes: vec![],
            ..rows[1].clone()
        }];
        let text = rows_to_csv(&plain)?;
        assert_eq!(text.lines().next(), Some(HEAD));
        let bad = vec![StepRow {
            step: "a;b".into(),
            ..rows[0].clone()
        }];
        assert!(rows_to_csv(&bad).is_err());
        Ok(())
    }
}
