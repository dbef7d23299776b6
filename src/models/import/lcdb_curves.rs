//! LCDB learning curves (Mohr et al., ECML-PKDD 2022): `lcdb_curves_mean.csv`,
//! one row per (OpenML data set, scikit-learn learner, training-set size),
//! into a curve trace (`user,model,fidelity,accuracy,runtime_s`).
//!
//! What becomes what, with the conventions of [`super::lcdb`] (so the top
//! level of each pair is the row `import lcdb` makes from `lcdb_final.csv`,
//! whose row is the largest anchor of the same aggregate):
//! - `user` = `openml-<openmlid>`;
//! - `model` = `learner` shortened to its class name
//!   ([`super::lcdb::short_learner_name`]; full path kept on a collision);
//! - `fidelity` = `size_train`, the anchor (training-set size, > 0);
//! - `accuracy` = `score_test_mean` by default, or `score_valid_mean` /
//!   `score_train_mean` ([`LcdbScore`]);
//! - `runtime_s` = `traintime_mean_s`, raised to the 1 µs floor
//!   ([`RUNTIME_FLOOR_S`](super::RUNTIME_FLOOR_S)) when below it and counted; negative is an error;
//!   with [`RuntimeModel::Unit`] every point takes 1 s.
//!
//! LCDB fits each anchor from scratch, so `runtime_s` is the full cost of
//! that fidelity: simulate the trace with `[trace] cost = "from-scratch"`.
//!
//! Every row is kept, in file order; the anchors of a pair must be strictly
//! increasing in file order (a repeated or smaller anchor is an error naming
//! both lines). Dropped: `n_runs` and the other score columns; with
//! `complete_only`, data sets lacking any learner of the file (their pairs
//! count as dropped).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use super::lcdb::{LcdbOptions, LcdbScore, complete_datasets, floor_runtime, model_names};
use super::{RuntimeModel, UNIT_RUNTIME_S, parse_number, read_text};
use crate::core::error::{Error, Result};
use crate::core::io::echo::{shown, shown_number};
use crate::models::trace::{CurveRow, MAX_RUNTIME_S, TraceBuilder, TraceRow, write_curve_trace};

const USER_COLUMN: &str = "openmlid";
const MODEL_COLUMN: &str = "learner";
const FIDELITY_COLUMN: &str = "size_train";
const RUNTIME_COLUMN: &str = "traintime_mean_s";

/// The curve rows an import produced, validated, with counts.
#[derive(Debug, Clone)]
pub struct CurvesImported {
    /// Curve trace rows, in input order.
    pub rows: Vec<CurveRow>,
    /// Distinct users.
    pub users: usize,
    /// Distinct models.
    pub models: usize,
    /// (user, model) pairs (each with one or more fidelities).
    pub pairs: usize,
    /// Pairs of the input left out (`complete_only`).
    pub dropped: usize,
    /// Runtimes raised to [`RUNTIME_FLOOR_S`](super::RUNTIME_FLOOR_S).
    pub runtime_floored: usize,
    /// Where the runtimes came from.
    pub runtime: RuntimeModel,
}

/// Read `lcdb_curves_mean.csv` at `path` into validated curve rows.
pub fn read_with_stats(path: &Path, opts: &LcdbOptions) -> Result<CurvesImported> {
    let text = read_text(path, "LCDB curves file")?;
    parse(&path.display().to_string(), &text, opts)
}

struct Raw {
    where_: String,
    dataset: u64,
    learner: usize,
    fidelity: f64,
    accuracy: f64,
    runtime_s: f64,
    floored: bool,
}

/// Per pair: the last anchor seen and where.
struct PairState {
    last: f64,
    where_: String,
}

