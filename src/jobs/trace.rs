//! Job traces (DESIGN §1.5, §11.2): the neutral CSV
//! `job_id,user,submit_s,duration_s,gpus[,gpu_type][,group][,duration_s.<type>…]`,
//! validated like model traces (every rejection names the file, the line
//! and the field).
//!
//! GPU types (DESIGN §11.2): `gpu_type` is the set of types a job may run
//! on, `|`-separated (`V100M16|V100M32`, as Alibaba's `gpu_spec`); empty
//! means any type. A column `duration_s.<type>` gives the job's service
//! time on that type; an empty cell (or no column) means `duration_s`, the
//! fallback. The trace only holds the names: they are resolved against the
//! scenario's cluster when it is loaded ([`crate::jobs::typing`]).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

use crate::core::error::{Error, Result};
use crate::core::io::csv_columns::number_field;
use crate::core::io::echo::{shown, shown_number};
use crate::core::io::{open_input, write_atomic};
use crate::core::limits::{MAX_GPUS_PER_NODE, MAX_JOB_GPUS, MAX_NODES, grouped};
use crate::core::sim::time::{MAX_RUNTIME_S, Micros, secs_to_micros};

/// Largest accepted submit time, in seconds (about 31,700 years): keeps
/// every event time far from `u64` overflow.
pub const MAX_SUBMIT_S: f64 = 1.0e12;

const REQUIRED: [&str; 5] = ["job_id", "user", "submit_s", "duration_s", "gpus"];
const OPTIONAL: [&str; 3] = ["gpu_type", "group", "cpus"];

/// Prefix of a per-type duration column, `duration_s.<type>`.
pub const TYPE_DURATION_PREFIX: &str = "duration_s.";

/// One job as the simulator sees it: integer microseconds (DESIGN §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// Submit (arrival) time, µs, rounded once at load to the nearest µs.
    pub submit: Micros,
    /// Service time on `gpus` GPUs, µs, rounded once (at least 1 µs).
    pub duration: Micros,
    /// GPUs the job needs, all at once (gang scheduling), at least 1 for
    /// a trace job (a workflow's CPU step may need none, DESIGN §14).
    pub gpus: u32,
    /// User index (order of first appearance in the file).
    pub user: u32,
    /// CPUs the job needs (the trace's optional `cpus` column; 0 without
    /// it). Counted only on a cluster with CPUs (DESIGN §14.6); a job of 0
    /// GPUs needs at least one.
    pub cpus: u32,
}

/// One row of the neutral job CSV, as importers produce it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    /// Unique job id.
    pub job_id: String,
    /// User (tenant) id.
    pub user: String,
    /// Submit time, seconds from the start of the trace.
    pub submit_s: f64,
    /// Service time on `gpus` GPUs, seconds.
    pub duration_s: f64,
    /// GPUs needed.
    pub gpus: u32,
    /// Optional allowed GPU types, `|`-separated; empty = any.
    pub gpu_type: Option<String>,
    /// Optional group, e.g. a virtual cluster (carried through).
    pub group: Option<String>,
    /// Service time per GPU type, seconds (`duration_s.<type>` columns);
    /// types without an entry use `duration_s`.
    pub type_durations: Vec<(String, f64)>,
    /// Optional CPUs needed (the `cpus` column, DESIGN §14.6); `None`: no
    /// CPU request (0). A row of 0 GPUs needs `Some(c)` with c >= 1.
    pub cpus: Option<u32>,
}

/// A validated job trace. Jobs are indexed in file order; every tie in the
/// simulator is broken by the lowest index.
#[derive(Debug, Clone)]
pub struct JobTrace {
    source: String,
    jobs: Vec<Job>,
    ids: Vec<String>,
    users: Vec<String>,
    lines: Vec<u64>,
    gpu_type: Option<Vec<String>>,
    group: Option<Vec<String>>,
    /// Type names of the `duration_s.<type>` columns, in header order.
    type_columns: Vec<String>,
    /// `len() × type_columns.len()` durations, µs, row-major; 0 = empty
    /// cell (the fallback `duration_s`).
    type_durations: Vec<Micros>,
}

