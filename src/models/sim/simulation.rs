//! The model-selection simulation (DESIGN §2): its input and
//! [`simulate`], the run in which every decision is the scheduler's (a
//! [`ModelRun`] driven by its policies).

use super::stepper::ModelRun;
use super::{Arrivals, GpuTypes, JobSink, RunOutcome, Scheduler, Selector, SimConfig, TenantUsers};
use crate::core::error::{Error, Result};
use crate::core::sim::held::{Held, Shared};
use crate::core::sim::policy_clock::PolicyClock;
use crate::models::trace::{Micros, Trace};

/// Everything one simulation reads.
#[derive(Debug, Clone, Copy)]
pub struct SimInput<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// Trace user indices of the tenants, ascending.
    pub tenants: &'a TenantUsers,
    /// Arrival time of each tenant, µs.
    pub arrivals: &'a [Micros],
    /// Cluster and limits.
    pub config: SimConfig,
    /// The GPUs' types and the runtimes on each ([`GpuTypes::untyped`]
    /// for identical GPUs); its GPU count must be `config.gpus`.
    pub gpu_types: &'a GpuTypes,
}

/// [`SimInput`] with the tenants' users and arrival times shared with
/// the caller, who keeps them for the run's results, rather than lent
/// (the engine copies a lent input's arrival times; a [`TenantUsers`] is
/// shared either way): 8 bytes for each of scale-year's 10^7 tenants held
/// once, not twice (DESIGN §8.5). What a repetition's main run is
/// given ([`simulate_observed_shared`]).
#[derive(Debug, Clone)]
pub struct SharedInput<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// Trace user indices of the tenants, ascending.
    pub tenants: TenantUsers,
    /// Arrival time of each tenant, µs: listed, or drawn as the run goes
    /// ([`Arrivals::Streamed`]).
    pub arrivals: Arrivals,
    /// Cluster and limits.
    pub config: SimConfig,
    /// The GPUs' types, as [`SimInput::gpu_types`].
    pub gpu_types: &'a GpuTypes,
}

impl SimInput<'_> {
    /// The same input, its arrival times copied into a list of its own and
    /// its users shared (a [`TenantUsers`] clone shares them): what the
    /// engine does with a lent input.
    pub fn copied(&self) -> SharedInput<'_> {
        SharedInput {
            trace: self.trace,
            tenants: self.tenants.clone(),
            arrivals: Arrivals::from(self.arrivals),
            config: self.config,
            gpu_types: self.gpu_types,
        }
    }
}

impl SharedInput<'_> {
    /// The same input, lent: its arrival times must be listed (an
    /// error names the input whose times are drawn as the run goes).
    pub fn lent(&self) -> Result<SimInput<'_>> {
        let Some(arrivals) = self.arrivals.listed() else {
            return Err(Error::usage(
                "an input whose arrivals are drawn as the run goes (`order = \"streamed\"`) \
                 cannot be lent: its times are not listed",
            ));
        };
        Ok(SimInput {
            trace: self.trace,
            tenants: &self.tenants,
            arrivals,
            config: self.config,
            gpu_types: self.gpu_types,
        })
    }
}

/// Run one simulation.
///
/// Events are processed in `(time, kind, sequence)` order. At each instant,
/// once every event at that time has been processed, free GPUs are filled
/// lowest index first, one decision at a time: the scheduler picks an
/// eligible tenant, the selector picks its model, the job starts, and the
/// next decision sees that state. A GPU with no tenant picked stays idle
/// until the next event. The run ends when the queue is empty (no job runs
/// and no arrival is pending) or at the horizon: events at the horizon are
/// processed, no job starts at it, and jobs still running are cut off (their
/// accuracy is never observed; their GPU time up to the horizon counts as
/// busy).
///
/// On a typed cluster ([`SimInput::gpu_types`], DESIGN §11.4) each
/// decision is for the lowest free GPU, whose type the policies read in
/// [`Tenants::gpu_type`](super::Tenants::gpu_type); the job runs the pair's runtime on that type.
///
/// Per event nothing is allocated: the queue, the job log and the pools are
/// sized up front.
pub fn simulate(
    input: &SimInput<'_>,
    scheduler: &mut dyn Scheduler,
    selector: &mut dyn Selector,
) -> Result<RunOutcome> {
    drive(borrowed_run(input, scheduler, selector)?)
}

