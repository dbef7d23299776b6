//! The files a shared run adds to its workloads' folders (DESIGN §13.5):
//! `shares.csv`, `service/jobs.csv` by segment, the top-level `run.json`,
//! and `sweep.csv` joining the service's and the background's columns.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::run::SharedRun;
use super::scenario::SharedScenario;
use super::sim::ServiceSegment;
use crate::core::error::Result;
use crate::core::io::csv_text::csv_field;
use crate::core::io::schema::shared_files;
use crate::core::io::sorted_runs::SortedRuns;
use crate::core::io::spill::spill_threshold;
use crate::core::io::spool::Spool;
use crate::core::memory::{SEGMENTS_IN_MEMORY, SERVICE_SEGMENTS_RUN};
use crate::core::run::execution::Execution;
use crate::core::run::manifest::{MODEL_VARYING_FIELDS, MemoryPart};
use crate::core::run::mode::PointInfo;
use crate::core::sim::time::micros_to_secs_string;
use crate::models::metrics::RepResult;
use crate::models::report::layout;
use crate::models::scenario::Scenario;
use crate::models::sim::JobRecord;

/// The header of `shares.csv` (its schema's, `schema::shared_files::shares`;
/// a test holds them equal).
pub const SHARES_HEADER: &str = "policy,rep,time_s,workload,gpus\n";

/// Append the `shares.csv` rows of `run` to `spool`, each as it is made:
/// from `time_s` on, `workload` holds `gpus` GPUs (until its next row of
/// the same run). An error: reading the run's share log back.
pub fn shares_rows(spool: &mut Spool, s: &SharedScenario, run: &SharedRun) -> Result<()> {
    let policy = csv_field(&s.file.policies[run.policy].name);
    for step in run.shares.iter() {
        let step = step?;
        let _ = writeln!(
            spool.buffer(),
            "{policy},{},{},{},{}",
            run.rep,
            micros_to_secs_string(step.time),
            step.workload.name(),
            step.gpus
        );
        spool.end_row()?;
    }
    Ok(())
}

/// The header of `service/jobs.csv` with segments, from its schema
/// (`schema::shared_files::jobs`): model mode's columns, then `segment`,
/// `gpus`, `overhead_s`, `completed` (written when a service job can be
/// preempted, [`SharedScenario::service_segments`]).
pub fn segments_header(s: &SharedScenario) -> Option<String> {
    let svc = s.service.as_ref()?;
    Some(shared_files::jobs::FILE.header(&layout(&svc.scenario)))
}

/// Append one `service/jobs.csv` row per segment of `run` to `spool` (a
/// job's segments in time order, jobs in start order): model mode's
/// columns about the segment (`gpu` its first GPU, `start_s` and `end_s`
/// its interval; `accuracy` the job's, as model mode writes it for every
/// job, on each of its segments), then `segment` (from 0 within the job),
/// `gpus`, `overhead_s` (restore time at its start) and `completed` (1 on
/// the segment that completed the job).
///
/// The segments come in the order they ended, in memory up to a bound and
/// on disk past it; they are sorted by job through runs of at most
/// [`SERVICE_SEGMENTS_RUN`] (`core::io::sorted_runs`, a job's segments in
/// the order they ended), each job's then by start (ties in that order),
/// and each row goes to the spool as it is made: what this holds does not
/// grow with the segments (a service preempted many times has many).
pub fn segment_rows(spool: &mut Spool, s: &SharedScenario, run: &SharedRun) -> Result<()> {
    let (Some(svc), Some(r)) = (&s.service, &run.service) else {
        return Ok(());
    };
    // The service's log: the shared engine's vector, borrowed.
    let jobs = r.outcome.jobs.records()?;
    let rows = SegmentRows {
        run,
        r,
        jobs: &jobs,
        policy: csv_field(&s.file.policies[run.policy].name),
        scenario: &svc.scenario,
    };
    let spill = spill_threshold()?.min(SEGMENTS_IN_MEMORY);
    let mut by_job = SortedRuns::<ServiceSegment, u64>::new(job_of, 0, SERVICE_SEGMENTS_RUN, spill);
    for seg in run.segments.iter() {
        by_job.push(seg?, [])?;
    }
    // One job's segments at a time (a buffer reused from job to job).
    let mut group: Vec<ServiceSegment> = Vec::new();
    for item in by_job.sorted()? {
        let (seg, _) = item?;
        if group.first().is_some_and(|g| g.job != seg.job) {
            rows.job(spool, &mut group)?;
        }
        group.push(seg);
    }
    rows.job(spool, &mut group)
}

