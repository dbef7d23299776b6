//! Writing the canonical trace CSV.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use super::TraceRow;
use crate::core::error::Result;
use crate::core::io::write_atomic;

/// The header of a canonical trace with both metadata columns.
pub(crate) const CSV_HEADER_WITH_METADATA: &str =
    "user,model,accuracy,runtime_s,model_year,model_citations\n";

/// Render rows as canonical CSV text. The metadata columns are written when
/// any row carries them. Ids are quoted by the csv rules when needed.
pub fn trace_to_csv(rows: &[TraceRow]) -> String {
    let year = rows.iter().any(|r| r.model_year.is_some());
    let cites = rows.iter().any(|r| r.model_citations.is_some());
    let mut out = String::from("user,model,accuracy,runtime_s");
    if year {
        out.push_str(",model_year");
    }
    if cites {
        out.push_str(",model_citations");
    }
    out.push('\n');
    for r in rows {
        push_csv_row(
            &mut out,
            &r.user,
            &r.model,
            r.accuracy,
            r.runtime_s,
            year.then_some(r.model_year),
            cites.then_some(r.model_citations),
        );
    }
    out
}

/// Append one canonical CSV line (with its `\n`). `year` and `citations`
/// are `None` when the column is absent, `Some(None)` for an empty cell.
/// Floats use Rust's shortest round-trip formatting.
pub(crate) fn push_csv_row(
    out: &mut String,
    user: &str,
    model: &str,
    accuracy: f64,
    runtime_s: f64,
    year: Option<Option<i64>>,
    citations: Option<Option<i64>>,
) {
    let _ = write!(
        out,
        "{},{},{},{}",
        quote(user),
        quote(model),
        accuracy,
        runtime_s
    );
    for column in [year, citations].into_iter().flatten() {
        out.push(',');
        if let Some(v) = column {
            let _ = write!(out, "{v}");
        }
    }
    out.push('\n');
}

/// Write rows as a canonical trace CSV at `path`, atomically.
pub fn write_trace(path: &Path, rows: &[TraceRow]) -> Result<()> {
    write_atomic(path, trace_to_csv(rows).as_bytes())
}

/// Quote a CSV field when it contains a delimiter, quote or line break.
pub(crate) fn quote(field: &str) -> Cow<'_, str> {
    if field.contains([',', '"', '\n', '\r']) || field.trim() != field {
        Cow::Owned(format!("\"{}\"", field.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(field)
    }
}
