//! Per-tenant figures of one run, and their aggregates: how each tenant
//! experienced the service, not only the global mean.

use serde::{Deserialize, Serialize};

use crate::core::error::{Error, Result};
use crate::models::sim::{EndReason, RunOutcome, TenantLimits, UserList};
use crate::models::trace::{Micros, Trace};

/// What one tenant experienced in one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TenantMetrics {
    /// Arrival time, µs.
    pub arrival: Micros,
    /// ∫ ℓ_i(τ) dτ from its arrival to the end of the run, accuracy·s.
    pub regret_area: f64,
    /// Per θ: time from arrival until ℓ_i ≤ θ (its own best within θ), µs;
    /// `None` if never.
    pub time_to: Vec<Option<Micros>>,
    /// Time from arrival to the start of its first job, µs (`None`: never
    /// served).
    pub wait_first_job: Option<Micros>,
    /// Longest interval, µs, between its arrival and the end of its demand
    /// during which none of its jobs ran. Its demand ends at its last job's
    /// end when it has nothing left to run (all models tried, its
    /// selector's schedule over, or its job or budget limit reached), else
    /// at the end of the run or when it left.
    pub longest_gap: Micros,
    /// Completed jobs.
    pub jobs: u32,
    /// GPU-µs its jobs ran (cancelled jobs up to the cancel).
    pub gpu_us: u64,
    /// Whether it left for lack of patience.
    pub abandoned: bool,
    /// Whether it hit its GPU-time budget.
    pub budget_exhausted: bool,
    /// Why it ended ([`EndReason`]).
    pub ended: EndReason,
}

/// Compute every tenant's figures. `users` are the run's tenants (trace
/// indices), `arrivals` their arrival times. An error: the outcome's end
/// states are not one a tenant, or cannot be read back.
pub fn tenant_metrics(
    trace: &Trace,
    users: &(impl UserList + ?Sized),
    arrivals: &[Micros],
    outcome: &RunOutcome,
    limits: TenantLimits,
    thresholds: &[f64],
) -> Result<Vec<TenantMetrics>> {
    let n = users.count();
    if outcome.end_states.len() != n {
        return Err(Error::input(format!(
            "internal: {} end states for {n} tenants",
            outcome.end_states.len()
        )));
    }
    let mut ends = outcome.end_states.iter();
    let end = outcome.end;
    // The log, read whole (this path is the shared engine's and a stepped
    // episode's; model mode folds as it goes, DESIGN §2.6).
    let log = outcome.jobs.records()?;
    // Jobs of each tenant in start order, as one list grouped by tenant
    // (a counting sort: `start[i]..start[i + 1]` are tenant i's).
    let mut start = vec![0usize; n + 1];
    for job in log.iter() {
        start[job.tenant as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut grouped = vec![0usize; log.len()];
    for (j, job) in log.iter().enumerate() {
        let slot = &mut fill[job.tenant as usize];
        grouped[*slot] = j;
        *slot += 1;
    }
    let mut completions: Vec<(Micros, f64)> = Vec::new();
    let mut out = Vec::with_capacity(n);
    let mut lefts = outcome.left_at.iter();
    for i in 0..n {
        let e = ends
            .next()
            .ok_or_else(|| Error::input(format!("internal: no end state for tenant {i}")))??;
        // Past the run's tenants (a shorter list): not left.
        let left = lefts.next().transpose()?.flatten();
        let a_star = trace.best_accuracy(users.user_of(i));
        let arrival = arrivals[i];
        let jobs = &grouped[start[i]..start[i + 1]];
        // Completions of i in time order (ties: engine order = job order here).
        completions.clear();
        completions.extend(
            jobs.iter()
                .map(|&j| &log[j])
                .filter(|j| j.completed)
                .map(|j| (j.end, j.accuracy)),
        );
        completions.sort_by_key(|c| c.0);

        // Regret area and per-θ times of the step function ℓ_i.
        let mut best = 0.0f64;
        let mut t = arrival.min(end);
        let mut area = 0.0f64;
        let mut time_to: Vec<Option<Micros>> = thresholds
            .iter()
            .map(|&th| (a_star <= th + super::THETA_SLACK).then_some(0))
            .collect();
        for &(at, acc) in &completions {
            let at = at.min(end);
            area += (a_star - best) * (at - t) as f64;
            t = at;
            if acc > best {
                best = acc;
                for (k, &th) in thresholds.iter().enumerate() {
                    if time_to[k].is_none() && a_star - best <= th + super::THETA_SLACK {
                        time_to[k] = Some(at - arrival);
                    }
                }
            }
        }
        area += (a_star - best) * end.saturating_sub(t) as f64;

        let first_start = jobs.first().map(|&j| log[j].start);
        let finished_demand = jobs.len() == trace.models_of(users.user_of(i)).len()
            || e.ended == EndReason::ScheduleOver
            || e.budget_exhausted
            || limits.max_jobs.is_some_and(|m| jobs.len() >= m as usize);
        let demand_end = match left {
            Some(l) => l,
            None if finished_demand => jobs.iter().map(|&j| log[j].end).max().unwrap_or(end),
            None => end,
        }
        .min(end);
        // Merge the tenant's busy intervals (start order) and find gaps.
        let mut gap = 0;
        let mut covered_until = arrival;
        for &j in jobs {
            let job = &log[j];
            if job.start > covered_until {
                gap = gap.max(job.start.min(demand_end).saturating_sub(covered_until));
            }
            covered_until = covered_until.max(job.end);
        }
        gap = gap.max(demand_end.saturating_sub(covered_until));

        out.push(TenantMetrics {
            arrival,
            regret_area: area / 1.0e6,
            time_to,
            wait_first_job: first_start.map(|s| s - arrival),
            longest_gap: gap,
            jobs: u32::try_from(completions.len()).unwrap_or(u32::MAX),
            gpu_us: jobs
                .iter()
                .map(|&j| {
                    let job = &log[j];
                    job.end.min(end).saturating_sub(job.start)
                })
                .sum(),
            abandoned: left.is_some(),
            budget_exhausted: e.budget_exhausted,
            ended: e.ended,
        });
    }
    Ok(out)
}

/// Aggregates of the per-tenant figures of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TenantAggregate {
    /// Mean regret area, accuracy·s.
    pub area_mean: f64,
    /// Median regret area.
    pub area_p50: f64,
    /// 90th percentile of the regret areas.
    pub area_p90: f64,
    /// Largest regret area (the worst-served tenant).
    pub area_max: f64,
    /// Jain's index over regret areas normalised by the isolated ones;
    /// `None` without isolated runs.
    pub jain: Option<f64>,
    /// Tenants that left for lack of patience.
    pub abandoned: usize,
}
