//! The text of every figure as a viewer lays it out: each `<text>` of a
//! written SVG becomes a box from its position, anchor, `dy`, rotation,
//! font size and the advance widths (`hmtx`) of the font the SVG embeds,
//! and the embedded font must have a glyph for every character. Paper
//! figures at both preset widths: no two boxes intersect and every box lies
//! inside the canvas (issue 18: the `speedups` labels overlapped at
//! single-column width).

use crate::common::{repo, run_scenario, tenantsim};

use std::fs;
use std::path::{Path, PathBuf};

use tenantsim::present::figures::embedded_font::EMBEDDED_FAMILY;

/// Standard base64, padded (the data URIs of embedded fonts).
pub fn base64_decode(s: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("`{}` is not base64", char::from(c)),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// Every TrueType font of `text` given as a `data:font/ttf;base64,` URI.
pub fn data_uri_fonts(text: &str) -> Vec<Vec<u8>> {
    const URI: &str = "url(data:font/ttf;base64,";
    text.match_indices(URI)
        .map(|(at, _)| {
            let rest = &text[at + URI.len()..];
            base64_decode(&rest[..rest.find(')').expect("the URI ends")])
        })
        .collect()
}

/// The `<svg>…</svg>` fragments of an HTML page.
pub fn svg_fragments(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg ") {
        let len = rest[start..].find("</svg>").expect("the svg ends") + "</svg>".len();
        out.push(&rest[start..start + len]);
        rest = &rest[start + len..];
    }
    out
}

/// One `<text>` element as written.
#[derive(Debug, Clone)]
pub struct TextEl {
    /// The text as a viewer draws it (white space collapsed, trimmed).
    pub text: String,
    /// `font-family`.
    pub family: String,
    x: f64,
    y: f64,
    dy: String,
    anchor: String,
    size: f64,
    /// `rotate(a, cx, cy)`: the angle in degrees and the centre.
    rotate: Option<(f64, f64, f64)>,
}

/// The non-empty `<text>` elements of a parsed SVG.
pub fn text_elements(doc: &roxmltree::Document<'_>) -> Vec<TextEl> {
    let num = |n: &roxmltree::Node<'_, '_>, a: &str| -> f64 {
        n.attribute(a)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("a <text> without a numeric `{a}`"))
    };
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let rotate = n.attribute("transform").map(|t| {
                let inner = t
                    .strip_prefix("rotate(")
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or_else(|| panic!("transform `{t}`"));
                let v: Vec<f64> = inner
                    .split(',')
                    .map(|p| p.trim().parse().expect("a number"))
                    .collect();
                (v[0], v[1], v[2])
            });
            TextEl {
                text: n
                    .text()
                    .unwrap_or("")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
                family: n.attribute("font-family").unwrap_or("").to_string(),
                x: num(&n, "x"),
                y: num(&n, "y"),
                dy: n.attribute("dy").unwrap_or("0").to_string(),
                anchor: n.attribute("text-anchor").unwrap_or("start").to_string(),
                size: num(&n, "font-size"),
                rotate,
            }
        })
        .filter(|t| !t.text.is_empty())
        .collect()
}

/// An axis-aligned box: x0, y0, x1, y1.
pub type Rect = (f64, f64, f64, f64);

/// The box of `t` in canvas units: advance widths from `face`'s `hmtx`,
/// the line box (ascender to descender) around the baseline that `dy`
/// puts it on, rotated with the element.
fn text_box(t: &TextEl, face: &ttf_parser::Face<'_>) -> Rect {
    let em = f64::from(face.units_per_em());
    let width: f64 = t
        .text
        .chars()
        .map(|c| {
            let g = face
                .glyph_index(c)
                .unwrap_or_else(|| panic!("`{c}` of `{}` is not in the embedded font", t.text));
            f64::from(face.glyph_hor_advance(g).expect("an advance"))
        })
        .sum::<f64>()
        / em
        * t.size;
    let x_height = face
        .glyph_index('x')
        .and_then(|g| face.glyph_bounding_box(g))
        .map(|b| f64::from(b.y_max) / em)
        .expect("the embedded font has `x`");
    let dy = match t.dy.as_str() {
        "0.76em" => 0.76 * t.size,
        "0.5ex" => 0.5 * x_height * t.size,
        "-0.5ex" => -0.5 * x_height * t.size,
        "0" => 0.0,
        other => panic!("dy `{other}`"),
    };
    let x0 = match t.anchor.as_str() {
        "start" => t.x,
        "middle" => t.x - width / 2.0,
        "end" => t.x - width,
        other => panic!("text-anchor `{other}`"),
    };
    let base = t.y + dy;
    let (top, bottom) = (
        base - f64::from(face.ascender()) / em * t.size,
        base - f64::from(face.descender()) / em * t.size,
    );
    let corners = [
        (x0, top),
        (x0 + width, top),
        (x0, bottom),
        (x0 + width, bottom),
    ];
    let (cs, sn, cx, cy) = match t.rotate {
        None => (1.0, 0.0, 0.0, 0.0),
        Some((a, cx, cy)) => {
            let r = a.to_radians();
            (r.cos(), r.sin(), cx, cy)
        }
    };
    let pts: Vec<(f64, f64)> = corners
        .iter()
        .map(|&(x, y)| {
            let (dx, dy) = (x - cx, y - cy);
            (cx + dx * cs - dy * sn, cy + dx * sn + dy * cs)
        })
        .collect();
    let min = |f: fn(&(f64, f64)) -> f64| pts.iter().map(f).fold(f64::INFINITY, f64::min);
    let max = |f: fn(&(f64, f64)) -> f64| pts.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
    (min(|p| p.0), min(|p| p.1), max(|p| p.0), max(|p| p.1))
}

