//! LCDB (Mohr et al., ECML-PKDD 2022): `lcdb_final.csv`, one row per
//! (OpenML data set, scikit-learn learner) at the largest training-set size
//! the learner reached on that data set.
//!
//! What becomes what:
//! - `user` = `openml-<openmlid>` (the OpenML data set id, prefixed so the id
//!   says where it comes from and is never mistaken for an index).
//! - `model` = `learner` shortened to its class name: the 16
//!   `sklearn.<module>.<Class>` paths become `<Class>` (e.g.
//!   `sklearn.ensemble.RandomForestClassifier` → `RandomForestClassifier`);
//!   the `SVC_*` names stay as they are. Should two learners of a file share a
//!   class name, both keep their full path, so ids stay unique.
//! - `accuracy` = `score_test_mean` by default, or `score_valid_mean` /
//!   `score_train_mean` ([`LcdbScore`]): the mean accuracy over the seed runs
//!   at that anchor, already in [0, 1].
//! - `runtime_s` = `traintime_mean_s`, the mean wall-clock seconds of `fit()`
//!   at that anchor. A runtime below [`RUNTIME_FLOOR_S`] (the file rounds to
//!   5 decimals, so a very fast fit can read `0`) is raised to that 1 µs floor
//!   and counted in [`Imported::runtime_floored`]; a negative runtime is an
//!   error. With [`RuntimeModel::Unit`] the column is ignored and every job
//!   takes 1 s.
//! - No `model_year` / `model_citations`: LCDB has no such metadata and this
//!   importer does not make any up, so the `most-recent` / `most-cited`
//!   heuristics cannot run on an LCDB trace.
//!
//! Dropped: every other column (anchors, standard deviations, data set
//! meta-features: the simulator replays one accuracy and one cost per pair).
//! With `complete_only`, data sets lacking any learner that appears in the
//! file are dropped whole (their pairs count as dropped), so every user has
//! the same candidate set. Pairs absent from the file (learners that failed
//! or timed out) are simply unavailable.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::{Imported, RUNTIME_FLOOR_S, RuntimeModel, UNIT_RUNTIME_S, parse_number, read_text};
use crate::core::choice::Choice;
use crate::core::error::{Error, Result};
use crate::core::io::echo::shown_number;
use crate::models::trace::{TraceBuilder, TraceRow};

/// Which LCDB score becomes the accuracy (named as in [`Choice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LcdbScore {
    /// `score_test_mean`: accuracy on the held-out test split.
    #[default]
    Test,
    /// `score_valid_mean`: accuracy on the validation split.
    Valid,
    /// `score_train_mean`: accuracy on the training data.
    Train,
}

impl Choice for LcdbScore {
    const ALL: &'static [Self] = &[Self::Test, Self::Valid, Self::Train];

    fn name(self) -> &'static str {
        match self {
            Self::Test => "test",
            Self::Valid => "valid",
            Self::Train => "train",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Test => "`score_test_mean`: accuracy on the held-out test split",
            Self::Valid => "`score_valid_mean`: accuracy on the validation split",
            Self::Train => "`score_train_mean`: accuracy on the training data",
        }
    }
}

impl LcdbScore {
    /// The column of `lcdb_final.csv` this score reads.
    pub fn column(self) -> &'static str {
        match self {
            Self::Test => "score_test_mean",
            Self::Valid => "score_valid_mean",
            Self::Train => "score_train_mean",
        }
    }
}

/// Options of the LCDB importer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LcdbOptions {
    /// The score that becomes accuracy.
    pub score: LcdbScore,
    /// Keep only data sets that have every learner of the file.
    pub complete_only: bool,
    /// Measured `traintime_mean_s` (default) or 1 s per job.
    pub runtime: RuntimeModel,
}

const USER_COLUMN: &str = "openmlid";
const MODEL_COLUMN: &str = "learner";
const RUNTIME_COLUMN: &str = "traintime_mean_s";

/// Read `lcdb_final.csv` at `path` into validated trace rows.
pub fn read(path: &Path, opts: &LcdbOptions) -> Result<Vec<TraceRow>> {
    read_with_stats(path, opts).map(|i| i.rows)
}

