//! The workflows' figures (DESIGN §14.7), from a shared results folder's
//! `workflows/`: `completion` (the completion rate per policy, bars with
//! the confidence interval of `summary.csv`), `utilization` (the
//! workflows' GPU and CPU utilisation per policy, two bars each) and
//! `makespan_cdf` (the empirical CDF of the done workflows' makespans,
//! `end_s − submit_s` of `workflows.csv`, per policy, repetitions pooled).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{Figure, draw_err};
use super::chart::{AxisSpec, FrameOptions, frame, with_note, with_title};
use super::data::Policies;
use super::legend::{LegendPlaced, draw_with_legend, policy_lines, rows_above};
use super::marks::{plain_line, text};
use super::read::{Cell, Source};
use super::scale::{Axis, num};
use super::style::{INK, Theme, series};
use crate::core::error::{Error, Result};

/// A figure's mean and band (`None`: `n/a`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Banded {
    /// Mean over repetitions.
    pub mean: f64,
    /// Lower end of its interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// What the workflows' figures read.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowResults {
    /// Scenario name.
    pub name: String,
    /// Policy order (`summary.csv`'s).
    pub policies: Policies,
    /// Per policy: completion rate.
    pub completion: Vec<Option<Banded>>,
    /// Per policy: GPU utilisation.
    pub gpu: Vec<Option<Banded>>,
    /// Per policy: CPU utilisation.
    pub cpu: Vec<Option<Banded>>,
    /// Per policy: repetitions.
    pub reps: Vec<u64>,
    /// Per policy: the done workflows' makespans, s, sorted.
    pub makespans: Vec<Vec<f64>>,
}

impl WorkflowResults {
    /// Read `summary.csv` and `workflows.csv` of a `workflows/` folder
    /// (`name`: the scenario's name, from the shared folder's `run.json`).
    pub fn read(src: &Source<'_>, name: String) -> Result<Self> {
        let t = src.table("summary.csv", &["policy", "reps", "completion_rate"])?;
        t.require_rows("one row per policy")?;
        let policy = t.col("policy")?;
        let reps_col = t.col("reps")?;
        let cols = |f: &str| -> Result<[usize; 3]> {
            Ok([
                t.col(f)?,
                t.col(&format!("{f}_ci_low"))?,
                t.col(&format!("{f}_ci_high"))?,
            ])
        };
        let (c, g, u) = (
            cols("completion_rate")?,
            cols("gpu_utilization")?,
            cols("cpu_utilization")?,
        );
        let mut out = Self {
            name,
            policies: Policies::default(),
            completion: Vec::new(),
            gpu: Vec::new(),
            cpu: Vec::new(),
            reps: Vec::new(),
            makespans: Vec::new(),
        };
        for r in t.rows() {
            let r = r?;
            out.policies.index(r.name(policy)?);
            let band = |k: [usize; 3]| -> Result<Option<Banded>> {
                Ok(match (r.cell(k[0])?, r.cell(k[1])?, r.cell(k[2])?) {
                    (Cell::Num(mean), Cell::Num(low), Cell::Num(high)) => {
                        Some(Banded { mean, low, high })
                    }
                    _ => None,
                })
            };
            out.completion.push(band(c)?);
            out.gpu.push(band(g)?);
            out.cpu.push(band(u)?);
            out.reps.push(r.count(reps_col)?);
            out.makespans.push(Vec::new());
        }
        let w = src.table("workflows.csv", &["policy", "submit_s", "end_s", "state"])?;
        let (p, s, e, st) = (
            w.col("policy")?,
            w.col("submit_s")?,
            w.col("end_s")?,
            w.col("state")?,
        );
        for r in w.rows() {
            let r = r?;
            if r.str(st) != "done" {
                continue;
            }
            let Some(i) = out.policies.find(r.name(p)?) else {
                return Err(Error::input(format!(
                    "{}: line {}: policy `{}` is not in summary.csv",
                    w.source,
                    r.line(),
                    r.str(p)
                )));
            };
            out.makespans[i].push((r.non_negative(e)? - r.non_negative(s)?).max(0.0));
        }
        for m in &mut out.makespans {
            m.sort_by(f64::total_cmp);
        }
        Ok(out)
    }
}

/// Which bars a [`WorkflowBars`] figure draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarsOf {
    /// `completion`: the completion rate.
    Completion,
    /// `utilization`: GPU and CPU utilisation.
    Utilization,
}

/// The `completion` and `utilization` figures: horizontal bars per
/// policy, whiskers for the confidence interval, the value beside.
#[derive(Debug, Clone, Copy)]
pub struct WorkflowBars<'a> {
    /// The results.
    pub data: &'a WorkflowResults,
    /// Which figure.
    pub of: BarsOf,
}

