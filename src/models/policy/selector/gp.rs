//! Gaussian-process model selectors (DESIGN §3): `gp-ucb`, `gp-ucb-cost`,
//! `gp-ei` and `gp-ei-per-second`.
//!
//! Each repetition builds one [`GpPrior`] from its prior users
//! ([`GpPrior::from_trace`]) and gives every tenant a [`TenantPosterior`]
//! over its available models, created at its first completed job (until
//! then the posterior *is* the prior restricted to its models, read straight
//! from the shared prior). A tenant proposes the argmax of the acquisition
//! over its models neither completed nor running, ties by the lowest model
//! index ([`argmax_of`]).
//!
//! The GP math (prior, posterior update, β_t, UCB, UCB_c, EI) lives in
//! [`crate::models::gp`], where each formula is written out with its source.
//!
//! Memory per tenant: a [`TenantPosterior`] (its K_i means and the upper
//! triangle of its `K_i × K_i` covariance, about 2 KB at K_i = 20) once it
//! has completed a job, nothing of size K_i before; plus a cached proposal
//! (about 40 bytes) and an empty posterior slot (48 bytes).
//! `propose` never allocates: it scores the untried models in one pass over
//! the posterior's diagonal and caches its answer until the tenant starts
//! or completes a job.

use std::sync::{Arc, Mutex, Weak};

use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::params::Params;
use crate::core::sim::ActiveTable;
use crate::core::sim::prefetch::prefetch;
use crate::models::gp::{
    GpPrior, Kernel, TenantPosterior, argmax_of, beta, expected_improvement,
    relative_cost_prior_on, runtime_prior_s_on, ucb, ucb_cost,
};
use crate::models::policy::entry::SelectorEntry;
use crate::models::sim::{GpuTypes, PrefetchStep, Proposal, RepContext, Selector, SelectorFactory};
use crate::models::sim::{TenantUsers, Tenants};
use crate::models::trace::{Micros, Trace};

/// The scenario names of this file's selectors.
const UCB: &str = "gp-ucb";
const UCB_COST: &str = "gp-ucb-cost";
const EI: &str = "gp-ei";
const EI_PER_SECOND: &str = "gp-ei-per-second";

/// `gp-ucb`: argmax UCB.
pub fn gp_ucb() -> SelectorEntry {
    SelectorEntry::from_parse(
        UCB,
        "GP-UCB over the tenant's models, prior from the prior users (keys: kernel, variance, lengthscale, noise, delta, beta_scale)",
        parse_ucb,
    )
    .provides_acquisition(true)
    .gp_prior(true)
}

/// `gp-ucb-cost`: argmax cost-aware UCB_c.
pub fn gp_ucb_cost() -> SelectorEntry {
    SelectorEntry::from_parse(
        UCB_COST,
        "cost-aware GP-UCB, μ + √(β/ĉ)σ (keys: as gp-ucb, plus cost_belief)",
        parse_ucb_cost,
    )
    .provides_acquisition(true)
    .gp_prior(true)
}

/// `gp-ei`: argmax expected improvement.
pub fn gp_ei() -> SelectorEntry {
    SelectorEntry::from_parse(
        EI,
        "GP expected improvement over best_i (keys: as gp-ucb, plus xi)",
        parse_ei,
    )
    .provides_acquisition(true)
    .gp_prior(true)
}

/// `gp-ei-per-second`: argmax expected improvement per believed cost.
pub fn gp_ei_per_second() -> SelectorEntry {
    SelectorEntry::from_parse(
        EI_PER_SECOND,
        "GP expected improvement divided by the believed cost ĉ (keys: as gp-ei, plus cost_belief)",
        parse_ei_per_second,
    )
    .provides_acquisition(true)
    .gp_prior(true)
}

/// Default observation noise variance σ_n² (DESIGN §3.3).
pub const DEFAULT_NOISE: f64 = 1e-4;
/// Default δ of β_t (DESIGN §3.4).
pub const DEFAULT_DELTA: f64 = 0.1;
/// Default `beta_scale` s of β_t = s · 2 ln(K t² π² / (6δ)) (DESIGN §3.4): 1,
/// the β_t of Srinivas et al. (2010).
pub const DEFAULT_BETA_SCALE: f64 = 1.0;
/// Default EI margin ξ: 0, the plain expected improvement of Jones et al.
/// (1998).
pub const DEFAULT_XI: f64 = 0.0;

/// Which acquisition a GP selector maximises.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Acquisition {
    /// [`ucb`].
    Ucb,
    /// [`ucb_cost`] with the believed cost.
    UcbCost(CostBelief),
    /// [`expected_improvement`] with margin ξ.
    Ei { xi: f64 },
    /// [`expected_improvement`] / ĉ.
    EiPerSecond { xi: f64, cost: CostBelief },
}

/// Where the believed relative cost ĉ_ik comes from (key `cost_belief`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CostBelief {
    /// `oracle` (default): the tenant's true runtimes, see [`GpSelector::cost`].
    Oracle,
    /// `prior`: [`relative_cost_prior`] of the prior users.
    Prior,
}

/// A GP selector's validated parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
struct GpConfig {
    name: &'static str,
    kernel: Kernel,
    noise: f64,
    delta: f64,
    /// s in β_t = s · 2 ln(K t² π² / (6δ)).
    beta_scale: f64,
    acquisition: Acquisition,
}

fn parse_ucb(params: &mut Params, _trace: &Trace) -> Result<SelectorFactory> {
    let cfg = parse_common(params, UCB, Acquisition::Ucb)?;
    Ok(factory(cfg))
}

fn parse_ucb_cost(params: &mut Params, _trace: &Trace) -> Result<SelectorFactory> {
    let cost = parse_cost_belief(params)?;
    let cfg = parse_common(params, UCB_COST, Acquisition::UcbCost(cost))?;
    Ok(factory(cfg))
}

fn parse_ei(params: &mut Params, _trace: &Trace) -> Result<SelectorFactory> {
    let xi = parse_xi(params)?;
    let cfg = parse_common(params, EI, Acquisition::Ei { xi })?;
    Ok(factory(cfg))
}

fn parse_ei_per_second(params: &mut Params, _trace: &Trace) -> Result<SelectorFactory> {
    let xi = parse_xi(params)?;
    let cost = parse_cost_belief(params)?;
    let acquisition = Acquisition::EiPerSecond { xi, cost };
    let cfg = parse_common(params, EI_PER_SECOND, acquisition)?;
    Ok(factory(cfg))
}

fn parse_cost_belief(params: &mut Params) -> Result<CostBelief> {
    match params.string("cost_belief", "oracle")?.as_str() {
        "oracle" => Ok(CostBelief::Oracle),
        "prior" => Ok(CostBelief::Prior),
        other => Err(params.invalid(
            "cost_belief",
            format!("unknown cost belief `{other}`: expected `oracle` or `prior`"),
        )),
    }
}

fn parse_xi(params: &mut Params) -> Result<f64> {
    let xi = params.f64("xi", DEFAULT_XI)?;
    if !(xi.is_finite() && xi >= 0.0) {
        return Err(params.invalid(
            "xi",
            format!("expected the EI margin ξ, a finite number >= 0, got {xi}"),
        ));
    }
    Ok(xi)
}

