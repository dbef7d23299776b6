//! The workflows as a workload of the cluster engine (DESIGN §14.2–14.5):
//! DAG readiness, the memo cache's hit-or-miss decision at readiness,
//! attempts as cluster jobs of the engine's owner 2, failures, retries
//! under both `resume` rules, deadlines, the horizon and
//! auto-parallelisation.
//!
//! **Jobs.** The workload owns the engine's jobs `first..first +
//! capacity` ([`workflow_jobs`] bounds them before the run) and hands
//! them out in submission order, so its `r`-th submitted job is engine job
//! `first + r` and [`WorkflowOutcome::jobs`]`[r]`. Per job it keeps its
//! step and attempt; per step its current attempt's job range (the parts
//! of one attempt are consecutive). Nothing is allocated per event: every
//! array is sized when the workload is built (the cache, a
//! [`MemoCache`], likewise; only its expiry queue grows, amortised).
//!
//! **Events** (engine kinds, DESIGN §9.2; tags from [`TAG_BASE`]):
//! submissions at kind 1 (with arrivals; the next workflow's is pushed
//! when one fires, in (submit, workflow) order), hit restores done and
//! retries after backoff at kind 2, deadlines at kind 3 (so a workflow
//! done at its deadline instant is done), the horizon at kind 5. Ties
//! within a kind go in the order pushed.

use super::input::WorkflowsInput;
use super::outcome::{
    AttemptJob, CacheStats, StepRecord, StepState, WorkflowOutcome, WorkflowRecord, WorkflowState,
};
use crate::core::error::{Error, Result};
use crate::core::sim::rng::{Purpose, stream_for, unit};
use crate::core::sim::time::Micros;
use crate::jobs::sim::segment_log::{SegmentLog, Segments};
use crate::jobs::sim::simulation::{NEVER, Status};
use crate::jobs::sim::{Ctx, JobOutcome, Workload};
use crate::jobs::trace::Job;
use crate::workflows::cache::{MemoCache, Stored};
use crate::workflows::rule::{CacheEntry, Eviction, Parallelism, SplitStep, score_key};
use crate::workflows::trace::NO_KEY;
use crate::workflows::{CacheRule, ParallelRule, Resume, Scope, WorkflowTrace};

/// The first tag of the workflows' events (the service's are below it).
pub(super) const TAG_BASE: u8 = 16;
const TAG_SUBMIT: u8 = TAG_BASE;
const TAG_HIT: u8 = TAG_BASE + 1;
const TAG_RETRY_STEP: u8 = TAG_BASE + 2;
const TAG_RETRY_WORKFLOW: u8 = TAG_BASE + 3;
const TAG_DEADLINE: u8 = TAG_BASE + 4;
const TAG_HORIZON: u8 = TAG_BASE + 5;

const KIND_SUBMIT: u8 = 1;
const KIND_TIMER: u8 = 2;
const KIND_DEADLINE: u8 = 3;
const KIND_HORIZON: u8 = 5;

/// No cache slot.
const NO_SLOT: u32 = u32::MAX;

/// Where a step is in its workflow's current run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ss {
    /// Some parent not done (or not yet submitted).
    Waiting,
    /// A hit, restoring until `restore_end`.
    Restoring,
    /// Its attempt's jobs are in the cluster.
    Running,
    /// Failed, waiting out its backoff (`resume = "cached"`).
    Backoff,
    /// Done (ran or hit).
    Done,
    /// Its last attempt failed with no retry left.
    Failed,
}

/// Where a workflow is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ws {
    /// Not submitted yet.
    Pending,
    /// Submitted, running.
    Active,
    /// Waiting out a `from-scratch` retry's backoff.
    Backoff,
    /// Done, failed, past its deadline or the horizon.
    Over,
}

#[derive(Debug, Clone, Copy)]
struct StepRt {
    state: Ss,
    /// Parents not done.
    pending: u32,
    /// Attempts submitted (misses), all runs together.
    attempts: u32,
    /// Jobs of the current attempt not yet ended.
    parts_left: u32,
    /// The current attempt's first job (index into the workload's jobs)
    /// and its number of parts.
    first_job: u32,
    parts: u32,
    /// The current attempt fails when its jobs end.
    fails: bool,
    /// Whether its last completion was a hit.
    hit: bool,
    restore_end: Micros,
    ready: Micros,
    end: Micros,
}