/// Like [`read`], with counts.
pub fn read_with_stats(path: &Path, opts: &LcdbOptions) -> Result<Imported> {
    let text = read_text(path, "LCDB file")?;
    parse(&path.display().to_string(), &text, opts)
}

/// The model id for an LCDB learner name: the text after the last `.`
/// (`sklearn.tree.DecisionTreeClassifier` → `DecisionTreeClassifier`).
pub fn short_learner_name(learner: &str) -> &str {
    learner.rsplit('.').next().unwrap_or(learner)
}

struct Raw {
    where_: String,
    dataset: u64,
    learner: String,
    accuracy: f64,
    runtime_s: f64,
    floored: bool,
}

/// Parse LCDB CSV `text`; `source` names it in errors.
pub fn parse(source: &str, text: &str, opts: &LcdbOptions) -> Result<Imported> {
    let (mut reader, headers) =
        crate::core::io::csv_columns::csv_with_header(source, text.as_bytes())?;
    let find = |name: &str| -> Result<usize> {
        crate::core::io::csv_columns::find_column(&headers, &[name])
            .ok_or_else(|| {
                Error::input(format!(
                    "{source}: line 1: missing column `{name}`: expected an LCDB header with openmlid, learner, {}, {RUNTIME_COLUMN}",
                    opts.score.column()
                ))
            })
    };
    let user_col = find(USER_COLUMN)?;
    let model_col = find(MODEL_COLUMN)?;
    let score_col = find(opts.score.column())?;
    let runtime_col = match opts.runtime {
        RuntimeModel::Measured => Some(find(RUNTIME_COLUMN)?),
        RuntimeModel::Unit => None,
    };

    let mut raws = Vec::new();
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let where_ = format!("{source}: line {line}");
        let get = |i: usize| record.get(i).unwrap_or("");
        let id_text = get(user_col);
        let dataset = id_text.parse::<u64>().map_err(|_| {
            Error::input(format!(
                "{where_}: field `{USER_COLUMN}`: expected an OpenML data set id (a whole number), got `{}`",
                crate::core::io::echo::shown(id_text)
            ))
        })?;
        let accuracy = parse_number(get(score_col), opts.score.column(), &where_)?;
        let mut floored = false;
        let runtime_s = match runtime_col {
            None => UNIT_RUNTIME_S,
            Some(col) => {
                let t = parse_number(get(col), RUNTIME_COLUMN, &where_)?;
                if t < 0.0 {
                    return Err(Error::input(format!(
                        "{where_}: field `{RUNTIME_COLUMN}`: expected seconds >= 0, got {}",
                        shown_number(t)
                    )));
                }
                let (t, raised) = floor_runtime(t);
                floored = raised;
                t
            }
        };
        raws.push(Raw {
            where_,
            dataset,
            learner: get(model_col).to_string(),
            accuracy,
            runtime_s,
            floored,
        });
    }

    let names = model_names(raws.iter().map(|r| r.learner.as_str()));
    let mut dropped = 0;
    if opts.complete_only {
        let complete = complete_datasets(raws.iter().map(|r| (r.dataset, r.learner.as_str())));
        let before = raws.len();
        raws.retain(|r| complete.contains(&r.dataset));
        dropped = before - raws.len();
    }
    let floored = raws.iter().filter(|r| r.floored).count();

    let mut builder = TraceBuilder::new(source, false, false);
    let mut rows = Vec::with_capacity(raws.len());
    for r in raws {
        let row = TraceRow {
            user: format!("openml-{}", r.dataset),
            model: names
                .get(&r.learner)
                .map_or_else(|| r.learner.clone(), Clone::clone),
            accuracy: r.accuracy,
            runtime_s: r.runtime_s,
            model_year: None,
            model_citations: None,
        };
        builder.push(&row, &r.where_)?;
        rows.push(row);
    }
    let trace = builder.finish()?;
    Ok(Imported::new(rows, &trace, dropped, floored, opts.runtime))
}