/// The keys every GP selector takes: `kernel` (default `rbf`), `variance`,
/// `lengthscale` (for `rbf` each defaults to its data-driven value of DESIGN
/// §3.2, computed per repetition from its prior users), `noise`, `delta`,
/// `beta_scale`.
fn parse_common(
    params: &mut Params,
    name: &'static str,
    acquisition: Acquisition,
) -> Result<GpConfig> {
    let kernel_name = params.string("kernel", "rbf")?;
    let variance = params.opt_f64("variance")?;
    let lengthscale = params.opt_f64("lengthscale")?;
    let check_variance = |params: &Params, v: f64| {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(params.invalid(
                "variance",
                format!("expected the kernel variance v, a finite number >= 0, got {v}"),
            ))
        }
    };
    let kernel = match kernel_name.as_str() {
        "empirical" => {
            for (key, value) in [("variance", variance), ("lengthscale", lengthscale)] {
                if value.is_some() {
                    return Err(params.invalid(
                        key,
                        "applies to kernel `rbf` (and `variance` to `flat`), not to `empirical`",
                    ));
                }
            }
            Kernel::Empirical
        }
        "rbf" => {
            let variance = variance.map(|v| check_variance(params, v)).transpose()?;
            if let Some(l) = lengthscale
                && !(l.is_finite() && l > 0.0)
            {
                return Err(params.invalid(
                    "lengthscale",
                    format!("expected the kernel lengthscale ℓ, a finite number > 0, got {l}"),
                ));
            }
            Kernel::Rbf {
                variance,
                lengthscale,
            }
        }
        "flat" => {
            if lengthscale.is_some() {
                return Err(params.invalid("lengthscale", "applies to kernel `rbf`, not `flat`"));
            }
            let variance = variance.map(|v| check_variance(params, v)).transpose()?;
            Kernel::Flat { variance }
        }
        other => {
            return Err(params.invalid(
                "kernel",
                format!("unknown kernel `{other}`: expected one of empirical, rbf, flat"),
            ));
        }
    };
    let noise = params.f64("noise", DEFAULT_NOISE)?;
    if !(noise.is_finite() && noise >= 0.0) {
        return Err(params.invalid(
            "noise",
            format!(
                "expected the observation noise variance σ_n², a finite number >= 0, got {noise}"
            ),
        ));
    }
    let delta = params.f64("delta", DEFAULT_DELTA)?;
    if !(delta > 0.0 && delta < 1.0) {
        return Err(params.invalid(
            "delta",
            format!("expected the confidence δ of β_t strictly between 0 and 1, got {delta}"),
        ));
    }
    let beta_scale = params.f64("beta_scale", DEFAULT_BETA_SCALE)?;
    if !(beta_scale.is_finite() && beta_scale >= 0.0) {
        return Err(params.invalid(
            "beta_scale",
            format!(
                "expected the scale s of β_t = s·2 ln(K t² π² / 6δ), a finite number >= 0 (0 = exploit the posterior mean), got {beta_scale}"
            ),
        ));
    }
    Ok(GpConfig {
        name,
        kernel,
        noise,
        delta,
        beta_scale,
        acquisition,
    })
}

fn factory(cfg: GpConfig) -> SelectorFactory {
    let cache = PriorCache::default();
    Arc::new(move |ctx: &RepContext<'_>| {
        Ok(Box::new(GpSelector::with_cache(cfg, ctx, &cache)?) as Box<dyn Selector>)
    })
}

/// How many (trace, prior users) pairs a factory remembers the prior of:
/// enough for the repetitions in flight on a few threads (more threads only
/// mean some rebuilds), and at most 8 priors of K² values alive per policy.
const PRIOR_CACHE_ENTRIES: usize = 8;

/// The GP priors (and `prior` cost beliefs) one factory has built, by trace
/// and prior users, most recently used first. A repetition builds its
/// selector once for the run and, with `fairness`, once more per tenant for
/// its isolated run, always from the same prior users: those builds reuse
/// the first prior instead of recomputing it (O(K² m) for m prior users).
/// A prior is a pure function of the trace, the prior users and the
/// factory's kernel, so a cached one is the very value a fresh build gives.
#[derive(Debug, Default)]
struct PriorCache {
    entries: Mutex<Vec<PriorEntry>>,
}

#[derive(Debug)]
struct PriorEntry {
    /// The trace (weak: it keeps the allocation, so no other trace can take
    /// its address while the entry lives).
    trace: Weak<Trace>,
    /// The cluster's types and runtimes (weak, for the same reason).
    gpu_types: Weak<GpuTypes>,
    prior_users: Box<[usize]>,
    prior: Arc<GpPrior>,
    costs: Option<PriorCosts>,
}

/// The `prior` cost beliefs per (GPU type, trace model), at `t * K + k`:
/// relative cost ĉ ([`relative_cost_prior_on`]) and runtime in seconds ĉˢ
/// ([`runtime_prior_s_on`]), from the prior users' runtimes on that type.
#[derive(Debug, Clone)]
struct PriorCosts {
    relative: Arc<[f64]>,
    seconds: Arc<[f64]>,
}

impl PriorEntry {
    fn matches(&self, ctx: &RepContext<'_>) -> bool {
        std::ptr::eq(self.trace.as_ptr(), Arc::as_ptr(ctx.trace))
            && std::ptr::eq(self.gpu_types.as_ptr(), Arc::as_ptr(ctx.gpu_types))
            && *self.prior_users == *ctx.prior
    }
}

/// A prior and, for `cost_belief = "prior"`, the prior cost beliefs.
type PriorParts = (Arc<GpPrior>, Option<PriorCosts>);

impl PriorCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PriorEntry>> {
        // A panic elsewhere cannot leave the list inconsistent.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The prior of `ctx`'s prior users, built by `build` unless cached.
    fn get_or_build(
        &self,
        ctx: &RepContext<'_>,
        build: impl FnOnce() -> Result<PriorParts>,
    ) -> Result<PriorParts> {
        {
            let mut entries = self.lock();
            if let Some(at) = entries.iter().position(|e| e.matches(ctx)) {
                let hit = entries.remove(at);
                let parts = (Arc::clone(&hit.prior), hit.costs.clone());
                entries.insert(0, hit);
                return Ok(parts);
            }
        }
        // Built outside the lock, so threads do not wait on each other.
        let (prior, costs) = build()?;
        let mut entries = self.lock();
        if !entries.iter().any(|e| e.matches(ctx)) {
            entries.insert(
                0,
                PriorEntry {
                    trace: Arc::downgrade(ctx.trace),
                    gpu_types: Arc::downgrade(ctx.gpu_types),
                    prior_users: ctx.prior.into(),
                    prior: Arc::clone(&prior),
                    costs: costs.clone(),
                },
            );
            entries.truncate(PRIOR_CACHE_ENTRIES);
        }
        Ok((prior, costs))
    }
}

/// Cost data behind the believed relative cost ĉ_ik.
#[derive(Debug, Clone)]
enum CostData {
    /// Cost-oblivious: ĉ = ĉˢ = 1.
    None,
    /// The tenant's own runtimes ([`GpSelector::oracle_mean`]).
    Oracle,
    /// Cost beliefs per (GPU type, trace model) from the prior users.
    Prior(PriorCosts),
}

/// One repetition's GP selector.
#[derive(Debug, Clone)]
struct GpSelector {
    cfg: GpConfig,
    trace: Arc<Trace>,
    /// The cluster's GPU types and the runtimes on each.
    types: Arc<GpuTypes>,
    prior: Arc<GpPrior>,
    /// √(max(Σ[k,k], 0)) of the prior per trace model.
    prior_sd: Box<[f64]>,
    /// `0..K`: the model list of every tenant that has all K trace models.
    all_models: Box<[usize]>,
    cost: CostData,
    /// Each tenant's models in the trace.
    lists: TenantLists,
    /// Per active tenant: its posterior and cached proposal, side by side
    /// (one slot, so a decision about a tenant reads adjacent cache lines
    /// rather than one line in each of two arrays: at 10^6 tenants each
    /// is a miss; docs/PERFORMANCE.md "Internet scale"). A tenant holds a
    /// slot from its first proposal or completion until it holds neither
    /// (its last model completed, or started with no posterior yet): 4
    /// bytes a tenant otherwise (DESIGN §3.3 "Lifetime").
    slots: ActiveTable<TenantSlot>,
}

/// Where [`GpSelector`] finds a tenant's models in the trace.
#[derive(Debug, Clone)]
enum TenantLists {
    /// Every trace user has the same list ([`Trace::shared_models`]: a
    /// generated trace): no trace user is kept per tenant (8 bytes for
    /// each of scale-year's 10^7 tenants; docs/PERFORMANCE.md "Internet
    /// scale").
    Shared(Arc<[usize]>),
    /// The trace user of each tenant, whose list the trace holds.
    PerTenant(TenantUsers),
}

/// The selector's state of one tenant.
#[derive(Debug, Clone, Default)]
struct TenantSlot {
    /// Its posterior, created at its first completed job.
    posterior: Option<TenantPosterior>,
    /// Its proposal and the GPU type it was made for, until the tenant
    /// starts or completes a job (a decision for another type recomputes
    /// it).
    cache: Option<(GpuType, Proposal)>,
}

impl GpSelector {
    #[cfg(test)]
    fn new(cfg: GpConfig, ctx: &RepContext<'_>) -> Result<Self> {
        Self::with_cache(cfg, ctx, &PriorCache::default())
    }

