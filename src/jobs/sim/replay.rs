//! A job simulation run (DESIGN §9.2, §13.1): the engine (`engine.rs`) and a
//! [`Workload`] as one [`Component`] of the event loop, and the functions
//! that replay a trace — alone (job mode) or with a workload beside it.

use std::borrow::Cow;

use super::cluster::{Alloc, Cluster, Placement};
use super::engine::Engine;
use super::event::JobEvent;
use super::rounds::Rounds;
use super::segment_log::SegmentLog;
use super::simulation::{
    JobOutcome, JobScheduler, JobSimInput, NEVER, State, Status, first_unfit_cpus,
    first_unplaceable_typed,
};
use super::type_policy::{JobTypes, TypePolicy};
use super::workload::{Ctx, Workload};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::held::Held;
use crate::core::sim::policy_clock::PolicyClock;
use crate::core::sim::time::Micros;
use crate::core::sim::{Component, EventQueue, LoopEnd, run_events};
use crate::jobs::trace::Job;

/// The simulation as a [`Component`] of the event loop: the trace's jobs,
/// the cluster scheduler, and a [`Workload`] submitting jobs of its own
/// (none in job mode: `()`).
pub(super) struct JobSim<'a, 's, W> {
    pub(super) engine: Engine<'a, 's>,
    /// The workload submitting jobs `trace_jobs..`.
    pub(super) workload: W,
}

impl<W: Workload> Component for JobSim<'_, '_, W> {
    type Event = JobEvent;

    fn on_event(
        &mut self,
        now: Micros,
        event: JobEvent,
        queue: &mut EventQueue<JobEvent>,
    ) -> Result<()> {
        handle_event(&mut self.engine, &mut self.workload, now, event, queue)
    }

    fn after_instant(&mut self, now: Micros, queue: &mut EventQueue<JobEvent>) -> Result<()> {
        let workload = &mut self.workload;
        let e = &mut self.engine;
        let run = match &mut e.rounds {
            Some(r) => r.take_boundary(),
            None => e.dirty,
        };
        if run {
            e.dirty = false;
            e.pass(now, queue)?;
            let active = e.active();
            if let Some(r) = &mut e.rounds {
                r.after_pass(now, active, queue)?;
            }
            for k in 0..e.preempted.len() {
                workload.on_preempted(e.preempted[k], now)?;
            }
            e.preempted.clear();
        }
        let mut ctx = Ctx::new(e, now, queue);
        workload.fill(&mut ctx)?;
        workload.after_instant(now, &e.state);
        Ok(())
    }
}

/// One event: the engine's handling of it, then the workload's hooks
/// about it (DESIGN §13.1) — the batch replay's and the steppable run's
/// ([`super::stepper::JobStepper`]) one code path.
pub(super) fn handle_event<W: Workload>(
    e: &mut Engine<'_, '_>,
    workload: &mut W,
    now: Micros,
    event: JobEvent,
    queue: &mut EventQueue<JobEvent>,
) -> Result<()> {
    let done = e.event(now, event, queue)?;
    if !e.last_was_trace {
        workload.on_own_event_of(now, &event);
    }
    if let Some(job) = done {
        let mut ctx = Ctx::new(e, now, queue);
        workload.on_done(&mut ctx, job)?;
    }
    if let JobEvent::Workload { tag, data } = event {
        let mut ctx = Ctx::new(e, now, queue);
        workload.on_event(&mut ctx, tag, data)?;
    }
    Ok(())
}

/// Replay `input.jobs` on the cluster under `scheduler`, event-driven
/// (rounds: [`simulate_jobs_in_rounds`]).
pub fn simulate_jobs(
    input: &JobSimInput<'_>,
    scheduler: &mut dyn JobScheduler,
) -> Result<JobOutcome> {
    simulate(input, None, scheduler)
}

/// Replay `input.jobs`, event-driven or in rounds.
pub(super) fn simulate(
    input: &JobSimInput<'_>,
    rounds: Option<Rounds>,
    scheduler: &mut dyn JobScheduler,
) -> Result<JobOutcome> {
    let table = JobTable {
        jobs: Cow::Borrowed(input.jobs),
        types: input.types.map(|t| Cow::Borrowed(t.jobs)),
        trace_jobs: input.jobs.len(),
        second: input.jobs.len(),
        hidden: false,
        restart_workload: false,
        extra_events: 0,
    };
    Ok(simulate_with(input, table, rounds, scheduler, ())?.outcome)
}

