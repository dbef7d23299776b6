//! Figure `promotions` (curve traces, DESIGN §12): for one tenant in one
//! repetition, one panel per policy that trained below the largest
//! fidelity, with each model's evaluations (from `jobs.csv`, written with
//! `--jobs`) at (fidelity, accuracy) joined by a line from rung to rung: a
//! model whose line goes on was promoted, one whose line stops at a rung
//! was not. Fidelity is on a log axis.
//!
//! "Below the top" is read off `jobs.csv`: a job is low-fidelity when its
//! fidelity is below the largest fidelity of any job of the same (tenant,
//! model) pair in the repetition, under any policy (pairs have their own
//! tops: LCDB's anchors stop at each data set's size and learner). With a
//! full-fidelity baseline in the run, or the multi-fidelity selectors'
//! sweep at the top, that is the pair's top level. The figure is drawn
//! only when some job is low-fidelity; on a plain trace (no `fidelity` column) it is never drawn, so the
//! figures of plain runs are unchanged. The tenant shown is `--tenant`, or
//! by default the tenant with the most low-fidelity jobs under the first
//! policy (results order) that has any, ties to the tenant first seen in
//! `jobs.csv`.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::canvas::Figure;
use super::chart::{
    AxisSpec, FrameOptions, caption_lines, frame, grid_shape, with_note, with_shared_titles,
    with_title,
};
use super::data::{ModelJob, ModelResults};
use super::legend::{Entry, Swatch, entries_fitting, rows_above};
use super::marks::{line, markers};
use super::scale::{Axis, num};
use super::style::{Dash, MUTED, Marker, SeriesStyle, Theme, series, tint};
use crate::core::error::{Error, Result};

/// Models named in the legend at most; the others are drawn light grey.
pub const MAX_LABELLED: usize = 12;

/// Distinct fidelities labelled one by one on the x axis at most (beyond,
/// the log axis's own ticks).
pub const MAX_RUNG_TICKS: usize = 10;

/// The promotions figure of one tenant.
#[derive(Debug, Clone)]
pub struct Promotions<'a> {
    /// The results.
    pub data: &'a ModelResults,
    /// The completed jobs of repetition `rep` (`jobs.csv`).
    pub jobs: &'a [ModelJob],
    /// The repetition shown.
    pub rep: u64,
    /// The tenant (user id) shown.
    pub user: String,
    /// Policy indices drawn, one panel each: those with a low-fidelity job.
    pub policies: Vec<usize>,
    /// How the tenant was chosen (for the note).
    pub chosen: String,
}

/// Whether `jobs` (one repetition) are curve-trace jobs at all.
pub fn has_fidelity(jobs: &[ModelJob]) -> bool {
    jobs.iter().any(|j| j.eval.is_some())
}

impl<'a> Promotions<'a> {
    /// The figure for repetition `rep`, or `None` when no job of it ran
    /// below its tenant's largest fidelity. `wanted` picks the tenant
    /// (`--tenant`): a usage error when it has no job in the repetition.
    pub fn new(
        data: &'a ModelResults,
        jobs: &'a [ModelJob],
        rep: u64,
        wanted: Option<&str>,
    ) -> Result<Option<Self>> {
        // Users in order of first appearance, and each pair's top fidelity.
        let mut users: Vec<&str> = Vec::new();
        let mut seen: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        let mut top: BTreeMap<(&str, &str), f64> = BTreeMap::new();
        for j in jobs {
            let Some(e) = &j.eval else { continue };
            if seen.insert(j.user.as_str()) {
                users.push(j.user.as_str());
            }
            let t = top
                .entry((j.user.as_str(), e.model.as_str()))
                .or_insert(e.fidelity);
            *t = t.max(e.fidelity);
        }
        // Low-fidelity jobs per (policy, user).
        let mut low: BTreeMap<(usize, &str), usize> = BTreeMap::new();
        for j in jobs {
            let Some(e) = &j.eval else { continue };
            if e.fidelity < top[&(j.user.as_str(), e.model.as_str())] {
                *low.entry((j.policy, j.user.as_str())).or_default() += 1;
            }
        }
        let mut policies: Vec<usize> = low.keys().map(|&(p, _)| p).collect();
        policies.dedup();
        let Some(&first) = policies.first() else {
            return Ok(None);
        };
        let (user, chosen) = match wanted {
            Some(w) => {
                if !seen.contains(w) {
                    return Err(Error::usage(format!(
                        "--tenant {w}: no job of user `{w}` in repetition {rep} of jobs.csv"
                    )));
                }
                (w.to_string(), "chosen with --tenant".to_string())
            }
            None => {
                let mut best: Option<(&str, usize)> = None;
                for &u in &users {
                    let n = low.get(&(first, u)).copied().unwrap_or(0);
                    if best.is_none_or(|(_, m)| n > m) {
                        best = Some((u, n));
                    }
                }
                let (u, n) = best.unwrap_or((users[0], 0));
                (
                    u.to_string(),
                    format!(
                        "the tenant with the most low-fidelity jobs ({n}) under {}; --tenant picks another",
                        data.policies.0.get(first).map_or("?", String::as_str)
                    ),
                )
            }
        };
        Ok(Some(Self {
            data,
            jobs,
            rep,
            user,
            policies,
            chosen,
        }))
    }