    fn with_cache(cfg: GpConfig, ctx: &RepContext<'_>, cache: &PriorCache) -> Result<Self> {
        let trace = ctx.trace;
        if ctx.prior.is_empty() {
            return Err(Error::input(format!(
                "selector `{}` builds its GP prior from the prior users, but there are none: \
                 give `prior`, `prior_fraction` or `prior_count` in [split]",
                cfg.name
            )));
        }
        let context = |e: Error| e.context(format!("selector `{}`", cfg.name));
        let belief = match cfg.acquisition {
            Acquisition::Ucb | Acquisition::Ei { .. } => None,
            Acquisition::UcbCost(c) | Acquisition::EiPerSecond { cost: c, .. } => Some(c),
        };
        let (prior, costs) = cache
            .get_or_build(ctx, || {
                let prior = GpPrior::from_trace(trace, ctx.prior, cfg.kernel)?;
                let costs = match belief {
                    Some(CostBelief::Prior) => {
                        let (mut relative, mut seconds) = (Vec::new(), Vec::new());
                        for t in 0..ctx.gpu_types.n_types() {
                            let types = ctx.gpu_types;
                            let m = |u, k| types.runtime_us(trace, t as GpuType, u, k);
                            relative.extend(relative_cost_prior_on(trace, m, ctx.prior)?);
                            seconds.extend(runtime_prior_s_on(trace, m, ctx.prior)?);
                        }
                        Some(PriorCosts {
                            relative: relative.into(),
                            seconds: seconds.into(),
                        })
                    }
                    _ => None,
                };
                Ok((Arc::new(prior), costs))
            })
            .map_err(context)?;
        let cost = match (belief, costs) {
            (None, _) => CostData::None,
            (Some(CostBelief::Prior), Some(costs)) => CostData::Prior(costs),
            (Some(CostBelief::Prior), None) => {
                return Err(Error::input("internal: no prior cost belief was built"));
            }
            (Some(CostBelief::Oracle), _) => CostData::Oracle,
        };
        // Fail here, not later inside `observe`, if a posterior could not be
        // built (it cannot after the checks above; this keeps it so).
        if let Some(u) = ctx.tenants.first() {
            TenantPosterior::new(&prior, trace.models_of(u), cfg.noise).map_err(context)?;
        }
        Ok(Self {
            cfg,
            trace: Arc::clone(trace),
            types: Arc::clone(ctx.gpu_types),
            all_models: (0..trace.n_models()).collect(),
            prior_sd: (0..prior.n_models())
                .map(|k| prior.cov()[[k, k]].max(0.0).sqrt())
                .collect(),
            prior,
            cost,
            lists: match trace.shared_models() {
                Some(list) => TenantLists::Shared(Arc::clone(list)),
                None => TenantLists::PerTenant(ctx.tenants.clone()),
            },
            slots: ActiveTable::new(ctx.tenants.len()),
        })
    }

    /// The believed relative cost ĉ_ik of trace model `k` for tenant `i`
    /// (trace user `u`) on GPU type `t`, `cost_belief`, with c_t the
    /// runtimes on type t ([`GpuTypes::runtime_us`]; the trace's on an
    /// untyped cluster):
    /// - `oracle` (DESIGN §3.6): ĉ_ik = c_t[i,k] / ((1/K_i) Σ_l c_t[i,l]),
    ///   the sum over i's K_i available models in index order, runtimes in
    ///   µs as rounded at load (DESIGN §7);
    /// - `prior`: the prior users' mean relative cost of k on type t
    ///   ([`relative_cost_prior_on`]);
    /// - 1 for cost-oblivious selectors.
    ///
    /// Source: Li et al., PVLDB 11(5) 2018 (arXiv 1708.07308), the cost
    /// model of ease.ml's cost-aware GP-UCB.
    ///
    /// `runtimes` is the tenant's row c_t[i,·] and `mean` its
    /// [`Self::oracle_mean`] (read by `oracle` only).
    fn cost(&self, runtimes: &[Micros], mean: f64, k: usize, t: GpuType) -> f64 {
        match &self.cost {
            CostData::None => 1.0,
            CostData::Oracle => runtimes[k] as f64 / mean,
            CostData::Prior(costs) => costs.relative[usize::from(t) * self.trace.n_models() + k],
        }
    }

    /// `oracle`'s denominator for tenant (trace user) `u` whose runtimes
    /// on the decision's GPU type are `runtimes`: (1/K_i) Σ_l c_t[i,l],
    /// the sum over its K_i available models in index order. Computed from
    /// the row each proposal reads anyway, not held per tenant: holding it
    /// cost 8 bytes a tenant and a pass producing every tenant's row at the
    /// start (issue 34; the same sum, so the same bits).
    fn oracle_mean(&self, u: usize, runtimes: &[Micros]) -> f64 {
        // The whole row in index order, without a lookup per model: a
        // missing model's runtime is 0, and adding +0.0 leaves a sum of
        // non-negative terms bit for bit, so this is the sum over the K_i
        // available models.
        let total: f64 = runtimes.iter().map(|&r| r as f64).sum();
        total / self.trace.models_of(u).len() as f64
    }

    /// The believed runtime ĉˢ_ik in seconds of trace model `k` for tenant
    /// (trace user) `u` on GPU type `t` (DESIGN §3.6, §11.4), `cost_belief`:
    /// - `oracle`: c_t[i,k], the tenant's runtime on type t (µs as rounded
    ///   at load / 10⁶);
    /// - `prior`: the prior users' mean runtime of k on type t
    ///   ([`runtime_prior_s_on`]);
    /// - 1 for cost-oblivious selectors (they believe every cost is 1).
    ///
    /// `runtimes` is the tenant's row c_t[i,·] (read by `oracle` only).
    fn seconds(&self, runtimes: &[Micros], k: usize, t: GpuType) -> f64 {
        match &self.cost {
            CostData::None => 1.0,
            CostData::Oracle => runtimes[k] as f64 / 1e6,
            CostData::Prior(costs) => costs.seconds[usize::from(t) * self.trace.n_models() + k],
        }
    }

    /// Tenant `i`'s available models (trace user `u`), ascending. A tenant
    /// with a posterior and all K trace models uses the shared `0..K`, so a
    /// decision about it reads no per-tenant model list (at 100,000 tenants
    /// each such read is a cache miss); the others read the trace's list.
    fn models_of(&self, i: usize, u: usize) -> &[usize] {
        match self.posterior(i) {
            Some(p) if p.n_models() == self.all_models.len() => &self.all_models,
            _ => self.trace.models_of(u),
        }
    }

    /// Score the tenant's untried models and return the best (no
    /// allocation). With β = β_t ([`beta`], t = completed jobs + 1, K = K_i),
    /// μ, σ the posterior mean and standard deviation of the model (variance
    /// clamped at ≥ 0; before the tenant's first completion, the prior's m_k
    /// and √Σ[k,k], which is what a fresh [`TenantPosterior`] holds) and ĉ
    /// from [`Self::cost`], the acquisition of a model is
    /// - `gp-ucb`: `ucb(μ, σ, β)` ([`ucb`]);
    /// - `gp-ucb-cost`: `ucb_cost(μ, σ, β, ĉ)` ([`ucb_cost`]);
    /// - `gp-ei`: `expected_improvement(μ, σ, best_i, ξ)`
    ///   ([`expected_improvement`]);
    /// - `gp-ei-per-second`: EI / ĉ, expected improvement per believed
    ///   second (Snoek, Larochelle, Adams, "Practical Bayesian Optimization
    ///   of Machine Learning Algorithms", NeurIPS 2012, §3.2).
    ///
    /// The proposal is the [`argmax_of`] of it over the models neither
    /// completed nor running (ties: lowest model index), carrying that
    /// value, ĉ (1 for cost-oblivious selectors) and √β σ.
    fn compute(&self, tenants: &Tenants, i: usize) -> Option<Proposal> {
        let u = tenants.user(i);
        let t = tenants.gpu_type();
        let models = self.models_of(i, u);
        let n = models.len();
        // β_t = s · 2 ln(K_i t² π² / (6δ)) (DESIGN §3.4): `beta_scale` s times
        // Srinivas et al.'s β_t; s = 0 leaves the posterior mean alone.
        let b = self.cfg.beta_scale * beta(n, tenants.completed(i) as usize + 1, self.cfg.delta);
        let best = tenants.best(i);
        // `Self::cost` with what it looks up hoisted out of the loop over
        // models (same arithmetic): the tenant's runtime row read once.
        let scored = self.types.with_runtimes_us(&self.trace, t, u, |runtimes| {
            let mean = match self.cost {
                CostData::Oracle => self.oracle_mean(u, runtimes),
                CostData::None | CostData::Prior(_) => f64::NAN,
            };
            let cost = |k: usize| self.cost(runtimes, mean, k, t);
            // One loop per acquisition (the match hoisted out of the loop over
            // models, so each loop is a few instructions per model).
            let scored = match self.cfg.acquisition {
                Acquisition::Ucb => {
                    self.best_model(tenants, i, models, |_, mu, sigma| ucb(mu, sigma, b))
                }
                Acquisition::UcbCost(_) => self.best_model(tenants, i, models, |k, mu, sigma| {
                    ucb_cost(mu, sigma, b, cost(k))
                }),
                Acquisition::Ei { xi } => self.best_model(tenants, i, models, |_, mu, sigma| {
                    expected_improvement(mu, sigma, best, xi)
                }),
                Acquisition::EiPerSecond { xi, .. } => {
                    self.best_model(tenants, i, models, |k, mu, sigma| {
                        expected_improvement(mu, sigma, best, xi) / cost(k)
                    })
                }
            };
            // The winner's ĉ and ĉˢ, from the same row.
            scored.map(|(j, value, mu_sigma)| {
                let k = models[j];
                (j, value, mu_sigma, cost(k), self.seconds(runtimes, k, t))
            })
        });
        let (j, value, (mu, sigma), believed_cost, believed_seconds) = scored?;
        let k = models[j];
        // For the EI selectors the gain of DESIGN §4.3 is the EI itself (not
        // divided by ĉ); the UCB selectors leave it to the scheduler (a − best).
        let gain = match self.cfg.acquisition {
            Acquisition::Ucb | Acquisition::UcbCost(_) => None,
            Acquisition::Ei { xi } | Acquisition::EiPerSecond { xi, .. } => {
                Some(expected_improvement(mu, sigma, best, xi))
            }
        };
        Some(Proposal {
            model: k,
            acquisition: value,
            gain,
            believed_cost,
            believed_seconds,
            bonus: Some(b.sqrt() * sigma),
            level: None,
        })
    }

