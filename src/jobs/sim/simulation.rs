//! Job-trace mode as a [`Component`] of the shared event loop
//! ([`run_events`]): the same loop and [`EventQueue`] as the
//! model-selection mode, with job arrivals, completions and priority
//! timers as events.
//!
//! At one instant (DESIGN §9.2): completions (kind 0), then arrivals
//! (kind 1), then priority timers (kind 2, used by `las`), then one
//! scheduling pass — only if something happened at that instant (stale
//! events of preempted runs do not trigger a pass).
//!
//! # Preemption (srtf, las)
//!
//! Progress is checkpointed: a preempted job keeps the service it received
//! and later resumes with the rest (`remaining = duration − service
//! received`), on whatever GPUs the placement rule gives it then. Each
//! resumption after a preemption first spends `restart_overhead` (restoring
//! the checkpoint) holding its GPUs without progress; a job preempted
//! during that restore keeps owing it. The first start has no overhead.
//! Preemption happens only inside a scheduling pass. Work is conserved:
//! every job receives exactly its `duration` of service, checked by the
//! property tests from the run's segments.
//!
//! # Rounds
//!
//! With `[cluster] round_s` ([`super::rounds`], DESIGN §11.3) the pass runs
//! only at round boundaries (kind 4 events) instead of after every instant
//! with an event.
//!
//! Nothing is allocated per event: job state is sized up front, the
//! arrival events are fed one at a time from a pre-sorted order, and the
//! segment log is reserved for one run per job (preemptions beyond a
//! quarter of the job count grow it, amortised).

use super::JobScheduler;
use super::cluster::{Alloc, Cluster, Placement};
use super::rounds::Rounds;
use crate::core::error::{Error, Result};
use crate::core::policy_clock::PolicyClock;
use crate::core::time::Micros;
use crate::core::{Component, EventQueue, run_events};
use crate::jobs::trace::Job;

const COMPLETION: u8 = 0;
const ARRIVAL: u8 = 1;
const TIMER: u8 = 2;

/// "Never": no start time yet.
pub const NEVER: Micros = Micros::MAX;

/// An event of the job simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobEvent {
    /// A run of `job` ends with the job's last service; stale unless `run`
    /// is the job's current run number.
    Completion {
        /// Job index.
        job: u32,
        /// Run number when scheduled.
        run: u32,
    },
    /// `job` is submitted.
    Arrival {
        /// Job index.
        job: u32,
    },
    /// The scheduler asked to be told when `job` reaches a service level
    /// (e.g. a LAS queue threshold); stale unless `run` is current.
    Timer {
        /// Job index.
        job: u32,
        /// Run number when scheduled.
        run: u32,
    },
    /// A round boundary ([`super::rounds`]); stale unless `seq` is the
    /// pending boundary's.
    Boundary {
        /// Sequence number when scheduled.
        seq: u32,
    },
}

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Not submitted yet.
    Future,
    /// Submitted, not running, not done.
    Waiting,
    /// Holding GPUs.
    Running,
    /// Received all its service.
    Done,
}

/// One interval during which a job held GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Job index.
    pub job: u32,
    /// GPUs held.
    pub gpus: u32,
    /// When the GPUs were taken, µs.
    pub start: Micros,
    /// When they were given back, µs.
    pub end: Micros,
    /// Restore time at the start of the segment without progress, µs.
    pub overhead: Micros,
    /// Offset of the segment's per-node allocation in
    /// [`JobOutcome::segment_allocs`] (only when recorded).
    pub alloc_offset: u32,
    /// Number of allocation entries (0 when not recorded).
    pub alloc_len: u32,
}

impl Segment {
    /// Service received in the segment, µs.
    pub fn service(&self) -> Micros {
        self.end - self.start - self.overhead
    }
}

/// Cluster and rules of one simulation.
#[derive(Debug, Clone, Copy)]
pub struct JobSimInput<'a> {
    /// The jobs, indexed as in the trace (ties broken by lowest index).
    pub jobs: &'a [Job],
    /// Number of users (job `user` fields are below it).
    pub users: usize,
    /// GPUs per node.
    pub nodes: &'a [u32],
    /// Placement rule.
    pub placement: Placement,
    /// Whether a job that does not fit lets later jobs be scanned.
    pub backfill: bool,
    /// Restore time paid on each resumption after a preemption, µs.
    pub restart_overhead: Micros,
    /// Record each segment's per-node allocation (for tests).
    pub record_allocations: bool,
}

