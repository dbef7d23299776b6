//! Figure `speedups`: for each θ (one panel each), the time-to-quality
//! speedup T_B(θ)/T_X(θ) of every policy over the baseline (from
//! `speedups.csv`), as horizontal bars on a log scale anchored at 1 (the
//! baseline): a bar to the right reaches θ that many times sooner, a bar
//! to the left that many times later. The value is printed at each bar's
//! end. The cases without a number are spelled out: `∞` (only the
//! baseline never reaches θ: a pale bar to the right edge), "never
//! reached" (the policy never does: a pale bar to the left edge) and "n/a"
//! (neither does). All panels share one scale.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{Figure, draw_err};
use super::chart::{
    AxisSpec, FrameOptions, caption_lines, fitting, frame, plot_width, text_width, with_note,
    with_title, with_x_title,
};
use super::data::ModelResults;
use super::marks::{plain_line, text};
use super::read::Cell;
use super::scale::{Axis, num};
use super::style::{INK, MUTED, Theme, series, tint};
use crate::core::error::Result;

/// The speedup figure.
#[derive(Debug, Clone, Copy)]
pub struct SpeedupBars<'a> {
    /// The results.
    pub data: &'a ModelResults,
}

/// Half the thickness of a bar, in category units.
const HALF: f64 = 0.34;

/// The gap between a bar's end and its value label, base pixels.
const PAD_PX: f64 = 4.0;

/// The printed value of a speedup.
fn value_label(v: f64) -> String {
    format!("{}×", num(v))
}

/// The shared log scale of the panels: from the smallest speedup (and 1)
/// to the largest (and 1), a tenth of a decade beyond, and widened until
/// each value label fits beyond its bar's end on a plot `plot_w` pixels
/// wide: `labels` holds (speedup, label width with its gap, pixels); a
/// bar right of 1 has its label right of its end, a bar left of 1 left of
/// its end. With `a`, `b` the ends in decades and `p = plot_w / (b − a)`
/// pixels per decade, a label of width `w` at `v ≥ 1` needs
/// `b ≥ log10 v + w / p` (and `a ≤ log10 v − w / p` for `v < 1`); the
/// ends are moved to meet the tightest of these until they settle
/// (a fixed point, reached when the labels fit at all: `None` when they
/// do not). Without `beyond`, a bar left of 1 has its label right of 1
/// instead (`b ≥ w / p`): the fallback of narrow panels. `inside` is the
/// room (pixels) the shortest labels inside the pale bars need left of 1
/// ("never") and right of 1 ("∞"): `a ≤ −w / p`, `b ≥ w / p`; without
/// `beyond`, "never" is printed right of 1 (`b ≥ w / p`).
fn label_room(
    lo: f64,
    hi: f64,
    labels: &[(f64, i32)],
    plot_w: i32,
    beyond: bool,
    inside: (i32, i32),
) -> Option<Axis> {
    let (a0, b0) = (lo.min(1.0).log10() - 0.1, hi.max(1.0).log10() + 0.1);
    let (mut a, mut b) = (a0, b0);
    let p_w = f64::from(plot_w.max(1));
    for _ in 0..10_000 {
        let per_decade = p_w / (b - a);
        // Without `beyond`, "never" goes right of 1 too.
        let never = f64::from(inside.0) / per_decade;
        let (mut na, mut nb) = (
            if beyond { a0.min(-never) } else { a0 },
            b0.max(f64::from(inside.1) / per_decade)
                .max(if beyond { 0.0 } else { never }),
        );
        for &(v, w) in labels {
            let need = f64::from(w) / per_decade;
            if v >= 1.0 {
                nb = nb.max(v.log10() + need);
            } else if beyond {
                na = na.min(v.log10() - need);
            } else {
                nb = nb.max(need);
            }
        }
        let settled = (na - a).abs() < 1e-9 && (nb - b).abs() < 1e-9;
        (a, b) = (na, nb);
        if settled {
            // Axis::log pads each end by 3 % of the span: ask for the ends
            // that this padding takes to exactly `a` and `b`.
            let inner = 0.03 * (b - a) / 1.06;
            return Some(Axis::log(10f64.powf(a + inner), 10f64.powf(b - inner)));
        }
        if b - a > 12.0 {
            return None;
        }
    }
    None
}

