//! The results folder of a job-mode run. Every file is written atomically.
//!
//! | file | content |
//! |---|---|
//! | `summary.csv` | per (policy, repetition): JCT mean / median / p95 / p99, mean queueing delay, makespan, GPU utilisation, Jain index, preemptions, events (handled by the loop, including stale completions of preempted runs) |
//! | `users.csv` | per (policy, repetition, user): jobs, mean JCT, mean slowdown, FTF ρ |
//! | `utilization.csv` | per (policy, repetition): GPUs held over time, ≤ 1000 buckets (data for the utilisation timeline plot) |
//! | `jobs.csv` (with `--jobs`) | exactly `policy,rep,job_id,user,submit_s,start_s,end_s,gpus` (data for the JCT CDF plot); on a typed cluster a last column `gpu_type`, the type of the job's last run |
//! | `utilization_by_type.csv` (typed clusters only) | per (policy, repetition, GPU type): GPUs of that type held over time, the buckets of `utilization.csv` |
//!
//! On a typed cluster (DESIGN §11.2) `summary.csv` ends with one column
//! `gpu_utilization.<type>` per GPU type. Untyped runs write exactly the
//! files and columns they wrote before types existed.
//! | `run.json` | resolved scenario, seed, version, trace and node list, threads, wall time; in a sweep, the point |
//!
//! Times are seconds with six decimals (microsecond resolution; exact for
//! submit, start, end and makespan, rounded for averages and percentiles);
//! ratios use Rust's shortest round-trip float formatting. The text is the
//! same on every machine and for any thread count.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::metrics::{
    cpu_utilization, user_metrics, utilization_timeline, utilization_timeline_of,
};
use super::run::JobRun;
use super::scenario::JobScenario;
use crate::core::error::{Error, Result};
use crate::core::io::cluster::GpuType;
use crate::core::io::csv_text::csv_field;
use crate::core::io::schema::{FileSchema, Layout, job_files};
use crate::core::io::spool::Spool;
use crate::core::io::write_atomic;
use crate::core::run::execution::Execution;
use crate::core::run::manifest::{
    GpuTypeCount, JOB_VARYING_FIELDS, JobCluster, JobPart, JobPolicy, JobTrace, MemoryPart,
    ModePart, RunManifest,
};
use crate::core::run::mode::PointInfo;
use crate::core::sim::policy_clock::PolicyTotals;
use crate::core::sim::time::micros_to_secs_string;

/// Points of the utilisation timeline per run.
pub const UTILIZATION_POINTS: usize = 1000;

/// Seconds with six decimals (microsecond resolution) from µs.
fn secs(us: f64) -> String {
    format!("{:.6}", us / 1.0e6)
}

/// What the headers of `scenario`'s files depend on (their schemas'
/// [`Layout`]): the GPU types on a typed cluster.
fn layout(scenario: &JobScenario) -> Layout {
    Layout {
        gpu_types: scenario.cluster.types().to_vec(),
        typed: scenario.cluster.is_typed(),
        cpus: !scenario.cpus.is_empty(),
        ..Layout::default()
    }
}

/// The `summary.csv` header of `scenario`, from its schema
/// ([`job_files::summary`]): on a typed cluster one
/// `gpu_utilization.<type>` column per type.
fn summary_header(scenario: &JobScenario) -> String {
    job_files::summary::FILE.header(&layout(scenario))
}

