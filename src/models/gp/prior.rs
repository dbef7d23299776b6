//! The GP prior over all trace models, learned from the prior users
//! (DESIGN §3), and the prior users' relative-cost belief.
//!
//! Notation: P is the prior users' accuracy matrix (m users × K models) and
//! "user j has model k" means the pair is available in the trace. Missing
//! cells are skipped in every average. Every average is a plain sum divided
//! by a count, summed over the prior users in the order they are given.
//!
//! Edge cases, decided here once for every kernel:
//! - **No prior users** (`prior_users` empty): an [`Error`] of kind input.
//!   A prior user index out of range or given twice is an input error too.
//! - **A model no prior user has**: its mean is the *grand mean* of all prior
//!   cells (every available (prior user, model) accuracy, equally weighted);
//!   its variance is the kernel's fallback (below) and its covariance with
//!   every other model is 0.
//! - **A pair of models no prior user shares**: covariance 0.
//! - **A model exactly one prior user has**: the empirical variance is the
//!   formula's value, 0 (the observation noise σ_n² of the posterior keeps
//!   the update well defined).
//!
//! Pairwise deletion means the `empirical` matrix need not be positive
//! semi-definite; it is used as is (DESIGN §3.2 fixes the formula), and the
//! posterior's rank-one update matches the dense formula whenever that is
//! defined (see [`super::TenantPosterior::observe`]).

use ndarray::Array2;

use crate::core::error::{Error, Result};
use crate::models::trace::{Micros, Trace};

/// The covariance kernel of the GP prior (scenario key `kernel`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kernel {
    /// `rbf` (the default, as in every ease.ml prototype):
    /// d²(k,l) = mean over prior users j having both k and l of
    /// `(P[j,k] − P[j,l])²`, and `Σ[k,l] = v · exp(−d²(k,l) / (2ℓ²))`.
    /// d²(k,k) = 0, so `Σ[k,k] = v` for every model, including one no prior
    /// user has (its fallback variance is v).
    ///
    /// `None` means the data-driven default of DESIGN §3.2, computed from the
    /// prior users of the repetition ([`rbf_defaults`]):
    /// v = the mean per-model prior variance, ℓ = the median pairwise RMS
    /// distance between the models' accuracy profiles.
    Rbf {
        /// v: finite, ≥ 0; `None` for the data-driven default.
        variance: Option<f64>,
        /// ℓ: finite, > 0; `None` for the data-driven default.
        lengthscale: Option<f64>,
    },
    /// `empirical`:
    /// `Σ[k,l]` = mean over prior users j having both k and l of
    /// `(P[j,k] − m_k)(P[j,l] − m_l)`, where m_k is the *full* per-model mean
    /// (over every prior user having k), not a pair-specific mean.
    /// Fallback variance for a model no prior user has: the population
    /// variance of all prior cells about their grand mean.
    ///
    /// Caveat (DESIGN §3.2): it gives erratic models a larger prior variance,
    /// so with the full β_t GP-UCB tries the *least reliable* model first
    /// (on LCDB, worse than random); it stays for comparison.
    Empirical,
    /// `flat`, the "no history" ablation: every model gets the same mean, the
    /// grand mean of all prior cells, and Σ = v · I, with v (finite, ≥ 0)
    /// defaulting to the population variance of all prior cells about their
    /// grand mean.
    Flat {
        /// v, or `None` for the population variance of all prior cells.
        variance: Option<f64>,
    },
}

impl Default for Kernel {
    /// `rbf` with the data-driven v and ℓ.
    fn default() -> Self {
        Kernel::Rbf {
            variance: None,
            lengthscale: None,
        }
    }
}

impl Kernel {
    /// Reject parameters outside their domain (see each variant).
    fn validate(&self) -> Result<()> {
        let bad = |what: &str, expected: &str, got: f64| {
            Err(Error::input(format!(
                "kernel parameter `{what}`: expected {expected}, got {got}"
            )))
        };
        match *self {
            Kernel::Empirical => Ok(()),
            Kernel::Rbf {
                variance,
                lengthscale,
            } => {
                if let Some(v) = variance
                    && (!v.is_finite() || v < 0.0)
                {
                    return bad("variance", "a finite number >= 0", v);
                }
                if let Some(l) = lengthscale
                    && (!l.is_finite() || l <= 0.0)
                {
                    return bad("lengthscale", "a finite number > 0", l);
                }
                Ok(())
            }
            Kernel::Flat { variance: Some(v) } if !v.is_finite() || v < 0.0 => {
                bad("variance", "a finite number >= 0", v)
            }
            Kernel::Flat { .. } => Ok(()),
        }
    }
}

/// The data-driven `rbf` parameters of DESIGN §3.2, from the prior users'
/// accuracy matrix P (missing cells skipped):
///
/// - v = mean over models k with at least one prior user of
///   `mean over prior users j having k of (P[j,k] − m_k)²`
///   (each model's population variance about its own mean m_k);
/// - ℓ = median over model pairs k < l with at least one prior user having
///   both of `√d²(k,l)`, d²(k,l) = mean over those users of
///   `(P[j,k] − P[j,l])²` (the median heuristic; an even count takes the
///   mean of the two middle values).
///
/// Both are `None` when undefined: v when no model has a prior user, ℓ when
/// no pair of models shares one (e.g. a single model).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RbfDefaults {
    /// v, or `None` when undefined.
    pub variance: Option<f64>,
    /// ℓ, or `None` when undefined.
    pub lengthscale: Option<f64>,
}

