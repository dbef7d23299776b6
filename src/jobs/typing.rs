//! A job trace's GPU-type columns resolved against a typed cluster
//! (DESIGN §11.2): each job's allowed types and its duration on each type
//! ([`JobTypes`]), checked when the scenario is loaded.
//!
//! - Allowed types: the `gpu_type` cell, `|`-separated type names (empty
//!   or no column: every type). Names the cluster does not have are
//!   dropped with a warning; a job none of whose names the cluster has is
//!   an error. Types on which the job can never get its GPUs (its GPU
//!   count exceeds the type's largest node under `consolidate`, or all its
//!   GPUs under `spread`) are dropped too; a job left with no type is an
//!   error naming its line.
//! - Duration on type `t`: the row's `duration_s.<t>` cell if it is not
//!   empty; else, with a speed table, `duration_s / speed[group][t]` when
//!   the table has the job's `group` and `t`; else `duration_s`.
//!   `duration_s.<t>` columns for types the cluster does not have are
//!   ignored with a warning.
//!
//! On an untyped cluster nothing of this applies: every job runs on the one
//! anonymous type with `duration_s`, whatever its type columns say.
//!
//! The speed table (`[jobs] speeds = "speeds.csv"`) is a CSV
//! `group,gpu_type,speed`: `speed` > 0 is how many times faster than its
//! `duration_s` a job of that group runs on that type (Gavel's
//! throughput normalised to the reference type). Every entry must name a
//! type of the cluster and a group of the trace: an entry that matches
//! nothing is an error naming its line and the known names (a misspelled
//! `K80` would otherwise be dropped without a word).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use super::sim::cluster::Placement;
use super::sim::simulation::type_limit;
use super::sim::type_policy::JobTypes;
use super::trace::JobTrace;
use crate::core::error::{Error, Result};
use crate::core::io::cluster::{ClusterSpec, GpuType, check_type_name};
use crate::core::io::csv_columns::{csv_with_header, match_columns, number_field};
use crate::core::io::echo::shown;
use crate::core::io::open_input;
use crate::core::sim::time::{MAX_RUNTIME_S, Micros, secs_to_micros};

/// Speed per (group, type name), from a speed table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpeedTable {
    source: String,
    speeds: HashMap<(String, String), f64>,
    /// The line of each entry, for errors.
    lines: HashMap<(String, String), u64>,
}

impl SpeedTable {
    /// The speed of `group` on type `t`, if the table has it.
    pub fn get(&self, group: &str, t: &str) -> Option<f64> {
        self.speeds
            .get(&(group.to_string(), t.to_string()))
            .copied()
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.speeds.len()
    }
    /// Whether the table has no entry.
    pub fn is_empty(&self) -> bool {
        self.speeds.is_empty()
    }
    /// Where the table came from.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Read a speed table CSV `group,gpu_type,speed`.
pub fn load_speed_table(path: &Path) -> Result<SpeedTable> {
    let file = open_input(path, "speed table")?;
    parse_speed_table(&path.display().to_string(), file)
}

/// [`load_speed_table`] from `input`; `source` names it in errors.
pub fn parse_speed_table(source: &str, input: impl Read) -> Result<SpeedTable> {
    let (mut reader, headers) = csv_with_header(source, input)?;
    let col = match_columns(source, &headers, &["group", "gpu_type", "speed"], &[])?;
    let (g, t, v) = (
        col[0].unwrap_or(0),
        col[1].unwrap_or(1),
        col[2].unwrap_or(2),
    );
    let mut speeds = HashMap::new();
    let mut lines: HashMap<(String, String), u64> = HashMap::new();
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let group = record.get(g).unwrap_or("").to_string();
        let ty = record.get(t).unwrap_or("").to_string();
        check_type_name(&format!("{source}: line {line}: field `gpu_type`"), &ty)?;
        let speed = number_field(record.get(v).unwrap_or(""), source, line, "speed")?;
        if !(speed.is_finite() && speed > 0.0 && speed <= 1.0e9) {
            return Err(Error::input(format!(
                "{source}: line {line}: field `speed`: expected a factor > 0 and <= 1e9, got {speed}"
            )));
        }
        let key = (group, ty);
        if let Some(first) = lines.get(&key) {
            return Err(Error::input(format!(
                "{source}: line {line}: group `{}` and type `{}` already given at line {first}",
                shown(&key.0),
                shown(&key.1)
            )));
        }
        lines.insert(key.clone(), line);
        speeds.insert(key, speed);
    }
    Ok(SpeedTable {
        source: source.to_string(),
        speeds,
        lines,
    })
}

