//! Writing the curve trace CSV
//! `user,model,fidelity,accuracy,runtime_s[,model_year][,model_citations]`,
//! with the number and quoting conventions of the plain trace CSV
//! (`csv_write.rs`): floats in Rust's shortest round-trip form, ids quoted
//! by the csv rules when needed, metadata columns only when a row has them.

use std::fmt::Write as _;
use std::path::Path;

use super::CurveRow;
use crate::core::error::Result;
use crate::core::io::csv_text::csv_field;
use crate::core::io::write_atomic;

/// Render curve rows as curve trace CSV text, in the order given.
pub fn curve_trace_to_csv(rows: &[CurveRow]) -> String {
    let year = rows.iter().any(|r| r.model_year.is_some());
    let cites = rows.iter().any(|r| r.model_citations.is_some());
    let mut out = String::with_capacity(64 * (rows.len() + 1));
    out.push_str("user,model,fidelity,accuracy,runtime_s");
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
            "{},{},{},{},{}",
            csv_field(&r.user),
            csv_field(&r.model),
            r.fidelity,
            r.accuracy,
            r.runtime_s
        );
        for column in [
            year.then_some(r.model_year),
            cites.then_some(r.model_citations),
        ]
        .into_iter()
        .flatten()
        {
            out.push(',');
            if let Some(v) = column {
                let _ = write!(out, "{v}");
            }
        }
        out.push('\n');
    }
    out
}

/// Write curve rows as a curve trace CSV at `path`, atomically (temporary
/// file, fsync, rename: a reader never sees half a file).
pub fn write_curve_trace(path: &Path, rows: &[CurveRow]) -> Result<()> {
    write_atomic(path, curve_trace_to_csv(rows).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(user: &str, model: &str, fidelity: f64, accuracy: f64, runtime_s: f64) -> CurveRow {
        CurveRow {
            user: user.into(),
            model: model.into(),
            fidelity,
            accuracy,
            runtime_s,
            model_year: None,
            model_citations: None,
        }
    }

    #[test]
    fn writes_header_rows_and_shortest_floats() {
        let rows = [
            row("openml-3", "SVC_linear", 16.0, 0.69177, 0.00096),
            row("openml-3", "SVC_linear", 23.0, 0.73545, 1e-6),
            row("u,1", "m\"x", 0.125, 1.0, 2.5),
        ];
        assert_eq!(
            curve_trace_to_csv(&rows),
            "user,model,fidelity,accuracy,runtime_s\n\
             openml-3,SVC_linear,16,0.69177,0.00096\n\
             openml-3,SVC_linear,23,0.73545,0.000001\n\
             \"u,1\",\"m\"\"x\",0.125,1,2.5\n"
        );
    }

    #[test]
    fn metadata_columns_appear_when_any_row_has_them() {
        let mut a = row("u0", "m0", 1.0, 0.5, 1.0);
        a.model_year = Some(2014);
        let b = row("u0", "m1", 1.0, 0.25, 2.0);
        assert_eq!(
            curve_trace_to_csv(&[a.clone(), b.clone()]),
            "user,model,fidelity,accuracy,runtime_s,model_year\nu0,m0,1,0.5,1,2014\nu0,m1,1,0.25,2,\n"
        );
        a.model_citations = Some(30);
        assert_eq!(
            curve_trace_to_csv(&[a]),
            "user,model,fidelity,accuracy,runtime_s,model_year,model_citations\nu0,m0,1,0.5,1,2014,30\n"
        );
    }

    #[test]
    fn write_is_atomic_and_replaces_the_file_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("c.csv");
        std::fs::write(&out, "old text that is longer than the new one\n").expect("seed");
        write_curve_trace(&out, &[row("u", "m", 2.0, 0.5, 1.0)]).expect("written");
        assert_eq!(
            std::fs::read_to_string(&out).expect("read"),
            "user,model,fidelity,accuracy,runtime_s\nu,m,2,0.5,1\n"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temporary file left behind: {names:?}");
    }
}
