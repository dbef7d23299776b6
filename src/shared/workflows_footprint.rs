//! The memory a shared scenario's workflows will hold (DESIGN §8.5
//! "Workflows"), checked with the service's and the background's before
//! anything runs: their trace as held and the scratch of reading it
//! (`workflows::footprint`), each run's state and each result until it
//! is folded. Before 2026-12-07 the workflows were estimated nowhere: a
//! `[workflows.retry] max_retries` of 4·10^9 passed `validate`, and
//! `run` aborted on a 2.5 TB allocation (the jobs table is sized for
//! every retry a run may make).
//!
//! Every term counts a layout of `shared::sim::workflows` (sizes from
//! `size_of`, so they follow the structs), with these simplifications,
//! each on the side of more:
//! - a run holds the state of every job its workflows may submit
//!   ([`workflow_jobs`]: every retry and sub-job counted, the largest
//!   over the policies) from its start, as the engine does;
//! - the scratch of reading the trace counts where it exceeds the runs
//!   (it is freed before they start; counted beside them, the estimate
//!   grew 2.0× what the peak grew by from 16,000 to 160,000 steps).

use super::sim::{AttemptJob, StepRecord, WorkflowRecord};
use super::sim::{JOB_BYTES, STEP_BYTES, WORKFLOW_BYTES};
use crate::core::limits::grouped;
use crate::core::memory::{Estimate, Held, MemoryBudget, PROGRAM_BYTES, PROGRAM_ITEM};
use crate::core::resources::human_bytes;
use crate::jobs::footprint::{RUN_JOB_BYTES, SEGMENT_BYTES, segment_log_bytes};
use crate::workflows::cache::MemoCache;
use crate::workflows::footprint::{WorkflowTraceShape, held_bytes, reading_scratch};
use crate::workflows::trace::NO_KEY;
use crate::workflows::{Scope, WorkflowTrace};

pub use super::sim::workflow_jobs;

/// Bytes the fold keeps per run until the summary: the policy's index
/// and the run's figures (`workflows_report::WorkflowMetrics`: two counts
/// and nine optional figures, 8 + 16 + 9 · 16; tests/it checks the
/// layout).
pub const FIGURES_BYTES: u64 = 8 + 16 + 9 * 16;

/// Bytes the shared engine holds per job of the workflows while a run
/// goes: job mode's per-job layout ([`RUN_JOB_BYTES`], 251: the job's
/// copy, the simulation's per-job vectors, its allocation, the
/// scheduler's queue, its GPU type) but the job-mode metrics' sorted
/// times (16) and utilisation timeline (48), which a shared run does not
/// build for the workflows' jobs (their figures are per workflow,
/// `shared::workflows_report`): 187.
pub const ENGINE_JOB_BYTES: u64 = RUN_JOB_BYTES - 16 - 48;

/// Cache slots a run of `trace` numbers under `scope` (DESIGN §14.3: one
/// per distinct (scope, key) pair, as `shared::sim::workflows` numbers
/// them): its distinct keys under `global`; its distinct (tenant, key)
/// pairs under `tenant`, counted in a set of them (16 bytes a keyed step
/// at most, while the scenario loads).
pub fn cache_slots(trace: &WorkflowTrace, scope: Scope) -> u64 {
    match scope {
        Scope::Global => trace.cache_keys() as u64,
        Scope::Tenant => {
            let pairs: std::collections::HashSet<(u32, u32)> = trace
                .steps()
                .iter()
                .filter(|s| s.cache_key != NO_KEY)
                .map(|s| (trace.workflows()[s.workflow as usize].tenant, s.cache_key))
                .collect();
            pairs.len() as u64
        }
    }
}

/// What a shared scenario runs of its workflows, as the estimate needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkflowRuns {
    /// Runs of the scenario: repetitions × policies.
    pub tasks: u64,
    /// The most jobs one run's workflows may submit, over the policies
    /// ([`workflow_jobs`]).
    pub jobs: u64,
    /// Cache slots a run numbers (distinct (scope, key) pairs; 0 when no
    /// policy caches).
    pub slots: u64,
    /// Whether the service's estimate already counts the engine's
    /// segment log (a scenario with a service).
    pub service: bool,
    /// Whether a job may be preempted (a background, or a preemptive
    /// cluster scheduler): the engine's segment log is counted at its
    /// bound.
    pub preemptive: bool,
}