/// The `summary.csv` row of run `r`.
pub fn summary_row(spool: &mut Spool, scenario: &JobScenario, r: &JobRun) -> Result<()> {
    let m = &r.metrics;
    let out = spool.buffer();
    let _ = write!(
        out,
        "{},{},{},{},{},{},{},{},{},{},{},{},{}",
        csv_field(&scenario.policies[r.policy].name),
        r.rep,
        m.jobs,
        secs(m.mean_jct),
        secs(m.median_jct),
        secs(m.p95_jct),
        secs(m.p99_jct),
        secs(m.mean_queueing),
        micros_to_secs_string(m.makespan),
        m.utilization,
        m.jain,
        m.preemptions,
        m.events
    );
    if scenario.cluster.is_typed() {
        for u in &m.utilization_by_type {
            let _ = write!(out, ",{u}");
        }
    }
    if !scenario.cpus.is_empty() {
        let total: u64 = scenario.cpus.iter().map(|&c| u64::from(c)).sum();
        let u = cpu_utilization(&r.jobs.jobs, &r.outcome, total, m.makespan)?;
        let _ = write!(out, ",{u}");
    }
    out.push('\n');
    spool.end_row()
}

/// `jobs.csv`: `policy,rep,job_id,user,submit_s,start_s,end_s,gpus`, jobs
/// in file order within each (policy, repetition); `start_s` is the first
/// start (a preempted job may run several times before `end_s`).
pub fn jobs_rows(spool: &mut Spool, scenario: &JobScenario, r: &JobRun) -> Result<()> {
    let trace = &scenario.trace;
    let policy = csv_field(&scenario.policies[r.policy].name);
    for (k, j) in r.jobs.jobs.iter().enumerate() {
        let i = r.jobs.index[k] as usize;
        let out = spool.buffer();
        let _ = writeln!(
            out,
            "{policy},{},{},{},{},{},{},{}",
            r.rep,
            csv_field(&trace.ids()[i]),
            csv_field(&trace.users()[j.user as usize]),
            micros_to_secs_string(j.submit),
            micros_to_secs_string(r.outcome.first_start[k]),
            micros_to_secs_string(r.outcome.end[k]),
            j.gpus
        );
        if scenario.cluster.is_typed() {
            out.pop();
            let t = &scenario.cluster.types()[r.outcome.gpu_type[k] as usize];
            let _ = writeln!(out, ",{}", csv_field(t));
        }
        spool.end_row()?;
    }
    Ok(())
}

/// `users.csv`: `policy,rep,user,jobs,mean_jct_s,mean_slowdown,ftf_rho`
/// for users with at least one job in the run.
pub fn users_rows(spool: &mut Spool, scenario: &JobScenario, r: &JobRun) -> Result<()> {
    let users = scenario.trace.users();
    let policy = csv_field(&scenario.policies[r.policy].name);
    for (u, m) in user_metrics(&r.jobs.jobs, users.len(), &r.outcome)
        .iter()
        .enumerate()
        .filter(|(_, m)| m.jobs > 0)
    {
        let _ = writeln!(
            spool.buffer(),
            "{policy},{},{},{},{},{},{}",
            r.rep,
            csv_field(&users[u]),
            m.jobs,
            secs(m.mean_jct),
            m.mean_slowdown,
            m.ftf_rho
        );
        spool.end_row()?;
    }
    Ok(())
}

/// `utilization.csv`: `policy,rep,time_s,duration_s,busy_gpus,utilization`
/// — the time-averaged GPUs held in each bucket and that over the cluster
/// size.
pub fn utilization_rows(spool: &mut Spool, scenario: &JobScenario, r: &JobRun) -> Result<()> {
    let gpus = scenario.gpus() as f64;
    let policy = csv_field(&scenario.policies[r.policy].name);
    for p in utilization_timeline(&r.jobs.jobs, &r.outcome, UTILIZATION_POINTS)? {
        let _ = writeln!(
            spool.buffer(),
            "{policy},{},{},{},{},{}",
            r.rep,
            micros_to_secs_string(p.time),
            micros_to_secs_string(p.len),
            p.busy_gpus,
            p.busy_gpus / gpus
        );
        spool.end_row()?;
    }
    Ok(())
}

