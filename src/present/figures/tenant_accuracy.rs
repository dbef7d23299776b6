//! Figure `tenant-accuracy`: one small panel per tenant (the first
//! [`MAX_PANELS`] tenants of the repetition, in `tenants.csv` order) with
//! each policy's best accuracy so far against simulated time in one
//! repetition. Best-so-far comes from the completed jobs of `jobs.csv`
//! (written with `--jobs`); a policy's line starts at the tenant's first
//! completed job, so a policy that starves a tenant draws its line late or
//! not at all. A dotted vertical line marks a tenant's arrival when it is
//! after 0.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::canvas::Figure;
use super::chart::{
    AxisSpec, FrameOptions, frame, grid_shape, with_note, with_shared_titles, with_title,
};
use super::data::{ModelJob, ModelResults};
use super::legend::{policy_lines, rows_above};
use super::marks::{line, markers, plain_line, steps};
use super::scale::{Axis, num};
use super::style::{MUTED, Theme, series};
use crate::core::error::Result;

/// Panels drawn at most.
pub const MAX_PANELS: usize = super::data::SHOWN_TENANTS;

/// The per-tenant accuracy figure.
#[derive(Debug, Clone)]
pub struct TenantAccuracy<'a> {
    /// The results.
    pub data: &'a ModelResults,
    /// The completed jobs of repetition `rep` (`jobs.csv`).
    pub jobs: &'a [ModelJob],
    /// The repetition shown.
    pub rep: u64,
    /// Log time axis (the default).
    pub log_x: bool,
}

/// One tenant's panel data.
struct Panel {
    user: String,
    arrival: f64,
    /// Per policy: (completion time, best accuracy so far) steps.
    lines: Vec<(usize, Vec<(f64, f64)>)>,
}

impl TenantAccuracy<'_> {
    fn panels(&self) -> (Vec<Panel>, usize) {
        let d = self.data;
        // The first tenants of the repetition's first policy, as read
        // (`TenantData::shown`: at most MAX_PANELS, and how many there are).
        let mut users: Vec<(String, f64)> = Vec::new();
        for t in &d.tenants.shown {
            if t.rep == self.rep {
                users.push((t.user.clone(), t.arrival));
            }
        }
        let total = if users.is_empty() {
            0
        } else {
            d.tenants.shown_total
        };
        users.truncate(MAX_PANELS);
        let mut by: BTreeMap<(&str, usize), Vec<(f64, f64)>> = BTreeMap::new();
        for j in self.jobs {
            by.entry((j.user.as_str(), j.policy))
                .or_default()
                .push((j.end, j.accuracy));
        }
        let panels = users
            .into_iter()
            .map(|(user, arrival)| {
                let lines = (0..d.policies.0.len())
                    .filter_map(|p| {
                        let mut jobs = by.get(&(user.as_str(), p))?.clone();
                        jobs.sort_by(|a, b| a.0.total_cmp(&b.0));
                        let mut best = f64::NEG_INFINITY;
                        let mut pts: Vec<(f64, f64)> = Vec::new();
                        for (t, a) in jobs {
                            if a > best {
                                best = a;
                                pts.push((t, best));
                            }
                        }
                        Some((p, pts))
                    })
                    .collect();
                Panel {
                    user,
                    arrival,
                    lines,
                }
            })
            .collect();
        (panels, total)
    }
}

impl Figure for TenantAccuracy<'_> {
    fn stem(&self) -> String {
        "tenant-accuracy".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        let (panels, total) = self.panels();
        let all_pts = panels
            .iter()
            .flat_map(|p| p.lines.iter().flat_map(|l| &l.1));
        let t_end = self.jobs.iter().map(|j| j.end).fold(0.0f64, f64::max);
        let t_lo = all_pts
            .clone()
            .map(|p| p.0)
            .filter(|&t| t > 0.0)
            .fold(f64::INFINITY, f64::min);
        let x = if self.log_x {
            Axis::log(if t_lo.is_finite() { t_lo } else { 1e-3 }, t_end)
        } else {
            Axis::linear(0.0, t_end)
        };
        let area = with_title(
            root,
            theme,
            &format!(
                "{}: best accuracy so far per tenant (repetition {})",
                d.name, self.rep
            ),
        )?;
        let shown = if total > panels.len() {
            format!("the first {} of {total} tenants", panels.len())
        } else {
            format!("all {total} tenants")
        };
        let area = with_note(
            &area,
            theme,
            &format!("{shown}; a line starts at the tenant's first completed job; dotted: arrival"),
        )?;
        let entries = policy_lines(&d.policies.0, |_| true);
        let rest = rows_above(root, &area, &entries, theme)?;
        let inner = with_shared_titles(
            &rest,
            theme,
            if self.log_x {
                "simulated time τ (s, log scale)"
            } else {
                "simulated time τ (s)"
            },
            "best accuracy so far",
        )?;
        let (iw, ih) = inner.dim_in_pixel();
        let (rows, cols) = grid_shape(panels.len(), iw, ih);
        let cells = inner.split_evenly((rows, cols));
        for (panel, cell) in panels.iter().zip(&cells) {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for (_, pts) in &panel.lines {
                for &(_, a) in pts {
                    lo = lo.min(a);
                    hi = hi.max(a);
                }
            }
            if !lo.is_finite() {
                (lo, hi) = (0.0, 1.0);
            }
            let pad = ((hi - lo) * 0.08).max(0.01);
            // Accuracies live in [0, 1]: do not pad past 1.
            let top = if hi <= 1.0 {
                (hi + pad).min(1.0)
            } else {
                hi + pad
            };
            let y = Axis::linear(lo - pad, top);
            let mut notes = Vec::new();
            if panel.arrival > 0.0 {
                notes.push(format!("arrives {} s", num(panel.arrival)));
            }
            let starved: Vec<&str> = (0..d.policies.0.len())
                .filter(|p| !panel.lines.iter().any(|(q, _)| q == p))
                .map(|p| d.policies.0[p].as_str())
                .collect();
            match starved.len() {
                0 => {}
                1 | 2 => notes.push(format!("no job done: {}", starved.join(", "))),
                n => notes.push(format!("no job done: {n} policies")),
            }
            let caption = if notes.is_empty() {
                panel.user.clone()
            } else {
                format!("{} ({})", panel.user, notes.join("; "))
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
            if panel.arrival > 0.0 {
                let xa = x.clamp_to(panel.arrival);
                plain_line(
                    &mut chart,
                    &[(xa, y.to(y.lo)), (xa, y.to(y.hi))],
                    MUTED.stroke_width(1),
                    Some((theme.px(2.0), theme.px(3.0))),
                )?;
            }
            for (p, pts) in &panel.lines {
                let s = series(*p);
                let pts: Vec<(f64, f64)> = pts
                    .iter()
                    .map(|&(t, a)| (x.clamp_to(t), y.clamp_to(a)))
                    .collect();
                let stepped = steps(&pts, Some(x.to(x.hi)));
                line(&mut chart, &stepped, &s, theme)?;
                markers(&mut chart, &pts[..pts.len().min(1)], &s, theme)?;
            }
        }
        Ok(())
    }
}
