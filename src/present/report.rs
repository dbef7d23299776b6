//! `tenantsim report`: one self-contained HTML page of a results folder —
//! the scenario and the manifest (`run.json`), the summary table (every
//! column `tenantsim table` knows) with a definition of each metric and
//! its DESIGN section, and every figure as inline SVG, its caption saying
//! what it shows; for a sweep, the sweep table and figures, then
//! each point's table and figures. No script, no stylesheet, font or image
//! from elsewhere: it opens offline. The figures' text is set in the
//! bundled font: each figure's own `@font-face` is stripped and the page
//! declares one, holding the glyphs of every figure's text (faces of one
//! family with different subsets would conflict: the browser would use one
//! of them for all).

use std::path::{Path, PathBuf};

use std::collections::BTreeSet;

use super::figures::embedded_font::{font_face, strip_face, text_chars};
use super::figures::{Kind, PlotOptions, kind_of, plot_dir, shared_workloads};
use super::table::{
    DEFAULT_SIGNIFICANT, Grid, Precision, definition, full_grid_of, prepare, render_html,
    workflows_full_grid,
};
use crate::core::error::{Error, Result};
use crate::core::io::manifest_doc::ManifestDoc;

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222;background:#fff}\
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ddd;margin-top:1.6em}h3{font-size:1.1em}\
table{border-collapse:collapse;margin:0.5em 0;font-size:0.9em}th,td{padding:0.25em 0.6em;border-bottom:1px solid #e4e4e4}\
th{text-align:left;border-bottom:2px solid #444}.num{text-align:right;font-variant-numeric:tabular-nums}\
pre{background:#f6f6f6;padding:0.6em;overflow:auto;font-size:0.85em;max-height:30em}\
figure{margin:1em 0}figure svg{max-width:100%;height:auto;display:block}figcaption{color:#555;font-size:0.9em}\
dl.defs{font-size:0.9em;margin:0.5em 0 1em}dl.defs dt{font-weight:bold;margin-top:0.4em}dl.defs dd{margin:0.1em 0 0 1.5em;color:#444}";

/// The tag that marks a page `report` wrote.
pub const GENERATOR: &str = "<meta name=\"generator\" content=\"tenantsim report\">";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A scratch folder for the figures, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Self> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tenantsim-report-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::input(format!("cannot create {}: {e}", dir.display())))?;
        Ok(Self(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The figures of `dir` (SVG, screen size), in drawing order: (stem, SVG).
fn figures_in(folder: &Path, files: &[PathBuf]) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for f in files {
        if f.parent() != Some(folder) || f.extension().is_none_or(|e| e != "svg") {
            continue;
        }
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = crate::core::io::read_text(f, "figure", "an SVG text file", 1 << 30)?;
        out.push((stem, text));
    }
    Ok(out)
}

/// What a figure shows (its file stem), with the section of
/// docs/DESIGN.md that defines it.
pub fn figure_definition(stem: &str) -> String {
    let known = match stem {
        "regret-curves" => {
            "the mean loss over tenants L(τ) = S(τ) / (tenants arrived by τ), S(τ) = Σ (A*ᵢ − bestᵢ(τ)), against time: the mean over repetitions with its confidence band; dashed lines at the thresholds θ (DESIGN §2.6, §6.3)"
        }
        "regret-curves-by-job" => {
            "L right after the j-th completed job against j, the number of jobs completed (DESIGN §6.4)"
        }
        "speedups" => {
            "speedup at θ = T_B(θ) / T_X(θ), the baseline's time to mean loss θ over the policy's, per θ and policy (DESIGN §6.5)"
        }
        "regret" => {
            "the mean cumulative regret R = ∫ S(τ) dτ per policy, with its Student-t confidence interval over repetitions (DESIGN §2.6, §6.7)"
        }
        "tenant-regret" => {
            "each tenant's regret area, the integral of its loss A*ᵢ − bestᵢ(τ) from its arrival, per policy: box and strip (DESIGN §6.1)"
        }
        "tenant-accuracy" => {
            "each tenant's best accuracy so far bestᵢ(τ) in one repetition (DESIGN §2.6)"
        }
        "promotions" => {
            "one tenant's evaluations at (fidelity, accuracy), joined rung to rung (DESIGN §12)"
        }
        "jct-cdf" => {
            "the fraction of jobs whose completion time JCT = end − submit is at most x, per policy (DESIGN §9.5)"
        }
        "utilization" => {
            "the fraction of the cluster's GPUs held over time, per policy (utilization.csv, DESIGN §9.6)"
        }
        "utilization-by-type" => {
            "the fraction of each GPU type's GPUs held over time, per policy and type (DESIGN §11.2)"
        }
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    match stem.strip_prefix("sweep-") {
        Some(metric) => {
            let what = super::table::sweep_definition(metric)
                .map_or_else(String::new, |d| format!("; {metric}: {d}"));
            format!(
                "{metric} of sweep.csv against the swept key, one line per policy (DESIGN §6.10){what}"
            )
        }
        None => "a figure of the results CSVs (DESIGN §6.10)".to_string(),
    }
}

/// The definitions of the columns of `grid`, one per metric, as an HTML
/// definition list.
fn definitions(grid: &Grid) -> String {
    let heads = prepare(grid, Precision::Significant(DEFAULT_SIGNIFICANT), false).heads;
    let mut seen: Vec<&str> = Vec::new();
    let mut out = String::from("<dl class=\"defs\">\n");
    for (c, col) in grid.columns.iter().enumerate() {
        if seen.contains(&col.metric) && !col.metric.is_empty() {
            continue;
        }
        seen.push(col.metric);
        // Every header of the columns sharing this definition.
        let names: Vec<String> = grid
            .columns
            .iter()
            .zip(&heads)
            .enumerate()
            .filter(|(k, (other, _))| {
                if col.metric.is_empty() {
                    *k == c
                } else {
                    other.metric == col.metric
                }
            })
            .map(|(_, (_, h))| esc(h))
            .collect();
        let text = definition(col.metric).unwrap_or("a column of the results CSV (DESIGN §6.10)");
        out.push_str(&format!(
            "<dt>{}</dt><dd>{}</dd>\n",
            names.join(", "),
            esc(text)
        ));
    }
    out.push_str("</dl>\n");
    out
}

/// A table of the report: the grid, its notes, then what every column
/// means.
fn table_section(html: &mut String, grid: &Grid) {
    html.push_str(&render_html(
        grid,
        Precision::Significant(DEFAULT_SIGNIFICANT),
    ));
    html.push_str(&definitions(grid));
}

/// Inline `figures` into `html` without their own font faces; the
/// characters of their text go to `chars` (for the page's face).
fn section_figures(html: &mut String, figures: &[(String, String)], chars: &mut BTreeSet<char>) {
    for (stem, svg) in figures {
        // The XML declaration, if any, is not allowed inside HTML.
        let svg = strip_face(svg.trim_start_matches(|c| c != '<'));
        text_chars(&svg, chars);
        html.push_str(&format!(
            "<figure id=\"fig-{0}\">\n{svg}\n<figcaption><b>{0}</b>: {1}.</figcaption>\n</figure>\n",
            esc(stem),
            esc(&figure_definition(stem))
        ));
    }
}

fn manifest_sections(html: &mut String, dir: &Path) -> Result<String> {
    let doc = ManifestDoc::read(dir, "`report` shows its scenario and fields")?;
    let Some(doc) = doc else {
        html.push_str("<p>No run.json in this folder.</p>\n");
        return Ok(dir.display().to_string());
    };
    let value = doc.value();
    let name = doc
        .scenario_name()
        .map_or_else(|| dir.display().to_string(), str::to_string);
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
    html.push_str("<h2>Scenario</h2>\n");
    if let Some(p) = value["scenario_path"].as_str() {
        html.push_str(&format!("<p>From <code>{}</code>.</p>\n", esc(p)));
    }
    html.push_str(&format!(
        "<pre>{}</pre>\n",
        esc(&pretty(&value["scenario"]))
    ));
    html.push_str("<h2>Manifest (run.json)</h2>\n<details><summary>show</summary>\n");
    html.push_str(&format!("<pre>{}</pre>\n</details>\n", esc(&pretty(value))));
    Ok(name)
}

/// The report of the results folder `dir` as HTML text.
pub fn report_html(dir: &Path) -> Result<String> {
    let kind = kind_of(dir)?;
    let scratch = Scratch::new()?;
    let opts = PlotOptions {
        format: super::figures::Format::Svg,
        ..PlotOptions::default()
    };
    let drawn = plot_dir(dir, Some(&scratch.0), &opts)?;
    let mut body = String::new();
    let name = manifest_sections(&mut body, dir)?;
    body.push_str("<h2>Summary</h2>\n");
    table_section(&mut body, &full_grid_of(dir)?);
    // A shared folder's workflows beside a service or background: their
    // own table after the first workload's (DESIGN §13.5, §14.7).
    if kind == Kind::Shared
        && !shared_workloads(dir).is_empty()
        && let Some(grid) = workflows_full_grid(dir)?
    {
        body.push_str("<h3>workflows/</h3>\n");
        table_section(&mut body, &grid);
    }
    body.push_str("<h2>Figures</h2>\n");
    let mut chars = BTreeSet::new();
    section_figures(
        &mut body,
        &figures_in(&scratch.0, &drawn.files)?,
        &mut chars,
    );
    if kind == Kind::Sweep {
        let mut points: Vec<String> = Vec::new();
        for f in &drawn.files {
            if let Ok(rest) = f.strip_prefix(&scratch.0)
                && let Some(first) = rest.components().next()
                && rest.components().count() > 1
            {
                let p = first.as_os_str().to_string_lossy().into_owned();
                if !points.contains(&p) {
                    points.push(p);
                }
            }
        }
        for p in points {
            body.push_str(&format!("<h2>Point {}</h2>\n", esc(&p)));
            table_section(&mut body, &full_grid_of(&dir.join(&p))?);
            section_figures(
                &mut body,
                &figures_in(&scratch.0.join(&p), &drawn.files)?,
                &mut chars,
            );
        }
    }
    for note in &drawn.notes {
        body.push_str(&format!("<p class=\"note\">Note: {}</p>\n", esc(note)));
    }
    let face = font_face(&chars)?;
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         {GENERATOR}\n\
         <title>{0} — tenantsim report</title>\n<style>{STYLE}\n{face}</style>\n</head>\n<body>\n\
         <h1>{0}</h1>\n{body}</body>\n</html>\n",
        esc(&name)
    ))
}
