//! The figures' data, read from a results folder's CSVs (docs/REFERENCE.md "Results
//! folder"): model mode (`curves.csv`, `speedups.csv`, `regret.csv`,
//! `tenants.csv`, optional `jobs.csv`), job mode (`utilization.csv`,
//! optional `jobs.csv`) and sweeps (`sweep.csv`).

use super::area_summary::{AreaGatherer, TenantAreas};
use super::read::{Cell, Source, Table};
use crate::core::analysis::stats::sort_total;
use crate::core::error::{Error, Result};
use crate::core::io::manifest_doc::{self, ManifestDoc};
use crate::core::io::schema::job_files::{jobs as trace_jobs, utilization, utilization_by_type};
use crate::core::io::schema::model_files::{
    curves, curves_by_job, jobs as model_jobs, regret, speedups, sweep, tenants,
};

/// Policy names in the order of the results (scenario order): a policy's
/// index picks its style in every figure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policies(pub Vec<String>);

impl Policies {
    /// Index of `name`, added at the end when new.
    pub fn index(&mut self, name: &str) -> usize {
        if let Some(i) = self.0.iter().position(|n| n == name) {
            i
        } else {
            self.0.push(name.to_string());
            self.0.len() - 1
        }
    }

    /// Index of a known `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.0.iter().position(|n| n == name)
    }
}

/// One grid instant of `curves.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// τ, seconds.
    pub time: f64,
    /// Mean L(τ) over the repetitions defined at τ.
    pub mean: f64,
    /// Lower end of the confidence band.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Repetitions defined at τ.
    pub reps: u64,
}

/// One row of `speedups.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct Speedup {
    /// Policy index.
    pub policy: usize,
    /// θ.
    pub theta: f64,
    /// T_B(θ), seconds (`None` = never).
    pub t_baseline: Option<f64>,
    /// T_X(θ), seconds (`None` = never).
    pub t_policy: Option<f64>,
    /// T_B / T_X.
    pub speedup: Cell,
}

/// One row of `regret.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Regret {
    /// Policy index.
    pub policy: usize,
    /// Repetitions.
    pub reps: u64,
    /// Mean cumulative regret, accuracy·s.
    pub mean: f64,
    /// Confidence band.
    pub low: f64,
    /// Confidence band.
    pub high: f64,
    /// Mean regret over the baseline's.
    pub ratio: Cell,
}

/// One row of `tenants.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantRow {
    /// Policy index.
    pub policy: usize,
    /// Repetition.
    pub rep: u64,
    /// User id.
    pub user: String,
    /// Arrival, seconds.
    pub arrival: f64,
    /// Regret area from its arrival, accuracy·s.
    pub regret_area: f64,
}

/// One completed job of model-mode `jobs.csv` (in the repetition shown).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelJob {
    /// Policy index.
    pub policy: usize,
    /// User id.
    pub user: String,
    /// Completion, seconds.
    pub end: f64,
    /// Accuracy seen at completion.
    pub accuracy: f64,
    /// On a curve trace (`jobs.csv` with a `fidelity` column): the model
    /// and the fidelity it trained at.
    pub eval: Option<Evaluation>,
}

/// What a job of a curve trace evaluated (`jobs.csv` `model`, `fidelity`).
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Model id.
    pub model: String,
    /// Fidelity trained at (> 0).
    pub fidelity: f64,
}

