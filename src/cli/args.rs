//! The command line's arguments (clap): the parser [`Cli`], its
//! subcommands and the arguments of the subcommands defined here (the others
//! live beside their command). `mod.rs` dispatches them.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::bench_cmd::BenchArgs;
use super::cache_cmd::CacheArgs;
use super::compare_cmd::CompareArgs;
use super::gen_cmd::GenSynArgs;
use super::gen_cmd::GenWorkflowsArgs;
use super::import_cmd::{ImportArgs, ImportWorkflowsArgs};
use super::slurm_cmd::SlurmArgs;
use super::{jobs, report_cmd, schema_cmd, table_cmd};

/// tenantsim: simulate a GPU cluster shared by many users who each search
/// for their best model, and compare allocation policies by regret.
#[derive(Debug, Parser)]
#[command(name = "tenantsim", version, about, long_about = None)]
#[command(after_help = "Start with: tenantsim run scenarios/quickstart.toml\n\
Exit codes: 0 ok, 1 input or runtime error, 2 usage error, 128+n stopped by signal n\n\
(check: 0 same, 1 drift, 2 trouble).")]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario (or every point of its `[sweep]`) and write its results
    /// folder (summary.csv, tenants.csv, curves.csv, curves_by_job.csv,
    /// speedups.csv, speedups_up_to.csv, regret.csv, run.json, the figures
    /// in plots/, and jobs.csv with --jobs; a sweep adds sweep.csv and one
    /// folder per grid point).
    Run(RunArgs),
    /// Check a trace (.csv: model, job or workflow trace) or a scenario
    /// (.toml) and describe it.
    Validate(ValidateArgs),
    /// Convert a published results table (LCDB, Fernández-Delgado, ease.ml
    /// matrices, ASlib), or any long CSV whose columns you name (`table`),
    /// into a canonical trace CSV.
    Import(ImportArgs),
    /// Generate a synthetic trace: a model trace (`syn`) or a workflow trace
    /// of ML pipelines (`workflows`).
    #[command(subcommand)]
    Gen(GenCommand),
    /// Compare a results folder (a run or a sweep) with golden results:
    /// exit 0 the same, 1 drift, 2 trouble (bad input, missing files, usage).
    Check(CheckArgs),
    /// The difference B − A per policy and metric with a confidence
    /// interval (paired by repetition when the seeds match).
    Compare(CompareArgs),
    /// Convert a GPU-cluster job log (Alibaba v2023, Philly, Helios) or a
    /// Gavel trace with its throughput table into a job trace CSV for
    /// job-trace mode.
    ImportJobs(jobs::ImportJobsArgs),
    /// Convert recorded workflow executions (WfFormat JSON: WfCommons'
    /// WfInstances) into a workflow trace CSV for the `[workflows]` part of
    /// a shared scenario: one step per task, submit times and tenants drawn
    /// from the options.
    ImportWorkflows(ImportWorkflowsArgs),
    /// Time built-in workloads (generated in memory): events, wall time and
    /// events per second, one line per workload.
    Bench(BenchArgs),
    /// Draw the figures of a results folder (model mode, job mode or a
    /// sweep) as PNG, SVG and/or PDF into its plots/ folder.
    Plot(PlotArgs),
    /// Print the result files' schemas (columns, types, units), or with
    /// --json the document the Python package reads.
    Schema(schema_cmd::SchemaArgs),
    /// Print the summary table of a results folder as LaTeX (booktabs),
    /// markdown or CSV: T(θ), speedups and cumulative regret (model mode),
    /// JCT statistics (job mode), one row per swept point and policy
    /// (sweeps).
    Table(table_cmd::TableArgs),
    /// Write one self-contained HTML page of a results folder: scenario,
    /// manifest, tables and every figure inline (no network needed).
    Report(report_cmd::ReportArgs),
    /// Merge the shard folders of `run --shard I/N` into the results folder
    /// of the whole scenario, byte for byte what one `run` writes (but the
    /// measurements of run.json).
    Merge(MergeArgs),
    /// Write the Slurm scripts of a scenario split into N shards: a job
    /// array (one shard per task), the merge, and a script submitting both.
    Slurm(SlurmArgs),
    /// Describe the result cache (folder, entries, size, ages) or prune
    /// it by age, by size (least recently used first) or whole.
    Cache(CacheArgs),
    /// Fork a model-mode run at simulated time T and compare its
    /// continuations: unchanged, and with another policy (--policy) or GPUs
    /// added or removed (--gpus); both written as results folders.
    Whatif(super::whatif_cmd::WhatifArgs),
}

