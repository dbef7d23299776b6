//! Running a scenario: every repetition × policy, fanned out with rayon
//! (DESIGN §5), each run folded into its scenario's result as it finishes.

mod fold;
mod runner;

pub use fold::{ExperimentResult, PolicyTotals};
pub use runner::{
    ExperimentRuns, RepResult, RunOptions, run_experiment, run_grid, simulate_one, simulate_task,
};
