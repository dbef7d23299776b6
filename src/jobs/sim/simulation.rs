//! The job simulation's state ([`State`]), its scheduling pass ([`Pass`])
//! and the cluster scheduler API ([`JobScheduler`]). The run itself — the
//! same event loop and [`EventQueue`] as the model-selection mode, with
//! job arrivals, completions and priority timers as events — is
//! [`super::replay`].
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
//! # GPU types (DESIGN §11.2)
//!
//! With [`JobSimInput::types`] each node has a GPU type and each job a set
//! of allowed types and a duration per type. [`Pass::start`] places a job
//! on one type, chosen by the run's [`TypePolicy`], and never across types;
//! its run takes its duration on that type. Progress is kept in work units
//! ([`super::type_policy`]): a job resumed on another type needs the
//! fraction of the job it has not done yet, at that type's speed. Under
//! `fastest-or-wait` a job's wait bound is an event (kind 3) that triggers
//! a pass, so a job waiting for its fastest type starts elsewhere as soon
//! as the bound is reached.
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

use serde::{Deserialize, Serialize};

use std::borrow::Cow;
use std::sync::Arc;

use super::cluster::{Alloc, Cluster, Placement};
use super::event::{COMPLETION, JobEvent, TIMER};
use super::segment_log::{Segment, SegmentLog, Segments};
use super::type_policy::{JobTypes, TypePolicy, time_for_work, work_in_time};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::sim::EventQueue;
use crate::core::sim::policy_clock::PolicyClock;
use crate::core::sim::time::Micros;
use crate::jobs::trace::Job;

/// "Never": no start time yet.
pub const NEVER: Micros = Micros::MAX;

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

/// Cluster and rules of one simulation.
#[derive(Debug, Clone, Copy)]
pub struct JobSimInput<'a> {
    /// The jobs, indexed as in the trace (ties broken by lowest index).
    pub jobs: &'a [Job],
    /// Number of users (job `user` fields are below it).
    pub users: usize,
    /// GPUs per node.
    pub nodes: &'a [u32],
    /// CPUs per node (DESIGN §14.6); empty or all 0: CPUs are not counted
    /// and every job's `cpus` is ignored.
    pub cpus: &'a [u32],
    /// Placement rule.
    pub placement: Placement,
    /// Whether a job that does not fit lets later jobs be scanned.
    pub backfill: bool,
    /// Restore time paid on each resumption after a preemption, µs.
    pub restart_overhead: Micros,
    /// Record each segment's per-node allocation (for tests).
    pub record_allocations: bool,
    /// GPU types; `None`: one anonymous type, every job's duration its
    /// `duration`.
    pub types: Option<SimTypes<'a>>,
}

/// The GPU types of one simulation (DESIGN §11.2).
#[derive(Debug, Clone, Copy)]
pub struct SimTypes<'a> {
    /// Each node's type, in node order (types `0..jobs.types()`).
    pub node_types: &'a [GpuType],
    /// Each job's allowed types and per-type durations.
    pub jobs: &'a JobTypes,
    /// How a job's type is chosen.
    pub policy: TypePolicy,
}

/// What one simulation produces.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct JobOutcome {
    /// First start per job, µs.
    pub first_start: Vec<Micros>,
    /// Completion per job, µs.
    pub end: Vec<Micros>,
    /// Times each job was preempted.
    pub preemptions: Vec<u32>,
    /// Every interval a job held GPUs, in the order they ended: in memory
    /// while small, in a temporary file past it (written as segments end,
    /// `jobs/sim/segment_log.rs`).
    pub segments: Segments,
    /// Per-node allocations of the segments (when recorded).
    pub segment_allocs: Vec<Alloc>,
    /// Events handled by the loop (stale ones included).
    pub events: u64,
    /// The last instant processed, µs.
    pub end_time: Micros,
    /// GPUs in the cluster.
    pub gpus: u64,
    /// GPUs per type (one entry when untyped).
    pub gpus_by_type: Vec<u64>,
    /// The GPU type each job last ran on (0 when untyped).
    pub gpu_type: Vec<GpuType>,
    /// Time spent inside the scheduler's calls, its scheduling passes
    /// included (they contain the engine's placement of the jobs it
    /// starts); sampled, a measurement only.
    pub policy_clock: PolicyClock,
}

