//! `tenantsim import-workflows wfformat` (DESIGN §14.1): WfFormat
//! (WfCommons) instances to the workflow CSV.
//!
//! An instance is one recorded execution of a workflow. Each task becomes
//! one step ([`StepRow`]):
//!
//! - `step` = the task's `id`, `parents` = its recorded `parents`, in the
//!   instance's order;
//! - `runtime_s` = its `runtimeInSeconds`, raised to 1 µs
//!   ([`RUNTIME_FLOOR_S`]) where the instance records 0 (Nextflow rounds
//!   short tasks to 0 s); the report counts them;
//! - `cpus` = its `coreCount` (at least 1) when recorded, else
//!   ⌈`avgCPU` / 100⌉ (at least 1; `avgCPU` is a percentage of one core),
//!   else 1; `gpus` = 0 (the instances ran on CPUs);
//! - `output_bytes` = Σ `sizeInBytes` over its output files;
//! - `cache_key` = FNV-1a 64 ([`fnv1a64`]) in 16 lower-case hex digits of
//!   the bytes `template 0x00 program 0x00 arg₁ 0x1f arg₂ … 0x00 in₁ 0x1f
//!   in₂ …`: the task's name template (its `name` with a trailing
//!   `_<digits>` or `_ID<digits>` removed), its command's program and
//!   arguments (empty when not recorded), and the ids of its input files,
//!   sorted bytewise and deduplicated. The same step on the same inputs
//!   with the same parameters gets the same key, in any instance; tasks of
//!   one template on the same files but other arguments (Pegasus'
//!   `individuals` of 1000genome, `fasterq-dump` of srasearch: 0–95 per
//!   instance) do not share a key.
//!
//! Versions: 1.5 (and 1.6, which only adds optional fields) keep the DAG
//! in `workflow.specification` (`tasks[]`: `id`, `name`, `parents`,
//! `inputFiles`, `outputFiles`; `files[]`: `id`, `sizeInBytes`) and the
//! measurements in `workflow.execution.tasks[]` (by `id`:
//! `runtimeInSeconds`, `coreCount`, `avgCPU`, `command`). 1.4 has one
//! `workflow.tasks[]` with `name`, optional `id`, `parents` naming tasks
//! by name (or id), `files[]` with `link` (`input`/`output`), `name` and
//! `sizeInBytes`, and `runtimeInSeconds`, `cores`, `avgCPU`, `command`;
//! there `step` is the `id`, else the `name`. Any other `schemaVersion`
//! is an error naming it.
//!
//! Submission ([`WfOptions`]): an instance is submitted `copies` times;
//! the workflows are ordered copy by copy (copy 1 of every input in
//! argument order, then copy 2, …); workflow k (from 0) draws, from the
//! stream `rng::stream(seed, WFFORMAT_STREAM, Purpose::Generator)`, first
//! u (when `rate` is given) then its tenant `t<below(tenants)>` (when
//! `tenants > 1`, else `t0`). Its submit time is t_k = t_{k−1} − ln(1 −
//! u) / rate (t_{−1} = 0: a Poisson process of `rate` workflows per
//! second), rounded to the µs; without `rate` every workflow is submitted
//! at 0. Workflow ids are the input's file stem, with `#<copy>` (from 1)
//! appended when `copies > 1`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::footprint::import_estimate;
use super::trace::{StepRow, WorkflowTrace, write_rows};
use crate::core::error::{Error, Result};
use crate::core::io::echo::shown;
use crate::core::io::open_input;
use crate::core::memory::{Estimate, MemoryBudget, check, string_heap};
use crate::core::sim::rng::{Purpose, below, stream, unit};
use crate::core::sim::time::{MAX_RUNTIME_S, RUNTIME_FLOOR_S};

/// The stream index ("WFIM") of the importer's draws.
pub const WFFORMAT_STREAM: u64 = 0x5746_494d;

/// Largest accepted input file, bytes (a WfInstances file is at most a
/// few MB).
pub const MAX_INSTANCE_BYTES: u64 = 512 << 20;

/// How the instances are submitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WfOptions {
    /// Number of tenants (≥ 1).
    pub tenants: u32,
    /// Workflows per second (a Poisson process); `None`: all at 0.
    pub rate: Option<f64>,
    /// Submissions of each instance (≥ 1).
    pub copies: u32,
    /// Seed of the draws.
    pub seed: u64,
}

