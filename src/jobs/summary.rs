//! What a job-mode run reports over its repetitions (DESIGN §9.6): per
//! policy, the mean of each run's figures, the Student-t interval of the
//! mean JCT, and the mean-JCT speedup over the baseline policy. The
//! terminal table, `--json` and `sweep.csv` show these.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::run::JobRunSummary;
use super::scenario::JobScenario;
use crate::core::analysis::stats::{Band, mean, t_band};
use crate::core::io::csv_text::csv_field;
use crate::core::io::schema::Layout;
use crate::core::io::table::{align, num_text};
use crate::core::run::mode::PointInfo;
use crate::core::run::sweep::{SweepAxis, value_text};

/// One policy over its repetitions. Times in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct JobPolicySummary {
    /// The policy's name.
    pub name: String,
    /// Mean JCT: mean over repetitions and its confidence interval.
    pub mean_jct: Band,
    /// Means over repetitions of each run's median, p95 and p99 JCT.
    pub median_jct: f64,
    /// See `median_jct`.
    pub p95_jct: f64,
    /// See `median_jct`.
    pub p99_jct: f64,
    /// Mean queueing delay, mean over repetitions.
    pub mean_queueing: f64,
    /// Makespan, mean over repetitions.
    pub makespan: f64,
    /// GPU utilisation, mean over repetitions.
    pub utilization: f64,
    /// Jain's index of the users' mean slowdowns, mean over repetitions.
    pub jain: f64,
    /// Preemptions per run, mean over repetitions.
    pub preemptions: f64,
    /// The baseline's mean JCT divided by this policy's (> 1: faster than
    /// the baseline); `None` when this policy's mean JCT is 0.
    pub speedup: Option<f64>,
}

/// The summary of a job-mode scenario's runs.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSummary {
    /// Repetitions.
    pub repetitions: u32,
    /// The baseline policy's index.
    pub baseline: usize,
    /// Level of the interval of the mean JCT.
    pub confidence: f64,
    /// Per policy, in scenario order.
    pub policies: Vec<JobPolicySummary>,
    /// Whether every policy is configured alike (the same scheduler,
    /// backfilling and keys under different names, as a sweep point whose
    /// swept scheduler equals the baseline's): identical results are then
    /// expected, not a sign of a degenerate workload
    /// ([`crate::jobs::warnings`]).
    pub alike: bool,
}

/// Summarise `runs` (in (repetition, policy) order) of `scenario`.
pub fn summarize(scenario: &JobScenario, runs: &[JobRunSummary]) -> JobSummary {
    let level = scenario.file.output.confidence;
    let mut policies: Vec<JobPolicySummary> = scenario
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let of = |f: fn(&JobRunSummary) -> f64| -> Vec<f64> {
                runs.iter().filter(|r| r.policy == i).map(f).collect()
            };
            JobPolicySummary {
                name: p.name.clone(),
                mean_jct: t_band(&of(|r| r.metrics.mean_jct / 1e6), level),
                median_jct: mean(&of(|r| r.metrics.median_jct / 1e6)),
                p95_jct: mean(&of(|r| r.metrics.p95_jct / 1e6)),
                p99_jct: mean(&of(|r| r.metrics.p99_jct / 1e6)),
                mean_queueing: mean(&of(|r| r.metrics.mean_queueing / 1e6)),
                makespan: mean(&of(|r| r.metrics.makespan as f64 / 1e6)),
                utilization: mean(&of(|r| r.metrics.utilization)),
                jain: mean(&of(|r| r.metrics.jain)),
                preemptions: mean(&of(|r| r.metrics.preemptions as f64)),
                speedup: None,
            }
        })
        .collect();
    let base = policies.get(scenario.baseline).map(|p| p.mean_jct.mean);
    for p in &mut policies {
        p.speedup = base
            .filter(|_| p.mean_jct.mean > 0.0)
            .map(|b| b / p.mean_jct.mean);
    }
    let alike = scenario.file.policies.windows(2).all(|w| {
        let (a, b) = (&w[0], &w[1]);
        a.scheduler == b.scheduler && a.backfill == b.backfill && a.params == b.params
    });
    JobSummary {
        alike,
        repetitions: scenario.repetitions(),
        baseline: scenario.baseline,
        confidence: level,
        policies,
    }
}

