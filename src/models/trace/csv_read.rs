//! Reading the canonical trace CSV (DESIGN §1.1).

use std::io::Read;
use std::path::Path;

use super::{Trace, TraceBuilder, TraceRow};
use crate::core::echo::shown;
use crate::core::error::{Error, Result};
use crate::core::io::open_input;

const REQUIRED: [&str; 4] = ["user", "model", "accuracy", "runtime_s"];
const OPTIONAL: [&str; 2] = ["model_year", "model_citations"];

/// Load and validate a canonical trace CSV from `path`.
pub fn load_trace(path: &Path) -> Result<Trace> {
    let file = open_input(path, "trace")?;
    parse_trace(&path.display().to_string(), file)
}

/// Parse and validate a canonical trace CSV read from `input`; `source` names
/// it in error messages.
pub fn parse_trace(source: &str, input: impl Read) -> Result<Trace> {
    let (mut reader, headers) = crate::core::csv_columns::csv_with_header(source, input)?;
    let col = crate::core::csv_columns::match_columns(source, &headers, &REQUIRED, &OPTIONAL)?;
    let mut builder = TraceBuilder::new(source, col[4].is_some(), col[5].is_some());
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let where_ = format!("{source}: line {line}");
        let field = |slot: usize| col[slot].map(|i| record.get(i).unwrap_or(""));
        let text = |slot: usize| field(slot).unwrap_or("");
        let row = TraceRow {
            user: text(0).to_string(),
            model: text(1).to_string(),
            accuracy: parse_f64(text(2), "accuracy", &where_)?,
            runtime_s: parse_f64(text(3), "runtime_s", &where_)?,
            model_year: parse_opt_i64(field(4), "model_year", &where_)?,
            model_citations: parse_opt_i64(field(5), "model_citations", &where_)?,
        };
        builder.push(&row, &where_)?;
    }
    builder.finish()
}

fn parse_f64(text: &str, field: &str, where_: &str) -> Result<f64> {
    text.parse::<f64>().map_err(|_| {
        Error::input(format!(
            "{where_}: field `{field}`: expected a number, got `{}`",
            shown(text)
        ))
    })
}

fn parse_opt_i64(text: Option<&str>, field: &str, where_: &str) -> Result<Option<i64>> {
    match text {
        None | Some("") => Ok(None),
        Some(t) => t.parse::<i64>().map(Some).map_err(|_| {
            Error::input(format!(
                "{where_}: field `{field}`: expected an integer, got `{}`",
                shown(t)
            ))
        }),
    }
}