/// Parse LCDB curves CSV `text`; `source` names it in errors.
pub fn parse(source: &str, text: &str, opts: &LcdbOptions) -> Result<CurvesImported> {
    let (mut reader, headers) =
        crate::core::io::csv_columns::csv_with_header(source, text.as_bytes())?;
    let score_column = opts.score.column();
    let find = |name: &str| -> Result<usize> {
        crate::core::io::csv_columns::find_column(&headers, &[name]).ok_or_else(|| {
            Error::input(format!(
                "{source}: line 1: missing column `{name}`: expected an LCDB curves header with \
                 {USER_COLUMN}, {MODEL_COLUMN}, {FIDELITY_COLUMN}, {score_column}, {RUNTIME_COLUMN}"
            ))
        })
    };
    let user_col = find(USER_COLUMN)?;
    let model_col = find(MODEL_COLUMN)?;
    let fidelity_col = find(FIDELITY_COLUMN)?;
    let score_col = find(score_column)?;
    let runtime_col = match opts.runtime {
        RuntimeModel::Measured => Some(find(RUNTIME_COLUMN)?),
        RuntimeModel::Unit => None,
    };

    let mut learners: Vec<String> = Vec::new();
    let mut learner_index: HashMap<String, usize> = HashMap::new();
    let mut pairs: HashMap<(u64, usize), PairState> = HashMap::new();
    let mut pair_order: Vec<(u64, usize)> = Vec::new();
    let mut raws: Vec<Raw> = Vec::new();
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let where_ = format!("{source}: line {line}");
        let get = |i: usize| record.get(i).unwrap_or("");
        let id_text = get(user_col);
        let dataset = id_text.parse::<u64>().map_err(|_| {
            Error::input(format!(
                "{where_}: field `{USER_COLUMN}`: expected an OpenML data set id (a whole number), got `{}`",
                shown(id_text)
            ))
        })?;
        let learner_text = get(model_col);
        if learner_text.trim().is_empty() {
            return Err(Error::input(format!(
                "{where_}: field `{MODEL_COLUMN}`: expected a learner name, got an empty cell"
            )));
        }
        let fidelity = parse_number(get(fidelity_col), FIDELITY_COLUMN, &where_)?;
        if fidelity <= 0.0 {
            return Err(Error::input(format!(
                "{where_}: field `{FIDELITY_COLUMN}`: expected a training-set size > 0, got {fidelity}"
            )));
        }
        let accuracy = parse_number(get(score_col), score_column, &where_)?;
        if !(0.0..=1.0).contains(&accuracy) {
            return Err(Error::input(format!(
                "{where_}: field `{score_column}`: expected an accuracy in [0, 1], got {accuracy}"
            )));
        }
        let (runtime_s, floored) = match runtime_col {
            None => (UNIT_RUNTIME_S, false),
            Some(col) => measured_runtime(get(col), &where_)?,
        };
        let learner = match learner_index.get(learner_text) {
            Some(&l) => l,
            None => {
                let l = learners.len();
                learners.push(learner_text.to_string());
                learner_index.insert(learner_text.to_string(), l);
                l
            }
        };
        let key = (dataset, learner);
        match pairs.get_mut(&key) {
            None => {
                pair_order.push(key);
                pairs.insert(
                    key,
                    PairState {
                        last: fidelity,
                        where_: where_.clone(),
                    },
                );
            }
            Some(state) => {
                if fidelity <= state.last {
                    let what = if fidelity == state.last {
                        "repeats the anchor".to_string()
                    } else {
                        format!("is below the anchor {}", state.last)
                    };
                    return Err(Error::input(format!(
                        "{where_}: field `{FIDELITY_COLUMN}`: anchor {fidelity} of (openmlid {dataset}, \
                         learner `{}`) {what} at {}: expected the anchors of a pair once each, in \
                         increasing order",
                        shown(learner_text),
                        state.where_
                    )));
                }
                state.last = fidelity;
                state.where_.clone_from(&where_);
            }
        }
        raws.push(Raw {
            where_,
            dataset,
            learner,
            fidelity,
            accuracy,
            runtime_s,
            floored,
        });
    }

    let names = model_names(learners.iter().map(String::as_str));
    let ids: Vec<String> = learners
        .iter()
        .map(|l| names.get(l).map_or_else(|| l.clone(), Clone::clone))
        .collect();

    let mut dropped = 0;
    let mut keep_dataset: Option<HashSet<u64>> = None;
    if opts.complete_only {
        let complete =
            complete_datasets(pair_order.iter().map(|&(d, l)| (d, learners[l].as_str())));
        dropped = pair_order
            .iter()
            .filter(|(d, _)| !complete.contains(d))
            .count();
        keep_dataset = Some(complete);
    }
    let kept = |d: u64| keep_dataset.as_ref().is_none_or(|s| s.contains(&d));

    // Every row goes through the curve trace builder, so what is written
    // passes every check `load_trace` makes of a curve trace.
    let mut builder = TraceBuilder::new(source, false, false);
    builder.set_curve();
    let mut rows = Vec::with_capacity(raws.len());
    let mut runtime_floored = 0;
    for r in raws.iter().filter(|r| kept(r.dataset)) {
        let row = TraceRow {
            user: user_id(r.dataset),
            model: ids[r.learner].clone(),
            accuracy: r.accuracy,
            runtime_s: r.runtime_s,
            model_year: None,
            model_citations: None,
        };
        builder.push_level(&row, r.fidelity, &r.where_)?;
        runtime_floored += usize::from(r.floored);
        rows.push(CurveRow {
            user: row.user,
            model: row.model,
            fidelity: r.fidelity,
            accuracy: r.accuracy,
            runtime_s: r.runtime_s,
            model_year: None,
            model_citations: None,
        });
    }
    let trace = builder.finish()?;
    Ok(CurvesImported {
        rows,
        users: trace.n_users(),
        models: trace.n_models(),
        pairs: trace.n_pairs(),
        dropped,
        runtime_floored,
        runtime: opts.runtime,
    })
}

