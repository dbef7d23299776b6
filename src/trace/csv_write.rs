//! Writing the canonical trace CSV.

use std::fmt::Write as _;
use std::path::Path;

use super::TraceRow;
use crate::error::Result;
use crate::io_util::write_atomic;

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
        let _ = write!(
            out,
            "{},{},{},{}",
            quote(&r.user),
            quote(&r.model),
            r.accuracy,
            r.runtime_s
        );
        if year {
            let _ = write!(
                out,
                ",{}",
                r.model_year.map_or(String::new(), |v| v.to_string())
            );
        }
        if cites {
            let _ = write!(
                out,
                ",{}",
                r.model_citations.map_or(String::new(), |v| v.to_string())
            );
        }
        out.push('\n');
    }
    out
}

/// Write rows as a canonical trace CSV at `path`, atomically.
pub fn write_trace(path: &Path, rows: &[TraceRow]) -> Result<()> {
    write_atomic(path, trace_to_csv(rows).as_bytes())
}

/// Quote a CSV field when it contains a delimiter, quote or line break.
pub(crate) fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) || field.trim() != field {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}