/// The state of every job and of the cluster, readable by schedulers.
/// Cloned by a steppable run to plan a pass and to fork (DESIGN §15.5).
#[derive(Debug, Clone)]
pub struct State<'a> {
    pub(super) jobs: Cow<'a, [Job]>,
    pub(super) cluster: Cluster,
    pub(super) types: Option<Cow<'a, JobTypes>>,
    pub(super) type_policy: TypePolicy,
    pub(super) status: Vec<Status>,
    /// Work still owed at the start of the current run (or now, if not
    /// running), in work units (µs at the job's `duration`; §11.2).
    pub(super) remaining: Vec<Micros>,
    /// Service received before the current run, µs of GPU holding without
    /// restores.
    pub(super) attained: Vec<Micros>,
    /// The type of the current (or last) run.
    pub(super) run_type: Vec<GpuType>,
    pub(super) run_start: Vec<Micros>,
    pub(super) progress_start: Vec<Micros>,
    /// Planned end of the current run; the completion time once done.
    pub(super) end: Vec<Micros>,
    pub(super) first_start: Vec<Micros>,
    /// Whether the next start pays the restart overhead.
    pub(super) restore: Vec<bool>,
    pub(super) run: Vec<u32>,
    pub(super) preemptions: Vec<u32>,
    pub(super) alloc_offset: Vec<usize>,
    pub(super) alloc_len: Vec<u32>,
    pub(super) alloc: Vec<Alloc>,
    pub(super) segments: SegmentLog,
    pub(super) segment_allocs: Vec<Alloc>,
    pub(super) record_allocations: bool,
    pub(super) overhead: Micros,
    pub(super) backfill: bool,
    pub(super) round: Option<Micros>,
    /// Jobs `0..trace_jobs` are the trace's; the others a workload's
    /// (DESIGN §13), submitted while the run goes.
    pub(super) trace_jobs: usize,
    /// Jobs `second..` are the workload's second part (owner 2: never
    /// hidden, never restarted; DESIGN §14.2).
    pub(super) second: usize,
    /// The cluster scheduler never sees the workload's jobs of owner 1
    /// (priority `low`, DESIGN §13.3).
    pub(super) hidden: bool,
    /// The workload's preempted jobs lose their progress (`restart`).
    pub(super) restart_workload: bool,
    /// Per job: withdrawn by its workload while waiting in the cluster
    /// scheduler's queue; it "starts" on no GPUs and completes at once.
    pub(super) withdrawn: Vec<bool>,
    /// Per owner (0 trace, 1 workload, 2 the workload's second part):
    /// GPUs held, jobs running, jobs waiting.
    pub(super) held: [u64; 3],
    pub(super) running_jobs: [u32; 3],
    pub(super) waiting_jobs: [u32; 3],
    /// Per job: the first node of its first allocation.
    pub(super) first_node: Vec<u32>,
    /// The workload's running jobs (in no particular order) and each
    /// one's position in that list, so a pass that hides them touches
    /// only them.
    pub(super) workload_running: Vec<u32>,
    pub(super) workload_pos: Vec<u32>,
    /// Whether some job of the run needs 0 GPUs (a CPU-only job, DESIGN
    /// §14.6), so that "no GPU free" does not mean "nothing fits".
    pub(super) zero_gpu_jobs: bool,
}

