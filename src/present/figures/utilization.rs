//! Figure `utilization` (job mode): GPU utilisation over time in one
//! repetition, one panel per scheduler (from `utilization.csv`: the
//! time-averaged share of the cluster's GPUs held in each bucket, restores
//! after preemption included), all panels on the same time axis.
//!
//! Figure `utilization-by-type` (typed clusters, DESIGN §11.2): the same
//! from `utilization_by_type.csv`, one panel per (scheduler, GPU type),
//! each over that type's GPUs.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::canvas::Figure;
use super::chart::{
    AxisSpec, FrameOptions, frame, grid_shape, with_note, with_shared_titles, with_title,
};
use super::data::JobResults;
use super::marks::{band, line, steps};
use super::scale::{Axis, num};
use super::style::{Dash, Theme, series, tint};
use crate::core::error::Result;

/// Panels drawn at most.
pub const MAX_PANELS: usize = 16;

/// The utilisation timeline figure.
#[derive(Debug, Clone, Copy)]
pub struct Utilization<'a> {
    /// The results.
    pub data: &'a JobResults,
    /// The repetition shown.
    pub rep: u64,
    /// Log time axis.
    pub log_x: bool,
    /// One panel per (policy, GPU type), from `utilization_by_type.csv`.
    pub by_type: bool,
}

impl Figure for Utilization<'_> {
    fn stem(&self) -> String {
        if self.by_type {
            "utilization-by-type".into()
        } else {
            "utilization".into()
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        // Panels: (policy, type) pairs, policy-major.
        let types = if self.by_type {
            d.gpu_types.len().max(1)
        } else {
            1
        };
        let all_panels = d.policies.0.len() * types;
        let n = all_panels.min(MAX_PANELS);
        let source = if self.by_type {
            &d.by_type
        } else {
            &d.utilization
        };
        let buckets: Vec<_> = source
            .iter()
            .filter(|b| b.rep == self.rep && b.policy * types + b.gpu_type < n)
            .collect();
        let t_end = buckets
            .iter()
            .map(|b| b.time + b.duration)
            .fold(0.0f64, f64::max);
        let t_lo = buckets
            .iter()
            .map(|b| b.time)
            .filter(|&t| t > 0.0)
            .fold(f64::INFINITY, f64::min);
        let x = if self.log_x {
            Axis::log(if t_lo.is_finite() { t_lo } else { 1e-3 }, t_end)
        } else {
            Axis::linear_exact(0.0, if t_end > 0.0 { t_end } else { 1.0 })
        };
        let y = Axis::linear_exact(0.0, 105.0);
        let area = with_title(
            root,
            theme,
            &format!(
                "{}: GPU utilisation over time{} (repetition {})",
                d.name,
                if self.by_type { " per GPU type" } else { "" },
                self.rep
            ),
        )?;
        let mut note = if self.by_type {
            "share of each GPU type's GPUs held (restores after preemption included), averaged over each time bucket of utilization_by_type.csv; a run's line ends at its makespan".to_string()
        } else {
            "share of the cluster's GPUs held (restores after preemption included), averaged over each time bucket of utilization.csv; a run's line ends at its makespan".to_string()
        };
        if all_panels > MAX_PANELS {
            note.push_str(&format!(
                "\nthe first {MAX_PANELS} of {all_panels} {}",
                if self.by_type {
                    "(policy, GPU type) panels"
                } else {
                    "policies"
                }
            ));
        }
        let area = with_note(&area, theme, &note)?;
        let inner = with_shared_titles(
            &area,
            theme,
            if self.log_x {
                "simulated time (s, log scale)"
            } else {
                "simulated time (s)"
            },
            if self.by_type {
                "GPUs held (% of the type's GPUs)"
            } else {
                "GPUs held (% of the cluster)"
            },
        )?;
        let (iw, ih) = inner.dim_in_pixel();
        let (rows, cols) = grid_shape(n, iw, ih * 2);
        let cells = inner.split_evenly((rows, cols));
        for (k, cell) in cells.iter().enumerate().take(n) {
            let (p, t) = (k / types, k % types);
            let mine: Vec<_> = buckets
                .iter()
                .filter(|b| b.policy == p && b.gpu_type == t)
                .collect();
            let busy: f64 = mine.iter().map(|b| b.utilization * b.duration).sum();
            let span: f64 = mine.iter().map(|b| b.duration).sum();
            let mean = if span > 0.0 { busy / span } else { 0.0 };
            let caption = if self.by_type {
                let ty = d.gpu_types.get(t).map_or("", String::as_str);
                format!("{} on {ty}: mean {} %", d.policies.0[p], num(mean * 100.0))
            } else {
                format!("{}: mean {} %", d.policies.0[p], num(mean * 100.0))
            };
            let xs = AxisSpec::new(x, "");
            let ys = AxisSpec::new(y, "");
            let mut chart = frame(
                cell,
                theme,
                &xs,
                &ys,
                FrameOptions {
                    caption: Some(&caption),
                    compact: true,
                    ..FrameOptions::default()
                },
            )?;
            let pts: Vec<(f64, f64)> = mine
                .iter()
                .filter(|b| !self.log_x || b.time > 0.0)
                .map(|b| (x.clamp_to(b.time), y.clamp_to(b.utilization * 100.0)))
                .collect();
            // Each run's buckets cover its own makespan.
            let own_end = mine
                .iter()
                .map(|b| b.time + b.duration)
                .fold(0.0f64, f64::max);
            let stepped = steps(&pts, Some(x.clamp_to(own_end)));
            let floor: Vec<(f64, f64)> = stepped.iter().map(|&(t, _)| (t, 0.0)).collect();
            let s = series(if self.by_type { t } else { p });
            band(&mut chart, &stepped, &floor, tint(s.color, 0.35).filled())?;
            let solid = super::style::SeriesStyle {
                dash: Dash::Solid,
                ..s
            };
            line(&mut chart, &stepped, &solid, theme)?;
        }
        Ok(())
    }
}
