//! A chart frame every figure shares: two [`Axis`] (or a category axis),
//! axis titles, tick labels sized to fit, grid lines in the theme's style.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::canvas::draw_err;
use super::scale::{Axis, Ticked};
use super::style::{Theme, tint};
use crate::core::error::Result;

/// The coordinate system of every chart: f64 chart coordinates on both
/// axes (log10 of the value on a log axis) with our own tick positions.
pub type Coord = Cartesian2d<Ticked, Ticked>;

/// A chart of a figure.
pub type Chart<'a, DB> = ChartContext<'a, DB, Coord>;

/// One axis of a chart: its scale, its title (with units) and, when the
/// ticks are not the scale's own, labelled tick positions (a category
/// axis has its names at positions 0, 1, 2, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct AxisSpec {
    /// Scale and range.
    pub axis: Axis,
    /// Axis title; empty for none.
    pub title: String,
    /// Labelled ticks at chart coordinates, instead of the scale's.
    pub ticks: Option<Vec<(f64, String)>>,
    /// Grid lines across the chart at the ticks.
    pub grid: bool,
}

impl AxisSpec {
    /// A numeric axis.
    pub fn new(axis: Axis, title: impl Into<String>) -> Self {
        Self {
            axis,
            title: title.into(),
            ticks: None,
            grid: true,
        }
    }

    /// A category axis: `names[i]` at position `i`, from −0.5 to n − 0.5,
    /// without grid lines.
    pub fn categories(names: Vec<String>, title: impl Into<String>) -> Self {
        let n = names.len().max(1) as f64;
        Self {
            axis: Axis::linear_exact(-0.5, n - 0.5),
            title: title.into(),
            ticks: Some(
                names
                    .into_iter()
                    .enumerate()
                    .map(|(i, s)| (i as f64, s))
                    .collect(),
            ),
            grid: false,
        }
    }

    /// A numeric axis whose ticks sit at `ticks` (chart coordinates, label).
    pub fn with_ticks(axis: Axis, ticks: Vec<(f64, String)>, title: impl Into<String>) -> Self {
        Self {
            axis,
            title: title.into(),
            ticks: Some(ticks),
            grid: true,
        }
    }

    fn spec(&self) -> Ticked {
        match &self.ticks {
            Some(t) => Ticked::new(
                self.axis.range(),
                t.iter().map(|(c, _)| *c).collect(),
                Vec::new(),
            ),
            None => self.axis.spec(),
        }
    }

    /// The label at chart coordinate `c`.
    pub fn label(&self, c: f64) -> String {
        match &self.ticks {
            Some(t) => t
                .iter()
                .find(|(p, _)| (p - c).abs() < 1e-9)
                .map(|(_, s)| s.clone())
                .unwrap_or_default(),
            None => self.axis.label(c),
        }
    }

    fn labels(&self) -> Vec<String> {
        match &self.ticks {
            Some(t) => t.iter().map(|(_, s)| s.clone()).collect(),
            None => {
                let (major, _) = self.axis.ticks();
                major.iter().map(|&c| self.axis.label(c)).collect()
            }
        }
    }
}

/// Options of a chart frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameOptions<'t> {
    /// Caption above the chart.
    pub caption: Option<&'t str>,
    /// Small panel: smaller tick labels and margins.
    pub compact: bool,
    /// Extra room right of the plot (base pixels), for labels drawn there.
    pub extra_right: f64,
}

/// Width of `text` in `style` on `area`, pixels.
pub fn text_width<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle<'_>,
) -> i32 {
    area.estimate_text_size(text, style)
        .map_or(0, |(w, _)| i32::try_from(w).unwrap_or(i32::MAX))
}

/// Build and draw the frame (axes, ticks, grid, titles) of a chart on
/// `area`; the caller draws the data on the returned chart.
pub fn frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    theme: &Theme,
    x: &AxisSpec,
    y: &AxisSpec,
    opts: FrameOptions<'_>,
) -> Result<Chart<'a, DB>> {
    let tick = if opts.compact {
        theme.small_tick()
    } else {
        theme.tick()
    };
    let tick_h = theme.px(if opts.compact { 12.0 } else { 14.0 });
    let title_h = theme.px(17.0);
    let widest = y
        .labels()
        .iter()
        .map(|l| text_width(area, l, &tick))
        .max()
        .unwrap_or(0);
    let gap = theme.px(if opts.compact { 6.0 } else { 10.0 });
    let y_area = widest + gap + if y.title.is_empty() { 0 } else { title_h + gap };
    let x_area = tick_h + gap + if x.title.is_empty() { 0 } else { title_h + gap };
    let mut builder = ChartBuilder::on(area);
    builder
        .margin_top(theme.px(if opts.compact { 4.0 } else { 10.0 }))
        .margin_right(theme.px(if opts.compact { 16.0 } else { 28.0 } + opts.extra_right))
        .margin_left(theme.px(if opts.compact { 2.0 } else { 8.0 }))
        .margin_bottom(theme.px(if opts.compact { 2.0 } else { 6.0 }))
        .x_label_area_size(x_area)
        .y_label_area_size(y_area);
    if let Some(caption) = opts.caption {
        let style = if opts.compact || theme.paper {
            theme.panel_title()
        } else {
            theme.title()
        };
        builder.caption(caption, style);
    }
    let mut chart = builder
        .build_cartesian_2d(x.spec(), y.spec())
        .map_err(draw_err)?;
    let xf = |c: &f64| x.label(*c);
    let yf = |c: &f64| y.label(*c);
    let mut mesh = chart.configure_mesh();
    mesh.x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(tick.clone())
        .axis_desc_style(theme.axis_title())
        .bold_line_style(theme.grid())
        .light_line_style(tint(super::style::GRID, 0.45).stroke_width(1))
        .axis_style(theme.axis())
        .set_all_tick_mark_size(theme.px(4.0));
    if !x.title.is_empty() {
        mesh.x_desc(x.title.as_str());
    }
    if !y.title.is_empty() {
        mesh.y_desc(y.title.as_str());
    }
    if !x.grid {
        mesh.disable_x_mesh();
    }
    if !y.grid {
        mesh.disable_y_mesh();
    }
    mesh.draw().map_err(draw_err)?;
    Ok(chart)
}

