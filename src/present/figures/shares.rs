//! Figure `shares` (shared mode, DESIGN §13.5): the GPUs each workload
//! holds over time in one repetition, one panel per policy (from
//! `shares.csv`: from `time_s` on, `workload` holds `gpus` GPUs), as a
//! percentage of the cluster's GPUs.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::canvas::Figure;
use super::chart::{
    AxisSpec, FrameOptions, frame, grid_shape, with_note, with_shared_titles, with_title,
};
use super::data::Policies;
use super::marks::{line, steps};
use super::read::Source;
use super::scale::{Axis, num};
use super::style::{Dash, Theme, series};
use crate::core::error::{Error, Result};
use crate::core::io::manifest_doc::{self, ManifestDoc};

/// Panels drawn at most.
pub const MAX_PANELS: usize = 16;

/// One row of `shares.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareRow {
    /// Policy index.
    pub policy: usize,
    /// Repetition.
    pub rep: u64,
    /// From when, seconds.
    pub time: f64,
    /// Workload index in [`Shares::workloads`].
    pub workload: usize,
    /// GPUs held from then on.
    pub gpus: f64,
}

/// `shares.csv` of a shared results folder, and the cluster's GPUs.
#[derive(Debug, Clone)]
pub struct Shares {
    /// Scenario name.
    pub name: String,
    /// Policy order.
    pub policies: Policies,
    /// Workload names in order of first appearance.
    pub workloads: Vec<String>,
    /// The rows.
    pub rows: Vec<ShareRow>,
    /// GPUs in the cluster (`run.json`'s `cluster.gpus`; else the most
    /// held at once).
    pub gpus: f64,
}

impl Shares {
    /// Read `shares.csv` (and the cluster's size from `run.json`).
    pub fn read(src: &Source<'_>) -> Result<Self> {
        let mut policies = Policies::default();
        let t = src.table(
            "shares.csv",
            &["policy", "rep", "time_s", "workload", "gpus"],
        )?;
        let (p, rep, time, w, g) = (
            t.col("policy")?,
            t.col("rep")?,
            t.col("time_s")?,
            t.col("workload")?,
            t.col("gpus")?,
        );
        let mut workloads: Vec<String> = Vec::new();
        let mut rows = Vec::new();
        for r in t.rows() {
            let r = r?;
            let name = r.name(w)?;
            let k = match workloads.iter().position(|x| x == name) {
                Some(k) => k,
                None => {
                    workloads.push(name.to_string());
                    workloads.len() - 1
                }
            };
            rows.push(ShareRow {
                policy: policies.index(r.name(p)?),
                rep: r.count(rep)?,
                time: r.non_negative(time)?,
                workload: k,
                gpus: r.non_negative(g)?,
            });
        }
        let from_manifest = src
            .text(manifest_doc::FILE)
            .ok()
            .and_then(|t| {
                ManifestDoc::parse(&src.path(manifest_doc::FILE), &t, "its cluster's size").ok()
            })
            .and_then(|m| m.pointer("/cluster/gpus")?.as_f64());
        let most = rows.iter().map(|r| r.gpus).fold(0.0f64, f64::max);
        Ok(Self {
            name: src.name.clone().unwrap_or_default(),
            policies,
            workloads,
            rows,
            gpus: from_manifest.unwrap_or(most).max(1.0),
        })
    }

    /// The first repetition in the file, or `rep` if it is there.
    pub fn rep(&self, rep: Option<u64>) -> Result<u64> {
        let first = self.rows.first().map(|r| r.rep).unwrap_or(0);
        match rep {
            None => Ok(first),
            Some(r) if self.rows.iter().any(|x| x.rep == r) => Ok(r),
            Some(r) => Err(Error::input(format!(
                "shares.csv: no repetition {r} (the file starts with repetition {first})"
            ))),
        }
    }
}

/// The GPU shares figure.
#[derive(Debug, Clone, Copy)]
pub struct SharesFigure<'a> {
    /// The shares.
    pub data: &'a Shares,
    /// The repetition shown.
    pub rep: u64,
}

impl Figure for SharesFigure<'_> {
    fn stem(&self) -> String {
        "shares".into()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()> {
        let d = self.data;
        let all = d.policies.0.len();
        let n = all.clamp(1, MAX_PANELS);
        let rows: Vec<&ShareRow> = d
            .rows
            .iter()
            .filter(|r| r.rep == self.rep && r.policy < n)
            .collect();
        let t_end = rows.iter().map(|r| r.time).fold(0.0f64, f64::max);
        let x = Axis::linear_exact(0.0, if t_end > 0.0 { t_end } else { 1.0 });
        let y = Axis::linear_exact(0.0, 105.0);
        let area = with_title(
            root,
            theme,
            &format!(
                "{}: GPUs held by each workload (repetition {})",
                d.name, self.rep
            ),
        )?;
        let mut note = format!(
            "share of the cluster's {} GPUs each workload holds (restores after preemption included), from shares.csv; {}",
            num(d.gpus),
            d.workloads
                .iter()
                .enumerate()
                .map(|(k, w)| format!("{w}: {}", if k == 0 { "solid" } else { "dashed" }))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if all > MAX_PANELS {
            note.push_str(&format!("\nthe first {MAX_PANELS} of {all} policies"));
        }
        let area = with_note(&area, theme, &note)?;
        let inner = with_shared_titles(
            &area,
            theme,
            "simulated time (s)",
            "GPUs held (% of the cluster)",
        )?;
        let (iw, ih) = inner.dim_in_pixel();
        let (grid_rows, cols) = grid_shape(n, iw, ih * 2);
        let cells = inner.split_evenly((grid_rows, cols));
        for (p, cell) in cells.iter().enumerate().take(n) {
            let caption = d.policies.0.get(p).cloned().unwrap_or_default();
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
            for k in 0..d.workloads.len() {
                let pts: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.policy == p && r.workload == k)
                    .map(|r| (x.clamp_to(r.time), y.clamp_to(r.gpus / d.gpus * 100.0)))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let stepped = steps(&pts, Some(x.clamp_to(t_end)));
                let style = super::style::SeriesStyle {
                    dash: if k == 0 {
                        Dash::Solid
                    } else {
                        Dash::Dashed(6, 4)
                    },
                    ..series(k)
                };
                line(&mut chart, &stepped, &style, theme)?;
            }
        }
        Ok(())
    }
}