/// Everything the model-mode figures read.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResults {
    /// Scenario name (from `run.json`, else the folder name).
    pub name: String,
    /// Policy order.
    pub policies: Policies,
    /// Baseline policy name.
    pub baseline: String,
    /// Per policy index: its `curves.csv` points, ascending in time.
    pub curves: Vec<Vec<CurvePoint>>,
    /// Per policy index: its `curves_by_job.csv` points, ascending in the
    /// number of completed jobs (held in `CurvePoint::time`); `None` for a
    /// folder without that file (written before it existed).
    pub curves_by_job: Option<Vec<Vec<CurvePoint>>>,
    /// Total repetitions (the largest `reps` of `curves.csv`).
    pub repetitions: u64,
    /// Level of the confidence bands (`run.json`), when known.
    pub confidence: Option<f64>,
    /// θ values in order of `speedups.csv`.
    pub thresholds: Vec<f64>,
    /// `speedups.csv`.
    pub speedups: Vec<Speedup>,
    /// `regret.csv`.
    pub regret: Vec<Regret>,
    /// What the figures read of `tenants.csv` (not its rows: a million
    /// repetitions write tens of millions of them).
    pub tenants: TenantData,
    /// The jobs of `jobs.csv` in repetition `jobs_rep`, when the run wrote
    /// one (only the repetition shown is kept).
    pub jobs: Option<Vec<ModelJob>>,
    /// The repetition whose jobs `jobs` holds.
    pub jobs_rep: Option<u64>,
}

/// The repetition to show: `wanted` if `reps` has it, else a usage error
/// naming `file`; by default the smallest one.
pub fn choose_rep(
    reps: impl Iterator<Item = u64>,
    wanted: Option<u64>,
    file: &std::path::Path,
) -> Result<u64> {
    let all: std::collections::BTreeSet<u64> = reps.collect();
    let (Some(&lo), Some(&hi)) = (all.first(), all.last()) else {
        return Err(Error::input(format!(
            "{}: no repetition to show",
            file.display()
        )));
    };
    match wanted {
        None => Ok(lo),
        Some(r) if all.contains(&r) => Ok(r),
        Some(r) => Err(Error::usage(format!(
            "--rep {r}: {} has repetitions {lo} to {hi}",
            file.display()
        ))),
    }
}

/// `run.json`, when there is a readable one (only titles and captions use
/// it, so a missing or broken one is not an error).
fn manifest(src: &Source<'_>) -> Option<ManifestDoc> {
    let text = src.text(manifest_doc::FILE).ok()?;
    ManifestDoc::parse(
        &src.path(manifest_doc::FILE),
        &text,
        "titles use its scenario",
    )
    .ok()
}

/// The scenario name in `run.json`, or the folder's name.
pub fn scenario_name(src: &Source<'_>) -> String {
    if let Some(name) = &src.name {
        return name.clone();
    }
    let from_manifest = manifest(src).and_then(|m| m.scenario_name().map(str::to_string));
    from_manifest.unwrap_or_else(|| {
        src.dir
            .file_name()
            .map_or_else(|| "results".into(), |n| n.to_string_lossy().into_owned())
    })
}

/// Columns of `curves.csv` read (a subset of its header; every column
/// name below comes from the files' schemas, [`crate::core::io::schema`]).
pub const CURVES_COLUMNS: &[&str] = &[
    curves::POLICY.name,
    curves::TIME_S.name,
    curves::MEAN_LOSS.name,
    curves::CI_LOW.name,
    curves::CI_HIGH.name,
    curves::REPS.name,
];
/// Columns of `curves_by_job.csv` read.
pub const CURVES_BY_JOB_COLUMNS: &[&str] = &[
    curves_by_job::POLICY.name,
    curves_by_job::JOBS.name,
    curves_by_job::MEAN_LOSS.name,
    curves_by_job::CI_LOW.name,
    curves_by_job::CI_HIGH.name,
    curves_by_job::REPS.name,
];
/// Columns of `speedups.csv` read.
pub const SPEEDUPS_COLUMNS: &[&str] = &[
    speedups::POLICY.name,
    speedups::BASELINE.name,
    speedups::THETA.name,
    speedups::T_BASELINE_S.name,
    speedups::T_POLICY_S.name,
    speedups::SPEEDUP.name,
];
/// Columns of `regret.csv` read.
pub const REGRET_COLUMNS: &[&str] = &[
    regret::POLICY.name,
    regret::BASELINE.name,
    regret::REPS.name,
    regret::MEAN_REGRET.name,
    regret::CI_LOW.name,
    regret::CI_HIGH.name,
    regret::RATIO_TO_BASELINE.name,
];
/// Columns of `tenants.csv` read.
pub const TENANTS_COLUMNS: &[&str] = &[
    tenants::POLICY.name,
    tenants::REP.name,
    tenants::USER.name,
    tenants::ARRIVAL_S.name,
    tenants::REGRET_AREA.name,
];
/// Columns of model-mode `jobs.csv` read.
pub const MODEL_JOBS_COLUMNS: &[&str] = &[
    model_jobs::POLICY.name,
    model_jobs::REP.name,
    model_jobs::USER.name,
    model_jobs::END_S.name,
    model_jobs::ACCURACY.name,
];

