//! Model metadata joined onto an imported trace: `--model-metadata FILE`
//! (or `model_metadata = "file.csv"` in a scenario's `[trace.import]`).
//!
//! Published matrices (the ease.ml prototypes' `prior.txt` / `test.txt`, …)
//! carry no `model_year` / `model_citations`, yet the "most recent first"
//! and "most cited first" heuristics (DESIGN §4.6) need them. This file
//! supplies them, one row per model:
//!
//! ```text
//! model,model_year,model_citations
//! m0,2014,1200
//! m1,2015,900
//! ```
//!
//! - `model` is the model id *as the importer names it*: the line of the
//!   column-label file when one is given, else `m0`, `m1`, … (matrix column
//!   1 is `m0`); for the other formats the data's own model names.
//! - `model_year` and `model_citations` are integers; either may be left
//!   out of the header, not both. Citations are ≥ 0.
//! - Every model of the trace needs exactly one row; a row for a model the
//!   trace does not have, a model given twice, a model without a row, an
//!   empty or non-integer cell are errors naming the file, the line and the
//!   column.
//!
//! The header is matched like a trace header (same messages), and the file
//! is read with the same CSV setup (fields trimmed).

use std::collections::HashMap;

use super::read_text;
use crate::core::error::{Error, Result};
use crate::core::io::csv_columns::{csv_with_header, match_columns};
use crate::models::trace::TraceRow;

const REQUIRED: [&str; 1] = ["model"];
const OPTIONAL: [&str; 2] = ["model_year", "model_citations"];

/// One model's metadata as read from the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelMeta {
    /// `model_year`, when the file has that column.
    pub year: Option<i64>,
    /// `model_citations`, when the file has that column.
    pub citations: Option<i64>,
}

/// Read `path` and attach its metadata to `rows` (see the module docs).
pub fn attach_file(path: &std::path::Path, rows: &mut [TraceRow]) -> Result<()> {
    let text = read_text(path, "model metadata file")?;
    attach(&path.display().to_string(), &text, rows)
}

/// Parse the metadata CSV `text` (named `source` in errors) against the
/// model ids of `rows`, in order of first appearance, and set every row's
/// `model_year` / `model_citations`.
pub fn attach(source: &str, text: &str, rows: &mut [TraceRow]) -> Result<()> {
    if let Some(r) = rows
        .iter()
        .find(|r| r.model_year.is_some() || r.model_citations.is_some())
    {
        return Err(Error::input(format!(
            "{source}: the imported data already gives model `{}` its metadata: give --model-metadata only for data without model_year / model_citations",
            r.model
        )));
    }
    let mut models: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut model_of_row = Vec::with_capacity(rows.len());
    for r in rows.iter() {
        let next = models.len();
        let k = *index.entry(r.model.as_str()).or_insert(next);
        if k == next {
            models.push(&r.model);
        }
        model_of_row.push(k);
    }
    let meta = parse(source, text, &models, &index)?;
    for (r, k) in rows.iter_mut().zip(model_of_row) {
        r.model_year = meta[k].year;
        r.model_citations = meta[k].citations;
    }
    Ok(())
}