/// What one simulation produces.
#[derive(Debug, Clone, Default)]
pub struct JobOutcome {
    /// First start per job, µs.
    pub first_start: Vec<Micros>,
    /// Completion per job, µs.
    pub end: Vec<Micros>,
    /// Times each job was preempted.
    pub preemptions: Vec<u32>,
    /// Every interval a job held GPUs, in the order they ended.
    pub segments: Vec<Segment>,
    /// Per-node allocations of the segments (when recorded).
    pub segment_allocs: Vec<Alloc>,
    /// Events handled by the loop (stale ones included).
    pub events: u64,
    /// The last instant processed, µs.
    pub end_time: Micros,
    /// GPUs in the cluster.
    pub gpus: u64,
    /// Time spent inside the scheduler's calls, its scheduling passes
    /// included (they contain the engine's placement of the jobs it
    /// starts); sampled, a measurement only.
    pub policy_clock: PolicyClock,
}

/// The state of every job and of the cluster, readable by schedulers.
#[derive(Debug)]
pub struct State<'a> {
    jobs: &'a [Job],
    cluster: Cluster,
    status: Vec<Status>,
    /// Service still owed at the start of the current run (or now, if not
    /// running).
    remaining: Vec<Micros>,
    /// Service received before the current run.
    attained: Vec<Micros>,
    run_start: Vec<Micros>,
    progress_start: Vec<Micros>,
    /// Planned end of the current run; the completion time once done.
    end: Vec<Micros>,
    first_start: Vec<Micros>,
    /// Whether the next start pays the restart overhead.
    restore: Vec<bool>,
    run: Vec<u32>,
    preemptions: Vec<u32>,
    alloc_offset: Vec<usize>,
    alloc_len: Vec<u32>,
    alloc: Vec<Alloc>,
    segments: Vec<Segment>,
    segment_allocs: Vec<Alloc>,
    record_allocations: bool,
    overhead: Micros,
    backfill: bool,
    round: Option<Micros>,
}

impl State<'_> {
    /// The jobs.
    pub fn jobs(&self) -> &[Job] {
        self.jobs
    }
    /// Job `j`.
    pub fn job(&self, j: u32) -> &Job {
        &self.jobs[j as usize]
    }
    /// Where job `j` is.
    pub fn status(&self, j: u32) -> Status {
        self.status[j as usize]
    }
    /// The cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }
    /// Whether backfilling is on for this run.
    pub fn backfill(&self) -> bool {
        self.backfill
    }
    /// The restart overhead, µs.
    pub fn restart_overhead(&self) -> Micros {
        self.overhead
    }
    /// The round length in rounds mode (DESIGN §11.3), µs; `None` when
    /// event-driven.
    pub fn round(&self) -> Option<Micros> {
        self.round
    }
    /// Whether job `j`'s next start pays the restart overhead.
    pub fn owes_restore(&self, j: u32) -> bool {
        self.restore[j as usize]
    }
    /// Planned end of `j`'s current run (its completion time once done).
    pub fn end(&self, j: u32) -> Micros {
        self.end[j as usize]
    }

    fn progress(&self, j: usize, now: Micros) -> Micros {
        if self.status[j] == Status::Running {
            now.saturating_sub(self.progress_start[j])
        } else {
            0
        }
    }

    /// Service job `j` still needs at `now`, µs.
    pub fn remaining(&self, j: u32, now: Micros) -> Micros {
        self.remaining[j as usize] - self.progress(j as usize, now)
    }

    /// Service job `j` has received by `now`, µs.
    pub fn attained(&self, j: u32, now: Micros) -> Micros {
        self.attained[j as usize] + self.progress(j as usize, now)
    }

    /// Time from `now` until `j` would finish if it ran from now on without
    /// interruption: `end − now` when running, remaining service plus any
    /// owed restore otherwise.
    pub fn time_to_finish(&self, j: u32, now: Micros) -> Micros {
        let i = j as usize;
        if self.status[i] == Status::Running {
            self.end[i] - now
        } else {
            self.remaining[i] + if self.restore[i] { self.overhead } else { 0 }
        }
    }

    /// The GPUs job `j` holds (or last held), per node.
    pub fn allocs(&self, j: u32) -> &[Alloc] {
        let off = self.alloc_offset[j as usize];
        &self.alloc[off..off + self.alloc_len[j as usize] as usize]
    }

    fn push_segment(&mut self, j: usize, end: Micros) {
        let start = self.run_start[j];
        let overhead = self.progress_start[j].min(end) - start;
        let (alloc_offset, alloc_len) = if self.record_allocations {
            let off = self.segment_allocs.len() as u32;
            let off_j = self.alloc_offset[j];
            let len = self.alloc_len[j] as usize;
            self.segment_allocs
                .extend_from_slice(&self.alloc[off_j..off_j + len]);
            (off, len as u32)
        } else {
            (0, 0)
        };
        self.segments.push(Segment {
            job: j as u32,
            gpus: self.jobs[j].gpus,
            start,
            end,
            overhead,
            alloc_offset,
            alloc_len,
        });
    }
}