/// The most jobs `input`'s workflows can ever submit (DESIGN §14.4): per
/// workflow, with k_s the parts of step s (the rule's k, or cap, for a
/// parallel step under a parallel rule; else 1) and R = `max_retries` when
/// one of its steps can fail (its `failure_p`, or `[workflows] failure_p`,
/// above 0; else no attempt fails and none is retried: R = 0),
/// Σ k_s + R · Σ k_s under `from-scratch` (a retry reruns every step) and
/// Σ k_s + R · max k_s under `cached` (a retry reruns one step). The sum
/// saturates: a scenario whose bound passes what a run can number is
/// refused by its loader ([`MAX_ENGINE_JOBS`]).
pub fn workflow_jobs(input: &WorkflowsInput<'_>) -> u64 {
    let t = input.trace;
    let k_rule = u64::from(input.parallel.max_parts());
    let r = u64::from(input.retry.max_retries);
    t.workflows()
        .iter()
        .map(|w| {
            let steps = &t.steps()[w.first_step as usize..(w.first_step + w.steps) as usize];
            let k = |s: &crate::workflows::Step| if s.parallel { k_rule } else { 1 };
            let sum = steps.iter().map(k).fold(0u64, u64::saturating_add);
            let max = steps.iter().map(k).max().unwrap_or(0);
            let fails = steps
                .iter()
                .any(|s| input.failure_p.unwrap_or(s.failure_p) > 0.0);
            let retries = if fails { r } else { 0 };
            sum.saturating_add(retries.saturating_mul(match input.retry.resume {
                Resume::FromScratch => sum,
                Resume::Cached => max,
            }))
        })
        .fold(0u64, u64::saturating_add)
}

/// Bytes the workload holds per step while a run goes (DESIGN §8.5
/// "Workflows"): where the step is (a `StepRt`) and its cache slot's
/// number (4).
pub const STEP_BYTES: u64 = size_of::<StepRt>() as u64 + 4;

/// Bytes the workload holds per workflow while a run goes: its submit
/// time (8), its place in the submission order (4), where it is (a `Ws`),
/// its steps done (4) and its [`WorkflowRecord`].
pub const WORKFLOW_BYTES: u64 =
    8 + 4 + size_of::<Ws>() as u64 + 4 + size_of::<WorkflowRecord>() as u64;

/// Bytes the workload holds per job it may submit: the job's step and
/// attempt (4 + 4); with `--jobs` an [`AttemptJob`] more.
pub const JOB_BYTES: u64 = 8;

/// The most jobs one shared run may number: the engine indexes its jobs
/// (the background's, the service's, the workflows') with a `u32`.
pub const MAX_ENGINE_JOBS: u64 = u32::MAX as u64;

/// The workflows during one run.
pub(super) struct Workflows<'a> {
    trace: &'a WorkflowTrace,
    input: WorkflowsInput<'a>,
    seed: u64,
    repetition: u64,
    /// The engine's index of the workload's first job.
    first: u32,
    capacity: usize,
    /// Jobs handed out so far.
    next: u32,
    /// The cluster user of tenant 0 (tenant i is `user_base + i`).
    user_base: u32,
    /// Submit times after `load`, µs.
    submit: Vec<Micros>,
    /// Workflows in (submit, index) order, those after the horizon left
    /// out.
    order: Vec<u32>,
    next_submit: usize,
    steps: Vec<StepRt>,
    wf_state: Vec<Ws>,
    done_steps: Vec<u32>,
    pub(super) records: Vec<WorkflowRecord>,
    /// Per step: its cache slot (numbered (scope, key) pair), or
    /// `NO_SLOT`.
    slot: Vec<u32>,
    cache: MemoCache,
    /// The policy's registered eviction rule, if any (DESIGN §14.8).
    eviction: Option<Box<dyn Eviction>>,
    /// Per slot, under a registered eviction rule: the step whose output
    /// it holds (empty otherwise).
    producer: Vec<u32>,
    /// The policy's registered parallelisation rule, if any.
    parallelism: Option<Box<dyn Parallelism>>,
    /// Per workload job: its step and attempt.
    job_step: Vec<u32>,
    job_attempt: Vec<u32>,
    pub(super) jobs: Vec<AttemptJob>,
    stopped: bool,
    /// The last instant with an event of the workflows, µs.
    pub(super) last_event: Micros,
}