/// The metadata of each of `models` (same order), from `text`.
fn parse(
    source: &str,
    text: &str,
    models: &[&str],
    index: &HashMap<&str, usize>,
) -> Result<Vec<ModelMeta>> {
    let (mut reader, headers) = csv_with_header(source, text.as_bytes())?;
    let col = match_columns(source, &headers, &REQUIRED, &OPTIONAL)?;
    if col[1].is_none() && col[2].is_none() {
        return Err(Error::input(format!(
            "{source}: line 1: no metadata column: the header must contain model and at least one of model_year, model_citations"
        )));
    }
    let mut got: Vec<Option<(ModelMeta, u64)>> = vec![None; models.len()];
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let cell = |slot: usize| col[slot].map(|i| record.get(i).unwrap_or(""));
        let id = cell(0).unwrap_or("");
        let at = |column: &str| format!("{source}: line {line}, column `{column}`");
        let Some(&k) = index.get(id) else {
            return Err(Error::input(format!(
                "{}: unknown model `{id}`: expected one of the trace's model ids {}",
                at("model"),
                id_list(models)
            )));
        };
        if let Some((_, first)) = got[k] {
            return Err(Error::input(format!(
                "{}: model `{id}` already given at line {first}: expected one row per model",
                at("model")
            )));
        }
        let year = cell(1).map(|t| integer(t, &at("model_year"))).transpose()?;
        let citations = cell(2)
            .map(|t| integer(t, &at("model_citations")))
            .transpose()?;
        if let Some(c) = citations.filter(|&c| c < 0) {
            return Err(Error::input(format!(
                "{}: {c}: expected a citation count >= 0",
                at("model_citations")
            )));
        }
        got[k] = Some((ModelMeta { year, citations }, line));
    }
    let missing: Vec<&str> = models
        .iter()
        .zip(&got)
        .filter(|(_, g)| g.is_none())
        .map(|(m, _)| *m)
        .collect();
    if !missing.is_empty() {
        return Err(Error::input(format!(
            "{source}: no row for model{} {}: expected one row for every model of the trace",
            if missing.len() == 1 { "" } else { "s" },
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(got.into_iter().flatten().map(|(m, _)| m).collect())
}

fn integer(text: &str, at: &str) -> Result<i64> {
    text.parse::<i64>().map_err(|_| {
        Error::input(format!(
            "{at}: expected an integer, got `{text}`{}",
            if text.is_empty() { " (empty)" } else { "" }
        ))
    })
}

/// `m0, m1, …, m8` (at most 12 named, then the count).
fn id_list(models: &[&str]) -> String {
    const SHOWN: usize = 12;
    let mut s = models
        .iter()
        .take(SHOWN)
        .map(|m| format!("`{m}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if models.len() > SHOWN {
        s.push_str(&format!(", … ({} in all)", models.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(models: &[&str]) -> Vec<TraceRow> {
        ["a", "b"]
            .iter()
            .flat_map(|u| {
                models.iter().map(move |m| TraceRow {
                    user: (*u).to_string(),
                    model: (*m).to_string(),
                    accuracy: 0.5,
                    runtime_s: 1.0,
                    model_year: None,
                    model_citations: None,
                })
            })
            .collect()
    }

    fn err(text: &str) -> String {
        let mut r = rows(&["m0", "m1", "m2"]);
        attach("meta.csv", text, &mut r)
            .expect_err("rejected")
            .message()
            .to_string()
    }

    #[test]
    fn joins_on_model_ids_in_any_row_order() {
        let mut r = rows(&["m0", "m1", "m2"]);
        attach(
            "meta.csv",
            "model,model_year,model_citations\nm2,2016,5\n m0 ,2012,700\nm1,2014,0\n",
            &mut r,
        )
        .expect("valid");
        let got: Vec<(&str, Option<i64>, Option<i64>)> = r
            .iter()
            .map(|r| (r.model.as_str(), r.model_year, r.model_citations))
            .collect();
        assert_eq!(
            &got[..3],
            &[
                ("m0", Some(2012), Some(700)),
                ("m1", Some(2014), Some(0)),
                ("m2", Some(2016), Some(5))
            ]
        );
        assert_eq!(got[3..], got[..3], "second user gets the same metadata");
    }

    #[test]
    fn either_metadata_column_alone_is_enough() {
        let mut r = rows(&["x", "y"]);
        attach("meta.csv", "model_citations,model\n3,y\n4,x\n", &mut r).expect("valid");
        assert_eq!(
            (r[0].model_year, r[0].model_citations, r[1].model_citations),
            (None, Some(4), Some(3))
        );
    }

    #[test]
    fn bad_files_name_file_line_and_column() {
        let cases = [
            (
                "model,model_year\nm0,1\nm7,2\n",
                "meta.csv: line 3, column `model`: unknown model `m7`: expected one of the trace's model ids `m0`, `m1`, `m2`",
            ),
            (
                "model,model_year\nm0,1\nm1,2\nm0,3\n",
                "meta.csv: line 4, column `model`: model `m0` already given at line 2",
            ),
            (
                "model,model_year\nm1,1\n",
                "meta.csv: no row for models `m0`, `m2`: expected one row for every model of the trace",
            ),
            (
                "model,model_year,model_citations\nm0,1,2\nm1,2015.5,2\n",
                "meta.csv: line 3, column `model_year`: expected an integer, got `2015.5`",
            ),
            (
                "model,model_year,model_citations\nm0,1,\n",
                "meta.csv: line 2, column `model_citations`: expected an integer, got `` (empty)",
            ),
            (
                "model,model_citations\nm0,-3\n",
                "meta.csv: line 2, column `model_citations`: -3: expected a citation count >= 0",
            ),
            (
                "model\nm0\n",
                "meta.csv: line 1: no metadata column: the header must contain model and at least one of model_year, model_citations",
            ),
            (
                "name,model_year\n",
                "meta.csv: line 1: unknown column `name`",
            ),
            (
                "model,model_year\nm0,1,9\n",
                "meta.csv: line 2: expected 2 fields",
            ),
            ("", "meta.csv: line 1: expected a header"),
        ];
        for (text, want) in cases {
            let e = err(text);
            assert!(e.contains(want), "{text:?}:\n got {e}\nwant {want}");
        }
    }

    #[test]
    fn refuses_to_overwrite_metadata_the_data_has() {
        let mut r = rows(&["m0"]);
        r[1].model_year = Some(2000);
        let e = attach("meta.csv", "model,model_year\nm0,1\n", &mut r).expect_err("conflict");
        assert!(
            e.message()
                .contains("already gives model `m0` its metadata"),
            "{e}"
        );
    }

    #[test]
    fn long_id_lists_are_cut() {
        let ids: Vec<String> = (0..20).map(|i| format!("m{i:02}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let s = id_list(&refs);
        assert!(s.starts_with("`m00`, `m01`"), "{s}");
        assert!(s.ends_with("`m11`, … (20 in all)"), "{s}");
    }
}
