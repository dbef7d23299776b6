//! The figures, a room of [`crate::present`]: one module per figure and the drawing code they share; it may import only [`crate::core`] (never the report or the tables, which import it).
//!
//! Paper-style figures of a results folder (DESIGN §6.10: PNG and SVG in the
//! folder's `plots/`), drawn with plotters from the folder's CSVs.
//!
//! | figure (file stem) | from | what |
//! |---|---|---|
//! | `regret-curves` | `curves.csv` (+ `tenants.csv` arrivals) | L(τ) per policy with its confidence band, θ lines |
//! | `speedups` | `speedups.csv` | T_B(θ)/T_X(θ) per θ and policy, ∞ and "never reached" spelled out |
//! | `regret` | `regret.csv` | mean cumulative regret per policy with its confidence interval |
//! | `tenant-regret` | `tenants.csv` | per-tenant regret areas per policy: box and strip |
//! | `tenant-accuracy` | `jobs.csv` + `tenants.csv` | best-so-far accuracy per tenant (≤ 16 panels) in one repetition; needs `--jobs` |
//! | `promotions` | `jobs.csv` with `fidelity` (curve traces) | one tenant's evaluations at (fidelity, accuracy), joined rung to rung, one panel per policy that trained below the top fidelity; needs `--jobs` |
//! | `sweep-<metric>` | `sweep.csv` | a metric against the swept key, one line per policy |
//! | `jct-cdf` | job mode `jobs.csv` | CDF of job completion times per policy; needs `--jobs` |
//! | `utilization` | `utilization.csv` | GPU utilisation over time, one panel per policy |
//! | `utilization-by-type` | `utilization_by_type.csv` (typed clusters) | the same, one panel per (policy, GPU type) |
//!
//! The same code draws the figures at the end of `tenantsim run` (from the
//! texts about to be written, into the staged folder) and in `tenantsim
//! plot` (from the files), so both give byte-identical files.

mod area_summary;
mod canvas;
mod chart;
mod data;
pub mod embedded_font;
mod font_subset;
mod jct_cdf;
mod legend;
mod marks;
mod promotions;
pub(crate) mod read;
mod regret_bars;
mod regret_curves;
mod scale;
mod shares;
mod size;
mod speedup_bars;
pub mod style;
mod sweep_lines;
mod tenant_accuracy;
mod tenant_regret;
mod utilization;
mod workflows;

use std::path::{Component, Path, PathBuf};

pub use canvas::{Canvas, Figure, Format, Rendered, render, svg_string};
pub use data::{JobResults, ModelResults, SweepResults, choose_rep};
pub use jct_cdf::JctCdf;
pub use promotions::Promotions;
pub use read::{Source, Table};
pub use regret_bars::RegretBars;
pub use regret_curves::RegretCurves;
pub use shares::{Shares, SharesFigure};
pub use size::{Length, PaperWidth, canvas_for, parse_size};
pub use speedup_bars::SpeedupBars;
pub use style::Style;
pub use sweep_lines::SweepLines;
pub use tenant_accuracy::TenantAccuracy;
pub use tenant_regret::TenantRegret;
pub use utilization::Utilization;

use crate::core::error::{Error, Result};
use crate::core::io::manifest_doc::ManifestDoc;

pub use crate::core::io::PLOTS_DIR;

/// How to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotOptions {
    /// PNG, SVG, PDF or several.
    pub format: Format,
    /// Canvas size and style (screen: pixels; paper: see [`canvas_for`]).
    pub canvas: Canvas,
    /// Log scale on time axes: `None` = each figure's default (log for
    /// regret curves, per-tenant accuracy and JCT CDF; linear otherwise).
    pub log_x: Option<bool>,
    /// Log scale on value axes (loss, regret area, sweep metric).
    pub log_y: bool,
    /// The repetition of the per-tenant and utilisation figures (default:
    /// the first in the files).
    pub rep: Option<u64>,
    /// Sweep metrics to draw (`sweep.csv` columns); empty = the defaults.
    pub metrics: Vec<String>,
    /// The swept key on the x axis of sweep figures (default: the first).
    pub sweep_x: Option<String>,
    /// The tenant of the `promotions` figure (default: see [`Promotions`]).
    pub tenant: Option<String>,
}