impl State<'_> {
    /// The owner of job `i`: 0 the trace, 1 the workload, 2 the
    /// workload's second part.
    pub(super) fn owner(&self, i: usize) -> usize {
        usize::from(i >= self.trace_jobs) + usize::from(i >= self.second)
    }

    /// Whether the cluster scheduler sees job `j` (every trace job; a
    /// workload's jobs unless they are hidden, DESIGN §13.3; the second
    /// part's always).
    pub fn visible(&self, j: u32) -> bool {
        let i = j as usize;
        i < self.trace_jobs || i >= self.second || !self.hidden
    }

    /// GPUs held by the trace's jobs (`0`), the workload's (`1`) or its
    /// second part's (`2`).
    pub fn held_by(&self, owner: usize) -> u64 {
        self.held[owner]
    }

    /// Jobs of owner `owner` (0 trace, 1 workload, 2 second part) waiting.
    pub fn waiting_of(&self, owner: usize) -> u32 {
        self.waiting_jobs[owner]
    }

    /// Jobs of owner `owner` (0 trace, 1 workload, 2 second part) running.
    pub fn running_of(&self, owner: usize) -> u32 {
        self.running_jobs[owner]
    }

    /// The first node job `j` ran on (`u32::MAX` before it started).
    pub fn first_node(&self, j: u32) -> u32 {
        self.first_node[j as usize]
    }

    /// Job `j`'s first start, µs ([`NEVER`] before it started).
    pub fn first_start(&self, j: u32) -> Micros {
        self.first_start[j as usize]
    }

    /// Waiting → running: the counters follow.
    pub(super) fn count_start(&mut self, i: usize) {
        let o = self.owner(i);
        self.waiting_jobs[o] -= 1;
        self.running_jobs[o] += 1;
        self.held[o] += u64::from(self.jobs[i].gpus);
        if o == 1 {
            self.workload_pos[i - self.trace_jobs] = self.workload_running.len() as u32;
            self.workload_running.push(i as u32);
        }
    }

    /// A workload job stops running: out of the running list.
    pub(super) fn unlist(&mut self, i: usize) {
        let at = self.workload_pos[i - self.trace_jobs] as usize;
        self.workload_running.swap_remove(at);
        if let Some(&moved) = self.workload_running.get(at) {
            self.workload_pos[moved as usize - self.trace_jobs] = at as u32;
        }
    }

    /// Running → waiting (a preemption).
    pub(super) fn count_stop(&mut self, i: usize) {
        let o = self.owner(i);
        self.waiting_jobs[o] += 1;
        self.running_jobs[o] -= 1;
        self.held[o] -= u64::from(self.jobs[i].gpus);
        if o == 1 {
            self.unlist(i);
        }
    }

    /// Running → done.
    pub(super) fn count_done(&mut self, i: usize) {
        let o = self.owner(i);
        self.running_jobs[o] -= 1;
        self.held[o] -= u64::from(self.jobs[i].gpus);
        if o == 1 {
            self.unlist(i);
        }
    }

    /// The jobs (a workload's jobs not yet submitted are placeholders).
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
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
    /// Free GPUs in the cluster now.
    pub fn free_gpus(&self) -> u64 {
        self.cluster.free_total()
    }
    /// GPUs in the cluster.
    pub fn total_gpus(&self) -> u64 {
        self.cluster.total()
    }
    /// Free CPUs in the cluster now (0 when CPUs are not counted,
    /// DESIGN §14.6).
    pub fn free_cpus(&self) -> u64 {
        self.cluster.cpu_free_total()
    }
    /// CPUs in the cluster (0 when CPUs are not counted).
    pub fn total_cpus(&self) -> u64 {
        self.cluster.cpu_total()
    }
    /// Whether CPUs are counted ([`Cluster::counts_cpus`]).
    pub fn counts_cpus(&self) -> bool {
        self.cluster.counts_cpus()
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

    pub(super) fn progress(&self, j: usize, now: Micros) -> Micros {
        if self.status[j] == Status::Running {
            now.saturating_sub(self.progress_start[j])
        } else {
            0
        }
    }

    /// Job `j`'s duration on type `t`, µs (its `duration` when untyped).
    pub fn duration_on(&self, j: u32, t: GpuType) -> Micros {
        match &self.types {
            None => self.jobs[j as usize].duration,
            Some(x) => x.duration(j as usize, t),
        }
    }

    /// The types job `j` may use, as a mask (bit `t` = type `t`).
    pub fn allowed_types(&self, j: u32) -> u64 {
        self.types.as_ref().map_or(1, |x| x.allowed(j as usize))
    }

    /// The type of job `j`'s current (or last) run.
    pub fn run_type(&self, j: u32) -> GpuType {
        self.run_type[j as usize]
    }

    /// The types job `j` may start on at `now` under the type policy: its
    /// allowed types, or under `fastest-or-wait` before its bound only its
    /// fastest allowed type.
    pub fn start_types(&self, j: u32, now: Micros) -> u64 {
        let allowed = self.allowed_types(j);
        match (self.type_policy, &self.types) {
            (TypePolicy::FastestOrWait { max_wait }, Some(x))
                if now.saturating_sub(self.jobs[j as usize].submit) < max_wait =>
            {
                x.fastest_in(j as usize, allowed).map_or(0, |t| 1 << t)
            }
            _ => allowed,
        }
    }

    /// The type job `j` would start on at `now` under the type policy and
    /// the placement rule, if it fits anywhere it may go.
    pub fn choose_type(&self, j: u32, now: Micros) -> Option<GpuType> {
        let gpus = self.jobs[j as usize].gpus;
        let cpus = self.jobs[j as usize].cpus;
        let Some(x) = &self.types else {
            return self.cluster.fits_job_on(gpus, cpus, 0).then_some(0);
        };
        let mask = self.start_types(j, now);
        match self.type_policy {
            TypePolicy::Agnostic => self.cluster.agnostic_type_for(gpus, cpus, mask),
            TypePolicy::Fastest | TypePolicy::FastestOrWait { .. } => {
                let mut best: Option<(Micros, GpuType)> = None;
                for t in 0..x.types() {
                    let t = t as GpuType;
                    if mask & (1 << t) != 0 && self.cluster.fits_job_on(gpus, cpus, t) {
                        let d = x.duration(j as usize, t);
                        if best.is_none_or(|(b, _)| d < b) {
                            best = Some((d, t));
                        }
                    }
                }
                best.map(|(_, t)| t)
            }
        }
    }

    pub(super) fn work_done(&self, j: usize, elapsed: Micros) -> Micros {
        let d = self.duration_on(j as u32, self.run_type[j]);
        work_in_time(elapsed, self.jobs[j].duration, d).min(self.remaining[j])
    }

    /// Work job `j` still needs at `now`, in work units: µs of service at
    /// its `duration` (exactly µs of service when untyped; §11.2).
    pub fn remaining(&self, j: u32, now: Micros) -> Micros {
        let i = j as usize;
        self.remaining[i] - self.work_done(i, self.progress(i, now))
    }

    /// Service job `j` has received by `now`, µs.
    pub fn attained(&self, j: u32, now: Micros) -> Micros {
        self.attained[j as usize] + self.progress(j as usize, now)
    }

    /// Time from `now` until `j` would finish if it ran from now on without
    /// interruption, in work units (§11.2): when running, its remaining
    /// work plus what is left of its restore (`end − now` when untyped);
    /// otherwise its remaining work plus any owed restore. In work units
    /// every job's figure is on one scale whatever type it runs on, so a
    /// job preempted for one that needs less never preempts it back.
    pub fn time_to_finish(&self, j: u32, now: Micros) -> Micros {
        let i = j as usize;
        if self.status[i] == Status::Running {
            self.remaining(j, now) + self.progress_start[i].saturating_sub(now)
        } else {
            self.remaining[i] + if self.restore[i] { self.overhead } else { 0 }
        }
    }

    /// The GPUs job `j` holds (or last held), per node.
    pub fn allocs(&self, j: u32) -> &[Alloc] {
        let off = self.alloc_offset[j as usize];
        &self.alloc[off..off + self.alloc_len[j as usize] as usize]
    }

    pub(super) fn push_segment(&mut self, j: usize, end: Micros) {
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
        let off_j = self.alloc_offset[j];
        let node = if self.alloc_len[j] > 0 {
            self.alloc[off_j].node
        } else {
            u32::MAX
        };
        self.segments.push(Segment {
            job: j as u32,
            gpus: self.jobs[j].gpus,
            start,
            end,
            overhead,
            alloc_offset,
            alloc_len,
            gpu_type: self.run_type[j],
            node,
        });
    }
}

