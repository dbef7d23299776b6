//! `tenantsim gen syn`: the arguments, turned into [`SynParams`].

use std::path::PathBuf;

use crate::core::error::Result;
use crate::models::trace::generate_curves::run_gen_syn_curves;
use crate::models::trace::{CostDist, SynParams};

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
    #[arg(long, default_value_t = 0.1, value_name = "S")]
    pub model_sd: f64,
    /// U: a user's accuracy on model k is drawn from N(a_k, U²), clipped to [0, 1].
    #[arg(long, default_value_t = 0.05, value_name = "U")]
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
    let report = run_gen_syn_curves(&args.params(), args.fidelities, &args.out)?;
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
}