/// The texts of the SVG file `path` with their boxes; the SVG embeds one
/// font, has a glyph for each of their characters and sets them in it.
pub fn laid_out(path: &Path) -> (Vec<(TextEl, Rect)>, (f64, f64)) {
    let svg = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let fonts = data_uri_fonts(&svg);
    assert_eq!(fonts.len(), 1, "{}: one embedded font", path.display());
    let face = ttf_parser::Face::parse(&fonts[0], 0)
        .unwrap_or_else(|e| panic!("{}: the embedded font: {e}", path.display()));
    let doc = roxmltree::Document::parse(&svg)
        .unwrap_or_else(|e| panic!("{} is not XML: {e}", path.display()));
    let view: Vec<f64> = doc
        .root_element()
        .attribute("viewBox")
        .expect("a viewBox")
        .split_whitespace()
        .map(|v| v.parse().expect("a number"))
        .collect();
    let texts = text_elements(&doc)
        .into_iter()
        .map(|t| {
            assert!(
                t.family.starts_with(&format!("{EMBEDDED_FAMILY}, ")),
                "{}: `{}` is set in `{}`",
                path.display(),
                t.text,
                t.family
            );
            let b = text_box(&t, &face);
            (t, b)
        })
        .collect();
    (texts, (view[2], view[3]))
}

/// What is wrong with the text boxes of `path`: boxes outside the canvas
/// and pairs that intersect (empty: none); and how many texts it has.
fn overlaps(path: &Path) -> (Vec<String>, usize) {
    let (texts, (w, h)) = laid_out(path);
    let slack = 0.01;
    let mut bad = Vec::new();
    for (t, b) in &texts {
        if b.0 < -slack || b.1 < -slack || b.2 > w + slack || b.3 > h + slack {
            bad.push(format!(
                "`{}` at ({:.1}, {:.1})–({:.1}, {:.1}) leaves the {w} × {h} canvas",
                t.text, b.0, b.1, b.2, b.3
            ));
        }
    }
    for (i, (ta, a)) in texts.iter().enumerate() {
        for (tb, b) in &texts[i + 1..] {
            let dx = a.2.min(b.2) - a.0.max(b.0);
            let dy = a.3.min(b.3) - a.1.max(b.1);
            if dx > slack && dy > slack {
                bad.push(format!(
                    "`{}` and `{}` overlap by {dx:.1} × {dy:.1}",
                    ta.text, tb.text
                ));
            }
        }
    }
    (bad, texts.len())
}

/// The SVG files under `dir`, recursively, sorted.
pub fn svgs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("entry").path();
        if p.is_dir() {
            out.extend(svgs(&p));
        } else if p.extension().is_some_and(|x| x == "svg") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// A job-mode scenario on a typed cluster (two GPU types), written into
/// `dir`: its results draw `utilization-by-type`.
pub fn typed_scenario(dir: &Path) -> PathBuf {
    fs::write(
        dir.join("jobs.csv"),
        "job_id,user,submit_s,duration_s,gpus,gpu_type,duration_s.slow,duration_s.fast\n\
         a,u,0,10,2,,20,10\nb,u,1,4,2,,,2\nc,v,2,6,1,slow,12,6\nd,v,3,3,1,,6,3\n",
    )
    .expect("trace");
    let path = dir.join("typed.toml");
    fs::write(
        &path,
        "mode = \"jobs\"\nname = \"typed\"\n[jobs]\npath = \"jobs.csv\"\n[cluster]\n\
         nodes = [{type = \"slow\", count = 1, gpus_per_node = 2}, {type = \"fast\", count = 1, gpus_per_node = 2}]\n\
         [[policy]]\nname = \"fifo-fastest\"\nscheduler = \"fifo\"\ntype_policy = \"fastest\"\n\
         [[policy]]\nname = \"las-agnostic\"\nscheduler = \"las\"\n",
    )
    .expect("scenario");
    path
}

