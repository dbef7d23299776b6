//! One shared simulation (DESIGN §13.1–13.3): the job table, the
//! scheduler, the service workload, the engine run, and the run logs of
//! each workload taken apart.

use std::borrow::Cow;

use super::input::{ClusterInput, Preempt, Priority, ServiceInput, SharedInput, WorkflowsInput};
use super::outcome::{ServiceSegment, SharedOutcome};
use super::service::Service;
use super::tracked::Tracked;
use super::workflows::{MAX_ENGINE_JOBS, Workflows, workflow_jobs};
use crate::core::error::{Error, Result};
use crate::core::io::record_log::RecordLog;
use crate::core::io::sealed::Sealed;
use crate::core::memory::SEGMENTS_IN_MEMORY;
use crate::core::sim::held::Held;
use crate::core::sim::policy_clock::PolicyClock;
use crate::jobs::sim::{
    JobOutcome, JobScheduler, JobSchedulerFactory, JobSimInput, JobTable, JobTypes, Placement,
    RawRun, Rounds, SchedInit, Segment, SegmentLog, Segments, SimTypes, TypePolicy, simulate_with,
};
use crate::jobs::trace::Job;
use crate::models::sim::{
    CompletionOrder, EndState, EndStatesBuilder, JobLog, Policies, RunOutcome, Scheduler, Selector,
    SimInput,
};

/// Run one shared simulation: the background's jobs and the service's
/// requests on `input.cluster` under the cluster scheduler `cluster` (built
/// here from its factory, with `seed` and `repetition` for its own random
/// stream), the service deciding with `service`'s scheduler and selector.
pub fn simulate_shared(
    input: &SharedInput<'_>,
    cluster: &JobSchedulerFactory,
    seed: u64,
    repetition: u64,
    service: Option<(&mut dyn Scheduler, &mut dyn Selector)>,
) -> Result<SharedOutcome> {
    let service = service.map(|(a, b)| PolicyPair {
        scheduler: Held::Borrowed(a),
        selector: Held::Borrowed(b),
    });
    let Setup {
        table,
        mut scheduler,
        tracked,
        empty_types,
        n_trace,
        second,
    } = setup(input, cluster, seed, repetition, service)?;
    let sim = sim_input(input, &empty_types)?;
    let rounds = input.cluster.round.map(Rounds::new).transpose()?;
    let raw = simulate_with(&sim, table, rounds, &mut *scheduler, tracked)?;
    outcome(input, raw, n_trace, second)
}

/// The service's scheduler and selector, borrowed for a batch run or
/// owned by a steppable one (DESIGN §15.6).
pub struct PolicyPair<'a> {
    /// Picks a tenant.
    pub scheduler: Held<'a, dyn Scheduler + 'a>,
    /// Picks its model.
    pub selector: Held<'a, dyn Selector + 'a>,
}

impl std::fmt::Debug for PolicyPair<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyPair").finish_non_exhaustive()
    }
}

/// A shared run set up, nothing simulated yet (DESIGN §13.1): the job
/// table, the cluster scheduler and the workloads — what the batch run
/// ([`simulate_shared`]) and the steppable one
/// ([`super::SharedStepper`]) both start from.
pub(super) struct Setup<'a> {
    pub(super) table: JobTable<'a>,
    pub(super) scheduler: Box<dyn JobScheduler>,
    pub(super) tracked: Tracked<'a>,
    /// GPU types of a typed cluster without a typed background.
    pub(super) empty_types: JobTypes,
    pub(super) n_trace: usize,
    /// The workflows' first job.
    pub(super) second: usize,
}

/// The engine's input: the background's trace on `input`'s cluster
/// (`empty`: [`Setup::empty_types`]).
pub(super) fn sim_input<'s>(
    input: &'s SharedInput<'_>,
    empty: &'s JobTypes,
) -> Result<JobSimInput<'s>> {
    let c = &input.cluster;
    let (trace, users) = background_of(input);
    let trace_types = trace_types(input, empty)?;
    Ok(JobSimInput {
        jobs: trace,
        users,
        nodes: c.nodes,
        cpus: c.cpus,
        placement: c.placement,
        backfill: c.backfill,
        restart_overhead: c.restart_overhead,
        record_allocations: c.record_allocations,
        types: trace_types.map(|t| SimTypes {
            node_types: c.node_types,
            jobs: t,
            policy: input
                .background
                .as_ref()
                .map_or(TypePolicy::Agnostic, |b| b.type_policy),
        }),
    })
}