impl Default for PlotOptions {
    fn default() -> Self {
        Self {
            format: Format::Both,
            canvas: Canvas::screen(1000, 640),
            log_x: None,
            log_y: false,
            rep: None,
            metrics: Vec::new(),
            sweep_x: None,
            tenant: None,
        }
    }
}

/// What a plotting call did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plotted {
    /// Files written.
    pub files: Vec<PathBuf>,
    /// Figures skipped and why.
    pub notes: Vec<String>,
    /// Paper style: each figure's stem and the caption text left out of it.
    pub captions: Vec<(String, Vec<String>)>,
}

impl Plotted {
    /// Render `fig` into `out` as `opts` say and keep what it gave.
    fn draw<F: Figure>(&mut self, fig: &F, out: &Path, opts: &PlotOptions) -> Result<()> {
        let done = render(fig, out, opts.canvas, opts.format)?;
        self.files.extend(done.files);
        if !done.caption.is_empty() {
            self.captions.push((fig.stem(), done.caption));
        }
        Ok(())
    }

    /// Paper style: write `captions.md` into `out` (one section per
    /// figure: the title, then the notes the figure leaves out).
    fn write_captions(&mut self, out: &Path) -> Result<()> {
        if self.captions.is_empty() {
            return Ok(());
        }
        let path = out.join(CAPTIONS_FILE);
        crate::core::io::write_atomic(&path, captions_markdown(&self.captions).as_bytes())?;
        self.files.push(path);
        Ok(())
    }
}

/// The captions file that paper-style figures get beside them.
pub const CAPTIONS_FILE: &str = "captions.md";

/// `captions.md`: `## <figure file stem>` then the caption: the title as a
/// sentence, then the notes.
pub fn captions_markdown(captions: &[(String, Vec<String>)]) -> String {
    let mut md = String::from(
        "# Figure captions\n\nThe titles and notes that paper-style figures leave out, \
         per figure file.\n",
    );
    for (stem, parts) in captions {
        md.push_str(&format!("\n## {stem}\n\n"));
        let text: Vec<String> = parts
            .iter()
            .map(|p| {
                let p = p.trim();
                if p.ends_with('.') {
                    p.to_string()
                } else {
                    format!("{p}.")
                }
            })
            .collect();
        md.push_str(&text.join(" "));
        md.push('\n');
    }
    md
}

/// Draw the figures of a model-mode results folder into `out`.
pub fn plot_model(src: &Source<'_>, out: &Path, opts: &PlotOptions) -> Result<Plotted> {
    // Everything the options ask for is checked before anything is drawn.
    let data = ModelResults::read(src, opts.rep)?;
    let mut done = Plotted::default();
    let log_time = opts.log_x.unwrap_or(true);
    let curves = RegretCurves {
        data: &data,
        by_jobs: false,
        log_x: log_time,
        log_y: opts.log_y,
    };
    done.draw(&curves, out, opts)?;
    if data.curves_by_job.is_some() {
        // Job counts are small integers: a linear axis unless asked.
        let by_job = RegretCurves {
            by_jobs: true,
            log_x: opts.log_x.unwrap_or(false),
            ..curves
        };
        done.draw(&by_job, out, opts)?;
    } else {
        done.notes.push(format!(
            "regret-curves-by-job skipped: {} has no curves_by_job.csv (written by older versions)",
            src.dir.display()
        ));
    }
    done.draw(&SpeedupBars { data: &data }, out, opts)?;
    done.draw(&RegretBars { data: &data }, out, opts)?;
    let spread = TenantRegret {
        data: &data,
        log: opts.log_y,
    };
    done.draw(&spread, out, opts)?;
    match (&data.jobs, data.jobs_rep) {
        (Some(jobs), Some(rep)) => {
            let fig = TenantAccuracy {
                data: &data,
                jobs,
                rep,
                log_x: log_time,
            };
            done.draw(&fig, out, opts)?;
            match Promotions::new(&data, jobs, rep, opts.tenant.as_deref())? {
                Some(fig) => done.draw(&fig, out, opts)?,
                None if promotions::has_fidelity(jobs) => done.notes.push(format!(
                    "promotions skipped: every job of repetition {rep} in {} ran at its tenant's largest fidelity",
                    src.path("jobs.csv").display()
                )),
                None if opts.tenant.is_some() => {
                    return Err(Error::usage(format!(
                        "--tenant: {} has no fidelity column (the promotions figure needs a curve trace)",
                        src.path("jobs.csv").display()
                    )));
                }
                None => {}
            }
        }
        _ if opts.tenant.is_some() => {
            return Err(Error::usage(format!(
                "--tenant: {} has no jobs.csv (run with --jobs)",
                src.dir.display()
            )));
        }
        _ => done.notes.push(format!(
            "tenant-accuracy skipped: {} has no jobs.csv (run with --jobs)",
            src.dir.display()
        )),
    }
    done.write_captions(out)?;
    Ok(done)
}

