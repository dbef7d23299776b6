//! The memory a job-mode scenario will hold (DESIGN §8.5; docs/REFERENCE.md,
//! "Limits"), estimated from one streaming pass over its job trace
//! ([`job_trace_shape`]) before the trace is read, so that `validate`,
//! `run`, every sweep point and a shared scenario's background refuse a
//! trace too large for the machine with its estimate instead of aborting
//! an allocation. [`crate::core::memory`] holds the machine's side and the
//! message. This replaces a fixed count (5,000,000 jobs) that refused a
//! trace a large machine holds and let a small one abort.
//!
//! The estimate counts, per job, the layouts named next to each term
//! below, with these simplifications, each on the side of more:
//! - a `Vec` or hash table that grows by doubling counts twice its final
//!   length (the trace's vectors grow while the file is read);
//! - the scratch of reading the trace (a read buffer, the table of ids
//!   seen) is counted as if held while the runs go (it is freed before);
//! - every repetition's run holds its jobs' state at once (a job not yet
//!   submitted holds it too).
//!
//! A run records a GPU segment each time a job runs: one a job under a
//! scheduler that never preempts, as many as the preemptions allow under
//! one that does (about 27 a job for `max-min-fairness` in Gavel's 360 s
//! rounds). The log is in memory up to [`SEGMENTS_IN_MEMORY`] and in a
//! temporary file past it (jobs/sim/segment_log.rs), so the estimate
//! counts, per run, the smaller of the segments a job each and that bound
//! when no policy preempts, and the bound when one may
//! ([`segment_log_bytes`]). Before 2026-12-07 it was a vector counted at
//! one segment a job, which a preemptive run outgrew unbounded.
//!
//! tests/it/memory_estimate.rs measures the peak RSS of job runs of two
//! sizes, on one and two threads and with `--jobs`, and checks the
//! estimate is above what they grow by and within [`ESTIMATE_FACTOR`] of it.

use std::collections::HashSet;
use std::path::Path;

use super::sim::Segment;
use super::trace::{Job, TYPE_DURATION_PREFIX};
use crate::core::error::Result;
use crate::core::io::hashed_input::READ_BUFFER;
use crate::core::io::spill::Record;
use crate::core::memory::{
    Estimate, Held, MemoryBudget, PROGRAM_BYTES, PROGRAM_ITEM, SEGMENTS_IN_MEMORY, hash_table,
    string_heap,
};
use crate::core::resources::human_bytes;

/// How far above the measured growth of peak RSS the estimate may be on
/// the job scenarios tests/it/memory_estimate.rs runs (it is never below).
pub const ESTIMATE_FACTOR: f64 = 2.0;

/// Bytes of one GPU segment a run records ([`super::sim::Segment`] as its
/// log holds it, encoded: `Record::BYTES`).
pub const SEGMENT_BYTES: u64 = <Segment as Record>::BYTES as u64;

/// Bytes a run's segment log holds (jobs/sim/segment_log.rs) over `jobs`
/// jobs, `preemptive` when a policy of the run may preempt (or runs in
/// rounds): its encoded records in a vector that grew by doubling (twice
/// their bytes) while they fit in [`SEGMENTS_IN_MEMORY`]; past it, that
/// vector at its largest (twice the bound; it is freed when the log moves
/// to its file, and the write buffer and the metrics' read buffer, 64 KiB
/// each, come after). A non-preemptive run records one segment a job; a
/// preemptive one as many as its preemptions allow, so the bound.
///
/// `segment_log_bytes(1_000, false) = 2 × 46,000 = 92,000`;
/// `segment_log_bytes(1_000, true) = segment_log_bytes(10^6, false) =
/// 2 × 2^20 = 2,097,152`.
pub fn segment_log_bytes(jobs: u64, preemptive: bool) -> u64 {
    let bound = SEGMENTS_IN_MEMORY as u64;
    let records = if preemptive {
        u64::MAX
    } else {
        jobs.saturating_mul(SEGMENT_BYTES)
    };
    2 * records.min(bound)
}

