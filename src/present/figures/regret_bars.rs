//! Figure `regret`: the mean cumulative regret of every policy (from
//! `regret.csv`) as horizontal bars with error bars for the confidence
//! interval, the value and the ratio to the baseline printed beside each.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{Figure, draw_err};
use super::chart::{AxisSpec, FrameOptions, frame, with_note, with_title};
use super::data::ModelResults;
use super::marks::{plain_line, text};
use super::read::Cell;
use super::scale::{Axis, num};
use super::style::{INK, Theme, series};
use crate::core::error::Result;

/// The cumulative-regret figure.
#[derive(Debug, Clone, Copy)]
pub struct RegretBars<'a> {
    /// The results.
    pub data: &'a ModelResults,
}

impl Figure for RegretBars<'_> {
    fn stem(&self) -> String {
        "regret".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        let n = d.policies.0.len();
        let hi = d
            .regret
            .iter()
            .map(|r| r.high.max(r.mean))
            .fold(0.0f64, f64::max);
        let lo = d
            .regret
            .iter()
            .map(|r| r.low.min(r.mean))
            .fold(0.0f64, f64::min);
        let x = Axis::linear(lo, if hi > 0.0 { hi * 1.3 } else { 1.0 });
        let reps = d.regret.iter().map(|r| r.reps).max().unwrap_or(0);
        let level = d
            .confidence
            .map_or_else(String::new, |c| format!("{} % ", num(c * 100.0)));
        let area = with_title(
            root,
            theme,
            &format!("{}: cumulative regret per policy", d.name),
        )?;
        let area = with_note(
            &area,
            theme,
            &format!(
                "bars: mean cumulative regret over {reps} repetition(s); whiskers: its {level}confidence interval; \
                 ×r: ratio to the baseline `{}`",
                d.baseline
            ),
        )?;
        let names: Vec<String> = d.policies.0.iter().rev().cloned().collect();
        let xs = AxisSpec::new(x, "mean cumulative regret R (accuracy·s)");
        let ys = AxisSpec::categories(names, "");
        let mut chart = frame(&area, theme, &xs, &ys, FrameOptions::default())?;
        let cap = 0.14;
        let pad = (x.hi - x.lo) * 0.012;
        for r in &d.regret {
            let pos = (n - 1 - r.policy.min(n - 1)) as f64;
            let st = series(r.policy);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, pos - 0.34), (r.mean, pos + 0.34)],
                    st.color.filled(),
                )))
                .map_err(draw_err)?;
            if r.high > r.low {
                // A white halo keeps the whisker visible on a dark bar.
                for whisker in [
                    WHITE.stroke_width(theme.upx(4.6)),
                    INK.stroke_width(theme.upx(1.6)),
                ] {
                    plain_line(&mut chart, &[(r.low, pos), (r.high, pos)], whisker, None)?;
                    for v in [r.low, r.high] {
                        plain_line(&mut chart, &[(v, pos - cap), (v, pos + cap)], whisker, None)?;
                    }
                }
            }
            let ratio = match r.ratio {
                Cell::Num(v) => format!("×{}", num(v)),
                Cell::Inf => "×∞".into(),
                Cell::NotApplicable => "×n/a".into(),
            };
            text(
                &mut chart,
                &format!("{}  ({ratio})", num(r.mean)),
                (r.high.max(r.mean) + pad, pos),
                &theme.annotation(),
                HPos::Left,
                VPos::Center,
            )?;
        }
        Ok(())
    }
}
