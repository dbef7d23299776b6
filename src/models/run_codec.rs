//! A model-mode run ([`RepResult`]) to bytes and back, exactly (the result
//! cache and shard files, [`crate::core::codec`]). Every field is kept,
//! the job log too when the run kept it, so a fold of decoded runs writes
//! the same bytes as a fold of the runs themselves.

use crate::core::codec::{Dec, Enc};
use crate::core::error::{Error, Result};
use crate::core::policy_clock::PolicyClock;
use crate::models::metrics::{LossCurve, RepResult, RunMetrics, TenantAggregate, TenantMetrics};
use crate::models::scenario::Split;
use crate::models::sim::{EndReason, JobRecord, RunOutcome};

/// Append `run` to `out`.
pub fn encode_rep(run: &RepResult, out: &mut Vec<u8>) {
    let mut e = Enc::new(out);
    e.usize(run.policy);
    e.u64(run.rep);
    e.usizes(&run.split.prior);
    e.usizes(&run.split.tenants);
    e.u64s(&run.arrivals);
    // Destructured without `..`: a field added to the outcome or a job
    // record fails to compile here until it is encoded (and decoded).
    let RunOutcome {
        jobs,
        completion_order,
        end,
        busy,
        busy_by_type,
        low_fidelity_busy,
        events,
        gpus,
        left_at,
        budget_exhausted,
        ended,
        policy_clock,
    } = &run.outcome;
    e.seq(jobs, |e, j| {
        let JobRecord {
            tenant,
            model,
            level,
            gpu,
            start,
            end,
            accuracy,
            completed,
            cancelled,
        } = *j;
        e.u32(tenant);
        e.u32(model);
        e.u32(level);
        e.u32(gpu);
        e.u64(start);
        e.u64(end);
        e.f64(accuracy);
        e.bool(completed);
        e.bool(cancelled);
    });
    e.u32s(completion_order);
    e.u64(*end);
    e.u128(*busy);
    e.seq(busy_by_type, |e, &b| e.u128(b));
    e.u128(*low_fidelity_busy);
    e.u64(*events);
    e.u32(*gpus);
    e.seq(left_at, |e, t| e.option(t.as_ref(), |e, &t| e.u64(t)));
    e.seq(budget_exhausted, |e, &b| e.bool(b));
    e.seq(ended, |e, &r| e.u8(r.code()));
    e.u64(policy_clock.calls());
    e.duration(policy_clock.estimate());
    e.option(run.first_completion.as_ref(), |e, &t| e.u64(t));
    curve(&mut e, &run.curve);
    curve(&mut e, &run.job_curve);
    let m = &run.metrics;
    e.f64(m.final_loss);
    e.f64(m.cumulative_regret);
    e.seq(&m.time_to, |e, t| e.option(t.as_ref(), |e, &t| e.u64(t)));
    e.usize(m.jobs);
    e.f64(m.gpu_busy_fraction);
    e.u64(m.end);
    e.u64(m.events);
    e.seq(&run.tenants, |e, t| {
        e.u64(t.arrival);
        e.f64(t.regret_area);
        e.seq(&t.time_to, |e, x| e.option(x.as_ref(), |e, &x| e.u64(x)));
        e.option(t.wait_first_job.as_ref(), |e, &x| e.u64(x));
        e.u64(t.longest_gap);
        e.u32(t.jobs);
        e.u64(t.gpu_us);
        e.bool(t.abandoned);
        e.bool(t.budget_exhausted);
        e.u8(t.ended.code());
    });
    e.option(run.isolated_area.as_ref(), |e, v| e.f64s(v));
    let a = &run.tenant_aggregate;
    e.f64(a.area_mean);
    e.f64(a.area_p50);
    e.f64(a.area_p90);
    e.f64(a.area_max);
    e.option(a.jain.as_ref(), |e, &j| e.f64(j));
    e.usize(a.abandoned);
    e.duration(run.elapsed);
    e.duration(run.policy_time);
}

