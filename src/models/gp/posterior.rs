//! One tenant's GP posterior over its available models (DESIGN §3.3),
//! updated incrementally.
//!
//! Memory: a tenant with K_i models stores its K_i mean values and the
//! upper triangle of its K_i×K_i covariance (K_i(K_i+1)/2 values: the
//! covariance stays exactly symmetric, see [`TenantPosterior::observe`]) in
//! one `f64` block, its K_i model indices (shared with the trace's list
//! when made by [`TenantPosterior::with_models`]), and nothing else. For
//! K_i = 20 that is 160 + 1,680 bytes plus about 48 bytes of headers, so
//! 100,000 tenants take about 190 MB (a full matrix would take 360 MB).
//!
//! Laziness: a posterior with no observation equals the prior restricted to
//! the tenant's models (values copied exactly), so a caller that wants to
//! save memory while tenants wait can keep `Option<TenantPosterior>` and read
//! [`super::GpPrior::mean`] / the prior's diagonal until the first
//! completion. The type itself is not lazy: holding a reference to the prior
//! would tie every tenant to its lifetime, and materialising on the first
//! observation would allocate inside `observe`.

use std::sync::Arc;

use super::GpPrior;
use crate::core::error::{Error, Result};
use crate::core::sim::prefetch::prefetch_slice;

/// Floor on the innovation variance `s = Σ[j,j] + σ_n²` of an observation:
/// when |s| ≤ this (or s is not finite) the observation is counted but does
/// not change the posterior. The dense formula of DESIGN §3.3 is undefined
/// there (`Σ[S,S] + σ_n² I` is singular) and a division by such an s would
/// only amplify rounding noise. It can only happen with σ_n² ≈ 0 and a model
/// whose posterior variance is already ≈ 0 (or, for a non-PSD `empirical`
/// prior, by cancellation).
pub const MIN_INNOVATION_VARIANCE: f64 = 1e-12;

/// Up to this many models, [`TenantPosterior::observe`] keeps its copy of
/// the observed column on the stack; above it, one allocation of K_i
/// values per observation (against K_i²/2 multiply-adds).
const STACK_COLUMN: usize = 64;

/// The GP posterior of one tenant over its available models.
///
/// Models are addressed by *local* index `0..n_models()`, in ascending trace
/// model index ([`TenantPosterior::models`] maps local to trace indices), so
/// a tie broken by the lowest local index is also broken by the lowest trace
/// index.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantPosterior {
    /// Trace model index per local index, strictly ascending; shared with
    /// the trace's list when made by [`TenantPosterior::with_models`] (one
    /// pointer instead of a copy of K_i indices a tenant, issue 34).
    models: Arc<[usize]>,
    /// The posterior mean per local index (`n` values), then the upper
    /// triangle of the covariance row by row: row `a` holds `Σ[a, a..n]`
    /// from [`packed_row`]`(n, a)` on.
    data: Box<[f64]>,
    /// Observation noise variance σ_n².
    noise_var: f64,
    n_observed: usize,
}

/// Where row `a` of the packed upper triangle of an `n × n` matrix starts
/// (it holds columns `a..n`): `Σ_{r<a} (n − r) = a·n − a(a−1)/2`.
fn packed_row(n: usize, a: usize) -> usize {
    a * n - a * a.saturating_sub(1) / 2
}

impl TenantPosterior {
    /// The prior restricted to `models` (trace model indices, strictly
    /// ascending, e.g. [`crate::models::trace::Trace::models_of`]): copies m_S and
    /// `Σ[S,S]`. `noise_var` is σ_n² (default 1e-4, DESIGN §3.3).
    ///
    /// # Errors
    /// An input error if a model index is out of the prior's range, the
    /// indices are not strictly ascending, or `noise_var` is not a finite
    /// number ≥ 0.
    pub fn new(prior: &GpPrior, models: &[usize], noise_var: f64) -> Result<Self> {
        Self::with_models(prior, Arc::from(models), noise_var)
    }

