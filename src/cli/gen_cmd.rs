//! `tenantsim gen syn`: the arguments, turned into [`SynParams`].

use std::path::PathBuf;

use crate::core::error::Result;
use crate::models::trace::generate_curves::run_gen_syn_curves;
use crate::models::trace::{CostDist, SynParams};
use crate::workflows::generate::{GenWorkflowParams, TrialPool, run_gen_workflows};

/// Command-line arguments of `tenantsim gen syn`.
#[derive(Debug, Clone, clap::Args)]
pub struct GenSynArgs {
    /// Number of users (tenants / data sets).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub users: usize,
    /// Number of candidate models.
    #[arg(long, default_value_t = 100, value_name = "K")]
    pub models: usize,
    /// S: model means are drawn from N(0.5, S²).
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 0.1,
        value_name = "S"
    )]
    pub model_sd: f64,
    /// U: a user's accuracy on model k is drawn from N(a_k, U²), clipped to [0, 1].
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 0.05,
        value_name = "U"
    )]
    pub user_sd: f64,
    /// Per-pair runtime distribution in seconds: uniform(LO,HI),
    /// lognormal(MU,SIGMA) or constant(SECONDS); runtimes are rounded to
    /// whole microseconds, at least 1 µs.
    #[arg(long, default_value = "uniform(0,2)", value_name = "DIST")]
    pub cost: CostDist,
    /// Seed: the same seed always gives the same trace.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Fidelities per pair: 1 writes the plain trace; L > 1 a curve trace
    /// with fidelities 2^-(L-1), ..., 1/2, 1 whose top level is the plain
    /// trace (saturating power-law curves, runtime ∝ fidelity; see
    /// `models::trace::generate_curves`).
    #[arg(long, default_value_t = 1, value_name = "L")]
    pub fidelities: usize,
    /// Where to write the canonical trace CSV (written atomically).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// The memory generating may hold, instead of the machine's (e.g.
    /// 64G, 500M, bytes): a trace whose estimate exceeds it is refused
    /// before anything is generated.
    #[arg(long, value_name = "SIZE", value_parser = crate::core::memory::parse_size)]
    pub max_memory: Option<u64>,
}

impl GenSynArgs {
    /// The generator parameters these arguments describe.
    pub fn params(&self) -> SynParams {
        SynParams {
            users: self.users,
            models: self.models,
            model_sd: self.model_sd,
            user_sd: self.user_sd,
            cost: self.cost,
            seed: self.seed,
        }
    }
}

/// `tenantsim gen syn`: generate, write and report on stderr.
pub fn gen_syn(args: &GenSynArgs) -> Result<()> {
    // Limits from memory (issue 34): the rows are built whole before they
    // are written, so their estimate is checked first.
    let params = args.params();
    params.validate()?;
    let estimate = crate::models::scenario::footprint::gen_syn_estimate(
        args.users as u64,
        args.models as u64,
        args.fidelities as u64,
    );
    check_generator("gen syn", &estimate, args.max_memory)?;
    let report = run_gen_syn_curves(&args.params(), args.fidelities, &args.out)?;
    eprintln!("{report}");
    Ok(())
}

/// Refuse a generator (`what`: `gen syn`) whose `estimate` exceeds
/// `--max-memory` (`max`) or, without it, the machine's memory (DESIGN
/// §8.5).
fn check_generator(
    what: &str,
    estimate: &crate::core::memory::Estimate,
    max: Option<u64>,
) -> Result<()> {
    let budget = crate::core::memory::MemoryBudget {
        max,
        ..Default::default()
    };
    crate::core::memory::check(what, estimate, &budget)
}

/// Command-line arguments of `tenantsim gen workflows` (the formulas:
/// `workflows::generate`, DESIGN §14.1).
#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "The bundled trace: tenantsim gen workflows --seed 1 --out traces/workflows-ml.csv\n\
Formulas (sizes, run times, keys, re-runs): docs/REFERENCE.md, \"Workflow traces\"."
)]
pub struct GenWorkflowsArgs {
    /// Number of workflows (pipelines).
    #[arg(long, default_value_t = 200, value_name = "W")]
    pub workflows: usize,
    /// Number of tenants; each submission's tenant is drawn uniformly.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub tenants: usize,
    /// Number of data sets (sizes 100 MB to 10 GB, log-uniform); pipelines
    /// on one data set share their ingest and preprocess outputs.
    #[arg(long, default_value_t = 6, value_name = "D")]
    pub datasets: usize,
    /// Submissions per second (a Poisson process).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.01, value_name = "R",
          value_parser = super::import_cmd::positive_rate)]
    pub rate: f64,
    /// Training trials K per pipeline (the HPO stage).
    #[arg(long, default_value_t = 4, value_name = "K")]
    pub trials: usize,
    /// Share of submissions that re-run an earlier pipeline of their tenant
    /// with one downstream stage (featurise, train or evaluate) changed.
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 0.3,
        value_name = "P"
    )]
    pub rerun_share: f64,
    /// Probability that an attempt of any step fails.
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 0.0,
        value_name = "P"
    )]
    pub failure_p: f64,
    /// Every workflow's deadline, seconds after its submission [default:
    /// none].
    #[arg(long, allow_negative_numbers = true, value_name = "S")]
    pub deadline_s: Option<f64>,
    /// GPUs of a training trial.
    #[arg(long, default_value_t = 1, value_name = "G")]
    pub trial_gpus: u32,
    /// Draw the trials' run times from a model trace (e.g.
    /// traces/lcdb.csv): data set d is the trace's user d mod users, a
    /// trial the run time of one of its models [default: 1 to 100 minutes,
    /// log-uniform].
    #[arg(long, value_name = "TRACE.csv")]
    pub model_trace: Option<PathBuf>,
    /// Seed: the same seed always gives the same trace.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where to write the workflow trace CSV (written atomically).
    #[arg(long, value_name = "WORKFLOWS.csv")]
    pub out: PathBuf,
    /// The memory generating may hold, instead of the machine's (e.g.
    /// 64G, 500M, bytes): a trace whose estimate exceeds it is refused
    /// before anything is generated.
    #[arg(long, value_name = "SIZE", value_parser = crate::core::memory::parse_size)]
    pub max_memory: Option<u64>,
}