/// At most this many known names are listed in an error.
const NAMES_SHOWN: usize = 20;

/// `names` for a message, the first [`NAMES_SHOWN`] and "and N more".
fn listed(names: &[&str]) -> String {
    let mut out = names
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| format!("`{}`", shown(n)))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_SHOWN {
        out += &format!(" and {} more", names.len() - NAMES_SHOWN);
    }
    out
}

/// Every entry of `table` must name a GPU type of the cluster (`types`)
/// and a group some job of the trace has (`groups`, `None` without a
/// `group` column): an entry that matches nothing would be dropped without
/// a word, so a misspelled name (`K80` for `k80`) is an error naming the
/// table's line and the known names, checked in line order.
fn check_speed_names(
    table: &SpeedTable,
    types: &[String],
    groups: Option<&[String]>,
    trace_source: &str,
) -> Result<()> {
    // Without a `group` column every job's group is empty.
    let mut known_groups: Vec<&str> =
        groups.map_or_else(|| vec![""], |g| g.iter().map(String::as_str).collect());
    known_groups.sort_unstable();
    known_groups.dedup();
    let mut entries: Vec<(&(String, String), &u64)> = table.lines.iter().collect();
    entries.sort_by_key(|(_, line)| **line);
    let source = &table.source;
    for ((group, ty), line) in entries {
        if !types.iter().any(|t| t == ty) {
            let hint = types
                .iter()
                .find(|t| t.eq_ignore_ascii_case(ty))
                .map_or(String::new(), |t| {
                    format!(" (names are case-sensitive: did you mean `{t}`?)")
                });
            let names: Vec<&str> = types.iter().map(String::as_str).collect();
            return Err(Error::input(format!(
                "{source}: line {line}: field `gpu_type`: unknown GPU type `{}`{hint}: expected one of the cluster's types: {}",
                shown(ty),
                listed(&names)
            )));
        }
        if known_groups.binary_search(&group.as_str()).is_err() {
            let known = if groups.is_none() {
                format!("{trace_source} has no `group` column")
            } else {
                format!("the groups of {trace_source} are {}", listed(&known_groups))
            };
            return Err(Error::input(format!(
                "{source}: line {line}: field `group`: unknown group `{}`: no job of the trace has it ({known})",
                shown(group)
            )));
        }
    }
    Ok(())
}

/// The trace's jobs on a typed cluster, and what was ignored.
#[derive(Debug, Clone)]
pub struct ResolvedTypes {
    /// Allowed types and per-type durations of every trace job.
    pub jobs: JobTypes,
    /// What was ignored (unknown type names), for the run's warnings.
    pub warnings: Vec<String>,
}