/// The background's jobs and users (none without a background).
fn background_of<'s>(input: &'s SharedInput<'_>) -> (&'s [Job], usize) {
    let no_jobs: &[Job] = &[];
    input
        .background
        .as_ref()
        .map_or((no_jobs, 0), |b| (b.jobs, b.users))
}

/// Typed when the background's jobs have types, or (without a typed
/// background) when the cluster has more than one type (`empty` then).
fn trace_types<'s>(
    input: &'s SharedInput<'_>,
    empty: &'s JobTypes,
) -> Result<Option<&'s JobTypes>> {
    let c = &input.cluster;
    let n_trace = background_of(input).0.len();
    match input.background.as_ref().and_then(|b| b.types) {
        Some(t) => Ok(Some(t)),
        None if c.types > 1 && n_trace == 0 => Ok(Some(empty)),
        None if c.types > 1 => Err(Error::input(
            "internal: a background without GPU types on a typed cluster",
        )),
        None => Ok(None),
    }
}

/// Set up one shared run (DESIGN §13.1): check the workloads against the
/// cluster, size the job table (the background's jobs, then one
/// placeholder per job the service and the workflows may submit), build
/// the cluster scheduler from its factory and the workloads.
pub(super) fn setup<'a>(
    input: &SharedInput<'a>,
    cluster: &JobSchedulerFactory,
    seed: u64,
    repetition: u64,
    service: Option<PolicyPair<'a>>,
) -> Result<Setup<'a>> {
    let c = &input.cluster;
    if let Some(w) = &input.workflows {
        check_workflows(w, c)?;
    }
    let gpus: u64 = c.nodes.iter().map(|&g| u64::from(g)).sum();
    let (trace, users) = background_of(input);
    let n_trace = trace.len();
    let svc = match (&input.service, service) {
        (Some(s), Some(p)) => Some((s, p)),
        (None, _) => None,
        (Some(_), None) => {
            return Err(Error::input(
                "internal: a service without its scheduler and selector",
            ));
        }
    };
    if let Some((s, _)) = &svc {
        check_service(s, c, gpus)?;
    }
    let capacity = svc.as_ref().map_or(0, |(s, _)| service_jobs(&s.sim));
    let gpj = svc.as_ref().map_or(1, |(s, _)| s.gpus_per_job);
    let hidden = svc
        .as_ref()
        .is_some_and(|(s, _)| s.priority == Priority::Low);
    let service_user = u32::try_from(users)
        .map_err(|_| Error::input("more than 2^32 - 1 users in the background"))?;
    // The workflows' jobs follow the service's (engine owner 2); their
    // users follow the background's and the service's.
    let wf_capacity = input.workflows.as_ref().map_or(0, workflow_jobs);
    let engine_jobs = (n_trace as u64)
        .saturating_add(capacity as u64)
        .saturating_add(wf_capacity);
    if engine_jobs > MAX_ENGINE_JOBS {
        return Err(Error::input(format!(
            "the run may number {engine_jobs} jobs (the background's {n_trace}, the service's {capacity}, \
             the workflows' {wf_capacity}, their retries and sub-jobs counted), more than the {MAX_ENGINE_JOBS} \
             one run can number: lower [workflows.retry] max_retries or parallel_k"
        )));
    }
    let wf_capacity = wf_capacity as usize;
    let wf_user = service_user + u32::from(svc.is_some());
    let wf_users = input
        .workflows
        .as_ref()
        .map_or(0, |w| w.trace.tenants().len());
    let mut jobs: Vec<Job> = Vec::with_capacity(n_trace + capacity + wf_capacity);
    jobs.extend_from_slice(trace);
    jobs.resize(
        n_trace + capacity,
        Job {
            submit: 0,
            duration: 0,
            gpus: gpj,
            user: service_user,
            cpus: 0,
        },
    );
    if let Some(w) = &input.workflows {
        // A placeholder takes as many GPUs and CPUs as the largest step,
        // so any step fits its allocation slots (under `spread`, one per
        // GPU and CPU node).
        let most = w.trace.steps().iter().map(|s| s.gpus).max().unwrap_or(1);
        let most_cpus = w.trace.steps().iter().map(|s| s.cpus).max().unwrap_or(0);
        jobs.resize(
            n_trace + capacity + wf_capacity,
            Job {
                submit: 0,
                duration: 0,
                gpus: most.max(1),
                user: wf_user,
                cpus: most_cpus,
            },
        );
    }
    let empty_types = JobTypes::new(c.types.max(1), Vec::new(), Vec::new());
    let table_types = trace_types(input, &empty_types)?.map(|t| {
        let mut all = t.clone();
        all.extend_placeholders(capacity);
        Cow::Owned(all)
    });
    // The scheduler sees the service's jobs as those of one more user,
    // unless they are hidden from it (priority `low`).
    // With workflows the scheduler sees the whole table (their jobs are
    // never hidden) and their tenants as users after the service's.
    let has_workflows = input.workflows.is_some();
    let scheduler = cluster(&SchedInit {
        jobs: if hidden && !has_workflows {
            trace
        } else {
            &jobs
        },
        users: if hidden || svc.is_none() {
            users
        } else {
            users + 1
        } + wf_users,
        seed,
        repetition,
    })?;
    let restart = svc
        .as_ref()
        .is_some_and(|(s, _)| s.preempt == Preempt::Restart);
    let n_tenants = svc.as_ref().map_or(0, |(s, _)| s.sim.tenants.len());
    let workload = svc.map(|(s, p)| {
        Service::new(
            s,
            Policies {
                scheduler: p.scheduler,
                selector: p.selector,
                clock: PolicyClock::default(),
            },
            n_trace as u32,
            capacity,
            service_user,
            c.nodes,
            c.node_types,
            c.placement,
        )
    });
    let second = n_trace + capacity;
    let flows = input
        .workflows
        .as_ref()
        .map(|w| Workflows::new(w, seed, repetition, second as u32, wf_capacity, wf_user))
        .transpose()?;
    // The workflows hold at most a submission, a deadline, a hit or a
    // retry per workflow queued at once, and the horizon (a hint).
    let wf_events = input
        .workflows
        .as_ref()
        .map_or(0, |w| w.trace.workflows().len().min(1 << 16) + 2);
    let table = JobTable {
        jobs: Cow::Owned(jobs),
        types: table_types,
        trace_jobs: n_trace,
        second,
        hidden,
        restart_workload: restart,
        extra_events: 2 * n_tenants + 1 + wf_events,
    };
    let tracked = Tracked::new(workload, flows, input.background.is_some(), second as u32)?;
    Ok(Setup {
        table,
        scheduler,
        tracked,
        empty_types,
        n_trace,
        second,
    })
}

