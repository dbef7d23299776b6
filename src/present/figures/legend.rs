//! Legends, drawn in pixels on the figure's root area: a boxed legend
//! inside a chart, at the first spot where it covers no mark, or rows of
//! entries above the chart (small multiples, and charts with no free spot).
//!
//! The placement rule (DESIGN §6.10): a chart's legend box goes to the
//! first of its candidate spots inside the plot (the four corners, then
//! along the top and bottom edges, then the sides, then the interior)
//! whose box, grown by a small gap, touches no [`Obstacles`]: no segment
//! of a drawn line, no marker, no text. When no spot is free, the legend
//! moves outside the plot, as rows above it ([`draw_with_legend`] draws
//! the figure once on a throwaway canvas to find out, then for real).

use std::ops::Range;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::draw_err;
use super::chart::{Chart, text_width};
use super::marks::marker_element;
use super::style::{SeriesStyle, Theme, series};
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

/// One line entry per policy of `names` that `keep` (by index) lets through,
/// in the policy's series style: the legend of the figures that draw one
/// line per policy.
pub fn policy_lines(names: &[String], keep: impl Fn(usize) -> bool) -> Vec<Entry> {
    names
        .iter()
        .enumerate()
        .filter(|&(i, _)| keep(i))
        .map(|(i, name)| Entry {
            label: name.clone(),
            style: series(i),
            swatch: Swatch::Line,
        })
        .collect()
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

/// A stroked segment in backend pixels: its ends and its half width.
pub type Segment = ((i32, i32), (i32, i32), i32);

/// What a legend box must not cover, in backend pixels: line segments
/// with their half widths, markers (centre, radius) and text boxes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Obstacles {
    /// Segments of drawn lines and the half width of their strokes.
    pub segments: Vec<Segment>,
    /// Markers: centre and radius.
    pub dots: Vec<((i32, i32), i32)>,
    /// Text boxes: x0, y0, x1, y1.
    pub boxes: Vec<(i32, i32, i32, i32)>,
}

impl Obstacles {
    /// The segments of the polyline through `px` (backend pixels), `half`
    /// pixels either side.
    pub fn polyline(&mut self, px: &[(i32, i32)], half: i32) {
        self.segments
            .extend(px.windows(2).map(|w| (w[0], w[1], half)));
        if let [only] = px {
            self.segments.push((*only, *only, half));
        }
    }

    /// Whether the box `r` (x0, y0, x1, y1) touches any obstacle.
    pub fn hit(&self, r: (i32, i32, i32, i32)) -> bool {
        let (x0, y0, x1, y1) = (
            f64::from(r.0),
            f64::from(r.1),
            f64::from(r.2),
            f64::from(r.3),
        );
        let seg = |&(a, b, half): &Segment| {
            let h = f64::from(half);
            segment_meets_box(
                (f64::from(a.0), f64::from(a.1)),
                (f64::from(b.0), f64::from(b.1)),
                (x0 - h, y0 - h, x1 + h, y1 + h),
            )
        };
        let dot = |&((cx, cy), rad): &((i32, i32), i32)| {
            // Distance from the centre to the box, against the radius.
            let (cx, cy) = (f64::from(cx), f64::from(cy));
            let dx = (x0 - cx).max(cx - x1).max(0.0);
            let dy = (y0 - cy).max(cy - y1).max(0.0);
            dx.hypot(dy) < f64::from(rad)
        };
        let boxed = |b: &(i32, i32, i32, i32)| b.0 < r.2 && r.0 < b.2 && b.1 < r.3 && r.1 < b.3;
        self.segments.iter().any(seg) || self.dots.iter().any(dot) || self.boxes.iter().any(boxed)
    }
}

/// Record the markers at `pts` (chart coordinates) as obstacles for a
/// legend: their centres in pixels and the marker's radius (plus one
/// pixel of its outline).
pub fn marker_obstacles<DB: DrawingBackend>(
    obstacles: &mut Obstacles,
    chart: &Chart<'_, DB>,
    pts: &[(f64, f64)],
    theme: &Theme,
) {
    let r = theme.marker_size() + theme.px(1.0);
    obstacles
        .dots
        .extend(pts.iter().map(|p| (chart.backend_coord(p), r)));
}

/// Whether the segment `a`–`b` meets the box `r` (x0, y0, x1, y1):
/// Liang–Barsky clipping leaves some of it.
fn segment_meets_box(a: (f64, f64), b: (f64, f64), r: (f64, f64, f64, f64)) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - r.0),
        (dx, r.2 - a.0),
        (-dy, a.1 - r.1),
        (dy, r.3 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 <= t1
}