fn user_id(dataset: u64) -> String {
    format!("openml-{dataset}")
}

/// `traintime_mean_s` as seconds, raised to the 1 µs floor (and flagged);
/// negative or above [`MAX_RUNTIME_S`] is an error.
fn measured_runtime(text: &str, where_: &str) -> Result<(f64, bool)> {
    let t = parse_number(text, RUNTIME_COLUMN, where_)?;
    if !(0.0..=MAX_RUNTIME_S).contains(&t) {
        return Err(Error::input(format!(
            "{where_}: field `{RUNTIME_COLUMN}`: expected seconds >= 0 and <= {MAX_RUNTIME_S:e}, got {}",
            shown_number(t)
        )));
    }
    Ok(floor_runtime(t))
}

/// What [`run_import_curves`] did, for a one-line summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurvesReport {
    /// The curve trace written.
    pub out: PathBuf,
    /// Distinct users.
    pub users: usize,
    /// Distinct models.
    pub models: usize,
    /// (user, model) pairs.
    pub pairs: usize,
    /// Curve rows written (one per pair and fidelity).
    pub rows: usize,
    /// Pairs left out (`complete_only`).
    pub dropped: usize,
    /// Runtimes raised to the 1 µs floor.
    pub runtime_floored: usize,
    /// Where the runtimes came from.
    pub runtime: RuntimeModel,
    /// The score that became accuracy.
    pub score: LcdbScore,
}

impl fmt::Display for CurvesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "imported lcdb-curves trace: {} users, {} models, {} pairs, {} curve rows ({} pairs dropped); \
             accuracy: {}; runtimes: {}",
            self.users,
            self.models,
            self.pairs,
            self.rows,
            self.dropped,
            self.score.column(),
            match self.runtime {
                RuntimeModel::Measured => "measured, each anchor trained from scratch",
                RuntimeModel::Unit => "unit (1 s per row, not from the data)",
            }
        )?;
        if self.runtime_floored > 0 {
            write!(f, " ({} raised to the 1 µs floor)", self.runtime_floored)?;
        }
        write!(
            f,
            "; wrote {} (simulate it with [trace] cost = \"from-scratch\")",
            self.out.display()
        )
    }
}

