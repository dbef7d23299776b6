//! The documented maxima of every size a scenario, a trace or a node list
//! can ask for (docs/REFERENCE.md, "Limits"). Each is checked when the input is read —
//! by `validate` and by `run` alike — before anything of that size is
//! allocated, and the message names the key and its limit. They are far
//! above any real experiment; they exist so that a typo such as
//! `gpus = 1000000000` is an error instead of an aborted allocation.

/// `[cluster].gpus` of a model-selection scenario.
pub const MAX_GPUS: u64 = 100_000;

/// Nodes of a job-mode cluster (`[cluster].nodes`, or rows of a node list).
pub const MAX_NODES: u64 = 100_000;

/// GPUs on one node of a job-mode cluster (`[cluster].gpus_per_node`, the
/// `gpus` of a node list row). The placement index keeps one bitset of
/// nodes per free-GPU count, so nodes × GPUs per node bounds its size
/// (at these maxima 13 MB).
pub const MAX_GPUS_PER_NODE: u64 = 1_024;

/// GPUs one job of a job trace may ask for (the largest cluster).
pub const MAX_JOB_GPUS: u64 = MAX_NODES * MAX_GPUS_PER_NODE;

/// CPUs on one node (`cpus_per_node`, a node list's `cpus`; DESIGN §14.6).
pub const MAX_CPUS_PER_NODE: u64 = 1 << 24;

/// `repetitions` (and `--reps`).
pub const MAX_REPETITIONS: u64 = 1_000_000;

/// Grid points of a `[sweep]` (the product of its list lengths, counted
/// before the grid is expanded).
pub const MAX_SWEEP_POINTS: u64 = 10_000;

/// Points of the time grid, `[output] grid_points`: at least this many…
pub const MIN_GRID_POINTS: u64 = 2;
/// …and at most this many.
pub const MAX_GRID_POINTS: u64 = 100_000;

/// Fidelities per pair of a generated curve trace (`[trace.syn]
/// fidelities`, `gen syn --fidelities`; the lowest is then 2⁻²⁹ of the
/// top).
pub const MAX_FIDELITIES: usize = 30;

/// Entries of `thresholds`.
pub const MAX_THRESHOLDS: usize = 100;

/// Users, models, and rows of a curve trace, each, and jobs of a job
/// trace: a job record and a tenant index hold them as `u32`, a curve
/// trace's level offsets and a job trace's index too. Not a size limit (how many a scenario may have is set by the
/// machine's memory, `crate::core::memory`, issue 34): a count past it
/// would overflow an index type.
pub const MAX_TRACE_INDEX: u64 = u32::MAX as u64;

/// Models of the trace when a policy uses a GP selector (`gp-*`,
/// `easeml-proto`): the GP prior is a models × models covariance and each
/// tenant's posterior update costs grow with the cube of its models
/// (docs/PERFORMANCE.md, "GP selectors and the number of models").
pub const MAX_GP_MODELS: usize = 2_000;

/// Bytes of a scenario file.
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

/// Bytes of a scenario `name` (it names the results folder, and hidden
/// staging folders add a suffix; file names are at most 255 bytes).
pub const MAX_NAME_BYTES: usize = 128;

/// Tasks (points × repetitions × policies) a shard manifest may say its
/// plan has (`total_tasks`): `merge` keeps one owner slot per task (4
/// bytes), 1 GiB at the limit. Checked with the manifest, before the
/// table is allocated; the manifest's own task list must match it.
pub const MAX_MERGE_TASKS: u64 = 1 << 28;

/// Bytes of one record of a shard's `runs.bin` or of one cache entry
/// (one encoded run; a run with its whole job log stays far below). A
/// longer length field is damage, found before anything is allocated.
pub const MAX_RECORD_BYTES: u64 = 1 << 32;

/// `compare --resamples`: bootstrap resamples of each comparison (8 bytes
/// each are kept to take the quantiles: 8 MB at the limit). Checked
/// before any folder is read.
pub const MAX_RESAMPLES: u64 = 1_000_000;

/// Draws of one bootstrap interval of `compare`: resamples × paired
/// repetitions. Each draw is a random index and an addition, so this
/// bounds the time of one row (about a second in a release build); a
/// row past it is refused, naming `--resamples` and the repetitions.
pub const MAX_BOOTSTRAP_DRAWS: u64 = 100_000_000;

/// `n` written with thousands separators (`1,000,000`) for messages.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_inserts_separators() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(102_400_000), "102,400,000");
    }
}
