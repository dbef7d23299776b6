//! Plain matrices: one accuracy matrix (rows = users, columns = models) per
//! input, optional runtime matrices and optional label files. This is the
//! layout of the ease.ml research-prototype data (`prior.txt`, `test.txt`,
//! `test_time.txt`, `cost.txt`, …).
//!
//! Layout: one matrix row per line, values separated by any mix of spaces
//! and tabs (trailing whitespace allowed); blank lines are skipped; there is
//! no header. Several accuracy matrices are stacked in the order given (e.g.
//! a prior and a test file); all must have the same number of columns.
//!
//! What becomes what:
//! - `accuracy` = the accuracy matrix cell, which must lie in [0, 1].
//! - `runtime_s` = the matching cell of that input's runtime matrix, in
//!   seconds (> 0; a 0 is rejected, not floored, since prototype files use 0
//!   for "missing": say so with `missing`). A runtime matrix with a single
//!   row gives per-model runtimes that apply to every row of its input (like
//!   `synthetic_plain/cost.txt`). Without runtime matrices the caller must
//!   ask for [`RuntimeModel::Unit`] (every job takes 1 s).
//! - `user` = the line of that input's row-label file (one id per non-blank
//!   line), else `u0`, `u1`, … numbered over all stacked rows (zero-padded
//!   to equal width); `model` = the line of the column-label file, else `m0`,
//!   `m1`, … likewise.
//! - No `model_year` / `model_citations` (none in the data).
//!
//! Dropped: cells equal to the `missing` token (compared as text, and as a
//! number when both parse, so `0` also matches `0.0`): the pair is
//! unavailable (counted in [`Imported::dropped`]). Nothing else is dropped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Imported, RuntimeModel, UNIT_RUNTIME_S, read_text};
use crate::core::error::{Error, Result};
use crate::models::trace::generate::padded_id;
use crate::models::trace::{MAX_RUNTIME_S, TraceBuilder, TraceRow};

/// The files of one stacked input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixFiles {
    /// Accuracy matrix (users × models).
    pub accuracy: PathBuf,
    /// Runtime matrix in seconds: same shape, or one row of per-model times.
    pub runtime: Option<PathBuf>,
    /// One user id per line, one line per matrix row.
    pub row_labels: Option<PathBuf>,
}

/// Options of the matrix importer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatrixOptions {
    /// One model id per line, one line per matrix column.
    pub col_labels: Option<PathBuf>,
    /// A token that marks a missing cell.
    pub missing: Option<String>,
    /// `None`: measured when every input has a runtime matrix (an error when
    /// none or only some have one). `Some(Unit)`: 1 s per job (no runtime
    /// matrix allowed). `Some(Measured)`: every input needs one.
    pub runtime: Option<RuntimeModel>,
}

/// A named text: a file's display name and contents.
#[derive(Debug, Clone, Copy)]
pub struct NamedText<'a> {
    /// How errors name it (normally the path).
    pub name: &'a str,
    /// The contents.
    pub text: &'a str,
}

/// The texts of one stacked input (see [`MatrixFiles`]).
#[derive(Debug, Clone, Copy)]
pub struct MatrixTexts<'a> {
    /// Accuracy matrix.
    pub accuracy: NamedText<'a>,
    /// Runtime matrix.
    pub runtime: Option<NamedText<'a>>,
    /// Row labels.
    pub row_labels: Option<NamedText<'a>>,
}

/// Read the matrices into validated trace rows.
pub fn read(parts: &[MatrixFiles], opts: &MatrixOptions) -> Result<Vec<TraceRow>> {
    read_with_stats(parts, opts).map(|i| i.rows)
}

struct Owned {
    name: String,
    text: String,
}

fn load(path: &Path, what: &str) -> Result<Owned> {
    Ok(Owned {
        name: path.display().to_string(),
        text: read_text(path, what)?,
    })
}

fn named(o: &Owned) -> NamedText<'_> {
    NamedText {
        name: &o.name,
        text: &o.text,
    }
}