impl Figure for SpeedupBars<'_> {
    fn stem(&self) -> String {
        "speedups".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        let n = d.policies.0.len();
        let finite = d.speedups.iter().filter_map(|s| match s.speedup {
            Cell::Num(v) if v > 0.0 => Some(v),
            _ => None,
        });
        let (lo, hi) = finite.fold((1.0f64, 1.0f64), |(a, b), v| (a.min(v), b.max(v)));
        let area = with_title(
            root,
            theme,
            &format!(
                "{}: time-to-quality speedup over `{}` per θ",
                d.name, d.baseline
            ),
        )?;
        let area = with_note(
            &area,
            theme,
            "speedup = T_B(θ) / T_X(θ) from the mean loss curves (B = baseline): bars right of 1 reach θ sooner, left of 1 later\n\
             ∞: only the baseline never reaches θ · never reached: the policy never does · n/a: neither does",
        )?;
        // One panel per θ; the first one also carries the policy names.
        let names: Vec<String> = d.policies.0.iter().rev().cloned().collect();
        let tick = theme.tick();
        let names_w = names
            .iter()
            .map(|s| text_width(root, s, &tick))
            .max()
            .unwrap_or(0);
        let k = d.thresholds.len().max(1);
        let (w, _) = area.dim_in_pixel();
        let w = i32::try_from(w).unwrap_or(0);
        // One x-axis title under all panels.
        let area = with_x_title(
            &area,
            theme,
            "speedup T_B(θ) / T_X(θ) (×, log scale)",
            (names_w, w),
        )?;
        let base = (w - names_w) / i32::try_from(k).unwrap_or(1);
        let breaks: Vec<i32> = (1..k)
            .map(|j| names_w + base * i32::try_from(j).unwrap_or(0))
            .collect();
        let panels = area.split_by_breakpoints(breaks, Vec::<i32>::new());
        let note = theme.annotation();
        // Every value label beyond its bar's end, inside the plot: the
        // shared scale is widened until each label fits; when the panels
        // are too narrow for that, labels of bars left of 1 go right of 1.
        let plot_w = plot_width(
            base,
            theme,
            text_width(root, "", &tick),
            FrameOptions::default(),
        );
        let labels: Vec<(f64, i32)> = d
            .speedups
            .iter()
            .filter_map(|s| match s.speedup {
                Cell::Num(v) if v > 0.0 && s.t_policy.is_some() => Some((
                    v,
                    text_width(root, &value_label(v), &note) + theme.px(PAD_PX),
                )),
                _ => None,
            })
            .collect();
        let room_of = |s: &str, needed: bool| {
            if needed {
                // The gap before the label, after it and the bar's
                // outline, with room to spare.
                text_width(root, s, &note) + theme.px(5.0 * PAD_PX)
            } else {
                0
            }
        };
        let inside = (
            room_of(
                "never",
                d.speedups
                    .iter()
                    .any(|s| matches!(s.speedup, Cell::Num(_)) && s.t_policy.is_none()),
            ),
            room_of(
                "∞",
                d.speedups.iter().any(|s| matches!(s.speedup, Cell::Inf)),
            ),
        );
        let (x, beyond) = label_room(lo, hi, &labels, plot_w, true, inside)
            .map(|x| (x, true))
            .or_else(|| label_room(lo, hi, &labels, plot_w, false, inside).map(|x| (x, false)))
            .unwrap_or((Axis::log(lo / 2.2, hi * 2.5), false));
        let (x0, x1) = (x.range().start, x.range().end);
        let caption_of = |theta: f64| {
            let t_b = d
                .speedups
                .iter()
                .find(|s| s.theta == theta)
                .and_then(|s| s.t_baseline);
            match t_b {
                Some(t) => format!("θ = {}  (baseline: {}\u{a0}s)", num(theta), num(t)),
                None => format!("θ = {}  (baseline: never)", num(theta)),
            }
        };
        // Every panel's caption takes as many lines as the longest.
        let lines = d
            .thresholds
            .iter()
            .zip(&panels)
            .map(|(&theta, panel)| caption_lines(panel, &caption_of(theta), theme, false).len())
            .max()
            .unwrap_or(1);
        let one = x.to(1.0);
        // PAD_PX in chart units, on the narrowest plot.
        let pad = (x1 - x0) * f64::from(theme.px(PAD_PX)) / f64::from(plot_w.max(1));
        for (j, (&theta, panel)) in d.thresholds.iter().zip(&panels).enumerate() {
            let cats = if j == 0 {
                names.clone()
            } else {
                vec![String::new(); n]
            };
            let xs = AxisSpec::new(x, "");
            let ys = AxisSpec::categories(cats, "");
            let caption = caption_of(theta);
            let mut chart = frame(
                panel,
                theme,
                &xs,
                &ys,
                FrameOptions {
                    caption: Some(&caption),
                    compact: false,
                    caption_lines: lines,
                    ..FrameOptions::default()
                },
            )?;
            let muted = theme.annotation().color(&MUTED);
            // Pixels between two x values of this panel: the room of a label.
            let room = |chart: &super::chart::Chart<'_, DB>, a: f64, b: f64| {
                chart.backend_coord(&(b, 0.0)).0 - chart.backend_coord(&(a, 0.0)).0
            };
            for s in d.speedups.iter().filter(|s| s.theta == theta) {
                let pos = (n - 1 - s.policy.min(n - 1)) as f64;
                let st = series(s.policy);
                let (y0, y1) = (pos - HALF, pos + HALF);
                let bar = |chart: &mut super::chart::Chart<'_, DB>, a: f64, b: f64, pale: bool| {
                    let fill = if pale {
                        tint(st.color, 0.3).filled()
                    } else {
                        st.color.filled()
                    };
                    chart
                        .draw_series(std::iter::once(Rectangle::new([(a, y0), (b, y1)], fill)))
                        .map_err(draw_err)?;
                    if pale {
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(a, y0), (b, y1)],
                                st.color.stroke_width(theme.upx(1.5)),
                            )))
                            .map_err(draw_err)?;
                    }
                    Ok::<(), crate::core::error::Error>(())
                };
                match s.speedup {
                    Cell::Inf => {
                        bar(&mut chart, one, x1, true)?;
                        // The long forms where they fit (the note and the
                        // caption say what the short ones mean).
                        let label = fitting(
                            root,
                            &["∞ (baseline never reaches θ)", "∞ (baseline never)", "∞"],
                            &note,
                            room(&chart, one + pad, x1 - pad),
                        );
                        text(
                            &mut chart,
                            label,
                            (x1 - pad, pos),
                            &note.color(&INK),
                            HPos::Right,
                            VPos::Center,
                        )?;
                    }
                    Cell::NotApplicable => {
                        let label = fitting(
                            root,
                            &[" n/a (neither reaches θ)", " n/a"],
                            &muted,
                            room(&chart, one, x1),
                        );
                        text(
                            &mut chart,
                            label,
                            (one, pos),
                            &muted,
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                    Cell::Num(_) if s.t_policy.is_none() => {
                        bar(&mut chart, x0, one, true)?;
                        // Inside the pale bar, or right of 1 on narrow panels.
                        let (from, to) = if beyond {
                            (x0 + pad, one)
                        } else {
                            (one + pad, x1)
                        };
                        let label = fitting(
                            root,
                            &["never reached", "never"],
                            &note,
                            room(&chart, from, to),
                        );
                        text(
                            &mut chart,
                            label,
                            (from, pos),
                            &note.color(&INK),
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                    Cell::Num(v) if v > 0.0 => {
                        let c = x.clamp_to(v);
                        bar(&mut chart, one, c, false)?;
                        // Beyond the bar's end: right of a bar to the
                        // right of 1, left of a bar to the left.
                        let (at, h) = if v >= 1.0 {
                            (c + pad, HPos::Left)
                        } else if beyond {
                            (c - pad, HPos::Right)
                        } else {
                            (one + pad, HPos::Left)
                        };
                        text(
                            &mut chart,
                            &value_label(v),
                            (at, pos),
                            &note,
                            h,
                            VPos::Center,
                        )?;
                    }
                    Cell::Num(_) => {
                        // 0 with both times finite: the baseline was at θ at once.
                        text(
                            &mut chart,
                            " 0×",
                            (one, pos),
                            &note,
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                }
            }
            plain_line(
                &mut chart,
                &[(one, -0.5), (one, n as f64 - 0.5)],
                INK.stroke_width(theme.upx(1.2)),
                None,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixels between chart coordinates `from` and `to` on `axis` drawn
    /// `plot_w` pixels wide.
    fn px(axis: &Axis, plot_w: f64, from: f64, to: f64) -> f64 {
        let r = axis.range();
        (to - from) / (r.end - r.start) * plot_w
    }

    #[test]
    fn label_room_leaves_every_label_its_width_beyond_its_bar() {
        // Issue 27's values, 120 and 60 px labels, on a 400 px plot.
        let labels = [(0.0463, 120), (498.0, 60), (1.0, 40)];
        let axis = label_room(0.0463, 498.0, &labels, 400, true, (0, 0)).expect("fits");
        for &(v, w) in &labels {
            let c = v.log10();
            let (lo, hi) = (axis.range().start, axis.range().end);
            let room = if v >= 1.0 {
                px(&axis, 400.0, c, hi)
            } else {
                px(&axis, 400.0, lo, c)
            };
            assert!(room >= f64::from(w) - 1e-6, "{v}: {room} px for {w}");
        }
        // Too narrow for both sides: no fixed point beyond the bars, but
        // one with the left labels right of 1.
        assert!(label_room(0.0463, 498.0, &labels, 150, true, (0, 0)).is_none());
        let axis = label_room(0.0463, 498.0, &labels, 150, false, (60, 0)).expect("fits");
        let hi = axis.range().end;
        for &(v, w) in &labels {
            let from = v.log10().max(0.0);
            assert!(px(&axis, 150.0, from, hi) >= f64::from(w) - 1e-6, "{v}");
        }
        assert!(px(&axis, 150.0, 0.0, hi) >= 60.0 - 1e-6);
    }
}
