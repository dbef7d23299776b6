//! Marks drawn on a chart in chart coordinates: styled lines (solid or
//! dashed), markers, shaded bands, step functions and anchored text.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::canvas::draw_err;
use super::chart::{Chart, line_height, text_width};
use super::style::{Marker, SeriesStyle, Theme};
use crate::core::error::Result;

/// A polyline through `pts` in the series' colour and dash pattern.
pub fn line<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    pts: &[(f64, f64)],
    s: &SeriesStyle,
    theme: &Theme,
) -> Result<()> {
    if pts.len() < 2 {
        return Ok(());
    }
    let style = theme.line(s);
    match theme.dash_px(s.dash) {
        None => chart
            .draw_series(std::iter::once(PathElement::new(pts.to_vec(), style)))
            .map_err(draw_err)?,
        Some((on, off)) => chart
            .draw_series(std::iter::once(DashedPathElement::new(
                pts.to_vec(),
                on,
                off,
                style,
            )))
            .map_err(draw_err)?,
    };
    Ok(())
}

/// A plain line (reference lines, whiskers) in `style`, dashed when
/// `dash` is given (pixels on, off).
pub fn plain_line<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    pts: &[(f64, f64)],
    style: ShapeStyle,
    dash: Option<(i32, i32)>,
) -> Result<()> {
    match dash {
        None => chart
            .draw_series(std::iter::once(PathElement::new(pts.to_vec(), style)))
            .map_err(draw_err)?,
        Some((on, off)) => chart
            .draw_series(std::iter::once(DashedPathElement::new(
                pts.to_vec(),
                on,
                off,
                style,
            )))
            .map_err(draw_err)?,
    };
    Ok(())
}

/// The series' marker centred on `c` (any coordinate type: chart
/// coordinates on a chart, pixels on a drawing area).
pub fn marker_element<'a, DB: DrawingBackend + 'a, C: Clone + 'a>(
    c: C,
    s: &SeriesStyle,
    theme: &Theme,
) -> DynElement<'a, DB, C> {
    let r = theme.marker_size();
    let fill = s.color.filled();
    match s.marker {
        Marker::Circle => (EmptyElement::at(c) + Circle::new((0, 0), r, fill)).into_dyn(),
        Marker::Square => {
            let h = (f64::from(r) * 0.85).round() as i32;
            (EmptyElement::at(c) + Rectangle::new([(-h, -h), (h, h)], fill)).into_dyn()
        }
        Marker::Triangle => {
            let h = r + 1;
            (EmptyElement::at(c) + Polygon::new(vec![(0, -h), (h, h - 1), (-h, h - 1)], fill))
                .into_dyn()
        }
        Marker::Diamond => {
            let h = r + 1;
            (EmptyElement::at(c) + Polygon::new(vec![(0, -h), (h, 0), (0, h), (-h, 0)], fill))
                .into_dyn()
        }
        Marker::Cross => {
            let st = s.color.stroke_width(theme.upx(2.2));
            (EmptyElement::at(c)
                + PathElement::new(vec![(-r, -r), (r, r)], st)
                + PathElement::new(vec![(-r, r), (r, -r)], st))
            .into_dyn()
        }
    }
}

/// The series' marker at each of `pts`.
pub fn markers<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    pts: &[(f64, f64)],
    s: &SeriesStyle,
    theme: &Theme,
) -> Result<()> {
    let area = chart.plotting_area();
    for &c in pts {
        area.draw(&marker_element(c, s, theme)).map_err(draw_err)?;
    }
    Ok(())
}

/// A filled band between `upper` and `lower` (same x values, ascending).
pub fn band<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    upper: &[(f64, f64)],
    lower: &[(f64, f64)],
    fill: ShapeStyle,
) -> Result<()> {
    if upper.len() < 2 {
        return Ok(());
    }
    let mut poly: Vec<(f64, f64)> = upper.to_vec();
    poly.extend(lower.iter().rev().copied());
    chart
        .draw_series(std::iter::once(Polygon::new(poly, fill)))
        .map_err(draw_err)?;
    Ok(())
}

