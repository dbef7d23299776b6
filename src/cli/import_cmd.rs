//! `tenantsim import`: the arguments, turned into [`ImportOptions`] (model
//! traces), [`LcdbOptions`] (the `lcdb-curves` curve trace) or
//! [`TableColumns`] (`table`: any long CSV with its own column names).

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::ValueEnum;
use clap::builder::PossibleValue;

use super::out_file::{check_not_an_input, named};
use crate::core::choice::{Choice, choice_names, parse_choice};
use crate::core::error::{Error, Result};
use crate::models::import::lcdb::{LcdbOptions, LcdbScore};
use crate::models::import::lcdb_curves::run_import_curves;
use crate::models::import::table::{TableColumns, run_import_table};
use crate::models::import::{ImportFormat, ImportOptions, RuntimeModel, run_import};
use crate::workflows::wfformat::{WfOptions, run_import_workflows_within};

/// The formats of `tenantsim import`: every model-trace format of
/// [`ImportFormat`], then `lcdb-curves`, which writes a curve trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportCmdFormat {
    /// A model-trace format.
    Trace(ImportFormat),
    /// LCDB `lcdb_curves_mean.csv` into a curve trace.
    LcdbCurves,
    /// Any long CSV, one row per (user, model), columns named on the
    /// command line.
    Table,
}

const LCDB_CURVES: &str = "lcdb-curves";
const TABLE: &str = "table";

static FORMATS: LazyLock<Vec<ImportCmdFormat>> = LazyLock::new(|| {
    ImportFormat::ALL
        .iter()
        .map(|&f| ImportCmdFormat::Trace(f))
        .chain([ImportCmdFormat::LcdbCurves, ImportCmdFormat::Table])
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
            Self::Table => PossibleValue::new(TABLE).help(
                "Any long CSV, one row per (user, model) pair, with its own column names: \
                 --user, --model, --accuracy and --runtime name them",
            ),
        })
    }
}

/// Command-line arguments of `tenantsim import`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "Your own results table, whatever its column names:\n  \
tenantsim import table results.csv --user dataset --model learner --accuracy acc \
--runtime seconds --out traces/mine.csv\n\
(docs/guide/bring-your-own-data.md; the options: docs/REFERENCE.md, \"Importing your own table\")")]
pub struct ImportArgs {
    /// Input format.
    #[arg(value_enum, value_name = "FORMAT")]
    pub format: ImportCmdFormat,

    /// Input file(s). lcdb: lcdb_final.csv; lcdb-curves: lcdb_curves_mean.csv;
    /// table: one CSV; fernandez-delgado: results.txt;
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
    /// matrix without --runtime-matrix). table: the column of training
    /// seconds, or `unit`.
    #[arg(long, value_name = "MODEL|COLUMN")]
    pub runtime: Option<String>,

    /// lcdb, lcdb-curves: the score that becomes accuracy [default: test].
    #[arg(long, value_enum, value_name = "SCORE")]
    pub score: Option<LcdbScore>,

    /// table: the column that becomes `accuracy` (numbers in [0, 1]).
    /// lcdb, lcdb-curves: the same as --score.
    #[arg(long, value_name = "COLUMN")]
    pub accuracy: Option<String>,

    /// table: the column that becomes `user` (the task or data set id).
    #[arg(long, value_name = "COLUMN")]
    pub user: Option<String>,

    /// table: the column that becomes `model`.
    #[arg(long, value_name = "COLUMN")]
    pub model: Option<String>,

    /// table: the column that becomes `model_year` (integers, constant per
    /// model).
    #[arg(long, value_name = "COLUMN")]
    pub model_year: Option<String>,