/// A preemption not yet final: [`Pass::undo`] puts the job back as if it
/// had never been preempted, [`Pass::commit`] makes it final.
#[derive(Debug, Clone, Copy)]
pub struct Tentative {
    job: u32,
    remaining: Micros,
    attained: Micros,
    restore: bool,
    run: u32,
}

impl Tentative {
    /// The preempted job.
    pub fn job(&self) -> u32 {
        self.job
    }
}

/// One scheduling pass: what a scheduler may read and do at `now`.
#[derive(Debug)]
pub struct Pass<'p, 'a> {
    now: Micros,
    state: &'p mut State<'a>,
    queue: &'p mut EventQueue<JobEvent>,
}

impl<'a> Pass<'_, 'a> {
    /// The current time, µs.
    pub fn now(&self) -> Micros {
        self.now
    }
    /// The state of every job.
    pub fn state(&self) -> &State<'a> {
        self.state
    }
    /// Whether backfilling is on.
    pub fn backfill(&self) -> bool {
        self.state.backfill
    }
    /// GPUs job `j` needs.
    pub fn gpus(&self, j: u32) -> u32 {
        self.state.jobs[j as usize].gpus
    }
    /// Whether job `j` fits now under the placement rule.
    pub fn fits(&self, j: u32) -> bool {
        self.state.cluster.fits(self.gpus(j))
    }
    /// Free GPUs in the cluster.
    pub fn free_gpus(&self) -> u64 {
        self.state.cluster.free_total()
    }

    /// Start waiting job `j` if it fits (placement rule); returns whether
    /// it started.
    pub fn start(&mut self, j: u32) -> Result<bool> {
        let now = self.now;
        let s = &mut *self.state;
        let i = j as usize;
        if s.status[i] != Status::Waiting {
            return Err(Error::policy(format!(
                "the scheduler started job {j}, which is not waiting"
            )));
        }
        let off = s.alloc_offset[i];
        let cap = s.alloc_offset.get(i + 1).copied().unwrap_or(s.alloc.len()) - off;
        let Some(len) = s
            .cluster
            .place(s.jobs[i].gpus, &mut s.alloc[off..off + cap])
        else {
            return Ok(false);
        };
        s.alloc_len[i] = len as u32;
        let overhead = if s.restore[i] { s.overhead } else { 0 };
        s.restore[i] = false;
        let progress_start = now + overhead;
        let end = progress_start
            .checked_add(s.remaining[i])
            .ok_or_else(|| Error::input("simulated time overflowed 2^64 µs"))?;
        s.status[i] = Status::Running;
        s.run_start[i] = now;
        s.progress_start[i] = progress_start;
        s.end[i] = end;
        if s.first_start[i] == NEVER {
            s.first_start[i] = now;
        }
        self.queue.push(
            end,
            COMPLETION,
            JobEvent::Completion {
                job: j,
                run: s.run[i],
            },
        );
        Ok(true)
    }

    /// Ask for a [`JobEvent::Timer`] after `service` more µs of progress of
    /// running job `j`, unless the job completes first.
    pub fn schedule_timer(&mut self, j: u32, service: Micros) {
        let i = j as usize;
        let s = &*self.state;
        if s.status[i] != Status::Running {
            return;
        }
        let at = s.progress_start[i].max(self.now).saturating_add(service);
        if at < s.end[i] {
            self.queue.push(
                at,
                TIMER,
                JobEvent::Timer {
                    job: j,
                    run: s.run[i],
                },
            );
        }
    }

    /// Preempt running job `j` tentatively: its GPUs are free and it is
    /// waiting with the service it received so far.
    pub fn preempt(&mut self, j: u32) -> Result<Tentative> {
        let now = self.now;
        let s = &mut *self.state;
        let i = j as usize;
        if s.status[i] != Status::Running {
            return Err(Error::policy(format!(
                "the scheduler preempted job {j}, which is not running"
            )));
        }
        let t = Tentative {
            job: j,
            remaining: s.remaining[i],
            attained: s.attained[i],
            restore: s.restore[i],
            run: s.run[i],
        };
        let progress = now.saturating_sub(s.progress_start[i]);
        // A job preempted while restoring its checkpoint still owes it.
        s.restore[i] = s.overhead > 0;
        s.remaining[i] -= progress;
        s.attained[i] += progress;
        s.run[i] = s.run[i].wrapping_add(1);
        s.status[i] = Status::Waiting;
        let off = s.alloc_offset[i];
        let len = s.alloc_len[i] as usize;
        let (cluster, alloc) = (&mut s.cluster, &s.alloc);
        cluster.release(&alloc[off..off + len])?;
        Ok(t)
    }

    /// Whether [`Pass::undo`] would succeed: the job's GPUs are all free.
    pub fn can_undo(&self, t: &Tentative) -> bool {
        self.state.status[t.job as usize] == Status::Waiting
            && self.state.cluster.can_occupy(self.state.allocs(t.job))
    }

    /// Undo a tentative preemption: the job holds the same GPUs again and
    /// its pending completion and timers are valid again.
    pub fn undo(&mut self, t: Tentative) -> Result<()> {
        let s = &mut *self.state;
        let i = t.job as usize;
        let off = s.alloc_offset[i];
        let len = s.alloc_len[i] as usize;
        let (cluster, alloc) = (&mut s.cluster, &s.alloc);
        cluster.occupy(&alloc[off..off + len])?;
        s.remaining[i] = t.remaining;
        s.attained[i] = t.attained;
        s.restore[i] = t.restore;
        s.run[i] = t.run;
        s.status[i] = Status::Running;
        Ok(())
    }

    /// Make a tentative preemption final: its segment is logged.
    pub fn commit(&mut self, t: Tentative) {
        let s = &mut *self.state;
        let i = t.job as usize;
        s.preemptions[i] += 1;
        // The segment ends now; its allocation is still recorded in place.
        s.push_segment(i, self.now);
    }
}

