//! Reading the canonical trace CSV (DESIGN §1.1).

use std::io::Read;
use std::path::Path;

use super::{Trace, TraceBuilder, TraceRow};
use crate::core::csv_columns::{integer_field, number_field};
use crate::core::error::Result;
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
            accuracy: number_field(text(2), source, line, "accuracy")?,
            runtime_s: number_field(text(3), source, line, "runtime_s")?,
            model_year: opt_integer_field(field(4), source, line, "model_year")?,
            model_citations: opt_integer_field(field(5), source, line, "model_citations")?,
        };
        builder.push(&row, &where_)?;
    }
    builder.finish()
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