    /// table: the column that becomes `model_citations` (integers, constant
    /// per model).
    #[arg(long, value_name = "COLUMN")]
    pub model_citations: Option<String>,

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
    /// become unavailable pairs, counted as dropped. table: rows with this
    /// text in the accuracy or runtime column are dropped (counted).
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
    /// model-trace `format` (the curve format has [`ImportArgs::curve_options`],
    /// the table format [`ImportArgs::table_columns`]). An option of the
    /// table format, or a `--runtime` other than `measured` / `unit`, is a
    /// usage error.
    pub fn options(&self, format: ImportFormat) -> Result<ImportOptions> {
        self.reject_table_options(format.name(), format == ImportFormat::Lcdb)?;
        Ok(ImportOptions {
            format,
            inputs: self.inputs.clone(),
            runtime: self.runtime_model()?,
            score: self.lcdb_score()?,
            complete_only: self.complete_only,
            runtime_matrix: self.runtime_matrix.clone(),
            row_labels: self.row_labels.clone(),
            col_labels: self.col_labels.clone(),
            missing: self.missing.clone(),
            model_metadata: self.model_metadata.clone(),
            measure: self.measure.clone(),
        })
    }

    /// `--runtime` as a runtime model (every format but `table`).
    fn runtime_model(&self) -> Result<Option<RuntimeModel>> {
        self.runtime
            .as_deref()
            .map(|name| {
                parse_choice::<RuntimeModel>(name).ok_or_else(|| {
                    Error::usage(format!(
                        "invalid value `{}` for --runtime: expected one of {} (a runtime column \
                         is named this way only by the {TABLE} format)",
                        crate::core::io::echo::shown(name),
                        choice_names::<RuntimeModel>()
                    ))
                })
            })
            .transpose()
    }

    /// `--score`, or `--accuracy` naming a score (lcdb, lcdb-curves).
    fn lcdb_score(&self) -> Result<Option<LcdbScore>> {
        match (self.score, self.accuracy.as_deref()) {
            (Some(_), Some(_)) => Err(Error::usage(
                "give the LCDB score once: --score or --accuracy, not both",
            )),
            (score, None) => Ok(score),
            (None, Some(name)) => parse_choice::<LcdbScore>(name).map(Some).ok_or_else(|| {
                Error::usage(format!(
                    "invalid value `{}` for --accuracy: expected an LCDB score, one of {}",
                    crate::core::io::echo::shown(name),
                    choice_names::<LcdbScore>()
                ))
            }),
        }
    }

    /// The options only `table` takes are a usage error for `format`
    /// (`--accuracy` is allowed where it names an LCDB score).
    fn reject_table_options(&self, format: &str, accuracy_is_score: bool) -> Result<()> {
        let table_only = [
            ("--user", self.user.is_some()),
            ("--model", self.model.is_some()),
            ("--model-year", self.model_year.is_some()),
            ("--model-citations", self.model_citations.is_some()),
            ("--accuracy", self.accuracy.is_some() && !accuracy_is_score),
        ];
        match table_only.iter().find(|(_, given)| *given) {
            Some((name, _)) => Err(Error::usage(format!(
                "option {name} does not apply to the {format} format (it names a column of \
                 `import {TABLE}`)"
            ))),
            None => Ok(()),
        }
    }