/// The key `service/jobs.csv`'s segments are sorted by: the job.
fn job_of(seg: &ServiceSegment) -> u64 {
    u64::from(seg.job)
}

/// What each row of a run's `service/jobs.csv` reads.
struct SegmentRows<'a> {
    run: &'a SharedRun,
    r: &'a RepResult,
    jobs: &'a [JobRecord],
    policy: std::borrow::Cow<'a, str>,
    scenario: &'a Scenario,
}

impl SegmentRows<'_> {
    /// The rows of one job's segments, `group` (emptied): in start order,
    /// ties in the order they ended.
    fn job(&self, spool: &mut Spool, group: &mut Vec<ServiceSegment>) -> Result<()> {
        group.sort_by_key(|seg| seg.start);
        let last = group.len().saturating_sub(1);
        for (index, seg) in group.iter().enumerate() {
            let Some(job) = self.jobs.get(seg.job as usize) else {
                continue;
            };
            let completed = job.completed && index == last && seg.end == job.end;
            self.row(spool.buffer(), seg, job, index, completed);
            spool.end_row()?;
        }
        group.clear();
        Ok(())
    }

    /// One segment's row.
    fn row(
        &self,
        out: &mut String,
        seg: &ServiceSegment,
        job: &JobRecord,
        index: usize,
        completed: bool,
    ) {
        let trace = &self.scenario.trace;
        let types = &self.scenario.gpu_types;
        let u = self.r.split.tenants.user(job.tenant as usize);
        let _ = write!(
            out,
            "{},{},{},{},{},{},{},{},",
            self.policy,
            self.run.rep,
            seg.job,
            seg.gpu,
            csv_field(&trace.user_id(u)),
            csv_field(&trace.models()[job.model as usize]),
            micros_to_secs_string(seg.start),
            micros_to_secs_string(seg.end),
        );
        let _ = write!(out, "{}", job.accuracy);
        if trace.is_curve() {
            let f = trace.level_fidelity(u, job.model as usize, job.level as usize);
            let _ = write!(out, ",{f}");
        }
        if types.is_typed() {
            out.push(',');
            out.push_str(&types.names()[usize::from(types.type_of(seg.gpu))]);
        }
        let _ = writeln!(
            out,
            ",{index},{},{},{}",
            seg.gpus,
            micros_to_secs_string(seg.overhead),
            u8::from(completed)
        );
    }
}

