//! Turning a figure into files: the same drawing code runs on plotters'
//! bitmap backend (encoded to PNG with the `png` crate) and on its SVG
//! backend. Files are written atomically; nothing depends on the clock,
//! the thread count or the machine, so the bytes are reproducible.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{Theme, ensure_font};
use crate::core::choice::Choice;
use crate::core::error::{Error, Result};
use crate::core::io::write_atomic;

/// Which files a figure becomes (named as in [`Choice`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// PNG only.
    Png,
    /// SVG only.
    Svg,
    /// PNG and SVG.
    #[default]
    Both,
}

impl Choice for Format {
    const ALL: &'static [Self] = &[Self::Png, Self::Svg, Self::Both];

    fn name(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Svg => "svg",
            Self::Both => "both",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Png => "PNG only",
            Self::Svg => "SVG only",
            Self::Both => "PNG and SVG",
        }
    }
}

impl Format {
    fn png(self) -> bool {
        matches!(self, Self::Png | Self::Both)
    }
    fn svg(self) -> bool {
        matches!(self, Self::Svg | Self::Both)
    }
}

/// A figure: a file stem and a drawing that works on any backend.
pub trait Figure {
    /// File name without extension (`regret-curves`).
    fn stem(&self) -> String;
    /// Draw on `root` (already filled white).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, theme: &Theme) -> Result<()>;
}

/// A drawing failure as an error of ours.
pub fn draw_err<E: std::fmt::Display>(e: E) -> Error {
    Error::input(format!("cannot draw the figure: {e}"))
}

/// Render `fig` at `size` into `dir` in `format`; returns the paths written.
pub fn render<F: Figure>(
    fig: &F,
    dir: &Path,
    size: (u32, u32),
    format: Format,
) -> Result<Vec<PathBuf>> {
    ensure_font()?;
    let theme = Theme::for_size(size.0, size.1);
    let stem = fig.stem();
    let mut written = Vec::new();
    if format.png() {
        let bytes = png_bytes(fig, size, &theme).map_err(|e| e.context(format!("{stem}.png")))?;
        let path = dir.join(format!("{stem}.png"));
        write_atomic(&path, &bytes)?;
        written.push(path);
    }
    if format.svg() {
        let text = svg_text(fig, size, &theme).map_err(|e| e.context(format!("{stem}.svg")))?;
        let path = dir.join(format!("{stem}.svg"));
        write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// PNGs are drawn at this many times their size and averaged down: the
/// bitmap backend neither anti-aliases lines nor places small glyphs on
/// sub-pixel positions, and both look much better supersampled.
const SUPERSAMPLE: u32 = 2;

/// Average `k` × `k` blocks of the RGB image `src` (`w`·k × `h`·k).
/// Runs of white (most of a figure) are copied through without
/// arithmetic, which keeps this cheap in unoptimised builds too.
fn downsample(src: &[u8], w: usize, h: usize, k: usize) -> Vec<u8> {
    const RUN: usize = 16;
    let row_len = w * k * 3;
    let n = (k * k) as u32;
    let white = [255u8; RUN * 3 * 4];
    let mut out = Vec::with_capacity(w * h * 3);
    for block in src.chunks_exact(row_len * k).take(h) {
        let mut x = 0;
        while x < w {
            let len = RUN.min(w - x);
            let (a, b) = (x * k * 3, (x + len) * k * 3);
            let blank = (0..k).all(|r| {
                let row = &block[r * row_len..(r + 1) * row_len];
                row[a..b] == white[..b - a]
            });
            if blank {
                out.extend_from_slice(&white[..len * 3]);
            } else {
                for px in x..x + len {
                    let mut sum = [0u32; 3];
                    for r in 0..k {
                        let start = r * row_len + px * k * 3;
                        for sub in block[start..start + k * 3].chunks_exact(3) {
                            sum[0] += u32::from(sub[0]);
                            sum[1] += u32::from(sub[1]);
                            sum[2] += u32::from(sub[2]);
                        }
                    }
                    out.extend(sum.iter().map(|&s| ((s + n / 2) / n) as u8));
                }
            }
            x += len;
        }
    }
    out
}

fn png_bytes<F: Figure>(fig: &F, (w, h): (u32, u32), _theme: &Theme) -> Result<Vec<u8>> {
    // Very large canvases are drawn as they are (memory).
    let k = if u64::from(w) * u64::from(h) <= 6_000_000 {
        SUPERSAMPLE
    } else {
        1
    };
    let (bw, bh) = (w * k, h * k);
    let mut big = vec![255u8; bw as usize * bh as usize * 3];
    {
        let theme = Theme::for_size(bw, bh);
        let root = BitMapBackend::with_buffer(&mut big, (bw, bh)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        fig.draw(&root, &theme)?;
        root.present().map_err(draw_err)?;
    }
    let rgb = if k == 1 {
        big
    } else {
        downsample(&big, w as usize, h as usize, k as usize)
    };
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let encode_err = |e: png::EncodingError| Error::input(format!("cannot encode PNG: {e}"));
        let mut writer = enc.write_header().map_err(encode_err)?;
        writer.write_image_data(&rgb).map_err(encode_err)?;
        writer.finish().map_err(encode_err)?;
    }
    Ok(out)
}

fn svg_text<F: Figure>(fig: &F, size: (u32, u32), theme: &Theme) -> Result<String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        fig.draw(&root, theme)?;
        root.present().map_err(draw_err)?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downsampling_averages_blocks() {
        // 2 × 2 image of one black and three white pixels → one pixel.
        let src = [0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255];
        assert_eq!(downsample(&src, 1, 1, 2), vec![191, 191, 191]);
        // 40 × 2 output: white except one gray source pixel at (33, 1).
        let (w, h, k) = (40, 2, 2);
        let mut src = vec![255u8; w * k * h * k * 3];
        let at = ((k + 1) * w * k + 33 * k) * 3;
        src[at..at + 3].copy_from_slice(&[155, 155, 155]);
        let out = downsample(&src, w, h, k);
        assert_eq!(out.len(), w * h * 3);
        let gray = (w + 33) * 3;
        assert_eq!(out[gray..gray + 3], [230, 230, 230]);
        assert_eq!(out.iter().filter(|&&v| v != 255).count(), 3);
    }
}
