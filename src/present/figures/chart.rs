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

    /// Major ticks (chart coordinate, label) and light grid positions.
    fn ticks(&self) -> (Vec<(f64, String)>, Vec<f64>) {
        match &self.ticks {
            Some(t) => (t.clone(), Vec::new()),
            None => {
                let (major, minor) = self.axis.ticks();
                let labelled = major.iter().map(|&c| (c, self.axis.label(c))).collect();
                (labelled, minor)
            }
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
    /// Lines the caption takes at least (panels side by side keep their
    /// plots level when their captions wrap differently).
    pub caption_lines: usize,
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

/// The height of a line of text in `style`, pixels (plotters' size of a
/// font is its line height).
pub fn line_height(style: &TextStyle<'_>) -> i32 {
    style.font.get_size().ceil() as i32
}

/// `text` broken at spaces into lines no wider than `max` pixels in
/// `style` (a word wider than `max` keeps a line of its own).
pub fn wrap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle<'_>,
    max: i32,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        match lines.last_mut() {
            Some(line) if text_width(area, &format!("{line} {word}"), style) <= max => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The first of `candidates` no wider than `max` pixels in `style` (the
/// last when none is): a label with a shorter form for narrow charts.
pub fn fitting<'s, DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    candidates: &[&'s str],
    style: &TextStyle<'_>,
    max: i32,
) -> &'s str {
    candidates
        .iter()
        .find(|c| text_width(area, c, style) <= max)
        .or(candidates.last())
        .copied()
        .unwrap_or("")
}

/// The ticks of `ticks` (sorted by position) kept so that no two labels
/// collide: every `k`-th from the first, the smallest `k` whose labels
/// keep `gap` pixels apart, where a label at `c` spans `extent(label)`
/// pixels around `to_px(c)`. The dropped ticks become light grid lines.
fn thinned(
    ticks: Vec<(f64, String)>,
    minor: Vec<f64>,
    to_px: impl Fn(f64) -> f64,
    extent: impl Fn(&str) -> f64,
    gap: f64,
) -> (Vec<(f64, String)>, Vec<f64>) {
    let n = ticks.len();
    let fits = |k: usize| {
        let kept: Vec<&(f64, String)> = ticks.iter().step_by(k).collect();
        kept.windows(2).all(|w| {
            (to_px(w[1].0) - to_px(w[0].0)).abs() >= (extent(&w[0].1) + extent(&w[1].1)) / 2.0 + gap
        })
    };
    let k = (1..n.max(1)).find(|&k| fits(k)).unwrap_or(n.max(1));
    if k == 1 {
        return (ticks, minor);
    }
    let mut light = minor;
    let mut kept = Vec::new();
    for (i, t) in ticks.into_iter().enumerate() {
        if i % k == 0 {
            kept.push(t);
        } else {
            light.push(t.0);
        }
    }
    light.sort_by(f64::total_cmp);
    (kept, light)
}

/// The lines `caption` takes above a chart [`frame`] draws on `area`.
pub fn caption_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    theme: &Theme,
    compact: bool,
) -> Vec<String> {
    let style = if compact || theme.paper {
        theme.panel_title()
    } else {
        theme.title()
    };
    let (w, _) = area.dim_in_pixel();
    wrap(
        area,
        caption,
        &style,
        i32::try_from(w).unwrap_or(i32::MAX) - theme.px(4.0),
    )
}

