//! Gavel (Narayanan et al., OSDI '20) job traces with Gavel's throughput
//! table (`tenantsim import-jobs gavel TRACE --throughputs FILE
//! [--worker-types v100,p100,k80]`).
//!
//! A `.trace` file has one job per line, 10 tab-separated columns, no
//! header, as Gavel's `utils.parse_trace` reads it: `job_type command
//! working_directory num_steps_arg needs_data_dir total_steps scale_factor
//! priority_weight SLO arrival_time`. The throughput JSON is
//! `{worker_type: {"('<job_type>', <scale_factor>)": {"null": T, …}}}`,
//! `T` the isolated throughput (steps/s) of the whole job on that type.
//!
//! Mapping (one line = one job):
//! - `job_id` = `j<k>`, k the job's 0-based index among the jobs kept;
//!   `user` = `job_id` (Gavel has no users: its policies treat every job as
//!   its own entity); `group` = `job_type`;
//! - `submit_s` = `arrival_time`; `gpus` = `scale_factor`;
//! - `duration_s.<w>` = `total_steps / throughput[w][(job_type,
//!   scale_factor)]["null"]` for each worker type `w` of `--worker-types`
//!   (default `v100,p100,k80`), and `duration_s` = the first worker
//!   type's, the reference (DESIGN §11.2);
//! - a job with throughput 0 on some worker type cannot run there: its
//!   cell is left empty and `gpu_type` lists the types it can run on
//!   (`gpu_type` is empty, any type, for the others).
//!
//! Warnings: `priority_weight` ≠ 1 and `SLO` ≠ -1 cannot be carried (the
//! job is kept without them). Traces written by Gavel's
//! `--output_trace_file_name` hold the first job twice: when the first two
//! lines are equal except for the arrival time and the first has arrival
//! 0, the first is dropped with a note. 7-column traces (Gavel's older MSR
//! traces) are rejected: they have no `total_steps`-with-`scale_factor`
//! layout this mapping needs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::report::ImportReport;
use crate::core::error::{Error, Result};
use crate::core::io::cluster::check_type_name;
use crate::core::io::echo::{shown, shown_number};
use crate::core::io::read_input;
use crate::core::sim::time::MAX_RUNTIME_S;
use crate::jobs::trace::{JobRow, MAX_SUBMIT_S};

/// The worker types written when `--worker-types` is not given.
pub const DEFAULT_WORKER_TYPES: [&str; 3] = ["v100", "p100", "k80"];

/// What a Gavel import needs besides the trace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GavelOptions {
    /// Gavel's `simulation_throughputs.json`.
    pub throughputs: Option<PathBuf>,
    /// Worker types to write, in order (empty: [`DEFAULT_WORKER_TYPES`]).
    pub worker_types: Vec<String>,
}

/// One parsed trace line.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    line: u64,
    job_type: String,
    total_steps: f64,
    scale_factor: u32,
    priority_weight: f64,
    slo: f64,
    arrival: f64,
    /// The line's first nine fields, for the duplicate check.
    head: Vec<String>,
}

