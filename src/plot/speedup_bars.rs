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
    AxisSpec, FrameOptions, caption_lines, fitting, frame, text_width, with_note, with_title,
    with_x_title,
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
        // Room for the printed values beyond the longest bars.
        let x = Axis::log(lo / 2.2, hi * 2.5);
        let (x0, x1) = (x.range().start, x.range().end);
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
        let pad = (x1 - x0) * 0.012;
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
            let note = theme.annotation();
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
                        let label = fitting(
                            root,
                            &["never reached", "never"],
                            &note,
                            room(&chart, x0 + pad, one),
                        );
                        text(
                            &mut chart,
                            label,
                            (x0 + pad, pos),
                            &note.color(&INK),
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                    Cell::Num(v) if v > 0.0 => {
                        let c = x.clamp_to(v);
                        bar(&mut chart, one, c, false)?;
                        let label = format!("{}×", num(v));
                        // Right of the bar's end, or right of 1 for a bar to the left.
                        let at = if v >= 1.0 { c } else { one };
                        text(
                            &mut chart,
                            &label,
                            (at + pad, pos),
                            &note,
                            HPos::Left,
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
