//! Writing the canonical trace CSV.

use std::fmt::Write as _;
use std::path::Path;

use super::TraceRow;
use crate::core::error::Result;
use crate::core::io::csv_text::csv_field;
use crate::core::io::float_text::push_f64;
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
/// Floats use Rust's shortest round-trip formatting (`{}`, written by
/// [`push_f64`]).
pub(crate) fn push_csv_row(
    out: &mut String,
    user: &str,
    model: &str,
    accuracy: f64,
    runtime_s: f64,
    year: Option<Option<i64>>,
    citations: Option<Option<i64>>,
) {
    out.push_str(&csv_field(user));
    out.push(',');
    out.push_str(&csv_field(model));
    out.push(',');
    push_floats_and_tail(out, accuracy, runtime_s, "");
    push_row_tail(out, year, citations);
}

/// The line [`push_csv_row`] writes, from its parts made once: `head` is
/// the quoted user and model cells each followed by `,`, `tail` what
/// [`push_row_tail`] writes for the row's metadata. A generated trace's
/// hash formats 2 × 10^8 lines this way (`generate::syn_csv_sha256`).
pub(crate) fn push_csv_row_parts(
    out: &mut String,
    head: [&str; 2],
    accuracy: f64,
    runtime_s: f64,
    tail: &str,
) {
    out.push_str(head[0]);
    out.push_str(head[1]);
    push_floats_and_tail(out, accuracy, runtime_s, tail);
}

fn push_floats_and_tail(out: &mut String, accuracy: f64, runtime_s: f64, tail: &str) {
    push_f64(out, accuracy);
    out.push(',');
    push_f64(out, runtime_s);
    out.push_str(tail);
}

/// Append what follows a line's runtime: the metadata cells present (each
/// `,` then the value, nothing for an empty cell) and the line break.
pub(crate) fn push_row_tail(
    out: &mut String,
    year: Option<Option<i64>>,
    citations: Option<Option<i64>>,
) {
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