impl<'a> Workflows<'a> {
    /// The workflows of `input`, their jobs from engine index `first` on
    /// (at most `capacity`), tenant `i`'s cluster user `user_base + i`;
    /// the policy's registered rules are made here, once per run.
    pub(super) fn new(
        input: &WorkflowsInput<'a>,
        seed: u64,
        repetition: u64,
        first: u32,
        capacity: usize,
        user_base: u32,
    ) -> Result<Self> {
        let t = input.trace;
        let submit: Vec<Micros> = t
            .workflows()
            .iter()
            .map(|w| {
                if input.load == 1.0 {
                    w.submit
                } else {
                    (w.submit as f64 / input.load).round() as Micros
                }
            })
            .collect();
        let mut order: Vec<u32> = (0..submit.len() as u32)
            .filter(|&w| input.horizon.is_none_or(|h| submit[w as usize] <= h))
            .collect();
        order.sort_unstable_by_key(|&w| (submit[w as usize], w));
        // Number the (scope, key) pairs: one slot per distinct pair.
        let mut pairs: std::collections::HashMap<(u32, u32), u32> = Default::default();
        let slot: Vec<u32> = t
            .steps()
            .iter()
            .map(|s| {
                if s.cache_key == NO_KEY || input.cache_rule.is_off() {
                    return NO_SLOT;
                }
                let scope = match input.cache.scope {
                    Scope::Tenant => t.workflows()[s.workflow as usize].tenant,
                    Scope::Global => 0,
                };
                let next = pairs.len() as u32;
                *pairs.entry((scope, s.cache_key)).or_insert(next)
            })
            .collect();
        let steps = t
            .steps()
            .iter()
            .map(|s| StepRt {
                state: Ss::Waiting,
                pending: s.parents_at.1,
                attempts: 0,
                parts_left: 0,
                first_job: 0,
                parts: 0,
                fails: false,
                hit: false,
                restore_end: 0,
                ready: NEVER,
                end: NEVER,
            })
            .collect();
        let n = submit.len();
        let records = t
            .workflows()
            .iter()
            .zip(&submit)
            .map(|(_, &s)| WorkflowRecord {
                submit: s,
                end: NEVER,
                ..WorkflowRecord::default()
            })
            .collect();
        let eviction = match &input.cache_rule {
            CacheRule::User(u) => Some((u.make)().map_err(|e| {
                e.context(format_args!(
                    "cannot make the cache eviction rule `{}`",
                    u.name
                ))
            })?),
            _ => None,
        };
        let parallelism = match &input.parallel {
            ParallelRule::User { rule, .. } => Some((rule.make)().map_err(|e| {
                e.context(format_args!(
                    "cannot make the parallelisation rule `{}`",
                    rule.name
                ))
            })?),
            _ => None,
        };
        let producer = if eviction.is_some() {
            vec![0; pairs.len()]
        } else {
            Vec::new()
        };
        Ok(Self {
            trace: t,
            input: input.clone(),
            seed,
            repetition,
            first,
            capacity,
            next: 0,
            user_base,
            submit,
            order,
            next_submit: 0,
            steps,
            wf_state: vec![Ws::Pending; n],
            done_steps: vec![0; n],
            records,
            cache: MemoCache::new(pairs.len(), &input.cache_rule, &input.cache),
            eviction,
            producer,
            parallelism,
            slot,
            job_step: vec![0; capacity],
            job_attempt: vec![0; capacity],
            jobs: Vec::with_capacity(if input.keep_jobs { capacity } else { 0 }),
            stopped: false,
            last_event: 0,
        })
    }

