//! Running a scenario: every repetition × policy, fanned out with rayon
//! (DESIGN §5).

mod runner;

pub use runner::{
    ExperimentResult, RepResult, RunOptions, run_experiment, run_grid, simulate_one, thread_pool,
};