/// Draw the figure of a shared results folder's `shares.csv` into `out`
/// (DESIGN §13.5; the workloads' own figures are drawn from their
/// folders, `service/` and `background/`).
pub fn plot_shares(src: &Source<'_>, out: &Path, opts: &PlotOptions) -> Result<Plotted> {
    let data = Shares::read(src)?;
    let mut done = Plotted::default();
    let rep = data.rep(opts.rep)?;
    done.draw(&SharesFigure { data: &data, rep }, out, opts)?;
    Ok(done)
}

/// The folder of a shared results folder's workflows (DESIGN §14.7).
pub const WORKFLOWS_DIR: &str = "workflows";

/// Draw the workflows' figures (`completion`, `utilization`,
/// `makespan_cdf`) of a shared folder's `workflows/` into `out`; `name`
/// titles them.
pub fn plot_workflows(
    src: &Source<'_>,
    name: String,
    out: &Path,
    opts: &PlotOptions,
) -> Result<Plotted> {
    let data = workflows::WorkflowResults::read(src, name)?;
    let mut done = Plotted::default();
    for of in [
        workflows::BarsOf::Completion,
        workflows::BarsOf::Utilization,
    ] {
        done.draw(&workflows::WorkflowBars { data: &data, of }, out, opts)?;
    }
    if data.makespans.iter().any(|m| !m.is_empty()) {
        done.draw(
            &workflows::MakespanCdf {
                data: &data,
                log_x: opts.log_x.unwrap_or(false),
            },
            out,
            opts,
        )?;
    } else {
        done.notes.push(format!(
            "makespan_cdf skipped: {} has no done workflow",
            src.path("workflows.csv").display()
        ));
    }
    done.write_captions(out)?;
    Ok(done)
}

/// Draw the figures of a job-mode results folder into `out`.
pub fn plot_jobs(src: &Source<'_>, out: &Path, opts: &PlotOptions) -> Result<Plotted> {
    let data = JobResults::read(src)?;
    let mut done = Plotted::default();
    let rep = choose_rep(
        data.utilization.iter().map(|b| b.rep),
        opts.rep,
        &src.path("utilization.csv"),
    )?;
    done.draw(
        &Utilization {
            data: &data,
            rep,
            log_x: opts.log_x.unwrap_or(false),
            by_type: false,
        },
        out,
        opts,
    )?;
    if !data.by_type.is_empty() {
        done.draw(
            &Utilization {
                data: &data,
                rep,
                log_x: opts.log_x.unwrap_or(false),
                by_type: true,
            },
            out,
            opts,
        )?;
    }
    if let Some(jcts) = &data.jcts {
        done.draw(
            &JctCdf {
                data: &data,
                jcts,
                log_x: opts.log_x.unwrap_or(true),
            },
            out,
            opts,
        )?;
    } else {
        done.notes.push(format!(
            "jct-cdf skipped: {} has no jobs.csv (run with --jobs)",
            src.dir.display()
        ));
    }
    done.write_captions(out)?;
    Ok(done)
}

