//! Figure `tenant-regret`: the distribution of per-tenant regret areas
//! (from `tenants.csv`, pooled over repetitions) for every policy: a box
//! (quartiles and median), whiskers from the smallest to the largest
//! area, the mean, and a strip with one dot per (tenant, repetition) — at
//! most 400 per policy, evenly spaced in rank beyond that — so a policy
//! that starves a few tenants shows a long right tail even when its mean
//! looks fine. The area axis is logarithmic with `--log-y`, and also by
//! default when the areas are skewed (the largest above 10 × the median
//! of all of them), as they are on real traces.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::area_summary::{AreaSummary, MAX_DOTS};
use super::canvas::{Figure, draw_err};
use super::chart::{AxisSpec, FrameOptions, frame, with_note, with_title};
use super::data::ModelResults;
use super::marks::{marker_element, plain_line};
use super::scale::Axis;
use super::style::{INK, Marker, Theme, series, tint};
use crate::core::error::Result;

/// The per-tenant regret distribution figure.
#[derive(Debug, Clone, Copy)]
pub struct TenantRegret<'a> {
    /// The results.
    pub data: &'a ModelResults,
    /// Log scale on the regret-area axis (also chosen when the areas are skewed:
    /// their largest above 10 × the median of all of them).
    pub log: bool,
}

/// A deterministic jitter in [−1, 1] for dot `i` (golden-ratio sequence).
fn jitter(i: usize) -> f64 {
    let g = 0.618_033_988_749_895_f64;
    ((i as f64 + 1.0) * g).fract() * 2.0 - 1.0
}

impl Figure for TenantRegret<'_> {
    fn stem(&self) -> String {
        "tenant-regret".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        let n = d.policies.0.len();
        // What is drawn of each policy's areas (area_summary.rs); a policy
        // without rows has none.
        let empty = AreaSummary::default();
        let per: Vec<&AreaSummary> = (0..n)
            .map(|i| d.tenants.areas.per_policy.get(i).unwrap_or(&empty))
            .collect();
        let log = self.log || d.tenants.areas.skewed();
        let hi = per.iter().map(|s| s.largest).fold(0.0f64, f64::max);
        let lo_pos = per
            .iter()
            .map(|s| s.smallest_positive)
            .fold(f64::INFINITY, f64::min);
        let x = if log {
            Axis::log(if lo_pos.is_finite() { lo_pos } else { 1e-3 }, hi)
        } else {
            Axis::linear(0.0, if hi > 0.0 { hi * 1.05 } else { 1.0 })
        };
        let reps = d.repetitions;
        let area = with_title(
            root,
            theme,
            &format!("{}: per-tenant regret area per policy", d.name),
        )?;
        let mut note = format!(
            "one dot per (tenant, repetition), {reps} repetition(s) pooled; box: quartiles and median; whiskers: min to max; ◆: mean"
        );
        if per.iter().any(|s| s.n > MAX_DOTS) {
            note.push_str(&format!(
                "\ndots: {MAX_DOTS} per policy, evenly spaced in rank (the box uses every value)"
            ));
        }
        if log && per.iter().any(|s| s.any_not_positive) {
            note.push_str("\nareas of 0 are drawn at the left edge of the log axis");
        }
        let area = with_note(&area, theme, &note)?;
        let names: Vec<String> = d.policies.0.iter().rev().cloned().collect();
        let xs = AxisSpec::new(
            x,
            if log {
                "regret area of a tenant from its arrival (accuracy·s, log scale)"
            } else {
                "regret area of a tenant from its arrival (accuracy·s)"
            },
        );
        let ys = AxisSpec::categories(names, "");
        let mut chart = frame(&area, theme, &xs, &ys, FrameOptions::default())?;
        let dot_r = theme.px(2.6);
        for (i, s) in per.iter().enumerate() {
            if s.n == 0 {
                continue;
            }
            let pos = (n - 1 - i) as f64;
            let st = series(i);
            let c = |v: f64| x.clamp_to(v);
            let (q1, med, q3) = (s.q1, s.median, s.q3);
            let (min, max, mean) = (s.min, s.max, s.mean);
            let h = 0.22;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(c(q1), pos - h), (c(q3), pos + h)],
                    tint(st.color, 0.28).filled(),
                )))
                .map_err(draw_err)?;
            let dots: Vec<(f64, f64)> = s
                .dots
                .iter()
                .enumerate()
                .map(|(k, &v)| (c(v), pos + 0.3 * jitter(k)))
                .collect();
            chart
                .draw_series(
                    dots.iter()
                        .map(|&p| Circle::new(p, dot_r, st.color.mix(0.55).filled())),
                )
                .map_err(draw_err)?;
            let whisker = INK.stroke_width(theme.upx(1.4));
            plain_line(&mut chart, &[(c(min), pos), (c(q1), pos)], whisker, None)?;
            plain_line(&mut chart, &[(c(q3), pos), (c(max), pos)], whisker, None)?;
            for v in [min, max] {
                plain_line(
                    &mut chart,
                    &[(c(v), pos - h / 2.0), (c(v), pos + h / 2.0)],
                    whisker,
                    None,
                )?;
            }
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(c(q1), pos - h), (c(q3), pos + h)],
                    st.color.stroke_width(theme.upx(1.6)),
                )))
                .map_err(draw_err)?;
            plain_line(
                &mut chart,
                &[(c(med), pos - h), (c(med), pos + h)],
                INK.stroke_width(theme.upx(3.0)),
                None,
            )?;
            let mean_style = super::style::SeriesStyle {
                marker: Marker::Diamond,
                color: INK,
                ..st
            };
            chart
                .plotting_area()
                .draw(&marker_element((c(mean), pos), &mean_style, theme))
                .map_err(draw_err)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_in_range() {
        assert!((0..1000).map(jitter).all(|j| (-1.0..=1.0).contains(&j)));
    }
}
