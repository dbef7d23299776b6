//! One run of a shared scenario: a (repetition, policy) task through the
//! shared engine ([`simulate_shared`]), its service part in model mode's
//! form and its background part in job mode's (DESIGN §13.5).

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::scenario::{Service, SharedScenario, Workflows};
use super::sim::{
    BackgroundInput, ClusterInput, PolicyPair, ServiceInput, ServiceSegment, ShareStep,
    SharedInput, SharedOutcome, WorkflowOutcome, WorkflowsInput, simulate_shared,
};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::io::codec;
use crate::core::io::sealed::Sealed;
use crate::core::sim::held::Held;
use crate::core::sim::time::Micros;
use crate::jobs::metrics::job_metrics;
use crate::jobs::run::JobRun;
use crate::jobs::run_codec::{decode_job_run, encode_job_run};
use crate::jobs::scenario::JobPolicy;
use crate::jobs::scenario::{JobScenario, RepJobs};
use crate::jobs::sim::JobSchedulerFactory;
use crate::models::experiment::{finish_rep, start_rep};
use crate::models::metrics::RepResult;
use crate::models::scenario::Split;
use crate::models::sim::SimInput;

/// One (repetition, policy) run of a shared scenario.
#[derive(Debug)]
pub struct SharedRun {
    /// Policy index.
    pub policy: usize,
    /// Repetition, from 0.
    pub rep: u64,
    /// The service's run in model mode's form (with a `[service]`).
    pub service: Option<RepResult>,
    /// The background's run in job mode's form (with a `[jobs]`).
    pub background: Option<JobRun>,
    /// GPUs held by each workload over time.
    pub shares: Sealed<ShareStep>,
    /// Every interval a service job held GPUs, in the order they ended
    /// (kept with `--jobs`; in memory up to a bound, on disk past it).
    pub segments: Sealed<ServiceSegment>,
    /// The workflows' run (with a `[workflows]`; its steps and jobs kept
    /// with `--jobs`).
    pub workflows: Option<WorkflowOutcome>,
    /// CPUs in the cluster (0: not counted), for the workflows' CPU
    /// utilisation.
    pub cpus: u64,
}

/// [`Wire`] borrowed, for encoding (the same bytes).
#[derive(Serialize)]
struct WireRef<'a> {
    policy: u64,
    rep: u64,
    service: &'a Option<RepResult>,
    background: Option<Vec<u8>>,
    shares: &'a Sealed<ShareStep>,
    segments: &'a Sealed<ServiceSegment>,
    workflows: &'a Option<WorkflowOutcome>,
    cpus: u64,
}

/// What a run's encoding holds: the background in job mode's own encoding
/// (its jobs are drawn again on decoding).
#[derive(Deserialize)]
struct Wire {
    policy: u64,
    rep: u64,
    service: Option<RepResult>,
    background: Option<Vec<u8>>,
    shares: Sealed<ShareStep>,
    segments: Sealed<ServiceSegment>,
    workflows: Option<WorkflowOutcome>,
    cpus: u64,
}

/// The background's jobs of repetition `rep`: job mode's draw
/// ([`JobScenario::rep_jobs`]), submit times divided by `load` (exactly
/// the trace's at load 1).
pub fn background_jobs(background: &JobScenario, load: f64, rep: u64) -> RepJobs {
    let mut jobs = background.rep_jobs(rep);
    divide_submits(&mut jobs, load);
    jobs
}

fn divide_submits(jobs: &mut RepJobs, load: f64) {
    if load != 1.0 {
        for j in &mut jobs.jobs {
            j.submit = (j.submit as f64 / load).round() as Micros;
        }
    }
}

/// Simulate policy `policy` in repetition `rep`; the service's job log and
/// segments are dropped unless `keep_jobs`.
pub fn simulate_shared_run(
    s: &SharedScenario,
    rep: u64,
    policy: usize,
    keep_jobs: bool,
) -> Result<SharedRun> {
    simulate_shared_run_with(
        s,
        rep,
        policy,
        keep_jobs,
        &mut |input, cluster, seed, rep, mut svc| {
            let policies = svc
                .as_mut()
                .map(|p| (&mut *p.scheduler as _, &mut *p.selector as _));
            simulate_shared(input, cluster, seed, rep, policies)
        },
    )
}

/// The engine of one shared run: [`simulate_shared`]'s arguments (the
/// service's policies as a [`PolicyPair`]) to its outcome. The batch run
/// is `simulate_shared`; a steppable run driven to its end
/// ([`super::sim::SharedStepper`], DESIGN §15.6) is another.
pub type SharedEngine<'f> = dyn for<'i> FnMut(
        &SharedInput<'i>,
        &JobSchedulerFactory,
        u64,
        u64,
        Option<PolicyPair<'i>>,
    ) -> Result<SharedOutcome>
    + 'f;