    /// The [`argmax_of`] of `acquisition(k, μ, σ)` over tenant `i`'s
    /// models `models` (trace indices k) neither completed nor running,
    /// with the winner's μ and σ: the posterior's diagonal read in one
    /// pass ([`TenantPosterior::diagonal`], σ = √max(Σ[j,j], 0)), or before
    /// the tenant's first completion the prior's m_k and √max(Σ[k,k], 0),
    /// which is what a fresh [`TenantPosterior`] holds.
    fn best_model(
        &self,
        tenants: &Tenants,
        i: usize,
        models: &[usize],
        acquisition: impl Fn(usize, f64, f64) -> f64,
    ) -> Option<(usize, f64, (f64, f64))> {
        // The tenant's flags found once, not for every model.
        let tried = tenants.tried(i);
        let score = |k: usize, mu: f64, sigma: f64| {
            (!tried.contains(k)).then(|| (acquisition(k, mu, sigma), (mu, sigma)))
        };
        match self.posterior(i) {
            Some(p) => argmax_of(
                models
                    .iter()
                    .zip(p.diagonal())
                    .map(|(&k, (mu, var))| score(k, mu, var.max(0.0).sqrt())),
            ),
            None => argmax_of(
                models
                    .iter()
                    .map(|&k| score(k, self.prior.mean()[k], self.prior_sd[k])),
            ),
        }
    }

    fn cached(&mut self, tenants: &Tenants, i: usize) -> Option<Proposal> {
        let t = tenants.gpu_type();
        if let Some((for_type, c)) = self.slots.get(i).and_then(|s| s.cache)
            && for_type == t
        {
            return Some(c);
        }
        let c = self.compute(tenants, i)?;
        self.slots.get_or_insert(i).cache = Some((t, c));
        Some(c)
    }

    /// Tenant `i`'s posterior, from its first completed job until its
    /// last model's.
    fn posterior(&self, i: usize) -> Option<&TenantPosterior> {
        self.slots.get(i).and_then(|s| s.posterior.as_ref())
    }

    /// Tenant `i` forgets its cached proposal (it started or completed a
    /// job).
    fn forget_proposal(&mut self, i: usize) {
        if let Some(s) = self.slots.get_mut(i) {
            s.cache = None;
        }
    }

    /// Tenant `i`'s slot goes back to the table once it holds neither a
    /// posterior nor a proposal (DESIGN §3.3 "Lifetime").
    fn release_if_empty(&mut self, i: usize) {
        if self
            .slots
            .get(i)
            .is_some_and(|s| s.posterior.is_none() && s.cache.is_none())
        {
            self.slots.release(i);
        }
    }

    /// Tenant `i`'s models in the trace, the list itself (shared, not
    /// copied): the one every user shares, or its trace user's.
    fn list_of(&self, i: usize) -> &Arc<[usize]> {
        match &self.lists {
            TenantLists::Shared(list) => list,
            TenantLists::PerTenant(users) => self.trace.models_of_shared(users.user(i)),
        }
    }

    /// Tenant `i`'s job on trace model `model` completed with `accuracy`:
    /// its posterior (created at its first completion) observes it.
    fn update_posterior(&mut self, tenant: usize, model: usize, accuracy: f64) {
        // The posterior's models are the tenant's models in the trace (the
        // list `compute` reads next; not the posterior's own copy).
        let models: &[usize] = match self.posterior(tenant) {
            Some(p) if p.n_models() == self.all_models.len() => &self.all_models,
            _ => self.list_of(tenant),
        };
        let Ok(j) = models.binary_search(&model) else {
            return;
        };
        // The trace's list itself for a new posterior: the same models.
        let fresh = self
            .posterior(tenant)
            .is_none()
            .then(|| Arc::clone(self.list_of(tenant)));
        let slot = self.slots.get_or_insert(tenant);
        if let Some(shared) = fresh {
            match TenantPosterior::with_models(&self.prior, shared, self.cfg.noise) {
                Ok(p) => slot.posterior = Some(p),
                // Unreachable: `new` checked these arguments (same prior,
                // same noise, models of the same trace).
                Err(_) => return,
            }
        }
        // Each pair runs once and only untried models are scored, so the
        // cheaper update that stops tracking observed models gives the same
        // proposals.
        if let Some(p) = slot.posterior.as_mut() {
            p.observe_once(j, accuracy);
            // Every model of the tenant is observed: nothing is scored for
            // it again (only untried models are, and each pair runs once),
            // so its posterior (2 KB at K = 20) is released now rather than
            // at the end of the run (issue 34: memory by active tenants).
            if p.n_observed() == p.n_models() {
                slot.posterior = None;
            }
        }
    }
}