impl Default for WfOptions {
    fn default() -> Self {
        Self {
            tenants: 1,
            rate: None,
            copies: 1,
            seed: 0,
        }
    }
}

/// One task of an instance, as read (before submission).
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Step id.
    pub id: String,
    /// Parent step ids.
    pub parents: Vec<String>,
    /// Recorded run time, s (may be 0).
    pub runtime_s: f64,
    /// CPUs (see the module documentation).
    pub cpus: u32,
    /// Σ output file sizes.
    pub output_bytes: u64,
    /// The memo key.
    pub cache_key: String,
}

/// One instance file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Its file stem (the workflow id).
    pub name: String,
    /// `schemaVersion`.
    pub version: String,
    /// Its tasks, in the file's order.
    pub tasks: Vec<Task>,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WfImportReport {
    /// Instances read.
    pub instances: usize,
    /// Workflows written (instances × copies).
    pub workflows: usize,
    /// Steps written.
    pub steps: usize,
    /// Steps whose recorded run time of 0 was raised to 1 µs.
    pub raised: usize,
    /// Distinct cache keys.
    pub keys: usize,
    /// Tenants used.
    pub tenants: u32,
}

impl std::fmt::Display for WfImportReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} instance(s) → {} workflow(s), {} steps, {} distinct cache keys, {} tenant(s); {} recorded run time(s) of 0 raised to 1 µs",
            self.instances, self.workflows, self.steps, self.keys, self.tenants, self.raised
        )
    }
}

/// FNV-1a, 64 bits (Fowler, Noll, Vo): h₀ = 0xcbf29ce484222325, then for
/// each byte b: h = (h xor b) · 0x100000001b3 mod 2⁶⁴. Stable across
/// runs, builds and platforms (never std's randomised hasher).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A task name's template: `name` without a trailing `_<digits>` or
/// `_ID<digits>` (`blastall_ID000002` → `blastall`,
/// `cpuhog_forkjoin_00000001` → `cpuhog_forkjoin`; a name without such a
/// suffix is its own template).
pub fn template(name: &str) -> &str {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return name;
    }
    let head = &name[..name.len() - digits];
    head.strip_suffix("_ID")
        .or_else(|| head.strip_suffix('_'))
        .unwrap_or(name)
}

/// The cache key of a task (module documentation): 16 hex digits.
pub fn cache_key(template: &str, program: &str, arguments: &[&str], inputs: &[&str]) -> String {
    let mut sorted: Vec<&str> = inputs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut bytes = Vec::with_capacity(64);
    bytes.extend_from_slice(template.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(program.as_bytes());
    bytes.push(0);
    for (k, a) in arguments.iter().enumerate() {
        if k > 0 {
            bytes.push(0x1f);
        }
        bytes.extend_from_slice(a.as_bytes());
    }
    bytes.push(0);
    for (k, f) in sorted.iter().enumerate() {
        if k > 0 {
            bytes.push(0x1f);
        }
        bytes.extend_from_slice(f.as_bytes());
    }
    format!("{:016x}", fnv1a64(&bytes))
}

/// Read one instance file.
pub fn read_instance(path: &Path) -> Result<Instance> {
    let source = path.display().to_string();
    let file = open_input(path, "WfFormat instance")?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, MAX_INSTANCE_BYTES + 1),
        &mut text,
    )
    .map_err(|e| Error::input(format!("{source}: cannot read it as UTF-8 text: {e}")))?;
    if text.len() as u64 > MAX_INSTANCE_BYTES {
        return Err(Error::input(format!(
            "{source}: larger than {} MiB, the limit of a WfFormat instance",
            MAX_INSTANCE_BYTES >> 20
        )));
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    parse_instance(&source, &name, &text)
}

/// Parse one instance's JSON text; `source` names it in errors, `name`
/// is its workflow id.
pub fn parse_instance(source: &str, name: &str, text: &str) -> Result<Instance> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Error::input(format!(
            "{source}: line {}, column {}: not valid JSON: {}",
            e.line(),
            e.column(),
            shown(&e.to_string())
        ))
    })?;
    let at = Ctx { source };
    let version = match doc.get("schemaVersion") {
        Some(Value::String(v)) => v.clone(),
        Some(other) => {
            return Err(at.err("schemaVersion", &format!("expected a string, got {other}")));
        }
        None => {
            return Err(at.err(
                "schemaVersion",
                "missing: expected a WfFormat instance (schemaVersion 1.4, 1.5 or 1.6)",
            ));
        }
    };
    let tasks = match version.as_str() {
        "1.5" | "1.6" => tasks_15(&at, &doc)?,
        "1.4" => tasks_14(&at, &doc)?,
        other => {
            return Err(at.err(
                "schemaVersion",
                &format!(
                    "version `{}` is not supported: expected 1.4, 1.5 or 1.6 (WfCommons' wfcommons-migrate-instance.py converts older instances)",
                    shown(other)
                ),
            ));
        }
    };
    if tasks.is_empty() {
        return Err(at.err("workflow", "the instance has no tasks"));
    }
    check_dag(&at, &version, &tasks)?;
    Ok(Instance {
        name: name.to_string(),
        version,
        tasks,
    })
}