/// `utilization_by_type.csv` (typed clusters):
/// `policy,rep,gpu_type,time_s,duration_s,busy_gpus,utilization`, the
/// GPUs of each type held, over that type's GPUs.
pub fn utilization_by_type_rows(
    spool: &mut Spool,
    scenario: &JobScenario,
    r: &JobRun,
) -> Result<()> {
    let policy = csv_field(&scenario.policies[r.policy].name);
    for (t, name) in scenario.cluster.types().iter().enumerate() {
        let t = t as GpuType;
        let gpus = scenario.cluster.gpus_of_type(t) as f64;
        let name = csv_field(name);
        for p in utilization_timeline_of(&r.jobs.jobs, &r.outcome, UTILIZATION_POINTS, Some(t))? {
            let _ = writeln!(
                spool.buffer(),
                "{policy},{},{name},{},{},{},{}",
                r.rep,
                micros_to_secs_string(p.time),
                micros_to_secs_string(p.len),
                p.busy_gpus,
                p.busy_gpus / gpus
            );
            spool.end_row()?;
        }
    }
    Ok(())
}

/// The per-run files of a job-mode run, written row by row as the runs
/// finish (see [`Spool`]).
#[derive(Debug)]
pub struct JobRows {
    summary: Spool,
    users: Spool,
    utilization: Spool,
    utilization_by_type: Option<Spool>,
    jobs: Option<Spool>,
}

impl JobRows {
    /// Start the files of `scenario` (`jobs.csv` too with `with_jobs`).
    pub fn new(scenario: &JobScenario, with_jobs: bool) -> Result<Self> {
        // Every header from its file's schema (crate::core::io::schema::job_files).
        let typed = scenario.cluster.is_typed();
        let layout = layout(scenario);
        let header = |f: &FileSchema| f.header(&layout);
        Ok(Self {
            summary: Spool::new("summary.csv", &summary_header(scenario))?,
            users: Spool::new("users.csv", &header(&job_files::users::FILE))?,
            utilization: Spool::new("utilization.csv", &header(&job_files::utilization::FILE))?,
            utilization_by_type: if typed {
                Some(Spool::new(
                    "utilization_by_type.csv",
                    &header(&job_files::utilization_by_type::FILE),
                )?)
            } else {
                None
            },
            jobs: if with_jobs {
                Some(Spool::new("jobs.csv", &header(&job_files::jobs::FILE))?)
            } else {
                None
            },
        })
    }

    /// Append the rows of the next run (runs come in (repetition, policy)
    /// order).
    pub fn add(&mut self, scenario: &JobScenario, run: &JobRun) -> Result<()> {
        type Rows = fn(&mut Spool, &JobScenario, &JobRun) -> Result<()>;
        let files: [(Option<&mut Spool>, Rows); 5] = [
            (Some(&mut self.summary), summary_row),
            (Some(&mut self.users), users_rows),
            (Some(&mut self.utilization), utilization_rows),
            (self.utilization_by_type.as_mut(), utilization_by_type_rows),
            (self.jobs.as_mut(), jobs_rows),
        ];
        for (spool, rows) in files {
            if let Some(spool) = spool {
                rows(spool, scenario, run)?;
            }
        }
        Ok(())
    }

    /// Every row is in: flush them.
    pub fn finish(&mut self) -> Result<()> {
        self.summary.finish()?;
        self.users.finish()?;
        self.utilization.finish()?;
        if let Some(s) = self.utilization_by_type.as_mut() {
            s.finish()?;
        }
        self.jobs.as_mut().map_or(Ok(()), Spool::finish)
    }
}

/// What `run.json` records of how a run went: measurements and warnings,
/// never results.
#[derive(Debug, Clone, Copy)]
pub struct Measured<'a> {
    /// Per policy: events and time (policy and engine).
    pub totals: &'a [PolicyTotals],
    /// Threads used.
    pub threads: usize,
    /// Wall-clock time of the simulations.
    pub wall: Duration,
    /// The run's warnings, setup warnings first ([`crate::jobs::warnings`]).
    pub warnings: &'a [String],
}