/// Draw `note` (muted; `\n` separates lines) along the bottom of `root`
/// and return the area above it for the chart. Paper style keeps it for
/// the caption instead.
pub fn with_note<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    theme: &Theme,
    note: &str,
) -> Result<DrawingArea<DB, Shift>> {
    if note.is_empty() || !theme.draws_or_keeps(&note.replace('\n', " ")) {
        return Ok(root.clone());
    }
    let lines: Vec<&str> = note.lines().collect();
    let (_, h) = root.dim_in_pixel();
    let line_h = theme.px(17.0);
    let strip = line_h * i32::try_from(lines.len()).unwrap_or(1) + theme.px(8.0);
    let (upper, lower) = root.split_vertically(i32::try_from(h).unwrap_or(i32::MAX) - strip);
    let style = theme.note().pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Left,
        plotters::style::text_anchor::VPos::Center,
    ));
    for (i, l) in lines.iter().enumerate() {
        let y = line_h / 2 + line_h * i32::try_from(i).unwrap_or(0);
        lower
            .draw(&Text::new(
                (*l).to_string(),
                (theme.px(12.0), y),
                style.clone(),
            ))
            .map_err(draw_err)?;
    }
    Ok(upper)
}

/// Draw a figure title centred at the top of `root` and return the area
/// below it. Paper style keeps it for the caption instead.
pub fn with_title<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    theme: &Theme,
    title: &str,
) -> Result<DrawingArea<DB, Shift>> {
    if !theme.draws_or_keeps(title) {
        return Ok(root.clone());
    }
    let (w, _) = root.dim_in_pixel();
    let band = theme.px(36.0);
    let (upper, lower) = root.split_vertically(band);
    let style = theme.title().pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Center,
    ));
    upper
        .draw(&Text::new(
            title.to_string(),
            (i32::try_from(w / 2).unwrap_or(0), band / 2),
            style,
        ))
        .map_err(draw_err)?;
    Ok(lower)
}

/// Rows and columns for `n` panels on a `w` × `h` area: the shape whose
/// panels come closest to a 1.6 : 1 aspect ratio.
pub fn grid_shape(n: usize, w: u32, h: u32) -> (usize, usize) {
    let n = n.max(1);
    (1..=n)
        .map(|cols| {
            let rows = n.div_ceil(cols);
            let aspect = (f64::from(w) / cols as f64) / (f64::from(h) / rows as f64);
            let waste = (rows * cols - n) as f64;
            ((aspect / 1.6).ln().abs() + 0.15 * waste, rows, cols)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or((1, 1), |(_, r, c)| (r, c))
}

/// Reserve strips for shared axis titles (x along the bottom, y along the
/// left, rotated) around small multiples; returns the inner area.
pub fn with_shared_titles<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    theme: &Theme,
    x_title: &str,
    y_title: &str,
) -> Result<DrawingArea<DB, Shift>> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let strip = theme.px(28.0);
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (i32::try_from(w).unwrap_or(0), i32::try_from(h).unwrap_or(0));
    let (upper, bottom) = area.split_vertically(h - strip);
    let (left, inner) = upper.split_horizontally(strip);
    let centre = theme.axis_title().pos(Pos::new(HPos::Center, VPos::Center));
    bottom
        .draw(&Text::new(
            x_title.to_string(),
            (strip + (w - strip) / 2, strip / 2),
            centre.clone(),
        ))
        .map_err(draw_err)?;
    left.draw(&Text::new(
        y_title.to_string(),
        (strip / 2, (h - strip) / 2),
        centre.transform(FontTransform::Rotate270),
    ))
    .map_err(draw_err)?;
    Ok(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_stay_near_landscape_panels() {
        assert_eq!(grid_shape(1, 1000, 640), (1, 1));
        assert_eq!(grid_shape(16, 1000, 640), (4, 4));
        assert_eq!(grid_shape(3, 1000, 640), (2, 2));
        let (r, c) = grid_shape(7, 1000, 640);
        assert!(r * c >= 7 && r * c < 10, "{r} × {c}");
    }
}