/// [`simulate`], its policies' calls timed as the continuation of
/// `clock` ([`ModelRun::continue_clock`]): short runs simulated one after
/// another are timed as one, so the clock is read for about one call in
/// 16 once past the first 256 of them all, not for every call of each.
pub fn simulate_continuing(
    input: &SharedInput<'_>,
    scheduler: &mut dyn Scheduler,
    selector: &mut dyn Selector,
    clock: PolicyClock,
) -> Result<RunOutcome> {
    let mut run = shared_run(input, Held::Borrowed(scheduler), Held::Borrowed(selector))?;
    run.continue_clock(clock);
    drive(run)
}

/// A run over `input` that borrows its trace, cluster and policies (what
/// [`simulate`] and [`simulate_observed`] drive).
fn borrowed_run<'a>(
    input: &SimInput<'a>,
    scheduler: &'a mut dyn Scheduler,
    selector: &'a mut dyn Selector,
) -> Result<ModelRun<'a>> {
    ModelRun::new(
        Shared::Borrowed(input.trace),
        Shared::Borrowed(input.gpu_types),
        input.tenants,
        input.arrivals,
        input.config,
        Held::Borrowed(scheduler),
        Held::Borrowed(selector),
    )
}

/// [`simulate`], with `sink` told of every job as the run goes
/// ([`ModelRun::observe_jobs`]: the metrics of DESIGN §2.6 folded online);
/// the outcome's [`RunOutcome::folded`] holds what it returns. Without
/// `keep_log` no job log is kept ([`ModelRun::drop_log`]: the outcome's
/// `jobs` and `completion_order` are empty, DESIGN §8.5).
pub fn simulate_observed(
    input: &SimInput<'_>,
    scheduler: &mut dyn Scheduler,
    selector: &mut dyn Selector,
    sink: Box<dyn JobSink>,
    keep_log: bool,
) -> Result<RunOutcome> {
    drive_observed(borrowed_run(input, scheduler, selector)?, sink, keep_log)
}

/// [`simulate_observed`] with policies the run owns: it drops them once
/// the run has ended and the tenants' end reasons are read, before the
/// sink finishes (at 10^7 tenants the greedy scheduler's heap and the GP
/// selector's tenant map are half a gigabyte the metrics never read:
/// DESIGN §2.6 "Done tenants", docs/PERFORMANCE.md "Internet scale"). The
/// same outcome.
pub fn simulate_observed_owned(
    input: &SimInput<'_>,
    scheduler: Box<dyn Scheduler + '_>,
    selector: Box<dyn Selector + '_>,
    sink: Box<dyn JobSink>,
    keep_log: bool,
) -> Result<RunOutcome> {
    simulate_observed_shared(&input.copied(), scheduler, selector, sink, keep_log)
}

/// [`simulate_observed_owned`] over an input whose tenants' users and
/// arrival times the engine shares instead of copying. The same outcome.
pub fn simulate_observed_shared(
    input: &SharedInput<'_>,
    scheduler: Box<dyn Scheduler + '_>,
    selector: Box<dyn Selector + '_>,
    sink: Box<dyn JobSink>,
    keep_log: bool,
) -> Result<RunOutcome> {
    let run = shared_run(input, Held::Owned(scheduler), Held::Owned(selector))?;
    drive_observed(run, sink, keep_log)
}

/// A run over `input` that shares its tenants' users and arrival times.
fn shared_run<'a>(
    input: &SharedInput<'a>,
    scheduler: Held<'a, dyn Scheduler + 'a>,
    selector: Held<'a, dyn Selector + 'a>,
) -> Result<ModelRun<'a>> {
    ModelRun::sharing(
        Shared::Borrowed(input.trace),
        Shared::Borrowed(input.gpu_types),
        input.tenants.clone(),
        input.arrivals.clone(),
        input.config,
        scheduler,
        selector,
    )
}

/// [`drive`] `run` with `sink` told of every job, keeping the job log
/// only when `keep_log`.
fn drive_observed(
    mut run: ModelRun<'_>,
    sink: Box<dyn JobSink>,
    keep_log: bool,
) -> Result<RunOutcome> {
    run.observe_jobs(sink)?;
    if !keep_log {
        run.drop_log()?;
    }
    drive(run)
}

/// The built-in driver: every decision is the scheduler's pick.
fn drive(mut run: ModelRun<'_>) -> Result<RunOutcome> {
    while let Some(point) = run.next_decision()? {
        run.decide(point.policy_choice)?;
    }
    run.into_outcome()
}