struct Ctx<'a> {
    source: &'a str,
}

impl Ctx<'_> {
    fn err(&self, path: &str, what: &str) -> Error {
        Error::input(format!("{}: {path}: {what}", self.source))
    }

    fn field<'v>(&self, v: &'v Value, path: &str, key: &str) -> Result<&'v Value> {
        v.get(key)
            .ok_or_else(|| self.err(&format!("{path}.{key}"), "missing"))
    }

    fn array<'v>(&self, v: &'v Value, path: &str, key: &str) -> Result<&'v [Value]> {
        match self.field(v, path, key)? {
            Value::Array(a) => Ok(a),
            other => Err(self.err(
                &format!("{path}.{key}"),
                &format!("expected an array, got {}", kind(other)),
            )),
        }
    }

    /// An optional array of strings (absent: empty).
    fn strings<'v>(&self, v: &'v Value, path: &str, key: &str) -> Result<Vec<&'v str>> {
        let Some(a) = v.get(key) else {
            return Ok(Vec::new());
        };
        let Value::Array(a) = a else {
            return Err(self.err(
                &format!("{path}.{key}"),
                &format!("expected an array of strings, got {}", kind(a)),
            ));
        };
        a.iter()
            .enumerate()
            .map(|(k, x)| {
                x.as_str().ok_or_else(|| {
                    self.err(
                        &format!("{path}.{key}[{k}]"),
                        &format!("expected a string, got {}", kind(x)),
                    )
                })
            })
            .collect()
    }

    fn string<'v>(&self, v: &'v Value, path: &str, key: &str) -> Result<&'v str> {
        match self.field(v, path, key)? {
            Value::String(s) if !s.is_empty() => Ok(s),
            other => Err(self.err(
                &format!("{path}.{key}"),
                &format!("expected a non-empty string, got {}", kind(other)),
            )),
        }
    }

    /// A number ≥ 0 (`None` when absent and not `required`).
    fn number(&self, v: &Value, path: &str, key: &str, required: bool) -> Result<Option<f64>> {
        match v.get(key) {
            None if !required => Ok(None),
            None => Err(self.err(&format!("{path}.{key}"), "missing")),
            Some(x) => match x.as_f64() {
                Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
                _ => Err(self.err(
                    &format!("{path}.{key}"),
                    &format!("expected a number >= 0, got {}", shown(&x.to_string())),
                )),
            },
        }
    }

    fn size(&self, v: &Value, path: &str, key: &str) -> Result<u64> {
        let x = self.field(v, path, key)?;
        x.as_u64().ok_or_else(|| {
            self.err(
                &format!("{path}.{key}"),
                &format!(
                    "expected a whole number of bytes >= 0, got {}",
                    shown(&x.to_string())
                ),
            )
        })
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The measured fields of a task (1.5 execution entry or 1.4 task).
struct Measured<'v> {
    runtime_s: f64,
    cpus: u32,
    program: &'v str,
    arguments: Vec<&'v str>,
}

