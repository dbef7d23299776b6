//! Running a scenario: every repetition × policy, fanned out with rayon
//! (DESIGN §5), each run folded into its scenario's result as it finishes.

mod episode;
mod rep_parts;
mod runner;
pub mod whatif;

pub use episode::{Episode, write_episode, write_episodes};
pub use rep_parts::{RepStart, start_rep};
pub use runner::{
    CHUNK_PER_THREAD, ExperimentRuns, MainRun, RunOptions, finish_rep, run_experiment,
    simulate_one, simulate_rep_with, simulate_task,
};