/// The outcome of a finished shared run (DESIGN §13.5): the engine's run
/// taken apart into the background's (about its jobs alone), the
/// service's in model mode's form, the workflows' and the shares.
pub(super) fn outcome(
    input: &SharedInput<'_>,
    raw: RawRun<Tracked<'_>>,
    n_trace: usize,
    second: usize,
) -> Result<SharedOutcome> {
    let c = &input.cluster;
    let gpus: u64 = c.nodes.iter().map(|&g| u64::from(g)).sum();
    let Tracked {
        service: workload,
        workflows: flows,
        shares,
        ..
    } = raw.workload;
    let all = raw.outcome;
    let background = input.background.as_ref().map(|_| JobOutcome {
        first_start: all.first_start[..n_trace].to_vec(),
        end: all.end[..n_trace].to_vec(),
        preemptions: all.preemptions[..n_trace].to_vec(),
        segments: Segments::default(),
        segment_allocs: Vec::new(),
        events: raw.trace_events,
        end_time: raw.trace_end,
        gpus: all.gpus,
        gpus_by_type: all.gpus_by_type.clone(),
        gpu_type: all.gpu_type[..n_trace].to_vec(),
        policy_clock: all.policy_clock,
    });
    let mut background = background;
    if let Some(b) = &mut background {
        let mut log = SegmentLog::new()?;
        for seg in all.segments.iter() {
            let mut seg: Segment = seg?;
            if seg.job as usize >= n_trace {
                continue;
            }
            if seg.alloc_len > 0 {
                let from = seg.alloc_offset as usize;
                seg.alloc_offset = b.segment_allocs.len() as u32;
                b.segment_allocs
                    .extend_from_slice(&all.segment_allocs[from..from + seg.alloc_len as usize]);
            }
            log.push(seg);
        }
        b.segments = log.seal()?;
    }
    let mut out = SharedOutcome {
        service: None,
        service_segments: Sealed::default(),
        service_preemptions: Vec::new(),
        background,
        shares: shares.seal()?,
        gpus,
        workflows: None,
        cpus: c.cpus.iter().map(|&n| u64::from(n)).sum(),
    };
    out.workflows = flows.map(|f| f.finish(&all)).transpose()?;
    if let (Some(w), Some(s)) = (workload, &input.service) {
        finish_service(w, s, &all, &raw.first_node, n_trace, second, &mut out)?;
    }
    Ok(out)
}