/// Draw the sweep figures (`sweep-<metric>`) of a sweep folder into `out`.
pub fn plot_sweep(src: &Source<'_>, out: &Path, opts: &PlotOptions) -> Result<Plotted> {
    let data = SweepResults::read(src)?;
    let key = match &opts.sweep_x {
        None => 0,
        Some(k) => data.keys.iter().position(|x| x == k).ok_or_else(|| {
            Error::usage(format!(
                "--sweep-x {k}: not a swept key of {} (keys: {})",
                src.path("sweep.csv").display(),
                data.keys.join(", ")
            ))
        })?,
    };
    let metrics = if opts.metrics.is_empty() {
        sweep_lines::default_metrics(&data)
    } else {
        opts.metrics
            .iter()
            .map(|m| sweep_lines::metric_index(&data, m))
            .collect::<Result<Vec<_>>>()?
    };
    let mut done = Plotted::default();
    if data.keys.is_empty() {
        done.notes.push(format!(
            "sweep figures skipped: {} names no swept key",
            src.path("sweep.csv").display()
        ));
        return Ok(done);
    }
    for metric in metrics {
        done.draw(
            &SweepLines {
                data: &data,
                metric,
                key,
                log_x: opts.log_x.unwrap_or(false),
                log_y: opts.log_y,
            },
            out,
            opts,
        )?;
    }
    done.write_captions(out)?;
    Ok(done)
}

/// What kind of results folder `dir` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Model selection (`curves.csv`, ...).
    Model,
    /// Job-trace mode (`utilization.csv`, ...).
    Jobs,
    /// A sweep (`sweep.csv` and point folders).
    Sweep,
    /// A shared-cluster folder (`shares.csv`, and each workload's files in
    /// [`SHARED_WORKLOADS`]' folders, DESIGN §13.5).
    Shared,
}

/// The folders of a shared results folder's workloads, in order: the
/// service's (model mode's files) and the background's (job mode's).
pub const SHARED_WORKLOADS: [&str; 2] = ["service", "background"];

/// The workload folders a shared results folder `dir` holds, in
/// [`SHARED_WORKLOADS`] order (empty for any other folder).
pub fn shared_workloads(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    if !dir.join("shares.csv").is_file() {
        return Vec::new();
    }
    SHARED_WORKLOADS
        .iter()
        .map(|w| (*w, dir.join(w)))
        .filter(|(_, p)| p.is_dir())
        .collect()
}

/// The workflows' folder of a shared results folder `dir`
/// (`workflows/` with its `summary.csv`, DESIGN §14.7), if it has one.
pub fn shared_workflows(dir: &Path) -> Option<PathBuf> {
    let wf = dir.join(WORKFLOWS_DIR);
    (dir.join("shares.csv").is_file() && wf.join("summary.csv").is_file()).then_some(wf)
}

/// Draw the figures of a shared results folder `dir`: each workload's
/// into its folder's `plots/` (or `out/<workload>`), the shares figure
/// into `dir/plots` (or `out`). `name` titles them (default: as the
/// folders' files say).
pub fn plot_shared_dir(
    dir: &Path,
    out: Option<&Path>,
    name: Option<&str>,
    opts: &PlotOptions,
) -> Result<Plotted> {
    let mut done = Plotted::default();
    for (w, sub) in shared_workloads(dir) {
        let mut src = Source::dir(&sub);
        src.name = name.map(str::to_string);
        let target = out.map_or_else(|| sub.join(PLOTS_DIR), |o| o.join(w));
        let part = if w == "background" {
            plot_jobs(&src, &target, opts)?
        } else {
            plot_model(&src, &target, opts)?
        };
        done.files.extend(part.files);
        done.notes.extend(part.notes);
    }
    let mut src = Source::dir(dir);
    src.name = name.map(str::to_string);
    let wf = dir.join(WORKFLOWS_DIR);
    if wf.join("summary.csv").is_file() {
        let target = out.map_or_else(|| wf.join(PLOTS_DIR), |o| o.join(WORKFLOWS_DIR));
        let part = plot_workflows(&Source::dir(&wf), data::scenario_name(&src), &target, opts)?;
        done.files.extend(part.files);
        done.notes.extend(part.notes);
    }
    let target = out.map_or_else(|| dir.join(PLOTS_DIR), Path::to_path_buf);
    let part = plot_shares(&src, &target, opts)?;
    done.files.extend(part.files);
    done.notes.extend(part.notes);
    Ok(done)
}