/// Like [`read`], with counts.
pub fn read_with_stats(parts: &[MatrixFiles], opts: &MatrixOptions) -> Result<Imported> {
    let mut owned = Vec::with_capacity(parts.len());
    for p in parts {
        let acc = load(&p.accuracy, "accuracy matrix")?;
        let rt = p
            .runtime
            .as_deref()
            .map(|r| load(r, "runtime matrix"))
            .transpose()?;
        let rows = p
            .row_labels
            .as_deref()
            .map(|r| load(r, "row label file"))
            .transpose()?;
        owned.push((acc, rt, rows));
    }
    let cols = opts
        .col_labels
        .as_deref()
        .map(|c| load(c, "column label file"))
        .transpose()?;
    let texts: Vec<MatrixTexts<'_>> = owned
        .iter()
        .map(|(a, r, l)| MatrixTexts {
            accuracy: named(a),
            runtime: r.as_ref().map(named),
            row_labels: l.as_ref().map(named),
        })
        .collect();
    parse(
        &texts,
        cols.as_ref().map(named),
        opts.missing.as_deref(),
        opts.runtime,
    )
}

/// One parsed matrix: per non-blank line, its line number and its cells
/// (`None` = the missing token).
struct Matrix {
    rows: Vec<(usize, Vec<Option<f64>>)>,
    cols: usize,
}

fn is_missing(token: &str, missing: Option<(&str, Option<f64>)>) -> bool {
    missing.is_some_and(|(m, mv)| {
        token == m || mv.is_some_and(|mv| token.parse::<f64>().is_ok_and(|v| v == mv))
    })
}

fn parse_matrix(t: NamedText<'_>, what: &str, missing: Option<&str>) -> Result<Matrix> {
    let missing = missing.map(|m| (m, m.parse::<f64>().ok()));
    let mut rows: Vec<(usize, Vec<Option<f64>>)> = Vec::new();
    for (i, line) in t.text.lines().enumerate() {
        let line_no = i + 1;
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        let mut cells = Vec::with_capacity(tokens.len());
        for (j, tok) in tokens.iter().enumerate() {
            if is_missing(tok, missing) {
                cells.push(None);
                continue;
            }
            match tok.parse::<f64>() {
                Ok(v) if v.is_finite() => cells.push(Some(v)),
                _ => {
                    let hint = if rows.is_empty() {
                        " (matrix files have no header: give ids in label files)"
                    } else {
                        ""
                    };
                    return Err(Error::input(format!(
                        "{}: line {line_no}, column {}: {what}: expected a finite number, got `{}`{hint}",
                        t.name,
                        j + 1,
                        crate::core::io::echo::shown(tok)
                    )));
                }
            }
        }
        if let Some((first_line, first)) = rows.first()
            && first.len() != cells.len()
        {
            return Err(Error::input(format!(
                "{}: line {line_no}: expected {} values like line {first_line}, found {}",
                t.name,
                first.len(),
                cells.len()
            )));
        }
        rows.push((line_no, cells));
    }
    let Some(cols) = rows.first().map(|(_, c)| c.len()) else {
        return Err(Error::input(format!(
            "{}: line 1: the {what} is empty: expected at least one line of numbers",
            t.name
        )));
    };
    Ok(Matrix { rows, cols })
}

fn parse_labels(t: NamedText<'_>, expected: usize, of_what: &str) -> Result<Vec<String>> {
    let mut labels = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, line) in t.text.lines().enumerate() {
        let label = line.trim();
        if label.is_empty() {
            continue;
        }
        if let Some(prev) = seen.insert(label, i + 1) {
            return Err(Error::input(format!(
                "{}: line {}: label `{label}` already given at line {prev}: expected unique ids",
                t.name,
                i + 1
            )));
        }
        labels.push(label.to_string());
    }
    if labels.len() != expected {
        return Err(Error::input(format!(
            "{}: expected {expected} labels (one per {of_what}), found {}",
            t.name,
            labels.len()
        )));
    }
    Ok(labels)
}

