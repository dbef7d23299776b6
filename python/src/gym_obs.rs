//! The observation of `tenantsim.gym` in model mode (DESIGN §15.3): a
//! fixed-size float32 vector, [`TENANT_FEATURES`] numbers per tenant (in
//! tenant order, the trace's user order) followed by [`GLOBAL_FEATURES`]
//! numbers about the cluster and the clock. Each feature is written by
//! [`encode`] next to its definition; DESIGN §15.3 lists them.

use tenantsim::models::experiment::Episode;
use tenantsim::models::sim::DecisionPoint;
use tenantsim::models::trace::Micros;

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

/// What [`update`] keeps between two calls, besides the observation
/// itself: per tenant whether it was arrived and eligible when last
/// encoded, their counts (the global fractions' numerators), the arrived
/// tenants with their arrival instants as f64 (for `hours_since_arrival`)
/// and the clock those features were written at. Allocated once per
/// environment: no allocation per step.
#[derive(Debug, Clone)]
pub struct Incremental {
    arrived: Vec<bool>,
    eligible: Vec<bool>,
    /// The arrived tenants (an arrived tenant stays arrived), in the order
    /// they were encoded as arrived.
    arrived_list: Vec<u32>,
    /// Per arrived tenant: its arrival instant, µs, as f64 (exact below
    /// 2^53 µs), read when it is first encoded as arrived.
    arrival_us: Vec<f64>,
    arrived_count: usize,
    eligible_count: usize,
    /// `None`: nothing encoded yet, [`update`] writes every tenant.
    clock: Option<Micros>,
}

impl Incremental {
    /// Nothing encoded yet for `n` tenants: the next [`update`] writes the
    /// whole observation.
    pub fn new(n: usize) -> Self {
        Self {
            arrived: vec![false; n],
            eligible: vec![false; n],
            arrived_list: Vec::with_capacity(n),
            arrival_us: vec![0.0; n],
            arrived_count: 0,
            eligible_count: 0,
            clock: None,
        }
    }

    /// Forget what was encoded: the next [`update`] writes everything
    /// (after a reset, or for a buffer other than the last one).
    pub fn invalidate(&mut self) {
        self.clock = None;
    }

    /// Whether the next [`update`] writes everything.
    pub fn is_invalid(&self) -> bool {
        self.clock.is_none()
    }
}

/// The clock of an observation: the pending decision's instant, else the
/// last instant handled (the run's end once it has ended).
fn clock(episode: &Episode, point: Option<&DecisionPoint>) -> Micros {
    point.map_or_else(|| episode.run().now(), |p| p.now)
}

/// hours_since_arrival = (now − arrival_i) / 3600 s, 0 before arrival.
/// `arrival` is `None` only for arrivals drawn as the run goes, which an
/// episode never has (its set-up lists them): 0 then, as before arrival.
fn hours_since(arrived: bool, now: Micros, arrival: Option<Micros>) -> f32 {
    match arrival {
        Some(at) if arrived => (now.saturating_sub(at) as f64 * HOURS_PER_US) as f32,
        _ => 0.0,
    }
}

/// Write tenant `i`'s [`TENANT_FEATURES`] numbers into `f` at clock `now`
/// (`inv` = 1 / total_i); whether it has arrived and is eligible.
fn encode_tenant(
    episode: &Episode,
    i: usize,
    inv: f64,
    now: Micros,
    f: &mut [f32],
) -> (bool, bool) {
    let tenants = episode.run().tenants();
    let arrived = tenants.has_arrived(i);
    let eligible = tenants.is_eligible(i);
    let running = tenants.running(i);
    // arrived ∈ {0, 1}
    f[0] = f32::from(u8::from(arrived));
    // eligible ∈ {0, 1}: may be picked now (DESIGN §2.3)
    f[1] = f32::from(u8::from(eligible));
    // running: jobs of the tenant running now
    f[2] = running as f32;
    // completed_fraction = completed jobs / total_i (total_i: the models
    // available to the tenant's trace user, ≥ 1)
    f[3] = (f64::from(tenants.completed(i)) * inv) as f32;
    // closed_fraction = (total_i − untried_i) / total_i: models started
    // (at their top level), never proposed again
    f[4] = (1.0 - f64::from(tenants.untried(i)) * inv) as f32;
    // best_accuracy = best_i, the highest accuracy completed (0 before)
    f[5] = tenants.best(i) as f32;
    // hours_since_arrival = (now − arrival_i) / 3600 s, 0 before arrival
    f[6] = hours_since(arrived, now, tenants.arrival(i));
    // gpu_hours_used = GPU-time of completed and running jobs / 3600 s
    f[7] = (tenants.used(i) as f64 * HOURS_PER_US) as f32;
    // finished ∈ {0, 1}: arrived, nothing running and not eligible, so
    // never eligible again (no untried model, budget or max_jobs spent,
    // left, or waiting with no job to wait for; §2.3, §12.2)
    f[8] = f32::from(u8::from(arrived && running == 0 && !eligible));
    (arrived, eligible)
}