/// The job table of a run with a workload beside the trace (DESIGN §13):
/// the trace's jobs first, then placeholders for every job the workload
/// may submit.
#[derive(Debug, Clone)]
pub struct JobTable<'a> {
    /// Every job: `0..trace_jobs` the trace's, the rest the workload's
    /// (their `gpus` and, on a cluster with CPUs, `cpus` sized: under
    /// `spread` they size the job's allocation slot, and a job prepared
    /// with more is an error; the rest set when submitted).
    pub jobs: Cow<'a, [Job]>,
    /// Allowed types and per-type durations of every job (typed clusters;
    /// the workload's rows are placeholders, [`JobTypes::pin`]ned when
    /// submitted).
    pub types: Option<Cow<'a, JobTypes>>,
    /// Jobs of the trace.
    pub trace_jobs: usize,
    /// Jobs `second..` belong to the workload's second part (owner 2,
    /// DESIGN §14.2: the workflows beside the service), which is never
    /// hidden nor restarted; `jobs.len()` when there is none.
    pub second: usize,
    /// The cluster scheduler never sees the workload's jobs (those of
    /// owner 1, `trace_jobs..second`).
    pub hidden: bool,
    /// The workload's preempted jobs lose their progress.
    pub restart_workload: bool,
    /// Events the workload may hold queued at once (a capacity hint).
    pub extra_events: usize,
}

/// A run with a workload, as the engine leaves it.
#[derive(Debug)]
pub struct RawRun<W> {
    /// Every job's outcome (the trace's and the workload's); `events` and
    /// `end_time` count every event.
    pub outcome: JobOutcome,
    /// Per job: the first node it ran on (`u32::MAX`: never).
    pub first_node: Vec<u32>,
    /// Events about the trace's jobs alone (what a run of the trace alone
    /// counts) and the last instant with one.
    pub trace_events: u64,
    /// The last instant with an event about the trace, µs.
    pub trace_end: Micros,
    /// The workload, after the run.
    pub workload: W,
}

/// Replay the trace of `input` (its `jobs` and `types` are the trace's)
/// with `table`'s jobs and `workload` beside it, event-driven or in rounds.
pub fn simulate_with<W: Workload>(
    input: &JobSimInput<'_>,
    table: JobTable<'_>,
    rounds: Option<Rounds>,
    scheduler: &mut dyn JobScheduler,
    workload: W,
) -> Result<RawRun<W>> {
    let n_trace = input.jobs.len();
    let (engine, mut queue) = build(input, table, rounds, Held::Borrowed(scheduler))?;
    let mut sim = JobSim { engine, workload };
    {
        let JobSim { engine, workload } = &mut sim;
        let mut ctx = Ctx::new(engine, 0, &mut queue);
        workload.init(&mut ctx)?;
    }
    let end = run_events(&mut sim, &mut queue, None)?;
    let JobSim { engine, workload } = sim;
    finish(engine, end, n_trace, workload)
}