/// Resolve `trace`'s type columns against `cluster` (typed) under
/// `placement`, with an optional speed table (see the module docs).
pub fn resolve_job_types(
    trace: &JobTrace,
    cluster: &ClusterSpec,
    placement: Placement,
    speeds: Option<&SpeedTable>,
) -> Result<ResolvedTypes> {
    let source = trace.source();
    let names = cluster.types();
    if let Some(table) = speeds {
        check_speed_names(table, names, trace.groups(), source)?;
    }
    let n_types = names.len();
    let nodes = cluster.capacities();
    let node_types = cluster.node_types();
    let limits: Vec<u64> = (0..n_types)
        .map(|t| type_limit(&nodes, &node_types, t as GpuType, placement))
        .collect();
    let all: u64 = if n_types == 64 {
        u64::MAX
    } else {
        (1u64 << n_types) - 1
    };
    let mut warnings = Vec::new();
    // Column k of the trace -> cluster type, or None.
    let column_type: Vec<Option<GpuType>> = trace
        .type_columns()
        .iter()
        .map(|c| cluster.type_index(c))
        .collect();
    let unknown: Vec<&str> = trace
        .type_columns()
        .iter()
        .zip(&column_type)
        .filter(|(_, t)| t.is_none())
        .map(|(c, _)| c.as_str())
        .collect();
    if !unknown.is_empty() {
        warnings.push(format!(
            "{source}: columns {} name GPU types the cluster does not have (it has {}): ignored",
            unknown
                .iter()
                .map(|c| format!("`duration_s.{c}`"))
                .collect::<Vec<_>>()
                .join(", "),
            names.join(", ")
        ));
    }
    let mut unknown_names: Vec<String> = Vec::new();
    let mut allowed = Vec::with_capacity(trace.len());
    let mut duration = Vec::with_capacity(trace.len() * n_types);
    let mut per_type = vec![0 as Micros; n_types];
    for (j, job) in trace.jobs().iter().enumerate() {
        let at = || format!("{source}: line {}", trace.line(j));
        let cell = trace.gpu_types().map_or("", |g| g[j].as_str());
        let mut mask = 0u64;
        let mut named_any = false;
        for part in cell.split('|').map(str::trim).filter(|p| !p.is_empty()) {
            check_type_name(&format!("{}: field `gpu_type`", at()), part)?;
            named_any = true;
            match cluster.type_index(part) {
                Some(t) => mask |= 1 << t,
                None => {
                    if !unknown_names.iter().any(|u| u == part) {
                        unknown_names.push(part.to_string());
                    }
                }
            }
        }
        if !named_any {
            mask = all;
        } else if mask == 0 {
            return Err(Error::input(format!(
                "{}: field `gpu_type`: job `{}` may run only on {}, and the cluster has none of them (its types: {})",
                at(),
                shown(&trace.ids()[j]),
                shown(cell),
                names.join(", ")
            )));
        }
        let named_mask = mask;
        for (t, &limit) in limits.iter().enumerate() {
            if u64::from(job.gpus) > limit {
                mask &= !(1 << t);
            }
        }
        if mask == 0 {
            let which: Vec<String> = (0..n_types)
                .filter(|&t| named_mask & (1 << t) != 0)
                .map(|t| format!("`{}` {}", names[t], limits[t]))
                .collect();
            let why = match placement {
                Placement::Consolidate => {
                    "under `consolidate` placement a job's GPUs must all come from one node"
                }
                Placement::Spread => "a job never spans GPU types",
            };
            return Err(Error::input(format!(
                "{}: job `{}` needs {} GPUs but its allowed GPU types can give at most: {} ({why})",
                at(),
                shown(&trace.ids()[j]),
                job.gpus,
                which.join(", ")
            )));
        }
        allowed.push(mask);
        per_type.fill(job.duration);
        if let Some(table) = speeds {
            let group = trace.groups().map_or("", |g| g[j].as_str());
            for (t, name) in names.iter().enumerate() {
                if let Some(speed) = table.get(group, name) {
                    let secs = job.duration as f64 / 1.0e6 / speed;
                    if !(secs > 0.0 && secs <= MAX_RUNTIME_S) {
                        return Err(Error::input(format!(
                            "{}: job `{}`: duration_s / speed on `{name}` is {secs} s: expected seconds > 0 and <= {MAX_RUNTIME_S:e}",
                            at(),
                            shown(&trace.ids()[j])
                        )));
                    }
                    per_type[t] = secs_to_micros(secs);
                }
            }
        }
        for (k, t) in column_type.iter().enumerate() {
            if let (Some(t), Some(d)) = (t, trace.type_duration(j, k)) {
                per_type[*t as usize] = d;
            }
        }
        duration.extend_from_slice(&per_type);
    }
    if !unknown_names.is_empty() {
        warnings.push(format!(
            "{source}: field `gpu_type` names GPU types the cluster does not have ({}; it has {}): ignored, those jobs run on the types they name that the cluster has",
            unknown_names.join(", "),
            names.join(", ")
        ));
    }
    Ok(ResolvedTypes {
        jobs: JobTypes::new(n_types, allowed, duration),
        warnings,
    })
}
