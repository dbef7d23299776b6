//! `tenantsim import`: the arguments, turned into [`ImportOptions`].

use std::path::PathBuf;

use crate::core::error::Result;
use crate::models::import::lcdb::LcdbScore;
use crate::models::import::{ImportFormat, ImportOptions, RuntimeModel, run_import};

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
    pub score: Option<LcdbScore>,

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

impl ImportArgs {
    /// The library's options for these arguments (all but `--out`).
    pub fn options(&self) -> ImportOptions {
        ImportOptions {
            format: self.format,
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
}

/// `tenantsim import`: import, write and report on stderr.
pub fn import(args: &ImportArgs) -> Result<()> {
    let report = run_import(&args.options(), &args.out)?;
    eprintln!("{report}");
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
        assert_eq!(a.format, ImportFormat::FernandezDelgado);
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
        let o = a.options();
        assert_eq!(o.format, ImportFormat::Matrix);
        assert_eq!((o.inputs, o.runtime_matrix), (a.inputs, a.runtime_matrix));
        assert_eq!(o.missing.as_deref(), Some("0"));
        assert!(
            Cli::try_parse_from(["import", "lcdb", "f.csv"]).is_err(),
            "--out is required"
        );
        assert!(Cli::try_parse_from(["import", "csv", "f.csv", "--out", "t"]).is_err());
    }
}