    /// The columns of `table`: `--user`, `--model`, `--accuracy` and
    /// `--runtime` (a column, or `unit`) are required; options of the other
    /// formats are usage errors.
    pub fn table_columns(&self) -> Result<TableColumns> {
        let others = [
            ("--score", self.score.is_some()),
            ("--complete-only", self.complete_only),
            ("--runtime-matrix", !self.runtime_matrix.is_empty()),
            ("--row-labels", !self.row_labels.is_empty()),
            ("--col-labels", self.col_labels.is_some()),
            ("--measure", self.measure.is_some()),
            (
                "--model-metadata together with --model-year or --model-citations",
                self.model_metadata.is_some()
                    && (self.model_year.is_some() || self.model_citations.is_some()),
            ),
        ];
        one_input_and_no_other_options(TABLE, &others, self.inputs.len())?;
        let required = |value: &Option<String>, option: &str, what: &str| {
            value.clone().ok_or_else(|| {
                Error::usage(format!(
                    "import {TABLE} needs {option} COLUMN: the column that becomes {what}"
                ))
            })
        };
        let user = required(&self.user, "--user", "`user`")?;
        let model = required(&self.model, "--model", "`model`")?;
        let accuracy = required(&self.accuracy, "--accuracy", "`accuracy`")?;
        let runtime = match self.runtime.as_deref() {
            None => {
                return Err(Error::usage(format!(
                    "import {TABLE} needs --runtime COLUMN (the training seconds), or --runtime \
                     unit when the table has no runtimes (every job then takes 1 s)"
                )));
            }
            Some(m) if m.eq_ignore_ascii_case(RuntimeModel::Unit.name()) => None,
            Some(m) if m.eq_ignore_ascii_case(RuntimeModel::Measured.name()) => {
                return Err(Error::usage(format!(
                    "import {TABLE}: --runtime names the runtime column (or is `unit`), not \
                     `measured`"
                )));
            }
            Some(column) => Some(column.to_string()),
        };
        Ok(TableColumns {
            user,
            model,
            accuracy,
            runtime,
            model_year: self.model_year.clone(),
            model_citations: self.model_citations.clone(),
            missing: self.missing.clone(),
        })
    }

    /// The options of `lcdb-curves`: the lcdb options; any option of
    /// another format is a usage error naming it.
    pub fn curve_options(&self) -> Result<LcdbOptions> {
        self.reject_table_options(LCDB_CURVES, true)?;
        let others = [
            ("--runtime-matrix", !self.runtime_matrix.is_empty()),
            ("--row-labels", !self.row_labels.is_empty()),
            ("--col-labels", self.col_labels.is_some()),
            ("--missing", self.missing.is_some()),
            ("--model-metadata", self.model_metadata.is_some()),
            ("--measure", self.measure.is_some()),
        ];
        one_input_and_no_other_options(LCDB_CURVES, &others, self.inputs.len())?;
        Ok(LcdbOptions {
            score: self.lcdb_score()?.unwrap_or_default(),
            complete_only: self.complete_only,
            runtime: self.runtime_model()?.unwrap_or_default(),
        })
    }
}