    /// The registered eviction rule's score of slot `slot`'s entry (its
    /// output that of step `producer`) at `now`, as [`score_key`]; 0
    /// without one. A `fresh` entry is being created now (created = last
    /// used = now, no hits); else its created and last used times and its
    /// hits are the cache's (DESIGN §14.8).
    fn score(&mut self, slot: u32, producer: u32, now: Micros, fresh: bool) -> Result<u64> {
        let Some(rule) = self.eviction.as_mut() else {
            return Ok(0);
        };
        let step = self.trace.steps()[producer as usize];
        let (created, last_used, hits) = match self.cache.entry(slot) {
            Some((c, u, _)) if !fresh => (c, u, self.cache.hits(slot)),
            _ => (now, now, 0),
        };
        let entry = CacheEntry {
            bytes: step.output_bytes,
            saved_us: step.runtime,
            gpus: step.gpus,
            cpus: step.cpus,
            created,
            last_used,
            hits,
            tenant: self.trace.workflows()[step.workflow as usize].tenant,
            global: self.input.cache.scope == Scope::Global,
            now,
        };
        let name = match &self.input.cache_rule {
            CacheRule::User(u) => &u.name,
            _ => "?",
        };
        let at = || {
            format!(
                "the cache eviction rule `{name}` on the output of step `{}` of workflow `{}` at {} s",
                self.trace.step_id(producer),
                self.trace.workflow_id(step.workflow),
                now as f64 / 1e6
            )
        };
        let score = rule.score(&entry).map_err(|e| e.context(at()))?;
        score_key(score).ok_or_else(|| {
            Error::policy(format!(
                "{}: the score is NaN: expected a number (the lowest is evicted first)",
                at()
            ))
        })
    }

    /// The registered parallelisation rule's sub-jobs for step `s` at now.
    fn user_parts(&mut self, ctx: &Ctx<'_, '_, '_>, s: u32, max: u32) -> Result<u32> {
        let step = self.trace.steps()[s as usize];
        let split = SplitStep {
            runtime: step.runtime,
            gpus: step.gpus,
            cpus: step.cpus,
            parallel_k: max,
            free_gpus: ctx.state().cluster().free_total(),
            free_cpus: ctx.state().counts_cpus().then(|| ctx.state().free_cpus()),
            now: ctx.now(),
        };
        let name = match &self.input.parallel {
            ParallelRule::User { rule, .. } => &rule.name,
            _ => "?",
        };
        let at = || {
            format!(
                "the parallelisation rule `{name}` on step `{}` of workflow `{}` at {} s",
                self.trace.step_id(s),
                self.trace.workflow_id(step.workflow),
                ctx.now() as f64 / 1e6
            )
        };
        let Some(rule) = self.parallelism.as_mut() else {
            return Ok(1);
        };
        let k = rule.parts(&split).map_err(|e| e.context(at()))?;
        if k == 0 || k > max {
            return Err(Error::policy(format!(
                "{}: returned {k} sub-jobs: expected 1 to {max} (the policy's parallel_k)",
                at()
            )));
        }
        Ok(k)
    }

    fn push_next_submit(&mut self, ctx: &mut Ctx<'_, '_, '_>) {
        if let Some(&w) = self.order.get(self.next_submit) {
            self.next_submit += 1;
            ctx.push_event(self.submit[w as usize], KIND_SUBMIT, TAG_SUBMIT, w);
        }
    }

    fn step_range(&self, w: u32) -> std::ops::Range<u32> {
        let spec = self.trace.workflows()[w as usize];
        spec.first_step..spec.first_step + spec.steps
    }

    /// Free CPUs of the cluster; "unlimited" when it does not count them
    /// (`cpus_per_node` 0, DESIGN §14.6).
    fn free_cpus(ctx: &Ctx<'_, '_, '_>) -> u64 {
        let s = ctx.state();
        if s.counts_cpus() {
            s.free_cpus()
        } else {
            u64::MAX
        }
    }

    /// Step `s` is ready at now: a hit restores, a miss runs an attempt.
    fn ready(&mut self, ctx: &mut Ctx<'_, '_, '_>, s: u32) -> Result<()> {
        let now = ctx.now();
        let step = self.trace.steps()[s as usize];
        self.steps[s as usize].ready = now;
        let slot = self.slot[s as usize];
        if slot != NO_SLOT && self.cache.lookup(slot, now) {
            if self.eviction.is_some() {
                // A hit: the registered rule scores the entry anew.
                let key = self.score(slot, self.producer[slot as usize], now, false)?;
                self.cache.rescore(slot, key);
            }
            // Restore: restore_s + output_bytes / bandwidth, rounded to
            // the µs (bandwidth 0: unlimited).
            let bw = u128::from(self.input.cache.bandwidth_bytes_per_s);
            let transfer = (u128::from(step.output_bytes) * 1_000_000 + bw / 2)
                .checked_div(bw)
                .map_or(0, |us| Micros::try_from(us).unwrap_or(Micros::MAX));
            let end = now
                .saturating_add(self.input.cache.restore)
                .saturating_add(transfer);
            let rt = &mut self.steps[s as usize];
            rt.state = Ss::Restoring;
            rt.restore_end = end;
            let rec = &mut self.records[step.workflow as usize];
            rec.cache_hits += 1;
            rec.gpu_us_saved += u128::from(step.gpus) * u128::from(step.runtime);
            rec.cpu_us_saved += u128::from(step.cpus) * u128::from(step.runtime);
            ctx.push_event(end, KIND_TIMER, TAG_HIT, s);
            return Ok(());
        }
        self.submit_attempt(ctx, s)
    }

