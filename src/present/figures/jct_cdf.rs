//! Figure `jct-cdf` (job mode): the empirical CDF of job completion times
//! (end − submit, from `jobs.csv`, written with `--jobs`) per scheduler,
//! all repetitions pooled, with the median marked on each curve and the
//! p50 / p95 levels of `summary.csv` as reference lines.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::{Figure, draw_err};
use super::chart::{AxisSpec, Chart, FrameOptions, frame, with_note, with_title};
use super::data::JobResults;
use super::legend::{
    Entry, LegendPlaced, Obstacles, box_size, draw_box, draw_with_legend, free_spot,
    marker_obstacles, policy_lines, rows_above,
};
use super::marks::{line, markers, plain_line, steps, trace_pixels};
use super::scale::{Axis, num};
use super::style::{Theme, series};
use crate::core::analysis::stats::quantile;
use crate::core::error::Result;

/// The JCT CDF figure.
#[derive(Debug, Clone, Copy)]
pub struct JctCdf<'a> {
    /// The results.
    pub data: &'a JobResults,
    /// The jobs' completion times per policy index, sorted.
    pub jcts: &'a [Vec<f64>],
    /// Log JCT axis (the default).
    pub log_x: bool,
}

/// The x axis of a CDF of `values` (≥ 0): from 0 (linear) or the
/// smallest positive value (log; 10⁻³ without one) to the largest value,
/// `hi_when_empty` when that is 0.
pub(super) fn cdf_x_axis<'v>(
    values: impl Iterator<Item = &'v f64> + Clone,
    log: bool,
    hi_when_empty: f64,
) -> Axis {
    let hi = values.clone().copied().fold(0.0f64, f64::max);
    let hi = if hi > 0.0 { hi } else { hi_when_empty };
    let lo = values
        .copied()
        .filter(|&v| v > 0.0)
        .fold(f64::INFINITY, f64::min);
    if log {
        Axis::log(if lo.is_finite() { lo } else { 1e-3 }, hi)
    } else {
        Axis::linear(0.0, hi)
    }
}

/// Steps drawn per curve at most: beyond, the CDF is drawn through
/// evenly spaced ranks (a vertical error below 1/2000).
pub const MAX_STEPS: usize = 2000;

impl Figure for JctCdf<'_> {
    fn stem(&self) -> String {
        "jct-cdf".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        draw_with_legend(self, root, theme)
    }
}

impl LegendPlaced for JctCdf<'_> {
    fn draw_placed<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        theme: &Theme,
        above: bool,
    ) -> Result<bool> {
        let d = self.data;
        let x = cdf_x_axis(self.jcts.iter().flatten(), self.log_x, 0.0);
        let y = Axis::linear(0.0, 1.0);
        let reps = d.jct_reps;
        let area = with_title(root, theme, &format!("{}: job completion time CDF", d.name))?;
        let area = with_note(
            &area,
            theme,
            &format!(
                "JCT = end − submit; each step is one job, {reps} repetition(s) pooled; markers: median JCT; dashed: p50 and p95 levels"
            ),
        )?;
        let entries = policy_lines(&d.policies.0, |_| true);
        let area = if above {
            rows_above(root, &area, &entries, theme)?
        } else {
            area
        };
        let xs = AxisSpec::new(
            x,
            if self.log_x {
                "job completion time (s, log scale)"
            } else {
                "job completion time (s)"
            },
        );
        let ys = AxisSpec::new(y, "fraction of jobs completed within (CDF)");
        let mut chart = frame(
            &area,
            theme,
            &xs,
            &ys,
            FrameOptions {
                extra_right: 14.0,
                ..FrameOptions::default()
            },
        )?;
        let (xr0, xr1) = (x.range().start, x.range().end);
        for level in [0.5, 0.95] {
            plain_line(
                &mut chart,
                &[(xr0, level), (xr1, level)],
                theme.reference(),
                Some((theme.px(7.0), theme.px(5.0))),
            )?;
            // Labelled right of the plot, where no curve or legend goes.
            let (px, py) = chart.backend_coord(&(xr1, level));
            root.draw(&Text::new(
                format!("p{}", num(level * 100.0)),
                (px + theme.px(4.0), py),
                theme.note().pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(draw_err)?;
        }
        cdf_curves_and_legend(root, &mut chart, self.jcts, x, &entries, above, theme)
    }
}

/// One empirical CDF per policy (`values[i]` sorted; empty: not drawn),
/// stepped through at most [`MAX_STEPS`] evenly spaced ranks up to the
/// axis end, each with its median marked, then the legend: already above
/// the plot when `above`, else in a free spot of the plot area avoiding
/// the curves and markers (`false`: none found, the caller puts it
/// above). Shared by `jct-cdf` and the workflows' `makespan_cdf`.
pub(super) fn cdf_curves_and_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &mut Chart<'_, DB>,
    values: &[Vec<f64>],
    x: Axis,
    entries: &[Entry],
    above: bool,
    theme: &Theme,
) -> Result<bool> {
    let xr1 = x.range().end;
    let mut occupied = Obstacles::default();
    for (i, v) in values.iter().enumerate() {
        if v.is_empty() {
            continue;
        }
        let s = series(i);
        let n = v.len();
        let mut pts = vec![(x.clamp_to(v[0]), 0.0)];
        pts.extend(
            super::area_summary::ranks(n, MAX_STEPS)
                .into_iter()
                .map(|k| (x.clamp_to(v[k]), (k + 1) as f64 / n as f64)),
        );
        let stepped = steps(&pts, Some(xr1));
        line(chart, &stepped, &s, theme)?;
        occupied.polyline(&trace_pixels(chart, &stepped, theme.px(6.0)), theme.px(2.0));
        let median = [(x.clamp_to(quantile(v, 0.5)), 0.5)];
        markers(chart, &median, &s, theme)?;
        marker_obstacles(&mut occupied, chart, &median, theme);
    }
    if above {
        return Ok(true);
    }
    let size = box_size(root, entries, theme);
    let plot = chart.plotting_area().get_pixel_range();
    match free_spot(&plot, size, &occupied, theme) {
        Some(at) => {
            draw_box(root, at, entries, theme)?;
            Ok(true)
        }
        None => Ok(false),
    }
}