/// A preemption not yet final: [`Pass::undo`] puts the job back as if it
/// had never been preempted, [`Pass::commit`] makes it final.
#[derive(Debug, Clone, Copy)]
pub struct Tentative {
    pub(super) job: u32,
    pub(super) remaining: Micros,
    pub(super) attained: Micros,
    pub(super) restore: bool,
    pub(super) run: u32,
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
    pub(super) now: Micros,
    pub(super) state: &'p mut State<'a>,
    pub(super) queue: &'p mut EventQueue<JobEvent>,
    /// When planning a steppable run's pass (DESIGN §15.5): every
    /// operation that changed the state, in order.
    pub(super) log: Option<&'p mut Vec<PassOp>>,
}

/// One operation of a scheduling pass that changed the state, as a
/// steppable run records it to replay it (DESIGN §15.5). Starts that did
/// not happen change nothing and are not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PassOp {
    /// The job started on the type.
    Start(u32, GpuType),
    /// The running job was preempted tentatively.
    Preempt(u32),
    /// Its tentative preemption was undone.
    Undo(u32),
    /// Its tentative preemption was made final.
    Commit(u32),
    /// A timer was asked for after that much more service.
    Timer(u32, Micros),
}

impl<'p, 'a> Pass<'p, 'a> {
    pub(super) fn new(
        now: Micros,
        state: &'p mut State<'a>,
        queue: &'p mut EventQueue<JobEvent>,
    ) -> Self {
        Self {
            now,
            state,
            queue,
            log: None,
        }
    }