impl Selector for GpSelector {
    fn fork(&self) -> Result<Box<dyn Selector>> {
        Ok(Box::new(self.clone()))
    }

    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        Ok(self.cached(tenants, tenant))
    }

    /// `observe` reads the tenant's user (unless every user shares one
    /// list), its slot number, its slot and its posterior's numbers, in
    /// that order of dependence.
    fn prefetch(&self, tenant: usize, step: PrefetchStep) {
        match step {
            PrefetchStep::Index => {
                if let TenantLists::PerTenant(users) = &self.lists
                    && let Some(u) = users.as_slice().and_then(|l| l.get(tenant))
                {
                    prefetch(u);
                }
                self.slots.prefetch_slot(tenant);
            }
            PrefetchStep::Record => self.slots.prefetch_value(tenant),
            PrefetchStep::Data => {
                if let Some(p) = self.posterior(tenant) {
                    p.prefetch();
                }
            }
        }
    }

    fn started(&mut self, tenant: usize, _model: usize) -> Result<()> {
        self.forget_proposal(tenant);
        self.release_if_empty(tenant);
        Ok(())
    }

    fn observe(&mut self, tenant: usize, model: usize, accuracy: f64) -> Result<()> {
        self.forget_proposal(tenant);
        self.update_posterior(tenant, model, accuracy);
        self.release_if_empty(tenant);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This file's registry entries.
    fn entries() -> [SelectorEntry; 4] {
        [gp_ucb(), gp_ucb_cost(), gp_ei(), gp_ei_per_second()]
    }
    use crate::models::policy::scheduler::greedy::Score;
    use crate::models::sim::Scheduler;
    use crate::models::sim::{SimConfig, SimInput, simulate};
    use crate::models::trace::parse_trace;

    /// The memory estimate counts 136 bytes a tenant for its slot and 4
    /// for its slot number (models/scenario/footprint.rs, DESIGN §8.5), and
    /// the posterior's numbers separately.
    #[test]
    fn a_tenant_slot_fits_the_memory_estimates_136_bytes() {
        assert!(
            size_of::<TenantSlot>() <= 136,
            "{}",
            size_of::<TenantSlot>()
        );
    }

    /// Prior users p1..p3 and one tenant t over models a, b, c.
    ///
    /// ```text
    ///        accuracy         runtime (s)
    ///        a    b    c      a  b  c
    /// p1    0.5  0.7  0.6     1  2  3
    /// p2    0.7  0.9  0.6     2  2  2
    /// p3    0.6  0.5  0.6     1  1  1
    /// t     0.9  0.6  0.65    1  8  3
    /// ```
    ///
    /// Prior (empirical): m = (0.6, 0.7, 0.6); deviations p1 (−0.1, 0, 0),
    /// p2 (0.1, 0.2, 0), p3 (0, −0.2, 0), so Σ[a,a] = 0.02/3,
    /// Σ[b,b] = 0.08/3, Σ[a,b] = 0.02/3 and every entry with c is 0:
    /// σ_a = 0.0816496581, σ_b = 0.1632993162, σ_c = 0.
    ///
    /// Cost beliefs for t: oracle: mean runtime (1+8+3)/3 = 4, so
    /// ĉ = (0.25, 2, 0.75); prior: p1 (0.5, 1, 1.5), p2 and p3 (1, 1, 1), so
    /// ĉ = (2.5/3, 1, 3.5/3).
    ///
    /// β_t with K = 3, δ = 0.1: β_1 = 2 ln(3·π²/0.6) = 2 ln(49.3480220054)
    /// = 7.7977953683, β_2 = 2 ln(4·49.348…) = 10.5703840906,
    /// β_3 = 2 ln(9·49.348…) = 12.1922445229.
    fn tiny() -> Arc<Trace> {
        let csv = "user,model,accuracy,runtime_s\n\
                   p1,a,0.5,1\np1,b,0.7,2\np1,c,0.6,3\n\
                   p2,a,0.7,2\np2,b,0.9,2\np2,c,0.6,2\n\
                   p3,a,0.6,1\np3,b,0.5,1\np3,c,0.6,1\n\
                   t,a,0.9,1\nt,b,0.6,8\nt,c,0.65,3\n";
        match parse_trace("tiny", csv.as_bytes()) {
            Ok(t) => Arc::new(t),
            Err(e) => panic!("{e}"),
        }
    }

    /// What the recording scheduler saw at one decision.
    #[derive(Debug, Clone, Copy)]
    struct Seen {
        proposal: Proposal,
        /// `greedy`'s `per-relative-cost` score (the pre-1.x semantics).
        score: f64,
        /// `greedy`'s default `per-second` score.
        per_second: f64,
        bonus: f64,
    }

    /// Serves the lowest eligible tenant and records the selector's view.
    #[derive(Debug, Default)]
    struct Recorder {
        seen: Vec<Seen>,
    }

    impl Scheduler for Recorder {
        fn pick(
            &mut self,
            tenants: &Tenants,
            selector: &mut dyn Selector,
        ) -> Result<Option<usize>> {
            let Some(i) = (0..tenants.len()).find(|&i| tenants.is_eligible(i)) else {
                return Ok(None);
            };
            let Some(proposal) = selector.propose(tenants, i)? else {
                return Ok(None);
            };
            let score = Score::PerRelativeCost.of(&proposal, tenants.best(i));
            let per_second = Score::PerSecond.of(&proposal, tenants.best(i));
            let bonus = proposal.bonus.unwrap_or(f64::NAN);
            self.seen.push(Seen {
                proposal,
                score,
                per_second,
                bonus,
            });
            Ok(Some(i))
        }
    }

    fn params(pairs: &[(&str, toml::Value)]) -> Params {
        let map = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect();
        Params::new("test", map)
    }

    /// Run `selector` with `pairs` on tenant t alone, one GPU, with
    /// `kernel = "empirical"` named explicitly unless `pairs` names a kernel
    /// (the hand computations of [`tiny`] are of that kernel).
    fn run(selector: &str, pairs: &[(&str, toml::Value)]) -> Vec<Seen> {
        run_on(tiny(), selector, pairs)
    }

    /// [`run`] on `trace` (prior users 0..3, tenant user 3).
    fn run_on(trace: Arc<Trace>, selector: &str, pairs: &[(&str, toml::Value)]) -> Vec<Seen> {
        let Some(spec) = entries().into_iter().find(|e| e.name == selector) else {
            panic!("no selector {selector}")
        };
        let mut pairs = pairs.to_vec();
        if !pairs.iter().any(|(k, _)| *k == "kernel") {
            pairs.push(("kernel", "empirical".into()));
        }
        let mut p = params(&pairs);
        let make = match (spec.parse)(&mut p, &trace) {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        };
        if let Err(e) = p.finish(selector) {
            panic!("{e}");
        }
        let (prior, tenants) = ([0, 1, 2], [3]);
        let ctx = RepContext {
            trace: &trace,
            gpu_types: &Arc::new(GpuTypes::untyped(1)),
            tenants: &TenantUsers::list(&tenants),
            prior: &prior,
            seed: 0,
            repetition: 0,
        };
        let mut sel = match make(&ctx) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        let mut rec = Recorder::default();
        let input = SimInput {
            trace: &trace,
            tenants: &TenantUsers::list(&tenants),
            arrivals: &[0],
            gpu_types: &GpuTypes::untyped(1),
            config: SimConfig {
                gpus: 1,
                max_jobs_per_tenant: 1,
                horizon: None,
                ..SimConfig::default()
            },
        };
        if let Err(e) = simulate(&input, &mut rec, sel.as_mut()) {
            panic!("{e}");
        }
        rec.seen
    }

    fn close(got: f64, want: f64) -> bool {
        (got - want).abs() <= 1e-12
    }

    fn check(seen: &Seen, model: usize, acquisition: f64, cost: f64, score: f64, bonus: f64) {
        let p = seen.proposal;
        assert_eq!(p.model, model, "{seen:?}");
        assert!(
            close(p.acquisition, acquisition),
            "{seen:?}: a ≠ {acquisition}"
        );
        assert!(close(p.believed_cost, cost), "{seen:?}: ĉ ≠ {cost}");
        assert!(close(seen.score, score), "{seen:?}: score ≠ {score}");
        assert!(close(seen.bonus, bonus), "{seen:?}: bonus ≠ {bonus}");
    }

    #[test]
    fn gp_ucb_by_hand_over_three_steps() {
        let seen = run("gp-ucb", &[]);
        assert_eq!(seen.len(), 3);
        // Step 1 (t = 1, best 0), √β_1 = 2.7924532885:
        //   UCB_a = 0.6 + 2.7924532885·0.0816496581 = 0.8280028562
        //   UCB_b = 0.7 + 2.7924532885·0.1632993162 = 1.1560057125  ← max
        //   UCB_c = 0.6 + 0 = 0.6
        // greedy score = UCB_b − 0 = 1.1560057125; √β σ_b = 0.4560057125.
        check(
            &seen[0],
            1,
            1.156_005_712_486_610_5,
            1.0,
            1.156_005_712_486_610_5,
            0.456_005_712_486_610_5,
        );
        // b completes with y = 0.6 (σ_n² = 1e-4):
        //   s = 0.08/3 + 1e-4 = 0.0267666667; gain = (0.6 − 0.7)/s = −3.7359900374
        //   μ_a = 0.6 + (0.02/3)(−3.7359900374) = 0.5750933998
        //   σ²_a = 0.02/3 − (0.02/3)²/s = 0.0050062267; σ_a = 0.0707546936
        //   μ_c = 0.6, σ_c = 0 (no covariance with b).
        // Step 2 (t = 2, best 0.6), √β_2 = 3.2512127660:
        //   UCB_a = 0.5750933998 + 3.2512127660·0.0707546936 = 0.8051319586  ← max
        //   UCB_c = 0.6
        // score = 0.8051319586 − 0.6 = 0.2051319586; √β σ_a = 0.2300385588.
        check(
            &seen[1],
            0,
            0.805_131_958_552_025_6,
            1.0,
            0.205_131_958_552_025_6,
            0.230_038_558_801_091_56,
        );
        // a completes with 0.9; c has zero prior variance and zero covariance
        // with a and b, so μ_c = 0.6, σ_c = 0 still. Step 3 (t = 3, best 0.9):
        //   UCB_c = 0.6; score = 0.6 − 0.9 = −0.3; bonus 0.
        check(&seen[2], 2, 0.6, 1.0, -0.3, 0.0);
    }

    /// `beta_scale = 0` is pure exploitation of the posterior mean: at step 2
    /// of [`gp_ucb_by_hand_over_three_steps`] UCB picks a (0.8051) but the
    /// mean prefers c (μ_c = 0.6 > μ_a = 0.5750933998).
    #[test]
    fn beta_scale_zero_exploits_the_posterior_mean() {
        let seen = run("gp-ucb", &[("beta_scale", 0.0.into())]);
        // Step 1: μ = (0.6, 0.7, 0.6) → b, acquisition = μ_b, no bonus.
        check(&seen[0], 1, 0.7, 1.0, 0.7, 0.0);
        // Step 2 (b = 0.6 observed): μ_a = 0.5750933998, μ_c = 0.6 → c.
        check(&seen[1], 2, 0.6, 1.0, 0.0, 0.0);
        // s = 0.25 (√s = 0.5): UCB_a = 0.5750933998 + 0.5·0.2300385588
        // = 0.6901126792 > 0.6 → a again, with half the bonus.
        let quarter = run("gp-ucb", &[("beta_scale", 0.25.into())]);
        let mu_a = 0.805_131_958_552_025_6 - 0.230_038_558_801_091_56;
        let half_bonus = 0.5 * 0.230_038_558_801_091_56;
        check(
            &quarter[1],
            0,
            mu_a + half_bonus,
            1.0,
            mu_a + half_bonus - 0.6,
            half_bonus,
        );
    }

    #[test]
    fn beta_scale_out_of_domain_is_a_scenario_error() {
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let mut p = params(&[("beta_scale", bad.into())]);
            let got = (gp_ucb().parse)(&mut p, &tiny());
            let Err(e) = got else {
                panic!("beta_scale = {bad} accepted")
            };
            assert!(e.message().contains("beta_scale"), "{}", e.message());
        }
    }

    /// The believed runtime in seconds ĉˢ behind `greedy`'s per-second score.
    #[test]
    fn believed_seconds_by_hand() {
        // gp-ucb: cost-oblivious, ĉˢ = 1 → per-second score = gain.
        let seen = run("gp-ucb", &[]);
        assert_eq!(seen[0].proposal.believed_seconds, 1.0);
        assert_eq!(seen[0].per_second, seen[0].score);
        // gp-ucb-cost, oracle: proposes a (t's runtime 1 s) → ĉˢ = 1, score
        // 1.0560057125 / 1; per-relative-cost divides by ĉ = 0.25 instead.
        let seen = run("gp-ucb-cost", &[]);
        assert_eq!(seen[0].proposal.model, 0);
        assert_eq!(seen[0].proposal.believed_seconds, 1.0);
        assert!(close(seen[0].per_second, 1.056_005_712_486_610_5));
        // Step 2 proposes c (t's runtime 3 s) or b (8 s): ĉˢ is t's runtime.
        let k = seen[1].proposal.model;
        let want = [1.0, 8.0, 3.0][k];
        assert_eq!(seen[1].proposal.believed_seconds, want);
        // gp-ucb-cost, prior: proposes b; prior users' runtimes of b are
        // 2, 2, 1 s → ĉˢ = 5/3; score = 1.1560057125 / (5/3) = 0.6936034275.
        let prior = run("gp-ucb-cost", &[("cost_belief", "prior".into())]);
        assert_eq!(prior[0].proposal.model, 1);
        assert!(close(prior[0].proposal.believed_seconds, 5.0 / 3.0));
        assert!(close(
            prior[0].per_second,
            1.156_005_712_486_610_5 * 3.0 / 5.0
        ));
        // gp-ei-per-second: gain is the EI (0.6 for a at step 1), divided by
        // ĉˢ = 1 s; per-relative-cost gives EI / 0.25 = the acquisition.
        let ei = run("gp-ei-per-second", &[]);
        assert_eq!(ei[0].proposal.model, 0);
        assert!((ei[0].per_second - 0.6).abs() < 1e-10);
    }

    /// The oracle's mean runtime is over the tenant's own models, not the
    /// trace's row (0 where a model is missing): [`tiny`] with t lacking b.
    #[test]
    fn oracle_costs_of_a_tenant_lacking_a_model_are_by_its_own_mean() {
        let csv = "user,model,accuracy,runtime_s\n\
                   p1,a,0.5,1\np1,b,0.7,2\np1,c,0.6,3\n\
                   p2,a,0.7,2\np2,b,0.9,2\np2,c,0.6,2\n\
                   p3,a,0.6,1\np3,b,0.5,1\np3,c,0.6,1\n\
                   t,a,0.9,1\nt,c,0.65,3\n";
        let trace = match parse_trace("lacking", csv.as_bytes()) {
            Ok(t) => Arc::new(t),
            Err(e) => panic!("{e}"),
        };
        // t's mean runtime (1 + 3)/2 = 2 s: ĉ_a = 0.5, ĉ_c = 1.5 (over the
        // trace's row, (1 + 0 + 3)/3, they would be 0.75 and 2.25).
        // Step 1: K_i = 2, β_1 = 2 ln(2·π²/0.6) = 6.9868651520;
        //   UCB_c(a) = 0.6 + √(6.9868651520/0.5)·0.0816496581 = 0.9052182859 ← max
        //   UCB_c(c) = 0.6 (σ_c = 0).
        // Step 2: c, the one model left, ĉ_c = 1.5.
        let seen = run_on(trace, "gp-ucb-cost", &[]);
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert_eq!(seen[0].proposal.model, 0);
        assert!(close(seen[0].proposal.believed_cost, 0.5), "{seen:?}");
        let pi = std::f64::consts::PI;
        let beta = 2.0 * (2.0 * pi * pi / 0.6_f64).ln();
        assert!((beta - 6.986_865_152).abs() < 1e-9);
        let want = 0.6 + (beta / 0.5).sqrt() * (0.02_f64 / 3.0).sqrt();
        assert!(close(seen[0].proposal.acquisition, want), "{seen:?}");
        assert!((want - 0.905_218_286).abs() < 1e-9);
        assert_eq!(seen[1].proposal.model, 2);
        assert!(close(seen[1].proposal.believed_cost, 1.5), "{seen:?}");
    }

    #[test]
    fn gp_ucb_cost_by_hand() {
        // Oracle ĉ = (0.25, 2, 0.75), t = 1:
        //   UCB_c(a) = 0.6 + √(7.7977953683/0.25)·0.0816496581 = 0.6 + 5.5849065770·0.0816496581 = 1.0560057125  ← max
        //   UCB_c(b) = 0.7 + √(7.7977953683/2)·0.1632993162 = 0.7 + 1.9745656744·0.1632993162 = 1.0224447316
        //   UCB_c(c) = 0.6
        // greedy score = (1.0560057125 − 0)/0.25 = 4.2240228499;
        // √β σ_a = 2.7924532885·0.0816496581 = 0.2280028562.
        let seen = run("gp-ucb-cost", &[]);
        check(
            &seen[0],
            0,
            1.056_005_712_486_610_5,
            0.25,
            4.224_022_849_946_442,
            0.228_002_856_243_305_3,
        );
        let oracle = run("gp-ucb-cost", &[("cost_belief", "oracle".into())]);
        assert_eq!(oracle[0].proposal, seen[0].proposal);
        // Prior ĉ = (0.8333333333, 1, 1.1666666667):
        //   UCB_c(a) = 0.6 + √(7.7977953683·1.2)·0.0816496581 = 0.6 + 3.0589834434·0.0816496581 = 0.8497646151
        //   UCB_c(b) = 0.7 + √7.7977953683·0.1632993162 = 1.1560057125  ← max (ĉ_b = 1)
        let prior = run("gp-ucb-cost", &[("cost_belief", "prior".into())]);
        check(
            &prior[0],
            1,
            1.156_005_712_486_610_5,
            1.0,
            1.156_005_712_486_610_5,
            0.456_005_712_486_610_5,
        );
    }

    #[test]
    fn gp_ei_by_hand() {
        // statrs' erfc is good to ~1e-10 relative (see gp::expected_improvement).
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-10;
        // Step 1, best 0, ξ = 0: z = μ/σ
        //   a: z = 0.6/0.0816 = 7.35, EI = 0.6·Φ(7.35) + 0.0816·φ(7.35) = 0.6000000000
        //   b: z = 0.7/0.1633 = 4.2866, Φ = 0.9999909, φ = 4.0e-5:
        //      EI = 0.7·0.9999909 + 0.1633·4.03e-5 = 0.7000003154  ← max
        //   c: σ = 0 → max(0.6 − 0, 0) = 0.6
        let seen = run("gp-ei", &[]);
        assert_eq!(seen[0].proposal.model, 1);
        assert!(near(seen[0].proposal.acquisition, 0.700_000_315_412_801));
        // greedy score = EI itself; ĉ = 1; bonus √β_1 σ_b as for gp-ucb.
        assert!(near(seen[0].score, 0.700_000_315_412_801));
        assert_eq!(seen[0].proposal.believed_cost, 1.0);
        assert!(close(seen[0].bonus, 0.456_005_712_486_610_5));
        // Step 2 (after b = 0.6), best 0.6, μ_a = 0.5750933998, σ_a = 0.0707546936:
        //   a: d = −0.0249066002, z = −0.3520133, Φ = 0.3624141, φ = 0.3749744
        //      EI = −0.0249066·0.3624141 + 0.0707547·0.3749744 = 0.0175047557  ← max
        //   c: σ = 0 → max(0.6 − 0.6, 0) = 0
        assert_eq!(seen[1].proposal.model, 0);
        assert!(near(
            seen[1].proposal.acquisition,
            0.017_504_755_736_502_495
        ));
        // ξ = 0.05: d = −0.0749066002, z = −1.0586806:
        //   EI = −0.0749066·0.1448771 + 0.0707547·0.2278940 = 0.0052651387
        let xi = run("gp-ei", &[("xi", 0.05.into())]);
        assert_eq!(xi[1].proposal.model, 0);
        assert!(near(xi[1].proposal.acquisition, 0.005_265_138_685_196_26));
    }

    #[test]
    fn gp_ei_per_second_by_hand() {
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-10;
        // Step 1, oracle ĉ = (0.25, 2, 0.75): EI/ĉ =
        //   a: 0.6000000000/0.25 = 2.4  ← max
        //   b: 0.7000003154/2 = 0.3500001577
        //   c: 0.6/0.75 = 0.8
        let seen = run("gp-ei-per-second", &[]);
        assert_eq!(seen[0].proposal.model, 0);
        assert!(near(seen[0].proposal.acquisition, 2.400_000_000_000_004));
        assert!(close(seen[0].proposal.believed_cost, 0.25));
        // The greedy score is the acquisition, not divided by ĉ again.
        assert_eq!(seen[0].score, seen[0].proposal.acquisition);
    }

    /// Two models with identical prior columns and identical runtimes tie
    /// under every acquisition: the lower model index wins.
    #[test]
    fn tied_models_go_to_the_lowest_index() {
        let csv = "user,model,accuracy,runtime_s\n\
                   p,x,0.5,1\np,y,0.5,1\np,z,0.4,1\n\
                   q,x,0.7,2\nq,y,0.7,2\nq,z,0.6,2\n\
                   t,z,0.1,1\nt,y,0.2,1\nt,x,0.3,1\n";
        let trace = match parse_trace("ties", csv.as_bytes()) {
            Ok(t) => Arc::new(t),
            Err(e) => panic!("{e}"),
        };
        let (prior, tenants) = ([0, 1], [2]);
        let ctx = RepContext {
            trace: &trace,
            gpu_types: &Arc::new(GpuTypes::untyped(1)),
            tenants: &TenantUsers::list(&tenants),
            prior: &prior,
            seed: 0,
            repetition: 0,
        };
        let state = Tenants::new(
            &trace,
            &TenantUsers::list(&tenants),
            &[0],
            1,
            Default::default(),
        );
        for spec in entries() {
            for kernel in ["empirical", "flat"] {
                let mut p = params(&[("kernel", kernel.into())]);
                let make = match (spec.parse)(&mut p, &trace) {
                    Ok(f) => f,
                    Err(e) => panic!("{e}"),
                };
                let mut sel = match make(&ctx) {
                    Ok(s) => s,
                    Err(e) => panic!("{e}"),
                };
                // x (index 0) and y (index 1) tie; z is worse (or tied too
                // under `flat`, where every model has the same prior).
                let got = sel
                    .propose(&state, 0)
                    .unwrap_or_else(|e| panic!("{e}"))
                    .map(|p| p.model);
                assert_eq!(got, Some(0), "{} / {kernel}", spec.name);
            }
        }
    }

    /// `gp-ucb` (empirical kernel, default noise, δ and β) for tenant 3 of
    /// [`tiny`] with users 0–2 as its prior, and the trace.
    fn ucb_on_tiny() -> (Arc<Trace>, GpSelector) {
        ucb_on(&[0, 1, 2], &[3])
    }

    /// `gp-ucb` with the default parameters.
    fn ucb_config() -> GpConfig {
        GpConfig {
            name: "gp-ucb",
            kernel: Kernel::Empirical,
            noise: DEFAULT_NOISE,
            delta: DEFAULT_DELTA,
            beta_scale: DEFAULT_BETA_SCALE,
            acquisition: Acquisition::Ucb,
        }
    }

    /// `gp-ucb` as [`ucb_on_tiny`] for `tenants` of [`tiny`] with `prior`
    /// as the prior users.
    fn ucb_on(prior: &[usize], tenants: &[usize]) -> (Arc<Trace>, GpSelector) {
        let trace = tiny();
        let ctx = RepContext {
            trace: &trace,
            gpu_types: &Arc::new(GpuTypes::untyped(1)),
            tenants: &TenantUsers::list(tenants),
            prior,
            seed: 0,
            repetition: 0,
        };
        let sel = GpSelector::new(ucb_config(), &ctx).unwrap_or_else(|e| panic!("new: {e}"));
        (trace, sel)
    }

    /// Tenant `i`'s cached proposal and the GPU type it is for.
    fn cache_of(sel: &GpSelector, i: usize) -> Option<(GpuType, Proposal)> {
        sel.slots.get(i).and_then(|s| s.cache)
    }

    /// Issue 34 (memory by active tenants): a tenant holds a slot of the
    /// selector only from its first proposal until it holds neither a
    /// proposal nor a posterior, so tenants served one after the other
    /// reuse one slot and a tenant whose models all ran holds none.
    #[test]
    fn a_tenant_holds_a_slot_only_while_it_has_a_proposal_or_a_posterior() {
        let (trace, mut sel) = ucb_on(&[0, 1], &[2, 3]);
        let state = Tenants::new(
            &trace,
            &TenantUsers::list(&[2, 3]),
            &[0, 0],
            1,
            Default::default(),
        );
        for i in [0, 1] {
            for k in 0..3 {
                let proposed = sel.propose(&state, i).unwrap_or_else(|e| panic!("{e}"));
                assert!(proposed.is_some());
                assert_eq!(sel.slots.active(), 1, "tenant {i} proposed to");
                assert!(sel.started(i, k).is_ok());
                // Before its first completion a tenant holds no posterior.
                assert_eq!(
                    sel.slots.active(),
                    usize::from(k > 0),
                    "tenant {i} started {k}"
                );
                assert!(sel.observe(i, k, 0.5 + 0.1 * k as f64).is_ok());
                // After its last model it holds nothing.
                assert_eq!(
                    sel.slots.active(),
                    usize::from(k < 2),
                    "tenant {i} observed {k}"
                );
            }
            assert!(cache_of(&sel, i).is_none() && sel.posterior(i).is_none());
        }
        assert_eq!(sel.slots.high_water(), 1);
    }

    #[test]
    fn proposals_are_cached_until_the_tenant_changes() {
        let (trace, mut sel) = ucb_on_tiny();
        let state = Tenants::new(
            &trace,
            &TenantUsers::list(&[3]),
            &[0],
            1,
            Default::default(),
        );
        assert!(cache_of(&sel, 0).is_none() && sel.posterior(0).is_none());
        let propose =
            |sel: &mut GpSelector| sel.propose(&state, 0).unwrap_or_else(|e| panic!("{e}"));
        let first = propose(&mut sel);
        assert!(cache_of(&sel, 0).is_some());
        assert_eq!(propose(&mut sel), first);
        assert!(sel.started(0, 1).is_ok());
        assert!(cache_of(&sel, 0).is_none());
        assert!(
            sel.posterior(0).is_none(),
            "no posterior before a completion"
        );
        let _ = propose(&mut sel);
        assert!(sel.observe(0, 1, 0.6).is_ok());
        assert!(cache_of(&sel, 0).is_none());
        assert!(sel.posterior(0).is_some());
    }

    /// A tenant's posterior lives from its first completed job to its
    /// last model's: tenant t of [`tiny`] has 3 models, so after 2
    /// observations the posterior holds, after the 3rd it is released (no
    /// model is left to score; the bundled scenarios' goldens show the
    /// results unchanged).
    #[test]
    fn a_posterior_is_released_once_every_model_is_observed() {
        let (_, mut sel) = ucb_on_tiny();
        for (k, acc) in [(0, 0.9), (1, 0.6)] {
            assert!(sel.observe(0, k, acc).is_ok());
            assert!(sel.posterior(0).is_some(), "after model {k}");
        }
        assert!(sel.observe(0, 2, 0.65).is_ok());
        assert!(sel.posterior(0).is_none(), "released after the last model");
    }

    /// Issue 34: a posterior keeps the trace's model list itself, not a
    /// copy of it (K_i indices a tenant).
    #[test]
    fn a_posterior_shares_the_traces_model_list() {
        let (trace, mut sel) = ucb_on_tiny();
        assert!(sel.observe(0, 0, 0.9).is_ok());
        let Some(p) = sel.posterior(0) else {
            panic!("a posterior after the first completion");
        };
        let list = sel.list_of(0);
        assert!(matches!(sel.lists, TenantLists::PerTenant(_)));
        assert!(std::ptr::eq(list.as_ptr(), trace.models_of(3).as_ptr()));
        assert_eq!(p.models(), &list[..]);
        assert!(std::ptr::eq(p.models().as_ptr(), list.as_ptr()));
    }

    /// Issue 34: on a generated trace (every user has the same models)
    /// the selector keeps no trace user per tenant, and a posterior still
    /// keeps the trace's one list, not a copy; its proposals are those of
    /// a selector that looks each tenant's list up by its user.
    #[test]
    fn a_generated_trace_keeps_no_user_per_tenant() {
        use crate::models::trace::{SynParams, generate_syn_trace};
        let p = SynParams {
            users: 12,
            models: 5,
            seed: 4,
            ..SynParams::default()
        };
        let trace = Arc::new(generate_syn_trace(&p, "syn").trace);
        let Some(shared) = trace.shared_models() else {
            panic!("a generated trace shares one list");
        };
        let tenants: Vec<usize> = (3..12).collect();
        let ctx = RepContext {
            trace: &trace,
            gpu_types: &Arc::new(GpuTypes::untyped(1)),
            tenants: &TenantUsers::list(&tenants),
            prior: &[0, 1, 2],
            seed: 0,
            repetition: 0,
        };
        let mut sel = GpSelector::new(ucb_config(), &ctx).expect("builds");
        let mut by_user = sel.clone();
        by_user.lists = TenantLists::PerTenant(tenants.clone().into());
        assert!(matches!(sel.lists, TenantLists::Shared(_)));
        for (j, i) in [(0, 4), (2, 4), (1, 0)] {
            sel.observe(i, j, 0.5 + 0.1 * j as f64).expect("observes");
            by_user
                .observe(i, j, 0.5 + 0.1 * j as f64)
                .expect("observes");
        }
        let Some(post) = sel.posterior(4) else {
            panic!("a posterior after the first completion");
        };
        assert!(std::ptr::eq(post.models().as_ptr(), shared.as_ptr()));
        let arrivals = vec![0; tenants.len()];
        let state = Tenants::new(
            &trace,
            &TenantUsers::list(&tenants),
            &arrivals,
            1,
            Default::default(),
        );
        for i in 0..tenants.len() {
            let (a, b) = (sel.compute(&state, i), by_user.compute(&state, i));
            assert!(a.is_some() && a == b, "tenant {i}: {a:?} {b:?}");
        }
    }

    /// A factory builds the prior of a (trace, prior users) pair once: the
    /// selectors of a run and of its isolated runs share it; other prior
    /// users or another trace get their own.
    #[test]
    fn prior_cache_shares_equal_keys_only() {
        let trace = tiny();
        let cache = PriorCache::default();
        let cfg = GpConfig {
            name: "gp-ucb-cost",
            kernel: Kernel::Empirical,
            noise: DEFAULT_NOISE,
            delta: DEFAULT_DELTA,
            beta_scale: DEFAULT_BETA_SCALE,
            acquisition: Acquisition::UcbCost(CostBelief::Prior),
        };
        let types = Arc::new(GpuTypes::untyped(1));
        let make = |trace: &Arc<Trace>, prior: &[usize], tenants: &[usize]| {
            let ctx = RepContext {
                trace,
                gpu_types: &types,
                tenants: &TenantUsers::list(tenants),
                prior,
                seed: 0,
                repetition: 0,
            };
            match GpSelector::with_cache(cfg, &ctx, &cache) {
                Ok(s) => s,
                Err(e) => panic!("{e}"),
            }
        };
        let run = make(&trace, &[0, 1, 2], &[3]);
        let alone = make(&trace, &[0, 1, 2], &[3]);
        assert!(Arc::ptr_eq(&run.prior, &alone.prior));
        let other = make(&trace, &[0, 1], &[3]);
        assert!(!Arc::ptr_eq(&run.prior, &other.prior));
        let fresh = match GpSelector::new(
            cfg,
            &RepContext {
                trace: &trace,
                gpu_types: &Arc::new(GpuTypes::untyped(1)),
                tenants: &TenantUsers::list(&[3]),
                prior: &[0, 1],
                seed: 0,
                repetition: 0,
            },
        ) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(*other.prior, *fresh.prior);
        let copy = Arc::new((*trace).clone());
        let on_copy = make(&copy, &[0, 1, 2], &[3]);
        assert!(!Arc::ptr_eq(&run.prior, &on_copy.prior));
        assert_eq!(*run.prior, *on_copy.prior);
        assert!(cache.lock().len() <= PRIOR_CACHE_ENTRIES);
    }

    fn parse_error(selector: &str, pairs: &[(&str, toml::Value)]) -> String {
        let trace = tiny();
        let Some(spec) = entries().into_iter().find(|e| e.name == selector) else {
            panic!("no selector {selector}")
        };
        let mut p = params(pairs);
        match (spec.parse)(&mut p, &trace) {
            Ok(_) => match p.finish(selector) {
                Ok(()) => panic!("{selector} {pairs:?} accepted"),
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn bad_keys_are_clear_errors() {
        type Keys<'a> = &'a [(&'a str, toml::Value)];
        let cases: &[(&str, Keys<'_>, &str)] = &[
            ("gp-ucb", &[("noise", (-1e-4).into())], "key `noise`"),
            ("gp-ucb", &[("noise", f64::NAN.into())], "key `noise`"),
            ("gp-ucb", &[("delta", 0.0.into())], "key `delta`"),
            (
                "gp-ucb",
                &[("delta", 1.0.into())],
                "strictly between 0 and 1",
            ),
            (
                "gp-ucb",
                &[("kernel", "matern".into())],
                "unknown kernel `matern`",
            ),
            (
                "gp-ucb",
                &[("kernel", "rbf".into()), ("variance", (-1.0).into())],
                "key `variance`",
            ),
            (
                "gp-ucb",
                &[("lengthscale", f64::NAN.into())],
                "key `lengthscale`",
            ),
            (
                "gp-ucb",
                &[
                    ("kernel", "rbf".into()),
                    ("variance", 1.0.into()),
                    ("lengthscale", 0.0.into()),
                ],
                "key `lengthscale`",
            ),
            (
                "gp-ucb",
                &[("kernel", "flat".into()), ("variance", (-1.0).into())],
                "key `variance`",
            ),
            (
                "gp-ucb",
                &[("kernel", "flat".into()), ("lengthscale", 1.0.into())],
                "key `lengthscale`",
            ),
            (
                "gp-ucb",
                &[("kernel", "empirical".into()), ("variance", 1.0.into())],
                "not to `empirical`",
            ),
            (
                "gp-ucb",
                &[("beta_scale", (-0.5).into())],
                "key `beta_scale`",
            ),
            (
                "gp-ucb-cost",
                &[("cost_belief", "guess".into())],
                "unknown cost belief `guess`",
            ),
            ("gp-ei", &[("xi", (-0.1).into())], "key `xi`"),
            ("gp-ucb", &[("xi", 0.1.into())], "unknown key `xi`"),
            (
                "gp-ucb",
                &[("cost_belief", "oracle".into())],
                "unknown key `cost_belief`",
            ),
            ("gp-ucb", &[("kernel", 3.into())], "expected a string"),
        ];
        for (selector, pairs, fragment) in cases {
            let e = parse_error(selector, pairs);
            assert!(
                e.contains(fragment),
                "{selector} {pairs:?}: `{e}` lacks `{fragment}`"
            );
        }
    }

    /// `rbf` (the default) takes `variance` and `lengthscale` each on its
    /// own; the other one keeps its data-driven value.
    #[test]
    fn rbf_overrides_are_independent() {
        for pairs in [
            vec![("variance", toml::Value::from(0.5))],
            vec![("lengthscale", toml::Value::from(0.3))],
            vec![
                ("kernel", "rbf".into()),
                ("variance", 0.5.into()),
                ("lengthscale", 0.3.into()),
            ],
        ] {
            let mut p = params(&pairs);
            assert!((gp_ucb().parse)(&mut p, &tiny()).is_ok(), "{pairs:?}");
            assert!(p.finish("gp-ucb").is_ok(), "{pairs:?}");
        }
    }

    #[test]
    fn zero_prior_users_is_an_error_naming_the_selector() {
        let trace = tiny();
        let tenants = [3];
        let ctx = RepContext {
            trace: &trace,
            gpu_types: &Arc::new(GpuTypes::untyped(1)),
            tenants: &TenantUsers::list(&tenants),
            prior: &[],
            seed: 0,
            repetition: 0,
        };
        for spec in entries() {
            let mut p = params(&[]);
            let Ok(make) = (spec.parse)(&mut p, &trace) else {
                panic!("parse")
            };
            match make(&ctx) {
                Ok(_) => panic!("{} accepted zero prior users", spec.name),
                Err(e) => {
                    let m = e.to_string();
                    assert!(m.contains(&format!("selector `{}`", spec.name)), "{m}");
                    assert!(m.contains("prior users"), "{m}");
                }
            }
        }
    }
}
