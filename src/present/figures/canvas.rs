//! Turning a figure into files: the same drawing code runs on plotters'
//! bitmap backend (encoded to PNG with the `png` crate) and on its SVG
//! backend; the SVG embeds the glyphs of the bundled font its text uses
//! (`embedded_font`); the PDF is the SVG converted by svg2pdf (vector, the
//! bundled font embedded as a subset, text extractable). Files are
//! written atomically; nothing depends on the clock, the thread count or
//! the machine, so the bytes are reproducible.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{FONT, Style, Theme, UNITS_PER_PT, ensure_font};
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
    /// PDF only.
    Pdf,
    /// PNG and SVG.
    #[default]
    Both,
    /// PNG, SVG and PDF.
    All,
}

impl Choice for Format {
    const ALL: &'static [Self] = &[Self::Png, Self::Svg, Self::Pdf, Self::Both, Self::All];

    fn name(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Svg => "svg",
            Self::Pdf => "pdf",
            Self::Both => "both",
            Self::All => "all",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Png => "PNG only",
            Self::Svg => "SVG only",
            Self::Pdf => "PDF only (vector, font embedded)",
            Self::Both => "PNG and SVG",
            Self::All => "PNG, SVG and PDF",
        }
    }
}

impl Format {
    fn png(self) -> bool {
        matches!(self, Self::Png | Self::Both | Self::All)
    }
    fn svg(self) -> bool {
        matches!(self, Self::Svg | Self::Both | Self::All)
    }
    fn pdf(self) -> bool {
        matches!(self, Self::Pdf | Self::All)
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

/// A canvas: its size in units (pixels in screen style, [`UNITS_PER_PT`]
/// per point in paper style) and the style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canvas {
    /// Width and height in canvas units.
    pub size: (u32, u32),
    /// Screen or paper.
    pub style: Style,
}

impl Canvas {
    /// A screen canvas of `w` × `h` pixels.
    pub fn screen(w: u32, h: u32) -> Self {
        Self {
            size: (w, h),
            style: Style::Screen,
        }
    }

    /// The physical size in points: a paper unit is 1/4 pt, a screen
    /// pixel 0.75 pt (96 per inch, as CSS and SVG viewers take it).
    pub fn size_pt(&self) -> (f64, f64) {
        let per_unit = match self.style {
            Style::Screen => 0.75,
            Style::Paper => 1.0 / UNITS_PER_PT,
        };
        (
            f64::from(self.size.0) * per_unit,
            f64::from(self.size.1) * per_unit,
        )
    }
}

/// What rendering one figure gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Files written.
    pub files: Vec<PathBuf>,
    /// The figure's title and notes (paper style, which does not draw
    /// them); empty in screen style.
    pub caption: Vec<String>,
}

/// Render `fig` on `canvas` into `dir` in `format`; returns the paths
/// written and, in paper style, the caption text left out of the figure.
pub fn render<F: Figure>(fig: &F, dir: &Path, canvas: Canvas, format: Format) -> Result<Rendered> {
    ensure_font()?;
    let stem = fig.stem();
    let mut out = Rendered::default();
    if format.png() {
        let (bytes, caption) =
            png_bytes(fig, canvas).map_err(|e| e.context(format!("{stem}.png")))?;
        let path = dir.join(format!("{stem}.png"));
        write_atomic(&path, &bytes)?;
        out.files.push(path);
        out.caption = caption;
    }
    if format.svg() || format.pdf() {
        let (text, caption) =
            svg_text(fig, canvas).map_err(|e| e.context(format!("{stem}.svg")))?;
        if format.svg() {
            let path = dir.join(format!("{stem}.svg"));
            write_atomic(&path, text.as_bytes())?;
            out.files.push(path);
        }
        if format.pdf() {
            let bytes = pdf_bytes(&text).map_err(|e| e.context(format!("{stem}.pdf")))?;
            let path = dir.join(format!("{stem}.pdf"));
            write_atomic(&path, &bytes)?;
            out.files.push(path);
        }
        out.caption = caption;
    }
    Ok(out)
}