/// Bytes a job of a repetition holds while its run goes, beside its
/// segments, by layout (`jobs::sim::simulation::State` and what a run
/// builds around it): the repetition's copy of the job and its trace index
/// (32 + 4); the simulation's per-job vectors (status 1, remaining work 8,
/// attained service 8, type of the run 2, run start 8, progress start 8,
/// end 8, first start 8, restore flag 1, runs 4, preemptions 4, allocation
/// offset 8 and length 4, withdrawn flag 1, first node 4: 77); its
/// allocation (one node's, 16); the scheduler's indexed queue (a position
/// 4, a heap slot of key and index 24: 28, doubled as it grows: 56); the
/// outcome's GPU type 2; the metrics' job completion and queueing times,
/// sorted for quantiles (16); and the utilisation timeline, a point of 24
/// bytes at each start and end (48): 251 bytes.
pub const RUN_JOB_BYTES: u64 = 36 + 77 + 16 + 56 + 2 + 16 + 48;

/// What the estimate needs of a job trace, known from one streaming pass
/// over it ([`job_trace_shape`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobTraceShape {
    /// Rows (jobs).
    pub rows: u64,
    /// Bytes of the file. It is read as a stream, not held
    /// (core/io/hashed_input.rs), so the estimate counts a read buffer,
    /// not these bytes.
    pub file_bytes: u64,
    /// Distinct users.
    pub users: u64,
    /// Heap bytes of the rows' job ids as strings ([`string_heap`]).
    pub id_heap: u64,
    /// Heap bytes of the distinct users' names.
    pub user_heap: u64,
    /// Whether there is a `gpu_type` column, a `group` column: a string
    /// per job each.
    pub text_columns: u64,
    /// Heap bytes of the `gpu_type` and `group` cells.
    pub text_heap: u64,
    /// `duration_s.<type>` columns.
    pub typed: u64,
}

/// One pass over the job trace CSV at `path`: rows, distinct users, the
/// bytes of ids and text cells, the optional columns. Holds the distinct
/// users only. `None` when it is not a regular file or cannot be read as a
/// CSV with `job_id` and `user` columns: the loader then says what is
/// wrong.
pub fn job_trace_shape(path: &Path) -> Option<JobTraceShape> {
    // `open_input` refuses anything but a regular file without blocking
    // (a FIFO, `/dev/zero`).
    let file = crate::core::io::open_input(path, "job trace").ok()?;
    let file_bytes = file.metadata().ok()?.len();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(1 << 16, file));
    let headers = reader.headers().ok()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim().trim_start_matches('\u{feff}') == name)
    };
    let (id, user) = (col("job_id")?, col("user")?);
    let text: Vec<usize> = ["gpu_type", "group"]
        .iter()
        .filter_map(|c| col(c))
        .collect();
    let typed = headers
        .iter()
        .filter(|h| h.trim().starts_with(TYPE_DURATION_PREFIX))
        .count() as u64;
    let mut users: HashSet<Box<[u8]>> = HashSet::new();
    let mut shape = JobTraceShape {
        file_bytes,
        text_columns: text.len() as u64,
        typed,
        ..JobTraceShape::default()
    };
    let mut record = csv::ByteRecord::new();
    while reader.read_byte_record(&mut record).ok()? {
        shape.rows += 1;
        let len = |i: usize| record.get(i).map_or(0, |f| f.len() as u64);
        shape.id_heap += string_heap(len(id));
        for &i in &text {
            shape.text_heap += string_heap(len(i));
        }
        let name = record.get(user).unwrap_or(b"");
        if !users.contains(name) {
            shape.user_heap += string_heap(name.len() as u64);
            users.insert(name.into());
        }
    }
    shape.users = users.len() as u64;
    Some(shape)
}

/// What a job scenario runs, as its estimate needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobRuns {
    /// Jobs of each repetition (`[jobs] sample`, else the trace's rows).
    pub jobs: u64,
    /// Runs of the scenario: repetitions × policies.
    pub tasks: u64,
    /// GPU types of the cluster (0 when untyped): each job keeps its
    /// allowed types and a duration per type.
    pub types: u64,
    /// Whether a policy may preempt (a preemptive scheduler, or rounds):
    /// its runs' segment logs are counted at their bound
    /// ([`segment_log_bytes`]).
    pub preemptive: bool,
}

