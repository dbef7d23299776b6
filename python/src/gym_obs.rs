//! The observation of `tenantsim.gym` in model mode (DESIGN §15.3): a
//! fixed-size float32 vector, [`TENANT_FEATURES`] numbers per tenant (in
//! tenant order, the trace's user order) followed by [`GLOBAL_FEATURES`]
//! numbers about the cluster and the clock. Each feature is written by
//! [`encode`] next to its definition; DESIGN §15.3 lists them.

use tenantsim::models::experiment::Episode;
use tenantsim::models::sim::DecisionPoint;

/// Numbers per tenant.
pub const TENANT_FEATURES: usize = 9;
/// Numbers about the cluster and the clock, after the tenants'.
pub const GLOBAL_FEATURES: usize = 6;

/// The names of the per-tenant features, in order (DESIGN §15.3).
pub const TENANT_FEATURE_NAMES: [&str; TENANT_FEATURES] = [
    "arrived",
    "eligible",
    "running",
    "completed_fraction",
    "closed_fraction",
    "best_accuracy",
    "hours_since_arrival",
    "gpu_hours_used",
    "finished",
];

/// The names of the global features, in order (DESIGN §15.3).
pub const GLOBAL_FEATURE_NAMES: [&str; GLOBAL_FEATURES] = [
    "clock_hours",
    "free_gpus",
    "free_gpu_fraction",
    "gpu_type",
    "arrived_fraction",
    "eligible_fraction",
];

/// Hours per µs (a product is cheaper than a division: the encoding is
/// most of a step's time).
const HOURS_PER_US: f64 = 1.0 / 3.6e9;

/// 1 / total_i per tenant: the reciprocal of the number of models
/// available to its trace user (at least 1), computed once per episode.
pub fn inv_totals(episode: &Episode) -> Vec<f64> {
    let run = episode.run();
    let (tenants, trace) = (run.tenants(), run.trace());
    (0..tenants.len())
        .map(|i| 1.0 / trace.models_of(tenants.user(i)).len().max(1) as f64)
        .collect()
}

/// The observation's length for `n` tenants.
pub fn obs_len(n: usize) -> usize {
    n * TENANT_FEATURES + GLOBAL_FEATURES
}

/// Write the observation of `episode` at `point` (`None`: the episode has
/// ended) into `out`, whose length must be [`obs_len`] of the episode's
/// tenant count; `gpus` is the cluster's GPU count, `inv_total` the
/// episode's [`inv_totals`].
pub fn encode(
    episode: &Episode,
    point: Option<&DecisionPoint>,
    gpus: u32,
    inv_total: &[f64],
    out: &mut [f32],
) {
    let run = episode.run();
    let tenants = run.tenants();
    let n = tenants.len();
    debug_assert_eq!(out.len(), obs_len(n));
    // The clock: the pending decision's instant, else the last instant
    // handled (the run's end once it has ended).
    let now = point.map_or_else(|| run.now(), |p| p.now);
    let (mut arrived_count, mut eligible_count) = (0usize, 0usize);
    for (i, f) in out[..n * TENANT_FEATURES]
        .chunks_exact_mut(TENANT_FEATURES)
        .enumerate()
    {
        let arrived = tenants.has_arrived(i);
        let eligible = tenants.is_eligible(i);
        let running = tenants.running(i);
        // total_i: the models available to the tenant's trace user (≥ 1).
        let inv = inv_total[i];
        arrived_count += usize::from(arrived);
        eligible_count += usize::from(eligible);
        // arrived ∈ {0, 1}
        f[0] = f32::from(u8::from(arrived));
        // eligible ∈ {0, 1}: may be picked now (DESIGN §2.3)
        f[1] = f32::from(u8::from(eligible));
        // running: jobs of the tenant running now
        f[2] = running as f32;
        // completed_fraction = completed jobs / total_i
        f[3] = (f64::from(tenants.completed(i)) * inv) as f32;
        // closed_fraction = (total_i − untried_i) / total_i: models started
        // (at their top level), never proposed again
        f[4] = (1.0 - f64::from(tenants.untried(i)) * inv) as f32;
        // best_accuracy = best_i, the highest accuracy completed (0 before)
        f[5] = tenants.best(i) as f32;
        // hours_since_arrival = (now − arrival_i) / 3600 s, 0 before arrival
        f[6] = if arrived {
            (now.saturating_sub(tenants.arrival(i)) as f64 * HOURS_PER_US) as f32
        } else {
            0.0
        };
        // gpu_hours_used = GPU-time of completed and running jobs / 3600 s
        f[7] = (tenants.used(i) as f64 * HOURS_PER_US) as f32;
        // finished ∈ {0, 1}: arrived, nothing running and not eligible, so
        // never eligible again (no untried model, budget or max_jobs
        // spent, left, or waiting with no job to wait for; §2.3, §12.2)
        f[8] = f32::from(u8::from(arrived && running == 0 && !eligible));
    }
    let g = &mut out[n * TENANT_FEATURES..];
    let denom = n.max(1) as f64;
    // clock_hours = now / 3600 s
    g[0] = (now as f64 * HOURS_PER_US) as f32;
    // free_gpus: free GPUs counting the one the decision fills (0 at the end)
    let free = point.map_or(0, |p| p.free_gpus);
    g[1] = free as f32;
    // free_gpu_fraction = free_gpus / G
    g[2] = (f64::from(free) / f64::from(gpus.max(1))) as f32;
    // gpu_type: the type index of the GPU the decision fills (0 untyped / end)
    g[3] = point.map_or(0.0, |p| f32::from(p.gpu_type));
    // arrived_fraction = arrived tenants / N
    g[4] = (arrived_count as f64 / denom) as f32;
    // eligible_fraction = eligible tenants / N
    g[5] = (eligible_count as f64 / denom) as f32;
}