fn measured<'v>(at: &Ctx<'_>, e: &'v Value, path: &str, cores_key: &str) -> Result<Measured<'v>> {
    let runtime_s = at.number(e, path, "runtimeInSeconds", true)?.unwrap_or(0.0);
    if runtime_s > MAX_RUNTIME_S {
        return Err(at.err(
            &format!("{path}.runtimeInSeconds"),
            &format!("expected at most {MAX_RUNTIME_S:e} s, got {runtime_s}"),
        ));
    }
    let cpus = match (e.get(cores_key), at.number(e, path, "avgCPU", false)?) {
        (Some(c), _) => match c.as_u64() {
            Some(c) => c.clamp(1, u64::from(u32::MAX)) as u32,
            None => {
                return Err(at.err(
                    &format!("{path}.{cores_key}"),
                    &format!(
                        "expected a whole number of cores, got {}",
                        shown(&c.to_string())
                    ),
                ));
            }
        },
        (None, Some(avg)) => ((avg / 100.0).ceil().clamp(1.0, f64::from(u32::MAX))) as u32,
        (None, None) => 1,
    };
    let (program, arguments) = match e.get("command") {
        None | Some(Value::Null) => ("", Vec::new()),
        Some(c) => {
            let p = format!("{path}.command");
            let program = match c.get("program") {
                None => "",
                Some(Value::String(s)) => s.as_str(),
                Some(other) => {
                    return Err(at.err(
                        &format!("{p}.program"),
                        &format!("expected a string, got {}", kind(other)),
                    ));
                }
            };
            (program, at.strings(c, &p, "arguments")?)
        }
    };
    Ok(Measured {
        runtime_s,
        cpus,
        program,
        arguments,
    })
}

fn tasks_15(at: &Ctx<'_>, doc: &Value) -> Result<Vec<Task>> {
    let wf = at.field(doc, "", "workflow")?;
    let spec = at.field(wf, "workflow", "specification")?;
    let exec = at.field(wf, "workflow", "execution")?;
    let spec_tasks = at.array(spec, "workflow.specification", "tasks")?;
    let mut sizes: HashMap<&str, u64> = HashMap::new();
    if let Some(files) = spec.get("files") {
        let Value::Array(files) = files else {
            return Err(at.err("workflow.specification.files", "expected an array"));
        };
        for (k, f) in files.iter().enumerate() {
            let p = format!("workflow.specification.files[{k}]");
            sizes.insert(at.string(f, &p, "id")?, at.size(f, &p, "sizeInBytes")?);
        }
    }
    let mut by_id: HashMap<&str, (usize, &Value)> = HashMap::new();
    for (k, e) in at
        .array(exec, "workflow.execution", "tasks")?
        .iter()
        .enumerate()
    {
        let id = at.string(e, &format!("workflow.execution.tasks[{k}]"), "id")?;
        by_id.insert(id, (k, e));
    }
    let mut tasks = Vec::with_capacity(spec_tasks.len());
    for (k, t) in spec_tasks.iter().enumerate() {
        let p = format!("workflow.specification.tasks[{k}]");
        let id = at.string(t, &p, "id")?;
        let name = t.get("name").and_then(Value::as_str).unwrap_or(id);
        let Some(&(ek, e)) = by_id.get(id) else {
            return Err(at.err(
                &p,
                &format!(
                    "task `{}` has no entry in workflow.execution.tasks (its run time)",
                    shown(id)
                ),
            ));
        };
        let m = measured(
            at,
            e,
            &format!("workflow.execution.tasks[{ek}]"),
            "coreCount",
        )?;
        let inputs = at.strings(t, &p, "inputFiles")?;
        let mut output_bytes = 0u64;
        for (j, f) in at.strings(t, &p, "outputFiles")?.into_iter().enumerate() {
            let Some(&b) = sizes.get(f) else {
                return Err(at.err(
                    &format!("{p}.outputFiles[{j}]"),
                    &format!("file `{}` is not in workflow.specification.files", shown(f)),
                ));
            };
            output_bytes = output_bytes.saturating_add(b);
        }
        tasks.push(Task {
            id: id.to_string(),
            parents: at
                .strings(t, &p, "parents")?
                .into_iter()
                .map(str::to_string)
                .collect(),
            runtime_s: m.runtime_s,
            cpus: m.cpus,
            output_bytes,
            cache_key: cache_key(template(name), m.program, &m.arguments, &inputs),
        });
    }
    Ok(tasks)
}

