//! Importers: turn published benchmark tables into canonical traces
//! (DESIGN §1.2).
//!
//! One module per input format; each documents what it reads, which column
//! becomes `accuracy` and `runtime_s`, and what it drops and why:
//!
//! | format | module | runtime |
//! |---|---|---|
//! | `lcdb` | [`lcdb`] | measured (`traintime_mean_s`) |
//! | `fernandez-delgado` | [`fernandez_delgado`] | none in the data: `--runtime unit` required |
//! | `matrix` | [`matrix`] | from `--runtime-matrix` files, or `--runtime unit` |
//! | `aslib` | [`aslib`] | the `runtime` attribute if present, else `--runtime unit` required |
//! | `table` (command line only) | [`table`] | the column `--runtime` names, or `--runtime unit` |
//!
//! Every importer pushes its rows through [`TraceBuilder`](crate::models::trace::TraceBuilder), so what it
//! returns passes the same checks as a loaded trace, and it rejects
//! malformed input with an [`Error::input`] naming the file and the line.
//! No importer invents a runtime silently: where the data has none the
//! caller must choose [`RuntimeModel::Unit`] (every job takes
//! [`UNIT_RUNTIME_S`]), and the report says so.
//!
//! Any format can take `--model-metadata FILE` ([`model_metadata`]): a
//! `model,model_year,model_citations` CSV joined on the imported model ids,
//! for the "most recent" / "most cited" heuristics on data that has no
//! such columns (none of the formats above has them).
//!
//! [`run_import`] is the command-line entry: it reads, validates, writes the
//! trace atomically with [`write_trace`] and returns an [`ImportReport`].

pub mod aslib;
mod common;
pub mod fernandez_delgado;
pub mod lcdb;
pub mod lcdb_curves;
pub mod matrix;
pub mod model_metadata;
pub mod table;

pub use common::{Imported, RUNTIME_FLOOR_S, RuntimeModel, UNIT_RUNTIME_S};
pub(crate) use common::{parse_number, read_text};

use std::fmt;
use std::path::{Path, PathBuf};

use crate::core::choice::Choice;
use crate::core::error::{Error, Result};
use crate::models::trace::write_trace;

/// The input formats [`run_import`] understands (named as in
/// [`Choice`]; `--help` shows [`Choice::help`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// LCDB `lcdb_final.csv` (one row per data set and learner).
    Lcdb,
    /// Fernández-Delgado et al. 2014 `results.txt` (accuracy in percent).
    FernandezDelgado,
    /// Whitespace-separated accuracy (and runtime) matrices, users × models.
    Matrix,
    /// ASlib scenario `algorithm_runs.arff` (or the scenario folder).
    Aslib,
}

impl Choice for ImportFormat {
    const ALL: &'static [Self] = &[
        Self::Lcdb,
        Self::FernandezDelgado,
        Self::Matrix,
        Self::Aslib,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Lcdb => "lcdb",
            Self::FernandezDelgado => "fernandez-delgado",
            Self::Matrix => "matrix",
            Self::Aslib => "aslib",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Lcdb => "LCDB `lcdb_final.csv` (one row per data set and learner)",
            Self::FernandezDelgado => {
                "Fernández-Delgado et al. 2014 `results.txt` (accuracy in percent)"
            }
            Self::Matrix => "Whitespace-separated accuracy (and runtime) matrices, users × models",
            Self::Aslib => "ASlib scenario `algorithm_runs.arff` (or the scenario folder)",
        }
    }
}

/// What to import: the options of `tenantsim import` (and of a
/// scenario's `[trace.import]`), without the output path.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOptions {
    /// Input format.
    pub format: ImportFormat,
    /// Input file(s); how many a format takes is checked by [`import_rows`].
    pub inputs: Vec<PathBuf>,
    /// Where runtimes come from [default: the format's own].
    pub runtime: Option<RuntimeModel>,
    /// lcdb: the score that becomes accuracy [default: test].
    pub score: Option<lcdb::LcdbScore>,
    /// lcdb: keep only data sets that have a result for every learner.
    pub complete_only: bool,
    /// matrix: one runtime matrix per input, in order.
    pub runtime_matrix: Vec<PathBuf>,
    /// matrix: one user-id file per input, in order.
    pub row_labels: Vec<PathBuf>,
    /// matrix: file with one model id per line.
    pub col_labels: Option<PathBuf>,
    /// matrix: a value that means "missing".
    pub missing: Option<String>,
    /// Any format: `model,model_year,model_citations` CSV joined on the
    /// model ids.
    pub model_metadata: Option<PathBuf>,
    /// aslib: the performance measure that becomes accuracy.
    pub measure: Option<String>,
}

impl ImportOptions {
    /// `format` on `inputs`, every other option unset.
    pub fn new(format: ImportFormat, inputs: Vec<PathBuf>) -> Self {
        Self {
            format,
            inputs,
            runtime: None,
            score: None,
            complete_only: false,
            runtime_matrix: Vec::new(),
            row_labels: Vec::new(),
            col_labels: None,
            missing: None,
            model_metadata: None,
            measure: None,
        }
    }
}