/// [`RbfDefaults`] of `prior_users` (trace user indices).
///
/// Cost: O(K² · m) time and O(K²) memory for the pair distances, for m prior
/// users and K trace models.
///
/// # Errors
/// An input error if `prior_users` is empty, has an index out of range or a
/// repeated index.
pub fn rbf_defaults(trace: &Trace, prior_users: &[usize]) -> Result<RbfDefaults> {
    check_prior_users(trace, prior_users)?;
    let cells = PriorCells::new(trace, prior_users);
    let mean = cells.model_means(0.0);
    Ok(cells.rbf_defaults(&mean, &cells.mean_squared_differences()))
}

/// A GP prior over all K models of a trace: mean vector and K×K covariance
/// matrix, indexed by trace model index. The covariance is exactly symmetric.
#[derive(Debug, Clone, PartialEq)]
pub struct GpPrior {
    mean: Vec<f64>,
    cov: Array2<f64>,
}

impl GpPrior {
    /// Build the prior from the rows of `prior_users` (trace user indices)
    /// with `kernel`; see the module documentation for the edge cases.
    ///
    /// Cost: O(K² · m) time, O(K · m) scratch, for m prior users.
    ///
    /// # Errors
    /// An input error if `prior_users` is empty, has an index out of range or
    /// a repeated index, or if the kernel's parameters are out of domain.
    pub fn from_trace(trace: &Trace, prior_users: &[usize], kernel: Kernel) -> Result<Self> {
        check_prior_users(trace, prior_users)?;
        kernel.validate()?;
        let cells = PriorCells::new(trace, prior_users);
        let n_models = cells.n_models;
        let (grand_mean, pooled_var) = cells.grand_mean_and_variance();

        let mean = if matches!(kernel, Kernel::Flat { .. }) {
            vec![grand_mean; n_models]
        } else {
            cells.model_means(grand_mean)
        };

        let mut cov = Array2::<f64>::zeros((n_models, n_models));
        match kernel {
            Kernel::Flat { variance } => {
                let v = variance.unwrap_or(pooled_var);
                for k in 0..n_models {
                    cov[[k, k]] = v;
                }
            }
            Kernel::Empirical => {
                // P[j,k] − m_k once per cell rather than once per pair.
                let centered = cells.centered(&mean);
                for k in 0..n_models {
                    for l in k..n_models {
                        let (sum, count) = centered.pair_sum(k, l, |a, b| a * b);
                        let value = if count > 0 {
                            sum / count as f64
                        } else if k == l {
                            pooled_var
                        } else {
                            0.0
                        };
                        cov[[k, l]] = value;
                        cov[[l, k]] = value;
                    }
                }
            }
            Kernel::Rbf {
                variance,
                lengthscale,
            } => {
                // d²(k,l) once for every pair (NaN: no shared prior user),
                // for the data-driven ℓ and the kernel alike.
                let d2 = cells.mean_squared_differences();
                let (variance, lengthscale) = match (variance, lengthscale) {
                    (Some(v), Some(l)) => (v, l),
                    _ => {
                        let defaults = cells.rbf_defaults(&mean, &d2);
                        let m = prior_users.len();
                        let v = match variance {
                            Some(v) => v,
                            None => data_driven("variance", "v", defaults.variance, m)?,
                        };
                        let l = match lengthscale {
                            Some(l) => l,
                            None => data_driven("lengthscale", "ℓ", defaults.lengthscale, m)?,
                        };
                        (v, l)
                    }
                };
                let two_l2 = 2.0 * lengthscale * lengthscale;
                cov = d2;
                cov.mapv_inplace(|d2| {
                    if d2.is_nan() {
                        0.0
                    } else {
                        variance * (-d2 / two_l2).exp()
                    }
                });
                for k in 0..n_models {
                    cov[[k, k]] = variance;
                }
            }
        }
        Ok(Self { mean, cov })
    }

    /// A prior from explicit parts (tests, external priors).
    ///
    /// # Errors
    /// An input error unless `cov` is K×K for K = `mean.len()`, exactly
    /// symmetric, and every value is finite.
    pub fn from_parts(mean: Vec<f64>, cov: Array2<f64>) -> Result<Self> {
        let n = mean.len();
        if cov.dim() != (n, n) {
            return Err(Error::input(format!(
                "GP prior: covariance must be {n}x{n} to match the mean, got {}x{}",
                cov.nrows(),
                cov.ncols()
            )));
        }
        if mean.iter().chain(cov.iter()).any(|x| !x.is_finite()) {
            return Err(Error::input("GP prior: every value must be finite"));
        }
        for k in 0..n {
            for l in k + 1..n {
                if cov[[k, l]] != cov[[l, k]] {
                    return Err(Error::input(format!(
                        "GP prior: covariance must be symmetric, but [{k},{l}] = {} and [{l},{k}] = {}",
                        cov[[k, l]],
                        cov[[l, k]]
                    )));
                }
            }
        }
        Ok(Self { mean, cov })
    }