fn tasks_14(at: &Ctx<'_>, doc: &Value) -> Result<Vec<Task>> {
    let wf = at.field(doc, "", "workflow")?;
    let list = at.array(wf, "workflow", "tasks")?;
    // Parents name tasks by name (or id): both map to the step id.
    let mut step_of: HashMap<&str, &str> = HashMap::new();
    for (k, t) in list.iter().enumerate() {
        let p = format!("workflow.tasks[{k}]");
        let name = at.string(t, &p, "name")?;
        let id = t.get("id").and_then(Value::as_str).unwrap_or(name);
        step_of.entry(name).or_insert(id);
        step_of.entry(id).or_insert(id);
    }
    let mut tasks = Vec::with_capacity(list.len());
    for (k, t) in list.iter().enumerate() {
        let p = format!("workflow.tasks[{k}]");
        let name = at.string(t, &p, "name")?;
        let id = t.get("id").and_then(Value::as_str).unwrap_or(name);
        let m = measured(at, t, &p, "cores")?;
        let mut inputs = Vec::new();
        let mut output_bytes = 0u64;
        if let Some(files) = t.get("files") {
            let Value::Array(files) = files else {
                return Err(at.err(&format!("{p}.files"), "expected an array"));
            };
            for (j, f) in files.iter().enumerate() {
                let fp = format!("{p}.files[{j}]");
                let file = at.string(f, &fp, "name")?;
                let link = at.string(f, &fp, "link")?;
                match link.to_ascii_lowercase().as_str() {
                    "input" => inputs.push(file),
                    "output" => {
                        output_bytes =
                            output_bytes.saturating_add(at.size(f, &fp, "sizeInBytes")?);
                    }
                    other => {
                        return Err(at.err(
                            &format!("{fp}.link"),
                            &format!("expected `input` or `output`, got `{}`", shown(other)),
                        ));
                    }
                }
            }
        }
        // An unknown parent is kept as written: `check_dag` names it.
        let parents = at
            .strings(t, &p, "parents")?
            .into_iter()
            .map(|r| step_of.get(r).copied().unwrap_or(r).to_string())
            .collect();
        tasks.push(Task {
            id: id.to_string(),
            parents,
            runtime_s: m.runtime_s,
            cpus: m.cpus,
            output_bytes,
            cache_key: cache_key(template(name), m.program, &m.arguments, &inputs),
        });
    }
    Ok(tasks)
}

/// Every task id once, every parent a task, no cycle; errors name the
/// task by its index in the instance's task list.
fn check_dag(at: &Ctx<'_>, version: &str, tasks: &[Task]) -> Result<()> {
    let list = if version == "1.4" {
        "workflow.tasks"
    } else {
        "workflow.specification.tasks"
    };
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(tasks.len());
    for (k, t) in tasks.iter().enumerate() {
        if let Some(first) = index.insert(t.id.as_str(), k) {
            return Err(at.err(
                &format!("{list}[{k}]"),
                &format!(
                    "task id `{}` appears twice (also {list}[{first}])",
                    shown(&t.id)
                ),
            ));
        }
    }
    for (k, t) in tasks.iter().enumerate() {
        if let Some((j, p)) = t
            .parents
            .iter()
            .enumerate()
            .find(|(_, p)| !index.contains_key(p.as_str()))
        {
            return Err(at.err(
                &format!("{list}[{k}].parents[{j}]"),
                &format!(
                    "unknown parent `{}`: the instance has no such task",
                    shown(p)
                ),
            ));
        }
    }
    let rows: Vec<StepRow> = tasks
        .iter()
        .map(|t| StepRow {
            workflow: "w".into(),
            tenant: "t".into(),
            step: t.id.clone(),
            parents: t.parents.clone(),
            runtime_s: 1.0,
            ..StepRow::default()
        })
        .collect();
    WorkflowTrace::from_rows(at.source, &rows)
        .map(|_| ())
        .map_err(|e| {
            let msg = e.message();
            let cycle = msg.split_once("has a cycle: ").map_or(msg, |(_, c)| c);
            at.err(
                &format!("{list}[].parents"),
                &format!("the tasks form a cycle: {cycle}"),
            )
        })
}

/// The estimate of [`submit`]ting `instances` as `opts` says and writing
/// the rows ([`import_estimate`]): per copy, per task its row's strings
/// (the workflow id, `#<copy>` appended, the tenant `t<k>`, at most 32
/// bytes of heap, its id, each parent a `String` and its heap, its key)
/// and its CSV text (those fields, a separator per parent and 120 bytes
/// of numbers and commas).
pub fn submit_estimate(instances: &[Instance], opts: &WfOptions) -> Estimate {
    let suffix = if opts.copies > 1 {
        1 + opts.copies.to_string().len() as u64
    } else {
        0
    };
    let (mut rows, mut heap, mut text) = (0u64, 0u64, 0u64);
    for inst in instances {
        let name = inst.name.len() as u64 + suffix;
        for t in &inst.tasks {
            rows += 1;
            let parents: u64 = t
                .parents
                .iter()
                .map(|p| 24 + string_heap(p.len() as u64))
                .sum();
            heap += string_heap(name)
                + 32
                + string_heap(t.id.len() as u64)
                + parents
                + string_heap(t.cache_key.len() as u64);
            let parent_text: u64 = t.parents.iter().map(|p| p.len() as u64 + 1).sum();
            text += name + 11 + t.id.len() as u64 + parent_text + t.cache_key.len() as u64 + 120;
        }
    }
    import_estimate(rows, heap, text, u64::from(opts.copies))
}