/// The estimate of the workflows of a shared scenario: `trace` (read
/// from a file of `shape`) run as `runs` says under `budget` (its
/// threads: the runs at once; `keep_jobs`: `--jobs`), item by item:
/// - the trace as held ([`held_bytes`]), shared by the runs;
/// - per run at once: per job it may submit the engine's state
///   ([`ENGINE_JOB_BYTES`]) and the workload's ([`JOB_BYTES`], with
///   `--jobs` an [`AttemptJob`] more); per step [`STEP_BYTES`] (with
///   `--jobs` a [`StepRecord`] more); per workflow [`WORKFLOW_BYTES`];
///   per cache slot [`MemoCache::SLOT_BYTES`] and the slot's producer (4)
///   and its entry in the table of pairs while they are numbered (16,
///   twice); the events, a submission, a deadline and a timer per
///   workflow (24 bytes each, at most 2^16 + 2 counted as the engine
///   reserves, twice); the engine's segment log
///   ([`segment_log_bytes`]) unless the service's estimate counts it,
///   and with `--jobs` the log of the workflows' own segments (the same
///   bound);
/// - per result until it is folded (two runs a thread: runs go in chunks
///   of one a thread, folded while the next chunk runs): a
///   [`WorkflowRecord`] per workflow, with `--jobs` a [`StepRecord`] per
///   step, an [`AttemptJob`] per job it may submit (the vector is made
///   with room for all) and its segments, sealed (their records' bytes
///   up to `SEGMENTS_IN_MEMORY`); and while it is folded, its figures'
///   two lists (8 bytes a workflow each);
/// - per run, its figures ([`FIGURES_BYTES`], in a vector that grew:
///   twice) until the summary;
/// - the scratch of reading the trace ([`reading_scratch`]) where it
///   exceeds the runs at once and the results until folded: it is freed
///   once the trace is built, before the first run, so the two are never
///   held together (the sum of the items is the trace and the larger of
///   the two).
pub fn estimate(
    trace: &WorkflowTrace,
    shape: &WorkflowTraceShape,
    runs: &WorkflowRuns,
    budget: &MemoryBudget,
) -> Estimate {
    let steps = trace.steps().len() as u64;
    let workflows = trace.workflows().len() as u64;
    let jobs = runs.jobs;
    let keep = budget.keep_jobs;
    let mut e = Estimate::default();
    e.add(PROGRAM_ITEM, PROGRAM_BYTES);
    e.add_held(
        format!(
            "workflow trace ({} steps of {} workflows)",
            grouped(steps),
            grouped(workflows)
        ),
        held_bytes(trace),
        Held::Shared,
    );
    let at_once = budget.concurrent(runs.tasks);
    let attempt = size_of::<AttemptJob>() as u64;
    let step_record = size_of::<StepRecord>() as u64;
    let per_job = ENGINE_JOB_BYTES + JOB_BYTES + if keep { attempt } else { 0 };
    let per_step = STEP_BYTES + if keep { step_record } else { 0 };
    let events = workflows.min(1 << 16).saturating_add(2);
    let engine_log = if runs.service {
        0
    } else {
        segment_log_bytes(jobs, runs.preemptive)
    };
    let kept_log = if keep {
        segment_log_bytes(jobs, runs.preemptive)
    } else {
        0
    };
    let per_run = jobs
        .saturating_mul(per_job)
        .saturating_add(steps.saturating_mul(per_step))
        .saturating_add(workflows.saturating_mul(WORKFLOW_BYTES))
        .saturating_add(
            runs.slots
                .saturating_mul(MemoCache::SLOT_BYTES + 4 + 2 * 16),
        )
        .saturating_add(events.saturating_mul(2 * 24))
        .saturating_add(engine_log)
        .saturating_add(kept_log);
    e.add(
        format!(
            "workflow runs at once ({at_once} of up to {} jobs, {} each)",
            grouped(jobs),
            human_bytes(per_run)
        ),
        per_run.saturating_mul(at_once),
    );
    let threads = budget.concurrent(u64::MAX);
    let held = runs.tasks.min(threads.saturating_mul(2));
    let sealed = jobs
        .saturating_mul(SEGMENT_BYTES)
        .min(crate::core::memory::SEGMENTS_IN_MEMORY as u64);
    let per_result = workflows
        .saturating_mul(size_of::<WorkflowRecord>() as u64)
        .saturating_add(if keep {
            steps
                .saturating_mul(step_record)
                .saturating_add(jobs.saturating_mul(attempt))
                .saturating_add(sealed)
        } else {
            0
        });
    e.add(
        format!(
            "workflow results of {} {} until folded{}",
            grouped(held),
            if held == 1 { "run" } else { "runs" },
            if keep {
                ", with their steps, jobs and segments"
            } else {
                ""
            }
        ),
        per_result
            .saturating_mul(held)
            .saturating_add(workflows.saturating_mul(16)),
    );
    e.add_held(
        format!("workflow figures of {} runs", grouped(runs.tasks)),
        runs.tasks.saturating_mul(FIGURES_BYTES).saturating_mul(2),
        Held::ToEnd,
    );
    // The rows of the trace are freed before the first run starts: they
    // count only where they exceed what the runs and results hold.
    let runs_bytes = e
        .items
        .iter()
        .filter(|i| i.held == Held::Now && i.what != PROGRAM_ITEM)
        .fold(0u64, |sum, i| sum.saturating_add(i.bytes));
    e.add_held(
        "reading the workflow trace (its rows, freed before the runs: beyond them)",
        reading_scratch(shape).saturating_sub(runs_bytes),
        Held::Shared,
    );
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflows::footprint::reading_scratch;

    /// The shape of [`trace`]'s file.
    fn shape() -> WorkflowTraceShape {
        WorkflowTraceShape {
            rows: 3,
            workflow_runs: 2,
            keyed: 1,
            text_heap: 11 * 32,
            ..WorkflowTraceShape::default()
        }
    }

    /// One thread, no `--jobs`.
    fn one_thread() -> MemoryBudget {
        MemoryBudget {
            threads: Some(1),
            ..MemoryBudget::default()
        }
    }

    /// Three steps of two workflows, two tenants; one cache key.
    fn trace() -> WorkflowTrace {
        let csv = "workflow,tenant,submit_s,step,parents,runtime_s,gpus,cpus,cache_key,output_bytes\n\
                   w1,t1,0,a,,1,1,0,k,0\n\
                   w1,t1,0,b,a,1,1,0,,0\n\
                   w2,t2,0,a,,1,1,0,,0\n";
        WorkflowTrace::parse("t", csv.as_bytes()).expect("a trace")
    }

    /// Each item of a one-thread run of the hand trace, by hand from the
    /// layouts (sizes as `size_of` gives them on a 64-bit target).
    #[test]
    fn a_small_runs_items_by_hand() {
        let t = trace();
        let runs = WorkflowRuns {
            tasks: 1,
            jobs: 3,
            slots: 1,
            service: false,
            preemptive: false,
        };
        let (budget, shape) = (one_thread(), shape());
        let e = estimate(&t, &shape, &runs, &budget);
        let bytes = |prefix: &str| {
            e.items
                .iter()
                .find(|i| i.what.starts_with(prefix))
                .map_or(0, |i| i.bytes)
        };
        // Jobs: 3 × (251 − 16 − 48 engine + 8 workload); steps: 3 × (48
        // + 4); workflows: 2 × (8 + 4 + 1 + 4 + 96); a slot: 184 + 4 +
        // 32; events: (2 + 2) × 48; the engine's log: 3 segments of 46,
        // twice.
        let run = 3 * 195 + 3 * 52 + 2 * 113 + 220 + 4 * 48 + 2 * 3 * 46;
        assert_eq!(run, 1_655);
        assert_eq!(bytes("workflow runs at once (1 of up to 3 jobs"), run);
        // One result held: 2 records of 96; the figures' lists, 16 a
        // workflow.
        assert_eq!(bytes("workflow results of 1 run until folded"), 2 * 96 + 32);
        // One run's figures, 168 bytes, twice.
        assert_eq!(bytes("workflow figures of 1 runs"), 336);
        assert_eq!(
            bytes("workflow trace (3 steps of 2 workflows)"),
            held_bytes(&t)
        );
        // Reading holds more than this run: the rest counts.
        let scratch = reading_scratch(&shape);
        assert!(scratch > run + 224, "{scratch}");
        assert_eq!(bytes("reading the workflow trace"), scratch - run - 224);
        // With a service, the engine's log is the service's.
        let with_service = estimate(
            &t,
            &shape,
            &WorkflowRuns {
                service: true,
                ..runs
            },
            &budget,
        );
        let now = |e: &Estimate| {
            e.items
                .iter()
                .find(|i| i.what.starts_with("workflow runs at once"))
                .map_or(0, |i| i.bytes)
        };
        assert_eq!(now(&e) - now(&with_service), 276);
    }

    /// The reading's scratch counts only where it exceeds the runs: the
    /// sum of the items is the trace, the runs' and results' items and
    /// the larger of the two.
    #[test]
    fn the_readings_scratch_counts_beyond_the_runs() {
        let t = trace();
        let (budget, shape) = (one_thread(), shape());
        let big = WorkflowRuns {
            tasks: 1,
            jobs: 1_000_000,
            slots: 0,
            service: true,
            preemptive: true,
        };
        let e = estimate(&t, &shape, &big, &budget);
        assert!(
            e.items
                .iter()
                .all(|i| !i.what.starts_with("reading the workflow trace")),
            "the runs hold more than the reading: {e:?}"
        );
        assert_eq!(cache_slots(&t, Scope::Global), 1, "one distinct key");
        assert_eq!(cache_slots(&t, Scope::Tenant), 1, "one keyed step");
    }
}