fn curve(e: &mut Enc<'_>, c: &LossCurve) {
    e.u64s(&c.times);
    e.f64s(&c.sum_loss);
    e.u32s(&c.arrived);
    e.u64(c.last_arrival);
    e.u64(c.end);
}

fn read_curve(d: &mut Dec<'_>) -> Result<LossCurve> {
    Ok(LossCurve {
        times: d.u64s()?,
        sum_loss: d.f64s()?,
        arrived: d.u32s()?,
        last_arrival: d.u64()?,
        end: d.u64()?,
    })
}

fn end_reason(d: &mut Dec<'_>) -> Result<EndReason> {
    let c = d.u8()?;
    EndReason::from_code(c).ok_or_else(|| {
        Error::input(format!(
            "encoded run: expected a tenant's end reason (0 to {}), got {c}",
            EndReason::ALL.len() - 1
        ))
    })
}

fn opt_u64(d: &mut Dec<'_>) -> Result<Option<u64>> {
    d.option(Dec::u64)
}

/// The run [`encode_rep`] wrote into `bytes`.
pub fn decode_rep(bytes: &[u8]) -> Result<RepResult> {
    let mut d = Dec::new(bytes);
    let policy = d.usize()?;
    let rep = d.u64()?;
    let split = Split {
        prior: d.usizes()?,
        tenants: d.usizes()?,
    };
    let arrivals = d.u64s()?;
    let outcome = RunOutcome {
        jobs: d.seq(38, |d| {
            Ok(JobRecord {
                tenant: d.u32()?,
                model: d.u32()?,
                level: d.u32()?,
                gpu: d.u32()?,
                start: d.u64()?,
                end: d.u64()?,
                accuracy: d.f64()?,
                completed: d.bool()?,
                cancelled: d.bool()?,
            })
        })?,
        completion_order: d.u32s()?,
        end: d.u64()?,
        busy: d.u128()?,
        busy_by_type: d.seq(16, Dec::u128)?,
        low_fidelity_busy: d.u128()?,
        events: d.u64()?,
        gpus: d.u32()?,
        left_at: d.seq(1, opt_u64)?,
        budget_exhausted: d.seq(1, Dec::bool)?,
        ended: d.seq(1, end_reason)?,
        policy_clock: PolicyClock::from_estimate(d.u64()?, d.duration()?),
    };
    let first_completion = opt_u64(&mut d)?;
    let curve = read_curve(&mut d)?;
    let job_curve = read_curve(&mut d)?;
    let metrics = RunMetrics {
        final_loss: d.f64()?,
        cumulative_regret: d.f64()?,
        time_to: d.seq(1, opt_u64)?,
        jobs: d.usize()?,
        gpu_busy_fraction: d.f64()?,
        end: d.u64()?,
        events: d.u64()?,
    };
    let tenants = d.seq(45, |d| {
        Ok(TenantMetrics {
            arrival: d.u64()?,
            regret_area: d.f64()?,
            time_to: d.seq(1, opt_u64)?,
            wait_first_job: opt_u64(d)?,
            longest_gap: d.u64()?,
            jobs: d.u32()?,
            gpu_us: d.u64()?,
            abandoned: d.bool()?,
            budget_exhausted: d.bool()?,
            ended: end_reason(d)?,
        })
    })?;
    let isolated_area = d.option(Dec::f64s)?;
    let tenant_aggregate = TenantAggregate {
        area_mean: d.f64()?,
        area_p50: d.f64()?,
        area_p90: d.f64()?,
        area_max: d.f64()?,
        jain: d.option(Dec::f64)?,
        abandoned: d.usize()?,
    };
    let elapsed = d.duration()?;
    let policy_time = d.duration()?;
    d.finish()?;
    Ok(RepResult {
        policy,
        rep,
        split,
        arrivals,
        outcome,
        first_completion,
        curve,
        job_curve,
        metrics,
        tenants,
        isolated_area,
        tenant_aggregate,
        elapsed,
        policy_time,
    })
}
