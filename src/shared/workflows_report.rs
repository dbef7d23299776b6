//! The workflows' results (DESIGN §14.7): `workflows/workflows.csv` (one
//! row per workflow and task), `workflows/summary.csv` (per policy over
//! repetitions), with `--jobs` `steps.csv` and `jobs.csv`, the terminal
//! table and the `--json` figures.
//!
//! **The figures of one run** ([`WorkflowMetrics::of`]), from its
//! [`WorkflowOutcome`]:
//! - *submitted* = the workflows with `submit ≤ horizon` (all of them
//!   without `[workflows] horizon_s`);
//! - `completion_rate` = done / submitted (undefined with none
//!   submitted); a workflow is done when all its steps are, by its
//!   deadline and the horizon (the simulation marks the others `failed`,
//!   `deadline` or `unfinished`);
//! - makespan of a done workflow = `end − submit`; `makespan_p50_s` and
//!   `makespan_p99_s` are their 50th and 99th percentiles (type 7,
//!   [`percentile`]; undefined with no workflow done);
//! - the run's **length** L = from the first submitted workflow's submit
//!   time to the last workflows event ([`WorkflowOutcome::end`]), job
//!   mode's makespan for the workflows;
//!   `gpu_utilization` = the workflows' busy GPU-µs / (cluster GPUs × L),
//!   `cpu_utilization` = busy CPU-µs / (cluster CPUs × L) (undefined when
//!   CPUs are not counted or L = 0);
//! - `cache_hit_ratio` = hits / (hits + misses) over ready steps with a
//!   `cache_key` (undefined with none);
//! - `bytes_stored` = the most bytes the cache held at once;
//! - `gpu_hours_saved` = Σ over workflows of their saved GPU-µs / 3.6e9
//!   (a hit saves the step's `gpus × runtime_s`), `cpu_hours_saved`
//!   likewise.
//!
//! **Over repetitions** (`summary.csv`), each figure is the mean over the
//! repetitions where it is defined with its Student-t band at
//! `[output] confidence` ([`t_band`]); `n/a` where it is defined in none.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::scenario::SharedScenario;
use super::sim::{WorkflowOutcome, WorkflowState};
use crate::core::analysis::stats::{Band, percentile, t_band};
use crate::core::error::Result;
use crate::core::io::csv_text::csv_field;
use crate::core::io::spool::Spool;
use crate::core::io::table::{align, num_text};
use crate::core::run::mode::PointInfo;
use crate::core::run::sweep::{SweepAxis, value_text};
use crate::core::sim::time::{Micros, micros_to_secs_string};

/// A time that never came.
const NEVER: Micros = Micros::MAX;

/// µs per hour.
const US_PER_HOUR: f64 = 3.6e9;

/// The header of `workflows/workflows.csv`.
pub const WORKFLOWS_HEADER: &str = "policy,rep,workflow,tenant,submit_s,end_s,state,retries,cache_hits,gpu_s,cpu_s,gpu_s_saved,cpu_s_saved\n";

/// The header of `workflows/steps.csv` (`--jobs`).
pub const STEPS_HEADER: &str =
    "policy,rep,workflow,step,ready_s,start_s,end_s,state,attempts,parts\n";

/// The header of `workflows/jobs.csv` (`--jobs`): job mode's columns.
pub const JOBS_HEADER: &str = "policy,rep,job_id,user,submit_s,start_s,end_s,gpus\n";

/// The figures of `summary.csv`, in column order; each is written as
/// `<name>,<name>_ci_low,<name>_ci_high`.
pub const SUMMARY_FIGURES: [&str; 9] = [
    "completion_rate",
    "makespan_p50_s",
    "makespan_p99_s",
    "gpu_utilization",
    "cpu_utilization",
    "cache_hit_ratio",
    "bytes_stored",
    "gpu_hours_saved",
    "cpu_hours_saved",
];

/// The header of `workflows/summary.csv`: `policy,reps`, then each of
/// [`SUMMARY_FIGURES`] with its band.
pub fn summary_header() -> String {
    let mut h = String::from("policy,reps");
    for f in SUMMARY_FIGURES {
        let _ = write!(h, ",{f},{f}_ci_low,{f}_ci_high");
    }
    h.push('\n');
    h
}

/// The figures of one run (module documentation); `None` where
/// undefined. In [`SUMMARY_FIGURES`] order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WorkflowMetrics {
    /// Workflows submitted (submit ≤ horizon).
    pub submitted: u64,
    /// Of them, done.
    pub done: u64,
    /// The figures, in [`SUMMARY_FIGURES`] order.
    pub figures: [Option<f64>; 9],
}