/// The data sets with a row of every learner of the table
/// (`--complete-only`), from (data set, learner) of every row or pair.
pub(crate) fn complete_datasets<'a>(rows: impl Iterator<Item = (u64, &'a str)>) -> HashSet<u64> {
    let mut all: HashSet<&str> = HashSet::new();
    let mut per_dataset: HashMap<u64, HashSet<&str>> = HashMap::new();
    for (d, l) in rows {
        all.insert(l);
        per_dataset.entry(d).or_default().insert(l);
    }
    per_dataset
        .into_iter()
        .filter(|(_, s)| s.len() == all.len())
        .map(|(d, _)| d)
        .collect()
}

/// A measured runtime raised to the 1 µs floor ([`RUNTIME_FLOOR_S`]), and
/// whether it was.
pub(crate) fn floor_runtime(t: f64) -> (f64, bool) {
    if t < RUNTIME_FLOOR_S {
        (RUNTIME_FLOOR_S, true)
    } else {
        (t, false)
    }
}

/// Short model id per distinct learner name; learners whose short name is
/// shared with another learner keep their full name.
pub(crate) fn model_names<'a>(learners: impl Iterator<Item = &'a str>) -> HashMap<String, String> {
    let distinct: HashSet<&str> = learners.collect();
    let mut by_short: HashMap<&str, usize> = HashMap::new();
    for l in &distinct {
        *by_short.entry(short_learner_name(l)).or_default() += 1;
    }
    distinct
        .into_iter()
        .map(|l| {
            let short = short_learner_name(l);
            let id = if by_short[short] == 1 { short } else { l };
            (l.to_string(), id.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;

    const HEADER: &str = "openmlid,dataset_name,learner,anchor,traintime_mean_s,score_train_mean,score_valid_mean,score_test_mean\n";

    fn lcdb(body: &str) -> String {
        format!("{HEADER}{body}")
    }

    fn opts() -> LcdbOptions {
        LcdbOptions::default()
    }

    #[test]
    fn maps_columns_and_shortens_learners() {
        let text = lcdb(
            "3,toy-a,SVC_linear,2000,0.0625,0.95,0.94,0.93\n\
             3,toy-a,sklearn.ensemble.RandomForestClassifier,2000,0.5,1.0,0.99,0.98\n\
             6,toy-b,SVC_linear,16000,12.25,0.8,0.7,0.75\n",
        );
        let imp = parse("small.csv", &text, &opts()).expect("valid");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (2, 2, 3, 0)
        );
        let r = &imp.rows[1];
        assert_eq!(r.user, "openml-3");
        assert_eq!(r.model, "RandomForestClassifier");
        assert_eq!(r.accuracy, 0.98);
        assert_eq!(r.runtime_s, 0.5);
        assert_eq!(imp.rows[2].runtime_s, 12.25);
        assert_eq!((r.model_year, r.model_citations), (None, None));
    }

    #[test]
    fn score_option_selects_the_column() {
        let text = lcdb("3,x,SVC_rbf,10,0.1,0.91,0.92,0.93\n");
        let acc = |score| {
            let o = LcdbOptions { score, ..opts() };
            parse("s.csv", &text, &o).expect("valid").rows[0].accuracy
        };
        assert_eq!(acc(LcdbScore::Test), 0.93);
        assert_eq!(acc(LcdbScore::Valid), 0.92);
        assert_eq!(acc(LcdbScore::Train), 0.91);
    }

    #[test]
    fn zero_runtime_is_raised_to_the_floor_and_counted() {
        let text = lcdb("3,x,SVC_rbf,10,0.0,0.9,0.9,0.9\n3,x,SVC_poly,10,0.00001,0.9,0.9,0.9\n");
        let imp = parse("s.csv", &text, &opts()).expect("valid");
        assert_eq!(imp.rows[0].runtime_s, 1e-6);
        assert_eq!(imp.rows[1].runtime_s, 1e-5);
        assert_eq!(imp.runtime_floored, 1);
    }

    #[test]
    fn unit_runtime_ignores_the_time_column() {
        let text = "openmlid,learner,score_test_mean\n3,SVC_rbf,0.5\n";
        let o = LcdbOptions {
            runtime: RuntimeModel::Unit,
            ..opts()
        };
        let imp = parse("s.csv", text, &o).expect("valid");
        assert_eq!(imp.rows[0].runtime_s, 1.0);
        assert_eq!(imp.runtime, RuntimeModel::Unit);
    }

    #[test]
    fn complete_only_keeps_data_sets_with_every_learner() {
        let text = lcdb(
            "3,a,L1,1,1,1,1,0.5\n3,a,L2,1,1,1,1,0.6\n\
             6,b,L1,1,1,1,1,0.7\n\
             9,c,L2,1,1,1,1,0.8\n9,c,L1,1,1,1,1,0.9\n",
        );
        let o = LcdbOptions {
            complete_only: true,
            ..opts()
        };
        let imp = parse("s.csv", &text, &o).expect("valid");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (2, 2, 4, 1)
        );
        let users: Vec<&str> = imp.rows.iter().map(|r| r.user.as_str()).collect();
        assert_eq!(users, ["openml-3", "openml-3", "openml-9", "openml-9"]);
    }

    #[test]
    fn colliding_short_names_keep_full_paths() {
        let text = lcdb(
            "3,a,pkg.a.Model,1,1,1,1,0.5\n3,a,pkg.b.Model,1,1,1,1,0.6\n3,a,x.Other,1,1,1,1,0.6\n",
        );
        let imp = parse("s.csv", &text, &opts()).expect("valid");
        let models: Vec<&str> = imp.rows.iter().map(|r| r.model.as_str()).collect();
        assert_eq!(models, ["pkg.a.Model", "pkg.b.Model", "Other"]);
    }

    fn err(text: &str) -> Error {
        parse("bad.csv", text, &opts()).expect_err("must be rejected")
    }

    #[test]
    fn rejects_a_bad_number_with_file_and_line() {
        let e = err(&lcdb("3,a,L1,1,1,1,1,0.5\n3,a,L2,1,fast,1,1,0.6\n"));
        assert_eq!(e.kind(), ErrorKind::Input);
        assert!(
            e.message()
                .starts_with("bad.csv: line 3: field `traintime_mean_s`"),
            "{e}"
        );
        let e = err(&lcdb("x3,a,L1,1,1,1,1,0.5\n"));
        assert!(
            e.message().starts_with("bad.csv: line 2: field `openmlid`"),
            "{e}"
        );
    }

    #[test]
    fn rejects_wrong_column_count_missing_header_and_out_of_range() {
        let e = err(&lcdb("3,a,L1,1,1,1,1,0.5\n3,a,L2,1,1,1\n"));
        assert!(
            e.message()
                .starts_with("bad.csv: line 3: expected 8 fields"),
            "{e}"
        );
        let e = err("3,a,L1,1,1,1,1,0.5\n");
        assert!(
            e.message()
                .starts_with("bad.csv: line 1: missing column `openmlid`"),
            "{e}"
        );
        let e = err("");
        assert!(
            e.message().starts_with("bad.csv: line 1: missing column"),
            "{e}"
        );
        let e = err(&lcdb("3,a,L1,1,1,1,1,1.5\n"));
        assert!(
            e.message().starts_with("bad.csv: line 2: field `accuracy`"),
            "{e}"
        );
        let e = err(&lcdb("3,a,L1,1,-2,1,1,0.5\n"));
        assert!(
            e.message()
                .contains("line 2: field `traintime_mean_s`: expected seconds >= 0"),
            "{e}"
        );
        let e = err(&lcdb("3,a,L1,1,1,1,1,0.5\n3,a,L1,1,1,1,1,0.5\n"));
        assert!(
            e.message().starts_with("bad.csv: line 3: duplicate pair"),
            "{e}"
        );
        let e = err(HEADER);
        assert!(e.message().contains("no rows"), "{e}");
    }

    #[test]
    fn reads_a_fixture_file_and_names_it_in_errors() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import");
        let imp = read_with_stats(&dir.join("lcdb_small.csv"), &opts()).expect("valid fixture");
        assert_eq!((imp.users, imp.models, imp.pairs()), (2, 3, 5));
        let e = read(&dir.join("lcdb_bad_number.csv"), &opts()).expect_err("bad fixture");
        assert!(
            e.message()
                .contains("lcdb_bad_number.csv: line 3: field `score_test_mean`"),
            "{e}"
        );
        let e = read(&dir.join("no_such_file.csv"), &opts()).expect_err("missing");
        assert!(e.message().contains("not found"), "{e}");
    }
}