impl JobTrace {
    /// Build a trace from rows (importers, tests, synthetic workloads);
    /// `source` names it in messages. The rows are validated as a file's.
    pub fn from_rows(source: &str, rows: &[JobRow]) -> Result<Self> {
        let has_type = rows.iter().any(|r| r.gpu_type.is_some());
        let has_group = rows.iter().any(|r| r.group.is_some());
        let columns = type_columns_of(rows);
        let mut b = Builder::new(source, has_type, has_group, rows.len());
        b.has_cpus = rows.iter().any(|r| r.cpus.is_some());
        b.type_columns.clone_from(&columns);
        let mut cells = vec![None; columns.len()];
        for (i, r) in rows.iter().enumerate() {
            let line = i as u64 + 2;
            cells.fill(None);
            for (t, d) in &r.type_durations {
                if let Some(k) = columns.iter().position(|c| c == t) {
                    cells[k] = Some(*d);
                }
            }
            b.push_type_durations(line, &cells)?;
            b.push(
                line,
                &r.job_id,
                &r.user,
                r.submit_s,
                r.duration_s,
                (r.gpus, r.cpus.unwrap_or(0)),
                r.gpu_type.as_deref(),
                r.group.as_deref(),
            )?;
        }
        b.finish()
    }

    /// Where the trace came from.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The jobs, in file order.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }
    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }
    /// Whether the trace has no jobs (never true for a validated trace).
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
    /// Job ids, in file order.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }
    /// User ids, by user index.
    pub fn users(&self) -> &[String] {
        &self.users
    }
    /// The file line of job `i` (for messages).
    pub fn line(&self, i: usize) -> u64 {
        self.lines[i]
    }
    /// `gpu_type` per job, if the column is present.
    pub fn gpu_types(&self) -> Option<&[String]> {
        self.gpu_type.as_deref()
    }
    /// `group` per job, if the column is present.
    pub fn groups(&self) -> Option<&[String]> {
        self.group.as_deref()
    }
    /// Type names of the `duration_s.<type>` columns, in header order.
    pub fn type_columns(&self) -> &[String] {
        &self.type_columns
    }
    /// Job `i`'s duration on the type of column `k` of
    /// [`JobTrace::type_columns`], µs; `None` for an empty cell.
    pub fn type_duration(&self, i: usize, k: usize) -> Option<Micros> {
        let d = self.type_durations[i * self.type_columns.len() + k];
        (d > 0).then_some(d)
    }
    /// Total GPU-µs of service the jobs ask for (at `duration_s`).
    pub fn total_work(&self) -> u128 {
        self.jobs
            .iter()
            .map(|j| u128::from(j.duration) * u128::from(j.gpus))
            .sum()
    }
}

struct Builder {
    source: String,
    jobs: Vec<Job>,
    ids: Vec<String>,
    users: Vec<String>,
    user_index: HashMap<String, u32>,
    seen: HashMap<String, u64>,
    lines: Vec<u64>,
    gpu_type: Option<Vec<String>>,
    group: Option<Vec<String>>,
    type_columns: Vec<String>,
    type_durations: Vec<Micros>,
    /// The most jobs taken ([`MAX_TRACE_INDEX`](crate::core::limits::MAX_TRACE_INDEX):
    /// a job's index is a `u32`; how many a scenario may read is set by
    /// the machine's memory, checked before the trace is read,
    /// [`super::footprint`]).
    max_jobs: u64,
    /// Whether the trace has a `cpus` column (then a job may have 0 GPUs
    /// if it has CPUs).
    has_cpus: bool,
}

/// The type names of every row's `type_durations`, in order of first
/// appearance.
fn type_columns_of(rows: &[JobRow]) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for r in rows {
        for (t, _) in &r.type_durations {
            if !columns.contains(t) {
                columns.push(t.clone());
            }
        }
    }
    columns
}

/// Check a duration in seconds read from `field` (`duration_s` or
/// `duration_s.<type>`).
fn check_duration(where_: &str, field: &str, duration_s: f64) -> Result<()> {
    if !duration_s.is_finite() || duration_s <= 0.0 || duration_s > MAX_RUNTIME_S {
        return Err(Error::input(format!(
            "{where_}: field `{field}`: expected seconds > 0 and <= {MAX_RUNTIME_S:e}, got {}",
            shown_number(duration_s)
        )));
    }
    Ok(())
}

