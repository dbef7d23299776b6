//! Cache-eviction and parallelisation rules a user writes (DESIGN §14.8):
//! the traits, the facts each call sees, and the per-run factories a
//! registry entry holds. A leaf: it imports no other file of the folder.
//!
//! **Eviction** ([`Eviction::score`]): the cache asks a user rule for a
//! score of an entry when the entry is **created** (stored, hits 0) and
//! each time it is **hit** (hits counted, last used = now); the score
//! does not change otherwise. Entries are evicted lowest score first;
//! equal scores fall back to the built-in `lru` key (last used, created,
//! insertion number). NaN, or an error, stops the run with an error
//! naming the rule.
//!
//! **Parallelisation** ([`Parallelism::parts`]): asked each time an
//! attempt of a parallelisable step is submitted (its parents done, its
//! output not in the cache); it returns the number of sub-jobs, 1 to the
//! policy's `parallel_k` (the most, which also sizes the workload's job
//! arrays); 0 or more is an error naming the rule.

use std::fmt;
use std::sync::Arc;

use crate::core::error::Result;
use crate::core::sim::time::Micros;

/// What an eviction rule knows of a cache entry (DESIGN §14.8). The
/// step is the one whose output the entry holds (the one that stored it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheEntry {
    /// Bytes it holds (the step's `output_bytes`).
    pub bytes: u64,
    /// Run time a hit saves: the step's `runtime_s`, µs.
    pub saved_us: Micros,
    /// GPUs of the step.
    pub gpus: u32,
    /// CPUs of the step.
    pub cpus: u32,
    /// When it was stored, µs.
    pub created: Micros,
    /// Its last hit, or `created`, µs.
    pub last_used: Micros,
    /// Hits so far (0 when created).
    pub hits: u64,
    /// The tenant (index in the trace's order) of the workflow that stored it.
    pub tenant: u32,
    /// Whether the cache is shared by every tenant (`scope = "global"`).
    pub global: bool,
    /// Now, µs.
    pub now: Micros,
}

/// A user's cache-eviction rule: the lowest score is evicted first.
pub trait Eviction: Send {
    /// The entry's score (finite or infinite, never NaN).
    fn score(&mut self, entry: &CacheEntry) -> Result<f64>;
}

impl<F: FnMut(&CacheEntry) -> Result<f64> + Send> Eviction for F {
    fn score(&mut self, entry: &CacheEntry) -> Result<f64> {
        self(entry)
    }
}

/// What a parallelisation rule knows of a step it may split (DESIGN §14.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitStep {
    /// The step's run time unsplit, µs.
    pub runtime: Micros,
    /// GPUs of each sub-job (the step's).
    pub gpus: u32,
    /// CPUs of each sub-job (the step's).
    pub cpus: u32,
    /// The policy's `parallel_k`: the most sub-jobs the rule may return.
    pub parallel_k: u32,
    /// GPUs free in the cluster now.
    pub free_gpus: u64,
    /// CPUs free in the cluster now (`None`: the cluster does not count
    /// CPUs, `cpus_per_node = 0`).
    pub free_cpus: Option<u64>,
    /// Now, µs.
    pub now: Micros,
}

/// A user's auto-parallelisation rule: how many sub-jobs a step runs as.
pub trait Parallelism: Send {
    /// Sub-jobs for `step`, 1 to `step.parallel_k`.
    fn parts(&mut self, step: &SplitStep) -> Result<u32>;
}

impl<F: FnMut(&SplitStep) -> Result<u32> + Send> Parallelism for F {
    fn parts(&mut self, step: &SplitStep) -> Result<u32> {
        self(step)
    }
}

/// Makes a run's eviction rule (one per run: a rule may keep state).
pub type MakeEviction = Arc<dyn Fn() -> Result<Box<dyn Eviction>> + Send + Sync>;

/// Makes a run's parallelisation rule.
pub type MakeParallelism = Arc<dyn Fn() -> Result<Box<dyn Parallelism>> + Send + Sync>;

/// A registered rule as a policy holds it: its name (for messages and
/// equality) and its per-run factory.
#[derive(Clone)]
pub struct UserRule<M> {
    /// The name scenarios use.
    pub name: Arc<str>,
    /// Makes the rule of one run.
    pub make: M,
}

/// A user eviction rule chosen by a policy.
pub type UserEviction = UserRule<MakeEviction>;

/// A user parallelisation rule chosen by a policy.
pub type UserParallel = UserRule<MakeParallelism>;

impl<M> fmt::Debug for UserRule<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserRule")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Two choices are equal when they name the same rule.
impl<M> PartialEq for UserRule<M> {
    fn eq(&self, o: &Self) -> bool {
        self.name == o.name
    }
}

impl<M> Eq for UserRule<M> {}

/// A score as a `u64` that orders like the score: −∞ < … < −0 = +0 < … <
/// +∞ (IEEE-754's bits, the sign bit flipped for non-negatives and every
/// bit flipped for negatives; −0 is first made +0). `None` for NaN.
pub fn score_key(score: f64) -> Option<u64> {
    if score.is_nan() {
        return None;
    }
    let bits = (score + 0.0).to_bits();
    Some(if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key orders like the float, on values whose order is known by
    /// hand: −∞ < −2.5 < −1e-300 < −0 = 0 < 5e-324 (the least subnormal)
    /// < 1 < 1e300 < +∞.
    #[test]
    fn score_keys_order_like_the_scores() {
        let xs = [
            f64::NEG_INFINITY,
            -2.5,
            -1e-300,
            0.0,
            5e-324,
            1.0,
            1e300,
            f64::INFINITY,
        ];
        let keys: Vec<u64> = xs.iter().map(|&x| score_key(x).expect("not NaN")).collect();
        for w in keys.windows(2) {
            assert!(w[0] < w[1], "{keys:?}");
        }
        assert_eq!(score_key(-0.0), score_key(0.0));
        assert_eq!(score_key(f64::NAN), None);
    }
}
