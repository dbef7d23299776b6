//! Any long CSV table, one row per (user, model) pair, with its own column
//! names: `tenantsim import table FILE --user COL --model COL --accuracy
//! COL --runtime COL` (the "bring your own data" path; DESIGN §1.2).
//!
//! What becomes what (every column is named on the command line; the
//! other columns of the file are ignored):
//! - `user` = the `--user` column, `model` = the `--model` column, as text
//!   (surrounding spaces trimmed, as in every trace CSV).
//! - `accuracy` = the `--accuracy` column, a number in [0, 1] taken as it
//!   is (no rescaling: a percentage is an error naming the cell).
//! - `runtime_s` = the `--runtime` column in seconds, ≥ 0; a runtime below
//!   [`RUNTIME_FLOOR_S`] (e.g. a `0` in a table rounded to milliseconds)
//!   is raised to that 1 µs floor and counted, as in [`super::lcdb`]. With
//!   `--runtime unit` there is no runtime column and every job takes
//!   [`UNIT_RUNTIME_S`].
//! - `model_year`, `model_citations` = the optional `--model-year` and
//!   `--model-citations` columns, integers, constant per model (checked by
//!   the [`TraceBuilder`] as for a trace file).
//!
//! A row whose accuracy or runtime cell equals the `--missing` token (e.g.
//! `NA`, compared after trimming) is dropped and counted in
//! [`Imported::dropped`]; without `--missing` every cell must be a number.
//! Rejected, naming the file, the physical line and the column: a column
//! named on the command line that the header lacks (the message lists the
//! header), a cell that is not a number, an accuracy outside [0, 1], a
//! negative runtime, a (user, model) pair given twice (the message names
//! the line of the first one), and everything a trace file rejects.
//! Rows keep their file order, so the written trace indexes users and
//! models in order of first appearance, as the file does.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{Imported, RUNTIME_FLOOR_S, RuntimeModel, UNIT_RUNTIME_S, read_text};
use crate::core::error::{Error, Result};
use crate::core::io::csv_columns::{csv_with_header, find_column};
use crate::core::io::echo::shown;
use crate::models::trace::{TraceBuilder, TraceRow};

/// Which column of the table becomes which trace column.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableColumns {
    /// The column holding the user (task, data set) id.
    pub user: String,
    /// The column holding the model id.
    pub model: String,
    /// The column holding the accuracy, in [0, 1].
    pub accuracy: String,
    /// The column holding the training time in seconds; `None`: every job
    /// takes [`UNIT_RUNTIME_S`] (`--runtime unit`).
    pub runtime: Option<String>,
    /// The column holding `model_year`, if any.
    pub model_year: Option<String>,
    /// The column holding `model_citations`, if any.
    pub model_citations: Option<String>,
    /// A cell text meaning "no value": rows with it in the accuracy or
    /// runtime column are dropped.
    pub missing: Option<String>,
}

/// Read the table at `path` into validated trace rows, with counts.
pub fn read_with_stats(path: &Path, cols: &TableColumns) -> Result<Imported> {
    let text = read_text(path, "table")?;
    parse(&path.display().to_string(), &text, cols)
}

/// What [`run_import_table`] did, for its one-line summary on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableReport {
    /// The trace written.
    pub out: PathBuf,
    /// Distinct users, models and (user, model) pairs in the trace.
    pub users: usize,
    /// Distinct models in the trace.
    pub models: usize,
    /// Pairs in the trace.
    pub pairs: usize,
    /// Rows dropped for a `--missing` cell.
    pub dropped: usize,
    /// Runtimes raised to the 1 µs floor.
    pub runtime_floored: usize,
    /// The runtime column, or `None` for `--runtime unit`.
    pub runtime: Option<String>,
}

impl fmt::Display for TableReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "imported table trace: {} users, {} models, {} pairs ({} dropped); runtimes: ",
            self.users, self.models, self.pairs, self.dropped
        )?;
        match &self.runtime {
            Some(col) => write!(f, "column `{}`", shown(col))?,
            None => write!(f, "unit (1 s per job, not from the data)")?,
        }
        if self.runtime_floored > 0 {
            write!(f, " ({} raised to the 1 µs floor)", self.runtime_floored)?;
        }
        write!(f, "; wrote {}", self.out.display())
    }
}