    /// [`TenantPosterior::new`] keeping `models` (e.g.
    /// [`crate::models::trace::Trace::models_of_shared`]) instead of a copy.
    ///
    /// # Errors
    /// As [`TenantPosterior::new`].
    pub fn with_models(prior: &GpPrior, models: Arc<[usize]>, noise_var: f64) -> Result<Self> {
        if !noise_var.is_finite() || noise_var < 0.0 {
            return Err(Error::input(format!(
                "GP posterior: observation noise variance must be a finite number >= 0, got {noise_var}"
            )));
        }
        let n_prior = prior.n_models();
        if let Some(&k) = models.iter().find(|&&k| k >= n_prior) {
            return Err(Error::input(format!(
                "GP posterior: model index {k} is out of range (the prior has {n_prior} models)"
            )));
        }
        if let Some(w) = models.windows(2).find(|w| w[0] >= w[1]) {
            return Err(Error::input(format!(
                "GP posterior: model indices must be strictly ascending, got {} then {}",
                w[0], w[1]
            )));
        }
        let (pm, pc) = (prior.mean(), prior.cov());
        let n = models.len();
        let mut data = Vec::with_capacity(n + n * (n + 1) / 2);
        data.extend(models.iter().map(|&k| pm[k]));
        // Models k₀, k₀+1, …: row a of the triangle is the prior's row k₀+a
        // from its diagonal on, copied as one slice (the same values as the
        // entry-by-entry copy; every tenant with all K models takes this).
        let contiguous = models
            .first()
            .is_some_and(|&k0| models[n - 1] - k0 == n - 1);
        for (a, &k) in models.iter().enumerate() {
            match pc.row(k).to_slice() {
                Some(row) if contiguous => data.extend_from_slice(&row[k..k + n - a]),
                _ => data.extend(models[a..].iter().map(|&l| pc[[k, l]])),
            }
        }
        Ok(Self {
            models,
            data: data.into(),
            noise_var,
            n_observed: 0,
        })
    }

    /// Index in `data` of the covariance `Σ[a, b]` (either order).
    fn cov_index(&self, a: usize, b: usize) -> usize {
        let n = self.models.len();
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        n + packed_row(n, a) + (b - a)
    }

    /// Copy column `j` of the covariance into `k` (length n): `Σ[a, j]`
    /// sits in row a for a < j (one entry per row, each row n − a long) and
    /// in row j from its diagonal on for a ≥ j.
    fn column(&self, j: usize, k: &mut [f64]) {
        let n = self.models.len();
        let cov = &self.data[n..];
        let mut at = j; // index of Σ[0, j]
        for (a, slot) in k[..j].iter_mut().enumerate() {
            *slot = cov[at];
            at += n - a - 1;
        }
        let row_j = packed_row(n, j);
        k[j..].copy_from_slice(&cov[row_j..row_j + n - j]);
    }

    /// Posterior mean μ and standard deviation σ (variance clamped at ≥ 0)
    /// of local model `j`: [`TenantPosterior::mean`] and
    /// [`TenantPosterior::std_dev`] in one call.
    ///
    /// # Panics
    /// If `j >= self.n_models()`.
    pub fn mean_and_std_dev(&self, j: usize) -> (f64, f64) {
        let n = self.models.len();
        assert!(j < n, "local model index out of range");
        (
            self.data[j],
            self.data[n + packed_row(n, j)].max(0.0).sqrt(),
        )
    }