/// [`simulate_shared_run`] with the engine `engine` (DESIGN §15.6): the
/// scenario's inputs of repetition `rep` and policy `policy` are set up
/// ([`RepDraw`], [`start_rep`]) and the outcome taken apart
/// ([`finish_shared_run`]) exactly as the batch run's.
pub fn simulate_shared_run_with(
    s: &SharedScenario,
    rep: u64,
    policy: usize,
    keep_jobs: bool,
    engine: &mut SharedEngine<'_>,
) -> Result<SharedRun> {
    let started = Instant::now();
    let draw = RepDraw::new(s, rep, policy, keep_jobs)?;
    let jp = draw.cluster_policy(s)?;
    let context = || format!("policy `{}`, repetition {rep}", jp.name);
    let (service, rest) = match &s.service {
        None => {
            let input = draw.input(s, None)?;
            let rest =
                engine(&input, &jp.make, s.seed(), rep, None).map_err(|e| e.context(context()))?;
            (None, rest)
        }
        Some(svc) => {
            let mut start = start_rep(&svc.scenario, rep, policy)?;
            let sim = SimInput {
                trace: &svc.scenario.trace,
                tenants: &start.split.tenants,
                arrivals: &start.arrivals,
                config: svc.scenario.config,
                gpu_types: &svc.scenario.gpu_types,
            };
            let keep_segments = s.keeps_service_segments(draw.keep_jobs);
            let input = draw.input(s, Some(service_input(svc, sim, keep_segments)))?;
            let pair = PolicyPair {
                scheduler: Held::Borrowed(&mut *start.scheduler),
                selector: Held::Borrowed(&mut *start.selector),
            };
            let rest = engine(&input, &jp.make, s.seed(), rep, Some(pair))
                .map_err(|e| e.context(context()))?;
            (Some(start), rest)
        }
    };
    let service = service.map(|st| (st.split, st.arrivals, st.started));
    finish_shared_run(s, draw, service, rest, started)
}

/// What repetition `rep` of policy `policy` of a shared scenario draws
/// and owns (DESIGN §13, §15.6): the cluster's node types and the
/// background's jobs of the repetition ([`background_jobs`]); with the
/// scenario it lends a run its [`SharedInput`] ([`RepDraw::input`]).
#[derive(Debug, Clone)]
pub struct RepDraw {
    /// The repetition.
    pub rep: u64,
    /// The policy's index.
    pub policy: usize,
    /// Keep the service's job log and segments and the workflows' steps
    /// and jobs.
    pub keep_jobs: bool,
    /// Each node's GPU type (empty: untyped).
    node_types: Vec<GpuType>,
    /// The background's jobs of the repetition, if there is a background.
    pub background: Option<RepJobs>,
}

impl RepDraw {
    /// The draw of repetition `rep` of policy `policy` of `s`.
    pub fn new(s: &SharedScenario, rep: u64, policy: usize, keep_jobs: bool) -> Result<Self> {
        let n = s.policies();
        if policy >= n {
            return Err(Error::usage(format!(
                "policy {policy} is out of range: the scenario has {n} policies (0..{n})"
            )));
        }
        Ok(Self {
            rep,
            policy,
            keep_jobs,
            node_types: if s.cluster.cluster.is_typed() {
                s.cluster.cluster.node_types()
            } else {
                Vec::new()
            },
            background: s
                .background
                .as_ref()
                .map(|b| background_jobs(b, s.load, rep)),
        })
    }

    /// The policy's cluster scheduler.
    pub fn cluster_policy<'s>(&self, s: &'s SharedScenario) -> Result<&'s JobPolicy> {
        s.cluster_policies
            .get(self.policy)
            .ok_or_else(|| Error::input("internal: no such policy"))
    }

    /// The run's input: the cluster, the background drawn, `service` (the
    /// service's input, with a `[service]`) and the workflows with the
    /// policy's rules.
    pub fn input<'a>(
        &'a self,
        s: &'a SharedScenario,
        service: Option<ServiceInput<'a>>,
    ) -> Result<SharedInput<'a>> {
        let jp = self.cluster_policy(s)?;
        let cluster = ClusterInput {
            nodes: &s.cluster.nodes,
            cpus: &s.cluster.cpus,
            node_types: &self.node_types,
            types: s.cluster.cluster.types().len(),
            placement: s.placement,
            backfill: jp.backfill,
            restart_overhead: s.cluster.restart_overhead,
            round: s.cluster.round,
            record_allocations: false,
        };
        let background = s
            .background
            .as_ref()
            .zip(self.background.as_ref())
            .map(|(b, j)| BackgroundInput {
                jobs: &j.jobs,
                users: b.trace.users().len(),
                types: j.types.as_ref(),
                type_policy: jp.type_policy,
            });
        let workflows = s
            .workflows
            .as_ref()
            .map(|w| workflows_input(w, self.policy, self.keep_jobs));
        Ok(SharedInput {
            cluster,
            background,
            service,
            workflows,
        })
    }
}