    fn record(&mut self, op: PassOp) {
        if let Some(log) = &mut self.log {
            log.push(op);
        }
    }
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
    /// Whether job `j` fits now under the type policy and the placement
    /// rule.
    pub fn fits(&self, j: u32) -> bool {
        self.state.choose_type(j, self.now).is_some()
    }
    /// The types job `j` may start on now ([`State::start_types`]).
    pub fn start_types(&self, j: u32) -> u64 {
        self.state.start_types(j, self.now)
    }
    /// Free GPUs in the cluster.
    pub fn free_gpus(&self) -> u64 {
        self.state.cluster.free_total()
    }
    /// Whether no waiting job can start now, for want of resources: no GPU
    /// is free and either no job of the run needs 0 GPUs or (CPUs counted)
    /// no CPU is free either. Schedulers stop scanning their queue on it;
    /// without CPU-only jobs it is exactly `free_gpus() == 0`.
    pub fn no_room(&self) -> bool {
        let c = &self.state.cluster;
        c.free_total() == 0
            && (!self.state.zero_gpu_jobs || (c.counts_cpus() && c.cpu_free_total() == 0))
    }
    /// CPUs job `j` needs (counted only when the cluster counts CPUs).
    pub fn cpus(&self, j: u32) -> u32 {
        self.state.jobs[j as usize].cpus
    }
    /// Free CPUs in the cluster (0 when CPUs are not counted).
    pub fn free_cpus(&self) -> u64 {
        self.state.cluster.cpu_free_total()
    }
    /// GPUs in the cluster.
    pub fn total_gpus(&self) -> u64 {
        self.state.cluster.total()
    }
    /// CPUs in the cluster (0 when CPUs are not counted).
    pub fn total_cpus(&self) -> u64 {
        self.state.cluster.cpu_total()
    }