/// Per-job pieces a scheduler is told about when something happens.
struct JobSim<'a, 's> {
    state: State<'a>,
    scheduler: &'s mut dyn JobScheduler,
    order: Vec<u32>,
    next_arrival: usize,
    dirty: bool,
    done: usize,
    /// Jobs submitted so far.
    arrived: usize,
    /// The round clock in rounds mode.
    rounds: Option<Rounds>,
    /// Time inside the scheduler's calls.
    clock: PolicyClock,
}

impl JobSim<'_, '_> {
    fn push_next_arrival(&mut self, queue: &mut EventQueue<JobEvent>) {
        if let Some(&j) = self.order.get(self.next_arrival) {
            self.next_arrival += 1;
            queue.push(
                self.state.jobs[j as usize].submit,
                ARRIVAL,
                JobEvent::Arrival { job: j },
            );
        }
    }
}

impl Component for JobSim<'_, '_> {
    type Event = JobEvent;

    fn on_event(
        &mut self,
        now: Micros,
        event: JobEvent,
        queue: &mut EventQueue<JobEvent>,
    ) -> Result<()> {
        match event {
            JobEvent::Arrival { job } => {
                self.state.status[job as usize] = Status::Waiting;
                self.arrived += 1;
                let tick = self.clock.start();
                self.scheduler.on_arrival(job, now, &self.state);
                self.clock.stop(tick);
                self.push_next_arrival(queue);
                self.dirty = true;
                if let Some(r) = &mut self.rounds {
                    r.on_arrival(now, queue);
                }
            }
            JobEvent::Completion { job, run } => {
                let s = &mut self.state;
                let i = job as usize;
                if s.run[i] != run || s.status[i] != Status::Running {
                    return Ok(());
                }
                s.push_segment(i, now);
                s.attained[i] += s.remaining[i];
                s.remaining[i] = 0;
                s.status[i] = Status::Done;
                s.end[i] = now;
                let off = s.alloc_offset[i];
                let len = s.alloc_len[i] as usize;
                let (cluster, alloc) = (&mut s.cluster, &s.alloc);
                cluster.release(&alloc[off..off + len])?;
                self.done += 1;
                let tick = self.clock.start();
                self.scheduler.on_completion(job, now, &self.state);
                self.clock.stop(tick);
                self.dirty = true;
                if let Some(r) = &mut self.rounds {
                    let idle = self.state.cluster.free_total() == self.state.cluster.total();
                    r.on_completion(now, idle, queue);
                }
            }
            JobEvent::Timer { job, run } => {
                let i = job as usize;
                if self.state.run[i] != run || self.state.status[i] != Status::Running {
                    return Ok(());
                }
                let tick = self.clock.start();
                let next = self.scheduler.on_timer(job, now, &self.state);
                self.clock.stop(tick);
                if let Some(next) = next {
                    let mut pass = Pass {
                        now,
                        state: &mut self.state,
                        queue,
                    };
                    pass.schedule_timer(job, next);
                }
                self.dirty = true;
            }
            JobEvent::Boundary { seq } => {
                if let Some(r) = &mut self.rounds {
                    r.on_boundary(seq);
                }
            }
        }
        Ok(())
    }