/// The estimate of a job scenario over a trace of `shape` running `runs`
/// with `budget` (its threads: the runs at once), item by item:
/// - the job trace as held: per job a [`Job`] (32), its id (a `String`, 24,
///   and its heap), its line (8), a string per text column (24 and its
///   heap) and a duration per `duration_s.<type>` column (8), the vectors
///   doubled; per user its name twice (the list and the index, 24 + 8 and
///   the heap each) and the index's hash table;
/// - the scratch of reading it: a read buffer of 64 KiB (the file is read
///   as a stream and hashed as it passes, core/io/hashed_input.rs; its
///   bytes were held whole before 2026-12-07) and the table of ids seen
///   (a `String` and a line, 32, and the id's heap again);
/// - on a typed cluster, each job's allowed types and durations per type
///   (8 + 8 a type), held by the scenario and copied by each run;
/// - the runs at once: per job [`RUN_JOB_BYTES`], and per run its segment
///   log ([`segment_log_bytes`]);
/// - [`PROGRAM_BYTES`].
pub fn estimate(shape: &JobTraceShape, runs: &JobRuns, budget: &MemoryBudget) -> Estimate {
    let n = shape.rows;
    let job = size_of::<Job>() as u64;
    let mut e = Estimate::default();
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);
    let per_job = 2 * (job + 24 + 8 + shape.text_columns * 24 + shape.typed * 8);
    let trace = n
        .saturating_mul(per_job)
        .saturating_add(shape.id_heap)
        .saturating_add(shape.text_heap)
        .saturating_add(2 * shape.users * 32 + 2 * shape.user_heap)
        .saturating_add(hash_table(shape.users, 24 + 4));
    e.add_held(
        format!(
            "job trace ({} jobs, {} a job; {} users)",
            crate::core::limits::grouped(n),
            human_bytes(trace / n.max(1)),
            crate::core::limits::grouped(shape.users)
        ),
        trace,
        Held::Shared,
    );
    let scratch = (READ_BUFFER as u64)
        .saturating_add(hash_table(n, 24 + 8))
        .saturating_add(shape.id_heap);
    e.add_held(
        "reading the job trace (a read buffer, the ids seen)",
        scratch,
        Held::Shared,
    );
    let types_per_job = if runs.types > 0 {
        8 + 8 * runs.types
    } else {
        0
    };
    e.add_held(
        format!("the jobs' GPU types and durations ({} types)", runs.types),
        n.saturating_mul(types_per_job),
        Held::Shared,
    );
    let at_once = budget.concurrent(runs.tasks);
    let per_run = runs
        .jobs
        .saturating_mul(RUN_JOB_BYTES + types_per_job)
        .saturating_add(segment_log_bytes(runs.jobs, runs.preemptive));
    e.add(
        format!(
            "runs at once ({at_once} of {} jobs, {} each)",
            crate::core::limits::grouped(runs.jobs),
            human_bytes(per_run)
        ),
        per_run.saturating_mul(at_once),
    );
    e
}

/// The estimate of reading the job trace at `path` alone (`tenantsim
/// validate JOBS.csv`): the program, the trace as held and the scratch of
/// reading it, from [`job_trace_shape`]; `None` when it cannot be scanned.
pub fn trace_file_estimate(path: &Path) -> Option<Estimate> {
    let shape = job_trace_shape(path)?;
    let runs = JobRuns {
        jobs: 0,
        tasks: 0,
        types: 0,
        preemptive: false,
    };
    Some(estimate(&shape, &runs, &MemoryBudget::default()))
}