/// Parse stacked matrices; see the module docs for the rules.
pub fn parse(
    parts: &[MatrixTexts<'_>],
    col_labels: Option<NamedText<'_>>,
    missing: Option<&str>,
    runtime: Option<RuntimeModel>,
) -> Result<Imported> {
    let Some(first) = parts.first() else {
        return Err(Error::usage("matrix import: no accuracy matrix given"));
    };
    let with_rt = parts.iter().filter(|p| p.runtime.is_some()).count();
    let runtime = match (runtime, with_rt) {
        (Some(RuntimeModel::Unit), 0) => RuntimeModel::Unit,
        (Some(RuntimeModel::Unit), _) => {
            return Err(Error::usage(
                "matrix import: --runtime unit conflicts with a runtime matrix: give one or the other",
            ));
        }
        (_, n) if n == parts.len() => RuntimeModel::Measured,
        (_, 0) => {
            return Err(Error::usage(format!(
                "{}: no runtime matrix given: pass --runtime unit to give every job 1 s, or give --runtime-matrix",
                first.accuracy.name
            )));
        }
        (_, n) => {
            return Err(Error::usage(format!(
                "matrix import: {n} of {} inputs have a runtime matrix: give one per input",
                parts.len()
            )));
        }
    };

    let mut matrices = Vec::with_capacity(parts.len());
    for p in parts {
        let acc = parse_matrix(p.accuracy, "accuracy", missing)?;
        let rt = p
            .runtime
            .map(|t| parse_matrix(t, "runtime", missing).map(|m| (t.name, m)))
            .transpose()?;
        matrices.push((acc, rt));
    }
    let cols = matrices[0].0.cols;
    for (p, (acc, rt)) in parts.iter().zip(&matrices) {
        if acc.cols != cols {
            return Err(Error::input(format!(
                "{}: expected {cols} columns like {}, found {}",
                p.accuracy.name, first.accuracy.name, acc.cols
            )));
        }
        if let Some((name, rt)) = rt
            && (rt.cols != cols || (rt.rows.len() != 1 && rt.rows.len() != acc.rows.len()))
        {
            return Err(Error::input(format!(
                "{name}: runtime matrix is {} x {}: expected {} x {cols} like {} (or 1 x {cols} for per-model runtimes)",
                rt.rows.len(),
                rt.cols,
                acc.rows.len(),
                p.accuracy.name
            )));
        }
    }
    let total_rows: usize = matrices.iter().map(|(a, _)| a.rows.len()).sum();
    let models = match col_labels {
        Some(t) => parse_labels(t, cols, "matrix column")?,
        None => (0..cols).map(|j| padded_id("m", j, cols)).collect(),
    };

    let mut builder = TraceBuilder::new(first.accuracy.name, false, false);
    let mut rows = Vec::new();
    let mut dropped = 0;
    let mut global_row = 0;
    for (p, (acc, rt)) in parts.iter().zip(&matrices) {
        let users = match p.row_labels {
            Some(t) => parse_labels(t, acc.rows.len(), "matrix row")?,
            None => (global_row..global_row + acc.rows.len())
                .map(|i| padded_id("u", i, total_rows))
                .collect(),
        };
        global_row += acc.rows.len();
        for (r, ((line, cells), user)) in acc.rows.iter().zip(users).enumerate() {
            builder.declare_user(&user);
            for (j, cell) in cells.iter().enumerate() {
                let Some(accuracy) = *cell else {
                    dropped += 1;
                    continue;
                };
                let where_ = format!("{}: line {line}, column {}", p.accuracy.name, j + 1);
                let runtime_s = match rt {
                    None => UNIT_RUNTIME_S,
                    Some((name, m)) => {
                        let (rt_line, rt_cells) = &m.rows[if m.rows.len() == 1 { 0 } else { r }];
                        let at = format!("{name}: line {rt_line}, column {}", j + 1);
                        let Some(t) = rt_cells[j] else {
                            return Err(Error::input(format!(
                                "{at}: runtime is missing but {where_} has an accuracy"
                            )));
                        };
                        if !(t > 0.0 && t <= MAX_RUNTIME_S) {
                            return Err(Error::input(format!(
                                "{at}: runtime {t}: expected seconds > 0 and <= {MAX_RUNTIME_S:e}"
                            )));
                        }
                        t
                    }
                };
                let row = TraceRow {
                    user: user.clone(),
                    model: models[j].clone(),
                    accuracy,
                    runtime_s,
                    model_year: None,
                    model_citations: None,
                };
                builder.push(&row, &where_)?;
                rows.push(row);
            }
        }
    }
    let trace = builder.finish()?;
    Ok(Imported::new(rows, &trace, dropped, 0, runtime))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;

    fn nt<'a>(name: &'a str, text: &'a str) -> NamedText<'a> {
        NamedText { name, text }
    }

    fn one<'a>(acc: &'a str, rt: Option<&'a str>) -> MatrixTexts<'a> {
        MatrixTexts {
            accuracy: nt("acc.txt", acc),
            runtime: rt.map(|t| nt("time.txt", t)),
            row_labels: None,
        }
    }

    #[test]
    fn reads_mixed_whitespace_with_runtimes() {
        let acc = "0.11\t0.42  0.27 \n\n0.52 \t0.61\t0.5\t\n";
        let rt = "12.5\t80.0\t1500.0\n150.0 320.0 1.0\n";
        let imp = parse(&[one(acc, Some(rt))], None, None, None).expect("valid");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (2, 3, 6, 0)
        );
        let r = &imp.rows[5];
        assert_eq!((r.user.as_str(), r.model.as_str()), ("u1", "m2"));
        assert_eq!((r.accuracy, r.runtime_s), (0.5, 1.0));
        assert_eq!(imp.rows[2].runtime_s, 1500.0);
        assert_eq!(imp.runtime, RuntimeModel::Measured);
    }

    #[test]
    fn one_runtime_row_applies_to_every_user_and_labels_name_ids() {
        let parts = [
            MatrixTexts {
                accuracy: nt("prior.txt", "0.1 0.2\n0.3 0.4\n"),
                runtime: Some(nt("cost.txt", "0.5 1.5\n")),
                row_labels: Some(nt("prior_rows.txt", "CUB-200\nMIT-67\n")),
            },
            MatrixTexts {
                accuracy: nt("test.txt", "0.5 0.6\n"),
                runtime: Some(nt("cost2.txt", "2 3\n")),
                row_labels: Some(nt("test_rows.txt", "Oxford 5k\n")),
            },
        ];
        let imp = parse(&parts, Some(nt("cols.txt", "VGG\nResNet\n")), None, None).expect("valid");
        assert_eq!((imp.users, imp.models, imp.pairs()), (3, 2, 6));
        let got: Vec<(&str, &str, f64)> = imp
            .rows
            .iter()
            .map(|r| (r.user.as_str(), r.model.as_str(), r.runtime_s))
            .collect();
        assert_eq!(
            got,
            [
                ("CUB-200", "VGG", 0.5),
                ("CUB-200", "ResNet", 1.5),
                ("MIT-67", "VGG", 0.5),
                ("MIT-67", "ResNet", 1.5),
                ("Oxford 5k", "VGG", 2.0),
                ("Oxford 5k", "ResNet", 3.0),
            ]
        );
    }

    #[test]
    fn default_ids_are_zero_padded_over_stacked_rows() {
        let acc: String = (0..11).map(|_| "0.5 0.5\n").collect();
        let imp = parse(&[one(&acc, None)], None, None, Some(RuntimeModel::Unit)).expect("valid");
        assert_eq!(imp.rows[0].user, "u00");
        assert_eq!(imp.rows[21].user, "u10");
        assert_eq!(imp.rows[1].model, "m1");
        assert!(imp.rows.iter().all(|r| r.runtime_s == 1.0));
    }

    #[test]
    fn missing_token_drops_cells() {
        let acc = "0.21 0.35 0\n0.43 0.0 0.57\n";
        let imp =
            parse(&[one(acc, None)], None, Some("0"), Some(RuntimeModel::Unit)).expect("valid");
        assert_eq!((imp.pairs(), imp.dropped), (4, 2));
        let imp = parse(
            &[one("NA 0.5\n", None)],
            None,
            Some("NA"),
            Some(RuntimeModel::Unit),
        )
        .expect("valid");
        assert_eq!((imp.pairs(), imp.dropped), (1, 1));
    }

    #[test]
    fn runtime_choice_must_be_explicit_and_consistent() {
        let e = parse(&[one("0.5\n", None)], None, None, None).expect_err("no runtime");
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains("--runtime unit"), "{e}");
        let e = parse(
            &[one("0.5\n", Some("1\n"))],
            None,
            None,
            Some(RuntimeModel::Unit),
        )
        .expect_err("conflict");
        assert_eq!(e.kind(), ErrorKind::Usage);
        let e = parse(
            &[one("0.5\n", None)],
            None,
            None,
            Some(RuntimeModel::Measured),
        )
        .expect_err("no matrix");
        assert_eq!(e.kind(), ErrorKind::Usage);
    }

    fn err(acc: &str, rt: Option<&str>) -> Error {
        parse(
            &[one(acc, rt)],
            None,
            None,
            rt.map_or(Some(RuntimeModel::Unit), |_| None),
        )
        .expect_err("must be rejected")
    }

    #[test]
    fn rejects_malformed_input_with_file_and_line() {
        let e = err("0.1 0.2\n0.3 O.4\n", None);
        assert_eq!(e.kind(), ErrorKind::Input);
        assert!(
            e.message().starts_with(
                "acc.txt: line 2, column 2: accuracy: expected a finite number, got `O.4`"
            ),
            "{e}"
        );
        let e = err("0.1 0.2\n\n0.3\n", None);
        assert!(
            e.message()
                .starts_with("acc.txt: line 3: expected 2 values like line 1, found 1"),
            "{e}"
        );
        let e = err("model_a model_b\n0.1 0.2\n", None);
        assert!(
            e.message().starts_with("acc.txt: line 1, column 1")
                && e.message().contains("no header"),
            "{e}"
        );
        let e = err(" \n", None);
        assert!(e.message().contains("empty"), "{e}");
        let e = err("0.1 1.2\n", None);
        assert!(
            e.message()
                .starts_with("acc.txt: line 1, column 2: field `accuracy`"),
            "{e}"
        );
        let e = err("0.1 0.2\n", Some("1 0\n"));
        assert!(
            e.message()
                .starts_with("time.txt: line 1, column 2: runtime 0: expected seconds > 0"),
            "{e}"
        );
        let e = err("0.1 0.2\n0.3 0.4\n0.5 0.6\n", Some("1 1\n2 2\n"));
        assert!(
            e.message()
                .starts_with("time.txt: runtime matrix is 2 x 2: expected 3 x 2"),
            "{e}"
        );
        let e = parse(
            &[one("0.1 0.2\n", None)],
            Some(nt("cols.txt", "a\n")),
            None,
            Some(RuntimeModel::Unit),
        )
        .expect_err("label count");
        assert!(
            e.message().starts_with("cols.txt: expected 2 labels"),
            "{e}"
        );
        let e = parse(
            &[one("0.1 0.2\n", None)],
            Some(nt("cols.txt", "a\na\n")),
            None,
            Some(RuntimeModel::Unit),
        )
        .expect_err("duplicate label");
        assert!(
            e.message()
                .starts_with("cols.txt: line 2: label `a` already given at line 1"),
            "{e}"
        );
    }

    #[test]
    fn reads_fixture_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import");
        let parts = [MatrixFiles {
            accuracy: dir.join("matrix_acc.txt"),
            runtime: Some(dir.join("matrix_time.txt")),
            row_labels: Some(dir.join("matrix_rows.txt")),
        }];
        let opts = MatrixOptions {
            col_labels: Some(dir.join("matrix_cols.txt")),
            ..MatrixOptions::default()
        };
        let imp = read_with_stats(&parts, &opts).expect("valid fixture");
        assert_eq!((imp.users, imp.models, imp.pairs()), (3, 4, 12));
        assert_eq!(imp.rows[4].user, "MIT-67");
        assert_eq!(imp.rows[4].model, "VGG-16");
        assert_eq!(imp.rows[4].runtime_s, 150.0);
        let bad = [MatrixFiles {
            accuracy: dir.join("matrix_ragged.txt"),
            runtime: None,
            row_labels: None,
        }];
        let opts = MatrixOptions {
            runtime: Some(RuntimeModel::Unit),
            ..MatrixOptions::default()
        };
        let e = read(&bad, &opts).expect_err("ragged fixture");
        assert!(
            e.message()
                .contains("matrix_ragged.txt: line 2: expected 3 values like line 1, found 2"),
            "{e}"
        );
    }
}
