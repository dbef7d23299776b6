//! Legends, drawn in pixels on the figure's root area: a boxed legend
//! inside a chart, in the corner that covers the fewest data pixels, or a
//! row of entries above small multiples.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::draw_err;
use super::chart::text_width;
use super::marks::marker_element;
use super::style::{SeriesStyle, Theme};
use crate::core::error::Result;

/// What stands before an entry's label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swatch {
    /// A short stretch of the series' line with its marker.
    Line,
}

/// One legend entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Label (a policy name).
    pub label: String,
    /// Its series style.
    pub style: SeriesStyle,
    /// How it is shown.
    pub swatch: Swatch,
}

struct Metrics {
    sample: i32,
    gap: i32,
    row: i32,
    pad: i32,
}

fn metrics(theme: &Theme) -> Metrics {
    Metrics {
        sample: theme.px(38.0),
        gap: theme.px(8.0),
        row: theme.px(22.0),
        pad: theme.px(8.0),
    }
}

/// Width and height of the boxed legend of `entries`.
pub fn box_size<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    theme: &Theme,
) -> (i32, i32) {
    let m = metrics(theme);
    let font = theme.legend();
    let widest = entries
        .iter()
        .map(|e| text_width(root, &e.label, &font))
        .max()
        .unwrap_or(0);
    let n = i32::try_from(entries.len()).unwrap_or(i32::MAX);
    (m.pad * 2 + m.sample + m.gap + widest, m.pad * 2 + m.row * n)
}

/// Top-left corner for a `size` legend inside `plot` (pixel ranges): the
/// corner (upper right first, then upper left, lower right, lower left)
/// whose box covers the fewest of `occupied`.
pub fn best_corner(
    plot: &(Range<i32>, Range<i32>),
    size: (i32, i32),
    occupied: &[(i32, i32)],
    theme: &Theme,
) -> (i32, i32) {
    let inset = theme.px(10.0);
    let (xr, yr) = plot;
    let left = xr.start + inset;
    let right = xr.end - inset - size.0;
    let top = yr.start + inset;
    let bottom = yr.end - inset - size.1;
    let corners = [(right, top), (left, top), (right, bottom), (left, bottom)];
    let slack = theme.px(4.0);
    let covered = |&(x, y): &(i32, i32)| {
        occupied
            .iter()
            .filter(|&&(px, py)| {
                px >= x - slack
                    && px <= x + size.0 + slack
                    && py >= y - slack
                    && py <= y + size.1 + slack
            })
            .count()
    };
    corners
        .iter()
        .min_by_key(|c| covered(c))
        .copied()
        .unwrap_or((right, top))
}

fn swatch<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    e: &Entry,
    (x, y): (i32, i32),
    m: &Metrics,
    theme: &Theme,
) -> Result<()> {
    match e.swatch {
        Swatch::Line => {
            let pts = vec![(x, y), (x + m.sample, y)];
            let style = theme.line(&e.style);
            match theme.dash_px(e.style.dash) {
                None => root.draw(&PathElement::new(pts, style)),
                Some((on, off)) => root.draw(&DashedPathElement::new(pts, on, off, style)),
            }
            .map_err(draw_err)?;
            root.draw(&marker_element((x + m.sample / 2, y), &e.style, theme))
                .map_err(draw_err)?;
        }
    }
    Ok(())
}

/// Draw the boxed legend with its top-left corner at `at`.
pub fn draw_box<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    entries: &[Entry],
    theme: &Theme,
) -> Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let m = metrics(theme);
    let (w, h) = box_size(root, entries, theme);
    let (x, y) = at;
    root.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        WHITE.mix(0.92).filled(),
    ))
    .map_err(draw_err)?;
    root.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        super::style::MUTED.mix(0.6).stroke_width(1),
    ))
    .map_err(draw_err)?;
    let font = theme.legend().pos(Pos::new(HPos::Left, VPos::Center));
    for (i, e) in entries.iter().enumerate() {
        let cy = y + m.pad + m.row * i32::try_from(i).unwrap_or(0) + m.row / 2;
        swatch(root, e, (x + m.pad, cy), &m, theme)?;
        root.draw(&Text::new(
            e.label.clone(),
            (x + m.pad + m.sample + m.gap, cy),
            font.clone(),
        ))
        .map_err(draw_err)?;
    }
    Ok(())
}

/// Draw `entries` in rows centred in `[x0, x1)` from `y` down; returns
/// the height used.
pub fn draw_rows<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    x0: i32,
    x1: i32,
    y: i32,
    entries: &[Entry],
    theme: &Theme,
) -> Result<i32> {
    let m = metrics(theme);
    let font = theme.legend();
    let widths: Vec<i32> = entries
        .iter()
        .map(|e| m.sample + m.gap + text_width(root, &e.label, &font) + m.gap * 3)
        .collect();
    // Greedy line breaking.
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0;
    for (i, &w) in widths.iter().enumerate() {
        if used + w > x1 - x0 && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            used = 0;
        }
        if let Some(r) = rows.last_mut() {
            r.push(i);
        }
        used += w;
    }
    let font = font.pos(Pos::new(HPos::Left, VPos::Center));
    for (k, r) in rows.iter().enumerate() {
        let total: i32 = r.iter().map(|&i| widths[i]).sum();
        let mut x = x0 + ((x1 - x0) - total).max(0) / 2;
        let cy = y + m.row * i32::try_from(k).unwrap_or(0) + m.row / 2;
        for &i in r {
            let e = &entries[i];
            swatch(root, e, (x, cy), &m, theme)?;
            root.draw(&Text::new(
                e.label.clone(),
                (x + m.sample + m.gap, cy),
                font.clone(),
            ))
            .map_err(draw_err)?;
            x += widths[i];
        }
    }
    Ok(m.row * i32::try_from(rows.len()).unwrap_or(1))
}

/// Draw `entries` as legend rows across the top of `area` (20 px margins
/// each side) and return the area below them: the layout of the
/// small-multiple figures, whose panels share one legend.
pub fn rows_above<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    theme: &Theme,
) -> Result<DrawingArea<DB, Shift>> {
    let (w, _) = area.dim_in_pixel();
    let w = i32::try_from(w).unwrap_or(0);
    let h = rows_height(root, w - theme.px(40.0), entries, theme) + theme.px(4.0);
    let (legend_area, rest) = area.split_vertically(h);
    let top = legend_area.get_base_pixel().1;
    draw_rows(
        root,
        theme.px(20.0),
        w - theme.px(20.0),
        top,
        entries,
        theme,
    )?;
    Ok(rest)
}

/// Height [`draw_rows`] will use for `entries` in `[x0, x1)`.
pub fn rows_height<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    width: i32,
    entries: &[Entry],
    theme: &Theme,
) -> i32 {
    let m = metrics(theme);
    let font = theme.legend();
    let mut rows = 1;
    let mut used = 0;
    for e in entries {
        let w = m.sample + m.gap + text_width(root, &e.label, &font) + m.gap * 3;
        if used + w > width && used > 0 {
            rows += 1;
            used = 0;
        }
        used += w;
    }
    m.row * rows
}
