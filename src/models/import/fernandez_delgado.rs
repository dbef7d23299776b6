//! Fernández-Delgado et al. 2014 ("Do we need hundreds of classifiers…",
//! JMLR 15): `results.txt`, 121 data sets × 179 classifiers.
//!
//! Layout: whitespace-separated columns. Line 1 is the header: a row-label
//! column name (`problema`), the classifier names, then the per-data-set
//! summary columns `min max mean std`. Each data line is a data set name and
//! one test accuracy in percent per classifier (`100` or `100.0`; `--` = no
//! result). A line of dashes ends the data; the per-classifier `mean` and
//! `std` lines after it are summaries.
//!
//! What becomes what:
//! - `user` = the data set name (first column); `model` = the classifier name
//!   from the header.
//! - `accuracy` = the percentage / 100, computed by shifting the decimal
//!   point in the text (`66.1` → `0.661` exactly as a decimal literal would
//!   parse), so the trace shows no float noise.
//! - `runtime_s`: the paper publishes no runtimes. The importer does not
//!   invent any: the caller must ask for [`RuntimeModel::Unit`] (every job
//!   takes 1 s), and [`RuntimeModel::Measured`] is a usage error.
//! - No `model_year` / `model_citations` (none in the data).
//!
//! Dropped: `--` cells (no result: the pair is unavailable; counted in
//! [`Imported::dropped`]; a data set with no result at all is thus left
//! out); the trailing `min max mean std` columns and the
//! lines from the dashed separator on (summaries, not results).

use std::collections::HashMap;
use std::path::Path;

use super::{Imported, RuntimeModel, UNIT_RUNTIME_S, parse_number, read_text};
use crate::core::error::{Error, Result};
use crate::models::trace::{TraceBuilder, TraceRow};

/// Header columns at the end of the header that are per-data-set summaries.
const SUMMARY_COLUMNS: [&str; 4] = ["min", "max", "mean", "std"];
/// The missing-value token.
const MISSING: &str = "--";

/// Read `results.txt` at `path` into validated trace rows. `runtime` must be
/// [`RuntimeModel::Unit`]: the data has no runtimes.
pub fn read(path: &Path, runtime: RuntimeModel) -> Result<Vec<TraceRow>> {
    read_with_stats(path, runtime).map(|i| i.rows)
}

/// Like [`read`], with counts.
pub fn read_with_stats(path: &Path, runtime: RuntimeModel) -> Result<Imported> {
    let source = path.display().to_string();
    check_runtime(&source, runtime)?;
    let text = read_text(path, "Fernández-Delgado results file")?;
    parse(&source, &text, runtime)
}

fn check_runtime(source: &str, runtime: RuntimeModel) -> Result<()> {
    match runtime {
        RuntimeModel::Unit => Ok(()),
        RuntimeModel::Measured => Err(Error::usage(format!(
            "{source}: the Fernández-Delgado results have no runtimes: pass --runtime unit to give every job 1 s"
        ))),
    }
}

/// `text` as a percentage turned into a fraction in [0, 1].
fn percent_to_fraction(text: &str, where_: &str, column: &str) -> Result<f64> {
    let pct = parse_number(text, column, where_)?;
    if !(0.0..=100.0).contains(&pct) {
        return Err(Error::input(format!(
            "{where_}: field `{column}`: expected a percentage in [0, 100], got `{}`",
            crate::core::io::echo::shown(text)
        )));
    }
    // Shift the decimal point in the text so that `66.1` gives the f64
    // nearest to 0.661 (66.1 / 100.0 would give 0.6609999999999999).
    if text.contains(['e', 'E']) {
        return Ok(pct / 100.0);
    }
    Ok(format!("{text}e-2").parse::<f64>().unwrap_or(pct / 100.0))
}

