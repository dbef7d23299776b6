//! The model-selection simulation loop (DESIGN §2).

use super::{EventQueue, GpuPool, JobRecord, RunOutcome, Tenants};
use crate::error::{Error, Result};
use crate::policy::{Scheduler, Selector};
use crate::trace::{Micros, Trace};

/// Cluster and limits of one simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimConfig {
    /// Number of identical GPUs (at least 1).
    pub gpus: u32,
    /// Concurrent jobs allowed per tenant (DESIGN default 1).
    pub max_jobs_per_tenant: u32,
    /// Stop simulated time here (µs), if set.
    pub horizon: Option<Micros>,
}

/// Everything one simulation reads.
#[derive(Debug, Clone, Copy)]
pub struct SimInput<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// Trace user indices of the tenants, ascending.
    pub tenants: &'a [usize],
    /// Arrival time of each tenant, µs.
    pub arrivals: &'a [Micros],
    /// Cluster and limits.
    pub config: SimConfig,
}

/// Event kinds, in the order they are processed at one instant (DESIGN §2:
/// completions, then arrivals, then free GPUs are filled).
const COMPLETION: u8 = 0;
const ARRIVAL: u8 = 1;

#[derive(Debug, Clone, Copy)]
enum Event {
    Completion { job: u32 },
    Arrival { tenant: u32 },
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
/// Per event nothing is allocated: the queue, the job log and the pools are
/// sized up front.
pub fn simulate(
    input: &SimInput<'_>,
    scheduler: &mut dyn Scheduler,
    selector: &mut dyn Selector,
) -> Result<RunOutcome> {
    let SimInput {
        trace,
        tenants: users,
        arrivals,
        config,
    } = *input;
    if arrivals.len() != users.len() {
        return Err(Error::input(format!(
            "internal: {} arrival times for {} tenants",
            arrivals.len(),
            users.len()
        )));
    }
    let mut tenants = Tenants::new(trace, users, arrivals, config.max_jobs_per_tenant);
    let n_jobs_max: usize = users.iter().map(|&u| trace.models_of(u).len()).sum();
    let mut queue = EventQueue::with_capacity(users.len() + config.gpus as usize);
    for (i, &t) in arrivals.iter().enumerate() {
        queue.push(t, ARRIVAL, Event::Arrival { tenant: i as u32 });
    }
    let mut pool = GpuPool::new(config.gpus);
    let mut jobs: Vec<JobRecord> = Vec::with_capacity(n_jobs_max);
    let mut completion_order: Vec<u32> = Vec::with_capacity(n_jobs_max);
    let mut events = 0u64;
    let mut end: Micros = 0;
    let mut cut_at = None;

    while let Some(now) = queue.peek_time() {
        if let Some(h) = config.horizon.filter(|&h| now > h) {
            cut_at = Some(h);
            break;
        }
        while queue.peek_time() == Some(now) {
            let Some(ev) = queue.pop() else { break };
            events += 1;
            match ev.payload {
                Event::Completion { job } => {
                    let rec = &mut jobs[job as usize];
                    rec.completed = true;
                    let (i, k, acc) = (rec.tenant as usize, rec.model as usize, rec.accuracy);
                    pool.release(rec.gpu);
                    tenants.complete(i, acc);
                    completion_order.push(job);
                    selector.observe(i, k, acc);
                    scheduler.tenant_changed(&tenants, i);
                }
                Event::Arrival { tenant } => {
                    tenants.arrive(tenant as usize);
                    scheduler.tenant_changed(&tenants, tenant as usize);
                }
            }
        }
        end = now;
        if config.horizon.is_some_and(|h| now >= h) {
            continue;
        }
        fill_free_gpus(
            now,
            trace,
            &mut tenants,
            &mut pool,
            &mut jobs,
            &mut queue,
            scheduler,
            selector,
        )?;
    }
    if let Some(h) = cut_at {
        end = h;
    }
    let busy = jobs
        .iter()
        .map(|j| u128::from(j.end.min(end).saturating_sub(j.start)))
        .sum();
    Ok(RunOutcome {
        jobs,
        completion_order,
        end,
        busy,
        events,
        gpus: config.gpus,
    })
}

/// Fill free GPUs lowest index first, one decision at a time.
#[allow(clippy::too_many_arguments)]
fn fill_free_gpus(
    now: Micros,
    trace: &Trace,
    tenants: &mut Tenants,
    pool: &mut GpuPool,
    jobs: &mut Vec<JobRecord>,
    queue: &mut EventQueue<Event>,
    scheduler: &mut dyn Scheduler,
    selector: &mut dyn Selector,
) -> Result<()> {
    while pool.free_count() > 0 {
        let Some(i) = scheduler.pick(tenants, selector) else {
            break;
        };
        if i >= tenants.len() || !tenants.is_eligible(i) {
            return Err(Error::input(format!(
                "internal error: the scheduler picked tenant {i}, which is not eligible"
            )));
        }
        let Some(p) = selector.propose(tenants, i) else {
            return Err(Error::input(format!(
                "internal error: the selector proposed no model for eligible tenant {i}"
            )));
        };
        let u = tenants.user(i);
        if p.model >= trace.n_models()
            || !trace.is_available(u, p.model)
            || tenants.is_tried(i, p.model)
        {
            return Err(Error::input(format!(
                "internal error: the selector proposed model {} for tenant {i}, which is unavailable or already tried",
                p.model
            )));
        }
        let Some(gpu) = pool.take_lowest() else {
            break;
        };
        let finish = now
            .checked_add(trace.runtime_us(u, p.model))
            .ok_or_else(|| {
                Error::input("simulated time overflowed 2^64 µs: runtimes are too large")
            })?;
        let job = u32::try_from(jobs.len())
            .map_err(|_| Error::input("more than 2^32 jobs in one run"))?;
        jobs.push(JobRecord {
            tenant: i as u32,
            model: p.model as u32,
            gpu,
            start: now,
            end: finish,
            accuracy: trace.accuracy(u, p.model),
            completed: false,
        });
        tenants.start(i, p.model);
        selector.started(i, p.model);
        scheduler.tenant_changed(tenants, i);
        queue.push(finish, COMPLETION, Event::Completion { job });
    }
    Ok(())
}