    /// Posterior mean μ_j and the stored (unclamped) variance `Σ[j,j]` of
    /// every local model j = 0, 1, …, in order: `mean_and_std_dev(j)` is
    /// `(μ_j, Σ[j,j].max(0).sqrt())`. One pass over the packed storage (the
    /// diagonal of row j + 1 sits `n − j` entries after that of row j, see
    /// `packed_row`), for a caller scoring every model (the GP
    /// selectors' acquisition, DESIGN §3.5) without a lookup per index.
    pub fn diagonal(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let n = self.models.len();
        let (mean, cov) = self.data.split_at(n);
        let mut at = 0;
        mean.iter().enumerate().map(move |(j, &m)| {
            let v = cov[at];
            at += n - j;
            (m, v)
        })
    }

    /// Condition on observing accuracy `y` for local model `j`, by one
    /// rank-one update in place (O(K_i²); no allocation for K_i ≤ 64):
    ///
    /// ```text
    /// s = Σ[j,j] + σ_n²,  k = Σ[:,j],  μ ← μ + k (y − μ_j) / s,  Σ ← Σ − k kᵀ / s
    /// ```
    ///
    /// By block elimination, the result after observing the set S equals
    /// DESIGN §3.3's dense formulas whenever `Σ[S,S] + σ_n² I` is invertible:
    /// ```text
    /// μ(k)  = m_k    + Σ[k,S] (Σ[S,S] + σ_n² I)⁻¹ (y − m_S)
    /// σ²(k) = Σ[k,k] − Σ[k,S] (Σ[S,S] + σ_n² I)⁻¹ Σ[S,k]
    /// ```
    /// If |s| ≤ [`MIN_INNOVATION_VARIANCE`] the observation is counted but
    /// leaves the posterior unchanged.
    ///
    /// Entry `[a,b]` changes by `(k_a · k_b) / s` with every `k` read before
    /// the update; the product is the same for `[b,a]` (floating-point
    /// multiplication commutes), so the covariance stays exactly symmetric
    /// and only its upper triangle is stored and updated.
    ///
    /// Observing the same model twice is the GP update for a repeated noisy
    /// measurement; the simulator never does it (DESIGN §2.2).
    ///
    /// # Panics
    /// If `j >= self.n_models()`. `y` must be finite (trace accuracies are).
    pub fn observe(&mut self, j: usize, y: f64) {
        let n = self.models.len();
        assert!(j < n, "local model index {j} out of range 0..{n}");
        debug_assert!(y.is_finite(), "observation must be finite, got {y}");
        self.n_observed += 1;
        self.rank_one_update(j, y, false);
    }

    /// The rank-one update of [`TenantPosterior::observe`] with observation
    /// `y` of model `j` (s = Σ[j,j] + σ_n², k = Σ[:,j]: μ += k (y − μ_j)/s,
    /// Σ −= k kᵀ/s), skipped when s is too small or not finite. With
    /// `skip_observed_rows`, rows whose diagonal holds the NaN marker of
    /// [`TenantPosterior::observe_once`] are left alone.
    fn rank_one_update(&mut self, j: usize, y: f64, skip_observed_rows: bool) {
        let n = self.models.len();
        let s = self.data[self.cov_index(j, j)] + self.noise_var;
        if !(s.abs() > MIN_INNOVATION_VARIANCE && s.is_finite()) {
            return;
        }
        // k = Σ[:,j] before the update.
        let mut stack = [0.0; STACK_COLUMN];
        let mut heap = Vec::new();
        let k: &mut [f64] = if n <= STACK_COLUMN {
            &mut stack[..n]
        } else {
            heap.resize(n, 0.0);
            &mut heap
        };
        self.column(j, k);
        let (mean, cov) = self.data.split_at_mut(n);
        let gain = (y - mean[j]) / s;
        for (m, &k_a) in mean.iter_mut().zip(k.iter()) {
            *m += k_a * gain;
        }
        let mut row = cov;
        for a in 0..n {
            let (this, rest) = row.split_at_mut(n - a);
            // A row starts with its diagonal: NaN marks a model observed
            // once before, whose row is never read again.
            if !(skip_observed_rows && this[0].is_nan()) {
                let k_a = k[a];
                for (entry, &k_b) in this.iter_mut().zip(&k[a..]) {
                    *entry -= k_a * k_b / s;
                }
            }
            row = rest;
        }
    }