impl Builder {
    fn new(source: &str, has_type: bool, has_group: bool, capacity: usize) -> Self {
        Self {
            source: source.to_string(),
            jobs: Vec::with_capacity(capacity),
            ids: Vec::with_capacity(capacity),
            users: Vec::new(),
            user_index: HashMap::new(),
            seen: HashMap::with_capacity(capacity),
            lines: Vec::with_capacity(capacity),
            gpu_type: has_type.then(Vec::new),
            group: has_group.then(Vec::new),
            type_columns: Vec::new(),
            type_durations: Vec::new(),
            max_jobs: crate::core::limits::MAX_TRACE_INDEX,
            has_cpus: false,
        }
    }

    /// The per-type durations of the row at `line`, one per
    /// `type_columns` entry (`None` = empty cell), before its `push`.
    fn push_type_durations(&mut self, line: u64, cells: &[Option<f64>]) -> Result<()> {
        for (k, cell) in cells.iter().enumerate() {
            let d = match *cell {
                None => 0,
                Some(d) => {
                    let field = format!("{TYPE_DURATION_PREFIX}{}", self.type_columns[k]);
                    check_duration(&format!("{}: line {line}", self.source), &field, d)?;
                    secs_to_micros(d)
                }
            };
            self.type_durations.push(d);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        line: u64,
        job_id: &str,
        user: &str,
        submit_s: f64,
        duration_s: f64,
        (gpus, cpus): (u32, u32),
        gpu_type: Option<&str>,
        group: Option<&str>,
    ) -> Result<()> {
        let where_ = format!("{}: line {line}", self.source);
        if job_id.trim().is_empty() {
            return Err(Error::input(format!(
                "{where_}: field `job_id`: expected a non-empty id"
            )));
        }
        if user.trim().is_empty() {
            return Err(Error::input(format!(
                "{where_}: field `user`: expected a non-empty id"
            )));
        }
        if !submit_s.is_finite() || !(0.0..=MAX_SUBMIT_S).contains(&submit_s) {
            return Err(Error::input(format!(
                "{where_}: field `submit_s`: expected seconds >= 0 and <= {MAX_SUBMIT_S:e}, got {}",
                shown_number(submit_s)
            )));
        }
        check_duration(&where_, "duration_s", duration_s)?;
        // A job holds at least one GPU, or (with a `cpus` column) at
        // least one CPU: a CPU-only job (DESIGN §14.6).
        if gpus == 0 && !self.has_cpus {
            return Err(Error::input(format!(
                "{where_}: field `gpus`: expected a whole number of GPUs >= 1, got 0"
            )));
        }
        if gpus == 0 && cpus == 0 {
            return Err(Error::input(format!(
                "{where_}: fields `gpus` and `cpus`: a job needs at least 1 GPU or at least 1 CPU, got 0 of both"
            )));
        }
        if let Some(first) = self.seen.get(job_id) {
            return Err(Error::input(format!(
                "{where_}: duplicate job_id `{}`: already given at line {first}",
                shown(job_id)
            )));
        }
        self.seen.insert(job_id.to_string(), line);
        let u = match self.user_index.get(user) {
            Some(&u) => u,
            None => {
                let u = u32::try_from(self.users.len())
                    .map_err(|_| Error::input(format!("{where_}: more than 2^32 users")))?;
                self.users.push(user.to_string());
                self.user_index.insert(user.to_string(), u);
                u
            }
        };
        if self.jobs.len() as u64 >= self.max_jobs {
            return Err(Error::input(format!(
                "{where_}: more than {} jobs, the most a job trace can index (docs/REFERENCE.md, \"Limits\")",
                grouped(self.max_jobs)
            )));
        }
        self.jobs.push(Job {
            submit: (submit_s * 1.0e6).round() as Micros,
            duration: secs_to_micros(duration_s),
            gpus,
            user: u,
            cpus,
        });
        self.ids.push(job_id.to_string());
        self.lines.push(line);
        if let Some(v) = &mut self.gpu_type {
            v.push(gpu_type.unwrap_or("").to_string());
        }
        if let Some(v) = &mut self.group {
            v.push(group.unwrap_or("").to_string());
        }
        Ok(())
    }

    fn finish(self) -> Result<JobTrace> {
        if self.jobs.is_empty() {
            return Err(Error::input(format!(
                "{}: the job trace has no rows: expected at least one job",
                self.source
            )));
        }
        Ok(JobTrace {
            source: self.source,
            jobs: self.jobs,
            ids: self.ids,
            users: self.users,
            lines: self.lines,
            gpu_type: self.gpu_type,
            group: self.group,
            type_columns: self.type_columns,
            type_durations: self.type_durations,
        })
    }
}

/// Whether the CSV header line `header` is a job trace's (it has a
/// `job_id` column). Used to tell job traces from model traces.
pub fn looks_like_job_trace(header: &str) -> bool {
    header
        .trim_start_matches('\u{feff}')
        .split(',')
        .any(|c| c.trim().trim_matches('"') == "job_id")
}

/// Load and validate a job trace CSV from `path`.
pub fn load_job_trace(path: &Path) -> Result<JobTrace> {
    let file = open_input(path, "job trace")?;
    parse_job_trace(&path.display().to_string(), file)
}

/// Parse and validate a job trace CSV read from `input`; `source` names it
/// in error messages.
pub fn parse_job_trace(source: &str, input: impl Read) -> Result<JobTrace> {
    let (mut reader, headers) = crate::core::io::csv_columns::csv_with_header(source, input)?;
    // `duration_s.<type>` columns are set aside; the others are matched.
    let mut named = csv::StringRecord::new();
    let mut named_index = Vec::new();
    let mut type_columns: Vec<String> = Vec::new();
    let mut type_index = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        let h = h.trim_start_matches('\u{feff}');
        match h.strip_prefix(TYPE_DURATION_PREFIX) {
            Some(t) => {
                crate::core::io::cluster::check_type_name(
                    &format!("{source}: line 1: column `{}`", shown(h)),
                    t,
                )?;
                if type_columns.iter().any(|c| c == t) {
                    return Err(Error::input(format!(
                        "{source}: line 1: column `{}` appears twice",
                        shown(h)
                    )));
                }
                type_columns.push(t.to_string());
                type_index.push(i);
            }
            None => {
                named.push_field(h);
                named_index.push(i);
            }
        }
    }
    let col: Vec<Option<usize>> =
        crate::core::io::csv_columns::match_columns(source, &named, &REQUIRED, &OPTIONAL)?
            .into_iter()
            .map(|c| c.map(|k| named_index[k]))
            .collect();
    let mut b = Builder::new(source, col[5].is_some(), col[6].is_some(), 1024);
    b.has_cpus = col[7].is_some();
    b.type_columns.clone_from(&type_columns);
    let mut cells: Vec<Option<f64>> = vec![None; type_columns.len()];
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let field = |slot: usize| col[slot].map(|i| record.get(i).unwrap_or(""));
        let text = |slot: usize| field(slot).unwrap_or("");
        let where_ = || format!("{source}: line {line}");
        let submit_s = number_field(text(2), source, line, "submit_s")?;
        let duration_s = number_field(text(3), source, line, "duration_s")?;
        let gpus = parse_gpus(text(4), &where_)?;
        let cpus = match field(7) {
            None => 0,
            Some(t) => parse_cpus(t, &where_)?,
        };
        for (k, &i) in type_index.iter().enumerate() {
            let cell = record.get(i).unwrap_or("");
            cells[k] = if cell.is_empty() {
                None
            } else {
                let name = format!("{TYPE_DURATION_PREFIX}{}", type_columns[k]);
                Some(number_field(cell, source, line, &name)?)
            };
        }
        b.push_type_durations(line, &cells)?;
        b.push(
            line,
            text(0),
            text(1),
            submit_s,
            duration_s,
            (gpus, cpus),
            field(5),
            field(6),
        )?;
    }
    b.finish()
}

