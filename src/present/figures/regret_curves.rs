//! Figure `regret-curves`: the global mean loss L(τ) against simulated
//! time, one line per policy with its shaded confidence band (from
//! `curves.csv`), θ thresholds as dashed horizontal lines; and figure
//! `regret-curves-by-job`, the same against the number of completed jobs
//! (from `curves_by_job.csv`, the per-trial view of the ease.ml
//! prototypes).
//!
//! L(τ) is the mean loss over the tenants that have arrived (DESIGN §2.6):
//! instants where no repetition has a tenant yet are absent from
//! `curves.csv` and are not drawn, and with staggered arrivals a dotted
//! vertical line marks the median (over repetitions) of the last arrival,
//! from which on T(θ) counts. Each grid value holds until the next grid
//! instant (the curve is drawn as steps, like the step function it
//! samples).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::Figure;
use super::chart::{AxisSpec, FrameOptions, frame, with_note, with_title};
use super::data::ModelResults;
use super::legend::{
    LegendPlaced, Obstacles, box_size, draw_box, draw_with_legend, free_spot, marker_obstacles,
    policy_lines, rows_above,
};
use super::marks::{
    band, labels_width, line, margin_labels, markers, plain_line, steps, text, trace_pixels,
};
use super::scale::{Axis, num};
use super::style::{MUTED, Theme, series};
use crate::core::analysis::stats::quantile;
use crate::core::error::Result;

/// The regret-curve figure.
#[derive(Debug, Clone, Copy)]
pub struct RegretCurves<'a> {
    /// The results.
    pub data: &'a ModelResults,
    /// Against completed jobs (`curves_by_job.csv`) instead of time.
    pub by_jobs: bool,
    /// Log x axis (the default for time).
    pub log_x: bool,
    /// Log loss axis.
    pub log_y: bool,
}

/// The header of the θ labels right of the plot.
const THETA: &str = "θ";

/// Median over repetitions of the last arrival, when arrivals are
/// staggered (some tenant arrives after 0).
pub fn median_last_arrival(data: &ModelResults) -> Option<f64> {
    if data.tenants.last_arrivals.is_empty() {
        return None;
    }
    let mut v = data.tenants.last_arrivals.clone();
    v.sort_by(f64::total_cmp);
    let m = quantile(&v, 0.5);
    (m > 0.0).then_some(m)
}

impl Figure for RegretCurves<'_> {
    fn stem(&self) -> String {
        if self.by_jobs {
            "regret-curves-by-job".into()
        } else {
            "regret-curves".into()
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        draw_with_legend(self, root, theme)
    }
}

