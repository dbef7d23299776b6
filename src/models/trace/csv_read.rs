//! Reading the canonical trace CSV (DESIGN §1.1).

use std::io::Read;
use std::path::Path;

use super::{Trace, TraceBuilder, TraceRow};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::check_type_name;
use crate::core::io::csv_columns::{integer_field, number_field};
use crate::core::io::open_input;

const REQUIRED: [&str; 4] = ["user", "model", "accuracy", "runtime_s"];
const OPTIONAL: [&str; 3] = ["model_year", "model_citations", "fidelity"];

/// Load and validate a canonical trace CSV from `path`.
pub fn load_trace(path: &Path) -> Result<Trace> {
    let file = open_input(path, "trace")?;
    parse_trace(&path.display().to_string(), file)
}

/// Parse and validate a canonical trace CSV read from `input`; `source` names
/// it in error messages.
///
/// A `fidelity` column makes it a curve trace (DESIGN §12.1): one row per
/// (user, model, fidelity), fidelities > 0 and strictly increasing per pair.
///
/// Besides the columns of DESIGN §1.1, a trace may carry per-type runtime
/// columns `runtime_s.<type>` (DESIGN §11.4), e.g. `runtime_s.k80`: the
/// seconds to train the pair on one GPU of that type; an empty cell means
/// the pair takes `runtime_s` (scaled by the scenario's speed factors) on
/// that type.
pub fn parse_trace(source: &str, input: impl Read) -> Result<Trace> {
    let (mut reader, headers) = crate::core::io::csv_columns::csv_with_header(source, input)?;
    let (base, typed) = split_typed_columns(source, &headers)?;
    let base_col =
        crate::core::io::csv_columns::match_columns(source, &base.0, &REQUIRED, &OPTIONAL)?;
    // Back to indices of the file's columns.
    let col: Vec<Option<usize>> = base_col.iter().map(|c| c.map(|i| base.1[i])).collect();
    let mut builder = TraceBuilder::new(source, col[4].is_some(), col[5].is_some());
    let curve = col[6].is_some();
    if curve {
        if let Some((name, _)) = typed.first() {
            return Err(Error::input(format!(
                "{source}: line 1: column `runtime_s.{name}`: per-type runtime columns are not supported in a curve trace (one with a `fidelity` column); give the cluster's `[cluster.speed]` factors instead"
            )));
        }
        builder.set_curve();
    }
    builder.set_runtime_columns(typed.iter().map(|(name, _)| name.clone()).collect());
    let mut typed_values: Vec<Option<f64>> = vec![None; typed.len()];
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let where_ = format!("{source}: line {line}");
        for (v, (name, i)) in typed_values.iter_mut().zip(&typed) {
            *v = match record.get(*i).unwrap_or("") {
                "" => None,
                t => Some(number_field(t, source, line, &format!("runtime_s.{name}"))?),
            };
        }
        let field = |slot: usize| col[slot].map(|i| record.get(i).unwrap_or(""));
        let text = |slot: usize| field(slot).unwrap_or("");
        let row = TraceRow {
            user: text(0).to_string(),
            model: text(1).to_string(),
            accuracy: number_field(text(2), source, line, "accuracy")?,
            runtime_s: number_field(text(3), source, line, "runtime_s")?,
            model_year: opt_integer_field(field(4), source, line, "model_year")?,
            model_citations: opt_integer_field(field(5), source, line, "model_citations")?,
        };
        match col[6] {
            Some(i) => {
                let fidelity = number_field(record.get(i).unwrap_or(""), source, line, "fidelity")?;
                builder.push_level(&row, fidelity, &where_)?;
            }
            None => builder.push_with_runtimes(&row, &typed_values, &where_)?,
        }
    }
    builder.finish()
}

/// The header without its `runtime_s.<type>` columns (and, per column
/// kept, its index in the file), and the per-type columns: GPU type name
/// and index. A type name is checked like the cluster's
/// ([`check_type_name`]); a type given twice is an error.
#[allow(clippy::type_complexity)]
fn split_typed_columns(
    source: &str,
    headers: &csv::StringRecord,
) -> Result<((csv::StringRecord, Vec<usize>), Vec<(String, usize)>)> {
    let mut base = csv::StringRecord::new();
    let mut base_index = Vec::new();
    let mut typed: Vec<(String, usize)> = Vec::new();
    for (i, name) in headers.iter().enumerate() {
        match name
            .trim_start_matches('\u{feff}')
            .strip_prefix("runtime_s.")
        {
            Some(t) => {
                check_type_name(&format!("{source}: line 1: column `{name}`"), t)?;
                if typed.iter().any(|(seen, _)| seen == t) {
                    return Err(Error::input(format!(
                        "{source}: line 1: column `{name}` appears twice"
                    )));
                }
                typed.push((t.to_string(), i));
            }
            None => {
                base.push_field(name);
                base_index.push(i);
            }
        }
    }
    Ok(((base, base_index), typed))
}

/// An optional integer column: absent or empty is `None`.
fn opt_integer_field(
    text: Option<&str>,
    source: &str,
    line: u64,
    field: &str,
) -> Result<Option<i64>> {
    match text {
        None | Some("") => Ok(None),
        Some(t) => integer_field(t, source, line, field).map(Some),
    }
}