/// Parse a Python tuple repr `('<string>', <integer>)` as Gavel's
/// throughput keys are written: the string in single or double quotes
/// with backslash escapes, spaces allowed around the parts.
pub fn parse_tuple_key(key: &str) -> Option<(String, u64)> {
    let inner = key.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
    let mut chars = inner.char_indices();
    let (_, quote) = chars.next()?;
    if quote != '\'' && quote != '"' {
        return None;
    }
    let mut text = String::new();
    let mut escaped = false;
    let mut close = None;
    for (i, c) in chars.by_ref() {
        if escaped {
            text.push(match c {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            close = Some(i);
            break;
        } else {
            text.push(c);
        }
    }
    let rest = inner[close? + quote.len_utf8()..].trim_start();
    let rest = rest.strip_prefix(',')?.trim();
    let rest = rest.strip_suffix(',').map_or(rest, str::trim_end);
    let n = rest.parse::<u64>().ok()?;
    Some((text, n))
}

/// Throughputs (steps/s) per worker type and (job type, scale factor).
type Table = HashMap<String, HashMap<(String, u64), f64>>;

fn read_throughputs(path: &Path) -> Result<Table> {
    let source = path.display().to_string();
    let bytes = read_input(path, "Gavel throughput table")?;
    let doc: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| Error::input(format!("{source}: not valid JSON: {e}")))?;
    let Some(workers) = doc.as_object() else {
        return Err(Error::input(format!(
            "{source}: expected an object of worker types, got {}",
            kind(&doc)
        )));
    };
    let mut table = Table::new();
    for (worker, jobs) in workers {
        let Some(jobs) = jobs.as_object() else {
            return Err(Error::input(format!(
                "{source}: [\"{}\"]: expected an object of jobs, got {}",
                shown(worker),
                kind(jobs)
            )));
        };
        let mut per = HashMap::with_capacity(jobs.len());
        for (key, entry) in jobs {
            let at = || format!("{source}: [\"{}\"][\"{}\"]", shown(worker), shown(key));
            let Some(parsed) = parse_tuple_key(key) else {
                return Err(Error::input(format!(
                    "{}: expected a key like \"('ResNet-18 (batch size 64)', 8)\"",
                    at()
                )));
            };
            let Some(t) = entry.get("null").and_then(serde_json::Value::as_f64) else {
                return Err(Error::input(format!(
                    "{}[\"null\"]: expected the isolated throughput, a number",
                    at()
                )));
            };
            if !(t.is_finite() && t >= 0.0) {
                return Err(Error::input(format!(
                    "{}[\"null\"]: expected a throughput >= 0, got {t}",
                    at()
                )));
            }
            per.insert(parsed, t);
        }
        table.insert(worker.clone(), per);
    }
    Ok(table)
}

fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn parse_lines(source: &str, text: &str) -> Result<Vec<Line>> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = raw.split('\t').collect();
        if f.len() == 7 {
            return Err(Error::input(format!(
                "{source}: line {line}: 7 tab-separated columns: this is an old-format Gavel (MSR) trace; expected the 10 columns job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor, priority_weight, SLO, arrival_time"
            )));
        }
        if f.len() != 10 {
            return Err(Error::input(format!(
                "{source}: line {line}: expected 10 tab-separated columns (job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor, priority_weight, SLO, arrival_time), got {}",
                f.len()
            )));
        }
        let num = |k: usize, name: &str| -> Result<f64> {
            f[k].trim().parse::<f64>().map_err(|_| {
                Error::input(format!(
                    "{source}: line {line}: field `{name}`: expected a number, got `{}`",
                    shown(f[k])
                ))
            })
        };
        let job_type = f[0].trim().to_string();
        if job_type.is_empty() {
            return Err(Error::input(format!(
                "{source}: line {line}: field `job_type`: expected a job type, got an empty field"
            )));
        }
        let total_steps = num(5, "total_steps")?;
        if !(total_steps.is_finite() && total_steps > 0.0) {
            return Err(Error::input(format!(
                "{source}: line {line}: field `total_steps`: expected a number of steps > 0, got {total_steps}"
            )));
        }
        let scale_factor = match f[6].trim().parse::<u32>() {
            Ok(s) if s >= 1 => s,
            _ => {
                return Err(Error::input(format!(
                    "{source}: line {line}: field `scale_factor`: expected a whole number of GPUs >= 1, got `{}`",
                    shown(f[6])
                )));
            }
        };
        let arrival = num(9, "arrival_time")?;
        if !(arrival.is_finite() && (0.0..=MAX_SUBMIT_S).contains(&arrival)) {
            return Err(Error::input(format!(
                "{source}: line {line}: field `arrival_time`: expected seconds >= 0 and <= {MAX_SUBMIT_S:e}, got {}",
                shown_number(arrival)
            )));
        }
        lines.push(Line {
            line,
            job_type,
            total_steps,
            scale_factor,
            priority_weight: num(7, "priority_weight")?,
            slo: num(8, "SLO")?,
            arrival,
            head: f[..9].iter().map(|s| s.to_string()).collect(),
        });
    }
    Ok(lines)
}

