//! Warnings about degenerate job-mode runs: scenarios that run, but whose
//! results say little (DESIGN §9.6). As in model mode they go to stderr and
//! into `run.json` (`warnings`); they never change a result.
//!
//! - The scenario's own warnings, known before any run (GPU type names of
//!   the trace that the cluster lacks, [`crate::jobs::typing`]; a speed
//!   table's unknown names are errors).
//! - [`result_warnings`], known after the repetitions:
//!   - **under-loaded**: every policy's mean GPU utilisation is below
//!     [`LOW_UTILIZATION`] (10 %): jobs rarely wait, so cluster schedulers
//!     have little to decide and tend to agree;
//!   - **indistinguishable**: with two or more policies that are not all
//!     configured alike ([`JobSummary::alike`]), every policy has the same
//!     mean, median, p95 and p99 JCT, queueing delay and makespan: the
//!     comparison cannot tell them apart on this workload.

use super::summary::{JobPolicySummary, JobSummary};

/// Mean GPU utilisation (GPU-time held / (GPUs × makespan), DESIGN §9.6)
/// under which a run is flagged as under-loaded.
pub const LOW_UTILIZATION: f64 = 0.10;

/// The figures two policies must share to count as giving the same result.
fn outcome(p: &JobPolicySummary) -> [f64; 6] {
    [
        p.mean_jct.mean,
        p.median_jct,
        p.p95_jct,
        p.p99_jct,
        p.mean_queueing,
        p.makespan,
    ]
}

/// The warnings a finished job-mode run gives from its summary.
pub fn result_warnings(summary: &JobSummary) -> Vec<String> {
    let mut out = Vec::new();
    let policies = &summary.policies;
    if policies.is_empty() {
        return out;
    }
    let highest = policies
        .iter()
        .map(|p| p.utilization)
        .fold(f64::NEG_INFINITY, f64::max);
    if highest < LOW_UTILIZATION {
        out.push(format!(
            "the cluster is under-loaded: GPU utilisation is at most {:.1} % under every policy (below {:.0} %), so jobs rarely wait and schedulers have little to decide; raise the load (a shorter arrival_scale, fewer nodes) to compare them",
            highest * 100.0,
            LOW_UTILIZATION * 100.0
        ));
    }
    if policies.len() > 1 && !summary.alike {
        let first = outcome(&policies[0]);
        if policies.iter().all(|p| outcome(p) == first) {
            out.push(format!(
                "every policy gives the same result (mean JCT {} s, makespan {} s): the {} policies cannot be told apart on this workload",
                first[0],
                first[5],
                policies.len()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::stats::Band;

    fn policy(name: &str, mean_jct: f64, makespan: f64, utilization: f64) -> JobPolicySummary {
        JobPolicySummary {
            name: name.into(),
            mean_jct: Band {
                mean: mean_jct,
                low: mean_jct,
                high: mean_jct,
                n: 1,
            },
            median_jct: mean_jct,
            p95_jct: mean_jct,
            p99_jct: mean_jct,
            mean_queueing: 0.0,
            makespan,
            utilization,
            jain: 1.0,
            preemptions: 0.0,
            speedup: Some(1.0),
        }
    }

    fn summary(policies: Vec<JobPolicySummary>) -> JobSummary {
        JobSummary {
            repetitions: 1,
            baseline: 0,
            confidence: 0.95,
            policies,
            alike: false,
        }
    }

    #[test]
    fn an_under_loaded_run_where_every_policy_agrees_gets_both_warnings() {
        let w = result_warnings(&summary(vec![
            policy("fifo", 10.0, 100.0, 0.036),
            policy("sjf", 10.0, 100.0, 0.036),
        ]));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("at most 3.6 %"), "{}", w[0]);
        assert!(w[1].contains("mean JCT 10 s, makespan 100 s"), "{}", w[1]);
        assert!(w[1].contains("the 2 policies"), "{}", w[1]);
    }

    #[test]
    fn policies_configured_alike_may_agree_without_a_warning() {
        let mut s = summary(vec![
            policy("swept", 10.0, 100.0, 0.5),
            policy("fifo", 10.0, 100.0, 0.5),
        ]);
        assert_eq!(result_warnings(&s).len(), 1);
        s.alike = true;
        assert!(result_warnings(&s).is_empty());
    }

    #[test]
    fn a_busy_run_whose_policies_differ_gets_none() {
        let w = result_warnings(&summary(vec![
            policy("fifo", 10.0, 100.0, 0.5),
            policy("sjf", 8.0, 100.0, 0.05),
        ]));
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn one_busy_policy_is_enough_to_not_be_under_loaded() {
        // 0.1 itself is not below the bound.
        let w = result_warnings(&summary(vec![policy("fifo", 10.0, 100.0, 0.1)]));
        assert!(w.is_empty(), "{w:?}");
        let w = result_warnings(&summary(vec![policy("fifo", 10.0, 100.0, 0.0999)]));
        assert_eq!(w.len(), 1, "{w:?}");
    }
}