impl ModelResults {
    /// Read a model-mode results folder; `rep` picks the repetition whose
    /// jobs are kept (see [`choose_rep`]).
    pub fn read(src: &Source<'_>, rep: Option<u64>) -> Result<Self> {
        let mut policies = Policies::default();
        let curves_t = src.table(curves::FILE.name, CURVES_COLUMNS)?;
        curves_t.require_rows("one row per (policy, grid instant)")?;
        let curves = read_curves(&curves_t, curves::TIME_S.name, &mut policies)?;
        let repetitions = curves.iter().flatten().map(|p| p.reps).max().unwrap_or(0);
        let sp = src.table(speedups::FILE.name, SPEEDUPS_COLUMNS)?;
        sp.require_rows("one row per (policy, θ)")?;
        let (speedups, thresholds, baseline) = read_speedups(&sp, &mut policies)?;
        let rg = src.table(regret::FILE.name, REGRET_COLUMNS)?;
        rg.require_rows("one row per policy")?;
        let regret = read_regret(&rg, &mut policies)?;
        let tn = src.table(tenants::FILE.name, TENANTS_COLUMNS)?;
        tn.require_rows("one row per (policy, repetition, tenant)")?;
        let tenants = read_tenants(&tn, rep, &mut policies)?;
        let (jobs, jobs_rep) =
            match src.optional_table(model_jobs::FILE.name, MODEL_JOBS_COLUMNS)? {
                Some(t) => {
                    let rep = tenants.shown_rep(rep, &src.path(tenants::FILE.name))?;
                    (Some(read_model_jobs(&t, rep, &mut policies)?), Some(rep))
                }
                None => (None, None),
            };
        let curves_by_job =
            match src.optional_table(curves_by_job::FILE.name, CURVES_BY_JOB_COLUMNS)? {
                Some(t) => Some(read_curves(&t, curves_by_job::JOBS.name, &mut policies)?),
                None => None,
            };
        let mut curves = curves;
        curves.resize(policies.0.len(), Vec::new());
        let curves_by_job = curves_by_job.map(|mut c| {
            c.resize(policies.0.len(), Vec::new());
            c
        });
        Ok(Self {
            name: scenario_name(src),
            policies,
            baseline,
            curves,
            curves_by_job,
            repetitions,
            confidence: manifest(src)
                .and_then(|m| m.pointer("/scenario/output/confidence")?.as_f64()),
            thresholds,
            speedups,
            regret,
            tenants,
            jobs,
            jobs_rep,
        })
    }
}

/// The points of `curves.csv` (axis column `time_s`) or
/// `curves_by_job.csv` (`jobs`), per policy.
fn read_curves(t: &Table, axis: &str, policies: &mut Policies) -> Result<Vec<Vec<CurvePoint>>> {
    let c = |n| t.col(n);
    // `curves_by_job.csv` has `curves.csv`'s columns, `jobs` for `time_s`.
    let (p, time, mean, low, high, reps) = (
        c(curves::POLICY.name)?,
        c(axis)?,
        c(curves::MEAN_LOSS.name)?,
        c(curves::CI_LOW.name)?,
        c(curves::CI_HIGH.name)?,
        c(curves::REPS.name)?,
    );
    let mut out: Vec<Vec<CurvePoint>> = Vec::new();
    for r in t.rows() {
        let r = r?;
        let i = policies.index(r.name(p)?);
        if out.len() <= i {
            out.resize(i + 1, Vec::new());
        }
        let point = CurvePoint {
            time: r.non_negative(time)?,
            mean: r.loss(mean)?,
            low: r.num(low)?,
            high: r.num(high)?,
            reps: r.count(reps)?,
        };
        if let Some(prev) = out[i].last()
            && point.time < prev.time
        {
            return Err(Error::input(format!(
                "{}: line {}, column `{axis}`: {} of a policy must ascend, found {} after {}",
                t.source,
                r.line(),
                if axis == curves_by_job::JOBS.name {
                    "job counts"
                } else {
                    "times"
                },
                point.time,
                prev.time
            )));
        }
        out[i].push(point);
    }
    Ok(out)
}