impl JobSummary {
    /// The baseline policy's name.
    pub fn baseline_name(&self) -> &str {
        self.policies
            .get(self.baseline)
            .map_or("", |p| p.name.as_str())
    }

    fn level_text(&self) -> String {
        let pct = format!("{:.6}", self.confidence * 100.0);
        format!("{}%", pct.trim_end_matches('0').trim_end_matches('.'))
    }

    /// The terminal table.
    pub fn table(&self) -> String {
        let header = [
            "policy".to_string(),
            "mean JCT s".into(),
            format!("± {}", self.level_text()),
            "median s".into(),
            "p95 s".into(),
            "p99 s".into(),
            "queueing s".into(),
            "makespan s".into(),
            "util".into(),
            "jain".into(),
            "preempt".into(),
            "speedup".into(),
        ];
        let mut rows = vec![header.to_vec()];
        for p in &self.policies {
            rows.push(vec![
                p.name.clone(),
                num_text(p.mean_jct.mean),
                num_text(p.mean_jct.high - p.mean_jct.mean),
                num_text(p.median_jct),
                num_text(p.p95_jct),
                num_text(p.p99_jct),
                num_text(p.mean_queueing),
                num_text(p.makespan),
                num_text(p.utilization),
                num_text(p.jain),
                num_text(p.preemptions),
                p.speedup.map_or_else(|| "n/a".to_string(), num_text),
            ]);
        }
        let mut out = format!(
            "baseline `{}`; means over {} repetition(s); speedup = the baseline's mean JCT / the policy's\n",
            self.baseline_name(),
            self.repetitions
        );
        out.push_str(&align(&rows));
        out
    }

    /// The figures of [`JobSummary::table`] as JSON (times in seconds). Its
    /// top-level keys are those of model mode's summary; job mode has no
    /// quality thresholds, so `thresholds` is empty.
    pub fn json(&self) -> Value {
        let policies: Vec<Value> = self
            .policies
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "mean_jct_s": {
                        "mean": p.mean_jct.mean,
                        "ci_low": p.mean_jct.low,
                        "ci_high": p.mean_jct.high,
                    },
                    "median_jct_s": p.median_jct,
                    "p95_jct_s": p.p95_jct,
                    "p99_jct_s": p.p99_jct,
                    "mean_queueing_delay_s": p.mean_queueing,
                    "makespan_s": p.makespan,
                    "gpu_utilization": p.utilization,
                    "jain_index": p.jain,
                    "preemptions": p.preemptions,
                    "speedup": p.speedup,
                })
            })
            .collect();
        json!({
            "repetitions": self.repetitions,
            "baseline": self.baseline_name(),
            "thresholds": Vec::<f64>::new(),
            "confidence": self.confidence,
            "policies": policies,
        })
    }
}

/// `sweep.csv` of a job-mode sweep: `point,folder`, one column per swept
/// key, then `policy,baseline,reps,mean_jct_s,mean_jct_ci_low_s,`
/// `mean_jct_ci_high_s,median_jct_s,p95_jct_s,p99_jct_s,`
/// `mean_queueing_delay_s,makespan_s,gpu_utilization,jain_index,`
/// `preemptions,speedup` (means over repetitions; `speedup` empty when
/// undefined).
pub fn sweep_csv(axes: &[SweepAxis], points: &[(PointInfo<'_>, &JobSummary)]) -> String {
    // The header, from the schema (crate::core::io::schema::job_files::sweep).
    let mut out = crate::core::io::schema::job_files::sweep::FILE.header(&Layout {
        swept_keys: axes.iter().map(|a| a.key.clone()).collect(),
        ..Layout::default()
    });
    for (pt, s) in points {
        for p in &s.policies {
            let _ = write!(out, "{},{}", pt.index, csv_field(pt.folder));
            for (_, v) in pt.values {
                let _ = write!(out, ",{}", csv_field(&value_text(v)));
            }
            let _ = writeln!(
                out,
                ",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&p.name),
                csv_field(s.baseline_name()),
                p.mean_jct.n,
                p.mean_jct.mean,
                p.mean_jct.low,
                p.mean_jct.high,
                p.median_jct,
                p.p95_jct,
                p.p99_jct,
                p.mean_queueing,
                p.makespan,
                p.utilization,
                p.jain,
                p.preemptions,
                p.speedup.map_or_else(String::new, |x| x.to_string()),
            );
        }
    }
    out
}