/// The service's run in model mode's form (DESIGN §13.5). An error:
/// writing its end states (on disk above 65,536 tenants).
#[allow(clippy::too_many_arguments)]
fn finish_service(
    mut w: Service<'_>,
    s: &ServiceInput<'_>,
    all: &JobOutcome,
    first_node: &[u32],
    n_trace: usize,
    second: usize,
    out: &mut SharedOutcome,
) -> Result<()> {
    let trace = s.sim.trace;
    let users = s.sim.tenants;
    let end = match s.sim.config.horizon {
        Some(h) if w.cut => h,
        _ => w.last_event,
    };
    for r in 0..w.jobs.len() {
        let j = n_trace + r;
        if all.first_start[j] != crate::jobs::sim::simulation::NEVER {
            let gpu = w.gpu_of_node(first_node[j]);
            let rec = &mut w.jobs[r];
            rec.start = all.first_start[j];
            rec.gpu = gpu;
        }
    }
    let mut busy = 0u128;
    let mut busy_by_type = vec![
        0u128;
        if s.sim.gpu_types.is_typed() {
            s.sim.gpu_types.n_types()
        } else {
            0
        }
    ];
    let mut low_fidelity_busy = 0u128;
    // `service/jobs.csv`'s segments, written as they are read (a service
    // preempted many times has many; core/io/record_log.rs).
    let mut kept = if s.keep_segments {
        Some(RecordLog::with_bound(
            SEGMENTS_IN_MEMORY,
            "the service's GPU segments",
        )?)
    } else {
        None
    };
    for seg in all.segments.iter() {
        let seg = seg?;
        // The service's jobs are `n_trace..second`; the workflows' follow.
        if (seg.job as usize) < n_trace || (seg.job as usize) >= second {
            continue;
        }
        let r = seg.job as usize - n_trace;
        let held = u128::from(seg.end.min(end).saturating_sub(seg.start)) * u128::from(seg.gpus);
        busy += held;
        if let Some(b) = busy_by_type.get_mut(usize::from(seg.gpu_type)) {
            *b += held;
        }
        let rec = &w.jobs[r];
        if trace.is_curve()
            && (rec.level as usize)
                < trace.top_level(users.user(rec.tenant as usize), rec.model as usize)
        {
            low_fidelity_busy += held;
        }
        if let Some(log) = &mut kept {
            log.push(ServiceSegment {
                job: r as u32,
                gpu: w.gpu_of_node(seg.node),
                gpus: seg.gpus,
                start: seg.start,
                end: seg.end,
                overhead: seg.overhead,
            });
        }
    }
    if let Some(log) = kept {
        out.service_segments = log.seal()?;
    }
    out.service_preemptions = all.preemptions[n_trace..n_trace + w.jobs.len()].to_vec();
    let n = users.len();
    // In sorted runs on disk above 65,536 tenants, as the model-mode
    // engine's (`EndStates`); the default state needs no record.
    let mut states = EndStatesBuilder::new(n);
    for i in 0..n {
        let s = EndState {
            ended: w
                .tenants
                .end_reason(i, w.policies.selector.schedule_over(i)),
            budget_exhausted: w.tenants.is_exhausted(i),
        };
        if s != EndState::default() {
            states.set(i, s)?;
        }
    }
    let end_states = states.finish()?;
    out.service = Some(RunOutcome {
        jobs: JobLog::from_vec(w.jobs),
        completion_order: CompletionOrder::from_vec(w.completion_order),
        end,
        busy,
        busy_by_type,
        low_fidelity_busy,
        events: w.events,
        gpus: u32::try_from(out.gpus).unwrap_or(u32::MAX),
        capacity: None,
        left_at: w.left_at.into(),
        end_states,
        policy_clock: w.policies.clock,
        // The shared engine keeps its log: the runner computes the
        // metrics from it (DESIGN §2.6).
        folded: None,
    });
    Ok(())
}