/// The `cpus` cell: a whole number of CPUs, 0 to
/// [`MAX_JOB_CPUS`].
fn parse_cpus(text: &str, where_: &dyn Fn() -> String) -> Result<u32> {
    match text.parse::<u64>() {
        Ok(c) if c <= MAX_JOB_CPUS => Ok(c as u32),
        _ => Err(Error::input(format!(
            "{}: field `cpus`: expected a whole number of CPUs from 0 to {}, got `{}`",
            where_(),
            grouped(MAX_JOB_CPUS),
            shown(text)
        ))),
    }
}

/// The most CPUs one job may ask for (and one node may have).
pub const MAX_JOB_CPUS: u64 = 1 << 24;

fn parse_gpus(text: &str, where_: &dyn Fn() -> String) -> Result<u32> {
    match text.parse::<u64>() {
        Ok(g) if g <= MAX_JOB_GPUS => Ok(g as u32),
        Ok(g) => Err(Error::input(format!(
            "{}: field `gpus`: {} GPUs exceed the limit of {} GPUs per job (the largest cluster: {} nodes × {} GPUs)",
            where_(),
            grouped(g),
            grouped(MAX_JOB_GPUS),
            grouped(MAX_NODES),
            grouped(MAX_GPUS_PER_NODE)
        ))),
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
            Err(Error::input(format!(
                "{}: field `gpus`: {} GPUs exceed the limit of {} GPUs per job",
                where_(),
                shown(text),
                grouped(MAX_JOB_GPUS)
            )))
        }
        Err(_) => Err(Error::input(format!(
            "{}: field `gpus`: expected a whole number of GPUs >= 1, got `{}`",
            where_(),
            shown(text)
        ))),
    }
}