/// The top-level `run.json` of a shared results folder: the resolved
/// scenario, the cluster, the policies (service scheduler and selector,
/// cluster scheduler), where each workload's files are, the measurements
/// and `execution`. Each workload's own `run.json` is in its folder.
pub fn shared_manifest(
    s: &SharedScenario,
    threads: usize,
    wall_s: f64,
    warnings: &[String],
    point: Option<PointInfo<'_>>,
    execution: &Execution,
) -> String {
    let policies: Vec<Value> = s
        .file
        .policies
        .iter()
        .zip(&s.cluster_policies)
        .enumerate()
        .map(|(i, (p, c))| {
            let mut policy = json!({
                "name": p.name,
                "scheduler": p.scheduler,
                "selector": p.selector,
                "cluster_scheduler": c.spec.name,
                "backfill": c.backfill,
            });
            // The workflows' rules, only with workflows (a scenario
            // without them keeps its run.json byte for byte).
            if let (Some(w), Some(obj)) = (&s.workflows, policy.as_object_mut()) {
                obj.insert(
                    "cache".into(),
                    json!(w.cache_rules.get(i).map(|r| r.name())),
                );
                obj.insert("parallel".into(), json!(w.parallel.get(i)));
            }
            policy
        })
        .collect();
    let mut doc = json!({
        "tool": "tenantsim",
        "version": env!("CARGO_PKG_VERSION"),
        "mode": "shared",
        "scenario_path": s.path.display().to_string(),
        "scenario": serde_json::to_value(&s.file).unwrap_or_default(),
        "seed": s.seed(),
        "repetitions": s.repetitions(),
        "cluster": {
            "nodes": s.cluster.nodes.len(),
            "gpus": s.gpus(),
            "placement": s.placement.name(),
            "restart_overhead_us": s.cluster.restart_overhead,
            "round_us": s.cluster.round,
        },
        "workloads": {
            "service": s.service.as_ref().map(|svc| json!({
                "folder": "service",
                "max_gpus": svc.max_gpus,
                "gpus_per_job": svc.gpus_per_job,
                "priority": svc.priority.name(),
                "preempt": svc.preempt.name(),
            })),
            "background": s.background.as_ref().map(|_| json!({
                "folder": "background",
                "load": s.load,
            })),
            "workflows_": s.workflows.as_ref().map(|w| json!({
                "folder": "workflows",
                "trace": w.path.display().to_string(),
                "workflows": w.trace.workflows().len(),
                "steps": w.trace.steps().len(),
                "load": w.load,
                "horizon_us": w.horizon,
                "split_overhead_us": w.split_overhead,
                "cache": w.cache,
                "retry": w.retry,
            })),
        },
        "policies": policies,
        "threads": threads,
        "wall_time_s": wall_s,
        "varying_fields": MODEL_VARYING_FIELDS,
        "warnings": warnings,
        "memory": MemoryPart::measure(s.memory_estimate(), execution),
    });
    // `workloads.workflows` only with workflows (as above).
    if let Some(workloads) = doc.get_mut("workloads").and_then(Value::as_object_mut)
        && let Some(w) = workloads.remove("workflows_")
        && !w.is_null()
    {
        workloads.insert("workflows".into(), w);
    }
    if let (Some(p), Some(obj)) = (point, doc.as_object_mut()) {
        obj.insert("sweep_point".into(), p.to_json());
    }
    execution.insert_into(&mut doc);
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// `sweep.csv` of a shared sweep: the service's rows (model mode's
/// columns) with the background's figures appended as `background_*`
/// columns, or the one workload's rows as its mode writes them. Both
/// modes write one row per (point, policy) in the same order, after the
/// same `lead` columns (`point,folder`, the swept keys, `policy,baseline`).
pub fn join_sweep_csv(service: Option<String>, background: Option<String>, lead: usize) -> String {
    match (service, background) {
        (Some(s), None) => s,
        (None, Some(b)) => b,
        (None, None) => String::new(),
        (Some(s), Some(b)) => append_columns(&s, &b, lead, "background_"),
    }
}

/// `sweep.csv` with the workflows' columns (DESIGN §14.7): `joined` (the
/// service's and background's, [`join_sweep_csv`]) with the workflows'
/// figures appended as `workflows_*` columns, or the workflows' rows alone
/// when there is no other workload.
pub fn join_workflows_sweep_csv(joined: String, workflows: Option<String>, lead: usize) -> String {
    match workflows {
        None => joined,
        Some(w) if joined.is_empty() => w,
        Some(w) => append_columns(&joined, &w, lead, "workflows_"),
    }
}

/// The rows of `first` with the columns of `second` after its `lead`
/// columns appended, their header cells prefixed with `prefix`.
fn append_columns(first: &str, second: &str, lead: usize, prefix: &str) -> String {
    let split = |text: &str| -> Vec<Vec<String>> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text.as_bytes());
        r.records()
            .filter_map(Result::ok)
            .map(|rec| rec.iter().map(str::to_string).collect())
            .collect()
    };
    let (srows, brows) = (split(first), split(second));
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for (i, row) in srows.iter().enumerate() {
        let mut out = row.clone();
        if let Some(brow) = brows.get(i) {
            for (j, v) in brow.iter().enumerate().skip(lead) {
                out.push(if i == 0 {
                    format!("{prefix}{}", brow[j])
                } else {
                    v.clone()
                });
            }
        }
        let _ = w.write_record(&out);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{SHARES_HEADER, join_sweep_csv};
    use crate::core::io::schema::shared_files::shares;

    #[test]
    fn the_shares_header_is_its_schemas_header() {
        assert_eq!(SHARES_HEADER, format!("{}\n", shares::HEADER));
    }

    #[test]
    fn the_background_columns_follow_the_services_after_the_shared_lead_columns() {
        let service = "point,folder,jobs.load,policy,baseline,regret_mean\n\
                       0,p0,0.5,\"a,b\",a,1.5\n\
                       1,p1,2,\"a,b\",a,2.5\n";
        let background = "point,folder,jobs.load,policy,baseline,mean_jct_s\n\
                          0,p0,0.5,\"a,b\",a,10\n\
                          1,p1,2,\"a,b\",a,20\n";
        let joined = join_sweep_csv(Some(service.into()), Some(background.into()), 5);
        assert_eq!(
            joined,
            "point,folder,jobs.load,policy,baseline,regret_mean,background_mean_jct_s\n\
             0,p0,0.5,\"a,b\",a,1.5,10\n\
             1,p1,2,\"a,b\",a,2.5,20\n"
        );
    }

    #[test]
    fn one_workload_keeps_its_modes_sweep_csv() {
        let text = "point,folder,policy,baseline,x\n0,p,a,a,1\n";
        assert_eq!(join_sweep_csv(Some(text.into()), None, 4), text);
        assert_eq!(join_sweep_csv(None, Some(text.into()), 4), text);
    }
}