/// `tenantsim import`: import, write and report on stderr. An existing
/// `--out` is replaced (atomically), for every format, unless it is one of
/// the files the import reads (refused, `out_file::check_not_an_input`).
pub fn import(args: &ImportArgs) -> Result<()> {
    let inputs = named("an input", &args.inputs)
        .chain(named("a --runtime-matrix file", &args.runtime_matrix))
        .chain(named("a --row-labels file", &args.row_labels))
        .chain(named("the --col-labels file", &args.col_labels))
        .chain(named("the --model-metadata file", &args.model_metadata));
    check_not_an_input("--out", &args.out, inputs)?;
    match args.format {
        ImportCmdFormat::Trace(format) => {
            let report = run_import(&args.options(format)?, &args.out)?;
            eprintln!("{report}");
        }
        ImportCmdFormat::Table => {
            let cols = args.table_columns()?;
            let report = run_import_table(
                &args.inputs[0],
                &cols,
                args.model_metadata.as_deref(),
                &args.out,
            )?;
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

/// The checks of a format that reads one file and takes only some of the
/// options: the first option of `others` given (`true`) is a usage error
/// naming it, and so is any number of inputs but one.
fn one_input_and_no_other_options(
    format: &str,
    others: &[(&str, bool)],
    inputs: usize,
) -> Result<()> {
    if let Some((name, _)) = others.iter().find(|(_, given)| *given) {
        return Err(Error::usage(format!(
            "option {name} does not apply to the {format} format"
        )));
    }
    if inputs != 1 {
        return Err(Error::usage(format!(
            "the {format} format takes exactly one input, got {inputs}"
        )));
    }
    Ok(())
}

/// The formats of `tenantsim import-workflows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkflowFormat {
    /// WfFormat 1.4–1.6 JSON instances (WfCommons, WfInstances): one
    /// workflow per file, one step per task.
    Wfformat,
}

/// Command-line arguments of `tenantsim import-workflows`.
#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "The 48 WfInstances executions, each submitted twice by 4 tenants, \
a workflow every 10 minutes on average:\n  \
tenantsim import-workflows wfformat ../shared/data/wfinstances/*/*.json \
../shared/data/wfinstances/*/*/*.json --tenants 4 --copies 2 --rate 0.00167 --seed 1 \
--out traces/wf.csv\n\
(the columns and the cache key: docs/DESIGN.md §14.1; docs/REFERENCE.md, \"Workflow traces\")"
)]
pub struct ImportWorkflowsArgs {
    /// Input format.
    #[arg(value_enum, value_name = "FORMAT")]
    pub format: WorkflowFormat,
    /// The instance files (.json), one workflow each.
    #[arg(required = true, value_name = "FILE.json")]
    pub inputs: Vec<PathBuf>,
    /// Where to write the workflow trace CSV (written atomically).
    #[arg(long, value_name = "WORKFLOWS.csv")]
    pub out: PathBuf,
    /// Number of tenants; each workflow's tenant is drawn uniformly
    /// (seeded), named t0, t1, ...
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub tenants: u32,
    /// Workflows per second: submit times of a Poisson process (seeded)
    /// [default: every workflow at 0].
    #[arg(long, allow_negative_numbers = true, value_name = "R", value_parser = positive_rate)]
    pub rate: Option<f64>,
    /// Submit each instance C times (ids `<stem>#1` ... `<stem>#C`); the
    /// copies share their cache keys, so later copies can hit.
    #[arg(long, default_value_t = 1, value_name = "C",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub copies: u32,
    /// Seed of the submit times and tenants.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// The memory importing may hold, instead of the machine's (e.g.
    /// 64G, 500M, bytes): an import whose estimate exceeds it is refused
    /// before its rows are made.
    #[arg(long, value_name = "SIZE", value_parser = crate::core::memory::parse_size)]
    pub max_memory: Option<u64>,
}

/// A rate in events per second: a finite number > 0.
pub(crate) fn positive_rate(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(format!("expected a number > 0 (per second), got `{text}`")),
    }
}

impl ImportWorkflowsArgs {
    /// The importer's options.
    pub fn options(&self) -> WfOptions {
        WfOptions {
            tenants: self.tenants,
            rate: self.rate,
            copies: self.copies,
            seed: self.seed,
        }
    }
}

/// `tenantsim import-workflows`: import, write and report on stderr.
pub fn import_workflows(args: &ImportWorkflowsArgs) -> Result<()> {
    check_not_an_input("--out", &args.out, named("an input", &args.inputs))?;
    match args.format {
        WorkflowFormat::Wfformat => {
            let budget = crate::core::memory::MemoryBudget {
                max: args.max_memory,
                ..Default::default()
            };
            let report =
                run_import_workflows_within(&args.inputs, &args.options(), &args.out, &budget)?;
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
        assert_eq!(a.runtime.as_deref(), Some("unit"));
        assert_eq!(
            a.options(ImportFormat::FernandezDelgado)
                .expect("applies")
                .runtime,
            Some(RuntimeModel::Unit)
        );
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
        let o = a.options(ImportFormat::Matrix).expect("applies");
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
                "lcdb-curves",
                "table"
            ]
        );
    }

    #[test]
    fn table_takes_its_columns_and_rejects_other_formats_options() {
        let parse = |extra: &[&str]| {
            let mut argv = vec!["import", "table", "r.csv", "--out", "t.csv"];
            argv.extend_from_slice(extra);
            Cli::try_parse_from(argv).expect("parses").import
        };
        let full = [
            "--user",
            "dataset",
            "--model",
            "learner",
            "--accuracy",
            "acc",
            "--runtime",
            "seconds",
        ];
        let a = parse(&full);
        assert_eq!(a.format, ImportCmdFormat::Table);
        let c = a.table_columns().expect("applies");
        assert_eq!(
            (c.user.as_str(), c.model.as_str(), c.accuracy.as_str()),
            ("dataset", "learner", "acc")
        );
        assert_eq!(c.runtime.as_deref(), Some("seconds"));
        let unit = parse(&[
            "--user",
            "d",
            "--model",
            "m",
            "--accuracy",
            "a",
            "--runtime",
            "unit",
        ]);
        assert_eq!(unit.table_columns().expect("applies").runtime, None);
        let msg = |extra: &[&str]| {
            parse(extra)
                .table_columns()
                .expect_err("usage error")
                .message()
                .to_string()
        };
        assert!(msg(&full[..6]).contains("needs --runtime COLUMN"));
        assert!(msg(&full[2..]).contains("needs --user COLUMN"));
        let mut with_score = full.to_vec();
        with_score.extend(["--score", "test"]);
        assert_eq!(
            msg(&with_score),
            "option --score does not apply to the table format"
        );
        // The table's options are usage errors for the other formats.
        let a = Cli::try_parse_from(["import", "lcdb", "l.csv", "--out", "t.csv", "--user", "x"])
            .expect("parses")
            .import;
        let e = a
            .options(ImportFormat::Lcdb)
            .expect_err("not an lcdb option");
        assert!(
            e.message()
                .starts_with("option --user does not apply to the lcdb format")
        );
        // --accuracy still names the LCDB score, as the alias of --score did.
        let a = Cli::try_parse_from([
            "import",
            "lcdb",
            "l.csv",
            "--out",
            "t.csv",
            "--accuracy",
            "valid",
        ])
        .expect("parses")
        .import;
        assert_eq!(
            a.options(ImportFormat::Lcdb).expect("applies").score,
            Some(LcdbScore::Valid)
        );
        let a = Cli::try_parse_from([
            "import",
            "matrix",
            "m.txt",
            "--out",
            "t.csv",
            "--runtime",
            "fast",
        ])
        .expect("parses")
        .import;
        let e = a
            .options(ImportFormat::Matrix)
            .expect_err("not a runtime model");
        assert!(
            e.message().contains("expected one of measured, unit"),
            "{e}"
        );
    }

    #[derive(Debug, clap::Parser)]
    struct WfCli {
        #[command(flatten)]
        import: ImportWorkflowsArgs,
    }

    #[test]
    fn import_workflows_arguments_parse_with_defaults() {
        WfCli::command().debug_assert();
        let a = WfCli::try_parse_from(["iw", "wfformat", "a.json", "b.json", "--out", "w.csv"])
            .expect("parses")
            .import;
        assert_eq!(a.inputs.len(), 2);
        assert_eq!(a.options(), WfOptions::default());
        let a = WfCli::try_parse_from([
            "iw",
            "wfformat",
            "a.json",
            "--out",
            "w.csv",
            "--tenants",
            "3",
            "--rate",
            "0.5",
            "--copies",
            "2",
            "--seed",
            "7",
        ])
        .expect("parses")
        .import;
        assert_eq!(
            a.options(),
            WfOptions {
                tenants: 3,
                rate: Some(0.5),
                copies: 2,
                seed: 7
            }
        );
        for bad in [
            ["--rate", "0"],
            ["--rate", "-1"],
            ["--tenants", "0"],
            ["--copies", "0"],
        ] {
            let mut argv = vec!["iw", "wfformat", "a.json", "--out", "w.csv"];
            argv.extend(bad);
            assert!(WfCli::try_parse_from(argv).is_err(), "{bad:?}");
        }
    }
}