    /// Per policy drawn: model → its (fidelity, accuracy) evaluations in
    /// ascending fidelity.
    fn evaluations(&self) -> Vec<BTreeMap<&str, Vec<(f64, f64)>>> {
        self.policies
            .iter()
            .map(|&p| {
                let mut by: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
                for j in self
                    .jobs
                    .iter()
                    .filter(|j| j.policy == p && j.user == self.user)
                {
                    if let Some(e) = &j.eval {
                        by.entry(e.model.as_str())
                            .or_default()
                            .push((e.fidelity, j.accuracy));
                    }
                }
                for pts in by.values_mut() {
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                }
                by
            })
            .collect()
    }
}

/// The models of every panel ranked for the legend: highest fidelity
/// reached first, then best accuracy, then id.
fn ranked<'m>(panels: &[BTreeMap<&'m str, Vec<(f64, f64)>>]) -> Vec<&'m str> {
    let mut reach: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for by in panels {
        for (&m, pts) in by {
            let r = reach
                .entry(m)
                .or_insert((f64::NEG_INFINITY, f64::NEG_INFINITY));
            for &(f, a) in pts {
                r.0 = r.0.max(f);
                r.1 = r.1.max(a);
            }
        }
    }
    let mut models: Vec<(&str, (f64, f64))> = reach.into_iter().collect();
    models.sort_by(|a, b| {
        b.1.0
            .total_cmp(&a.1.0)
            .then(b.1.1.total_cmp(&a.1.1))
            .then(a.0.cmp(b.0))
    });
    models.into_iter().map(|(m, _)| m).collect()
}

/// The look of the `i`-th ranked model: the series colours and dashes,
/// every marker a circle; from `labelled` on (at most [`MAX_LABELLED`]:
/// as many as the legend has room for), light grey (the palette has a dark
/// grey) and solid.
fn model_style(i: usize, labelled: usize) -> SeriesStyle {
    if i < labelled {
        SeriesStyle {
            marker: Marker::Circle,
            ..series(i)
        }
    } else {
        SeriesStyle {
            color: tint(MUTED, 0.45),
            dash: Dash::Solid,
            marker: Marker::Circle,
        }
    }
}