/// Draw `title` (an axis title, wrapped to `[x0, x1)`) centred under
/// `[x0, x1)` along the bottom of `area`, and return the area above it:
/// the one x-axis title of charts side by side.
pub fn with_x_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    theme: &Theme,
    title: &str,
    (x0, x1): (i32, i32),
) -> Result<DrawingArea<DB, Shift>> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let style = theme.axis_title();
    let line = theme.px(17.0).max(line_height(&style));
    let lines = wrap(area, title, &style, x1 - x0);
    let (_, h) = area.dim_in_pixel();
    let h = i32::try_from(h).unwrap_or(i32::MAX);
    let n = i32::try_from(lines.len()).unwrap_or(1);
    let strip = line * n + theme.px(6.0);
    let (upper, bottom) = area.split_vertically(h - strip);
    for (i, l) in lines.iter().enumerate() {
        bottom
            .draw(&Text::new(
                l.clone(),
                (
                    (x0 + x1) / 2,
                    line * i32::try_from(i).unwrap_or(0) + line / 2,
                ),
                style.pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(draw_err)?;
    }
    Ok(upper)
}

/// The gap between tick labels and the axis title of a [`frame`], pixels.
fn label_gap(theme: &Theme, opts: FrameOptions<'_>) -> i32 {
    theme.px(if opts.compact { 6.0 } else { 10.0 })
}

/// The left and right margins of a [`frame`], pixels.
fn side_margins(theme: &Theme, opts: FrameOptions<'_>) -> (i32, i32) {
    (
        theme.px(if opts.compact { 2.0 } else { 8.0 }),
        theme.px(if opts.compact { 16.0 } else { 28.0 } + opts.extra_right),
    )
}

/// The width in pixels of the plot a [`frame`] draws on an area `width`
/// pixels wide when its widest y tick label is `widest_y_tick` pixels
/// wide and its y axis has no title: what a figure needs to know to give
/// its labels room before it draws the frame.
pub fn plot_width(width: i32, theme: &Theme, widest_y_tick: i32, opts: FrameOptions<'_>) -> i32 {
    let (left, right) = side_margins(theme, opts);
    width - left - right - widest_y_tick - label_gap(theme, opts)
}

/// Build and draw the frame (axes, ticks, grid, titles) of a chart on
/// `area`; the caller draws the data on the returned chart. The caption
/// and the axis titles are wrapped to the room they have, and tick labels
/// that would collide are thinned out, so that no text of the frame
/// overlaps another at any size.
pub fn frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    theme: &Theme,
    x: &AxisSpec,
    y: &AxisSpec,
    opts: FrameOptions<'_>,
) -> Result<Chart<'a, DB>> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let tick = if opts.compact {
        theme.small_tick()
    } else {
        theme.tick()
    };
    let tick_h = theme
        .px(if opts.compact { 12.0 } else { 14.0 })
        .max(line_height(&tick));
    let axis_title = theme.axis_title();
    let title_h = theme.px(17.0).max(line_height(&axis_title));
    let gap = label_gap(theme, opts);
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (
        i32::try_from(w).unwrap_or(i32::MAX),
        i32::try_from(h).unwrap_or(i32::MAX),
    );
    // Half a tick label sticks out above the plot and right of it.
    let margin_top = theme
        .px(if opts.compact { 4.0 } else { 10.0 })
        .max(tick_h / 2 + 1);
    let (margin_left, margin_right) = side_margins(theme, opts);
    let margin_bottom = theme.px(if opts.compact { 2.0 } else { 6.0 });
    let caption_style = if opts.compact || theme.paper {
        theme.panel_title()
    } else {
        theme.title()
    };
    let caption = opts
        .caption
        .map(|c| caption_lines(area, c, theme, opts.compact))
        .unwrap_or_default();
    let caption_line = line_height(&caption_style);
    // Room above the first line for its ascenders.
    let caption_pad = caption_line / 8 + 1;
    let caption_n = caption.len().max(opts.caption_lines);
    let caption_h = if caption_n == 0 {
        0
    } else {
        caption_pad + caption_line * i32::try_from(caption_n).unwrap_or(1) + theme.px(4.0)
    };
    let (x_ticks, x_minor) = x.ticks();
    let (y_ticks, y_minor) = y.ticks();
    let widest = y_ticks
        .iter()
        .map(|(_, l)| text_width(area, l, &tick))
        .max()
        .unwrap_or(0);
    let lines = |n: usize| i32::try_from(n).unwrap_or(1);
    // Label areas: ticks, then the title's lines.
    let areas = |x_lines: usize, y_lines: usize| {
        let title = |n: usize| {
            if n == 0 { 0 } else { title_h * lines(n) + gap }
        };
        (tick_h + gap + title(x_lines), widest + gap + title(y_lines))
    };
    // The titles wrap to the plot's size, which depends on their lines:
    // two rounds settle it.
    let (mut x_title, mut y_title) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let (x_area, y_area) = areas(x_title.len(), y_title.len());
        let plot_w = w - margin_left - margin_right - y_area;
        let plot_h = h - caption_h - margin_top - margin_bottom - x_area;
        x_title = if x.title.is_empty() {
            Vec::new()
        } else {
            wrap(area, &x.title, &axis_title, plot_w.max(1))
        };
        y_title = if y.title.is_empty() {
            Vec::new()
        } else {
            wrap(area, &y.title, &axis_title, plot_h.max(1))
        };
    }
    let (x_area, y_area) = areas(x_title.len(), y_title.len());
    let plot_w = f64::from((w - margin_left - margin_right - y_area).max(1));
    let plot_h = f64::from((h - caption_h - margin_top - margin_bottom - x_area).max(1));
    let along = |axis: &AxisSpec, len: f64| {
        let r = axis.axis.range();
        let span = if r.end > r.start {
            r.end - r.start
        } else {
            1.0
        };
        move |c: f64| (c - r.start) / span * len
    };
    let (x_ticks, x_minor) = thinned(
        x_ticks,
        x_minor,
        along(x, plot_w),
        |l| f64::from(text_width(area, l, &tick)),
        f64::from(theme.px(6.0)),
    );
    let (y_ticks, y_minor) = thinned(
        y_ticks,
        y_minor,
        along(y, plot_h),
        |_| f64::from(tick_h),
        f64::from(theme.px(1.0)),
    );
    let (top, body) = area.split_vertically(caption_h);
    let centred = |s: TextStyle<'static>| s.pos(Pos::new(HPos::Center, VPos::Center));
    for (i, line) in caption.iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (
                w / 2,
                caption_pad + caption_line * lines(i) + caption_line / 2,
            ),
            centred(caption_style.clone()),
        ))
        .map_err(draw_err)?;
    }
    let mut builder = ChartBuilder::on(&body);
    builder
        .margin_top(margin_top)
        .margin_right(margin_right)
        .margin_left(margin_left)
        .margin_bottom(margin_bottom)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area);
    let x_spec = Ticked::new(
        x.axis.range(),
        x_ticks.iter().map(|t| t.0).collect(),
        x_minor,
    );
    let y_spec = Ticked::new(
        y.axis.range(),
        y_ticks.iter().map(|t| t.0).collect(),
        y_minor,
    );
    let mut chart = builder
        .build_cartesian_2d(x_spec, y_spec)
        .map_err(draw_err)?;
    let xf = |c: &f64| x.label(*c);
    let yf = |c: &f64| y.label(*c);
    let mut mesh = chart.configure_mesh();
    mesh.x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(tick.clone())
        .bold_line_style(theme.grid())
        .light_line_style(tint(super::style::GRID, 0.45).stroke_width(1))
        .axis_style(theme.axis())
        .set_all_tick_mark_size(theme.px(4.0));
    if !x.grid {
        mesh.disable_x_mesh();
    }
    if !y.grid {
        mesh.disable_y_mesh();
    }
    mesh.draw().map_err(draw_err)?;
    // The axis titles, along the outer edges of the label areas.
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (bx, by) = body.get_base_pixel();
    let (_, bh) = body.dim_in_pixel();
    let bh = i32::try_from(bh).unwrap_or(i32::MAX);
    let x_mid = (xr.start + xr.end) / 2 - bx;
    let y_mid = (yr.start + yr.end) / 2 - by;
    let n = lines(x_title.len());
    for (i, line) in x_title.iter().enumerate() {
        let cy = bh - margin_bottom - title_h * (n - lines(i)) + title_h / 2;
        body.draw(&Text::new(
            line.clone(),
            (x_mid, cy),
            centred(axis_title.clone()),
        ))
        .map_err(draw_err)?;
    }
    for (i, line) in y_title.iter().enumerate() {
        let cx = margin_left + title_h * lines(i) + title_h / 2;
        body.draw(&Text::new(
            line.clone(),
            (cx, y_mid),
            centred(axis_title.clone()).transform(FontTransform::Rotate270),
        ))
        .map_err(draw_err)?;
    }
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