    /// [`TenantPosterior::observe`] for a caller that never asks about a
    /// model again once it is observed (the GP selectors: a pair runs at
    /// most once, and only untried models are scored). Every entry between
    /// two models not observed before is bitwise what `observe` gives; the
    /// rows of models observed this way are no longer updated, so they and
    /// the means of those models go stale, and the variance of model `j`
    /// reads as 0 from now on (its diagonal holds a NaN marker).
    ///
    /// The update reads the column of `j` and the rows of the models not yet
    /// observed only: after t such observations of K_i models it does about
    /// (K_i − t)·K_i/2 multiply-adds instead of K_i²/2, half the work over a
    /// tenant's whole search.
    ///
    /// # Panics
    /// If `j >= self.n_models()`.
    pub fn observe_once(&mut self, j: usize, y: f64) {
        let n = self.models.len();
        assert!(j < n, "local model index {j} out of range 0..{n}");
        debug_assert!(y.is_finite(), "observation must be finite, got {y}");
        let jj = self.cov_index(j, j);
        debug_assert!(!self.data[jj].is_nan(), "model {j} observed twice");
        self.n_observed += 1;
        self.rank_one_update(j, y, true);
        self.data[jj] = f64::NAN;
    }

    /// Prefetch hint for every line of the means and covariance (an
    /// observation reads a column of it, one entry in each row, and updates
    /// the rows: at 10^6 tenants a cache miss each, docs/PERFORMANCE.md
    /// "Internet scale").
    pub fn prefetch(&self) {
        prefetch_slice(&self.data);
    }

    /// Posterior mean μ of local model `j`.
    ///
    /// # Panics
    /// If `j >= self.n_models()`.
    pub fn mean(&self, j: usize) -> f64 {
        assert!(j < self.models.len(), "local model index out of range");
        self.data[j]
    }

    /// Posterior variance σ² of local model `j`, clamped at ≥ 0 (rounding
    /// or a non-PSD prior can push the stored value below 0).
    ///
    /// # Panics
    /// If `j >= self.n_models()`.
    pub fn variance(&self, j: usize) -> f64 {
        assert!(j < self.models.len(), "local model index out of range");
        self.data[self.cov_index(j, j)].max(0.0)
    }

    /// Posterior standard deviation σ = √(clamped variance) of local model `j`.
    ///
    /// # Panics
    /// If `j >= self.n_models()`.
    pub fn std_dev(&self, j: usize) -> f64 {
        self.variance(j).sqrt()
    }

    /// Posterior covariance between local models `j` and `l` (unclamped).
    ///
    /// # Panics
    /// If either index is `>= self.n_models()`.
    pub fn covariance(&self, j: usize, l: usize) -> f64 {
        let n = self.models.len();
        assert!(j < n && l < n, "local model index out of range 0..{n}");
        self.data[self.cov_index(j, l)]
    }

    /// Number of observations so far (including any skipped by the
    /// [`MIN_INNOVATION_VARIANCE`] floor).
    pub fn n_observed(&self) -> usize {
        self.n_observed
    }

    /// K_i, the tenant's number of models.
    pub fn n_models(&self) -> usize {
        self.models.len()
    }

    /// Trace model index per local index (strictly ascending).
    pub fn models(&self) -> &[usize] {
        &self.models
    }

    /// Local index of trace model `model`, if the tenant has it.
    pub fn local_index(&self, model: usize) -> Option<usize> {
        self.models.binary_search(&model).ok()
    }

    /// The observation noise variance σ_n².
    pub fn noise_var(&self) -> f64 {
        self.noise_var
    }
}

#[cfg(test)]
mod tests {
    use ndarray::Array2;
    use proptest::prelude::*;

    use super::*;