impl WorkflowMetrics {
    /// The figures of run `o` on a cluster of `gpus` GPUs and `cpus` CPUs
    /// (0: not counted) with the workflows' horizon `horizon` (µs).
    pub fn of(o: &WorkflowOutcome, gpus: u64, cpus: u64, horizon: Option<Micros>) -> Self {
        let submitted: Vec<_> = o
            .workflows
            .iter()
            .filter(|w| horizon.is_none_or(|h| w.submit <= h))
            .collect();
        let mut makespans: Vec<u64> = submitted
            .iter()
            .filter(|w| w.state == WorkflowState::Done && w.end != NEVER)
            .map(|w| w.end.saturating_sub(w.submit))
            .collect();
        makespans.sort_unstable();
        let done = makespans.len() as u64;
        let n = submitted.len() as u64;
        let first = submitted.iter().map(|w| w.submit).min().unwrap_or(0);
        let length = u128::from(o.end.saturating_sub(first));
        let util = |busy: u128, units: u64| {
            let capacity = u128::from(units) * length;
            (capacity > 0).then(|| busy as f64 / capacity as f64)
        };
        let keyed = o.cache.hits + o.cache.misses;
        let saved = |f: fn(&super::sim::WorkflowRecord) -> u128| {
            o.workflows.iter().map(f).sum::<u128>() as f64 / US_PER_HOUR
        };
        let pct = |p: f64| (done > 0).then(|| percentile(&makespans, p) / 1e6);
        Self {
            submitted: n,
            done,
            figures: [
                (n > 0).then(|| done as f64 / n as f64),
                pct(50.0),
                pct(99.0),
                util(o.busy_gpu_us, gpus),
                util(o.busy_cpu_us, cpus),
                (keyed > 0).then(|| o.cache.hits as f64 / keyed as f64),
                Some(o.cache.bytes_max as f64),
                Some(saved(|w| w.gpu_us_saved)),
                Some(saved(|w| w.cpu_us_saved)),
            ],
        }
    }
}

/// One policy's figures over repetitions.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowPolicySummary {
    /// The policy's name.
    pub name: String,
    /// Repetitions.
    pub reps: usize,
    /// Per figure ([`SUMMARY_FIGURES`] order), the mean over the
    /// repetitions where it is defined and its band (`None`: in none).
    pub figures: Vec<Option<Band>>,
}

/// The workflows' summary of a shared scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowSummary {
    /// The baseline policy's index.
    pub baseline: usize,
    /// Confidence level of the bands.
    pub confidence: f64,
    /// Per policy, in scenario order.
    pub policies: Vec<WorkflowPolicySummary>,
}

/// Summarise per-run figures `runs` ((policy, figures), in repetition
/// order within each policy) of policies `names` at confidence `level`.
pub fn summarize(
    names: &[&str],
    baseline: usize,
    runs: &[(usize, WorkflowMetrics)],
    level: f64,
) -> WorkflowSummary {
    let policies = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mine: Vec<&WorkflowMetrics> = runs
                .iter()
                .filter(|(p, _)| *p == i)
                .map(|(_, m)| m)
                .collect();
            let figures = (0..SUMMARY_FIGURES.len())
                .map(|f| {
                    let values: Vec<f64> = mine.iter().filter_map(|m| m.figures[f]).collect();
                    (!values.is_empty()).then(|| t_band(&values, level))
                })
                .collect();
            WorkflowPolicySummary {
                name: (*name).to_string(),
                reps: mine.len(),
                figures,
            }
        })
        .collect();
    WorkflowSummary {
        baseline,
        confidence: level,
        policies,
    }
}

fn band_cells(out: &mut String, b: Option<Band>) {
    match b {
        Some(b) => {
            let _ = write!(out, ",{},{},{}", b.mean, b.low, b.high);
        }
        None => out.push_str(",n/a,n/a,n/a"),
    }
}

impl WorkflowSummary {
    /// `summary.csv`.
    pub fn csv(&self) -> String {
        let mut out = summary_header();
        for p in &self.policies {
            let _ = write!(out, "{},{}", csv_field(&p.name), p.reps);
            for b in &p.figures {
                band_cells(&mut out, *b);
            }
            out.push('\n');
        }
        out
    }