/// Tell a model-mode, job-mode or sweep results folder apart.
pub fn kind_of(dir: &Path) -> Result<Kind> {
    if dir.join("shares.csv").is_file() {
        return Ok(Kind::Shared);
    }
    if !dir.exists() {
        return Err(Error::input(format!(
            "results folder {} not found",
            dir.display()
        )));
    }
    if !dir.is_dir() {
        return Err(Error::input(format!(
            "{} is not a folder: expected a results folder",
            dir.display()
        )));
    }
    if dir.join("sweep.csv").exists() {
        return Ok(Kind::Sweep);
    }
    if dir.join("utilization.csv").exists() {
        return Ok(Kind::Jobs);
    }
    if dir.join("curves.csv").exists() {
        return Ok(Kind::Model);
    }
    // Through the one reader, which refuses a FIFO or device in its place.
    let manifest = ManifestDoc::read(dir, "its `mode` tells the folder's kind")
        .ok()
        .flatten();
    match manifest {
        Some(m) if m.mode() == Some("jobs") => Ok(Kind::Jobs),
        Some(_) => Ok(Kind::Model),
        None => Err(Error::input(format!(
            "{}: not a tenantsim results folder: expected curves.csv (model mode), \
             utilization.csv (job mode) or sweep.csv (a sweep)",
            dir.display()
        ))),
    }
}

/// Draw every figure of the results folder `dir` into `out` (default
/// `dir/plots`). For a sweep, the sweep figures go to `out` and each
/// point's figures to its own `plots/` (or `out/<point folder>` when `out`
/// is given).
pub fn plot_dir(dir: &Path, out: Option<&Path>, opts: &PlotOptions) -> Result<Plotted> {
    let default_out = dir.join(PLOTS_DIR);
    let target = out.unwrap_or(&default_out);
    let src = Source::dir(dir);
    match kind_of(dir)? {
        Kind::Model => plot_model(&src, target, opts),
        Kind::Jobs => plot_jobs(&src, target, opts),
        Kind::Shared => plot_shared_dir(dir, out, None, opts),
        Kind::Sweep => {
            // Every point folder must be a plain name inside the sweep folder.
            let table = src.table("sweep.csv", &["folder"])?;
            let col = table.col("folder")?;
            let mut folders: Vec<String> = Vec::new();
            for r in table.rows() {
                let r = r?;
                let f = r.name(col)?;
                let mut parts = Path::new(f).components();
                if !matches!(
                    (parts.next(), parts.next()),
                    (Some(Component::Normal(_)), None)
                ) {
                    return Err(Error::input(format!(
                        "{}: line {}, column `folder`: expected a folder name inside the sweep folder, found `{f}`",
                        src.path("sweep.csv").display(),
                        r.line()
                    )));
                }
                if !folders.iter().any(|x| x == f) {
                    folders.push(f.to_string());
                }
            }
            let mut done = plot_sweep(&src, target, opts)?;
            for f in folders {
                let point_out = match out {
                    Some(o) => o.join(&f),
                    None => dir.join(&f).join(PLOTS_DIR),
                };
                let point_dir = dir.join(&f);
                let point_src = Source::dir(&point_dir);
                // The points of a job-mode sweep are job-mode folders; any
                // other point is read as model mode, which names the file
                // it misses.
                let point = if point_dir.join("shares.csv").is_file() {
                    plot_shared_dir(&point_dir, out.map(|o| o.join(&f)).as_deref(), None, opts)?
                } else if point_dir.join("utilization.csv").is_file() {
                    plot_jobs(&point_src, &point_out, opts)?
                } else {
                    plot_model(&point_src, &point_out, opts)?
                };
                done.files.extend(point.files);
                done.notes.extend(point.notes);
            }
            Ok(done)
        }
    }
}