/// Render rows as the neutral job CSV. `gpu_type`, `group` and `cpus` are
/// written when any row has them.
pub fn job_rows_to_csv(rows: &[JobRow]) -> String {
    let has_type = rows.iter().any(|r| r.gpu_type.is_some());
    let has_group = rows.iter().any(|r| r.group.is_some());
    let has_cpus = rows.iter().any(|r| r.cpus.is_some());
    let mut out = String::from("job_id,user,submit_s,duration_s,gpus");
    if has_type {
        out.push_str(",gpu_type");
    }
    if has_group {
        out.push_str(",group");
    }
    if has_cpus {
        out.push_str(",cpus");
    }
    let columns = type_columns_of(rows);
    for t in &columns {
        out.push(',');
        out.push_str(&crate::core::io::csv_text::csv_field(&format!(
            "{TYPE_DURATION_PREFIX}{t}"
        )));
    }
    out.push('\n');
    for r in rows {
        let _ = write!(
            out,
            "{},{},{},{},{}",
            crate::core::io::csv_text::csv_field(&r.job_id),
            crate::core::io::csv_text::csv_field(&r.user),
            r.submit_s,
            r.duration_s,
            r.gpus
        );
        if has_type {
            let _ = write!(
                out,
                ",{}",
                crate::core::io::csv_text::csv_field(r.gpu_type.as_deref().unwrap_or(""))
            );
        }
        if has_group {
            let _ = write!(
                out,
                ",{}",
                crate::core::io::csv_text::csv_field(r.group.as_deref().unwrap_or(""))
            );
        }
        if has_cpus {
            let _ = write!(out, ",{}", r.cpus.unwrap_or(0));
        }
        for t in &columns {
            out.push(',');
            if let Some((_, d)) = r.type_durations.iter().find(|(n, _)| n == t) {
                let _ = write!(out, "{d}");
            }
        }
        out.push('\n');
    }
    out
}