    /// The terminal table: the means.
    pub fn table(&self) -> String {
        let mut rows = vec![
            [
                "policy",
                "completion",
                "makespan p50 s",
                "p99 s",
                "GPU util",
                "CPU util",
                "hit ratio",
                "bytes stored",
                "GPU-h saved",
                "CPU-h saved",
            ]
            .map(str::to_string)
            .to_vec(),
        ];
        for p in &self.policies {
            let mut row = vec![p.name.clone()];
            row.extend(
                p.figures
                    .iter()
                    .map(|b| b.map_or_else(|| "n/a".to_string(), |b| num_text(b.mean))),
            );
            rows.push(row);
        }
        let mut out =
            String::from("means over repetitions; completion = workflows done / submitted\n");
        out.push_str(&align(&rows));
        out
    }

    /// The figures as JSON (`--json` key `workflows`).
    pub fn json(&self) -> Value {
        let policies: Vec<Value> = self
            .policies
            .iter()
            .map(|p| {
                let mut obj = serde_json::Map::new();
                obj.insert("name".into(), json!(p.name));
                obj.insert("reps".into(), json!(p.reps));
                for (f, b) in SUMMARY_FIGURES.iter().zip(&p.figures) {
                    obj.insert(
                        (*f).into(),
                        b.map_or(
                            Value::Null,
                            |b| json!({"mean": b.mean, "ci_low": b.low, "ci_high": b.high}),
                        ),
                    );
                }
                Value::Object(obj)
            })
            .collect();
        json!({ "confidence": self.confidence, "policies": policies })
    }

    /// The `--json` document's common keys as the workflows give them, for
    /// a scenario with neither service nor background (DESIGN §13.5):
    /// `repetitions` (the most any policy ran; all run as many),
    /// `baseline` (its name), `confidence`, `thresholds` (none: `null`)
    /// and `policies` ([`Self::json`]'s).
    pub fn common_json(&self) -> Value {
        let reps = self.policies.iter().map(|p| p.reps).max().unwrap_or(0);
        let baseline = self
            .policies
            .get(self.baseline)
            .map_or(Value::Null, |p| json!(p.name));
        let mut doc = self.json();
        if let Some(obj) = doc.as_object_mut() {
            obj.insert("repetitions".into(), json!(reps));
            obj.insert("baseline".into(), baseline);
            obj.insert("thresholds".into(), Value::Null);
        }
        doc
    }
}

