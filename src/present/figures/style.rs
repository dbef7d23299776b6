//! The one place that owns how figures look: the bundled font, the
//! palette, line dashes and markers, text sizes and stroke widths.
//!
//! The font is DejaVu Sans (`assets/fonts/`, Bitstream Vera licence),
//! compiled into the binary and registered once with plotters' `ab_glyph`
//! renderer as the `sans-serif` family, so PNGs render the same on a
//! machine with no font library at all. SVGs (screen and paper style)
//! embed the glyphs they use (`embedded_font`), PDFs embed the font
//! (svg2pdf, [`FONT`]).
//!
//! Policies keep one [`SeriesStyle`] across every figure of a results
//! folder: a colour from a colour-blind-safe palette (Okabe–Ito, without
//! its yellow), and, so that the figures stay readable in grayscale, a dash
//! pattern and a marker that change with the policy's index too.

use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use crate::core::error::{Error, Result};

/// DejaVu Sans, the only font the figures use.
pub static FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// The font family every text of every figure uses.
pub const FAMILY: &str = "sans-serif";

/// Register the bundled font (once per process).
pub fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok {
        Ok(())
    } else {
        Err(Error::input(
            "cannot load the bundled font assets/fonts/DejaVuSans.ttf",
        ))
    }
}

/// Palette: Okabe & Ito's colour-blind-safe colours (yellow dropped: too
/// light on white), ordered so neighbours differ in lightness too.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x66, 0x66, 0x66), // gray
];

/// Ink for text, axes and reference lines.
pub const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
/// Muted ink for notes and reference lines.
pub const MUTED: RGBColor = RGBColor(0x70, 0x70, 0x70);
/// Grid lines.
pub const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);

/// How a line is stroked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    /// Continuous.
    Solid,
    /// Dashes and gaps of the given lengths (before scaling), pixels.
    Dashed(u32, u32),
}

/// Dash patterns, cycled by policy index.
pub const DASHES: [Dash; 4] = [
    Dash::Solid,
    Dash::Dashed(12, 6),
    Dash::Dashed(3, 5),
    Dash::Dashed(22, 6),
];

/// Marker shapes, cycled by policy index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// Filled circle.
    Circle,
    /// Filled square.
    Square,
    /// Filled triangle pointing up.
    Triangle,
    /// Filled diamond.
    Diamond,
    /// An ×.
    Cross,
}

/// Marker shapes in the order policies get them.
pub const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::Cross,
];

/// The look of one series (one policy).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeriesStyle {
    /// Line and fill colour.
    pub color: RGBColor,
    /// Stroke pattern.
    pub dash: Dash,
    /// Marker shape.
    pub marker: Marker,
}

/// The style of the series with index `i` (policy order of the results).
pub fn series(i: usize) -> SeriesStyle {
    SeriesStyle {
        color: PALETTE[i % PALETTE.len()],
        dash: DASHES[i % DASHES.len()],
        marker: MARKERS[i % MARKERS.len()],
    }
}

/// Sizes of one canvas: every length of a figure is a base length (for a
/// 1000 × 640 canvas) times [`Theme::scale`], so text and lines keep their
/// proportions at any requested size ([`Style::Screen`]). In
/// [`Style::Paper`] the canvas is measured in [`UNITS_PER_PT`] units per
/// point, lengths do not grow with the canvas and the text has fixed sizes
/// in points ([`PAPER_PT`]); titles and notes are not drawn but collected
/// as the figure's caption.
#[derive(Debug, Clone, Default)]
pub struct Theme {
    /// Factor applied to every base length.
    pub scale: f64,
    /// Paper style: text in points, no title or note.
    pub paper: bool,
    /// The title and notes a paper figure leaves out, in drawing order.
    pub caption: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
}