/// Write rows as a neutral job CSV at `path`, atomically.
pub fn write_job_trace(path: &Path, rows: &[JobRow]) -> Result<()> {
    write_atomic(path, job_rows_to_csv(rows).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<JobTrace> {
        parse_job_trace("t.csv", text.as_bytes())
    }

    /// Issue 33, row 4: a trace of 10^7 jobs aborted an allocation. The
    /// memory a trace needs is now checked before it is read
    /// ([`super::footprint`], tests/it/memory_estimate.rs); what remains
    /// a count is the index of a job (a `u32`), checked row by row, so the
    /// row past it is the error (file and line).
    #[test]
    fn the_job_past_the_trace_limit_is_an_error_naming_its_line() {
        let mut b = Builder::new("t.csv", false, false, 4);
        b.max_jobs = 3;
        for k in 0..3u64 {
            b.push(k + 2, &format!("j{k}"), "u", 0.0, 1.0, (1, 0), None, None)
                .expect("within the limit");
        }
        let e = b
            .push(5, "j3", "u", 0.0, 1.0, (1, 0), None, None)
            .expect_err("past the limit");
        assert_eq!(
            e.to_string(),
            "t.csv: line 5: more than 3 jobs, the most a job trace can index (docs/REFERENCE.md, \"Limits\")"
        );
        assert_eq!(b.jobs.len(), 3);
        assert_eq!(
            Builder::new("t.csv", false, false, 0).max_jobs,
            crate::core::limits::MAX_TRACE_INDEX
        );
    }

    #[test]
    fn parses_rounds_and_indexes_users_in_order_of_appearance() -> Result<()> {
        let t = parse(
            "job_id,user,submit_s,duration_s,gpus,group\n\
             a,bob,0,1.5,2,vc1\n\
             b,al,0.0000004,0.0000002,1,\n\
             c,bob,3,4,8,vc2\n",
        )?;
        assert_eq!(t.len(), 3);
        assert_eq!(t.users(), ["bob", "al"]);
        assert_eq!(
            t.jobs()[1],
            Job {
                submit: 0,
                duration: 1,
                gpus: 1,
                user: 1,
                cpus: 0,
            }
        );
        assert_eq!(t.jobs()[0].duration, 1_500_000);
        assert_eq!(t.groups().map(|g| g[2].as_str()), Some("vc2"));
        assert_eq!(t.line(2), 4);
        Ok(())
    }

    #[test]
    fn rejections_name_line_and_field() {
        let cases = [
            ("job_id,user,submit_s,gpus\n", "missing column `duration_s`"),
            (
                "job_id,user,submit_s,duration_s,gpus\na,u,0,1,1\na,u,0,1,1\n",
                "line 3: duplicate job_id `a`: already given at line 2",
            ),
            (
                "job_id,user,submit_s,duration_s,gpus\na,u,0,1,0\n",
                "line 2: field `gpus`",
            ),
            (
                "job_id,user,submit_s,duration_s,gpus\na,u,0,1,1.5\n",
                "field `gpus`: expected a whole number",
            ),
            (
                "job_id,user,submit_s,duration_s,gpus\na,u,0,-1,1\n",
                "field `duration_s`",
            ),
            (
                "job_id,user,submit_s,duration_s,gpus\na,u,-1,1,1\n",
                "field `submit_s`",
            ),
            (
                "job_id,user,submit_s,duration_s,gpus\na,u,NaN,1,1\n",
                "field `submit_s`",
            ),
            ("job_id,user,submit_s,duration_s,gpus\n", "has no rows"),
            (
                "job_id,user,submit_s,duration_s,gpus,x\n",
                "unknown column `x`",
            ),
        ];
        for (text, fragment) in cases {
            match parse(text) {
                Ok(_) => panic!("accepted {text:?}"),
                Err(e) => assert!(
                    e.message().contains(fragment),
                    "{text:?}: {} lacks {fragment}",
                    e.message()
                ),
            }
        }
    }

    #[test]
    fn rows_round_trip_through_csv() -> Result<()> {
        let rows = vec![JobRow {
            job_id: "j,1".into(),
            user: "u".into(),
            submit_s: 0.25,
            duration_s: 10.0,
            gpus: 4,
            gpu_type: Some("V100".into()),
            group: None,
            type_durations: Vec::new(),
            cpus: None,
        }];
        let text = job_rows_to_csv(&rows);
        assert!(looks_like_job_trace(text.lines().next().unwrap_or("")));
        let t = parse(&text)?;
        assert_eq!(t.ids(), ["j,1"]);
        assert_eq!(t.gpu_types().map(|g| g[0].as_str()), Some("V100"));
        Ok(())
    }
}