/// Import `input` (`lcdb_curves_mean.csv`), validate, write the curve trace
/// to `out` atomically and report the counts. Like `import lcdb`, an
/// existing `out` is replaced.
pub fn run_import_curves(input: &Path, opts: &LcdbOptions, out: &Path) -> Result<CurvesReport> {
    let imported = read_with_stats(input, opts)?;
    write_curve_trace(out, &imported.rows)?;
    Ok(CurvesReport {
        out: out.to_path_buf(),
        users: imported.users,
        models: imported.models,
        pairs: imported.pairs,
        rows: imported.rows.len(),
        dropped: imported.dropped,
        runtime_floored: imported.runtime_floored,
        runtime: imported.runtime,
        score: opts.score,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;
    use crate::models::trace::generate_curves::assert_same_levels;
    use crate::models::trace::{curve_trace_to_csv, parse_trace};

    const HEADER: &str = "openmlid,learner,size_train,n_runs,traintime_mean_s,score_train_mean,score_valid_mean,score_test_mean\n";

    fn curves(body: &str) -> String {
        format!("{HEADER}{body}")
    }

    fn opts() -> LcdbOptions {
        LcdbOptions::default()
    }

    fn err(text: &str) -> Error {
        parse("bad.csv", text, &opts()).expect_err("must be rejected")
    }

    #[test]
    fn maps_columns_keeps_every_row_and_counts() {
        let text = curves(
            "3,SVC_linear,16,125,0.00096,1.0,0.6875,0.69177\n\
             3,SVC_linear,23,125,0.00108,1.0,0.73478,0.73545\n\
             3,sklearn.tree.DecisionTreeClassifier,16,125,0.0,1.0,0.5,0.55\n\
             6,SVC_linear,16,25,2.5,0.9,0.8,0.7\n",
        );
        let imp = parse("c.csv", &text, &opts()).expect("valid");
        assert_eq!(
            (
                imp.users,
                imp.models,
                imp.pairs,
                imp.rows.len(),
                imp.dropped
            ),
            (2, 2, 3, 4, 0)
        );
        assert_eq!(imp.runtime_floored, 1);
        assert_eq!(
            curve_trace_to_csv(&imp.rows),
            "user,model,fidelity,accuracy,runtime_s\n\
             openml-3,SVC_linear,16,0.69177,0.00096\n\
             openml-3,SVC_linear,23,0.73545,0.00108\n\
             openml-3,DecisionTreeClassifier,16,0.55,0.000001\n\
             openml-6,SVC_linear,16,0.7,2.5\n"
        );
    }

    #[test]
    fn score_and_unit_runtime_options_apply_to_every_row() {
        let text = curves("3,L,16,1,0.5,0.91,0.92,0.93\n3,L,32,1,0.75,0.81,0.82,0.83\n");
        let o = LcdbOptions {
            score: LcdbScore::Valid,
            runtime: RuntimeModel::Unit,
            ..opts()
        };
        let imp = parse("c.csv", &text, &o).expect("valid");
        let got: Vec<(f64, f64)> = imp.rows.iter().map(|r| (r.accuracy, r.runtime_s)).collect();
        assert_eq!(got, [(0.92, 1.0), (0.82, 1.0)]);
        assert_eq!(imp.runtime, RuntimeModel::Unit);
    }

    #[test]
    fn written_rows_load_back_with_the_same_levels() {
        let text = curves(
            "3,A,16,1,0.5,1,1,0.5\n3,A,32,1,0.75,1,1,0.55\n3,A,64,1,1.5,1,1,0.54\n\
             3,sklearn.x.B,16,1,0.0,1,1,0.52\n6,A,23,1,2,1,1,0.7\n6,A,45,1,4,1,1,0.8\n",
        );
        let imp = parse("c.csv", &text, &opts()).expect("valid");
        let csv = curve_trace_to_csv(&imp.rows);
        let trace = parse_trace("rt.csv", csv.as_bytes()).expect("loads back");
        assert_same_levels(&trace, &imp.rows);
        assert_eq!(
            (trace.n_users(), trace.n_models(), trace.n_pairs()),
            (2, 2, 3)
        );
        // A* of openml-3 is A's middle anchor (0.55 at 32), above every top.
        assert_eq!(trace.best_accuracy(0), 0.55);
        assert_eq!(trace.accuracy(0, 0), 0.54, "the matrix holds the top level");
    }

    #[test]
    fn rows_of_a_pair_need_not_be_adjacent() {
        let text = curves("3,A,16,1,1,1,1,0.5\n3,B,16,1,1,1,1,0.6\n3,A,32,1,2,1,1,0.7\n");
        let imp = parse("c.csv", &text, &opts()).expect("valid");
        assert_eq!((imp.pairs, imp.rows.len()), (2, 3));
    }

    #[test]
    fn complete_only_drops_data_sets_lacking_a_learner() {
        let text = curves(
            "3,A,16,1,1,1,1,0.5\n3,B,16,1,1,1,1,0.6\n3,B,32,1,1,1,1,0.6\n\
             6,A,16,1,1,1,1,0.7\n6,A,32,1,1,1,1,0.7\n",
        );
        let o = LcdbOptions {
            complete_only: true,
            ..opts()
        };
        let imp = parse("c.csv", &text, &o).expect("valid");
        assert_eq!(
            (imp.users, imp.pairs, imp.rows.len(), imp.dropped),
            (1, 2, 3, 1)
        );
        assert!(imp.rows.iter().all(|r| r.user == "openml-3"));
    }

    #[test]
    fn rejects_a_repeated_or_decreasing_anchor_naming_both_lines() {
        let e = err(&curves("3,A,16,1,1,1,1,0.5\n3,A,16,1,1,1,1,0.6\n"));
        assert_eq!(e.kind(), ErrorKind::Input);
        assert!(
            e.message().starts_with(
                "bad.csv: line 3: field `size_train`: anchor 16 of (openmlid 3, learner `A`) repeats the anchor at bad.csv: line 2"
            ),
            "{e}"
        );
        let e = err(&curves(
            "3,A,16,1,1,1,1,0.5\n3,B,8,1,1,1,1,0.5\n3,A,32,1,1,1,1,0.6\n3,A,23,1,1,1,1,0.6\n",
        ));
        assert!(
            e.message().starts_with(
                "bad.csv: line 5: field `size_train`: anchor 23 of (openmlid 3, learner `A`) is below the anchor 32 at bad.csv: line 4"
            ),
            "{e}"
        );
    }

    #[test]
    fn rejects_bad_numbers_and_missing_columns_with_file_line_and_field() {
        for (body, want) in [
            ("x3,A,16,1,1,1,1,0.5\n", "line 2: field `openmlid`"),
            (
                "3,A,many,1,1,1,1,0.5\n",
                "line 2: field `size_train`: expected a finite number",
            ),
            (
                "3,A,0,1,1,1,1,0.5\n",
                "line 2: field `size_train`: expected a training-set size > 0",
            ),
            (
                "3,A,16,1,1,1,1,0.5\n3,A,32,1,fast,1,1,0.6\n",
                "line 3: field `traintime_mean_s`",
            ),
            (
                "3,A,16,1,-1,1,1,0.5\n",
                "line 2: field `traintime_mean_s`: expected seconds >= 0",
            ),
            (
                "3,A,16,1,1,1,1,1.5\n",
                "line 2: field `score_test_mean`: expected an accuracy in [0, 1]",
            ),
            (
                "3,A,16,1,1,1,1,NaN\n",
                "line 2: field `score_test_mean`: expected a finite number",
            ),
            ("3,,16,1,1,1,1,0.5\n", "line 2: field `learner`"),
            ("3,A,16,1,1,1\n", "line 2: expected 8 fields"),
        ] {
            let e = err(&curves(body));
            assert_eq!(e.kind(), ErrorKind::Input, "{body}");
            assert!(
                e.message().starts_with(&format!("bad.csv: {want}")),
                "{body}: {e}"
            );
        }
        let e = err("openmlid,learner,traintime_mean_s,score_test_mean\n3,A,1,0.5\n");
        assert!(
            e.message()
                .starts_with("bad.csv: line 1: missing column `size_train`"),
            "{e}"
        );
        let e = err(HEADER);
        assert!(e.message().contains("no rows"), "{e}");
    }

    #[test]
    fn run_import_writes_the_trace_and_reports() {
        let dir = tempfile::tempdir().expect("temp dir");
        let input = dir.path().join("in.csv");
        std::fs::write(&input, curves("3,A,16,1,0.5,1,1,0.5\n3,A,32,1,1,1,1,0.6\n"))
            .expect("input");
        let out = dir.path().join("out.csv");
        let report = run_import_curves(&input, &opts(), &out).expect("imports");
        assert_eq!((report.pairs, report.rows), (1, 2));
        assert_eq!(
            std::fs::read_to_string(&out).expect("written"),
            "user,model,fidelity,accuracy,runtime_s\nopenml-3,A,16,0.5,0.5\nopenml-3,A,32,0.6,1\n"
        );
        let line = report.to_string();
        assert!(
            line.starts_with(
                "imported lcdb-curves trace: 1 users, 1 models, 1 pairs, 2 curve rows"
            ),
            "{line}"
        );
        let e = run_import_curves(&dir.path().join("absent.csv"), &opts(), &out)
            .expect_err("missing input");
        assert!(e.message().contains("not found"), "{e}");
    }
}