    /// K, the number of models.
    pub fn n_models(&self) -> usize {
        self.mean.len()
    }

    /// Prior mean per trace model.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Prior covariance, K×K, by trace model index.
    pub fn cov(&self) -> &Array2<f64> {
        &self.cov
    }
}

/// The `prior` cost belief: per model k, the mean over prior users j having
/// k of `c[j,k] / c̄_j`, where c̄_j is the mean runtime of j's available
/// models (runtimes in µs as rounded at load, DESIGN §7). A model no prior
/// user has gets 1.0 (an average-cost model).
///
/// # Errors
/// An input error if `prior_users` is empty, has an index out of range or a
/// repeated index.
pub fn relative_cost_prior(trace: &Trace, prior_users: &[usize]) -> Result<Vec<f64>> {
    relative_cost_prior_on(trace, |u, k| trace.runtime_us(u, k), prior_users)
}

/// [`relative_cost_prior`] with the runtimes `runtime(user, model)` (µs)
/// in place of the trace's: the prior users' runtimes on one GPU type
/// (DESIGN §11.4).
///
/// # Errors
/// As [`relative_cost_prior`].
pub fn relative_cost_prior_on(
    trace: &Trace,
    runtime: impl Fn(usize, usize) -> Micros,
    prior_users: &[usize],
) -> Result<Vec<f64>> {
    check_prior_users(trace, prior_users)?;
    let n_models = trace.n_models();
    let mut sum = vec![0.0; n_models];
    let mut count = vec![0usize; n_models];
    for &j in prior_users {
        let models = trace.models_of(j);
        if models.is_empty() {
            continue; // cannot happen in a validated trace
        }
        let total: f64 = models.iter().map(|&k| runtime(j, k) as f64).sum();
        let user_mean = total / models.len() as f64;
        for &k in models {
            sum[k] += runtime(j, k) as f64 / user_mean;
            count[k] += 1;
        }
    }
    Ok(sum
        .iter()
        .zip(&count)
        .map(|(&s, &c)| if c > 0 { s / c as f64 } else { 1.0 })
        .collect())
}

/// A data-driven `rbf` parameter (`key`, written `symbol` in DESIGN §3.2),
/// or the error DESIGN §3.2 asks for when it is 0 or undefined: the prior
/// cannot set it, so the user must.
fn data_driven(key: &str, symbol: &str, value: Option<f64>, n_prior: usize) -> Result<f64> {
    let why = match value {
        Some(x) if x > 0.0 && x.is_finite() => return Ok(x),
        Some(_) => "is 0",
        None => "is undefined",
    };
    let what = if key == "variance" {
        "the mean per-model variance of the prior users' accuracies"
    } else {
        "the median RMS distance between two models' accuracy profiles over the prior users"
    };
    Err(Error::input(format!(
        "kernel `rbf`: the data-driven {key} {symbol} ({what}) {why} with these \
         {n_prior} prior user(s), so the prior cannot set it; set `variance` and \
         `lengthscale` on the policy by hand (or give more prior users, or another `kernel`)"
    )))
}

/// The `prior` belief of a model's runtime in seconds (DESIGN §3.6, used by
/// `greedy`'s per-second score): per model k, ĉˢ_k = the mean over prior
/// users j having k of c\[j,k\]; for a model no prior user has, the mean over
/// all prior cells. Runtimes are the µs values rounded at load (DESIGN §7),
/// shown in seconds (µs / 10⁶).
///
/// # Errors
/// An input error if `prior_users` is empty, has an index out of range or a
/// repeated index.
pub fn runtime_prior_s(trace: &Trace, prior_users: &[usize]) -> Result<Vec<f64>> {
    runtime_prior_s_on(trace, |u, k| trace.runtime_us(u, k), prior_users)
}

/// [`runtime_prior_s`] with the runtimes `runtime(user, model)` (µs) in
/// place of the trace's: the prior users' runtimes on one GPU type (DESIGN
/// §11.4).
///
/// # Errors
/// As [`runtime_prior_s`].
pub fn runtime_prior_s_on(
    trace: &Trace,
    runtime: impl Fn(usize, usize) -> Micros,
    prior_users: &[usize],
) -> Result<Vec<f64>> {
    check_prior_users(trace, prior_users)?;
    let n_models = trace.n_models();
    let mut sum = vec![0.0; n_models];
    let mut count = vec![0usize; n_models];
    let (mut all_sum, mut all_count) = (0.0, 0usize);
    for &j in prior_users {
        for &k in trace.models_of(j) {
            let seconds = runtime(j, k) as f64 / 1e6;
            sum[k] += seconds;
            count[k] += 1;
            all_sum += seconds;
            all_count += 1;
        }
    }
    let overall = if all_count > 0 {
        all_sum / all_count as f64
    } else {
        1.0 // cannot happen: every validated user has a model
    };
    Ok(sum
        .iter()
        .zip(&count)
        .map(|(&s, &c)| if c > 0 { s / c as f64 } else { overall })
        .collect())
}