/// How a figure is laid out: for a screen (fonts and lines scale with the
/// canvas, title and notes drawn) or for a paper (physical size, fonts in
/// points, caption text beside the figure).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Style {
    /// Sized in pixels; everything scales with the canvas.
    #[default]
    Screen,
    /// Sized in inches or points; fonts fixed in points, no title.
    Paper,
}

impl crate::core::choice::Choice for Style {
    const ALL: &'static [Self] = &[Self::Screen, Self::Paper];

    fn name(self) -> &'static str {
        match self {
            Self::Screen => "screen",
            Self::Paper => "paper",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Screen => "pixels, text scaled with the canvas, titles and notes drawn",
            Self::Paper => {
                "inches or points (default 3.33in x 2.2in), 8 pt labels and 7 pt ticks at any \
                 size, no title: captions go to captions.md"
            }
        }
    }
}

/// Canvas units per point in paper style (PNG: 288 dpi).
pub const UNITS_PER_PT: f64 = 4.0;

/// Paper text sizes in points: axis labels, ticks, small-panel ticks,
/// panel titles, legend, annotations (values on bars, line labels).
pub const PAPER_PT: PaperFonts = PaperFonts {
    axis_title: 8.0,
    tick: 7.0,
    small_tick: 6.0,
    panel_title: 7.5,
    legend: 7.0,
    annotation: 6.5,
};

/// Text sizes of the paper style, points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperFonts {
    /// Axis titles.
    pub axis_title: f64,
    /// Tick labels.
    pub tick: f64,
    /// Tick labels of small panels.
    pub small_tick: f64,
    /// Panel titles of small multiples.
    pub panel_title: f64,
    /// Legend entries.
    pub legend: f64,
    /// Values on bars, labels of reference lines.
    pub annotation: f64,
}

/// plotters sizes text by its line height, 1.24 em (both the bitmap and the
/// SVG backend divide by it): the size to ask for to get `em` units.
const PLOTTERS_EM: f64 = 1.24;

impl Theme {
    /// The theme of a `width` × `height` canvas.
    pub fn for_size(width: u32, height: u32) -> Self {
        let s = (f64::from(width) / 1000.0).min(f64::from(height) / 640.0);
        Self {
            scale: s.clamp(0.25, 16.0),
            ..Self::default()
        }
    }

    /// The paper theme at `units_per_pt` canvas units per point (the PNG
    /// supersampling draws at a multiple of [`UNITS_PER_PT`]).
    pub fn paper(units_per_pt: f64) -> Self {
        // Base lengths were designed around 14 px ticks; paper ticks are
        // 7 pt: one base pixel is half a point.
        Self {
            scale: 0.5 * units_per_pt,
            paper: true,
            caption: Default::default(),
        }
    }

    /// The theme of `style` for a canvas of `size` units.
    pub fn new(style: Style, size: (u32, u32), supersample: u32) -> Self {
        match style {
            Style::Screen => Self::for_size(size.0, size.1),
            Style::Paper => Self::paper(UNITS_PER_PT * f64::from(supersample)),
        }
    }

    /// Keep `text` for the caption (paper style); true when it is to be
    /// drawn instead (screen style).
    pub fn draws_or_keeps(&self, text: &str) -> bool {
        if self.paper {
            if !text.is_empty() {
                self.caption.borrow_mut().push(text.to_string());
            }
            false
        } else {
            true
        }
    }

    /// A base length in pixels at this scale (at least 1).
    pub fn px(&self, base: f64) -> i32 {
        ((base * self.scale).round() as i32).max(1)
    }

    /// A base length as `u32`.
    pub fn upx(&self, base: f64) -> u32 {
        self.px(base).unsigned_abs()
    }