/// A step function through `pts` (each value holds until the next x),
/// extended to `end` when given.
pub fn steps(pts: &[(f64, f64)], end: Option<f64>) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(pts.len() * 2 + 1);
    for (i, &(x, y)) in pts.iter().enumerate() {
        if i > 0 {
            out.push((x, pts[i - 1].1));
        }
        out.push((x, y));
    }
    if let (Some(end), Some(&(x, y))) = (end, pts.last())
        && end > x
    {
        out.push((end, y));
    }
    out
}

/// Text at chart coordinate `at`, anchored by `h` and `v`.
pub fn text<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    s: &str,
    at: (f64, f64),
    style: &TextStyle<'_>,
    h: HPos,
    v: VPos,
) -> Result<()> {
    let style = style.pos(Pos::new(h, v));
    chart
        .draw_series(std::iter::once(Text::new(s.to_string(), at, style)))
        .map_err(draw_err)?;
    Ok(())
}

/// Pixel positions along the polyline `pts` (chart coordinates), at least
/// every `step` pixels: what a legend must not cover.
pub fn trace_pixels<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    pts: &[(f64, f64)],
    step: i32,
) -> Vec<(i32, i32)> {
    let px: Vec<(i32, i32)> = pts.iter().map(|p| chart.backend_coord(p)).collect();
    let mut out = Vec::with_capacity(px.len());
    for w in px.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        let len = (x1 - x0).abs().max((y1 - y0).abs());
        let n = (len / step.max(1)).max(1);
        for k in 0..n {
            out.push((x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n));
        }
    }
    if let Some(&last) = px.last() {
        out.push(last);
    }
    out
}

/// The room (pixels) a column of `labels` under `header` takes right of a
/// plot ([`margin_labels`]): the widest, and the gap before it.
pub fn labels_width<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    theme: &Theme,
    labels: &[String],
    header: &str,
    style: &TextStyle<'_>,
) -> i32 {
    label_gap(theme)
        + labels
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(header))
            .map(|l| text_width(root, l, style))
            .max()
            .unwrap_or(0)
}

/// The gap between a plot's right edge and labels right of it: clear of a
/// marker centred on the edge.
fn label_gap(theme: &Theme) -> i32 {
    theme.marker_size() + theme.px(3.0)
}

/// Label horizontal reference lines right of the plot `plot` (pixel
/// ranges), outside it, so that no label lies on a curve: `labels[i]` at
/// pixel height `ys[i]`, under `header`. Labels closer than a line of
/// text are pushed apart downwards, keeping their order, and the column
/// is moved up when that takes it below the plot. The frame must leave
/// [`labels_width`] of room right of the plot (`FrameOptions::extra_right`).
pub fn margin_labels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    theme: &Theme,
    plot: &(std::ops::Range<i32>, std::ops::Range<i32>),
    labels: &[String],
    ys: &[i32],
    header: &str,
) -> Result<()> {
    if labels.is_empty() {
        return Ok(());
    }
    let style = theme.note();
    let step = theme.px(15.0).max(line_height(&style));
    let mut order: Vec<usize> = (0..labels.len().min(ys.len())).collect();
    order.sort_by_key(|&i| ys[i]);
    let mut at: Vec<i32> = Vec::with_capacity(order.len());
    for &i in &order {
        // The header takes the line above the first label.
        let lowest = at.last().map_or(plot.1.start + step, |&p| p + step);
        at.push(ys[i].max(lowest));
    }
    let excess = at.last().map_or(0, |&p| p - plot.1.end);
    if excess > 0 {
        let room = at.first().map_or(0, |&p| p - step - step / 2);
        let shift = excess.min(room.max(0));
        for p in &mut at {
            *p -= shift;
        }
    }
    let x = plot.0.end + label_gap(theme);
    let left = style.pos(Pos::new(HPos::Left, VPos::Center));
    let draw = |s: &str, y: i32| {
        root.draw(&Text::new(s.to_string(), (x, y), left.clone()))
            .map_err(draw_err)
    };
    if let Some(&first) = at.first() {
        draw(header, first - step)?;
    }
    for (&i, &y) in order.iter().zip(&at) {
        draw(&labels[i], y)?;
    }
    Ok(())
}
