//! A synthetic job workload for benchmarks and property tests: Poisson
//! arrivals sized to a target load, job sizes of 1, 2, 4 or 8 GPUs
//! (70/10/10/10 %), and heavy-tailed durations (a mixture of exponentials:
//! 80 % short, 20 % ten times longer), users drawn uniformly. Deterministic
//! for a seed (the `gen` stream of repetition 0).

use rand::Rng;

use super::trace::Job;
use crate::core::sim::rng::{Purpose, stream};
use crate::core::sim::time::Micros;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticSpec {
    /// Number of jobs.
    pub jobs: usize,
    /// GPUs of the cluster the load refers to.
    pub cluster_gpus: u64,
    /// Offered load: requested GPU-time per unit time / cluster GPUs.
    pub load: f64,
    /// Mean job duration, seconds.
    pub mean_duration_s: f64,
    /// Number of users.
    pub users: u32,
    /// Seed.
    pub seed: u64,
}

/// Mean GPUs per job of the size distribution.
const MEAN_GPUS: f64 = 0.7 + 0.1 * 2.0 + 0.1 * 4.0 + 0.1 * 8.0;

/// Generate the jobs, in submit order.
pub fn synthetic_jobs(spec: &SyntheticSpec) -> Vec<Job> {
    let mut rng = stream(spec.seed, 0, Purpose::Generator);
    let mean_us = spec.mean_duration_s * 1e6;
    // Mixture mean: 0.8 · 1 + 0.2 · 10 = 2.8 units.
    let unit = mean_us / 2.8;
    let rate = spec.load * spec.cluster_gpus as f64 / (MEAN_GPUS * mean_us);
    let mut t = 0f64;
    let exp = |rng: &mut crate::core::sim::rng::SimRng| -> f64 { -(1.0 - rng.r#gen::<f64>()).ln() };
    (0..spec.jobs)
        .map(|_| {
            t += exp(&mut rng) / rate;
            let size: f64 = rng.r#gen();
            let gpus = if size < 0.7 {
                1
            } else if size < 0.8 {
                2
            } else if size < 0.9 {
                4
            } else {
                8
            };
            let long = rng.r#gen::<f64>() < 0.2;
            let d = exp(&mut rng) * unit * if long { 10.0 } else { 1.0 };
            Job {
                submit: t.round() as Micros,
                duration: (d.round() as Micros).max(1),
                gpus,
                user: rng.gen_range(0..spec.users.max(1)),
                cpus: 0,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator delivers the load it is asked for (within sampling
    /// noise), so the benchmark's "load 0.85" means what it says.
    #[test]
    fn offered_load_matches_the_spec() {
        let spec = SyntheticSpec {
            jobs: 50_000,
            cluster_gpus: 1000,
            load: 0.85,
            mean_duration_s: 3600.0,
            users: 100,
            seed: 42,
        };
        let jobs = synthetic_jobs(&spec);
        assert_eq!(jobs.len(), 50_000);
        assert!(jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        let work: f64 = jobs
            .iter()
            .map(|j| j.duration as f64 * f64::from(j.gpus))
            .sum();
        let span = jobs.last().map_or(1, |j| j.submit) as f64;
        let load = work / (span * 1000.0);
        assert!((load - 0.85).abs() < 0.05, "offered load {load}");
        let mean_s = jobs.iter().map(|j| j.duration as f64).sum::<f64>() / 50_000.0 / 1e6;
        assert!((mean_s - 3600.0).abs() < 200.0, "mean duration {mean_s}");
        assert_eq!(jobs, synthetic_jobs(&spec), "deterministic");
    }
}