type SpeedupData = (Vec<Speedup>, Vec<f64>, String);

fn read_speedups(t: &Table, policies: &mut Policies) -> Result<SpeedupData> {
    let c = |n| t.col(n);
    let (p, b, th, tb, tp, s) = (
        c(speedups::POLICY.name)?,
        c(speedups::BASELINE.name)?,
        c(speedups::THETA.name)?,
        c(speedups::T_BASELINE_S.name)?,
        c(speedups::T_POLICY_S.name)?,
        c(speedups::SPEEDUP.name)?,
    );
    let mut rows = Vec::new();
    let mut thresholds: Vec<f64> = Vec::new();
    let mut baseline = String::new();
    for r in t.rows() {
        let r = r?;
        let theta = r.num(th)?;
        if !thresholds.contains(&theta) {
            thresholds.push(theta);
        }
        baseline = r.name(b)?.to_string();
        rows.push(Speedup {
            policy: policies.index(r.name(p)?),
            theta,
            t_baseline: r.time_or_inf(tb)?,
            t_policy: r.time_or_inf(tp)?,
            speedup: r.cell(s)?,
        });
    }
    Ok((rows, thresholds, baseline))
}

fn read_regret(t: &Table, policies: &mut Policies) -> Result<Vec<Regret>> {
    let c = |n| t.col(n);
    let (p, reps, mean, low, high, ratio) = (
        c(regret::POLICY.name)?,
        c(regret::REPS.name)?,
        c(regret::MEAN_REGRET.name)?,
        c(regret::CI_LOW.name)?,
        c(regret::CI_HIGH.name)?,
        c(regret::RATIO_TO_BASELINE.name)?,
    );
    t.rows()
        .map(|r| {
            let r = r?;
            Ok(Regret {
                policy: policies.index(r.name(p)?),
                reps: r.count(reps)?,
                mean: r.num(mean)?,
                low: r.num(low)?,
                high: r.num(high)?,
                ratio: r.cell(ratio)?,
            })
        })
        .collect()
}

/// Tenants of the repetition shown that [`TenantData`] keeps: those the
/// `tenant-accuracy` figure draws (its `MAX_PANELS`).
pub const SHOWN_TENANTS: usize = 16;

/// What the figures need of `tenants.csv`, folded while it is read: the
/// box plot's figures of the regret areas (sorted through runs on disk:
/// no list of them is held), one f64 per repetition and the first
/// [`SHOWN_TENANTS`] rows of the repetition shown (of its first policy:
/// the tenants `tenant-accuracy` draws). Before 2026-12-05 it kept every
/// row of that repetition, about 80 bytes a tenant with its user id:
/// scale-year's plots held 0.5 GB more than its simulation
/// (docs/PERFORMANCE.md "Internet scale", "The default command held every
/// tenant again").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TenantData {
    /// Per policy index, what `tenant-regret` draws of every tenant's
    /// regret area, taken as the areas pass in order through runs sorted
    /// on disk (area_summary.rs; they were held and sorted in memory
    /// before 2026-12-07, 8 bytes a tenant and repetition).
    pub areas: TenantAreas,
    /// Per repetition (file order) of the file's first policy: its latest
    /// arrival, seconds.
    pub last_arrivals: Vec<f64>,
    /// The first [`SHOWN_TENANTS`] rows, in file order, of the first
    /// policy of the repetition shown (`--rep`, default the lowest).
    pub shown: Vec<TenantRow>,
    /// How many rows that policy has in that repetition.
    pub shown_total: usize,
    /// The repetition kept in `shown`, and its first policy.
    shown_at: Option<(u64, usize)>,
    /// Lowest and highest repetition in the file.
    pub reps: Option<(u64, u64)>,
    /// Whether the repetition asked for with `--rep` appears.
    wanted_seen: bool,
}