/// The rows of `instances` submitted as `opts` says (module
/// documentation), and the report.
pub fn submit(instances: &[Instance], opts: &WfOptions) -> Result<(Vec<StepRow>, WfImportReport)> {
    if opts.tenants == 0 || opts.copies == 0 {
        return Err(Error::usage("--tenants and --copies must be at least 1"));
    }
    if let Some(r) = opts.rate
        && !(r.is_finite() && r > 0.0)
    {
        return Err(Error::usage(format!(
            "--rate: expected workflows per second > 0, got {r}"
        )));
    }
    let mut seen = HashSet::new();
    for i in instances {
        if !seen.insert(i.name.as_str()) {
            return Err(Error::usage(format!(
                "two inputs have the file stem `{}`: workflow ids must differ (rename one)",
                shown(&i.name)
            )));
        }
    }
    let mut rng = stream(opts.seed, WFFORMAT_STREAM, Purpose::Generator);
    let steps: usize = instances.iter().map(|i| i.tasks.len()).sum();
    let mut rows = Vec::with_capacity(steps * opts.copies as usize);
    let mut raised = 0;
    let mut t = 0.0f64;
    for copy in 1..=opts.copies {
        for inst in instances {
            let submit_s = match opts.rate {
                Some(rate) => {
                    t -= (1.0 - unit(&mut rng)).ln() / rate;
                    (t * 1.0e6).round() / 1.0e6
                }
                None => 0.0,
            };
            let tenant = if opts.tenants > 1 {
                below(&mut rng, opts.tenants as usize)
            } else {
                0
            };
            let workflow = if opts.copies > 1 {
                format!("{}#{copy}", inst.name)
            } else {
                inst.name.clone()
            };
            for task in &inst.tasks {
                if task.runtime_s < RUNTIME_FLOOR_S {
                    raised += 1;
                }
                rows.push(StepRow {
                    workflow: workflow.clone(),
                    tenant: format!("t{tenant}"),
                    submit_s,
                    step: task.id.clone(),
                    parents: task.parents.clone(),
                    runtime_s: task.runtime_s.max(RUNTIME_FLOOR_S),
                    type_runtimes: Vec::new(),
                    gpus: 0,
                    cpus: task.cpus,
                    cache_key: task.cache_key.clone(),
                    output_bytes: task.output_bytes,
                    deadline_s: None,
                    failure_p: 0.0,
                    parallel: false,
                });
            }
        }
    }
    let keys: HashSet<&str> = rows.iter().map(|r| r.cache_key.as_str()).collect();
    let report = WfImportReport {
        instances: instances.len(),
        workflows: instances.len() * opts.copies as usize,
        steps: rows.len(),
        raised: raised / opts.copies as usize,
        keys: keys.len(),
        tenants: opts.tenants,
    };
    Ok((rows, report))
}

/// Read `inputs`, submit them as `opts` says, check the result as a
/// workflow trace (every parent known, no cycle) and write it to `out`
/// atomically; the memory of submitting them is checked against the
/// machine's ([`run_import_workflows_within`]).
pub fn run_import_workflows(
    inputs: &[PathBuf],
    opts: &WfOptions,
    out: &Path,
) -> Result<WfImportReport> {
    run_import_workflows_within(inputs, opts, out, &MemoryBudget::default())
}

/// [`run_import_workflows`] whose memory check (DESIGN §8.5: the rows are
/// built whole, `copies` of every instance, before they are written)
/// assumes `budget` (`import-workflows --max-memory`). Before 2026-12-07
/// `--copies 4000000000` aborted on a 4.2 TB allocation.
pub fn run_import_workflows_within(
    inputs: &[PathBuf],
    opts: &WfOptions,
    out: &Path,
    budget: &MemoryBudget,
) -> Result<WfImportReport> {
    let instances: Vec<Instance> = inputs
        .iter()
        .map(|p| read_instance(p))
        .collect::<Result<_>>()?;
    check(
        "import-workflows",
        &submit_estimate(&instances, opts),
        budget,
    )?;
    let (rows, report) = submit(&instances, opts)?;
    write_rows(out, &rows)?;
    Ok(report)
}