/// Top-left corner for a `size` legend inside `plot` (pixel ranges): the
/// first free spot of the rule in the module docs, or `None` when every
/// spot touches an obstacle.
pub fn free_spot(
    plot: &(Range<i32>, Range<i32>),
    size: (i32, i32),
    obstacles: &Obstacles,
    theme: &Theme,
) -> Option<(i32, i32)> {
    let inset = theme.px(10.0);
    let gap = theme.px(4.0);
    let (xr, yr) = plot;
    let left = xr.start + inset;
    let right = xr.end - inset - size.0;
    let top = yr.start + inset;
    let bottom = yr.end - inset - size.1;
    if right < left || bottom < top {
        return None;
    }
    // Candidate positions along each axis: the two ends, then evenly
    // spaced between them (about every 10 base pixels).
    let along = |from: i32, to: i32| -> Vec<i32> {
        let step = theme.px(10.0).max(1);
        let n = ((to - from) / step).max(1);
        (0..=n).map(|k| to - (to - from) * k / n).collect()
    };
    let xs = along(left, right);
    let ys: Vec<i32> = along(top, bottom).into_iter().rev().collect();
    let mut spots = vec![(right, top), (left, top), (right, bottom), (left, bottom)];
    spots.extend(xs.iter().map(|&x| (x, top)));
    spots.extend(xs.iter().map(|&x| (x, bottom)));
    spots.extend(ys.iter().flat_map(|&y| [(right, y), (left, y)]));
    spots.extend(ys.iter().flat_map(|&y| xs.iter().map(move |&x| (x, y))));
    spots
        .into_iter()
        .find(|&(x, y)| !obstacles.hit((x - gap, y - gap, x + size.0 + gap, y + size.1 + gap)))
}

/// A chart figure whose legend goes inside the plot where it covers
/// nothing, or in rows above the chart.
pub trait LegendPlaced {
    /// Draw the figure: with `above`, the legend in rows above the chart;
    /// without, inside the plot at [`free_spot`]. Returns whether the
    /// legend found its place (always with `above`).
    fn draw_placed<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        theme: &Theme,
        above: bool,
    ) -> Result<bool>;
}

/// Draw `fig` with its legend inside the plot when a free spot exists
/// there, above the chart otherwise: a dry run on a throwaway SVG canvas
/// of the same size (and a theme that keeps no caption) finds out which.
pub fn draw_with_legend<F: LegendPlaced, DB: DrawingBackend>(
    fig: &F,
    root: &DrawingArea<DB, Shift>,
    theme: &Theme,
) -> Result<()> {
    let size = root.dim_in_pixel();
    let mut sink = String::new();
    let inside = {
        let dry = SVGBackend::with_string(&mut sink, size).into_drawing_area();
        let quiet = Theme {
            caption: Default::default(),
            ..theme.clone()
        };
        fig.draw_placed(&dry, &quiet, false)?
    };
    fig.draw_placed(root, theme, !inside)?;
    Ok(())
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

/// How many of `entries` (in order, at least one) fit as legend rows
/// across an area `width` pixels wide ([`rows_above`]) within `max_h`
/// pixels: figures with many entries name only the first ones.
pub fn entries_fitting<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    width: i32,
    entries: &[Entry],
    max_h: i32,
    theme: &Theme,
) -> usize {
    (1..=entries.len())
        .rev()
        .find(|&k| rows_height(root, width - theme.px(40.0), &entries[..k], theme) <= max_h)
        .unwrap_or(1)
        .min(entries.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn obstacles_hit_boxes_they_reach() {
        let mut o = Obstacles::default();
        // A diagonal through the box (10..20, 10..20); one passing below
        // its lower-left corner.
        o.polyline(&[(0, 0), (30, 30)], 1);
        assert!(o.hit((10, 10, 20, 20)));
        let mut below = Obstacles::default();
        // y = x + 13 against the box grown by the half width: at x = 9 it
        // is at 22, below the grown box's corner (9, 21); grown by 2, the
        // box reaches (8, 22) and y(8) = 21 is inside.
        below.polyline(&[(0, 13), (17, 30)], 1);
        assert!(!below.hit((10, 10, 20, 20)));
        below.segments[0].2 = 2;
        assert!(below.hit((10, 10, 20, 20)));
        // A marker of radius 5 at (24, 24): √32 ≈ 5.66 px from the corner.
        let dot = Obstacles {
            dots: vec![((24, 24), 5)],
            ..Obstacles::default()
        };
        assert!(!dot.hit((10, 10, 20, 20)));
        // (20, 22): √(16 + 4) ≈ 4.47 px away.
        assert!(dot.hit((10, 10, 20, 22)));
    }
}