/// The SVG of `fig` as text (what `--format svg` writes).
pub fn svg_string<F: Figure>(fig: &F, canvas: Canvas) -> Result<String> {
    ensure_font()?;
    Ok(svg_text(fig, canvas)?.0)
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

fn png_bytes<F: Figure>(fig: &F, canvas: Canvas) -> Result<(Vec<u8>, Vec<String>)> {
    let (w, h) = canvas.size;
    // Very large canvases are drawn as they are (memory).
    let k = if u64::from(w) * u64::from(h) <= 6_000_000 {
        SUPERSAMPLE
    } else {
        1
    };
    let (bw, bh) = (w * k, h * k);
    let mut big = vec![255u8; bw as usize * bh as usize * 3];
    let theme = Theme::new(canvas.style, (bw, bh), k);
    {
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
    Ok((out, theme.caption.take()))
}

fn svg_text<F: Figure>(fig: &F, canvas: Canvas) -> Result<(String, Vec<String>)> {
    let size = canvas.size;
    let theme = Theme::new(canvas.style, size, 1);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        fig.draw(&root, &theme)?;
        root.present().map_err(draw_err)?;
    }
    if canvas.style == Style::Paper {
        // The physical size, so viewers, LaTeX and the PDF converter put
        // a point of text at a point.
        let (wpt, hpt) = canvas.size_pt();
        let from = format!("<svg width=\"{}\" height=\"{}\" ", size.0, size.1);
        let to = format!("<svg width=\"{wpt}pt\" height=\"{hpt}pt\" ");
        text = text.replacen(&from, &to, 1);
    }
    // Every SVG carries the glyphs of the bundled font it uses.
    Ok((super::embedded_font::embed(&text)?, theme.caption.take()))
}

/// The PDF of an SVG drawn by [`svg_text`]: one page of the SVG's size
/// (96 user units per inch), the bundled font embedded.
fn pdf_bytes(svg: &str) -> Result<Vec<u8>> {
    use std::sync::{Arc, OnceLock};
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    let fonts = FONTS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        Arc::new(db)
    });
    let opts = usvg::Options {
        fontdb: Arc::clone(fonts),
        font_family: "DejaVu Sans".to_string(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opts)
        .map_err(|e| Error::input(format!("cannot read the drawn SVG: {e}")))?;
    let pdf = svg2pdf::to_pdf(
        &tree,
        svg2pdf::ConversionOptions::default(),
        svg2pdf::PageOptions { dpi: 96.0 },
    )
    .map_err(|e| Error::input(format!("cannot convert the figure to PDF: {e}")))?;
    Ok(sorted_resources(pdf))
}

/// svg2pdf lists a page's resources (`/xo1 10 0 R` lines of its
/// `/XObject` and `/ExtGState` dictionaries) in hash-map order, which
/// changes from process to process. Sort each run of such lines outside
/// streams: the same bytes in another order, so every offset of the
/// cross-reference table stays right, and the file is reproducible.
fn sorted_resources(mut pdf: Vec<u8>) -> Vec<u8> {
    fn is_ref(line: &[u8]) -> bool {
        let t = line.trim_ascii();
        let mut parts = t.split(|&b| b == b' ');
        matches!(
            (parts.next(), parts.next(), parts.next(), parts.next(), parts.next()),
            (Some(name), Some(num), Some(b"0"), Some(b"R"), None)
                if name.len() > 1 && name[0] == b'/' && !num.is_empty()
                    && num.iter().all(u8::is_ascii_digit)
        )
    }
    let mut lines: Vec<(usize, usize)> = Vec::new(); // (start, end) without '\n'
    let mut start = 0;
    for (i, &b) in pdf.iter().enumerate() {
        if b == b'\n' {
            lines.push((start, i));
            start = i + 1;
        }
    }
    let mut in_stream = false;
    let mut i = 0;
    while i < lines.len() {
        let (a, b) = lines[i];
        let line = &pdf[a..b];
        if in_stream {
            in_stream = line != b"endstream";
            i += 1;
            continue;
        }
        if line == b"stream" {
            in_stream = true;
            i += 1;
            continue;
        }
        if !is_ref(line) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < lines.len() && is_ref(&pdf[lines[j].0..lines[j].1]) {
            j += 1;
        }
        let (from, to) = (lines[i].0, lines[j - 1].1);
        let mut run: Vec<Vec<u8>> = lines[i..j]
            .iter()
            .map(|&(a, b)| pdf[a..b].to_vec())
            .collect();
        run.sort();
        let joined = run.join(&b'\n');
        pdf[from..to].copy_from_slice(&joined);
        i = j;
    }
    pdf
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
