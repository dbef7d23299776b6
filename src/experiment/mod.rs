//! Running a scenario: every repetition × policy, fanned out with rayon
//! (DESIGN §5).

mod runner;

pub use runner::{ExperimentResult, RepResult, RunOptions, run_experiment, simulate_one};