    /// Start waiting job `j` if it fits (type policy, then placement rule
    /// on the chosen type); returns whether it started.
    pub fn start(&mut self, j: u32) -> Result<bool> {
        let now = self.now;
        let s = &mut *self.state;
        let i = j as usize;
        if s.status[i] != Status::Waiting {
            return Err(Error::policy(format!(
                "the scheduler started job {j}, which is not waiting"
            )));
        }
        if s.withdrawn[i] {
            return Ok(self.start_withdrawn(j));
        }
        let Some(t) = s.choose_type(j, now) else {
            return Ok(false);
        };
        self.start_on(j, t)
    }

    /// Start waiting job `j` on GPU type `t` (one of its allowed types) if
    /// it fits there under the placement rule; returns whether it started.
    /// For schedulers that choose the type themselves (`max-min-fairness`).
    pub fn start_on(&mut self, j: u32, t: GpuType) -> Result<bool> {
        let now = self.now;
        let s = &mut *self.state;
        let i = j as usize;
        if s.status[i] != Status::Waiting {
            return Err(Error::policy(format!(
                "the scheduler started job {j}, which is not waiting"
            )));
        }
        if s.withdrawn[i] {
            return Ok(self.start_withdrawn(j));
        }
        if usize::from(t) >= s.cluster.types().min(64) || s.allowed_types(j) & (1 << t) == 0 {
            return Err(Error::policy(format!(
                "the scheduler started job {j} on GPU type {t}, which it may not use"
            )));
        }
        let (gpus, cpus) = (s.jobs[i].gpus, s.jobs[i].cpus);
        if !s.cluster.fits_job_on(gpus, cpus, t) {
            return Ok(false);
        }
        let off = s.alloc_offset[i];
        let cap = s.alloc_offset.get(i + 1).copied().unwrap_or(s.alloc.len()) - off;
        let Some(len) = s
            .cluster
            .place_job_on(gpus, cpus, t, &mut s.alloc[off..off + cap])
        else {
            return Err(Error::input(format!(
                "internal error: job {j} fits on type {t} but could not be placed"
            )));
        };
        s.alloc_len[i] = len as u32;
        s.run_type[i] = t;
        let overhead = if s.restore[i] { s.overhead } else { 0 };
        s.restore[i] = false;
        let progress_start = now + overhead;
        let run_time = time_for_work(s.remaining[i], s.jobs[i].duration, s.duration_on(j, t));
        let end = progress_start
            .checked_add(run_time)
            .ok_or_else(|| Error::input("simulated time overflowed 2^64 µs"))?;
        s.status[i] = Status::Running;
        s.count_start(i);
        s.run_start[i] = now;
        s.progress_start[i] = progress_start;
        s.end[i] = end;
        if s.first_start[i] == NEVER {
            s.first_start[i] = now;
            // A job holding nothing (0 GPUs and no CPUs counted, under
            // `spread`) has no node.
            s.first_node[i] = if len > 0 { s.alloc[off].node } else { u32::MAX };
        }
        self.queue.push(
            end,
            COMPLETION,
            JobEvent::Completion {
                job: j,
                run: s.run[i],
            },
        );
        self.record(PassOp::Start(j, t));
        Ok(true)
    }

    /// A job its workload withdrew while it waited (DESIGN §13.3)
    /// "starts" on no GPUs and completes at once, so the scheduler forgets
    /// it as it forgets any job; returns true (it started).
    pub(super) fn start_withdrawn(&mut self, j: u32) -> bool {
        let s = &mut *self.state;
        let i = j as usize;
        s.status[i] = Status::Running;
        self.queue.push(
            self.now,
            COMPLETION,
            JobEvent::Completion {
                job: j,
                run: s.run[i],
            },
        );
        true
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
            if let Some(log) = &mut self.log {
                log.push(PassOp::Timer(j, service));
            }
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
        let work = s.work_done(i, progress);
        // A job preempted while restoring its checkpoint still owes it.
        s.restore[i] = s.overhead > 0;
        s.remaining[i] -= work;
        s.attained[i] += progress;
        s.run[i] = s.run[i].wrapping_add(1);
        s.status[i] = Status::Waiting;
        s.count_stop(i);
        let off = s.alloc_offset[i];
        let len = s.alloc_len[i] as usize;
        let (cluster, alloc) = (&mut s.cluster, &s.alloc);
        cluster.release(&alloc[off..off + len])?;
        self.record(PassOp::Preempt(j));
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
        s.count_start(i);
        self.record(PassOp::Undo(t.job));
        Ok(())
    }