/// Write the [`GLOBAL_FEATURES`] numbers into `g`: clock `now`, `point`
/// (`None`: ended), `gpus` the cluster's GPU count, `n` tenants of which
/// `arrived` arrived and `eligible` eligible.
fn encode_global(
    g: &mut [f32],
    now: Micros,
    point: Option<&DecisionPoint>,
    gpus: u32,
    n: usize,
    (arrived, eligible): (usize, usize),
) {
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
    g[4] = (arrived as f64 / denom) as f32;
    // eligible_fraction = eligible tenants / N
    g[5] = (eligible as f64 / denom) as f32;
}

/// Write the whole observation of `episode` at `point` (`None`: the
/// episode has ended) into `out`, whose length must be [`obs_len`] of the
/// episode's tenant count; `gpus` is the cluster's GPU count, `inv_total`
/// the episode's [`inv_totals`]. [`update`] gives the same numbers, bit for
/// bit, rewriting only what changed (tested: `python/tests/test_gym.py`).
pub fn encode(
    episode: &Episode,
    point: Option<&DecisionPoint>,
    gpus: u32,
    inv_total: &[f64],
    out: &mut [f32],
) {
    let n = episode.run().tenants().len();
    debug_assert_eq!(out.len(), obs_len(n));
    let now = clock(episode, point);
    let (mut arrived_count, mut eligible_count) = (0usize, 0usize);
    for (i, f) in out[..n * TENANT_FEATURES]
        .chunks_exact_mut(TENANT_FEATURES)
        .enumerate()
    {
        let (a, e) = encode_tenant(episode, i, inv_total[i], now, f);
        arrived_count += usize::from(a);
        eligible_count += usize::from(e);
    }
    let g = &mut out[n * TENANT_FEATURES..];
    encode_global(g, now, point, gpus, n, (arrived_count, eligible_count));
}

/// Bring `out`, the observation [`update`] last wrote with `state`, up to
/// date (the arguments as [`encode`]'s). DESIGN §15.3: a tenant's features
/// other than `hours_since_arrival` change only when its state does, so
/// only the tenants the run lists as touched since the last call
/// ([`Episode::touched`], which must be tracked) are re-encoded; when the
/// clock moved, `hours_since_arrival` is rewritten for every arrived
/// tenant (one store each); the arrived and eligible counts move by the
/// touched tenants' changes; the global features are rewritten. Without a
/// valid `state` ([`Incremental::invalidate`]) the whole observation is
/// written. The caller clears the touched list afterwards.
pub fn update(
    episode: &Episode,
    point: Option<&DecisionPoint>,
    gpus: u32,
    inv_total: &[f64],
    state: &mut Incremental,
    out: &mut [f32],
) {
    let tenants = episode.run().tenants();
    let n = tenants.len();
    debug_assert_eq!(out.len(), obs_len(n));
    let now = clock(episode, point);
    let (body, g) = out.split_at_mut(n * TENANT_FEATURES);
    let full = state.clock.is_none();
    if full {
        state.arrived_count = 0;
        state.eligible_count = 0;
        state.arrived_list.clear();
    }
    let mut touch = |state: &mut Incremental, i: usize| {
        let f = &mut body[i * TENANT_FEATURES..(i + 1) * TENANT_FEATURES];
        let (a, e) = encode_tenant(episode, i, inv_total[i], now, f);
        // Counts move by the tenant's change (0 → 1 or 1 → 0).
        if !full {
            state.arrived_count -= usize::from(state.arrived[i]);
            state.eligible_count -= usize::from(state.eligible[i]);
        }
        state.arrived_count += usize::from(a);
        state.eligible_count += usize::from(e);
        if a && (full || !state.arrived[i]) {
            state.arrived_list.push(i as u32);
            // Its time, known once it has arrived (`Tenants::arrival`).
            state.arrival_us[i] = tenants.arrival(i).map_or(0.0, |at| at as f64);
        }
        state.arrived[i] = a;
        state.eligible[i] = e;
    };
    if full {
        (0..n).for_each(|i| touch(state, i));
    } else {
        for &i in episode.touched() {
            touch(state, i as usize);
        }
        if state.clock != Some(now) {
            // The clock moved: every arrived tenant's hours_since_arrival,
            // (now − arrival_i) / 3600 s. Below 2^53 µs (285 years) both
            // instants are exact f64s and so is their difference
            // (arrival_i ≤ now for an arrived tenant): the same number as
            // `hours_since`'s integer difference, one subtraction, one
            // product and one store a tenant.
            if now < (1u64 << 53) {
                let now_us = now as f64;
                for &i in &state.arrived_list {
                    let i = i as usize;
                    body[i * TENANT_FEATURES + 6] =
                        ((now_us - state.arrival_us[i]) * HOURS_PER_US) as f32;
                }
            } else {
                for &i in &state.arrived_list {
                    let i = i as usize;
                    body[i * TENANT_FEATURES + 6] = hours_since(true, now, tenants.arrival(i));
                }
            }
        }
    }
    state.clock = Some(now);
    let counts = (state.arrived_count, state.eligible_count);
    encode_global(g, now, point, gpus, n, counts);
}