impl TenantData {
    /// The repetition shown: as [`choose_rep`] picks it, from the
    /// repetitions of the file (`file` names it in errors).
    pub fn shown_rep(&self, wanted: Option<u64>, file: &std::path::Path) -> Result<u64> {
        let Some((lo, hi)) = self.reps else {
            return Err(Error::input(format!(
                "{}: no repetition to show",
                file.display()
            )));
        };
        match wanted {
            None => Ok(lo),
            Some(r) if self.wanted_seen => Ok(r),
            Some(r) => Err(Error::usage(format!(
                "--rep {r}: {} has repetitions {lo} to {hi}",
                file.display()
            ))),
        }
    }
}

/// Read `tenants.csv`, keeping the rows of repetition `wanted` (default:
/// the lowest).
fn read_tenants(t: &Table, wanted: Option<u64>, policies: &mut Policies) -> Result<TenantData> {
    let c = |n| t.col(n);
    let (p, rep, user, arr, area) = (
        c(tenants::POLICY.name)?,
        c(tenants::REP.name)?,
        c(tenants::USER.name)?,
        c(tenants::ARRIVAL_S.name)?,
        c(tenants::REGRET_AREA.name)?,
    );
    let mut data = TenantData::default();
    let mut areas = AreaGatherer::default();
    let mut first_policy = None;
    // (repetition, latest arrival) of the first policy's current run.
    let mut current: Option<(u64, f64)> = None;
    for r in t.rows() {
        let r = r?;
        let policy = policies.index(r.name(p)?);
        let rep = r.count(rep)?;
        let arrival = r.non_negative(arr)?;
        let regret_area = r.non_negative(area)?;
        areas.push(policy, regret_area)?;
        data.reps = Some(
            data.reps
                .map_or((rep, rep), |(lo, hi)| (lo.min(rep), hi.max(rep))),
        );
        if *first_policy.get_or_insert(policy) == policy {
            match current.as_mut() {
                Some((r0, latest)) if *r0 == rep => *latest = latest.max(arrival),
                _ => {
                    if let Some((_, latest)) = current.replace((rep, arrival)) {
                        data.last_arrivals.push(latest);
                    }
                }
            }
        }
        let keep = match wanted {
            Some(w) => {
                data.wanted_seen |= w == rep;
                w == rep
            }
            None => {
                // The lowest repetition so far: a lower one starts afresh.
                match data.shown_at {
                    Some((r0, _)) if rep > r0 => false,
                    Some((r0, _)) if rep < r0 => {
                        data.shown.clear();
                        data.shown_total = 0;
                        data.shown_at = None;
                        true
                    }
                    _ => true,
                }
            }
        };
        if keep && data.shown_at.get_or_insert((rep, policy)).1 == policy {
            data.shown_total += 1;
            if data.shown.len() < SHOWN_TENANTS {
                data.shown.push(TenantRow {
                    policy,
                    rep,
                    user: r.name(user)?.to_string(),
                    arrival,
                    regret_area,
                });
            }
        }
    }
    if let Some((_, latest)) = current {
        data.last_arrivals.push(latest);
    }
    data.areas = areas.finish()?;
    Ok(data)
}