/// Arguments of `tenantsim merge`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Every shard of one `run SCENARIO --shard I/N` must be given once (a shell \
glob such as results/NAME.shard-*-of-N does it); shards of another scenario, seed, trace or \
tenantsim build are refused, and so are duplicated or missing tasks (listed), unless \
--allow-partial."
)]
pub struct MergeArgs {
    /// The shard folders written by `tenantsim run SCENARIO --shard I/N`.
    #[arg(required = true, value_name = "SHARD_DIR")]
    pub shards: Vec<PathBuf>,
    /// The results folder to write. An existing one is replaced only if
    /// tenantsim wrote it (or with --force).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace the --out folder even if tenantsim did not write it (never
    /// one holding a shard, the scenario, its trace or the current
    /// directory).
    #[arg(long)]
    pub force: bool,
    /// Merge what is there when shards are missing: the results are marked
    /// partial (run.json `partial`, the summary and --json) and list the
    /// missing task ids.
    #[arg(long)]
    pub allow_partial: bool,
    /// Worker threads for the aggregation [default: all cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// Print nothing on stderr but errors.
    #[arg(long)]
    pub quiet: bool,
    /// Print the summary as one JSON document on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `tenantsim plot`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Figures: regret-curves, speedups, regret, tenant-regret, tenant-accuracy \
(needs jobs.csv: run with --jobs) in model mode; jct-cdf (needs jobs.csv) and utilization in job \
mode; sweep-<metric> per metric and every point's figures for a sweep folder."
)]
pub struct PlotArgs {
    /// The results folder written by `tenantsim run`.
    pub results: PathBuf,
    /// Which files to write.
    #[arg(long, value_enum, default_value_t = crate::present::figures::Format::Both)]
    pub format: crate::present::figures::Format,
    /// Log scale on every time / swept-key axis (regret curves, per-tenant
    /// accuracy and JCT CDF already default to it).
    #[arg(long, conflicts_with = "linear_x")]
    pub log_x: bool,
    /// Linear time axes (turns off the log default).
    #[arg(long)]
    pub linear_x: bool,
    /// Log scale on value axes: loss, per-tenant regret area, sweep metric.
    #[arg(long)]
    pub log_y: bool,
    /// Where to write the figures [default: RESULTS/plots]. The folder is
    /// replaced as a whole, only if tenantsim wrote it (or with --force).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the --out folder even if tenantsim did not write it (never
    /// one holding RESULTS or the current directory).
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Repetition shown by the per-tenant accuracy and utilisation figures
    /// [default: the first].
    #[arg(long, value_name = "N")]
    pub rep: Option<u64>,
    /// screen: sized in pixels, text scaled with it, titles and notes drawn;
    /// paper: sized in inches or points, fonts fixed in points (8 pt
    /// labels, 7 pt ticks), no title or notes (they go to captions.md).
    #[arg(long, value_enum, default_value_t = crate::present::figures::Style::Screen)]
    pub style: crate::present::figures::Style,
    /// Figure size, WIDTHxHEIGHT, each in px (the default unit), pt or in:
    /// `1000x640`, `3.33inx2.2in`, `240ptx160pt` [default: 1000x640 on
    /// screen, the --width preset on paper].
    #[arg(long, value_name = "WxH", value_parser = crate::present::figures::parse_size)]
    pub size: Option<(
        crate::present::figures::Length,
        crate::present::figures::Length,
    )>,
    /// Paper presets: single column 3.33in x 2.2in, double 7in x 2.6in
    /// [default: single].
    #[arg(long, value_enum)]
    pub width: Option<crate::present::figures::PaperWidth>,
    /// Sweep folders: a `sweep.csv` column to draw against the swept key
    /// (repeatable) [default: regret_mean and the first time_to_<θ>_s].
    #[allow(rustdoc::broken_intra_doc_links)] // clap help text, not a link
    #[arg(long, value_name = "COLUMN")]
    pub metric: Vec<String>,
    /// Sweep folders: the swept key on the x axis [default: the first];
    /// the other keys get one panel per combination of values.
    #[arg(long, value_name = "KEY")]
    pub sweep_x: Option<String>,
    /// Curve traces: the tenant (user id) of the promotions figure
    /// [default: the one with the most low-fidelity jobs].
    #[arg(long, value_name = "USER")]
    pub tenant: Option<String>,
}

/// Generators of `tenantsim gen`.
#[derive(Debug, Subcommand)]
pub enum GenCommand {
    /// The ease.ml synthetic workload: model means a_k ~ N(0.5, S²), user
    /// accuracies ~ N(a_k, U²) clipped to [0, 1], costs from a distribution.
    Syn(GenSynArgs),
    /// ML pipelines as a workflow trace: ingest → preprocess → featurise →
    /// K training trials → evaluate, submitted by tenants over time
    /// (Poisson); pipelines on one data set share their prefix's cache
    /// keys, and a share of submissions re-run an earlier pipeline with one
    /// downstream step changed.
    Workflows(GenWorkflowsArgs),
}