/// What [`run_import`] did, for a one-line summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    /// The input format.
    pub format: ImportFormat,
    /// The trace written.
    pub out: PathBuf,
    /// Distinct users in the trace.
    pub users: usize,
    /// Distinct models in the trace.
    pub models: usize,
    /// (user, model) pairs in the trace.
    pub pairs: usize,
    /// Input cells that did not become pairs (see each format's docs).
    pub dropped: usize,
    /// Runtimes raised to the 1 µs floor.
    pub runtime_floored: usize,
    /// Where the runtimes came from.
    pub runtime: RuntimeModel,
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "imported {} trace: {} users, {} models, {} pairs ({} dropped); runtimes: {}",
            self.format.name(),
            self.users,
            self.models,
            self.pairs,
            self.dropped,
            match self.runtime {
                RuntimeModel::Measured => "measured",
                RuntimeModel::Unit => "unit (1 s per job, not from the data)",
            }
        )?;
        if self.runtime_floored > 0 {
            write!(f, " ({} raised to the 1 µs floor)", self.runtime_floored)?;
        }
        write!(f, "; wrote {}", self.out.display())
    }
}

/// Import `args.inputs` in `args.format`, validate, write the trace to
/// `out` atomically and report the counts.
///
/// Options that do not apply to the format, or a wrong number of inputs, are
/// usage errors; malformed input is an input error naming file and line.
pub fn run_import(args: &ImportOptions, out: &Path) -> Result<ImportReport> {
    let imported = import_rows(args)?;
    write_trace(out, &imported.rows)?;
    Ok(ImportReport {
        format: args.format,
        out: out.to_path_buf(),
        users: imported.users,
        models: imported.models,
        pairs: imported.pairs(),
        dropped: imported.dropped,
        runtime_floored: imported.runtime_floored,
        runtime: imported.runtime,
    })
}

/// Import `args.inputs` in `args.format` and validate, without writing.
/// Scenarios that import on the fly use this.
pub fn import_rows(args: &ImportOptions) -> Result<Imported> {
    check_options(args)?;
    let mut imported = match args.format {
        ImportFormat::Lcdb => {
            let opts = lcdb::LcdbOptions {
                score: args.score.unwrap_or_default(),
                complete_only: args.complete_only,
                runtime: args.runtime.unwrap_or_default(),
            };
            lcdb::read_with_stats(single_input(args)?, &opts)?
        }
        ImportFormat::FernandezDelgado => fernandez_delgado::read_with_stats(
            single_input(args)?,
            args.runtime.unwrap_or_default(),
        )?,
        ImportFormat::Aslib => {
            let opts = aslib::AslibOptions {
                measure: args.measure.clone(),
                runtime: args.runtime,
            };
            aslib::read_with_stats(single_input(args)?, &opts)?
        }
        ImportFormat::Matrix => {
            let parts = matrix_parts(args)?;
            let opts = matrix::MatrixOptions {
                col_labels: args.col_labels.clone(),
                missing: args.missing.clone(),
                runtime: args.runtime,
            };
            matrix::read_with_stats(&parts, &opts)?
        }
    };
    if let Some(path) = &args.model_metadata {
        model_metadata::attach_file(path, &mut imported.rows)?;
    }
    Ok(imported)
}

/// Reject options that do not apply to the chosen format.
fn check_options(args: &ImportOptions) -> Result<()> {
    let f = args.format;
    let mut given: Vec<(&str, bool, bool)> = vec![
        ("--score", args.score.is_some(), f == ImportFormat::Lcdb),
        (
            "--complete-only",
            args.complete_only,
            f == ImportFormat::Lcdb,
        ),
        (
            "--runtime-matrix",
            !args.runtime_matrix.is_empty(),
            f == ImportFormat::Matrix,
        ),
        (
            "--row-labels",
            !args.row_labels.is_empty(),
            f == ImportFormat::Matrix,
        ),
        (
            "--col-labels",
            args.col_labels.is_some(),
            f == ImportFormat::Matrix,
        ),
        (
            "--missing",
            args.missing.is_some(),
            f == ImportFormat::Matrix,
        ),
        (
            "--measure",
            args.measure.is_some(),
            f == ImportFormat::Aslib,
        ),
    ];
    given.retain(|&(_, present, applies)| present && !applies);
    if let Some((name, _, _)) = given.first() {
        return Err(Error::usage(format!(
            "option {name} does not apply to the {} format",
            f.name()
        )));
    }
    Ok(())
}

fn single_input(args: &ImportOptions) -> Result<&Path> {
    match args.inputs.as_slice() {
        [one] => Ok(one),
        many => Err(Error::usage(format!(
            "the {} format takes exactly one input, got {}",
            args.format.name(),
            many.len()
        ))),
    }
}

fn matrix_parts(args: &ImportOptions) -> Result<Vec<matrix::MatrixFiles>> {
    let n = args.inputs.len();
    let per_input = |list: &[PathBuf], option: &str| -> Result<Vec<Option<PathBuf>>> {
        match list.len() {
            0 => Ok(vec![None; n]),
            m if m == n => Ok(list.iter().cloned().map(Some).collect()),
            m => Err(Error::usage(format!(
                "{option} was given {m} times for {n} input matrices: give it once per input, in the same order"
            ))),
        }
    };
    let runtimes = per_input(&args.runtime_matrix, "--runtime-matrix")?;
    let labels = per_input(&args.row_labels, "--row-labels")?;
    Ok(args
        .inputs
        .iter()
        .zip(runtimes)
        .zip(labels)
        .map(|((accuracy, runtime), row_labels)| matrix::MatrixFiles {
            accuracy: accuracy.clone(),
            runtime,
            row_labels,
        })
        .collect())
}

#[cfg(test)]
mod real_data_tests;
#[cfg(test)]
mod run_tests;