fn read_model_jobs(t: &Table, rep: u64, policies: &mut Policies) -> Result<Vec<ModelJob>> {
    let c = |n| t.col(n);
    let (p, rep_col, user, end, acc) = (
        c(model_jobs::POLICY.name)?,
        c(model_jobs::REP.name)?,
        c(model_jobs::USER.name)?,
        c(model_jobs::END_S.name)?,
        c(model_jobs::ACCURACY.name)?,
    );
    // A curve trace's jobs also name the model and fidelity.
    let curve = match t
        .header()
        .iter()
        .position(|h| h == model_jobs::FIDELITY.name)
    {
        Some(f) => Some((c(model_jobs::MODEL.name)?, f)),
        None => None,
    };
    let mut out = Vec::new();
    for r in t.rows() {
        let r = r?;
        let policy = policies.index(r.name(p)?);
        if r.count(rep_col)? != rep {
            continue;
        }
        let eval = match curve {
            Some((m, f)) => Some(Evaluation {
                model: r.name(m)?.to_string(),
                fidelity: positive(&r, f, t)?,
            }),
            None => None,
        };
        out.push(ModelJob {
            policy,
            user: r.name(user)?.to_string(),
            end: r.non_negative(end)?,
            accuracy: r.num(acc)?,
            eval,
        });
    }
    Ok(out)
}

/// A finite number > 0 in column `col` of `r` (a fidelity).
fn positive(r: &super::read::Row<'_>, col: usize, t: &Table) -> Result<f64> {
    let v = r.num(col)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(Error::input(format!(
            "{}: line {}, column `{}`: expected a number > 0, found `{v}`",
            t.source,
            r.line(),
            model_jobs::FIDELITY.name
        )))
    }
}

/// One bucket of `utilization.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtilBucket {
    /// Policy index.
    pub policy: usize,
    /// Repetition.
    pub rep: u64,
    /// Bucket start, seconds.
    pub time: f64,
    /// Bucket length, seconds.
    pub duration: f64,
    /// Fraction of the cluster's GPUs held, time-averaged over the bucket
    /// (in `utilization_by_type.csv`: of the type's GPUs).
    pub utilization: f64,
    /// GPU type index in [`JobResults::gpu_types`] (0 in
    /// `utilization.csv`).
    pub gpu_type: usize,
}

/// Everything the job-mode figures read.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResults {
    /// Scenario name.
    pub name: String,
    /// Policy order.
    pub policies: Policies,
    /// `utilization.csv`.
    pub utilization: Vec<UtilBucket>,
    /// `utilization_by_type.csv` (typed clusters; empty without it).
    pub by_type: Vec<UtilBucket>,
    /// GPU type names in order of first appearance in
    /// `utilization_by_type.csv`.
    pub gpu_types: Vec<String>,
    /// Per policy index, the job completion times (end − submit, seconds)
    /// of `jobs.csv` over every repetition, sorted; `None` without
    /// `jobs.csv`.
    pub jcts: Option<Vec<Vec<f64>>>,
    /// Repetitions in `jobs.csv`.
    pub jct_reps: usize,
}

/// Columns of `utilization.csv` read.
pub const UTILIZATION_COLUMNS: &[&str] = &[
    utilization::POLICY.name,
    utilization::REP.name,
    utilization::TIME_S.name,
    utilization::DURATION_S.name,
    utilization::UTILIZATION.name,
];
/// Columns of `utilization_by_type.csv` read.
pub const UTILIZATION_BY_TYPE_COLUMNS: &[&str] = &[
    utilization_by_type::POLICY.name,
    utilization_by_type::REP.name,
    utilization_by_type::GPU_TYPE.name,
    utilization_by_type::TIME_S.name,
    utilization_by_type::DURATION_S.name,
    utilization_by_type::UTILIZATION.name,
];
/// Columns of job-mode `jobs.csv` read.
pub const TRACE_JOBS_COLUMNS: &[&str] = &[
    trace_jobs::POLICY.name,
    trace_jobs::REP.name,
    trace_jobs::SUBMIT_S.name,
    trace_jobs::END_S.name,
];

