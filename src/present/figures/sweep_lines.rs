//! Figure `sweep-<metric>`: a metric of `sweep.csv` against one swept key,
//! one line per policy; with several swept keys, one panel per combination
//! of the other keys' values (at most [`MAX_PANELS`]). A numeric key gets
//! a numeric axis, anything else one position per value in grid order.
//! `inf` values (θ never reached) are drawn as open triangles on the top
//! edge; `regret_mean` gets its confidence interval as error bars.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::canvas::{Figure, draw_err};
use super::chart::{
    AxisSpec, FrameOptions, frame, grid_shape, with_note, with_shared_titles, with_title,
};
use super::data::SweepResults;
use super::legend::{
    LegendPlaced, Obstacles, box_size, draw_box, draw_with_legend, free_spot, marker_obstacles,
    policy_lines, rows_above,
};
use super::marks::{line, markers, plain_line, trace_pixels};
use super::read::Cell;
use super::scale::Axis;
use super::style::{Theme, series};
use crate::core::error::{Error, Result};

/// Panels drawn at most.
pub const MAX_PANELS: usize = 16;

/// The sweep figure of one metric.
#[derive(Debug, Clone)]
pub struct SweepLines<'a> {
    /// The sweep.
    pub data: &'a SweepResults,
    /// Index of the metric in `data.metrics`.
    pub metric: usize,
    /// Index of the swept key on the x axis.
    pub key: usize,
    /// Log scale on the key axis (numeric keys > 0 only).
    pub log_x: bool,
    /// Log scale on the metric axis.
    pub log_y: bool,
}

/// Axis title of a `sweep.csv` metric column.
pub fn metric_title(m: &str) -> String {
    if let Some(t) = m
        .strip_prefix("time_to_")
        .and_then(|r| r.strip_suffix("_s"))
    {
        return format!("T({t}) of the mean loss curve (s)");
    }
    if let Some(t) = m.strip_prefix("speedup_") {
        return format!("speedup T_B({t}) / T_X({t}) (×)");
    }
    match m {
        "regret_mean" => "mean cumulative regret (accuracy·s)".into(),
        "regret_ci_low" | "regret_ci_high" => format!("{m} (accuracy·s)"),
        "final_loss_mean" => "mean final loss (accuracy)".into(),
        "regret_ratio" => "regret / baseline's regret".into(),
        "reps" => "repetitions".into(),
        other => other.into(),
    }
}

/// Index of metric `name` in the sweep, an error listing the columns
/// otherwise.
pub fn metric_index(d: &SweepResults, name: &str) -> Result<usize> {
    d.metrics.iter().position(|m| m == name).ok_or_else(|| {
        Error::usage(format!(
            "--metric {name}: sweep.csv has no such column (metrics: {})",
            d.metrics.join(", ")
        ))
    })
}

/// The default metrics: `regret_mean` and the first `time_to_<θ>_s`.
pub fn default_metrics(d: &SweepResults) -> Vec<usize> {
    let mut out = Vec::new();
    if let Some(i) = d
        .metrics
        .iter()
        .position(|m| m == "regret_mean" || m == "mean_jct_s")
    {
        out.push(i);
    }
    if let Some(i) = d.metrics.iter().position(|m| m.starts_with("time_to_")) {
        out.push(i);
    }
    out
}

/// A file-name-safe version of a metric name.
fn safe(m: &str) -> String {
    m.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

struct Layout {
    /// Distinct values of the x key, in first-appearance order.
    xs: Vec<String>,
    /// Numeric x positions (when every value is a number).
    numeric: Option<Vec<f64>>,
    /// Distinct combinations of the other keys, in first-appearance order.
    panels: Vec<Vec<String>>,
}

impl SweepLines<'_> {
    fn layout(&self) -> Layout {
        let d = self.data;
        let mut xs: Vec<String> = Vec::new();
        let mut panels: Vec<Vec<String>> = Vec::new();
        for r in &d.rows {
            let v = r.values.get(self.key).cloned().unwrap_or_default();
            if !xs.contains(&v) {
                xs.push(v);
            }
            let rest = self.rest(&r.values);
            if !panels.contains(&rest) {
                panels.push(rest);
            }
        }
        let numeric: Option<Vec<f64>> = xs
            .iter()
            .map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect();
        Layout {
            xs,
            numeric,
            panels,
        }
    }

    fn rest(&self, values: &[String]) -> Vec<String> {
        values
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != self.key)
            .map(|(_, v)| v.clone())
            .collect()
    }

    fn x_of(&self, l: &Layout, v: &str) -> f64 {
        let i = l.xs.iter().position(|x| x == v).unwrap_or(0);
        match &l.numeric {
            Some(n) => n[i],
            None => i as f64,
        }
    }
}

