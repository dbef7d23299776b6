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
//!
//! Every importer pushes its rows through [`TraceBuilder`](super::TraceBuilder), so what it
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
pub mod fernandez_delgado;
pub mod lcdb;
pub mod matrix;
pub mod model_metadata;

use std::fmt;
use std::path::{Path, PathBuf};

use super::{Trace, TraceRow, write_trace};
use crate::core::error::{Error, Result};
use crate::core::io::read_input;

/// Seconds per job under [`RuntimeModel::Unit`].
pub const UNIT_RUNTIME_S: f64 = 1.0;

/// The 1 µs floor for measured runtimes (see each format); floored runtimes
/// are counted in [`Imported::runtime_floored`].
pub use super::RUNTIME_FLOOR_S;

/// The input formats [`run_import`] understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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

impl ImportFormat {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lcdb => "lcdb",
            Self::FernandezDelgado => "fernandez-delgado",
            Self::Matrix => "matrix",
            Self::Aslib => "aslib",
        }
    }
}

/// Where the runtimes of an imported trace come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RuntimeModel {
    /// The runtimes measured in the data (only for formats that have them).
    #[default]
    Measured,
    /// No runtime information: every job takes 1 s, so cost-aware policies
    /// see uniform costs. Required for data without runtimes.
    Unit,
}

impl RuntimeModel {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Measured => "measured",
            Self::Unit => "unit",
        }
    }
}

/// The rows an importer produced, already validated, with counts.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Canonical trace rows, in input order.
    pub rows: Vec<TraceRow>,
    /// Distinct users.
    pub users: usize,
    /// Distinct models.
    pub models: usize,
    /// (user, model) cells of the input that did not become rows (missing
    /// values, failed runs, filtered out); what counts is documented per
    /// format.
    pub dropped: usize,
    /// Runtimes raised to [`RUNTIME_FLOOR_S`].
    pub runtime_floored: usize,
    /// Where the runtimes came from.
    pub runtime: RuntimeModel,
}

impl Imported {
    fn new(
        rows: Vec<TraceRow>,
        trace: &Trace,
        dropped: usize,
        runtime_floored: usize,
        runtime: RuntimeModel,
    ) -> Self {
        Self {
            rows,
            users: trace.n_users(),
            models: trace.n_models(),
            dropped,
            runtime_floored,
            runtime,
        }
    }

    /// Number of (user, model) pairs.
    pub fn pairs(&self) -> usize {
        self.rows.len()
    }
}

/// Command-line arguments of `tenantsim import`.
#[derive(Debug, Clone, clap::Args)]
pub struct ImportArgs {
    /// Input format.
    #[arg(value_enum, value_name = "FORMAT")]
    pub format: ImportFormat,

    /// Input file(s). lcdb: lcdb_final.csv; fernandez-delgado: results.txt;
    /// aslib: algorithm_runs.arff or the scenario folder; matrix: one or more
    /// accuracy matrices (rows = users, columns = models), stacked in order.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Where to write the canonical trace CSV (written atomically).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,

    /// Where runtimes come from: `measured` (the data's own; the default
    /// where the format has them) or `unit` (every job takes 1 s; required
    /// for fernandez-delgado, for aslib without a runtime column and for
    /// matrix without --runtime-matrix).
    #[arg(long, value_enum, value_name = "MODEL")]
    pub runtime: Option<RuntimeModel>,

    /// lcdb: the score that becomes accuracy [default: test].
    #[arg(long, value_enum, value_name = "SCORE")]
    pub score: Option<lcdb::LcdbScore>,

    /// lcdb: keep only data sets that have a result for every learner in the
    /// file (drops the others, counted as dropped pairs).
    #[arg(long)]
    pub complete_only: bool,

    /// matrix: runtime matrix in seconds, same shape as its accuracy matrix,
    /// or a single row of per-model runtimes applied to every user. Give it
    /// once per input, in the same order.
    #[arg(long, value_name = "PATH")]
    pub runtime_matrix: Vec<PathBuf>,

    /// matrix: file with one user id per line, one file per input in order
    /// [default: u0, u1, ... over all stacked rows].
    #[arg(long, value_name = "PATH")]
    pub row_labels: Vec<PathBuf>,

    /// matrix: file with one model id per line [default: m0, m1, ...].
    #[arg(long, value_name = "PATH")]
    pub col_labels: Option<PathBuf>,

    /// matrix: a value that means "missing" (e.g. `0` or `NA`); such cells
    /// become unavailable pairs, counted as dropped.
    #[arg(long, value_name = "TOKEN")]
    pub missing: Option<String>,

    /// Any format: CSV `model,model_year,model_citations` (either metadata
    /// column may be left out) with one row per model of the imported
    /// trace, joined on its model ids (matrix: the --col-labels ids, else
    /// m0, m1, ... with column 1 = m0).
    #[arg(long, value_name = "PATH")]
    pub model_metadata: Option<PathBuf>,

    /// aslib: the performance measure that becomes accuracy; it must be
    /// maximised and lie in [0, 1] [default: the scenario's first measure,
    /// else predictive_accuracy].
    #[arg(long, value_name = "NAME")]
    pub measure: Option<String>,
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
/// `args.out` atomically and report the counts.
///
/// Options that do not apply to the format, or a wrong number of inputs, are
/// usage errors; malformed input is an input error naming file and line.
pub fn run_import(args: &ImportArgs) -> Result<ImportReport> {
    let imported = import_rows(args)?;
    write_trace(&args.out, &imported.rows)?;
    Ok(ImportReport {
        format: args.format,
        out: args.out.clone(),
        users: imported.users,
        models: imported.models,
        pairs: imported.pairs(),
        dropped: imported.dropped,
        runtime_floored: imported.runtime_floored,
        runtime: imported.runtime,
    })
}

/// Import `args.inputs` in `args.format` and validate, without writing
/// (`args.out` is not used). Scenarios that import on the fly use this.
pub fn import_rows(args: &ImportArgs) -> Result<Imported> {
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
fn check_options(args: &ImportArgs) -> Result<()> {
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

fn single_input(args: &ImportArgs) -> Result<&Path> {
    match args.inputs.as_slice() {
        [one] => Ok(one),
        many => Err(Error::usage(format!(
            "the {} format takes exactly one input, got {}",
            args.format.name(),
            many.len()
        ))),
    }
}

fn matrix_parts(args: &ImportArgs) -> Result<Vec<matrix::MatrixFiles>> {
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

/// Read a whole input file as UTF-8 text; invalid UTF-8 is reported with
/// the line it is on.
pub(crate) fn read_text(path: &Path, what: &str) -> Result<String> {
    let bytes = read_input(path, what)?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        Error::input(format!(
            "{}: line {line}: invalid UTF-8: expected text encoded as UTF-8",
            path.display()
        ))
    })
}

/// Parse a number from `text` found at `where_` as the named `field`.
pub(crate) fn parse_number(text: &str, field: &str, where_: &str) -> Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(Error::input(format!(
            "{where_}: field `{field}`: expected a finite number, got `{}`",
            crate::core::echo::shown(text)
        ))),
    }
}

#[cfg(test)]
mod real_data_tests;
#[cfg(test)]
mod run_tests;