/// Import the table at `path` (then join `model_metadata`, a
/// `model,model_year,model_citations` CSV, if given), write the trace to
/// `out` atomically and report the counts.
pub fn run_import_table(
    path: &Path,
    cols: &TableColumns,
    model_metadata: Option<&Path>,
    out: &Path,
) -> Result<TableReport> {
    let mut imported = read_with_stats(path, cols)?;
    if let Some(meta) = model_metadata {
        super::model_metadata::attach_file(meta, &mut imported.rows)?;
    }
    crate::models::trace::write_trace(out, &imported.rows)?;
    Ok(TableReport {
        out: out.to_path_buf(),
        users: imported.users,
        models: imported.models,
        pairs: imported.pairs(),
        dropped: imported.dropped,
        runtime_floored: imported.runtime_floored,
        runtime: cols.runtime.clone(),
    })
}

/// Where each named column sits in the header.
struct Positions {
    user: usize,
    model: usize,
    accuracy: usize,
    runtime: Option<usize>,
    year: Option<usize>,
    citations: Option<usize>,
}

/// Parse the CSV `text` of a table; `source` names it in errors.
pub fn parse(source: &str, text: &str, cols: &TableColumns) -> Result<Imported> {
    let (mut reader, headers) = csv_with_header(source, text.as_bytes())?;
    let find = |name: &str, option: &str| -> Result<usize> {
        find_column(&headers, &[name]).ok_or_else(|| {
            let listed: Vec<String> = headers
                .iter()
                .map(|h| format!("`{}`", shown(h.trim_start_matches('\u{feff}'))))
                .collect();
            Error::input(format!(
                "{source}: line 1: missing column `{}` (named by {option}): the header has {}",
                shown(name),
                if listed.is_empty() {
                    "no columns".to_string()
                } else {
                    listed.join(", ")
                }
            ))
        })
    };
    let at = Positions {
        user: find(&cols.user, "--user")?,
        model: find(&cols.model, "--model")?,
        accuracy: find(&cols.accuracy, "--accuracy")?,
        runtime: cols
            .runtime
            .as_deref()
            .map(|c| find(c, "--runtime"))
            .transpose()?,
        year: cols
            .model_year
            .as_deref()
            .map(|c| find(c, "--model-year"))
            .transpose()?,
        citations: cols
            .model_citations
            .as_deref()
            .map(|c| find(c, "--model-citations"))
            .transpose()?,
    };
    let missing = cols.missing.as_deref().map(str::trim);
    let is_missing = |cell: &str| missing.is_some_and(|m| cell == m);

    let mut builder = TraceBuilder::new(source, at.year.is_some(), at.citations.is_some());
    let mut rows = Vec::new();
    let (mut dropped, mut floored) = (0, 0);
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let where_ = format!("{source}: line {line}");
        let get = |i: usize| record.get(i).unwrap_or("");
        let accuracy_text = get(at.accuracy);
        let runtime_text = at.runtime.map(get);
        if is_missing(accuracy_text) || runtime_text.is_some_and(is_missing) {
            dropped += 1;
            continue;
        }
        let accuracy = number(accuracy_text, &cols.accuracy, &where_)?;
        if !(0.0..=1.0).contains(&accuracy) {
            return Err(Error::input(format!(
                "{where_}: column `{}` (the accuracy): expected a number in [0, 1], got {accuracy}{}",
                shown(&cols.accuracy),
                if accuracy > 1.0 && accuracy <= 100.0 {
                    " (a percentage? divide the column by 100 first)"
                } else {
                    ""
                }
            )));
        }
        let runtime_s = match (runtime_text, cols.runtime.as_deref()) {
            (Some(t), Some(name)) => {
                let secs = number(t, name, &where_)?;
                if secs < 0.0 {
                    return Err(Error::input(format!(
                        "{where_}: column `{}` (the runtime): expected seconds >= 0, got {secs}",
                        shown(name)
                    )));
                }
                if secs < RUNTIME_FLOOR_S {
                    floored += 1;
                    RUNTIME_FLOOR_S
                } else {
                    secs
                }
            }
            _ => UNIT_RUNTIME_S,
        };
        let integer = |pos: Option<usize>, name: &Option<String>| -> Result<Option<i64>> {
            match (pos, name.as_deref()) {
                (Some(i), Some(name)) => {
                    let t = get(i);
                    t.parse::<i64>().map(Some).map_err(|_| {
                        Error::input(format!(
                            "{where_}: column `{}`: expected an integer, got `{}`",
                            shown(name),
                            shown(t)
                        ))
                    })
                }
                _ => Ok(None),
            }
        };
        let row = TraceRow {
            user: get(at.user).to_string(),
            model: get(at.model).to_string(),
            accuracy,
            runtime_s,
            model_year: integer(at.year, &cols.model_year)?,
            model_citations: integer(at.citations, &cols.model_citations)?,
        };
        builder.push(&row, &where_)?;
        rows.push(row);
    }
    let trace = builder.finish()?;
    let runtime = match cols.runtime {
        Some(_) => RuntimeModel::Measured,
        None => RuntimeModel::Unit,
    };
    Ok(Imported::new(rows, &trace, dropped, floored, runtime))
}