/// Non-empty, in range, no repeats.
fn check_prior_users(trace: &Trace, prior_users: &[usize]) -> Result<()> {
    if prior_users.is_empty() {
        return Err(Error::input(
            "GP prior: no prior users (at least one user is needed to build the prior)",
        ));
    }
    let n_users = trace.n_users();
    let mut seen = vec![false; n_users];
    for &j in prior_users {
        if j >= n_users {
            return Err(Error::input(format!(
                "GP prior: prior user index {j} is out of range (the trace has {n_users} users)"
            )));
        }
        if seen[j] {
            return Err(Error::input(format!(
                "GP prior: prior user `{}` (index {j}) is given twice",
                trace.user_id(j)
            )));
        }
        seen[j] = true;
    }
    Ok(())
}

/// The median of `values` (reordered in place), `None` if empty: the middle
/// value of the sorted list, or the mean of the two middle values for an
/// even count. Values are finite (√ of means of squares of accuracies).
fn median(values: &mut [f64]) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    values.sort_unstable_by(f64::total_cmp);
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

/// The prior users' accuracies, stored model-major so each model's column
/// is contiguous.
struct PriorCells {
    n_users: usize,
    n_models: usize,
    /// `values[k * n_users + j]`: `P[j,k]` (0 where missing).
    values: Vec<f64>,
    /// Whether prior user j has model k, same layout.
    present: Vec<bool>,
}

impl PriorCells {
    fn new(trace: &Trace, prior_users: &[usize]) -> Self {
        let n_users = prior_users.len();
        let n_models = trace.n_models();
        let mut values = vec![0.0; n_models * n_users];
        let mut present = vec![false; n_models * n_users];
        for k in 0..n_models {
            for (j, &u) in prior_users.iter().enumerate() {
                if trace.is_available(u, k) {
                    values[k * n_users + j] = trace.accuracy(u, k);
                    present[k * n_users + j] = true;
                }
            }
        }
        Self {
            n_users,
            n_models,
            values,
            present,
        }
    }

    /// The same cells with `mean[k]` subtracted from column k (the very
    /// `P[j,k] − m_k` the empirical kernel multiplies).
    fn centered(&self, mean: &[f64]) -> Self {
        let mut values = self.values.clone();
        for (k, &m_k) in mean.iter().enumerate().take(self.n_models) {
            let r = self.range(k);
            for (v, &p) in values[r.clone()].iter_mut().zip(&self.present[r]) {
                if p {
                    *v -= m_k;
                }
            }
        }
        Self {
            n_users: self.n_users,
            n_models: self.n_models,
            values,
            present: self.present.clone(),
        }
    }

    /// m_k = mean of P[·,k] over the prior users having k; `fallback` for
    /// a model no prior user has.
    fn model_means(&self, fallback: f64) -> Vec<f64> {
        (0..self.n_models)
            .map(|k| {
                let (sum, count) = self
                    .column(k)
                    .fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
                if count > 0 {
                    sum / count as f64
                } else {
                    fallback
                }
            })
            .collect()
    }

    /// d²(k,l) = mean over prior users having both of `(P[j,k] − P[j,l])²`,
    /// K×K and symmetric, NaN for a pair no prior user shares, 0 on the
    /// diagonal (DESIGN §3.2).
    fn mean_squared_differences(&self) -> Array2<f64> {
        let mut d2 = Array2::<f64>::zeros((self.n_models, self.n_models));
        for k in 0..self.n_models {
            for l in k + 1..self.n_models {
                let (sum, count) = self.pair_sum(k, l, |a, b| (a - b) * (a - b));
                let value = if count > 0 {
                    sum / count as f64
                } else {
                    f64::NAN
                };
                d2[[k, l]] = value;
                d2[[l, k]] = value;
            }
        }
        d2
    }

    /// [`RbfDefaults`] given the per-model means `mean` and the pair
    /// distances `d2` ([`Self::mean_squared_differences`]) (DESIGN §3.2).
    /// Sums run in prior-user order; models and pairs in index order.
    fn rbf_defaults(&self, mean: &[f64], d2: &Array2<f64>) -> RbfDefaults {
        // v: mean over models with a prior user of their variance about m_k.
        let (mut v_sum, mut v_count) = (0.0, 0usize);
        for (k, &m_k) in mean.iter().enumerate().take(self.n_models) {
            let (ss, count) = self.column(k).fold((0.0, 0usize), |(s, c), x| {
                (s + (x - m_k) * (x - m_k), c + 1)
            });
            if count > 0 {
                v_sum += ss / count as f64;
                v_count += 1;
            }
        }
        let variance = (v_count > 0).then(|| v_sum / v_count as f64);
        // ℓ: median of √d² over the pairs sharing a prior user.
        let mut distances = Vec::new();
        for k in 0..self.n_models {
            for l in k + 1..self.n_models {
                if !d2[[k, l]].is_nan() {
                    distances.push(d2[[k, l]].sqrt());
                }
            }
        }
        RbfDefaults {
            variance,
            lengthscale: median(&mut distances),
        }
    }

    fn range(&self, k: usize) -> std::ops::Range<usize> {
        k * self.n_users..(k + 1) * self.n_users
    }

