//! Figure `speedups`: for each θ (one panel each), the time-to-quality
//! speedup T_B(θ)/T_X(θ) of every policy over the baseline (from
//! `speedups.csv`), as horizontal bars with the value printed at each
//! bar's end. The cases without a number are spelled out: `∞` (only the
//! baseline never reaches θ: a pale bar across the panel), "never reached"
//! (the policy never does) and "n/a" (neither does).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{Figure, draw_err};
use super::chart::{AxisSpec, FrameOptions, frame, text_width, with_note, with_title};
use super::data::ModelResults;
use super::marks::{plain_line, text};
use super::read::Cell;
use super::scale::{Axis, num};
use super::style::{INK, MUTED, Theme, series, tint};
use crate::error::Result;

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
        let finite_max = d
            .speedups
            .iter()
            .filter_map(|s| match s.speedup {
                Cell::Num(v) => Some(v),
                _ => None,
            })
            .fold(1.0f64, f64::max);
        let x = Axis::linear(0.0, finite_max * 1.3);
        let x_end = x.hi;
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
            "speedup = T_B(θ) / T_X(θ) from the mean loss curves (B = baseline); > 1: the policy reaches θ sooner\n\
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
        let base = (w - names_w) / i32::try_from(k).unwrap_or(1);
        let breaks: Vec<i32> = (1..k)
            .map(|j| names_w + base * i32::try_from(j).unwrap_or(0))
            .collect();
        let panels = area.split_by_breakpoints(breaks, Vec::<i32>::new());
        for (j, (&theta, panel)) in d.thresholds.iter().zip(&panels).enumerate() {
            let cats = if j == 0 {
                names.clone()
            } else {
                vec![String::new(); n]
            };
            let xs = AxisSpec::new(x, "speedup T_B(θ) / T_X(θ) (×)");
            let ys = AxisSpec::categories(cats, "");
            let t_b = d
                .speedups
                .iter()
                .find(|s| s.theta == theta)
                .and_then(|s| s.t_baseline);
            let caption = match t_b {
                Some(t) => format!("θ = {}  (baseline: {} s)", num(theta), num(t)),
                None => format!("θ = {}  (baseline: never)", num(theta)),
            };
            let mut chart = frame(
                panel,
                theme,
                &xs,
                &ys,
                FrameOptions {
                    caption: Some(&caption),
                    compact: false,
                },
            )?;
            let (yr0, yr1) = (-0.5, n as f64 - 0.5);
            plain_line(
                &mut chart,
                &[(1.0, yr0), (1.0, yr1)],
                theme.reference(),
                Some((theme.px(6.0), theme.px(4.0))),
            )?;
            let pad = (x_end - x.lo) * 0.012;
            for s in d.speedups.iter().filter(|s| s.theta == theta) {
                let pos = (n - 1 - s.policy.min(n - 1)) as f64;
                let st = series(s.policy);
                let (y0, y1) = (pos - HALF, pos + HALF);
                match (s.speedup, s.t_policy) {
                    (Cell::Num(v), _) if s.t_policy.is_some() => {
                        let v = v.min(x_end);
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(0.0, y0), (v, y1)],
                                st.color.filled(),
                            )))
                            .map_err(draw_err)?;
                        text(
                            &mut chart,
                            &format!("{}×", num(v)),
                            (v + pad, pos),
                            &theme.annotation(),
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                    (Cell::Inf, _) => {
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(0.0, y0), (x_end, y1)],
                                tint(st.color, 0.3).filled(),
                            )))
                            .map_err(draw_err)?;
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(0.0, y0), (x_end, y1)],
                                st.color.stroke_width(theme.upx(1.5)),
                            )))
                            .map_err(draw_err)?;
                        text(
                            &mut chart,
                            "∞ (baseline never reaches θ)",
                            (pad, pos),
                            &theme.annotation().color(&INK),
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                    (Cell::NotApplicable, _) => {
                        text(
                            &mut chart,
                            "n/a (neither reaches θ)",
                            (pad, pos),
                            &theme.annotation().color(&MUTED),
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                    _ => {
                        // The policy never reaches θ (speedup 0).
                        text(
                            &mut chart,
                            "never reached",
                            (pad, pos),
                            &theme.annotation().color(&MUTED),
                            HPos::Left,
                            VPos::Center,
                        )?;
                    }
                }
            }
        }
        Ok(())
    }
}