/// `sweep.csv` of the workflows: `point,folder`, the swept keys,
/// `policy,baseline`, then each of [`SUMMARY_FIGURES`] with its band
/// (empty where undefined).
pub fn sweep_csv(axes: &[SweepAxis], points: &[(PointInfo<'_>, &WorkflowSummary)]) -> String {
    let mut out = String::from("point,folder");
    for a in axes {
        let _ = write!(out, ",{}", csv_field(&a.key));
    }
    out.push_str(",policy,baseline");
    for f in SUMMARY_FIGURES {
        let _ = write!(out, ",{f},{f}_ci_low,{f}_ci_high");
    }
    out.push('\n');
    for (pt, s) in points {
        let base = s.policies.get(s.baseline).map_or("", |p| p.name.as_str());
        for p in &s.policies {
            let _ = write!(out, "{},{}", pt.index, csv_field(pt.folder));
            for (_, v) in pt.values {
                let _ = write!(out, ",{}", csv_field(&value_text(v)));
            }
            let _ = write!(out, ",{},{}", csv_field(&p.name), csv_field(base));
            for b in &p.figures {
                match b {
                    Some(b) => {
                        let _ = write!(out, ",{},{},{}", b.mean, b.low, b.high);
                    }
                    None => out.push_str(",,,"),
                }
            }
            out.push('\n');
        }
    }
    out
}

/// µs as seconds with six decimals (exact).
fn us_secs(us: u128) -> String {
    format!("{}.{:06}", us / 1_000_000, us % 1_000_000)
}

/// A time, or empty for [`NEVER`].
fn time_cell(t: Micros) -> String {
    if t == NEVER {
        String::new()
    } else {
        micros_to_secs_string(t)
    }
}

/// Write the `workflows.csv` rows of policy `policy`, repetition `rep`
/// to `spool` as they are made (never a run's rows whole): one per
/// workflow in trace order (`end_s` empty unless done).
pub fn workflows_rows(
    spool: &mut Spool,
    s: &SharedScenario,
    policy: usize,
    rep: u64,
    o: &WorkflowOutcome,
) -> Result<()> {
    let Some(w) = &s.workflows else {
        return Ok(());
    };
    let trace = &w.trace;
    let name = csv_field(&s.file.policies[policy].name);
    for (i, r) in o.workflows.iter().enumerate() {
        let spec = trace.workflows()[i];
        let _ = writeln!(
            spool.buffer(),
            "{name},{rep},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(trace.workflow_id(i as u32)),
            csv_field(&trace.tenants()[spec.tenant as usize]),
            micros_to_secs_string(r.submit),
            if r.state == WorkflowState::Done {
                time_cell(r.end)
            } else {
                String::new()
            },
            r.state.name(),
            r.retries,
            r.cache_hits,
            us_secs(r.gpu_us),
            us_secs(r.cpu_us),
            us_secs(r.gpu_us_saved),
            us_secs(r.cpu_us_saved),
        );
        spool.end_row()?;
    }
    Ok(())
}

/// Write the `steps.csv` rows (`--jobs`) to `spool` as they are made:
/// one per step in trace order,
/// its last readiness (`ready_s`, `start_s`, `end_s` empty when never).
pub fn steps_rows(
    spool: &mut Spool,
    s: &SharedScenario,
    policy: usize,
    rep: u64,
    o: &WorkflowOutcome,
) -> Result<()> {
    let Some(w) = &s.workflows else {
        return Ok(());
    };
    let trace = &w.trace;
    let name = csv_field(&s.file.policies[policy].name);
    for (i, st) in o.steps.iter().enumerate() {
        let Some(step) = trace.steps().get(i) else {
            continue;
        };
        let _ = writeln!(
            spool.buffer(),
            "{name},{rep},{},{},{},{},{},{},{},{}",
            csv_field(trace.workflow_id(step.workflow)),
            csv_field(trace.step_id(i as u32)),
            time_cell(st.ready),
            time_cell(st.start),
            time_cell(st.end),
            st.state.name(),
            st.attempts,
            st.parts,
        );
        spool.end_row()?;
    }
    Ok(())
}

/// The `job_id` of a job of an attempt (DESIGN §14.7):
/// `<workflow>/<step>`, then `#<attempt>` for a retry (attempt ≥ 1) and
/// `.<part>` for a sub-job of a split step.
pub fn attempt_job_id(workflow: &str, step: &str, attempt: u32, part: u32, parts: bool) -> String {
    let mut id = format!("{workflow}/{step}");
    if attempt > 0 {
        let _ = write!(id, "#{attempt}");
    }
    if parts {
        let _ = write!(id, ".{part}");
    }
    id
}

/// Write the `jobs.csv` rows (`--jobs`) to `spool` as they are made: job
/// mode's columns, one row per
/// job of an attempt in submission order (`user` the workflow's tenant;
/// `start_s` and `end_s` empty when never).
pub fn jobs_rows(
    spool: &mut Spool,
    s: &SharedScenario,
    policy: usize,
    rep: u64,
    o: &WorkflowOutcome,
) -> Result<()> {
    let Some(w) = &s.workflows else {
        return Ok(());
    };
    let trace = &w.trace;
    let name = csv_field(&s.file.policies[policy].name);
    for (k, j) in o.jobs.iter().enumerate() {
        let Some(step) = trace.steps().get(j.step as usize) else {
            continue;
        };
        // A split attempt: a sibling part beside this one.
        let split = j.part > 0
            || o.jobs
                .get(k + 1)
                .is_some_and(|n| n.step == j.step && n.attempt == j.attempt && n.part > 0);
        let spec = trace.workflows()[step.workflow as usize];
        let id = attempt_job_id(
            trace.workflow_id(step.workflow),
            trace.step_id(j.step),
            j.attempt,
            j.part,
            split,
        );
        let _ = writeln!(
            spool.buffer(),
            "{name},{rep},{},{},{},{},{},{}",
            csv_field(&id),
            csv_field(&trace.tenants()[spec.tenant as usize]),
            micros_to_secs_string(j.submit),
            time_cell(j.start),
            time_cell(j.end),
            j.gpus,
        );
        spool.end_row()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::io::schema::workflow_files;

    /// Each header written here is its file's schema header (DESIGN
    /// §14.7; `tenantsim schema` documents these columns).
    #[test]
    fn workflows_headers_are_their_schemas() {
        for (written, schema) in [
            (summary_header(), workflow_files::summary::HEADER),
            (
                WORKFLOWS_HEADER.to_string(),
                workflow_files::workflows::HEADER,
            ),
            (STEPS_HEADER.to_string(), workflow_files::steps::HEADER),
            (JOBS_HEADER.to_string(), workflow_files::jobs::HEADER),
        ] {
            assert_eq!(written, format!("{schema}\n"));
        }
    }
}
