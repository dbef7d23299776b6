//! `tenantsim import`: the arguments, turned into [`ImportOptions`] (model
//! traces) or [`LcdbOptions`] (the `lcdb-curves` curve trace).

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::core::choice::Choice;
use crate::core::error::{Error, Result};
use crate::models::import::lcdb::{LcdbOptions, LcdbScore};
use crate::models::import::lcdb_curves::run_import_curves;
use crate::models::import::{ImportFormat, ImportOptions, RuntimeModel, run_import};

/// The formats of `tenantsim import`: every model-trace format of
/// [`ImportFormat`], then `lcdb-curves`, which writes a curve trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportCmdFormat {
    /// A model-trace format.
    Trace(ImportFormat),
    /// LCDB `lcdb_curves_mean.csv` into a curve trace.
    LcdbCurves,
}

const LCDB_CURVES: &str = "lcdb-curves";

static FORMATS: LazyLock<Vec<ImportCmdFormat>> = LazyLock::new(|| {
    ImportFormat::ALL
        .iter()
        .map(|&f| ImportCmdFormat::Trace(f))
        .chain([ImportCmdFormat::LcdbCurves])
        .collect()
});

impl ValueEnum for ImportCmdFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &FORMATS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Self::Trace(f) => PossibleValue::new(f.name()).help(f.help()),
            Self::LcdbCurves => PossibleValue::new(LCDB_CURVES).help(
                "LCDB `lcdb_curves_mean.csv` (one row per data set, learner and training-set \
                 size) into a curve trace (fidelity = size_train; cost from-scratch)",
            ),
        })
    }
}

/// Command-line arguments of `tenantsim import`.
#[derive(Debug, Clone, clap::Args)]
pub struct ImportArgs {
    /// Input format.
    #[arg(value_enum, value_name = "FORMAT")]
    pub format: ImportCmdFormat,

    /// Input file(s). lcdb: lcdb_final.csv; lcdb-curves: lcdb_curves_mean.csv;
    /// fernandez-delgado: results.txt;
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

    /// lcdb, lcdb-curves: the score that becomes accuracy [default: test].
    #[arg(long, visible_alias = "accuracy", value_enum, value_name = "SCORE")]
    pub score: Option<LcdbScore>,

    /// lcdb, lcdb-curves: keep only data sets that have a result for every learner in the
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

impl ImportArgs {
    /// The library's options for these arguments (all but `--out`), for a
    /// model-trace `format` (the curve format has [`ImportArgs::curve_options`]).
    pub fn options(&self, format: ImportFormat) -> ImportOptions {
        ImportOptions {
            format,
            inputs: self.inputs.clone(),
            runtime: self.runtime,
            score: self.score,
            complete_only: self.complete_only,
            runtime_matrix: self.runtime_matrix.clone(),
            row_labels: self.row_labels.clone(),
            col_labels: self.col_labels.clone(),
            missing: self.missing.clone(),
            model_metadata: self.model_metadata.clone(),
            measure: self.measure.clone(),
        }
    }