impl Figure for Promotions<'_> {
    fn stem(&self) -> String {
        "promotions".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        let panels = self.evaluations();
        let models = ranked(&panels);
        let style_of: BTreeMap<&str, usize> =
            models.iter().enumerate().map(|(i, &m)| (m, i)).collect();
        let all = panels.iter().flat_map(|by| by.values().flatten());
        let (mut f_lo, mut f_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut a_lo, mut a_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(f, a) in all {
            f_lo = f_lo.min(f);
            f_hi = f_hi.max(f);
            a_lo = a_lo.min(a);
            a_hi = a_hi.max(a);
        }
        if !a_lo.is_finite() {
            (f_lo, f_hi, a_lo, a_hi) = (1.0, 10.0, 0.0, 1.0);
        }
        let x = Axis::log(f_lo, f_hi);
        // The rungs as the x ticks when they are few enough to label.
        let mut rungs: Vec<f64> = panels
            .iter()
            .flat_map(|by| by.values().flatten().map(|p| p.0))
            .collect();
        rungs.sort_by(f64::total_cmp);
        rungs.dedup();
        let x_spec = if (2..=MAX_RUNG_TICKS).contains(&rungs.len()) {
            AxisSpec::with_ticks(x, rungs.iter().map(|&f| (x.to(f), num(f))).collect(), "")
        } else {
            AxisSpec::new(x, "")
        };
        let pad = ((a_hi - a_lo) * 0.08).max(0.01);
        let y_top = if a_hi <= 1.0 {
            (a_hi + pad).min(1.0)
        } else {
            a_hi + pad
        };
        let y = Axis::linear(a_lo - pad, y_top);
        let area = with_title(
            root,
            theme,
            &format!(
                "{}: promotions of tenant {} (repetition {})",
                d.name, self.user, self.rep
            ),
        )?;
        // The legend takes at most a quarter of the height: on a small
        // canvas fewer models are named.
        let named: Vec<Entry> = models
            .iter()
            .take(MAX_LABELLED)
            .enumerate()
            .map(|(i, &m)| Entry {
                label: m.to_string(),
                style: model_style(i, MAX_LABELLED),
                swatch: Swatch::Line,
            })
            .collect();
        let (aw, ah) = area.dim_in_pixel();
        let labelled = entries_fitting(
            root,
            i32::try_from(aw).unwrap_or(i32::MAX),
            &named,
            i32::try_from(ah).unwrap_or(i32::MAX) / 4,
            theme,
        );
        let grey = if models.len() > labelled {
            format!(
                "; the {labelled} models reaching the highest fidelities named, {} more in light grey",
                models.len() - labelled
            )
        } else {
            String::new()
        };
        let area = with_note(
            &area,
            theme,
            &format!(
                "each marker one evaluation; a line joins a model's evaluations from rung to rung \
                 (a promotion){grey}\ntenant: {}",
                self.chosen
            ),
        )?;
        let entries: Vec<Entry> = models
            .iter()
            .take(labelled)
            .enumerate()
            .map(|(i, &m)| Entry {
                label: m.to_string(),
                style: model_style(i, labelled),
                swatch: Swatch::Line,
            })
            .collect();
        let rest = rows_above(root, &area, &entries, theme)?;
        let inner = with_shared_titles(&rest, theme, "fidelity (log scale)", "accuracy")?;
        let (iw, ih) = inner.dim_in_pixel();
        let (rows, cols) = grid_shape(panels.len(), iw, ih);
        let cells = inner.split_evenly((rows, cols));
        for ((&p, by), cell) in self.policies.iter().zip(&panels).zip(&cells) {
            let n: usize = by.values().map(Vec::len).sum();
            let name = d.policies.0.get(p).map_or("?", String::as_str);
            // The long form when it takes at most two lines.
            let forms = if n == 0 {
                vec![
                    format!("{name}: no job of this tenant done"),
                    format!("{name}: none"),
                ]
            } else {
                vec![
                    format!(
                        "{name}: {n} evaluations of {} models, {} promotions",
                        by.len(),
                        n - by.len()
                    ),
                    format!("{name}: {n} evals, {} promoted", n - by.len()),
                    name.to_string(),
                ]
            };
            let caption = forms
                .iter()
                .find(|c| caption_lines(cell, c, theme, true).len() <= 2)
                .unwrap_or(&forms[forms.len() - 1])
                .clone();
            let mut chart = frame(
                cell,
                theme,
                &x_spec,
                &AxisSpec::new(y, ""),
                FrameOptions {
                    caption: Some(&caption),
                    compact: true,
                    ..FrameOptions::default()
                },
            )?;
            // Grey models first, the named ones on top, best ranked last.
            let mut order: Vec<(&str, &Vec<(f64, f64)>)> =
                by.iter().map(|(&m, pts)| (m, pts)).collect();
            order.sort_by_key(|(m, _)| std::cmp::Reverse(style_of[m]));
            for (m, pts) in order {
                let s = model_style(style_of[m], labelled);
                let pts: Vec<(f64, f64)> = pts
                    .iter()
                    .map(|&(f, a)| (x.clamp_to(f), y.clamp_to(a)))
                    .collect();
                line(&mut chart, &pts, &s, theme)?;
                markers(&mut chart, &pts, &s, theme)?;
            }
        }
        Ok(())
    }
}