/// Results folders that between them draw every figure type: the plot
/// fixtures (model, jobs) and runs of the bundled quickstarts and sweep
/// (real policy names, `regret-curves-by-job`, `sweep-<metric>`) and of a
/// typed cluster (`utilization-by-type`).
fn every_figure_type(tmp: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = ["model", "jobs"]
        .iter()
        .map(|f| repo("tests/fixtures/plots").join(f))
        .collect();
    for s in ["quickstart", "jobs-quickstart", "sweep"] {
        let out = tmp.join(s);
        run_scenario(&format!("scenarios/{s}.toml"), &out, &["--jobs", "--quiet"]);
        dirs.push(out);
    }
    // The model fixture with the longest policy names of the bundled
    // experiments (ablation-lcdb's).
    let long = tmp.join("long-names");
    fs::create_dir_all(&long).expect("dir");
    for e in fs::read_dir(repo("tests/fixtures/plots/model")).expect("fixture") {
        let p = e.expect("entry").path();
        let text = fs::read_to_string(&p).expect("fixture file");
        let text = text
            .replace("alpha-base", "cost-belief-prior")
            .replace("beta-fast", "per-relative-cost")
            .replace("gamma-never", "kernel-empirical");
        fs::write(long.join(p.file_name().expect("name")), text).expect("copy");
    }
    dirs.push(long);
    let typed = tmp.join("typed-results");
    tenantsim()
        .arg("run")
        .arg(typed_scenario(tmp))
        .args(["--jobs", "--quiet", "--no-plots", "--out"])
        .arg(&typed)
        .assert()
        .success();
    dirs.push(typed);
    dirs
}

fn plot(results: &Path, out: &Path, extra: &[&str]) {
    tenantsim()
        .arg("plot")
        .arg(results)
        .args(["--format", "svg", "--out"])
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

/// The figure stems of a list of SVG files.
fn stems(files: &[PathBuf]) -> std::collections::BTreeSet<String> {
    files
        .iter()
        .map(|f| {
            let s = f.file_stem().expect("stem").to_string_lossy().into_owned();
            if s.starts_with("sweep-") {
                "sweep-<metric>".to_string()
            } else {
                s
            }
        })
        .collect()
}

const FIGURE_TYPES: [&str; 10] = [
    "jct-cdf",
    "regret",
    "regret-curves",
    "regret-curves-by-job",
    "speedups",
    "sweep-<metric>",
    "tenant-accuracy",
    "tenant-regret",
    "utilization",
    "utilization-by-type",
];

/// Issue 18: at `--style paper --width single` the labels of `speedups`
/// overlapped. For every figure type at both paper presets (and on the
/// default screen canvas), no two text boxes intersect and every box lies
/// inside the canvas.
#[test]
fn paper_figures_have_no_overlapping_text_at_either_preset_width() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dirs = every_figure_type(tmp.path());
    for width in ["single", "double", "screen"] {
        let mut drawn = Vec::new();
        for (i, dir) in dirs.iter().enumerate() {
            let out = tmp.path().join(format!("{width}-{i}"));
            let paper = ["--style", "paper", "--width", width];
            plot(dir, &out, if width == "screen" { &[] } else { &paper });
            drawn.extend(svgs(&out));
        }
        assert_eq!(
            stems(&drawn),
            FIGURE_TYPES.iter().map(|s| s.to_string()).collect(),
            "{width}: not every figure type was drawn"
        );
        let mut texts = 0;
        let mut bad = Vec::new();
        for f in &drawn {
            let (problems, n) = overlaps(f);
            texts += n;
            if !problems.is_empty() {
                let name = f.strip_prefix(tmp.path()).unwrap_or(f);
                bad.push(format!("{}:\n  {}", name.display(), problems.join("\n  ")));
            }
        }
        assert!(bad.is_empty(), "{width}:\n{}", bad.join("\n"));
        assert!(texts > 300, "{width}: {texts} texts checked");
    }
}

/// Issue 18: screen SVGs named `sans-serif` and looked different on every
/// machine. Every SVG of every figure type, screen style included,
/// embeds one font that has each character of its text and sets the text
/// in it.
#[test]
fn every_svg_embeds_the_bundled_font_with_the_glyphs_of_its_text() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dirs = every_figure_type(tmp.path());
    let mut drawn = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let out = tmp.path().join(format!("screen-{i}"));
        plot(dir, &out, &[]);
        drawn.extend(svgs(&out));
        // The figures `run` drew into the folder, where it drew them.
        if dir.join("plots").is_dir() {
            drawn.extend(svgs(&dir.join("plots")));
        }
    }
    assert_eq!(
        stems(&drawn),
        FIGURE_TYPES.iter().map(|s| s.to_string()).collect()
    );
    for f in &drawn {
        let (texts, _) = laid_out(f);
        assert!(!texts.is_empty(), "{}: no text", f.display());
        let svg = fs::read_to_string(f).expect("svg");
        assert!(
            !svg.contains("font-family=\"sans-serif\""),
            "{}: a text names sans-serif",
            f.display()
        );
    }
}