/// Import a Gavel trace with its throughput table.
pub fn import(path: &Path, options: &GavelOptions) -> Result<(Vec<JobRow>, ImportReport)> {
    let source = path.display().to_string();
    let Some(tp_path) = &options.throughputs else {
        return Err(Error::input(format!(
            "{source}: a Gavel import needs the throughput table: --throughputs simulation_throughputs.json"
        )));
    };
    let workers: Vec<String> = if options.worker_types.is_empty() {
        DEFAULT_WORKER_TYPES.iter().map(|s| s.to_string()).collect()
    } else {
        options.worker_types.clone()
    };
    for (i, w) in workers.iter().enumerate() {
        check_type_name("--worker-types", w)?;
        if workers[..i].contains(w) {
            return Err(Error::input(format!(
                "--worker-types: `{}` is given twice",
                shown(w)
            )));
        }
    }
    let table = read_throughputs(tp_path)?;
    let tp_source = tp_path.display().to_string();
    for w in &workers {
        if !table.contains_key(w) {
            let mut have: Vec<&str> = table.keys().map(String::as_str).collect();
            have.sort_unstable();
            return Err(Error::input(format!(
                "--worker-types: {tp_source} has no worker type `{}` (it has {})",
                shown(w),
                have.join(", ")
            )));
        }
    }
    let bytes = read_input(path, "Gavel trace")?;
    let text =
        String::from_utf8(bytes).map_err(|_| Error::input(format!("{source}: not UTF-8 text")))?;
    let mut lines = parse_lines(&source, &text)?;
    let mut report = ImportReport {
        rows: lines.len(),
        ..ImportReport::default()
    };
    if lines.len() >= 2 && lines[0].arrival == 0.0 && lines[0].head == lines[1].head {
        report.notes.push(format!(
            "{source}: line 1 repeats line 2 with arrival 0 (the first job Gavel's trace writer emits twice): dropped"
        ));
        report.duplicates += 1;
        lines.remove(0);
    }
    let (mut weighted, mut slos) = (Vec::new(), Vec::new());
    let mut rows = Vec::with_capacity(lines.len());
    for (k, l) in lines.iter().enumerate() {
        if l.priority_weight != 1.0 {
            weighted.push(l.line);
        }
        if l.slo != -1.0 {
            slos.push(l.line);
        }
        let key = (l.job_type.clone(), u64::from(l.scale_factor));
        let mut durations = Vec::with_capacity(workers.len());
        let mut can_run = Vec::with_capacity(workers.len());
        for w in &workers {
            let Some(&t) = table.get(w).and_then(|m| m.get(&key)) else {
                return Err(Error::input(format!(
                    "{source}: line {}: fields `job_type`, `scale_factor`: {tp_source} has no throughput for (\"{}\", {}) on worker type `{w}`",
                    l.line,
                    shown(&l.job_type),
                    l.scale_factor
                )));
            };
            if t > 0.0 {
                let d = l.total_steps / t;
                if !(d > 0.0 && d <= MAX_RUNTIME_S) {
                    return Err(Error::input(format!(
                        "{source}: line {}: field `total_steps`: {} steps at {t} steps/s on `{w}` is {d} s: expected seconds > 0 and <= {MAX_RUNTIME_S:e}",
                        l.line, l.total_steps
                    )));
                }
                durations.push((w.clone(), d));
                can_run.push(w.as_str());
            }
        }
        let Some(&(_, reference)) = durations.first() else {
            return Err(Error::input(format!(
                "{source}: line {}: job type (\"{}\", {}) has throughput 0 on every worker type of --worker-types ({})",
                l.line,
                shown(&l.job_type),
                l.scale_factor,
                workers.join(", ")
            )));
        };
        if durations[0].0 != workers[0] {
            return Err(Error::input(format!(
                "{source}: line {}: job type (\"{}\", {}) has throughput 0 on `{}`, the first worker type, whose duration is `duration_s`: put a type it runs on first in --worker-types",
                l.line,
                shown(&l.job_type),
                l.scale_factor,
                workers[0]
            )));
        }
        let restricted = can_run.len() < workers.len();
        let id = format!("j{k}");
        report.kept += 1;
        report.gpus += u64::from(l.scale_factor);
        rows.push(JobRow {
            job_id: id.clone(),
            user: id,
            submit_s: l.arrival,
            duration_s: reference,
            gpus: l.scale_factor,
            gpu_type: Some(if restricted {
                can_run.join("|")
            } else {
                String::new()
            }),
            group: Some(l.job_type.clone()),
            type_durations: durations,
            cpus: None,
        });
    }
    let lines_of = |v: &[u64]| {
        let shown: Vec<String> = v.iter().take(5).map(u64::to_string).collect();
        format!(
            "{}{}",
            shown.join(", "),
            if v.len() > 5 { ", …" } else { "" }
        )
    };
    if !weighted.is_empty() {
        report.notes.push(format!(
            "{source}: {} jobs have priority_weight != 1 (lines {}): tenantsim has no job weights, they are imported unweighted",
            weighted.len(),
            lines_of(&weighted)
        ));
    }
    if !slos.is_empty() {
        report.notes.push(format!(
            "{source}: {} jobs have an SLO (SLO != -1; lines {}): tenantsim cannot carry SLOs, they are dropped",
            slos.len(),
            lines_of(&slos)
        ));
    }
    Ok((rows, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuple_keys_parse_with_either_quote_and_spacing() {
        assert_eq!(
            parse_tuple_key("('ResNet-18 (batch size 64)', 8)"),
            Some(("ResNet-18 (batch size 64)".into(), 8))
        );
        assert_eq!(
            parse_tuple_key(" ( \"it's\" ,1 ,) "),
            Some(("it's".into(), 1))
        );
        assert_eq!(parse_tuple_key(r"('a\'b', 2)"), Some(("a'b".into(), 2)));
        assert_eq!(parse_tuple_key("('a', x)"), None);
        assert_eq!(parse_tuple_key("'a', 1"), None);
        assert_eq!(parse_tuple_key("('a' 1)"), None);
        assert_eq!(parse_tuple_key("('a, 1)"), None);
    }
}