    /// The options of `lcdb-curves`: the lcdb options; any option of
    /// another format is a usage error naming it.
    pub fn curve_options(&self) -> Result<LcdbOptions> {
        let others = [
            ("--runtime-matrix", !self.runtime_matrix.is_empty()),
            ("--row-labels", !self.row_labels.is_empty()),
            ("--col-labels", self.col_labels.is_some()),
            ("--missing", self.missing.is_some()),
            ("--model-metadata", self.model_metadata.is_some()),
            ("--measure", self.measure.is_some()),
        ];
        if let Some((name, _)) = others.iter().find(|(_, given)| *given) {
            return Err(Error::usage(format!(
                "option {name} does not apply to the {LCDB_CURVES} format"
            )));
        }
        if self.inputs.len() != 1 {
            return Err(Error::usage(format!(
                "the {LCDB_CURVES} format takes exactly one input, got {}",
                self.inputs.len()
            )));
        }
        Ok(LcdbOptions {
            score: self.score.unwrap_or_default(),
            complete_only: self.complete_only,
            runtime: self.runtime.unwrap_or_default(),
        })
    }
}

/// `tenantsim import`: import, write and report on stderr. An existing
/// `--out` is replaced (atomically), for every format.
pub fn import(args: &ImportArgs) -> Result<()> {
    match args.format {
        ImportCmdFormat::Trace(format) => {
            let report = run_import(&args.options(format), &args.out)?;
            eprintln!("{report}");
        }
        ImportCmdFormat::LcdbCurves => {
            let opts = args.curve_options()?;
            let report = run_import_curves(&args.inputs[0], &opts, &args.out)?;
            eprintln!("{report}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        import: ImportArgs,
    }

    #[test]
    fn clap_arguments_parse() {
        Cli::command().debug_assert();
        let cli = Cli::try_parse_from([
            "import",
            "fernandez-delgado",
            "results.txt",
            "--out",
            "t.csv",
            "--runtime",
            "unit",
        ])
        .expect("parses");
        let a = cli.import;
        assert_eq!(
            a.format,
            ImportCmdFormat::Trace(ImportFormat::FernandezDelgado)
        );
        assert_eq!(a.inputs, [PathBuf::from("results.txt")]);
        assert_eq!(a.runtime, Some(RuntimeModel::Unit));
        let a = Cli::try_parse_from([
            "import",
            "lcdb",
            "f.csv",
            "--out",
            "t.csv",
            "--score",
            "valid",
            "--complete-only",
        ])
        .expect("parses")
        .import;
        assert_eq!((a.score, a.complete_only), (Some(LcdbScore::Valid), true));
        let a = Cli::try_parse_from([
            "import",
            "matrix",
            "prior.txt",
            "test.txt",
            "--runtime-matrix",
            "c.txt",
            "--runtime-matrix",
            "c.txt",
            "--missing",
            "0",
            "--out",
            "t.csv",
        ])
        .expect("parses")
        .import;
        assert_eq!((a.inputs.len(), a.runtime_matrix.len()), (2, 2));
        let o = a.options(ImportFormat::Matrix);
        assert_eq!(o.format, ImportFormat::Matrix);
        assert_eq!((o.inputs, o.runtime_matrix), (a.inputs, a.runtime_matrix));
        assert_eq!(o.missing.as_deref(), Some("0"));
        assert!(
            Cli::try_parse_from(["import", "lcdb", "f.csv"]).is_err(),
            "--out is required"
        );
        assert!(Cli::try_parse_from(["import", "csv", "f.csv", "--out", "t"]).is_err());
    }

    #[test]
    fn lcdb_curves_takes_the_lcdb_options_and_rejects_the_others() {
        let a = Cli::try_parse_from([
            "import",
            "lcdb-curves",
            "c.csv",
            "--out",
            "t.csv",
            "--accuracy",
            "valid",
        ])
        .expect("parses")
        .import;
        assert_eq!(a.format, ImportCmdFormat::LcdbCurves);
        let o = a.curve_options().expect("applies");
        assert_eq!(
            (o.score, o.complete_only, o.runtime),
            (LcdbScore::Valid, false, RuntimeModel::Measured)
        );
        let a = Cli::try_parse_from(["import", "lcdb-curves", "c.csv", "--out", "t.csv"])
            .expect("parses")
            .import;
        assert_eq!(a.curve_options().expect("applies"), LcdbOptions::default());
        let a = Cli::try_parse_from([
            "import",
            "lcdb-curves",
            "c.csv",
            "--out",
            "t.csv",
            "--missing",
            "0",
        ])
        .expect("parses")
        .import;
        let e = a.curve_options().expect_err("not an lcdb-curves option");
        assert_eq!(
            e.message(),
            "option --missing does not apply to the lcdb-curves format"
        );
        let a = Cli::try_parse_from(["import", "lcdb-curves", "a.csv", "b.csv", "--out", "t"])
            .expect("parses")
            .import;
        let e = a.curve_options().expect_err("two inputs");
        assert!(e.message().contains("exactly one input, got 2"), "{e}");
        let names: Vec<String> = ImportCmdFormat::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "lcdb",
                "fernandez-delgado",
                "matrix",
                "aslib",
                "lcdb-curves"
            ]
        );
    }
}