    fn font(&self, base: f64, paper_pt: f64, color: RGBColor) -> TextStyle<'static> {
        let size = if self.paper {
            paper_pt * (self.scale / 0.5) * PLOTTERS_EM
        } else {
            f64::from(self.px(base))
        };
        (FAMILY, size).into_font().color(&color)
    }

    /// Figure titles (not drawn in paper style).
    pub fn title(&self) -> TextStyle<'static> {
        self.font(21.0, 10.0, INK)
    }

    /// Panel titles of small-multiple figures.
    pub fn panel_title(&self) -> TextStyle<'static> {
        self.font(15.0, PAPER_PT.panel_title, INK)
    }

    /// Axis titles.
    pub fn axis_title(&self) -> TextStyle<'static> {
        self.font(17.0, PAPER_PT.axis_title, INK)
    }

    /// Tick labels.
    pub fn tick(&self) -> TextStyle<'static> {
        self.font(14.0, PAPER_PT.tick, INK)
    }

    /// Tick labels of small panels.
    pub fn small_tick(&self) -> TextStyle<'static> {
        self.font(12.0, PAPER_PT.small_tick, INK)
    }

    /// Legend entries.
    pub fn legend(&self) -> TextStyle<'static> {
        self.font(14.0, PAPER_PT.legend, INK)
    }

    /// Values printed on bars and other annotations.
    pub fn annotation(&self) -> TextStyle<'static> {
        self.font(13.0, PAPER_PT.annotation, INK)
    }

    /// Notes under a figure and labels of reference lines.
    pub fn note(&self) -> TextStyle<'static> {
        self.font(12.5, PAPER_PT.annotation, MUTED)
    }

    /// Width of data lines.
    pub fn line_width(&self) -> u32 {
        self.upx(2.2)
    }

    /// Radius of markers.
    pub fn marker_size(&self) -> i32 {
        self.px(4.5)
    }

    /// The stroke of a series' data line.
    pub fn line(&self, s: &SeriesStyle) -> ShapeStyle {
        s.color.stroke_width(self.line_width())
    }

    /// A dash pattern in pixels at this scale (dash, gap).
    pub fn dash_px(&self, d: Dash) -> Option<(i32, i32)> {
        match d {
            Dash::Solid => None,
            Dash::Dashed(on, off) => Some((self.px(f64::from(on)), self.px(f64::from(off)))),
        }
    }

    /// Reference lines (θ, speedup 1, ...).
    pub fn reference(&self) -> ShapeStyle {
        MUTED.stroke_width(self.upx(1.3))
    }

    /// Grid lines.
    pub fn grid(&self) -> ShapeStyle {
        GRID.stroke_width(1)
    }

    /// Axis lines.
    pub fn axis(&self) -> ShapeStyle {
        INK.stroke_width(self.upx(1.0))
    }
}

/// `c` blended towards white by `1 − alpha` (an opaque colour, so bands
/// look the same in PNG and SVG and overlap without muddying).
pub fn tint(c: RGBColor, alpha: f64) -> RGBColor {
    let mix = |v: u8| (f64::from(v) * alpha + 255.0 * (1.0 - alpha)).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative luminance (sRGB weights) in 0..=255.
    fn gray(c: RGBColor) -> f64 {
        0.2126 * f64::from(c.0) + 0.7152 * f64::from(c.1) + 0.0722 * f64::from(c.2)
    }

    #[test]
    fn series_that_share_a_gray_level_differ_in_dash_or_marker() {
        for i in 0..16 {
            for j in (i + 1)..16 {
                let (a, b) = (series(i), series(j));
                if (gray(a.color) - gray(b.color)).abs() < 25.0 {
                    assert!(
                        a.dash != b.dash || a.marker != b.marker,
                        "series {i} and {j} look alike in grayscale"
                    );
                }
            }
        }
    }

    #[test]
    fn the_font_registers() {
        assert!(ensure_font().is_ok());
        assert!(ensure_font().is_ok(), "a second call is a no-op");
    }

    #[test]
    fn theme_scales_with_the_canvas() {
        assert_eq!(Theme::for_size(1000, 640).px(10.0), 10);
        assert_eq!(Theme::for_size(2000, 1280).px(10.0), 20);
        assert_eq!(Theme::for_size(100, 100).scale, 0.25);
    }
}