impl JobResults {
    /// Read a job-mode results folder.
    pub fn read(src: &Source<'_>) -> Result<Self> {
        let mut policies = Policies::default();
        let t = src.table(utilization::FILE.name, UTILIZATION_COLUMNS)?;
        t.require_rows("one row per (policy, repetition, time bucket)")?;
        let c = |n| t.col(n);
        let (p, rep, time, dur, util) = (
            c(utilization::POLICY.name)?,
            c(utilization::REP.name)?,
            c(utilization::TIME_S.name)?,
            c(utilization::DURATION_S.name)?,
            c(utilization::UTILIZATION.name)?,
        );
        let utilization = t
            .rows()
            .map(|r| {
                let r = r?;
                Ok(UtilBucket {
                    policy: policies.index(r.name(p)?),
                    rep: r.count(rep)?,
                    time: r.non_negative(time)?,
                    duration: r.non_negative(dur)?,
                    utilization: r.non_negative(util)?,
                    gpu_type: 0,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut gpu_types: Vec<String> = Vec::new();
        let mut by_type = Vec::new();
        if let Some(t) =
            src.optional_table(utilization_by_type::FILE.name, UTILIZATION_BY_TYPE_COLUMNS)?
        {
            let c = |n| t.col(n);
            let (p, rep, ty, time, dur, util) = (
                c(utilization_by_type::POLICY.name)?,
                c(utilization_by_type::REP.name)?,
                c(utilization_by_type::GPU_TYPE.name)?,
                c(utilization_by_type::TIME_S.name)?,
                c(utilization_by_type::DURATION_S.name)?,
                c(utilization_by_type::UTILIZATION.name)?,
            );
            for r in t.rows() {
                let r = r?;
                let name = r.name(ty)?;
                let k = match gpu_types.iter().position(|g| g == name) {
                    Some(k) => k,
                    None => {
                        gpu_types.push(name.to_string());
                        gpu_types.len() - 1
                    }
                };
                by_type.push(UtilBucket {
                    policy: policies.index(r.name(p)?),
                    rep: r.count(rep)?,
                    time: r.non_negative(time)?,
                    duration: r.non_negative(dur)?,
                    utilization: r.non_negative(util)?,
                    gpu_type: k,
                });
            }
        }
        let mut jct_reps = std::collections::BTreeSet::new();
        let jcts = match src.optional_table(trace_jobs::FILE.name, TRACE_JOBS_COLUMNS)? {
            None => None,
            Some(t) => {
                let c = |n| t.col(n);
                let (p, rep, submit, end) = (
                    c(trace_jobs::POLICY.name)?,
                    c(trace_jobs::REP.name)?,
                    c(trace_jobs::SUBMIT_S.name)?,
                    c(trace_jobs::END_S.name)?,
                );
                let mut per: Vec<Vec<f64>> = Vec::new();
                for r in t.rows() {
                    let r = r?;
                    let (s, e) = (r.non_negative(submit)?, r.non_negative(end)?);
                    if e < s {
                        return Err(Error::input(format!(
                            "{}: line {}, column `{}`: a job ends before it is submitted ({e} < {s})",
                            t.source,
                            r.line(),
                            trace_jobs::END_S.name
                        )));
                    }
                    let i = policies.index(r.name(p)?);
                    jct_reps.insert(r.count(rep)?);
                    if per.len() <= i {
                        per.resize(i + 1, Vec::new());
                    }
                    per[i].push(e - s);
                }
                per.resize(policies.0.len(), Vec::new());
                for v in &mut per {
                    sort_total(v);
                }
                Some(per)
            }
        };
        Ok(Self {
            name: scenario_name(src),
            policies,
            utilization,
            by_type,
            gpu_types,
            jcts,
            jct_reps: jct_reps.len(),
        })
    }
}

/// One row of `sweep.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRow {
    /// The point's folder.
    pub folder: String,
    /// The value of each swept key (text as written).
    pub values: Vec<String>,
    /// Policy index.
    pub policy: usize,
    /// Every metric column after `policy`/`baseline`, as cells.
    pub metrics: Vec<Cell>,
}

/// `sweep.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepResults {
    /// Scenario name.
    pub name: String,
    /// The swept keys (the columns between `folder` and `policy`).
    pub keys: Vec<String>,
    /// Metric column names (`reps`, `regret_mean`, `time_to_<θ>_s`, ...).
    pub metrics: Vec<String>,
    /// Policy order.
    pub policies: Policies,
    /// Rows in file order.
    pub rows: Vec<SweepRow>,
}

impl SweepResults {
    /// Read `sweep.csv` of a sweep folder.
    pub fn read(src: &Source<'_>) -> Result<Self> {
        // Both modes' `sweep.csv` start `point,folder,<key>...,policy,baseline`
        // (crate::core::io::schema's tests hold them to it).
        let t = src.table(
            sweep::FILE.name,
            &[
                sweep::POINT.name,
                sweep::FOLDER.name,
                sweep::POLICY.name,
                sweep::BASELINE.name,
            ],
        )?;
        t.require_rows("one row per (grid point, policy)")?;
        let header = t.header();
        let folder = t.col(sweep::FOLDER.name)?;
        let policy = t.col(sweep::POLICY.name)?;
        let baseline = t.col(sweep::BASELINE.name)?;
        if policy < folder {
            return Err(Error::input(format!(
                "{}: line 1: expected the swept keys between `folder` and `policy`",
                t.source
            )));
        }
        let keys: Vec<String> = header[folder + 1..policy].to_vec();
        let metric_cols: Vec<usize> = (policy + 1..header.len())
            .filter(|&i| i != baseline)
            .collect();
        let metrics = metric_cols.iter().map(|&i| header[i].clone()).collect();
        let mut policies = Policies::default();
        let rows = t
            .rows()
            .map(|r| {
                let r = r?;
                Ok(SweepRow {
                    folder: r.name(folder)?.to_string(),
                    values: (folder + 1..policy).map(|i| r.str(i).to_string()).collect(),
                    policy: policies.index(r.name(policy)?),
                    metrics: metric_cols
                        .iter()
                        .map(|&i| r.cell(i))
                        .collect::<Result<Vec<_>>>()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // The sweep's name is its points' scenario name.
        let name = src.name.clone().unwrap_or_else(|| {
            rows.first()
                .map(|r| scenario_name(&Source::dir(&src.dir.join(&r.folder))))
                .filter(|n| !n.starts_with("point-"))
                .unwrap_or_else(|| scenario_name(src))
        });
        Ok(Self {
            name,
            keys,
            metrics,
            policies,
            rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tenants.csv` rows: policies `a` and `b`, repetitions 3 then 1,
    /// `n` tenants each (user `u<j>`, arrival j, area j + 10 · rep).
    fn tenants_csv(n: usize) -> String {
        let mut text = format!(
            "{},{},{},{},{}\n",
            tenants::POLICY.name,
            tenants::REP.name,
            tenants::USER.name,
            tenants::ARRIVAL_S.name,
            tenants::REGRET_AREA.name
        );
        for rep in [3, 1] {
            for policy in ["a", "b"] {
                for j in 0..n {
                    text.push_str(&format!("{policy},{rep},u{j},{j},{}\n", j + 10 * rep));
                }
            }
        }
        text
    }

    /// Regression (scale-year's plots held every row of the repetition
    /// shown, about 80 bytes a tenant): what is kept of that repetition
    /// is its first policy's first SHOWN_TENANTS rows and their count,
    /// whatever the number of tenants; every area is still read.
    #[test]
    fn the_repetition_shown_keeps_its_first_tenants_not_every_row() {
        let n = 10 * SHOWN_TENANTS;
        let text = tenants_csv(n);
        let t = Table::parse("tenants.csv", text.as_str(), TENANTS_COLUMNS).expect("parses");
        for (wanted, rep) in [(None, 1), (Some(3), 3)] {
            let mut policies = Policies::default();
            let d = read_tenants(&t, wanted, &mut policies).expect("reads");
            assert_eq!(d.shown.len(), SHOWN_TENANTS);
            assert_eq!(d.shown_total, n);
            for (j, row) in d.shown.iter().enumerate() {
                assert_eq!((row.policy, row.rep), (0, rep));
                assert_eq!(row.user, format!("u{j}"));
                assert_eq!(row.arrival, j as f64);
            }
            assert_eq!(d.areas.per_policy.len(), 2);
            assert!(d.areas.per_policy.iter().all(|a| a.n == 2 * n));
            assert_eq!(d.reps, Some((1, 3)));
        }
    }
}