    /// Make a tentative preemption final: its segment is logged.
    pub fn commit(&mut self, t: Tentative) {
        let s = &mut *self.state;
        let i = t.job as usize;
        s.preemptions[i] += 1;
        // The segment ends now; its allocation is still recorded in place.
        s.push_segment(i, self.now);
        if s.restart_workload && s.owner(i) == 1 {
            // `preempt = "restart"` (DESIGN §13.3): the progress is lost,
            // and with it the checkpoint to restore.
            s.remaining[i] = s.jobs[i].duration;
            s.restore[i] = false;
        }
        self.record(PassOp::Commit(t.job));
    }
}

/// Check that every job can run on an empty cluster: under `consolidate` it
/// must fit on the largest node, under `spread` in the whole cluster.
/// Returns the index of the first job that cannot.
pub fn first_unplaceable(jobs: &[Job], nodes: &[u32], placement: Placement) -> Option<usize> {
    first_unplaceable_typed(jobs, nodes, &[], None, placement)
}

/// The most GPUs one job can get on type `t` under `placement`: the
/// largest node of the type (`consolidate`) or all its GPUs (`spread`).
/// `node_types` empty: every node has type 0.
pub fn type_limit(nodes: &[u32], node_types: &[GpuType], t: GpuType, placement: Placement) -> u64 {
    let of_t = nodes
        .iter()
        .enumerate()
        .filter(|(n, _)| node_types.get(*n).copied().unwrap_or(0) == t)
        .map(|(_, &g)| u64::from(g));
    match placement {
        Placement::Consolidate => of_t.max().unwrap_or(0),
        Placement::Spread => of_t.sum(),
    }
}

/// [`first_unplaceable`] on a typed cluster: a job can run if one of its
/// allowed types can give it its GPUs on an empty cluster ([`type_limit`];
/// a job never spans types). `types` `None`: one anonymous type.
pub fn first_unplaceable_typed(
    jobs: &[Job],
    nodes: &[u32],
    node_types: &[GpuType],
    types: Option<&JobTypes>,
    placement: Placement,
) -> Option<usize> {
    let n_types = types.map_or(1, JobTypes::types);
    let limits: Vec<u64> = (0..n_types)
        .map(|t| type_limit(nodes, node_types, t as GpuType, placement))
        .collect();
    jobs.iter().enumerate().position(|(j, job)| {
        let mask = types.map_or(1, |x| x.allowed(j));
        !(0..n_types).any(|t| mask & (1 << t) != 0 && u64::from(job.gpus) <= limits[t])
    })
}

/// With CPUs counted (DESIGN §14.6): the first job that can never run on
/// an empty cluster for want of GPUs or CPUs. Under `consolidate` a job
/// needs one node of an allowed type with at least its GPUs and its CPUs;
/// under `spread` its GPUs and its CPUs in all among the nodes of one
/// allowed type. `cpus` empty or all 0: CPUs are not counted, `None` (the
/// GPU check is [`first_unplaceable_typed`]'s). Node shapes are deduplicated
/// per type first, so the cost is jobs × distinct shapes.
pub fn first_unfit_cpus(
    jobs: &[Job],
    nodes: &[u32],
    cpus: &[u32],
    node_types: &[GpuType],
    types: Option<&JobTypes>,
    placement: Placement,
) -> Option<usize> {
    if cpus.iter().all(|&c| c == 0) {
        return None;
    }
    let n_types = types.map_or(1, JobTypes::types);
    // Per type: the distinct (GPUs, CPUs) of its nodes, and the sums.
    let mut shapes: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n_types];
    let mut sums: Vec<(u64, u64)> = vec![(0, 0); n_types];
    for (n, &g) in nodes.iter().enumerate() {
        let t = node_types.get(n).copied().unwrap_or(0) as usize;
        let c = cpus.get(n).copied().unwrap_or(0);
        if t >= n_types {
            continue;
        }
        if !shapes[t].contains(&(g, c)) {
            shapes[t].push((g, c));
        }
        sums[t].0 += u64::from(g);
        sums[t].1 += u64::from(c);
    }
    jobs.iter().enumerate().position(|(j, job)| {
        let mask = types.map_or(1, |x| x.allowed(j));
        !(0..n_types).any(|t| {
            mask & (1 << t) != 0
                && match placement {
                    Placement::Consolidate => shapes[t]
                        .iter()
                        .any(|&(g, c)| job.gpus <= g && job.cpus <= c),
                    Placement::Spread => {
                        u64::from(job.gpus) <= sums[t].0 && u64::from(job.cpus) <= sums[t].1
                    }
                }
        })
    })
}