/// The workflows' own rules against the cluster: an untyped cluster
/// (DESIGN §14.2), every step able to fit it, a finite `load` > 0.
fn check_workflows(w: &WorkflowsInput<'_>, c: &ClusterInput<'_>) -> Result<()> {
    let t = w.trace;
    if c.types > 1 {
        return Err(Error::input(format!(
            "{}: workflows run on untyped clusters only (the cluster has {} GPU types)",
            t.source(),
            c.types
        )));
    }
    if !(w.load.is_finite() && w.load > 0.0) {
        return Err(Error::input(format!(
            "[workflows].load: expected a factor on the submission rate that is finite and > 0, got {}",
            w.load
        )));
    }
    let limit = crate::jobs::sim::simulation::type_limit(c.nodes, c.node_types, 0, c.placement);
    if let Some(s) = t.steps().iter().position(|s| u64::from(s.gpus) > limit) {
        let step = t.steps()[s];
        return Err(Error::input(format!(
            "{}: workflow `{}`, step `{}`: gpus: needs {} GPUs, more than the cluster can ever give one job under `{}` placement ({limit})",
            t.source(),
            t.workflow_id(step.workflow),
            t.step_id(s as u32),
            step.gpus,
            c.placement.name()
        )));
    }
    Ok(())
}

/// The most jobs the service can submit in one run: every level of every
/// available (tenant, model) pair once (a preempted job keeps its index).
pub fn service_jobs(sim: &SimInput<'_>) -> usize {
    sim.tenants
        .iter()
        .map(|u| {
            sim.trace
                .models_of(u)
                .iter()
                .map(|&k| sim.trace.top_level(u, k) + 1)
                .sum::<usize>()
        })
        .sum()
}

/// The service's own rules against the cluster (a scenario checks them
/// first, naming its keys).
fn check_service(s: &ServiceInput<'_>, c: &ClusterInput<'_>, gpus: u64) -> Result<()> {
    if s.gpus_per_job == 0 || u64::from(s.max_gpus) < u64::from(s.gpus_per_job) {
        return Err(Error::input(format!(
            "the service's jobs take {} GPUs and it may hold {}: expected 1 <= gpus_per_job <= max_gpus",
            s.gpus_per_job, s.max_gpus
        )));
    }
    if u64::from(s.max_gpus) > gpus {
        return Err(Error::input(format!(
            "the service may hold {} GPUs, more than the cluster's {gpus}",
            s.max_gpus
        )));
    }
    let fits = match c.placement {
        Placement::Consolidate => c.nodes.iter().any(|&g| g >= s.gpus_per_job),
        Placement::Spread => gpus >= u64::from(s.gpus_per_job),
    };
    if !fits {
        return Err(Error::input(format!(
            "a service job of {} GPUs fits on no node under `{}` placement",
            s.gpus_per_job,
            c.placement.name()
        )));
    }
    if s.sim.gpu_types.gpus() as u64 != gpus {
        return Err(Error::input(format!(
            "internal: the service's GPU types describe {} GPUs, the cluster has {gpus}",
            s.sim.gpu_types.gpus()
        )));
    }
    Ok(())
}
