//! The workflow trace (DESIGN §14.1): one row per step of a DAG.
//!
//! [`StepRow`] is one CSV row as importers and generators produce it;
//! [`WorkflowTrace::from_rows`] groups, numbers and checks them (every
//! parent known, no cycle, sizes valid) into the form the simulator
//! reads: workflows in order of first appearance, each one's steps
//! contiguous and in row order, parents and children as flat index
//! lists.

use std::collections::HashMap;
use std::path::Path;

use crate::core::error::{Error, Result};
use crate::core::sim::time::Micros;

/// No cache key: the step is never cached.
pub const NO_KEY: u32 = u32::MAX;

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
    /// Its children, likewise in [`WorkflowTrace::children_of`].
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
        let at = |i: usize| format!("{source}: line {}", i + 2);
        let mut wf_index: HashMap<&str, u32> = HashMap::new();
        let mut wf_rows: Vec<Vec<usize>> = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            let next = wf_rows.len() as u32;
            let w = *wf_index.entry(r.workflow.as_str()).or_insert(next);
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
        for r in rows {
            for (name, _) in &r.type_runtimes {
                if !type_index.contains_key(name.as_str()) {
                    type_index.insert(name, t.type_names.len());
                    t.type_names.push(name.clone());
                }
            }
        }
        let n_types = t.type_names.len();
        for (w, idx) in wf_rows.iter().enumerate() {
            let first = &rows[idx[0]];
            let next = t.tenants.len() as u32;
            let tenant = *tenant_index.entry(first.tenant.as_str()).or_insert(next);
            if tenant == next {
                t.tenants.push(first.tenant.clone());
            }
            let submit = seconds(first.submit_s, &at(idx[0]), "submit_s", false)?;
            let deadline = first
                .deadline_s
                .map(|d| seconds(d, &at(idx[0]), "deadline_s", true))
                .transpose()?;
            let first_step = t.steps.len() as u32;
            let mut step_index: HashMap<&str, u32> = HashMap::new();
            for (k, &i) in idx.iter().enumerate() {
                let r = &rows[i];
                if r.tenant != first.tenant
                    || r.submit_s != first.submit_s
                    || r.deadline_s != first.deadline_s
                {
                    return Err(Error::input(format!(
                        "{}: workflow `{}`: tenant, submit_s and deadline_s must be the same on every row of a workflow (they differ from line {})",
                        at(i),
                        r.workflow,
                        idx[0] + 2
                    )));
                }
                if step_index
                    .insert(r.step.as_str(), first_step + k as u32)
                    .is_some()
                {
                    return Err(Error::input(format!(
                        "{}: workflow `{}`: step `{}` appears twice",
                        at(i),
                        r.workflow,
                        r.step
                    )));
                }
            }
            for &i in idx {
                let r = &rows[i];
                if !(0.0..1.0).contains(&r.failure_p) {
                    return Err(Error::input(format!(
                        "{}: failure_p: expected a probability in [0, 1), got {}",
                        at(i),
                        r.failure_p
                    )));
                }
                let runtime = seconds(r.runtime_s, &at(i), "runtime_s", true)?.max(1);
                let p0 = t.parents.len() as u32;
                for p in &r.parents {
                    let Some(&g) = step_index.get(p.as_str()) else {
                        return Err(Error::input(format!(
                            "{}: parents: workflow `{}` has no step `{p}` (step `{}`)",
                            at(i),
                            r.workflow,
                            r.step
                        )));
                    };
                    t.parents.push(g);
                }
                let cache_key = if r.cache_key.is_empty() {
                    NO_KEY
                } else {
                    let next = t.cache_keys.len() as u32;
                    let k = *key_index.entry(r.cache_key.as_str()).or_insert(next);
                    if k == next {
                        t.cache_keys.push(r.cache_key.clone());
                    }
                    k
                };
                let base = t.type_runtimes.len();
                t.type_runtimes.resize(base + n_types, 0);
                for (name, s) in &r.type_runtimes {
                    let v = seconds(*s, &at(i), &format!("runtime_s.{name}"), true)?.max(1);
                    t.type_runtimes[base + type_index[name.as_str()]] = v;
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
                t.step_ids.push(r.step.clone());
            }
            t.workflows.push(WorkflowSpec {
                tenant,
                submit,
                deadline,
                first_step,
                steps: idx.len() as u32,
            });
            t.workflow_ids.push(first.workflow.clone());
            t.check_acyclic(w, idx)?;
        }
        t.link_children();
        Ok(t)
    }

    /// Kahn's algorithm on workflow `w`: every step is reached from the
    /// roots, else the steps left form at least one cycle.
    fn check_acyclic(&self, w: usize, idx: &[usize]) -> Result<()> {
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
        let in_cycle: Vec<&str> = (0..n)
            .filter(|&k| indegree[k] > 0)
            .map(|k| self.step_ids[first + k].as_str())
            .collect();
        let line = (0..n).find(|&k| indegree[k] > 0).map_or(0, |k| idx[k] + 2);
        Err(Error::input(format!(
            "{}: line {line}: parents: workflow `{}` has a cycle among steps {}",
            self.source,
            self.workflow_ids[w],
            in_cycle.join(", ")
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

/// Seconds → µs, checked (finite, ≥ 0; > 0 when `positive`).
fn seconds(s: f64, at: &str, column: &str, positive: bool) -> Result<Micros> {
    if !s.is_finite() || s < 0.0 || (positive && s == 0.0) || s > 1.0e12 {
        return Err(Error::input(format!(
            "{at}: {column}: expected a finite number of seconds in {}, 1e12], got {s}",
            if positive { "(0" } else { "[0" }
        )));
    }
    // Not `secs_to_micros`: 0 is a valid submit time and stays 0.
    Ok((s * 1.0e6).round() as Micros)
}

impl WorkflowTrace {
    /// Read and check the workflow CSV at `path` (DESIGN §14.1).
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = crate::core::io::read_input(path, "workflow trace")?;
        Self::parse(&path.display().to_string(), &bytes)
    }

    /// Parse the workflow CSV `bytes`; `source` names it in errors (row
    /// `i` of the data is line `i + 2`).
    pub fn parse(source: &str, bytes: &[u8]) -> Result<Self> {
        let mut r = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(bytes);
        let header: Vec<String> = r
            .headers()
            .map_err(|e| Error::input(format!("{source}: line 1: {e}")))?
            .iter()
            .map(str::to_string)
            .collect();
        const KNOWN: [&str; 13] = [
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
            "deadline_s",
            "failure_p",
            "parallel",
        ];
        for h in &header {
            if !KNOWN.contains(&h.as_str()) && !h.starts_with("runtime_s.") {
                return Err(Error::input(format!(
                    "{source}: line 1: unknown column `{h}`: expected {} or runtime_s.<type>",
                    KNOWN.join(", ")
                )));
            }
        }
        let col = |name: &str| header.iter().position(|h| h == name);
        for need in &KNOWN[..10] {
            if col(need).is_none() {
                return Err(Error::input(format!(
                    "{source}: line 1: missing column `{need}` (a workflow trace has {})",
                    KNOWN[..10].join(", ")
                )));
            }
        }
        let typed: Vec<(usize, String)> = header
            .iter()
            .enumerate()
            .filter_map(|(i, h)| h.strip_prefix("runtime_s.").map(|t| (i, t.to_string())))
            .collect();
        let mut rows = Vec::new();
        for (n, rec) in r.records().enumerate() {
            let line = n + 2;
            let rec = rec.map_err(|e| Error::input(format!("{source}: line {line}: {e}")))?;
            let get = |name: &str| col(name).and_then(|i| rec.get(i)).unwrap_or("");
            let num = |name: &str| -> Result<f64> {
                get(name).parse::<f64>().map_err(|_| {
                    Error::input(format!(
                        "{source}: line {line}: {name}: expected a number, got `{}`",
                        get(name)
                    ))
                })
            };
            let int = |name: &str| -> Result<u64> {
                let v = get(name);
                if v.is_empty() && (name == "gpus" || name == "cpus") {
                    return Ok(0);
                }
                v.parse::<u64>().map_err(|_| {
                    Error::input(format!(
                        "{source}: line {line}: {name}: expected an integer ≥ 0, got `{v}`"
                    ))
                })
            };
            let small = |name: &str| -> Result<u32> {
                u32::try_from(int(name)?)
                    .map_err(|_| Error::input(format!("{source}: line {line}: {name}: too large")))
            };
            let opt = |name: &str| -> Result<Option<f64>> {
                if get(name).is_empty() {
                    Ok(None)
                } else {
                    num(name).map(Some)
                }
            };
            let mut type_runtimes = Vec::new();
            for (i, t) in &typed {
                let v = rec.get(*i).unwrap_or("");
                if !v.is_empty() {
                    let s = v.parse::<f64>().map_err(|_| {
                        Error::input(format!(
                            "{source}: line {line}: runtime_s.{t}: expected a number, got `{v}`"
                        ))
                    })?;
                    type_runtimes.push((t.clone(), s));
                }
            }
            let parallel = match get("parallel") {
                "" | "0" => false,
                "1" => true,
                v => {
                    return Err(Error::input(format!(
                        "{source}: line {line}: parallel: expected 0 or 1, got `{v}`"
                    )));
                }
            };
            rows.push(StepRow {
                workflow: get("workflow").to_string(),
                tenant: get("tenant").to_string(),
                submit_s: num("submit_s")?,
                step: get("step").to_string(),
                parents: get("parents")
                    .split(';')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect(),
                runtime_s: num("runtime_s")?,
                type_runtimes,
                gpus: small("gpus")?,
                cpus: small("cpus")?,
                cache_key: get("cache_key").to_string(),
                output_bytes: int("output_bytes")?,
                deadline_s: opt("deadline_s")?,
                failure_p: opt("failure_p")?.unwrap_or(0.0),
                parallel,
            });
        }
        if rows.is_empty() {
            return Err(Error::input(format!(
                "{source}: expected at least one step row, found none"
            )));
        }
        Self::from_rows(source, &rows)
    }
}
