//! One tenant's GP posterior over its available models (DESIGN §3),
//! updated incrementally.
//!
//! Memory: a tenant with K_i models stores one K_i×K_i row-major `f64`
//! covariance, a K_i mean vector and its K_i model indices, and nothing else
//! (no scratch: [`TenantPosterior::observe`] works in place). For K_i = 20
//! that is 3,200 + 160 + 160 bytes plus about 64 bytes of headers, so
//! 100,000 tenants take about 360 MB.
//!
//! Laziness: a posterior with no observation equals the prior restricted to
//! the tenant's models (values copied exactly), so a caller that wants to
//! save memory while tenants wait can keep `Option<TenantPosterior>` and read
//! [`super::GpPrior::mean`] / the prior's diagonal until the first
//! completion. The type itself is not lazy: holding a reference to the prior
//! would tie every tenant to its lifetime, and materialising on the first
//! observation would allocate inside `observe`.

use super::GpPrior;
use crate::error::{Error, Result};

/// Floor on the innovation variance `s = Σ[j,j] + σ_n²` of an observation:
/// when |s| ≤ this (or s is not finite) the observation is counted but does
/// not change the posterior. The dense formula of DESIGN §3 is undefined
/// there (`Σ[S,S] + σ_n² I` is singular) and a division by such an s would
/// only amplify rounding noise. It can only happen with σ_n² ≈ 0 and a model
/// whose posterior variance is already ≈ 0 (or, for a non-PSD `empirical`
/// prior, by cancellation).
pub const MIN_INNOVATION_VARIANCE: f64 = 1e-12;

/// The GP posterior of one tenant over its available models.
///
/// Models are addressed by *local* index `0..n_models()`, in ascending trace
/// model index ([`TenantPosterior::models`] maps local to trace indices), so
/// a tie broken by the lowest local index is also broken by the lowest trace
/// index.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantPosterior {
    /// Trace model index per local index, strictly ascending.
    models: Box<[usize]>,
    /// Posterior mean per local index.
    mean: Box<[f64]>,
    /// Posterior covariance, `n × n` row-major, exactly symmetric.
    cov: Box<[f64]>,
    /// Observation noise variance σ_n².
    noise_var: f64,
    n_observed: usize,
}

impl TenantPosterior {
    /// The prior restricted to `models` (trace model indices, strictly
    /// ascending, e.g. [`crate::trace::Trace::models_of`]): copies m_S and
    /// `Σ[S,S]`. `noise_var` is σ_n² (DESIGN default 1e-4).
    ///
    /// # Errors
    /// An input error if a model index is out of the prior's range, the
    /// indices are not strictly ascending, or `noise_var` is not a finite
    /// number ≥ 0.
    pub fn new(prior: &GpPrior, models: &[usize], noise_var: f64) -> Result<Self> {
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
        let mean = models.iter().map(|&k| pm[k]).collect();
        let cov = models
            .iter()
            .flat_map(|&k| models.iter().map(move |&l| pc[[k, l]]))
            .collect();
        Ok(Self {
            models: models.into(),
            mean,
            cov,
            noise_var,
            n_observed: 0,
        })
    }

    /// Condition on observing accuracy `y` for local model `j`, by one
    /// rank-one update in place (no allocation, O(K_i²)):
    ///
    /// ```text
    /// s = Σ[j,j] + σ_n²,  k = Σ[:,j],  μ ← μ + k (y − μ_j) / s,  Σ ← Σ − k kᵀ / s
    /// ```
    ///
    /// By block elimination, the result after observing the set S equals
    /// DESIGN §3's dense formulas whenever `Σ[S,S] + σ_n² I` is invertible:
    /// ```text
    /// μ(k)  = m_k    + Σ[k,S] (Σ[S,S] + σ_n² I)⁻¹ (y − m_S)
    /// σ²(k) = Σ[k,k] − Σ[k,S] (Σ[S,S] + σ_n² I)⁻¹ Σ[S,k]
    /// ``` If |s| ≤ [`MIN_INNOVATION_VARIANCE`] the observation is
    /// counted but leaves the posterior unchanged. The covariance stays
    /// exactly symmetric (each entry's correction is the same product).
    ///
    /// Observing the same model twice is the GP update for a repeated noisy
    /// measurement; the simulator never does it (DESIGN §2).
    ///
    /// # Panics
    /// If `j >= self.n_models()`. `y` must be finite (trace accuracies are).
    pub fn observe(&mut self, j: usize, y: f64) {
        let n = self.models.len();
        assert!(j < n, "local model index {j} out of range 0..{n}");
        debug_assert!(y.is_finite(), "observation must be finite, got {y}");
        self.n_observed += 1;
        let s = self.cov[j * n + j] + self.noise_var;
        if !(s.abs() > MIN_INNOVATION_VARIANCE && s.is_finite()) {
            return;
        }
        let gain = (y - self.mean[j]) / s;
        for (i, m) in self.mean.iter_mut().enumerate() {
            *m += self.cov[i * n + j] * gain;
        }
        // Rows other than j first, reading row j (still the old k = Σ[j,:]);
        // then row j itself. Σ[i,j] is read before row i changes.
        for i in (0..n).filter(|&i| i != j) {
            let k_i = self.cov[i * n + j];
            for c in 0..n {
                let delta = k_i * self.cov[j * n + c] / s;
                self.cov[i * n + c] -= delta;
            }
        }
        let k_j = self.cov[j * n + j];
        for c in 0..n {
            let delta = self.cov[j * n + c] * k_j / s;
            self.cov[j * n + c] -= delta;
        }
    }

    /// Posterior mean μ of local model `j`.
    ///
    /// # Panics
    /// If `j >= self.n_models()`.
    pub fn mean(&self, j: usize) -> f64 {
        self.mean[j]
    }

    /// Posterior variance σ² of local model `j`, clamped at ≥ 0 (rounding
    /// or a non-PSD prior can push the stored value below 0).
    ///
    /// # Panics
    /// If `j >= self.n_models()`.
    pub fn variance(&self, j: usize) -> f64 {
        let n = self.models.len();
        self.cov[j * n + j].max(0.0)
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
        self.cov[j * n + l]
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

    /// DESIGN §3's dense posterior over `models` (trace indices) after
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