    /// Submit an attempt of step `s`: its parts, each a cluster job.
    fn submit_attempt(&mut self, ctx: &mut Ctx<'_, '_, '_>, s: u32) -> Result<()> {
        let now = ctx.now();
        let step = self.trace.steps()[s as usize];
        let w = step.workflow;
        let spec = self.trace.workflows()[w as usize];
        let k: u32 = if step.parallel {
            match self.input.parallel {
                ParallelRule::Off => 1,
                ParallelRule::User { max, .. } => self.user_parts(ctx, s, max)?,
                ParallelRule::Fixed { k } => k.max(1),
                ParallelRule::Fill { cap } => {
                    // As many parts of the step's size as the free GPUs
                    // and CPUs hold now, 1 to cap.
                    let free_gpus = ctx.state().cluster().free_total();
                    let by_gpus = free_gpus
                        .checked_div(u64::from(step.gpus))
                        .unwrap_or(u64::MAX);
                    let by_cpus = Self::free_cpus(ctx)
                        .checked_div(u64::from(step.cpus))
                        .unwrap_or(u64::MAX);
                    by_gpus.min(by_cpus).clamp(1, u64::from(cap.max(1))) as u32
                }
            }
        } else {
            1
        };
        // A split step's parts take ⌈runtime / k⌉ + split overhead each;
        // k = 1 is not a split (its runtime alone).
        let mut duration = if k > 1 {
            step.runtime
                .div_ceil(u64::from(k))
                .saturating_add(self.input.split_overhead)
        } else {
            step.runtime
        };
        let rt = &mut self.steps[s as usize];
        let attempt = rt.attempts;
        rt.attempts += 1;
        // The failure draws (DESIGN §14.4): u, then f, from the stream
        // (seed, repetition, failure, workflow, step within it, attempt).
        rt.fails = false;
        // `[workflows] failure_p` replaces every step's probability.
        let failure_p = self.input.failure_p.unwrap_or(step.failure_p);
        if failure_p > 0.0 {
            let mut rng = stream_for(
                self.seed,
                self.repetition,
                Purpose::Failure,
                &[
                    u64::from(w),
                    u64::from(s - spec.first_step),
                    u64::from(attempt),
                ],
            );
            let u = unit(&mut rng);
            let f = unit(&mut rng);
            if u < failure_p {
                rt.fails = true;
                duration = ((f * duration as f64).floor() as Micros).max(1);
            }
        }
        rt.state = Ss::Running;
        rt.first_job = self.next;
        rt.parts = k;
        rt.parts_left = k;
        if self.next as usize + k as usize > self.capacity {
            return Err(Error::input(
                "internal error: the workflows submitted more jobs than they have room for",
            ));
        }
        let fails = rt.fails;
        for part in 0..k {
            let r = self.next;
            self.next += 1;
            let j = self.first + r;
            ctx.prepare(
                j,
                Job {
                    submit: now,
                    duration,
                    gpus: step.gpus,
                    user: self.user_base + spec.tenant,
                    cpus: step.cpus,
                },
                0,
            )?;
            self.job_step[r as usize] = s;
            self.job_attempt[r as usize] = attempt;
            if self.input.keep_jobs {
                self.jobs.push(AttemptJob {
                    step: s,
                    attempt,
                    part,
                    submit: now,
                    start: NEVER,
                    end: NEVER,
                    gpus: step.gpus,
                    cpus: step.cpus,
                    failed: fails,
                    withdrawn: false,
                });
            }
            ctx.submit(j)?;
        }
        Ok(())
    }