/// The engine of a run of `input`'s trace with `table`'s jobs, nothing
/// happened yet, and its event queue holding the first arrival: what the
/// batch replay ([`simulate_with`]) and a steppable run
/// ([`super::stepper::JobStepper`]) both start from.
pub(super) fn build<'a, 's>(
    input: &JobSimInput<'_>,
    table: JobTable<'a>,
    rounds: Option<Rounds>,
    scheduler: Held<'s, dyn JobScheduler + 's>,
) -> Result<(Engine<'a, 's>, EventQueue<JobEvent>)> {
    let trace = input.jobs;
    let n_trace = trace.len();
    let jobs = table.jobs;
    let n = jobs.len();
    if input.nodes.is_empty() || input.nodes.contains(&0) {
        return Err(Error::input(
            "internal error: every node needs at least one GPU",
        ));
    }
    let node_types: &[GpuType] = input.types.map_or(&[], |t| t.node_types);
    if let Some(t) = &table.types
        && (t.len() != n
            || node_types.len() != input.nodes.len()
            || node_types.iter().any(|&x| x as usize >= t.types()))
    {
        return Err(Error::input(
            "internal error: the GPU types do not match the jobs or the nodes",
        ));
    }
    if table.trace_jobs != n_trace || n < n_trace || jobs[..n_trace] != *trace {
        return Err(Error::input(
            "internal error: the job table does not start with the trace",
        ));
    }
    if let Some(j) = first_unplaceable_typed(
        trace,
        input.nodes,
        node_types,
        input.types.map(|t| t.jobs),
        input.placement,
    ) {
        return Err(Error::input(format!(
            "job {j} needs {} GPUs, more than the cluster can ever give it under `{}` placement",
            trace[j].gpus,
            input.placement.name()
        )));
    }
    if let Some(j) = first_unfit_cpus(
        trace,
        input.nodes,
        input.cpus,
        node_types,
        input.types.map(|t| t.jobs),
        input.placement,
    ) {
        return Err(Error::input(format!(
            "job {j} needs {} GPUs and {} CPUs, more than the cluster can ever give it under `{}` placement",
            trace[j].gpus,
            trace[j].cpus,
            input.placement.name()
        )));
    }
    if n >= u32::MAX as usize {
        return Err(Error::input("more than 2^32 - 1 jobs in one run"));
    }
    let n_nodes = input.nodes.len();
    let counts_cpus = input.cpus.iter().any(|&c| c > 0);
    let mut alloc_offset = Vec::with_capacity(n);
    let mut total = 0usize;
    for j in jobs.iter() {
        alloc_offset.push(total);
        // Under `spread` a job holds GPUs on at most `gpus` nodes and, with
        // CPUs counted, CPUs alone on at most `cpus` more (DESIGN §14.6).
        let cpus = if counts_cpus { j.cpus as usize } else { 0 };
        total += match input.placement {
            Placement::Consolidate => 1,
            Placement::Spread => (j.gpus as usize + cpus).min(n_nodes),
        };
    }
    let mut order: Vec<u32> = (0..n_trace as u32).collect();
    order.sort_unstable_by_key(|&j| (trace[j as usize].submit, j));
    let n_types = table.types.as_ref().map_or(1, |t| t.types());
    let cluster =
        Cluster::typed(input.nodes, node_types, n_types, input.placement).with_cpus(input.cpus);
    let gpus_total = cluster.total();
    let remaining = jobs.iter().map(|j| j.duration).collect();
    let zero_gpu_jobs = jobs.iter().any(|j| j.gpus == 0);
    let state = State {
        jobs,
        cluster,
        types: table.types,
        type_policy: input.types.map_or(TypePolicy::Agnostic, |t| t.policy),
        status: vec![Status::Future; n],
        remaining,
        attained: vec![0; n],
        run_type: vec![0; n],
        run_start: vec![0; n],
        progress_start: vec![0; n],
        end: vec![NEVER; n],
        first_start: vec![NEVER; n],
        restore: vec![false; n],
        run: vec![0; n],
        preemptions: vec![0; n],
        alloc_offset,
        alloc_len: vec![0; n],
        alloc: vec![Alloc::default(); total],
        segments: SegmentLog::new()?,
        segment_allocs: if input.record_allocations {
            Vec::with_capacity(total)
        } else {
            Vec::new()
        },
        record_allocations: input.record_allocations,
        overhead: input.restart_overhead,
        backfill: input.backfill,
        round: rounds.as_ref().map(Rounds::round),
        trace_jobs: n_trace,
        second: table.second,
        hidden: table.hidden,
        restart_workload: table.restart_workload,
        withdrawn: vec![false; n],
        held: [0; 3],
        running_jobs: [0; 3],
        waiting_jobs: [0; 3],
        first_node: vec![u32::MAX; n],
        workload_running: Vec::with_capacity((gpus_total as usize).min(n - n_trace)),
        workload_pos: vec![0; n - n_trace],
        zero_gpu_jobs,
    };
    let gpus = state.cluster.total();
    let extra_events = table.extra_events;
    let workload_jobs = n - n_trace;
    let engine = Engine {
        state,
        scheduler,
        order,
        next_arrival: 0,
        dirty: false,
        done: 0,
        arrived: 0,
        rounds,
        clock: PolicyClock::default(),
        trace_events: 0,
        trace_end: 0,
        last_was_trace: false,
        tentative: Vec::with_capacity(if table.hidden {
            (gpus as usize).min(workload_jobs)
        } else {
            0
        }),
        preempted: Vec::with_capacity(if table.hidden {
            (gpus as usize).min(workload_jobs)
        } else {
            0
        }),
        defer_passes: false,
        pass_requested: false,
    };
    let capacity = 2 * (gpus as usize).min(n) + 16 + extra_events;
    let mut queue = EventQueue::with_capacity(capacity);
    let mut engine = engine;
    engine.push_next_arrival(&mut queue);
    Ok((engine, queue))
}

/// The run whose event loop ended at `end`, with its `workload`, as the
/// batch replay and a steppable run both leave it; every one of the
/// `n_trace` trace jobs must have completed.
pub(super) fn finish<W>(
    engine: Engine<'_, '_>,
    end: LoopEnd,
    n_trace: usize,
    workload: W,
) -> Result<RawRun<W>> {
    let gpus = engine.state.cluster.total();
    let gpus_by_type: Vec<u64> = (0..engine.state.cluster.types())
        .map(|t| engine.state.cluster.total_of_type(t as GpuType))
        .collect();
    if engine.done != n_trace {
        return Err(Error::input(format!(
            "internal error: {} of {n_trace} jobs never completed",
            n_trace - engine.done
        )));
    }
    let s = engine.state;
    Ok(RawRun {
        outcome: JobOutcome {
            first_start: s.first_start,
            end: s.end,
            preemptions: s.preemptions,
            segments: s.segments.seal()?,
            segment_allocs: s.segment_allocs,
            events: end.events,
            end_time: end.end,
            gpus,
            gpus_by_type,
            gpu_type: s.run_type,
            policy_clock: engine.clock,
        },
        first_node: s.first_node,
        trace_events: engine.trace_events,
        trace_end: engine.trace_end,
        workload,
    })
}

/// Replay `input.jobs` under `scheduler` in rounds of `round` µs (module
/// documentation).
pub fn simulate_jobs_in_rounds(
    input: &JobSimInput<'_>,
    round: Micros,
    scheduler: &mut dyn JobScheduler,
) -> Result<JobOutcome> {
    simulate(input, Some(Rounds::new(round)?), scheduler)
}