    /// The accuracies of the prior users having model k, in user order.
    fn column(&self, k: usize) -> impl Iterator<Item = f64> + '_ {
        let r = self.range(k);
        self.values[r.clone()]
            .iter()
            .zip(&self.present[r])
            .filter_map(|(&x, &p)| p.then_some(x))
    }

    /// Sum of `f(P[j,k], P[j,l])` over prior users having both, and their count.
    fn pair_sum(&self, k: usize, l: usize, f: impl Fn(f64, f64) -> f64) -> (f64, usize) {
        let (rk, rl) = (self.range(k), self.range(l));
        let (vk, vl) = (&self.values[rk.clone()], &self.values[rl.clone()]);
        let (pk, pl) = (&self.present[rk], &self.present[rl]);
        let mut sum = 0.0;
        let mut count = 0;
        for j in 0..self.n_users {
            if pk[j] && pl[j] {
                sum += f(vk[j], vl[j]);
                count += 1;
            }
        }
        (sum, count)
    }

    /// Grand mean of all prior cells and their population variance about it
    /// (0 and 0 if there are no cells, which a validated trace rules out).
    fn grand_mean_and_variance(&self) -> (f64, f64) {
        let all = || (0..self.n_models).flat_map(|k| self.column(k));
        let (sum, count) = all().fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
        if count == 0 {
            return (0.0, 0.0);
        }
        let mean = sum / count as f64;
        let ss: f64 = all().map(|x| (x - mean) * (x - mean)).sum();
        (mean, ss / count as f64)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::models::trace::parse_trace;

    /// Models in order of first appearance: a, b, c, d. Users u0..u2 are the
    /// prior users; u3 is a tenant and the only user with model d.
    ///
    /// ```text
    ///        a    b    c    d      runtimes (s)  a  b  c  d
    /// u0    0.5  0.7  0.9   -                    1  2  3  -
    /// u1    0.7  0.9   -    -                    2  6  -  -
    /// u2    0.6   -   0.6   -                    3  -  1  -
    /// u3    0.1   -    -   0.2                   1  -  -  1
    /// ```
    fn tiny_trace() -> Trace {
        let csv = "user,model,accuracy,runtime_s\n\
                   u0,a,0.5,1\nu0,b,0.7,2\nu0,c,0.9,3\n\
                   u1,a,0.7,2\nu1,b,0.9,6\n\
                   u2,a,0.6,3\nu2,c,0.6,1\n\
                   u3,a,0.1,1\nu3,d,0.2,1\n";
        match parse_trace("tiny", csv.as_bytes()) {
            Ok(t) => t,
            Err(e) => panic!("tiny trace: {e}"),
        }
    }

    fn build(kernel: Kernel) -> GpPrior {
        match GpPrior::from_trace(&tiny_trace(), &[0, 1, 2], kernel) {
            Ok(p) => p,
            Err(e) => panic!("prior: {e}"),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    fn assert_vec(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            assert!(close(g, w), "[{i}]: got {g}, want {w}");
        }
    }

    fn assert_matrix(got: &Array2<f64>, want: &[[f64; 4]; 4]) {
        for k in 0..4 {
            for l in 0..4 {
                let (g, w) = (got[[k, l]], want[k][l]);
                assert!(close(g, w), "[{k},{l}]: got {g}, want {w}");
                assert_eq!(got[[k, l]], got[[l, k]], "not symmetric at [{k},{l}]");
            }
        }
    }

    // Means (missing cells skipped):
    //   m_a = (0.5 + 0.7 + 0.6) / 3 = 0.6
    //   m_b = (0.7 + 0.9) / 2       = 0.8
    //   m_c = (0.9 + 0.6) / 2       = 0.75
    //   m_d: no prior user has d → grand mean of the 7 prior cells
    //        (0.5+0.7+0.9+0.7+0.9+0.6+0.6) / 7 = 4.9 / 7 = 0.7
    // Population variance of the 7 cells about 0.7: deviations
    //   −0.2, 0, 0.2, 0, 0.2, −0.1, −0.1 → squares sum 0.14 → 0.14 / 7 = 0.02
    const MEANS: [f64; 4] = [0.6, 0.8, 0.75, 0.7];

    #[test]
    fn empirical_kernel_by_hand() {
        // Σ[a,a]: u0,u1,u2: (−0.1)² + 0.1² + 0² = 0.02, / 3
        // Σ[b,b]: u0,u1: (−0.1)² + 0.1² = 0.02, / 2 = 0.01
        // Σ[c,c]: u0,u2: 0.15² + (−0.15)² = 0.045, / 2 = 0.0225
        // Σ[a,b]: u0,u1 share: (−0.1)(−0.1) + (0.1)(0.1) = 0.02, / 2 = 0.01
        // Σ[a,c]: u0,u2 share: (−0.1)(0.15) + (0)(−0.15) = −0.015, / 2 = −0.0075
        //         (full means m_a = 0.6, m_c = 0.75, not pair-specific ones)
        // Σ[b,c]: only u0 shares: (−0.1)(0.15) = −0.015
        // Σ[d,d]: fallback pooled variance 0.02; Σ[d,·] = 0
        let p = build(Kernel::Empirical);
        assert_vec(p.mean(), &MEANS);
        let third = 0.02 / 3.0;
        assert_matrix(
            p.cov(),
            &[
                [third, 0.01, -0.0075, 0.0],
                [0.01, 0.01, -0.015, 0.0],
                [-0.0075, -0.015, 0.0225, 0.0],
                [0.0, 0.0, 0.0, 0.02],
            ],
        );
    }

    #[test]
    fn rbf_kernel_by_hand() {
        // v = 2, ℓ = 0.5 → 2ℓ² = 0.5
        // d²(a,b): u0,u1: (0.5−0.7)² = 0.04, (0.7−0.9)² = 0.04 → 0.04
        //          Σ = 2·exp(−0.04/0.5) = 2·exp(−0.08)
        // d²(a,c): u0,u2: (0.5−0.9)² = 0.16, (0.6−0.6)² = 0 → 0.08
        //          Σ = 2·exp(−0.16)
        // d²(b,c): u0: (0.7−0.9)² = 0.04 → 2·exp(−0.08)
        // diagonal 2 (d included); d shares no user → 0 off the diagonal.
        let p = build(Kernel::Rbf {
            variance: Some(2.0),
            lengthscale: Some(0.5),
        });
        assert_vec(p.mean(), &MEANS);
        let e8 = 2.0 * (-0.08f64).exp(); // 1.8462326927...
        let e16 = 2.0 * (-0.16f64).exp(); // 1.7042875779...
        assert!((e8 - 1.846_232_692_7).abs() < 1e-9);
        assert!((e16 - 1.704_287_577_9).abs() < 1e-9);
        assert_matrix(
            p.cov(),
            &[
                [2.0, e8, e16, 0.0],
                [e8, 2.0, e8, 0.0],
                [e16, e8, 2.0, 0.0],
                [0.0, 0.0, 0.0, 2.0],
            ],
        );
    }

    #[test]
    fn rbf_defaults_by_hand_odd_pair_count() {
        // tiny_trace, prior users u0..u2 (d has none, so it is in no pair).
        // v: per-model variance about m_k (MEANS above):
        //   a: (−0.1)² + 0.1² + 0² = 0.02, / 3 = 1/150
        //   b: (−0.1)² + 0.1²      = 0.02, / 2 = 0.01
        //   c: 0.15² + (−0.15)²    = 0.045, / 2 = 0.0225
        //   v = (1/150 + 0.01 + 0.0225) / 3 = (47/1200) / 3 = 47/3600
        //     = 0.013055…
        // ℓ: √d² of the three pairs sharing a prior user (rbf_kernel_by_hand
        //   has the d²): (a,b) √0.04 = 0.2, (a,c) √0.08 = 0.28284…,
        //   (b,c) √0.04 = 0.2 → sorted 0.2, 0.2, 0.2828 → median 0.2.
        let got = match rbf_defaults(&tiny_trace(), &[0, 1, 2]) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let (Some(v), Some(l)) = (got.variance, got.lengthscale) else {
            panic!("{got:?}")
        };
        assert!(close(v, 47.0 / 3600.0), "v = {v}");
        assert!(close(l, 0.2), "ℓ = {l}");
    }

    /// Three models where b and c share no prior user, so the median is over
    /// an even count (two pairs).
    ///
    /// ```text
    ///        a    b    c
    /// p1    0.5  0.9   -
    /// p2    0.6   -   0.2
    /// p3    0.8  0.7   -
    /// ```
    #[test]
    fn rbf_defaults_by_hand_even_pair_count() {
        let csv = "user,model,accuracy,runtime_s\n\
                   p1,a,0.5,1\np1,b,0.9,1\n\
                   p2,a,0.6,1\np2,c,0.2,1\n\
                   p3,a,0.8,1\np3,b,0.7,1\n";
        let t = match parse_trace("even", csv.as_bytes()) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        // v: a: mean 1.9/3; deviations −4/30, −1/30, 5/30 → squares
        //      (16 + 1 + 25)/900 = 42/900, / 3 = 14/900
        //    b: mean 0.8; 0.1² + 0.1² = 0.02, / 2 = 0.01 = 9/900
        //    c: one user → 0
        //    v = (14/900 + 9/900 + 0) / 3 = 23/2700 = 0.0085185…
        // ℓ: (a,b): p1 (0.5−0.9)² = 0.16, p3 (0.8−0.7)² = 0.01 → d² = 0.085,
        //           √ = 0.2915475947…
        //    (a,c): p2 (0.6−0.2)² = 0.16 → √ = 0.4
        //    (b,c): no shared user, not counted
        //    two values → ℓ = (0.2915475947 + 0.4) / 2 = 0.3457737974
        let got = match rbf_defaults(&t, &[0, 1, 2]) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        };
        let (Some(v), Some(l)) = (got.variance, got.lengthscale) else {
            panic!("{got:?}")
        };
        assert!(close(v, 23.0 / 2700.0), "v = {v}");
        assert!((l - 0.345_773_797_4).abs() < 1e-10, "ℓ = {l}");
        // The default kernel uses exactly these.
        let Ok(default) = GpPrior::from_trace(&t, &[0, 1, 2], Kernel::default()) else {
            panic!("default kernel")
        };
        let explicit = Kernel::Rbf {
            variance: Some(v),
            lengthscale: Some(l),
        };
        let Ok(explicit) = GpPrior::from_trace(&t, &[0, 1, 2], explicit) else {
            panic!("explicit kernel")
        };
        assert_eq!(default, explicit);
        assert_eq!(default.cov()[[0, 0]], v);
    }

    #[test]
    fn rbf_defaults_undefined_or_zero_are_errors_naming_the_keys() {
        // One prior user: every model's variance is 0, so v = 0.
        let e = GpPrior::from_trace(&tiny_trace(), &[0], Kernel::default()).err();
        let Some(e) = e else {
            panic!("one prior user must fail")
        };
        let m = e.message();
        assert!(
            m.contains("variance") && m.contains("lengthscale") && m.contains("is 0"),
            "{m}"
        );
        // With v given, ℓ = median of u0's pair distances is fine.
        let k = Kernel::Rbf {
            variance: Some(0.1),
            lengthscale: None,
        };
        assert!(GpPrior::from_trace(&tiny_trace(), &[0], k).is_ok());
        // A single model: no pair, ℓ undefined.
        let csv = "user,model,accuracy,runtime_s\nu0,a,0.5,1\nu1,a,0.7,1\n";
        let Ok(t) = parse_trace("one", csv.as_bytes()) else {
            panic!("trace")
        };
        let e = GpPrior::from_trace(&t, &[0, 1], Kernel::default()).err();
        let Some(e) = e else {
            panic!("one model must fail")
        };
        assert!(
            e.message().contains("lengthscale ℓ") && e.message().contains("undefined"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn flat_kernel_by_hand() {
        // Mean: grand mean 0.7 for every model; Σ = 0.02·I by default.
        let p = build(Kernel::Flat { variance: None });
        assert_vec(p.mean(), &[0.7; 4]);
        let mut want = [[0.0; 4]; 4];
        for (k, row) in want.iter_mut().enumerate() {
            row[k] = 0.02;
        }
        assert_matrix(p.cov(), &want);

        let p = build(Kernel::Flat {
            variance: Some(0.5),
        });
        assert_vec(p.mean(), &[0.7; 4]);
        for (k, row) in want.iter_mut().enumerate() {
            row[k] = 0.5;
        }
        assert_matrix(p.cov(), &want);
    }

    #[test]
    fn prior_users_subset_is_respected() {
        // Prior users u1 and u3 only: m_a = (0.7 + 0.1) / 2 = 0.4, m_b = 0.9,
        // m_d = 0.2; c has no prior user → grand mean (0.7+0.9+0.1+0.2)/4
        // = 0.475. Σ[a,a] = (0.3² + 0.3²)/2 = 0.09; Σ[b,b] = Σ[d,d] = 0
        // (one user each); Σ[a,b] = (0.3)(0)/1 = 0; Σ[a,d] = (−0.3)(0) = 0.
        let p = match GpPrior::from_trace(&tiny_trace(), &[1, 3], Kernel::Empirical) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        assert_vec(p.mean(), &[0.4, 0.9, 0.475, 0.2]);
        assert!(close(p.cov()[[0, 0]], 0.09));
        assert!(close(p.cov()[[1, 1]], 0.0));
        assert!(close(p.cov()[[3, 3]], 0.0));
        // Pooled variance of the 4 cells about 0.475: deviations 0.225,
        // 0.425, −0.375, −0.275 → squares 0.050625 + 0.180625 + 0.140625 +
        // 0.075625 = 0.4475 → / 4 = 0.111875 (c's fallback variance).
        assert!(close(p.cov()[[2, 2]], 0.111_875));
    }

    #[test]
    fn relative_cost_by_hand() {
        // u0: runtimes 1,2,3 → mean 2 → a 0.5, b 1.0, c 1.5
        // u1: runtimes 2,6   → mean 4 → a 0.5, b 1.5
        // u2: runtimes 3,1   → mean 2 → a 1.5, c 0.5
        // a: (0.5+0.5+1.5)/3 = 0.8333…; b: (1.0+1.5)/2 = 1.25;
        // c: (1.5+0.5)/2 = 1.0; d: no prior user → 1.0
        let got = match relative_cost_prior(&tiny_trace(), &[0, 1, 2]) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        };
        assert_vec(&got, &[2.5 / 3.0, 1.25, 1.0, 1.0]);
    }

    #[test]
    fn runtime_prior_by_hand() {
        // Seconds over prior users u0..u2 (tiny_trace runtimes):
        // a: (1 + 2 + 3)/3 = 2; b: (2 + 6)/2 = 4; c: (3 + 1)/2 = 2;
        // d: no prior user → mean of all 7 prior cells (1+2+3+2+6+3+1)/7 = 18/7
        let got = match runtime_prior_s(&tiny_trace(), &[0, 1, 2]) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        };
        assert_vec(&got, &[2.0, 4.0, 2.0, 18.0 / 7.0]);
    }

    #[test]
    fn bad_inputs_are_clear_errors() {
        let t = tiny_trace();
        let e = GpPrior::from_trace(&t, &[], Kernel::Empirical).err();
        assert!(e.is_some_and(|e| e.message().contains("no prior users")));
        let e = GpPrior::from_trace(&t, &[0, 9], Kernel::Empirical).err();
        assert!(e.is_some_and(|e| e.message().contains("out of range")));
        let e = GpPrior::from_trace(&t, &[1, 1], Kernel::Empirical).err();
        assert!(e.is_some_and(|e| e.message().contains("given twice")));
        let e = relative_cost_prior(&t, &[]).err();
        assert!(e.is_some_and(|e| e.message().contains("no prior users")));
        let bad_kernels = [
            Kernel::Rbf {
                variance: Some(1.0),
                lengthscale: Some(0.0),
            },
            Kernel::Rbf {
                variance: Some(-1.0),
                lengthscale: Some(1.0),
            },
            Kernel::Rbf {
                variance: Some(f64::NAN),
                lengthscale: Some(1.0),
            },
            Kernel::Flat {
                variance: Some(f64::INFINITY),
            },
        ];
        for kernel in bad_kernels {
            assert!(GpPrior::from_trace(&t, &[0], kernel).is_err(), "{kernel:?}");
        }
    }

    /// A random trace: `n_users` × `n_models` cells, each present with the
    /// given flag (every user keeps at least one model), as canonical CSV.
    fn random_trace(n_models: usize, cells: &[(bool, f64)]) -> Trace {
        let mut csv = String::from("user,model,accuracy,runtime_s\n");
        for (u, row) in cells.chunks(n_models).enumerate() {
            for (k, &(present, acc)) in row.iter().enumerate() {
                if present || k == u % n_models {
                    csv.push_str(&format!("u{u},m{k},{acc},{}\n", 1 + (u + k) % 5));
                }
            }
        }
        match parse_trace("random", csv.as_bytes()) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    proptest! {
        /// The built prior equals a direct reading of DESIGN §3.2 over the
        /// trace accessors (by trace model index, which need not follow the
        /// CSV column order).
        #[test]
        fn prior_matches_direct_definition(
            (n_models, cells, n_prior) in (1usize..6, 1usize..8).prop_flat_map(|(k, u)| (
                Just(k),
                prop::collection::vec((prop::bool::weighted(0.7), 0.0f64..1.0), k * u),
                1..=u,
            )),
        ) {
            let t = random_trace(n_models, &cells);
            let prior_users: Vec<usize> = (0..n_prior).rev().collect();
            let has = |j: usize, k: usize| t.is_available(j, k);
            let a = |j: usize, k: usize| t.accuracy(j, k);
            let mean_of = |k: usize| {
                let xs: Vec<f64> = prior_users.iter().filter(|&&j| has(j, k)).map(|&j| a(j, k)).collect();
                (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
            };
            let all: Vec<f64> = prior_users.iter()
                .flat_map(|&j| (0..t.n_models()).filter(move |&k| has(j, k)).map(move |k| a(j, k)))
                .collect();
            let grand = all.iter().sum::<f64>() / all.len() as f64;
            let pooled = all.iter().map(|x| (x - grand) * (x - grand)).sum::<f64>() / all.len() as f64;
            let k_all = t.n_models();
            let m: Vec<f64> = (0..k_all).map(|k| mean_of(k).unwrap_or(grand)).collect();
            let shared = |k: usize, l: usize| -> Vec<usize> {
                prior_users.iter().copied().filter(|&j| has(j, k) && has(j, l)).collect()
            };
            let Ok(emp) = GpPrior::from_trace(&t, &prior_users, Kernel::Empirical) else {
                panic!("empirical")
            };
            let Ok(rbf) = GpPrior::from_trace(&t, &prior_users, Kernel::Rbf { variance: Some(0.3), lengthscale: Some(0.2) }) else {
                panic!("rbf")
            };
            for k in 0..k_all {
                prop_assert!((emp.mean()[k] - m[k]).abs() < 1e-12);
                prop_assert!((rbf.mean()[k] - m[k]).abs() < 1e-12);
                for l in 0..k_all {
                    let js = shared(k, l);
                    let n = js.len() as f64;
                    let want_emp = if js.is_empty() {
                        if k == l { pooled } else { 0.0 }
                    } else {
                        js.iter().map(|&j| (a(j, k) - m[k]) * (a(j, l) - m[l])).sum::<f64>() / n
                    };
                    let want_rbf = if k == l {
                        0.3
                    } else if js.is_empty() {
                        0.0
                    } else {
                        let d2 = js.iter().map(|&j| (a(j, k) - a(j, l)).powi(2)).sum::<f64>() / n;
                        0.3 * (-d2 / (2.0 * 0.2 * 0.2)).exp()
                    };
                    prop_assert!((emp.cov()[[k, l]] - want_emp).abs() < 1e-12, "emp [{},{}]", k, l);
                    prop_assert!((rbf.cov()[[k, l]] - want_rbf).abs() < 1e-12, "rbf [{},{}]", k, l);
                }
            }
        }
    }

    #[test]
    fn from_parts_checks_shape_symmetry_and_finiteness() {
        let ok = Array2::from_shape_vec((2, 2), vec![1.0, 0.5, 0.5, 1.0]);
        let Ok(ok) = ok else { panic!("shape") };
        assert!(GpPrior::from_parts(vec![0.0, 0.0], ok.clone()).is_ok());
        assert!(GpPrior::from_parts(vec![0.0], ok.clone()).is_err());
        let mut asym = ok.clone();
        asym[[0, 1]] = 0.4;
        assert!(GpPrior::from_parts(vec![0.0, 0.0], asym).is_err());
        assert!(GpPrior::from_parts(vec![f64::NAN, 0.0], ok).is_err());
    }
}