// The scheduler API (DESIGN §9): what a cluster scheduler implements, next
// to the state it reads ([`State`]) and the pass it acts through ([`Pass`]).
// The simulation calls schedulers through this trait only; it knows no
// scheduler.

/// A queue key: smaller is served first. Every scheduler's key ends with
/// the job index, so keys are unique and ties go to the lowest index.
pub type Key = (u64, u64, u32);

/// Decides which jobs run.
pub trait JobScheduler: Send {
    /// Job `job` was submitted at `now` and is waiting.
    fn on_arrival(&mut self, job: u32, now: Micros, state: &State<'_>);

    /// Running job `job` received all its service at `now`; its GPUs are
    /// free again.
    fn on_completion(&mut self, job: u32, now: Micros, state: &State<'_>);

    /// A timer asked for by [`Pass::schedule_timer`] fired for running job
    /// `job`; return the service after which to fire again, if any.
    fn on_timer(&mut self, _job: u32, _now: Micros, _state: &State<'_>) -> Option<Micros> {
        None
    }

    /// The scheduling pass of one instant.
    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()>;

    /// An independent copy of the scheduler in its current state, for a
    /// steppable run (DESIGN §15.5): it plans each pass on a copy and forks
    /// with the run. `None` (the default): the scheduler cannot be copied,
    /// and a steppable run of it is an error.
    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        None
    }
}

/// A boxed scheduler is one (a builder may return a
/// `Box<dyn JobScheduler>`, e.g. [`priority_order`](crate::jobs::policy::priority_order)'s).
impl<S: JobScheduler + ?Sized> JobScheduler for Box<S> {
    fn on_arrival(&mut self, job: u32, now: Micros, state: &State<'_>) {
        (**self).on_arrival(job, now, state);
    }

    fn on_completion(&mut self, job: u32, now: Micros, state: &State<'_>) {
        (**self).on_completion(job, now, state);
    }

    fn on_timer(&mut self, job: u32, now: Micros, state: &State<'_>) -> Option<Micros> {
        (**self).on_timer(job, now, state)
    }

    fn schedule(&mut self, pass: &mut Pass<'_, '_>) -> Result<()> {
        (**self).schedule(pass)
    }

    fn fork(&self) -> Option<Box<dyn JobScheduler>> {
        (**self).fork()
    }
}

/// What a factory gets to build the scheduler of one run.
#[derive(Debug, Clone, Copy)]
pub struct SchedInit<'a> {
    /// The jobs of the run.
    pub jobs: &'a [Job],
    /// Number of users.
    pub users: usize,
    /// The scenario's seed (for a scheduler's own random stream, drawn
    /// from `(seed, repetition, purpose)` only, DESIGN §5).
    pub seed: u64,
    /// The repetition, from 0.
    pub repetition: u64,
}

/// Builds the scheduler of each run; an `Err` (a user scheduler that
/// cannot be made) stops the run with it.
pub type JobSchedulerFactory =
    Arc<dyn Fn(&SchedInit<'_>) -> Result<Box<dyn JobScheduler>> + Send + Sync>;