/// Parse the text of `results.txt`; `source` names it in errors.
pub fn parse(source: &str, text: &str, runtime: RuntimeModel) -> Result<Imported> {
    check_runtime(source, runtime)?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = lines.next() else {
        return Err(Error::input(format!(
            "{source}: line 1: expected a header `problema <classifier>... [min max mean std]`, found an empty file"
        )));
    };
    let mut columns: Vec<&str> = header.split_whitespace().collect();
    let looks_like_data = columns
        .get(1)
        .is_some_and(|t| *t == MISSING || t.parse::<f64>().is_ok());
    if columns.len() < 2 || looks_like_data {
        return Err(Error::input(format!(
            "{source}: line {header_line}: expected a header `problema <classifier>... [min max mean std]` naming the classifiers, found `{}`",
            shorten(header)
        )));
    }
    let n_fields = columns.len();
    // Drop the trailing per-data-set summary columns.
    let mut n_summary = 0;
    while n_summary < SUMMARY_COLUMNS.len()
        && columns.len() > 2
        && columns.last().is_some_and(|c| SUMMARY_COLUMNS.contains(c))
    {
        columns.pop();
        n_summary += 1;
    }
    let classifiers = &columns[1..];
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for (j, c) in classifiers.iter().enumerate() {
        if let Some(prev) = first_seen.insert(c, j) {
            return Err(Error::input(format!(
                "{source}: line {header_line}: classifier `{c}` appears twice (columns {} and {})",
                prev + 2,
                j + 2
            )));
        }
    }

    let mut builder = TraceBuilder::new(source, false, false);
    let mut rows = Vec::new();
    let mut dropped = 0;
    for (line, text) in lines {
        if text.trim_start().starts_with("---") {
            break; // the per-classifier summary lines follow
        }
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != n_fields {
            return Err(Error::input(format!(
                "{source}: line {line}: expected {n_fields} fields like the header, found {}",
                fields.len()
            )));
        }
        let user = fields[0];
        for (j, classifier) in classifiers.iter().enumerate() {
            let cell = fields[j + 1];
            if cell == MISSING {
                dropped += 1;
                continue;
            }
            let where_ = format!("{source}: line {line}");
            let row = TraceRow {
                user: user.to_string(),
                model: (*classifier).to_string(),
                accuracy: percent_to_fraction(cell, &where_, classifier)?,
                runtime_s: UNIT_RUNTIME_S,
                model_year: None,
                model_citations: None,
            };
            builder.push(&row, &where_)?;
            rows.push(row);
        }
    }
    let trace = builder.finish()?;
    Ok(Imported::new(rows, &trace, dropped, 0, runtime))
}

fn shorten(line: &str) -> String {
    let t = line.trim();
    match t.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;

    const SMALL: &str = "\
      problema  svm_C  rf_caret  knn_R  min  max  mean  std
         toy-a   61.3     100.0     --  61.3 100 80.7 10
         toy-b    100        50   12.5  12.5 100 54.1 3.3
-----------------------------------
          mean   83.0      75.0   12.5
           std    1.0       2.0    3.0
";

    fn unit(text: &str) -> Result<Imported> {
        parse("results.txt", text, RuntimeModel::Unit)
    }

    #[test]
    fn reads_percentages_skips_missing_and_summaries() {
        let imp = unit(SMALL).expect("valid");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (2, 3, 5, 1)
        );
        let acc: Vec<f64> = imp.rows.iter().map(|r| r.accuracy).collect();
        assert_eq!(acc, [0.613, 1.0, 1.0, 0.5, 0.125]);
        assert!(imp.rows.iter().all(|r| r.runtime_s == 1.0));
        assert_eq!(imp.rows[4].user, "toy-b");
        assert_eq!(imp.rows[4].model, "knn_R");
        assert_eq!(imp.runtime, RuntimeModel::Unit);
    }

    #[test]
    fn measured_runtime_is_a_usage_error() {
        let e = parse("results.txt", SMALL, RuntimeModel::Measured).expect_err("no runtimes");
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains("--runtime unit"), "{e}");
    }

    #[test]
    fn rejects_malformed_input_with_file_and_line() {
        let bad_number = SMALL.replace("12.5  12.5", "12,5  12.5");
        let e = unit(&bad_number).expect_err("bad number");
        assert_eq!(e.kind(), ErrorKind::Input);
        assert!(
            e.message().starts_with(
                "results.txt: line 3: field `knn_R`: expected a finite number, got `12,5`"
            ),
            "{e}"
        );

        let too_big = SMALL.replace("100.0", "100.5");
        let e = unit(&too_big).expect_err("out of range");
        assert!(
            e.message()
                .starts_with("results.txt: line 2: field `rf_caret`: expected a percentage"),
            "{e}"
        );

        let short = SMALL.replace("   50   12.5", "   50");
        let e = unit(&short).expect_err("wrong column count");
        assert!(
            e.message()
                .starts_with("results.txt: line 3: expected 8 fields like the header, found 7"),
            "{e}"
        );

        let no_header: String = SMALL.lines().skip(1).collect::<Vec<_>>().join("\n");
        let e = unit(&no_header).expect_err("missing header");
        assert!(
            e.message()
                .starts_with("results.txt: line 1: expected a header"),
            "{e}"
        );

        let e = unit("\n\n").expect_err("empty");
        assert!(e.message().contains("empty file"), "{e}");

        let dup = SMALL.replace("rf_caret", "svm_C");
        let e = unit(&dup).expect_err("duplicate classifier");
        assert!(
            e.message()
                .contains("line 1: classifier `svm_C` appears twice"),
            "{e}"
        );
    }

    #[test]
    fn a_data_set_without_any_result_is_left_out() {
        let imp = unit("problema a b\nx -- --\ny 50 50\n").expect("valid");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (1, 2, 2, 2)
        );
        assert_eq!(imp.rows[0].user, "y");
    }

    #[test]
    fn reads_a_fixture_file() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/fd_small.txt");
        let imp = read_with_stats(&path, RuntimeModel::Unit).expect("valid fixture");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (3, 4, 10, 2)
        );
        let e = read(&path, RuntimeModel::Measured).expect_err("no runtimes");
        assert!(e.message().contains("fd_small.txt"), "{e}");
    }
}