    /// Inverse of a small dense matrix (row-major n×n) by Gauss–Jordan
    /// elimination with partial pivoting.
    fn invert(a: &[f64], n: usize) -> Vec<f64> {
        let w = 2 * n;
        let mut m = vec![0.0; n * w];
        for r in 0..n {
            m[r * w..r * w + n].copy_from_slice(&a[r * n..(r + 1) * n]);
            m[r * w + n + r] = 1.0;
        }
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&p, &q| m[p * w + col].abs().total_cmp(&m[q * w + col].abs()))
                .unwrap_or(col);
            for c in 0..w {
                m.swap(col * w + c, pivot * w + c);
            }
            let d = m[col * w + col];
            assert!(d.abs() > 1e-300, "singular test matrix");
            for c in 0..w {
                m[col * w + c] /= d;
            }
            for r in (0..n).filter(|&r| r != col) {
                let f = m[r * w + col];
                for c in 0..w {
                    m[r * w + c] -= f * m[col * w + c];
                }
            }
        }
        (0..n)
            .flat_map(|r| m[r * w + n..(r + 1) * w].to_vec())
            .collect()
    }

    /// DESIGN §3.3's dense posterior over `models` (trace indices) after
    /// observing `obs` = [(trace model, y)]: (means, variances), unclamped.
    fn dense_posterior(
        prior: &GpPrior,
        models: &[usize],
        obs: &[(usize, f64)],
        noise: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let (m, cov) = (prior.mean(), prior.cov());
        let s = obs.len();
        let mut a = vec![0.0; s * s];
        for (p, &(kp, _)) in obs.iter().enumerate() {
            for (q, &(kq, _)) in obs.iter().enumerate() {
                a[p * s + q] = cov[[kp, kq]] + if p == q { noise } else { 0.0 };
            }
        }
        let inv = invert(&a, s);
        let resid: Vec<f64> = obs.iter().map(|&(k, y)| y - m[k]).collect();
        let mut means = Vec::new();
        let mut vars = Vec::new();
        for &k in models {
            // w = Σ[k,S] (Σ[S,S] + σ²I)⁻¹
            let w: Vec<f64> = (0..s)
                .map(|q| (0..s).map(|p| cov[[k, obs[p].0]] * inv[p * s + q]).sum())
                .collect();
            means.push(m[k] + (0..s).map(|q| w[q] * resid[q]).sum::<f64>());
            vars.push(cov[[k, k]] - (0..s).map(|q| w[q] * cov[[obs[q].0, k]]).sum::<f64>());
        }
        (means, vars)
    }

    fn prior_from(mean: Vec<f64>, b: &[f64], n: usize, jitter: f64) -> GpPrior {
        // Σ = B Bᵀ + jitter·I: positive definite by construction.
        let mut cov = Array2::<f64>::zeros((n, n));
        for k in 0..n {
            for l in 0..n {
                let v: f64 = (0..n).map(|t| b[k * n + t] * b[l * n + t]).sum();
                cov[[k, l]] = v + if k == l { jitter } else { 0.0 };
            }
        }
        // Mirror exactly (the sum above is symmetric already, but be sure).
        for k in 0..n {
            for l in 0..k {
                cov[[k, l]] = cov[[l, k]];
            }
        }
        match GpPrior::from_parts(mean, cov) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    /// A random instance: K prior models, a tenant subset, an observation
    /// order over part of that subset, observed values and the noise.
    fn instance() -> impl Strategy<Value = (GpPrior, Vec<usize>, Vec<(usize, f64)>, f64)> {
        (1usize..=7).prop_flat_map(|n| {
            (
                prop::collection::vec(0.0f64..1.0, n),
                prop::collection::vec(-0.4f64..0.4, n * n),
                0.0f64..0.01,
                prop::collection::vec(any::<bool>(), n),
                prop::sample::subsequence((0..n).collect::<Vec<_>>(), 0..=n).prop_shuffle(),
                prop::collection::vec(0.0f64..1.0, n),
                prop_oneof![Just(1e-4), 1e-4f64..0.05],
            )
                .prop_map(move |(mean, b, jitter, keep, order, ys, noise)| {
                    let prior = prior_from(mean, &b, n, jitter);
                    // Tenant subset: the kept models plus everything observed.
                    let models: Vec<usize> =
                        (0..n).filter(|&k| keep[k] || order.contains(&k)).collect();
                    let obs = order.iter().map(|&k| (k, ys[k])).collect();
                    (prior, models, obs, noise)
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn incremental_matches_dense_after_every_update(
            (prior, models, obs, noise) in instance()
        ) {
            let mut post = match TenantPosterior::new(&prior, &models, noise) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            for step in 0..=obs.len() {
                if step > 0 {
                    let (k, y) = obs[step - 1];
                    let Some(j) = post.local_index(k) else { panic!("model {k} missing") };
                    post.observe(j, y);
                }
                prop_assert_eq!(post.n_observed(), step);
                let (means, vars) = dense_posterior(&prior, &models, &obs[..step], noise);
                for j in 0..models.len() {
                    prop_assert!((post.mean(j) - means[j]).abs() <= 1e-9,
                        "step {} model {}: mean {} vs dense {}", step, j, post.mean(j), means[j]);
                    prop_assert!((post.variance(j) - vars[j].max(0.0)).abs() <= 1e-9,
                        "step {} model {}: var {} vs dense {}", step, j, post.variance(j), vars[j]);
                    prop_assert!(post.variance(j) >= 0.0);
                    for l in 0..models.len() {
                        prop_assert_eq!(post.covariance(j, l), post.covariance(l, j));
                    }
                }
            }
        }
    }

    /// The full-matrix rank-one update this type used before it stored only
    /// the upper triangle: row by row, rows other than j first, then row j.
    /// Returns (means, n×n covariance).
    fn full_matrix_reference(
        prior: &GpPrior,
        models: &[usize],
        obs: &[(usize, f64)],
        noise: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let n = models.len();
        let mut mean: Vec<f64> = models.iter().map(|&k| prior.mean()[k]).collect();
        let mut cov: Vec<f64> = models
            .iter()
            .flat_map(|&k| models.iter().map(move |&l| prior.cov()[[k, l]]))
            .collect();
        for &(model, y) in obs {
            let Ok(j) = models.binary_search(&model) else {
                panic!("model {model} missing")
            };
            let s = cov[j * n + j] + noise;
            if !(s.abs() > MIN_INNOVATION_VARIANCE && s.is_finite()) {
                continue;
            }
            let gain = (y - mean[j]) / s;
            for (i, m) in mean.iter_mut().enumerate() {
                *m += cov[i * n + j] * gain;
            }
            for i in (0..n).filter(|&i| i != j) {
                let k_i = cov[i * n + j];
                for c in 0..n {
                    let delta = k_i * cov[j * n + c] / s;
                    cov[i * n + c] -= delta;
                }
            }
            let k_j = cov[j * n + j];
            for c in 0..n {
                let delta = cov[j * n + c] * k_j / s;
                cov[j * n + c] -= delta;
            }
        }
        (mean, cov)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// The packed upper-triangle update gives bit for bit what the full
        /// matrix update gives, for every entry on both sides of the diagonal.
        #[test]
        fn packed_update_is_bitwise_the_full_matrix_update(
            (prior, models, obs, noise) in instance()
        ) {
            let mut post = match TenantPosterior::new(&prior, &models, noise) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            for &(k, y) in &obs {
                let Some(j) = post.local_index(k) else { panic!("model {k} missing") };
                post.observe(j, y);
            }
            let (mean, cov) = full_matrix_reference(&prior, &models, &obs, noise);
            let n = models.len();
            for a in 0..n {
                prop_assert_eq!(post.mean(a).to_bits(), mean[a].to_bits());
                for b in 0..n {
                    prop_assert_eq!(post.covariance(a, b).to_bits(), cov[a * n + b].to_bits());
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// `observe_once` gives bit for bit what `observe` gives for every
        /// entry between models not observed yet, after every step.
        #[test]
        fn observe_once_matches_observe_on_unobserved_models(
            (prior, models, obs, noise) in instance()
        ) {
            let new = |noise| match TenantPosterior::new(&prior, &models, noise) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
            let (mut full, mut once) = (new(noise), new(noise));
            let mut seen = vec![false; models.len()];
            for &(k, y) in &obs {
                let Some(j) = full.local_index(k) else { panic!("model {k} missing") };
                full.observe(j, y);
                once.observe_once(j, y);
                seen[j] = true;
                prop_assert_eq!(once.n_observed(), full.n_observed());
                prop_assert_eq!(once.variance(j), 0.0);
                for a in (0..models.len()).filter(|&a| !seen[a]) {
                    prop_assert_eq!(once.mean(a).to_bits(), full.mean(a).to_bits());
                    for b in (0..models.len()).filter(|&b| !seen[b]) {
                        prop_assert_eq!(
                            once.covariance(a, b).to_bits(),
                            full.covariance(a, b).to_bits()
                        );
                    }
                }
            }
        }
    }

    /// Above the stack column size the update takes its heap path; same
    /// result as the reference.
    #[test]
    fn wide_posterior_matches_the_full_matrix_update() {
        let n = STACK_COLUMN + 9;
        let b: Vec<f64> = (0..n * n)
            .map(|i| ((i * 7919) % 101) as f64 / 500.0 - 0.1)
            .collect();
        let mean: Vec<f64> = (0..n).map(|i| 0.3 + (i % 5) as f64 / 10.0).collect();
        let prior = prior_from(mean, &b, n, 1e-3);
        let models: Vec<usize> = (0..n).collect();
        let obs = [(3, 0.9), (n - 1, 0.2), (40, 0.55)];
        let Ok(mut post) = TenantPosterior::new(&prior, &models, 1e-4) else {
            panic!("new")
        };
        for &(j, y) in &obs {
            post.observe(j, y);
        }
        let (mean, cov) = full_matrix_reference(&prior, &models, &obs, 1e-4);
        for a in 0..n {
            assert_eq!(post.mean(a).to_bits(), mean[a].to_bits());
            for c in 0..n {
                assert_eq!(post.covariance(a, c).to_bits(), cov[a * n + c].to_bits());
            }
        }
    }

    fn two_model_prior() -> GpPrior {
        // m = (0.5, 0.6), Σ = [[0.04, 0.02], [0.02, 0.09]]
        let cov = Array2::from_shape_vec((2, 2), vec![0.04, 0.02, 0.02, 0.09]);
        let Ok(cov) = cov else { panic!("shape") };
        match GpPrior::from_parts(vec![0.5, 0.6], cov) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn one_update_by_hand() {
        // σ_n² = 0.01, observe model 0 with y = 0.7:
        // s = 0.04 + 0.01 = 0.05; gain = (0.7 − 0.5) / 0.05 = 4
        // μ0 = 0.5 + 0.04·4 = 0.66;  μ1 = 0.6 + 0.02·4 = 0.68
        // σ²0 = 0.04 − 0.04²/0.05 = 0.04 − 0.032 = 0.008
        // σ²1 = 0.09 − 0.02²/0.05 = 0.09 − 0.008 = 0.082
        // Σ01 = 0.02 − 0.04·0.02/0.05 = 0.02 − 0.016 = 0.004
        let Ok(mut p) = TenantPosterior::new(&two_model_prior(), &[0, 1], 0.01) else {
            panic!("new")
        };
        p.observe(0, 0.7);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(p.mean(0), 0.66) && close(p.mean(1), 0.68));
        assert!(close(p.variance(0), 0.008) && close(p.variance(1), 0.082));
        assert!(close(p.covariance(0, 1), 0.004));
        assert!(close(p.std_dev(1), 0.082f64.sqrt()));
        assert_eq!(p.n_observed(), 1);
    }

    #[test]
    fn diagonal_reads_every_mean_and_variance_in_order() {
        // Independent check against the per-index accessors, on a prior of
        // 5 models, for contiguous (slice copy) and gapped model lists,
        // before and after observations (an observed model's diagonal is
        // the NaN marker, read by `mean_and_std_dev` as σ = 0).
        let b: Vec<f64> = (0..25)
            .map(|x| ((x * 7 % 11) as f64 - 5.0) / 10.0)
            .collect();
        let prior = prior_from(vec![0.1, 0.2, 0.3, 0.4, 0.5], &b, 5, 0.05);
        for models in [&[0, 1, 2, 3, 4][..], &[1, 2, 3], &[0, 2, 4], &[3]] {
            let Ok(mut p) = TenantPosterior::new(&prior, models, 1e-4) else {
                panic!("new")
            };
            for (a, &k) in models.iter().enumerate() {
                assert_eq!(p.mean(a), prior.mean()[k]);
                for (c, &l) in models.iter().enumerate() {
                    assert_eq!(p.covariance(a, c), prior.cov()[[k, l]]);
                }
            }
            for step in 0..=models.len() {
                let d: Vec<(f64, f64)> = p.diagonal().collect();
                assert_eq!(d.len(), models.len());
                for (j, &(m, v)) in d.iter().enumerate() {
                    let (mu, sigma) = p.mean_and_std_dev(j);
                    assert_eq!(m.to_bits(), mu.to_bits());
                    assert_eq!(v.max(0.0).sqrt().to_bits(), sigma.to_bits());
                }
                if step < models.len() {
                    p.observe_once(step, 0.3 + 0.1 * step as f64);
                }
            }
        }
    }

    #[test]
    fn subset_copies_the_prior_submatrix() {
        let Ok(p) = TenantPosterior::new(&two_model_prior(), &[1], 1e-4) else {
            panic!("new")
        };
        assert_eq!(p.models(), &[1]);
        assert_eq!(p.mean(0), 0.6);
        assert_eq!(p.variance(0), 0.09);
        assert_eq!(p.local_index(1), Some(0));
        assert_eq!(p.local_index(0), None);
    }

    #[test]
    fn degenerate_innovation_is_skipped() {
        // σ_n² = 0 and a model with prior variance 0: s = 0 ≤ floor, so the
        // observation is counted but changes nothing.
        let cov = Array2::from_shape_vec((2, 2), vec![0.0, 0.0, 0.0, 0.09]);
        let Ok(cov) = cov else { panic!("shape") };
        let Ok(prior) = GpPrior::from_parts(vec![0.5, 0.6], cov) else {
            panic!("prior")
        };
        let Ok(mut p) = TenantPosterior::new(&prior, &[0, 1], 0.0) else {
            panic!("new")
        };
        let before = p.clone();
        p.observe(0, 0.9);
        assert_eq!(p.n_observed(), 1);
        assert_eq!(p.mean(0), before.mean(0));
        assert_eq!(p.variance(1), before.variance(1));
    }

    #[test]
    fn bad_construction_is_an_error() {
        let prior = two_model_prior();
        assert!(TenantPosterior::new(&prior, &[0, 2], 1e-4).is_err());
        assert!(TenantPosterior::new(&prior, &[1, 0], 1e-4).is_err());
        assert!(TenantPosterior::new(&prior, &[1, 1], 1e-4).is_err());
        assert!(TenantPosterior::new(&prior, &[0], -1.0).is_err());
        assert!(TenantPosterior::new(&prior, &[0], f64::NAN).is_err());
    }
}