impl Figure for WorkflowBars<'_> {
    fn stem(&self) -> String {
        match self.of {
            BarsOf::Completion => "completion".into(),
            BarsOf::Utilization => "utilization".into(),
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        let n = d.policies.0.len();
        // (label, values per policy, bar offset within the policy's row).
        let sets: Vec<(&str, &[Option<Banded>], f64)> = match self.of {
            BarsOf::Completion => vec![("", &d.completion, 0.0)],
            BarsOf::Utilization => vec![("GPU", &d.gpu, 0.2), ("CPU", &d.cpu, -0.2)],
        };
        let half = if self.of == BarsOf::Completion {
            0.34
        } else {
            0.17
        };
        let hi = sets
            .iter()
            .flat_map(|(_, v, _)| v.iter().flatten())
            .map(|b| b.high.max(b.mean))
            .fold(1.0f64, f64::max);
        let x = Axis::linear(0.0, hi * 1.25);
        let reps = d.reps.iter().copied().max().unwrap_or(0);
        let (title, what) = match self.of {
            BarsOf::Completion => (
                "workflow completion rate per policy",
                "bars: workflows done (by deadline and horizon) / submitted, mean over",
            ),
            BarsOf::Utilization => (
                "workflows' GPU and CPU utilisation per policy",
                "bars: the workflows' busy GPU (CPU) time / (cluster GPUs (CPUs) × the run's length), mean over",
            ),
        };
        let area = with_title(root, theme, &format!("{}: {title}", d.name))?;
        let area = with_note(
            &area,
            theme,
            &format!(
                "{what} {reps} repetition(s); whiskers: confidence interval; n/a: undefined (e.g. CPUs not counted)"
            ),
        )?;
        let names: Vec<String> = d.policies.0.iter().rev().cloned().collect();
        let label = match self.of {
            BarsOf::Completion => "completion rate",
            BarsOf::Utilization => "utilisation (fraction of the cluster)",
        };
        let xs = AxisSpec::new(x, label);
        let ys = AxisSpec::categories(names, "");
        let mut chart = frame(&area, theme, &xs, &ys, FrameOptions::default())?;
        let cap = half * 0.4;
        let pad = (x.hi - x.lo) * 0.012;
        for i in 0..n {
            let row = (n - 1 - i) as f64;
            let st = series(i);
            for (tag, values, offset) in &sets {
                let pos = row + offset;
                let prefix = if tag.is_empty() {
                    String::new()
                } else {
                    format!("{tag} ")
                };
                let Some(b) = values.get(i).copied().flatten() else {
                    text(
                        &mut chart,
                        &format!("{prefix}n/a"),
                        (pad, pos),
                        &theme.annotation(),
                        HPos::Left,
                        VPos::Center,
                    )?;
                    continue;
                };
                let fill = if *tag == "CPU" {
                    st.color.mix(0.45).filled()
                } else {
                    st.color.filled()
                };
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(0.0, pos - half), (b.mean, pos + half)],
                        fill,
                    )))
                    .map_err(draw_err)?;
                if b.high > b.low {
                    for whisker in [
                        WHITE.stroke_width(theme.upx(4.6)),
                        INK.stroke_width(theme.upx(1.6)),
                    ] {
                        plain_line(&mut chart, &[(b.low, pos), (b.high, pos)], whisker, None)?;
                        for v in [b.low, b.high] {
                            plain_line(
                                &mut chart,
                                &[(v, pos - cap), (v, pos + cap)],
                                whisker,
                                None,
                            )?;
                        }
                    }
                }
                text(
                    &mut chart,
                    &format!("{prefix}{}", num(b.mean)),
                    (b.high.max(b.mean) + pad, pos),
                    &theme.annotation(),
                    HPos::Left,
                    VPos::Center,
                )?;
            }
        }
        Ok(())
    }
}

/// The `makespan_cdf` figure.
#[derive(Debug, Clone, Copy)]
pub struct MakespanCdf<'a> {
    /// The results.
    pub data: &'a WorkflowResults,
    /// Log makespan axis.
    pub log_x: bool,
}

impl Figure for MakespanCdf<'_> {
    fn stem(&self) -> String {
        "makespan_cdf".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        draw_with_legend(self, root, theme)
    }
}

impl LegendPlaced for MakespanCdf<'_> {
    fn draw_placed<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        theme: &Theme,
        above: bool,
    ) -> Result<bool> {
        let d = self.data;
        let x = super::jct_cdf::cdf_x_axis(d.makespans.iter().flatten(), self.log_x, 1.0);
        let y = Axis::linear(0.0, 1.0);
        let reps = d.reps.iter().copied().max().unwrap_or(0);
        let area = with_title(root, theme, &format!("{}: workflow makespan CDF", d.name))?;
        let area = with_note(
            &area,
            theme,
            &format!(
                "makespan = end − submit of a done workflow; {reps} repetition(s) pooled; markers: median"
            ),
        )?;
        let entries = policy_lines(&d.policies.0, |i| {
            d.makespans.get(i).is_some_and(|m| !m.is_empty())
        });
        let area = if above {
            rows_above(root, &area, &entries, theme)?
        } else {
            area
        };
        let xs = AxisSpec::new(
            x,
            if self.log_x {
                "workflow makespan (s, log scale)"
            } else {
                "workflow makespan (s)"
            },
        );
        let ys = AxisSpec::new(y, "fraction of done workflows within (CDF)");
        let mut chart = frame(&area, theme, &xs, &ys, FrameOptions::default())?;
        super::jct_cdf::cdf_curves_and_legend(
            root,
            &mut chart,
            &d.makespans,
            x,
            &entries,
            above,
            theme,
        )
    }
}