    fn after_instant(&mut self, now: Micros, queue: &mut EventQueue<JobEvent>) -> Result<()> {
        let run = match &mut self.rounds {
            Some(r) => r.take_boundary(),
            None => self.dirty,
        };
        if !run {
            return Ok(());
        }
        self.dirty = false;
        let mut pass = Pass {
            now,
            state: &mut self.state,
            queue,
        };
        let tick = self.clock.start();
        let done = self.scheduler.schedule(&mut pass);
        self.clock.stop(tick);
        done?;
        if let Some(r) = &mut self.rounds {
            r.after_pass(now, self.arrived > self.done, queue)?;
        }
        Ok(())
    }
}

/// Check that every job can run on an empty cluster: under `consolidate` it
/// must fit on the largest node, under `spread` in the whole cluster.
/// Returns the index of the first job that cannot.
pub fn first_unplaceable(jobs: &[Job], nodes: &[u32], placement: Placement) -> Option<usize> {
    let limit = match placement {
        Placement::Consolidate => u64::from(nodes.iter().copied().max().unwrap_or(0)),
        Placement::Spread => nodes.iter().map(|&g| u64::from(g)).sum(),
    };
    jobs.iter().position(|j| u64::from(j.gpus) > limit)
}

/// Replay `input.jobs` on the cluster under `scheduler`, event-driven
/// (rounds: [`super::rounds::simulate_jobs_in_rounds`]).
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
    let jobs = input.jobs;
    let n = jobs.len();
    if input.nodes.is_empty() || input.nodes.contains(&0) {
        return Err(Error::input(
            "internal error: every node needs at least one GPU",
        ));
    }
    if let Some(j) = first_unplaceable(jobs, input.nodes, input.placement) {
        return Err(Error::input(format!(
            "job {j} needs {} GPUs, more than the cluster can ever give it under `{}` placement",
            jobs[j].gpus,
            input.placement.name()
        )));
    }
    if n >= u32::MAX as usize {
        return Err(Error::input("more than 2^32 - 1 jobs in one run"));
    }
    let n_nodes = input.nodes.len();
    let mut alloc_offset = Vec::with_capacity(n);
    let mut total = 0usize;
    for j in jobs {
        alloc_offset.push(total);
        total += match input.placement {
            Placement::Consolidate => 1,
            Placement::Spread => (j.gpus as usize).min(n_nodes),
        };
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by_key(|&j| (jobs[j as usize].submit, j));
    let state = State {
        jobs,
        cluster: Cluster::new(input.nodes, input.placement),
        status: vec![Status::Future; n],
        remaining: jobs.iter().map(|j| j.duration).collect(),
        attained: vec![0; n],
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
        segments: Vec::with_capacity(n + n / 4),
        segment_allocs: if input.record_allocations {
            Vec::with_capacity(total)
        } else {
            Vec::new()
        },
        record_allocations: input.record_allocations,
        overhead: input.restart_overhead,
        backfill: input.backfill,
        round: rounds.as_ref().map(Rounds::round),
    };
    let gpus = state.cluster.total();
    let mut sim = JobSim {
        state,
        scheduler,
        order,
        next_arrival: 0,
        dirty: false,
        done: 0,
        arrived: 0,
        rounds,
        clock: PolicyClock::default(),
    };
    let capacity = 2 * (gpus as usize).min(n) + 16;
    let mut queue = EventQueue::with_capacity(capacity);
    sim.push_next_arrival(&mut queue);
    let end = run_events(&mut sim, &mut queue, None)?;
    if sim.done != n {
        return Err(Error::input(format!(
            "internal error: {} of {n} jobs never completed",
            n - sim.done
        )));
    }
    let s = sim.state;
    Ok(JobOutcome {
        first_start: s.first_start,
        end: s.end,
        preemptions: s.preemptions,
        segments: s.segments,
        segment_allocs: s.segment_allocs,
        events: end.events,
        end_time: end.end,
        gpus,
        policy_clock: sim.clock,
    })
}