/// The cell `text` of column `column` as a finite number; the error names
/// the line (in `where_`), the column and shows the text.
fn number(text: &str, column: &str, where_: &str) -> Result<f64> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(Error::input(format!(
            "{where_}: column `{}`: expected a number, got `{}`",
            shown(column),
            shown(text)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;
    use crate::models::trace::trace_to_csv;

    fn cols() -> TableColumns {
        TableColumns {
            user: "dataset".into(),
            model: "learner".into(),
            accuracy: "acc".into(),
            runtime: Some("seconds".into()),
            ..TableColumns::default()
        }
    }

    #[test]
    fn renames_the_named_columns_and_ignores_the_others() {
        let text = "seed,learner,dataset,seconds,acc\n\
                    1,svm,iris,0.5,0.9\n\
                    1,tree,iris,2,0.75\n\
                    1,svm,wine,0.25,0.5\n";
        let imp = parse("t.csv", text, &cols()).expect("valid");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (2, 2, 3, 0)
        );
        // The trace written by hand from the table above.
        assert_eq!(
            trace_to_csv(&imp.rows),
            "user,model,accuracy,runtime_s\n\
             iris,svm,0.9,0.5\n\
             iris,tree,0.75,2\n\
             wine,svm,0.5,0.25\n"
        );
        assert_eq!(imp.runtime, RuntimeModel::Measured);
    }

    #[test]
    fn unit_runtime_metadata_missing_token_and_floor() {
        let c = TableColumns {
            runtime: None,
            model_year: Some("year".into()),
            missing: Some("NA".into()),
            ..cols()
        };
        let text = "dataset,learner,acc,year\nd1,m1,0.5,2010\nd1,m2,NA,2012\nd2,m2,1,2012\n";
        let imp = parse("t.csv", text, &c).expect("valid");
        assert_eq!((imp.pairs(), imp.dropped), (2, 1));
        assert!(imp.rows.iter().all(|r| r.runtime_s == UNIT_RUNTIME_S));
        assert_eq!(imp.rows[1].model_year, Some(2012));
        assert_eq!(imp.runtime, RuntimeModel::Unit);

        let text = "dataset,learner,acc,seconds\nd1,m1,0.5,0\nd1,m2,0.5,0.000002\n";
        let imp = parse("t.csv", text, &cols()).expect("valid");
        assert_eq!(imp.runtime_floored, 1);
        assert_eq!(imp.rows[0].runtime_s, RUNTIME_FLOOR_S);
        assert_eq!(imp.rows[1].runtime_s, 0.000002);
    }

    #[test]
    fn missing_column_lists_the_header() {
        let e = parse("t.csv", "dataset,model,acc,seconds\n", &cols()).expect_err("no learner");
        assert_eq!(e.kind(), ErrorKind::Input);
        assert_eq!(
            e.message(),
            "t.csv: line 1: missing column `learner` (named by --model): the header has \
             `dataset`, `model`, `acc`, `seconds`"
        );
    }

    #[test]
    fn bad_cells_name_file_line_and_column() {
        let msg = |text: &str| {
            parse("t.csv", text, &cols())
                .expect_err("rejected")
                .message()
                .to_string()
        };
        let head = "dataset,learner,acc,seconds\n";
        assert_eq!(
            msg(&format!("{head}d,m,0.5,1\n\nd,n,high,1\n")),
            "t.csv: line 4: column `acc`: expected a number, got `high`"
        );
        assert!(msg(&format!("{head}d,m,87.5,1\n")).starts_with(
            "t.csv: line 2: column `acc` (the accuracy): expected a number in [0, 1], got 87.5"
        ));
        assert_eq!(
            msg(&format!("{head}d,m,0.5,-1\n")),
            "t.csv: line 2: column `seconds` (the runtime): expected seconds >= 0, got -1"
        );
        assert_eq!(
            msg(&format!("{head}d,m,0.5,1\nd,m,0.6,2\n")),
            "t.csv: line 3: duplicate pair (user `d`, model `m`): already given at t.csv: line 2"
        );
        // Without --missing, NA is just not a number.
        assert_eq!(
            msg(&format!("{head}d,m,NA,1\n")),
            "t.csv: line 2: column `acc`: expected a number, got `NA`"
        );
    }
}
