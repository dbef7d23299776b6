//! Figure sizes as a user gives them (`1000x640`, `3.33inx2.2in`,
//! `240ptx160pt`) and the paper presets, turned into a [`Canvas`].

use super::canvas::Canvas;
use super::style::{Style, UNITS_PER_PT};
use crate::core::choice::Choice;
use crate::core::error::{Error, Result};

/// A length with its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    /// Pixels (96 per inch when a physical size is needed).
    Px(f64),
    /// Points (72 per inch).
    Pt(f64),
}

impl Length {
    /// Parse `3.33in`, `240pt`, `1000px` or `1000` (pixels).
    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        let s = s.trim();
        let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
            Some(i) => (&s[..i], &s[i..]),
            None => (s, "px"),
        };
        let v: f64 = num
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("`{s}`: expected a positive number with in, pt or px"))?;
        match unit.to_ascii_lowercase().as_str() {
            "in" => Ok(Self::Pt(v * 72.0)),
            "pt" => Ok(Self::Pt(v)),
            "px" => Ok(Self::Px(v)),
            other => Err(format!("`{s}`: unknown unit `{other}` (in, pt or px)")),
        }
    }

    /// In points.
    pub fn pt(self) -> f64 {
        match self {
            Self::Px(v) => v * 0.75,
            Self::Pt(v) => v,
        }
    }

    /// In pixels.
    pub fn px(self) -> f64 {
        match self {
            Self::Px(v) => v,
            Self::Pt(v) => v / 0.75,
        }
    }
}

/// Parse `WIDTHxHEIGHT`, each a [`Length`].
pub fn parse_size(s: &str) -> std::result::Result<(Length, Length), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| {
        format!("expected WIDTHxHEIGHT, e.g. 1000x640 or 3.33inx2.2in, got `{s}`")
    })?;
    Ok((Length::parse(w)?, Length::parse(h)?))
}

/// The paper presets of `--style paper --width`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PaperWidth {
    /// One column of a two-column paper: 3.33 in × 2.2 in.
    #[default]
    Single,
    /// Across both columns: 7 in × 2.6 in.
    Double,
}

impl Choice for PaperWidth {
    const ALL: &'static [Self] = &[Self::Single, Self::Double];

    fn name(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Double => "double",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Single => "single column, 3.33in x 2.2in",
            Self::Double => "double column, 7in x 2.6in",
        }
    }
}

impl PaperWidth {
    /// Width and height in points.
    pub fn size_pt(self) -> (f64, f64) {
        match self {
            Self::Single => (3.33 * 72.0, 2.2 * 72.0),
            Self::Double => (7.0 * 72.0, 2.6 * 72.0),
        }
    }
}

/// Screen canvases: pixels from 200 to 4000 a side. Paper: 1 to 20
/// inches (72 to 1440 pt).
const SCREEN_PX: (f64, f64) = (200.0, 4000.0);
const PAPER_PT: (f64, f64) = (72.0, 1440.0);

/// The canvas of `style` at `size` (default: 1000 × 640 px on screen, the
/// `width` preset on paper). `--width` is a paper preset: with the screen
/// style, or together with `--size`, it is an error.
pub fn canvas_for(
    style: Style,
    size: Option<(Length, Length)>,
    width: Option<PaperWidth>,
) -> Result<Canvas> {
    match (style, size, width) {
        (Style::Screen, _, Some(_)) => Err(Error::usage(
            "--width single|double is a paper preset: use it with --style paper",
        )),
        (_, Some(_), Some(_)) => Err(Error::usage("give either --size or --width, not both")),
        (Style::Screen, size, None) => {
            let (w, h) = size.map_or((1000.0, 640.0), |(w, h)| (w.px(), h.px()));
            let ok = |v: f64| (SCREEN_PX.0..=SCREEN_PX.1).contains(&v.round());
            if !ok(w) || !ok(h) {
                return Err(Error::usage(format!(
                    "--size: a screen figure is 200 to 4000 pixels a side, got {w} x {h}"
                )));
            }
            Ok(Canvas::screen(w.round() as u32, h.round() as u32))
        }
        (Style::Paper, size, width) => {
            let (w, h) = match size {
                Some((w, h)) => (w.pt(), h.pt()),
                None => width.unwrap_or_default().size_pt(),
            };
            let ok = |v: f64| (PAPER_PT.0..=PAPER_PT.1).contains(&v);
            if !ok(w) || !ok(h) {
                return Err(Error::usage(format!(
                    "--size: a paper figure is 1 to 20 inches (72 to 1440 pt) a side, got {w} x {h} pt"
                )));
            }
            Ok(Canvas {
                size: (
                    (w * UNITS_PER_PT).round() as u32,
                    (h * UNITS_PER_PT).round() as u32,
                ),
                style: Style::Paper,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_read_their_units() {
        assert_eq!(Length::parse("3.33in"), Ok(Length::Pt(3.33 * 72.0)));
        assert_eq!(Length::parse("240pt"), Ok(Length::Pt(240.0)));
        assert_eq!(Length::parse("1000"), Ok(Length::Px(1000.0)));
        assert_eq!(Length::parse("1000px"), Ok(Length::Px(1000.0)));
        assert!(Length::parse("3cm").is_err());
        assert!(Length::parse("-3in").is_err());
        assert!(parse_size("3.33in").is_err());
    }

    #[test]
    fn paper_presets_and_sizes_become_quarter_points() {
        let single = canvas_for(Style::Paper, None, None).expect("valid size");
        assert_eq!(single.size, (959, 634));
        let (w, h) = single.size_pt();
        assert!((w - 239.76).abs() < 0.5 && (h - 158.4).abs() < 0.5);
        let double = canvas_for(Style::Paper, None, Some(PaperWidth::Double)).expect("valid size");
        assert_eq!(double.size, (2016, 749));
        let pts = canvas_for(
            Style::Paper,
            Some((Length::Pt(240.0), Length::Pt(160.0))),
            None,
        )
        .expect("valid size");
        assert_eq!(pts.size, (960, 640));
        assert!(canvas_for(Style::Screen, None, Some(PaperWidth::Single)).is_err());
        assert!(
            canvas_for(
                Style::Paper,
                Some((Length::Pt(10.0), Length::Pt(10.0))),
                None
            )
            .is_err()
        );
        let screen = canvas_for(
            Style::Screen,
            Some((Length::Pt(240.0), Length::Px(400.0))),
            None,
        )
        .expect("valid size");
        assert_eq!(screen.size, (320, 400));
    }
}