impl Figure for SweepLines<'_> {
    fn stem(&self) -> String {
        format!("sweep-{}", safe(&self.data.metrics[self.metric]))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        draw_with_legend(self, root, theme)
    }
}

impl LegendPlaced for SweepLines<'_> {
    fn draw_placed<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        theme: &Theme,
        above: bool,
    ) -> Result<bool> {
        let d = self.data;
        let metric = &d.metrics[self.metric];
        let key = &d.keys[self.key];
        let l = self.layout();
        let ci = if metric == "regret_mean" {
            let lo = d.metrics.iter().position(|m| m == "regret_ci_low");
            let hi = d.metrics.iter().position(|m| m == "regret_ci_high");
            lo.zip(hi)
        } else {
            None
        };
        let finite = |c: &Cell| match c {
            Cell::Num(v) => Some(*v),
            _ => None,
        };
        let values: Vec<f64> = d
            .rows
            .iter()
            .flat_map(|r| {
                let mut v = vec![r.metrics[self.metric]];
                if let Some((a, b)) = ci {
                    v.push(r.metrics[a]);
                    v.push(r.metrics[b]);
                }
                v
            })
            .filter_map(|c| finite(&c))
            .collect();
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let y = if self.log_y {
            let pos = values
                .iter()
                .copied()
                .filter(|&v| v > 0.0)
                .fold(f64::INFINITY, f64::min);
            Axis::log(if pos.is_finite() { pos } else { 1e-3 }, hi)
        } else if hi.is_finite() {
            Axis::linear(lo.min(0.0), hi * 1.08)
        } else {
            Axis::linear(0.0, 1.0)
        };
        let x_spec = match &l.numeric {
            Some(n) => {
                let (a, b) = n
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                        (a.min(v), b.max(v))
                    });
                let log = self.log_x && a > 0.0;
                let axis = if log {
                    Axis::log(a, b)
                } else {
                    let pad = if b > a { (b - a) * 0.06 } else { 0.5 };
                    Axis::linear_exact(a - pad, b + pad)
                };
                if log {
                    AxisSpec::new(axis, key.clone())
                } else {
                    // Ticks on the swept values themselves.
                    let ticks = n.iter().zip(&l.xs).map(|(&v, t)| (v, t.clone())).collect();
                    AxisSpec::with_ticks(axis, ticks, key.clone())
                }
            }
            None => AxisSpec::categories(l.xs.clone(), key.clone()),
        };
        let area = with_title(
            root,
            theme,
            &format!("{}: {} against {key}", d.name, metric_title(metric)),
        )?;
        let any_inf = d.rows.iter().any(|r| r.metrics[self.metric] == Cell::Inf);
        let mut note = String::from("one line per policy");
        if any_inf {
            note.push_str("; open triangles on the top edge: inf (θ never reached)");
        }
        if ci.is_some() {
            note.push_str(
                "; whiskers: confidence interval of the mean (lines shifted sideways a little so they do not overlap)",
            );
        }
        if l.panels.len() > MAX_PANELS {
            note.push_str(&format!(
                "\nthe first {MAX_PANELS} of {} panels",
                l.panels.len()
            ));
        }
        let area = with_note(&area, theme, &note)?;
        let entries = policy_lines(&d.policies.0, |_| true);
        let single = l.panels.len() <= 1;
        let (inner, y_title_in_frame) = if single && !above {
            (area.clone(), true)
        } else if single {
            (rows_above(root, &area, &entries, theme)?, true)
        } else {
            let rest = rows_above(root, &area, &entries, theme)?;
            (
                with_shared_titles(&rest, theme, key, &metric_title(metric))?,
                false,
            )
        };
        let n_panels = l.panels.len().clamp(1, MAX_PANELS);
        let (iw, ih) = inner.dim_in_pixel();
        let (rows, cols) = grid_shape(n_panels, iw, ih);
        let cells = inner.split_evenly((rows, cols));
        let other_keys: Vec<&String> = d
            .keys
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != self.key)
            .map(|(_, k)| k)
            .collect();
        for (pi, cell) in cells.iter().enumerate().take(n_panels) {
            let combo = l.panels.get(pi).cloned().unwrap_or_default();
            let caption: String = other_keys
                .iter()
                .zip(&combo)
                .map(|(k, v)| format!("{k} = {v}"))
                .collect::<Vec<_>>()
                .join(", ");
            let (xs, ys) = if y_title_in_frame {
                (x_spec.clone(), AxisSpec::new(y, metric_title(metric)))
            } else {
                (
                    AxisSpec {
                        title: String::new(),
                        ..x_spec.clone()
                    },
                    AxisSpec::new(y, ""),
                )
            };
            let mut chart = frame(
                cell,
                theme,
                &xs,
                &ys,
                FrameOptions {
                    caption: (!caption.is_empty()).then_some(caption.as_str()),
                    compact: !single,
                    ..FrameOptions::default()
                },
            )?;
            let top = y.to(y.hi);
            let x_span = xs.axis.range().end - xs.axis.range().start;
            let n_pol = d.policies.0.len() as f64;
            let shift = if ci.is_some() { x_span * 0.008 } else { 0.0 };
            let dodge = |p: usize| (p as f64 - (n_pol - 1.0) / 2.0) * shift;
            let mut occupied = Obstacles::default();
            for (p, _) in d.policies.0.iter().enumerate() {
                let s = series(p);
                let mut pts: Vec<(f64, f64)> = Vec::new();
                let mut infs: Vec<(f64, f64)> = Vec::new();
                for r in d
                    .rows
                    .iter()
                    .filter(|r| r.policy == p && self.rest(&r.values) == combo)
                {
                    let xv = self.x_of(&l, r.values.get(self.key).map_or("", String::as_str));
                    let xc = xs.axis.to(xv) + dodge(p);
                    match r.metrics[self.metric] {
                        Cell::Num(v) => {
                            pts.push((xc, y.clamp_to(v)));
                            if let Some((a, b)) = ci
                                && let (Cell::Num(lo), Cell::Num(hi)) = (r.metrics[a], r.metrics[b])
                                && hi > lo
                            {
                                let whisker = [(xc, y.clamp_to(lo)), (xc, y.clamp_to(hi))];
                                occupied.polyline(
                                    &trace_pixels(&chart, &whisker, theme.px(6.0)),
                                    theme.px(1.0),
                                );
                                plain_line(
                                    &mut chart,
                                    &whisker,
                                    s.color.stroke_width(theme.upx(1.4)),
                                    None,
                                )?;
                            }
                        }
                        Cell::Inf => infs.push((xc, top)),
                        Cell::NotApplicable => {}
                    }
                }
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                line(&mut chart, &pts, &s, theme)?;
                markers(&mut chart, &pts, &s, theme)?;
                occupied.polyline(&trace_pixels(&chart, &pts, theme.px(6.0)), theme.px(2.0));
                marker_obstacles(&mut occupied, &chart, &pts, theme);
                let r = theme.marker_size() + 1;
                for &c in &infs {
                    let (cx, cy) = chart.backend_coord(&c);
                    occupied.dots.push(((cx, cy + r), 2 * r));
                    chart
                        .plotting_area()
                        .draw(
                            &(EmptyElement::at(c)
                                + Polygon::new(
                                    vec![(0, 0), (r, 2 * r), (-r, 2 * r)],
                                    WHITE.filled(),
                                )
                                + PathElement::new(
                                    vec![(0, 0), (r, 2 * r), (-r, 2 * r), (0, 0)],
                                    s.color.stroke_width(theme.upx(1.6)),
                                )),
                        )
                        .map_err(draw_err)?;
                }
            }
            if single && !above {
                let size = box_size(root, &entries, theme);
                let plot = chart.plotting_area().get_pixel_range();
                return match free_spot(&plot, size, &occupied, theme) {
                    Some(at) => {
                        draw_box(root, at, &entries, theme)?;
                        Ok(true)
                    }
                    None => Ok(false),
                };
            }
        }
        Ok(true)
    }
}