/// The service's input: model mode's `sim` and the `[service]` rules,
/// its segments kept when `keep_segments` (`service/jobs.csv` by segment:
/// `--jobs`, and [`SharedScenario::service_segments`]).
pub fn service_input<'a>(
    svc: &Service,
    sim: SimInput<'a>,
    keep_segments: bool,
) -> ServiceInput<'a> {
    ServiceInput {
        sim,
        max_gpus: svc.max_gpus,
        gpus_per_job: svc.gpus_per_job,
        priority: svc.priority,
        preempt: svc.preempt,
        keep_segments,
    }
}

/// The [`SharedRun`] of a finished run of `draw` (DESIGN §13.5): the
/// service's part in model mode's form (`service`: its repetition's
/// split, arrivals and set-up instant, [`finish_rep`]), the background's
/// in job mode's with its metrics, the workflows' and the shares.
pub fn finish_shared_run(
    s: &SharedScenario,
    draw: RepDraw,
    service: Option<(Split, std::sync::Arc<[Micros]>, Instant)>,
    mut rest: SharedOutcome,
    started: Instant,
) -> Result<SharedRun> {
    let RepDraw {
        rep,
        policy,
        keep_jobs,
        background: jobs,
        ..
    } = draw;
    let service = match (&s.service, service) {
        (None, None) => None,
        (Some(svc), Some((split, arrivals, at))) => {
            let out = rest.service.take().ok_or_else(|| {
                Error::input("internal: the shared engine gave no service outcome")
            })?;
            Some(finish_rep(
                &svc.scenario,
                rep,
                policy,
                split,
                arrivals.into(),
                at,
                out,
                keep_jobs,
            )?)
        }
        _ => return Err(Error::input("internal: a service run without its set-up")),
    };
    let background = match (&s.background, jobs) {
        (None, _) => None,
        (Some(b), Some(jobs)) => {
            let outcome = rest.background.take().ok_or_else(|| {
                Error::input("internal: the shared engine gave no background outcome")
            })?;
            let metrics = job_metrics(&jobs.jobs, b.trace.users().len(), &outcome)?;
            Some(JobRun {
                policy,
                rep,
                jobs,
                outcome,
                metrics,
                elapsed: started.elapsed(),
            })
        }
        (Some(_), None) => return Err(Error::input("internal: a background run without its jobs")),
    };
    let workflows = match &s.workflows {
        None => None,
        Some(_) => Some(rest.workflows.take().ok_or_else(|| {
            Error::input("internal: the shared engine gave no workflows outcome")
        })?),
    };
    Ok(SharedRun {
        policy,
        rep,
        service,
        background,
        workflows,
        cpus: rest.cpus,
        shares: rest.shares,
        // Kept by the engine only with `--jobs` (`keeps_service_segments`).
        segments: rest.service_segments,
    })
}

/// Append `run` to `out`, exactly (the cache's and shards' form, DESIGN
/// §10.1).
pub fn encode_shared_run(run: &SharedRun, out: &mut dyn std::io::Write) -> Result<()> {
    let background = match &run.background {
        None => None,
        Some(b) => {
            let mut bytes = Vec::new();
            encode_job_run(b, &mut bytes)?;
            Some(bytes)
        }
    };
    let wire = WireRef {
        policy: run.policy as u64,
        rep: run.rep,
        service: &run.service,
        background,
        shares: &run.shares,
        segments: &run.segments,
        workflows: &run.workflows,
        cpus: run.cpus,
    };
    codec::encode_to(&wire, out)
}

/// The run [`encode_shared_run`] wrote; an error for other bytes.
pub fn decode_shared_run(s: &SharedScenario, bytes: &[u8]) -> Result<SharedRun> {
    let wire: Wire = codec::decode(bytes)?;
    let background = match (&s.background, wire.background) {
        (None, None) => None,
        (Some(b), Some(bytes)) => {
            let mut run = decode_job_run(b, &bytes)?;
            divide_submits(&mut run.jobs, s.load);
            Some(run)
        }
        _ => {
            return Err(Error::input(
                "a stored shared run does not match the scenario's workloads",
            ));
        }
    };
    if wire.service.is_some() != s.service.is_some()
        || wire.workflows.is_some() != s.workflows.is_some()
        || wire.policy >= s.policies() as u64
        || wire
            .workflows
            .as_ref()
            .zip(s.workflows.as_ref())
            .is_some_and(|(o, w)| {
                o.workflows.len() != w.trace.workflows().len()
                    || (!o.steps.is_empty() && o.steps.len() != w.trace.steps().len())
            })
    {
        return Err(Error::input(
            "a stored shared run does not match the scenario's workloads",
        ));
    }
    Ok(SharedRun {
        policy: wire.policy as usize,
        rep: wire.rep,
        service: wire.service,
        background,
        shares: wire.shares,
        segments: wire.segments,
        workflows: wire.workflows,
        cpus: wire.cpus,
    })
}

/// The workflows' input of policy `policy` (DESIGN §14):
/// [`Workflows::input`].
pub fn workflows_input(w: &Workflows, policy: usize, keep_jobs: bool) -> WorkflowsInput<'_> {
    w.input(policy, keep_jobs)
}