/// `run.json` of a job-mode run: the one manifest type of both modes
/// ([`crate::core::run::manifest`]): resolved scenario, seed, version,
/// the job trace, the cluster and node list, per policy its scheduler and
/// events, threads, wall time; in a sweep, the point. `varying_fields` is
/// [`JOB_VARYING_FIELDS`].
pub fn run_manifest(
    scenario: &JobScenario,
    measured: &Measured<'_>,
    point: Option<PointInfo<'_>>,
    execution: &Execution,
) -> String {
    let c = &scenario.cluster;
    let typed = c.is_typed();
    let policies = scenario
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let totals = measured.totals.get(i).copied().unwrap_or_default();
            JobPolicy {
                name: p.name.clone(),
                scheduler: p.spec.name.clone(),
                preemptive: p.spec.preemptive,
                backfill: p.backfill,
                events: totals.events,
                time: totals.time_json(),
                type_policy: typed.then(|| p.type_policy.name()),
            }
        })
        .collect();
    RunManifest {
        tool: "tenantsim",
        version: env!("CARGO_PKG_VERSION"),
        scenario_path: scenario.path.display().to_string(),
        scenario: serde_json::to_value(&scenario.file).unwrap_or_default(),
        seed: scenario.seed(),
        repetitions: scenario.repetitions(),
        threads: measured.threads,
        wall_time_s: measured.wall.as_secs_f64(),
        varying_fields: JOB_VARYING_FIELDS,
        warnings: measured.warnings.to_vec(),
        sweep_point: point.map(|pt| pt.to_json()),
        memory: MemoryPart::measure(scenario.memory_estimate(), execution),
        mode: ModePart::Jobs(JobPart {
            mode: "jobs",
            job_trace: JobTrace {
                path: scenario.trace_path.display().to_string(),
                sha256: scenario.trace_sha256.clone(),
                jobs: scenario.trace.len(),
                users: scenario.trace.users().len(),
            },
            cluster: JobCluster {
                nodes: scenario.nodes.len(),
                gpus: scenario.gpus(),
                node_list: scenario
                    .node_list_path
                    .as_ref()
                    .map(|p| p.display().to_string()),
                placement: scenario.placement.name(),
                restart_overhead_us: scenario.restart_overhead,
                gpu_types: typed.then(|| {
                    c.types()
                        .iter()
                        .enumerate()
                        .map(|(t, name)| GpuTypeCount {
                            name: name.clone(),
                            gpus: c.gpus_of_type(t as GpuType),
                        })
                        .collect()
                }),
            },
            policies,
        }),
    }
    .render(execution)
}

/// Write the result files of a job-mode run into the folder `dir` (the
/// runner stages it, [`crate::core::run::runner::write_plan`]); `point` places
/// it in a sweep. Returns the names of the files written. The per-run
/// files are copied from the rows written during the run.
pub fn write_job_results(
    dir: &Path,
    scenario: &JobScenario,
    rows: &JobRows,
    measured: &Measured<'_>,
    with_jobs: bool,
    point: Option<PointInfo<'_>>,
    execution: &Execution,
) -> Result<Vec<&'static str>> {
    let mut written = Vec::new();
    for (name, spool) in [
        ("summary.csv", &rows.summary),
        ("users.csv", &rows.users),
        ("utilization.csv", &rows.utilization),
    ] {
        spool.copy_to(&dir.join(name))?;
        written.push(name);
    }
    if let Some(spool) = &rows.utilization_by_type {
        spool.copy_to(&dir.join("utilization_by_type.csv"))?;
        written.push("utilization_by_type.csv");
    }
    if with_jobs {
        let jobs = rows.jobs.as_ref().ok_or_else(|| {
            Error::input("internal: jobs.csv asked for, but its rows were not written")
        })?;
        jobs.copy_to(&dir.join("jobs.csv"))?;
        written.push("jobs.csv");
    }
    write_atomic(
        &dir.join(crate::core::io::manifest_doc::FILE),
        run_manifest(scenario, measured, point, execution).as_bytes(),
    )?;
    written.push(crate::core::io::manifest_doc::FILE);
    Ok(written)
}