impl GenWorkflowsArgs {
    /// The generator parameters these arguments describe.
    pub fn params(&self) -> GenWorkflowParams {
        GenWorkflowParams {
            workflows: self.workflows,
            tenants: self.tenants,
            datasets: self.datasets,
            rate: self.rate,
            trials: self.trials,
            rerun_share: self.rerun_share,
            failure_p: self.failure_p,
            deadline_s: self.deadline_s,
            trial_gpus: self.trial_gpus,
            seed: self.seed,
        }
    }
}

/// `tenantsim gen workflows`: generate, write and report on stderr.
pub fn gen_workflows(args: &GenWorkflowsArgs) -> Result<()> {
    let inputs = super::out_file::named("the model trace", &args.model_trace);
    super::out_file::check_not_an_input("--out", &args.out, inputs)?;
    // Limits from memory (DESIGN §8.5): the pipelines and their rows are
    // built whole before they are written, so their estimate is checked
    // first (before 2026-12-07 `--workflows 4000000000` aborted on a
    // 352 GB allocation).
    crate::workflows::generate::check_params(&args.params())?;
    let estimate = crate::workflows::footprint::gen_estimate(
        args.workflows as u64,
        args.trials as u64,
        args.tenants as u64,
        args.datasets as u64,
    );
    check_generator("gen workflows", &estimate, args.max_memory)?;
    let pool = match args.model_trace.as_deref() {
        None => None,
        Some(path) => {
            crate::models::scenario::footprint::check_trace_file(
                path,
                &crate::core::memory::MemoryBudget::default(),
            )?;
            let t = crate::models::trace::load_trace(path)?;
            Some(TrialPool {
                source: t.source().to_string(),
                runtimes: (0..t.n_users())
                    .map(|u| {
                        t.models_of(u)
                            .iter()
                            .map(|&m| t.runtime_us(u, m) as f64 / 1.0e6)
                            .collect()
                    })
                    .collect(),
            })
        }
    };
    let report = run_gen_workflows(&args.params(), pool.as_ref(), &args.out)?;
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
        syn: GenSynArgs,
    }

    #[test]
    fn clap_arguments_parse_with_defaults() {
        Cli::command().debug_assert();
        let a = Cli::try_parse_from(["syn", "--out", "t.csv"])
            .expect("parses")
            .syn;
        assert_eq!(a.params(), SynParams::default());
        assert_eq!(a.fidelities, 1, "one fidelity: the plain trace");
        let a = Cli::try_parse_from([
            "syn",
            "--users",
            "5",
            "--models",
            "7",
            "--model-sd",
            "0.2",
            "--user-sd",
            "0.01",
            "--cost",
            "lognormal(0,1)",
            "--seed",
            "9",
            "--fidelities",
            "4",
            "--out",
            "t.csv",
        ])
        .expect("parses")
        .syn;
        assert_eq!(a.fidelities, 4);
        let want = SynParams {
            users: 5,
            models: 7,
            model_sd: 0.2,
            user_sd: 0.01,
            cost: CostDist::LogNormal {
                mu: 0.0,
                sigma: 1.0,
            },
            seed: 9,
        };
        assert_eq!(a.params(), want);
        let e = Cli::try_parse_from(["syn", "--cost", "uniform(2,1)", "--out", "t"])
            .expect_err("bad cost");
        assert!(e.to_string().contains("expected 0 <= lo <= hi"), "{e}");
    }

    #[derive(Debug, clap::Parser)]
    struct WfCli {
        #[command(flatten)]
        wf: GenWorkflowsArgs,
    }

    #[test]
    fn gen_workflows_arguments_parse_with_defaults() {
        WfCli::command().debug_assert();
        let a = WfCli::try_parse_from(["wf", "--out", "w.csv"])
            .expect("parses")
            .wf;
        assert_eq!(a.params(), GenWorkflowParams::default());
        assert_eq!(a.model_trace, None);
        let a = WfCli::try_parse_from([
            "wf",
            "--workflows",
            "9",
            "--tenants",
            "2",
            "--datasets",
            "3",
            "--rate",
            "0.5",
            "--trials",
            "8",
            "--rerun-share",
            "0.5",
            "--failure-p",
            "0.1",
            "--deadline-s",
            "3600",
            "--trial-gpus",
            "2",
            "--seed",
            "4",
            "--model-trace",
            "t.csv",
            "--out",
            "w.csv",
        ])
        .expect("parses")
        .wf;
        assert_eq!(
            a.params(),
            GenWorkflowParams {
                workflows: 9,
                tenants: 2,
                datasets: 3,
                rate: 0.5,
                trials: 8,
                rerun_share: 0.5,
                failure_p: 0.1,
                deadline_s: Some(3600.0),
                trial_gpus: 2,
                seed: 4,
            }
        );
        assert!(WfCli::try_parse_from(["wf", "--rate", "0", "--out", "w"]).is_err());
    }
}