/// Arguments of `tenantsim check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The results folder to check: one run (its summary.csv, either mode)
    /// or a sweep (sweep.csv and its point-* folders).
    pub results: PathBuf,
    /// The golden results folder to compare against (the same kind).
    #[arg(long, value_name = "GOLDEN_DIR")]
    pub against: PathBuf,
    /// Relative tolerance: |x − g| ≤ atol + rtol·|g| passes.
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 1e-9,
        value_name = "R"
    )]
    pub rtol: f64,
    /// Absolute tolerance.
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 1e-12,
        value_name = "A"
    )]
    pub atol: f64,
    /// Compare distributions instead of values: per policy and metric,
    /// Welch's t test of the per-repetition values, or the paired t test of
    /// their differences when both run.json files have the same seed and
    /// repetitions; Holm–Bonferroni across the pass/fail family of metrics
    /// (docs/CI.md).
    #[arg(long, conflicts_with_all = ["rtol", "atol"])]
    pub stat: bool,
    /// Family-wise significance level of --stat.
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 0.01,
        value_name = "ALPHA",
        requires = "stat"
    )]
    pub alpha: f64,
    /// The metric columns whose drift fails --stat (repeatable or a comma
    /// list; `all` = every column). Default: `[check] metrics` of the
    /// golden's check.toml, else the mode's primary metrics (model:
    /// cumulative_regret and every time_to_<θ>_s; job: mean_jct_s and
    /// makespan_s). The other metrics are tested and shown as secondary,
    /// never failing the check.
    #[arg(long, value_name = "NAME", value_delimiter = ',', requires = "stat")]
    pub metric: Vec<String>,
    /// The report printed on stdout: text prints nothing there (the human
    /// text always goes to stderr).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    /// Also write the report to FILE, in the format its extension names
    /// (.json, .xml = JUnit, .md = markdown, .txt); repeatable. An
    /// existing FILE is replaced only if an earlier `check` wrote it (or
    /// with --force), never if it is one of the checked files.
    #[arg(long, value_name = "FILE")]
    pub report: Vec<PathBuf>,
    /// Replace existing --report files that `check` did not write (never
    /// a file of the results or golden folder that check reads).
    #[arg(long, requires = "report")]
    pub force: bool,
}

/// Formats of `check --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// The capped human text.
    Text,
    /// JSON.
    Json,
    /// JUnit XML, one testcase per (point, policy, metric).
    Junit,
    /// Markdown (for $GITHUB_STEP_SUMMARY).
    Markdown,
}

/// Arguments of `tenantsim run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Results folder [default: results/<scenario name>]. An existing one
    /// is replaced only if tenantsim wrote it (or with --force).
    #[allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)] // clap help text
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the --out folder even if tenantsim did not write it (never
    /// one holding the scenario, its trace or the current directory).
    #[arg(long)]
    pub force: bool,
    /// Also write jobs.csv with every job of every run.
    #[arg(long)]
    pub jobs: bool,
    /// Worker threads [default: all cores]. Results do not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// The memory the run may hold, instead of the machine's (e.g. 64G,
    /// 500M, bytes): checked against the scenario's estimate before
    /// anything is loaded.
    #[arg(long, value_name = "SIZE", value_parser = crate::core::memory::parse_size)]
    pub max_memory: Option<u64>,
    /// Replace the scenario's seed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Replace the scenario's number of repetitions (1 to 1,000,000).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=crate::core::limits::MAX_REPETITIONS as i64))]
    pub reps: Option<u32>,
    /// Print nothing on stderr but errors (no progress bar, no summary).
    #[arg(long)]
    pub quiet: bool,
    /// Draw no figures (as `[output] plots = false`); `tenantsim plot`
    /// draws them later from the results folder.
    #[arg(long)]
    pub no_plots: bool,
    /// Print the summary as one JSON document on stdout (instead of the
    /// table on stderr).
    #[arg(long)]
    pub json: bool,
    /// Run only shard I of N of the flat task list (task k when k mod N =
    /// I) and write its raw runs into a shard folder [default
    /// --out: results/<name>.shard-I-of-N]; `tenantsim merge` makes the
    /// results folder of all N.
    #[allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)] // clap help text
    #[arg(long, value_name = "I/N", value_parser = crate::core::run::shard::ShardSpec::parse)]
    pub shard: Option<crate::core::run::shard::ShardSpec>,
    /// The result cache: finished tasks are stored there and never run
    /// again [default: $TENANTSIM_CACHE, else $XDG_CACHE_HOME/tenantsim,
    /// else ~/.cache/tenantsim; TENANTSIM_CACHE=off turns it off].
    #[allow(rustdoc::broken_intra_doc_links)] // clap help text
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Use no result cache: simulate every task, store nothing.
    #[arg(long)]
    pub no_cache: bool,
}

/// Arguments of `tenantsim validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// A trace CSV or a scenario TOML (told apart by the `.toml` extension).
    pub file: PathBuf,
    /// The memory a run may hold, instead of the machine's (e.g. 64G,
    /// 500M, bytes): a scenario whose estimate exceeds it is refused.
    #[arg(long, value_name = "SIZE", value_parser = crate::core::memory::parse_size)]
    pub max_memory: Option<u64>,
    /// Worker threads the run will use [default: all cores]: the
    /// repetitions the memory estimate counts as running at once.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// The run will write jobs.csv (`run --jobs`): the estimate counts
    /// the job logs kept.
    #[arg(long)]
    pub jobs: bool,
}