    /// Step `s` is done at now (ran, or a hit restored).
    fn step_done(&mut self, ctx: &mut Ctx<'_, '_, '_>, s: u32, hit: bool) -> Result<()> {
        let now = ctx.now();
        let step = self.trace.steps()[s as usize];
        let rt = &mut self.steps[s as usize];
        rt.state = Ss::Done;
        rt.hit = hit;
        rt.end = now;
        let slot = self.slot[s as usize];
        if !hit && slot != NO_SLOT {
            // value: the run time a hit saves, µs × max(1, gpus + cpus).
            let value = step
                .runtime
                .saturating_mul(u64::from(step.gpus.saturating_add(step.cpus).max(1)));
            // A registered rule scores the new entry (created now, no
            // hits yet), unless it is too large to be stored at all.
            let key = if self.eviction.is_some()
                && step.output_bytes <= self.input.cache.capacity_bytes
            {
                self.score(slot, s, now, true)?
            } else {
                0
            };
            if self
                .cache
                .store_scored(slot, step.output_bytes, value, key, now)
                != Stored::TooLarge
                && self.eviction.is_some()
            {
                self.producer[slot as usize] = s;
            }
        }
        let w = step.workflow as usize;
        self.done_steps[w] += 1;
        if self.done_steps[w] == self.trace.workflows()[w].steps {
            self.wf_state[w] = Ws::Over;
            self.records[w].state = WorkflowState::Done;
            self.records[w].end = now;
            return Ok(());
        }
        for k in 0..step.children_at.1 {
            let c = self.trace.children_of(s)[k as usize];
            let rc = &mut self.steps[c as usize];
            rc.pending -= 1;
            if rc.pending == 0 && rc.state == Ss::Waiting {
                self.ready(ctx, c)?;
            }
        }
        Ok(())
    }

    /// Step `s`'s attempt failed at now: retry it, or rerun the workflow,
    /// or fail the workflow.
    fn attempt_failed(&mut self, ctx: &mut Ctx<'_, '_, '_>, s: u32) -> Result<()> {
        let now = ctx.now();
        let w = self.trace.steps()[s as usize].workflow;
        let rec = &mut self.records[w as usize];
        let retry = self.input.retry;
        if rec.retries >= retry.max_retries {
            self.steps[s as usize].state = Ss::Failed;
            self.steps[s as usize].end = now;
            return self.end_workflow(ctx, w, WorkflowState::Failed);
        }
        rec.retries += 1;
        let at = now.saturating_add(retry.backoff);
        match retry.resume {
            Resume::Cached => {
                self.steps[s as usize].state = Ss::Backoff;
                ctx.push_event(at, KIND_TIMER, TAG_RETRY_STEP, s);
            }
            Resume::FromScratch => {
                self.steps[s as usize].state = Ss::Waiting;
                self.withdraw_all(ctx, w)?;
                self.wf_state[w as usize] = Ws::Backoff;
                ctx.push_event(at, KIND_TIMER, TAG_RETRY_WORKFLOW, w);
            }
        }
        Ok(())
    }

    /// Withdraw every job of workflow `w` still waiting or running; its
    /// restoring and backing-off steps stop (their events become stale).
    fn withdraw_all(&mut self, ctx: &mut Ctx<'_, '_, '_>, w: u32) -> Result<()> {
        let now = ctx.now();
        for s in self.step_range(w) {
            let rt = self.steps[s as usize];
            match rt.state {
                Ss::Running => {
                    for r in rt.first_job..rt.first_job + rt.parts {
                        let j = self.first + r;
                        if matches!(ctx.state().status(j), Status::Waiting | Status::Running) {
                            ctx.withdraw(j)?;
                            if let Some(a) = self.jobs.get_mut(r as usize) {
                                a.withdrawn = true;
                                a.end = now;
                            }
                        }
                    }
                    self.steps[s as usize].state = Ss::Waiting;
                }
                Ss::Restoring | Ss::Backoff => self.steps[s as usize].state = Ss::Waiting,
                Ss::Waiting | Ss::Done | Ss::Failed => {}
            }
        }
        Ok(())
    }

    /// Workflow `w` ends at now in `state` (not done): its jobs are
    /// withdrawn.
    fn end_workflow(
        &mut self,
        ctx: &mut Ctx<'_, '_, '_>,
        w: u32,
        state: WorkflowState,
    ) -> Result<()> {
        self.withdraw_all(ctx, w)?;
        self.wf_state[w as usize] = Ws::Over;
        self.records[w as usize].state = state;
        Ok(())
    }