/// Check the memory of reading the job trace at `path` alone against
/// `budget` before it is read ([`crate::core::memory::check_trace_file`]
/// with [`trace_file_estimate`]): `tenantsim validate JOBS.csv`, the
/// Python package's `load_trace`.
pub fn check_trace_file(path: &Path, budget: &MemoryBudget) -> Result<Option<Estimate>> {
    crate::core::memory::check_trace_file(path, "job trace", budget, trace_file_estimate)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a small trace, by hand: three rows, two users, ids of
    /// 2 and 30 bytes, a `group` column.
    #[test]
    fn the_shape_pass_counts_rows_users_and_string_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.csv");
        let long = "x".repeat(30);
        let text = format!(
            "job_id,user,submit_s,duration_s,gpus,group\nj1,al,0,1,1,vc\n{long},bo,0,1,1,\nj3,al,1,1,1,vc\n"
        );
        std::fs::write(&path, &text).expect("write");
        let s = job_trace_shape(&path).expect("a shape");
        assert_eq!(
            s,
            JobTraceShape {
                rows: 3,
                file_bytes: text.len() as u64,
                users: 2,
                id_heap: 32 + 48 + 32,
                user_heap: 32 + 32,
                text_columns: 1,
                text_heap: 32 + 32,
                typed: 0,
            }
        );
        std::fs::write(&path, "user,submit_s\nal,0\n").expect("write");
        assert_eq!(job_trace_shape(&path), None, "no job_id column");
        assert_eq!(job_trace_shape(&dir.path().join("missing.csv")), None);
    }

    /// The estimate's items by hand for 1,000 jobs of 10 users on two
    /// threads, four runs.
    #[test]
    fn the_estimate_of_a_small_scenario_by_hand() {
        let shape = JobTraceShape {
            rows: 1000,
            file_bytes: 30_000,
            users: 10,
            id_heap: 32_000,
            user_heap: 320,
            ..JobTraceShape::default()
        };
        let runs = JobRuns {
            jobs: 1000,
            tasks: 4,
            types: 0,
            preemptive: false,
        };
        let budget = MemoryBudget {
            threads: Some(2),
            ..MemoryBudget::default()
        };
        let e = estimate(&shape, &runs, &budget);
        // Trace: 1000 × 2 × (32 + 24 + 8) + 32,000 + 2 × 10 × 32 + 2 × 320
        // + 16 buckets × 29 × 3 / 2 = 128,000 + 32,000 + 640 + 640 + 696.
        let trace = 128_000 + 32_000 + 640 + 640 + 696;
        // Scratch: a read buffer of 65,536 (the file's 30,000 bytes before
        // it was read as a stream) + 2,048 buckets × 33 × 3 / 2 + 32,000.
        let scratch = 65_536 + 2048 * 33 * 3 / 2 + 32_000;
        // Runs: 2 × (1000 × 251 + 2 × 1000 × 46), a segment a job of 46
        // bytes in a vector that doubled.
        let runs_bytes = 2 * (1000 * 251 + 2 * 1000 * 46);
        assert_eq!(e.total(), PROGRAM_BYTES + trace + scratch + runs_bytes);
        assert_eq!(e.total_held(Held::Shared), trace + scratch);
        assert!(
            e.items
                .iter()
                .any(|i| i.what == "runs at once (2 of 1,000 jobs, 335.0 KiB each)")
        );
        // On a typed cluster of 3 types, sampling 100 jobs: each job's
        // types and durations (8 + 3 × 8 = 32 bytes) held once and copied
        // by each run of 100 jobs.
        let typed = JobRuns {
            jobs: 100,
            tasks: 4,
            types: 3,
            preemptive: false,
        };
        let e = estimate(&shape, &typed, &budget);
        let runs_bytes = 2 * (100 * (251 + 32) + 2 * 100 * 46);
        assert_eq!(
            e.total(),
            PROGRAM_BYTES + trace + scratch + 1000 * 32 + runs_bytes
        );
        // A preemptive policy: each run's log at its bound, 2 × 1 MiB
        // whatever the jobs; so is a log of more jobs than the bound holds.
        let preemptive = JobRuns {
            preemptive: true,
            ..runs
        };
        let e = estimate(&shape, &preemptive, &budget);
        let runs_bytes = 2 * (1000 * 251 + 2 * 1_048_576);
        assert_eq!(e.total(), PROGRAM_BYTES + trace + scratch + runs_bytes);
        assert_eq!(segment_log_bytes(1_000, false), 92_000);
        assert_eq!(segment_log_bytes(1_000, true), 2_097_152);
        assert_eq!(segment_log_bytes(1_000_000, false), 2_097_152);
        assert_eq!(segment_log_bytes(22_795, false), 2 * 22_795 * 46);
        assert_eq!(segment_log_bytes(22_796, false), 2_097_152);
    }
}