impl LegendPlaced for RegretCurves<'_> {
    fn draw_placed<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        theme: &Theme,
        above: bool,
    ) -> Result<bool> {
        let d = self.data;
        let curves: &[Vec<super::data::CurvePoint>] = if self.by_jobs {
            d.curves_by_job.as_deref().unwrap_or(&[])
        } else {
            &d.curves
        };
        let points = curves.iter().flatten();
        let (mut t_lo, mut t_hi) = (f64::INFINITY, 0.0f64);
        let (mut y_lo, mut y_hi) = (f64::INFINITY, 0.0f64);
        for p in points {
            if p.time > 0.0 || !self.log_x {
                t_lo = t_lo.min(p.time);
            }
            t_hi = t_hi.max(p.time);
            y_hi = y_hi.max(p.high).max(p.mean);
            for v in [p.low, p.mean] {
                if v > 0.0 {
                    y_lo = y_lo.min(v);
                }
            }
        }
        for &th in &d.thresholds {
            y_hi = y_hi.max(th);
            y_lo = y_lo.min(th);
        }
        let arrival = median_last_arrival(d).filter(|_| !self.by_jobs);
        if let Some(a) = arrival {
            t_hi = t_hi.max(a);
        }
        if !t_lo.is_finite() {
            t_lo = if self.log_x {
                t_hi.max(1e-6) / 10.0
            } else {
                0.0
            };
        }
        // A loss is at most 1: a wide band (few repetitions) must not
        // squash the curves.
        y_hi = y_hi.min(1.0);
        let x = Axis::auto(self.log_x, t_lo, t_hi);
        let y = if self.log_y {
            Axis::log(if y_lo.is_finite() { y_lo } else { 1e-3 }, y_hi)
        } else {
            Axis::linear(0.0, y_hi)
        };
        let band_note = match d.confidence {
            Some(c) => format!("{} % confidence band of the mean", num(c * 100.0)),
            None => "confidence band of the mean".to_string(),
        };
        let (what, title) = if self.by_jobs {
            (
                "mean loss over the arrived tenants right after each completed job",
                format!("{}: mean loss per completed job, per policy", d.name),
            )
        } else {
            (
                "L(τ): mean loss over the tenants that have arrived",
                format!("{}: mean loss L(τ) per policy", d.name),
            )
        };
        let note = format!(
            "{what}; shaded: {band_note} over {} repetition(s); dashed: θ thresholds",
            d.repetitions
        );
        let area = with_title(root, theme, &title)?;
        let area = with_note(&area, theme, &note)?;
        let entries = policy_lines(&d.policies.0, |i| {
            curves.get(i).is_some_and(|c| !c.is_empty())
        });
        let area = if above {
            rows_above(root, &area, &entries, theme)?
        } else {
            area
        };
        // θ labels go right of the plot, one per line, never on a curve.
        let mut thetas = d.thresholds.clone();
        thetas.sort_by(|a, b| b.total_cmp(a));
        let theta_labels: Vec<String> = thetas.iter().map(|&t| num(t)).collect();
        let xs = AxisSpec::new(
            x,
            match (self.by_jobs, self.log_x) {
                (true, true) => "completed jobs (log scale)",
                (true, false) => "completed jobs",
                (false, true) => "simulated time τ (s, log scale)",
                (false, false) => "simulated time τ (s)",
            },
        );
        let ys = AxisSpec::new(
            y,
            match (self.by_jobs, self.log_y) {
                (true, true) => "mean loss (accuracy, log scale)",
                (true, false) => "mean loss (accuracy)",
                (false, true) => "mean loss L(τ) (accuracy, log scale)",
                (false, false) => "mean loss L(τ) (accuracy)",
            },
        );
        let label_w = labels_width(root, theme, &theta_labels, THETA, &theme.note());
        let mut chart = frame(
            &area,
            theme,
            &xs,
            &ys,
            FrameOptions {
                extra_right: f64::from(label_w) / theme.scale,
                ..FrameOptions::default()
            },
        )?;
        let map = |t: f64, v: f64| (x.clamp_to(t), y.clamp_to(v));
        // Bands first, so that every line stays visible on top of them.
        for (i, pts) in curves.iter().enumerate() {
            let s = series(i);
            let pts: Vec<_> = pts.iter().filter(|p| !self.log_x || p.time > 0.0).collect();
            let upper: Vec<(f64, f64)> = pts.iter().map(|p| map(p.time, p.high)).collect();
            let lower: Vec<(f64, f64)> = pts.iter().map(|p| map(p.time, p.low)).collect();
            let (upper, lower) = (steps(&upper, None), steps(&lower, None));
            if upper.iter().zip(&lower).any(|(a, b)| a.1 != b.1) {
                band(&mut chart, &upper, &lower, s.color.mix(0.16).filled())?;
            }
        }
        // θ thresholds: dashed lines across the plot, labelled right of it.
        let (xr0, xr1) = (x.range().start, x.range().end);
        let mut label_at = Vec::new();
        for &th in &thetas {
            let yc = y.clamp_to(th);
            plain_line(
                &mut chart,
                &[(xr0, yc), (xr1, yc)],
                theme.reference(),
                Some((theme.px(7.0), theme.px(5.0))),
            )?;
            label_at.push(chart.backend_coord(&(xr1, yc)).1);
        }
        let plot = chart.plotting_area().get_pixel_range();
        margin_labels(root, theme, &plot, &theta_labels, &label_at, THETA)?;
        let mut occupied = Obstacles::default();
        if let Some(a) = arrival {
            let xa = x.clamp_to(a);
            let (yr0, yr1) = (y.range().start, y.range().end);
            plain_line(
                &mut chart,
                &[(xa, yr0), (xa, yr1)],
                MUTED.stroke_width(theme.upx(1.3)),
                Some((theme.px(2.0), theme.px(4.0))),
            )?;
            text(
                &mut chart,
                " last arrival (median over repetitions)",
                (xa, yr1 - (yr1 - yr0) * 0.01),
                &theme.note(),
                HPos::Left,
                VPos::Top,
            )?;
        }
        for (i, pts) in curves.iter().enumerate() {
            let s = series(i);
            let pts: Vec<(f64, f64)> = pts
                .iter()
                .filter(|p| !self.log_x || p.time > 0.0)
                .map(|p| map(p.time, p.mean))
                .collect();
            let stepped = steps(&pts, None);
            line(&mut chart, &stepped, &s, theme)?;
            occupied.polyline(
                &trace_pixels(&chart, &stepped, theme.px(6.0)),
                theme.px(2.0),
            );
            // Markers on a few grid points, staggered between policies.
            let every = (pts.len() / 8).max(1);
            let offset = (i * every / curves.len().max(1)) % every;
            let marks: Vec<(f64, f64)> = pts.iter().skip(offset).step_by(every).copied().collect();
            markers(&mut chart, &marks, &s, theme)?;
            marker_obstacles(&mut occupied, &chart, &marks, theme);
        }
        if above {
            return Ok(true);
        }
        let size = box_size(root, &entries, theme);
        let plot = chart.plotting_area().get_pixel_range();
        match free_spot(&plot, size, &occupied, theme) {
            Some(at) => {
                draw_box(root, at, &entries, theme)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}