    /// Workflow `w` (re)starts at now: every step not done, its roots
    /// ready in step order.
    fn start_workflow(&mut self, ctx: &mut Ctx<'_, '_, '_>, w: u32) -> Result<()> {
        self.wf_state[w as usize] = Ws::Active;
        self.done_steps[w as usize] = 0;
        let range = self.step_range(w);
        for s in range.clone() {
            let rt = &mut self.steps[s as usize];
            rt.state = Ss::Waiting;
            rt.hit = false;
            rt.pending = self.trace.steps()[s as usize].parents_at.1;
        }
        for s in range {
            // A workflow may end while its roots are decided (a root
            // failing at once cannot, but stay safe).
            if self.wf_state[w as usize] != Ws::Active {
                break;
            }
            if self.steps[s as usize].pending == 0 && self.steps[s as usize].state == Ss::Waiting {
                self.ready(ctx, s)?;
            }
        }
        Ok(())
    }

    /// The run's outcome from the workload and the engine's log (an
    /// error when the log, read back as a stream, cannot be).
    pub(super) fn finish(mut self, all: &JobOutcome) -> Result<WorkflowOutcome> {
        let first = self.first as usize;
        let used = self.next as usize;
        let mut busy_gpu = 0u128;
        let mut busy_cpu = 0u128;
        // The kept segments are a log like the engine's: in memory up to
        // `SEGMENTS_IN_MEMORY`, on disk past it (a preemptive scheduler
        // records as many as it preempts).
        let mut segments = if self.input.keep_jobs {
            Some(SegmentLog::new()?)
        } else {
            None
        };
        for seg in all.segments.iter() {
            let seg = seg?;
            let j = seg.job as usize;
            if j < first || j >= first + used {
                continue;
            }
            let r = j - first;
            let s = self.job_step[r] as usize;
            let step = self.trace.steps()[s];
            let held = u128::from(seg.end - seg.start);
            let g = held * u128::from(seg.gpus);
            let c = held * u128::from(step.cpus);
            busy_gpu += g;
            busy_cpu += c;
            let rec = &mut self.records[step.workflow as usize];
            rec.gpu_us += g;
            rec.cpu_us += c;
            if let Some(log) = &mut segments {
                let mut seg = seg;
                seg.job = r as u32;
                log.push(seg);
            }
        }
        for (r, a) in self.jobs.iter_mut().enumerate() {
            let j = first + r;
            a.start = all.first_start[j];
            if a.end == NEVER && !a.withdrawn && all.end[j] != NEVER {
                a.end = all.end[j];
            }
        }
        let steps = if self.input.keep_jobs {
            self.steps
                .iter()
                .map(|rt| {
                    let start = (rt.first_job..rt.first_job + rt.parts)
                        .map(|r| all.first_start[first + r as usize])
                        .min()
                        .filter(|_| rt.state != Ss::Done || !rt.hit)
                        .unwrap_or(NEVER);
                    StepRecord {
                        ready: rt.ready,
                        start: if rt.attempts == 0 { NEVER } else { start },
                        end: rt.end,
                        state: match rt.state {
                            Ss::Done if rt.hit => StepState::Hit,
                            Ss::Done => StepState::Done,
                            Ss::Failed => StepState::Failed,
                            _ => StepState::NotDone,
                        },
                        attempts: rt.attempts,
                        parts: rt.parts.max(1),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let c = self.cache.counts();
        Ok(WorkflowOutcome {
            workflows: self.records,
            steps,
            jobs: self.jobs,
            segments: match segments {
                Some(log) => log.seal()?,
                None => Segments::default(),
            },
            cache: CacheStats {
                hits: c.hits,
                misses: c.misses,
                stored: c.stored,
                evicted: c.evicted,
                expired: c.expired,
                too_large: c.too_large,
                bytes_end: c.bytes,
                bytes_max: c.bytes_max,
            },
            busy_gpu_us: busy_gpu,
            busy_cpu_us: busy_cpu,
            end: self.last_event,
        })
    }
}

impl Workload for Workflows<'_> {
    /// A copy of the workflows' state, cache included (DESIGN §15.6); a
    /// registered rule (a Python class, DESIGN §14.8) has no fork: an
    /// error naming it.
    fn fork(&self) -> Result<Self> {
        let rule = match (&self.eviction, &self.input.cache_rule, &self.parallelism) {
            (Some(_), CacheRule::User(u), _) => Some(format!("cache eviction rule `{}`", u.name)),
            (Some(_), _, _) => Some("cache eviction rule".to_string()),
            (None, _, Some(_)) => Some("parallelisation rule".to_string()),
            (None, _, None) => None,
        };
        if let Some(rule) = rule {
            return Err(Error::usage(format!(
                "the workflows' registered {rule} cannot be forked: a fork of a shared run \
                 needs the built-in cache and parallelisation rules"
            )));
        }
        Ok(Self {
            trace: self.trace,
            input: self.input.clone(),
            seed: self.seed,
            repetition: self.repetition,
            first: self.first,
            capacity: self.capacity,
            next: self.next,
            user_base: self.user_base,
            submit: self.submit.clone(),
            order: self.order.clone(),
            next_submit: self.next_submit,
            steps: self.steps.clone(),
            wf_state: self.wf_state.clone(),
            done_steps: self.done_steps.clone(),
            records: self.records.clone(),
            slot: self.slot.clone(),
            cache: self.cache.clone(),
            eviction: None,
            producer: self.producer.clone(),
            parallelism: None,
            job_step: self.job_step.clone(),
            job_attempt: self.job_attempt.clone(),
            jobs: self.jobs.clone(),
            stopped: self.stopped,
            last_event: self.last_event,
        })
    }

    fn init(&mut self, ctx: &mut Ctx<'_, '_, '_>) -> Result<()> {
        self.push_next_submit(ctx);
        if let Some(h) = self.input.horizon {
            ctx.push_event(h, KIND_HORIZON, TAG_HORIZON, 0);
        }
        Ok(())
    }

    fn on_event(&mut self, ctx: &mut Ctx<'_, '_, '_>, tag: u8, data: u32) -> Result<()> {
        let now = ctx.now();
        match tag {
            TAG_SUBMIT => {
                self.push_next_submit(ctx);
                if self.stopped {
                    return Ok(());
                }
                let w = data;
                if let Some(d) = self.trace.workflows()[w as usize].deadline {
                    ctx.push_event(now.saturating_add(d), KIND_DEADLINE, TAG_DEADLINE, w);
                }
                self.start_workflow(ctx, w)?;
            }
            TAG_HIT => {
                let rt = self.steps[data as usize];
                if rt.state == Ss::Restoring && rt.restore_end == now {
                    self.step_done(ctx, data, true)?;
                }
            }
            TAG_RETRY_STEP => {
                let w = self.trace.steps()[data as usize].workflow;
                if self.wf_state[w as usize] == Ws::Active
                    && self.steps[data as usize].state == Ss::Backoff
                {
                    self.ready(ctx, data)?;
                }
            }
            TAG_RETRY_WORKFLOW => {
                if self.wf_state[data as usize] == Ws::Backoff {
                    self.start_workflow(ctx, data)?;
                }
            }
            TAG_DEADLINE => {
                if matches!(self.wf_state[data as usize], Ws::Active | Ws::Backoff) {
                    self.end_workflow(ctx, data, WorkflowState::Deadline)?;
                }
            }
            TAG_HORIZON => {
                self.stopped = true;
                for w in 0..self.wf_state.len() as u32 {
                    if matches!(self.wf_state[w as usize], Ws::Active | Ws::Backoff) {
                        self.end_workflow(ctx, w, WorkflowState::Unfinished)?;
                    }
                }
            }
            _ => {
                return Err(Error::input(format!(
                    "internal error: unknown workflows event {tag}"
                )));
            }
        }
        Ok(())
    }

    fn on_own_event(&mut self, now: Micros) {
        self.last_event = now;
    }

    fn on_done(&mut self, ctx: &mut Ctx<'_, '_, '_>, job: u32) -> Result<()> {
        let r = job - self.first;
        let s = self.job_step[r as usize];
        let rt = self.steps[s as usize];
        if rt.state != Ss::Running
            || self.job_attempt[r as usize] + 1 != rt.attempts
            || r < rt.first_job
            || r >= rt.first_job + rt.parts
        {
            return Ok(());
        }
        if let Some(a) = self.jobs.get_mut(r as usize) {
            a.end = ctx.now();
        }
        self.steps[s as usize].parts_left -= 1;
        if self.steps[s as usize].parts_left > 0 {
            return Ok(());
        }
        if rt.fails {
            self.attempt_failed(ctx, s)
        } else {
            self.step_done(ctx, s, false)
        }
    }
}
