//! Issue 27: paper figures clipped their value labels and laid legends and
//! θ labels on the data. For every figure kind, drawn from every bundled
//! results folder (the scenarios of `tests/golden/SCENARIOS`, plus a typed
//! cluster for `utilization-by-type`) at `--style paper --width single`,
//! `--width double` and the screen style, read back from the written SVG:
//!
//! - every text's box (the layout of `plot_layout`) lies inside the canvas;
//! - no text box and no legend box overlaps a drawn mark: a polyline's
//!   segments, a bar's rect, a marker's circle or polygon, in a series
//!   colour (grid, axes and reference lines are ink or gray, bands are
//!   translucent: neither is a mark);
//! - a text is inside a legend box or clear of it.
//!
//! A legend box is the one rect filled white at 92 % opacity
//! (`legend::draw_box`); the swatches drawn inside it after it are the
//! legend's, not data.

use crate::common::{repo, run_scenario, tenantsim};
use crate::plot_layout::{Rect, laid_out, svgs, typed_scenario};

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use tenantsim::present::figures::style::PALETTE;

/// A drawn shape, in canvas units.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// A stroked segment and half its stroke width.
    Segment((f64, f64), (f64, f64), f64),
    /// A filled box (bar, square marker, polygon marker's bounds).
    Fill(Rect),
    /// A filled circle: centre and radius.
    Circle((f64, f64), f64),
}

/// The marks and legend boxes of an SVG, in canvas units.
#[derive(Debug, Default)]
struct Drawn {
    marks: Vec<(String, Shape)>,
    legends: Vec<Rect>,
}

fn series_colour(c: &str) -> bool {
    PALETTE
        .iter()
        .any(|p| c.eq_ignore_ascii_case(&format!("#{:02X}{:02X}{:02X}", p.0, p.1, p.2)))
}

fn points(s: &str) -> Vec<(f64, f64)> {
    s.split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().expect("x"), y.parse().expect("y"))
        })
        .collect()
}

fn bounds(pts: &[(f64, f64)]) -> Rect {
    pts.iter().fold(
        (
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ),
        |b, &(x, y)| (b.0.min(x), b.1.min(y), b.2.max(x), b.3.max(y)),
    )
}

fn shape_bounds(s: &Shape) -> Rect {
    match *s {
        Shape::Segment(a, b, hw) => {
            let r = bounds(&[a, b]);
            (r.0 - hw, r.1 - hw, r.2 + hw, r.3 + hw)
        }
        Shape::Fill(r) => r,
        Shape::Circle((x, y), r) => (x - r, y - r, x + r, y + r),
    }
}

fn inside(a: &Rect, outer: &Rect, slack: f64) -> bool {
    a.0 >= outer.0 - slack
        && a.1 >= outer.1 - slack
        && a.2 <= outer.2 + slack
        && a.3 <= outer.3 + slack
}

/// The series-coloured marks and the legend boxes of `path`.
fn drawn(path: &Path) -> Drawn {
    let svg = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let mut out = Drawn::default();
    for n in doc.descendants().filter(|n| n.is_element()) {
        let attr = |a: &str| n.attribute(a).unwrap_or("");
        let num = |a: &str| -> f64 {
            n.attribute(a)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| {
                    panic!(
                        "{}: <{}> without `{a}`",
                        path.display(),
                        n.tag_name().name()
                    )
                })
        };
        let opacity: f64 = n
            .attribute("opacity")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1.0);
        let (fill, stroke) = (attr("fill"), attr("stroke"));
        let half = n
            .attribute("stroke-width")
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(1.0)
            / 2.0;
        let mut shapes = Vec::new();
        match n.tag_name().name() {
            "rect" => {
                let r = (
                    num("x"),
                    num("y"),
                    num("x") + num("width"),
                    num("y") + num("height"),
                );
                if fill == "#FFFFFF" && (opacity - 0.92).abs() < 1e-9 {
                    out.legends.push(r);
                    continue;
                }
                if opacity < 1.0 {
                    continue;
                }
                if series_colour(fill) {
                    shapes.push(Shape::Fill(r));
                } else if series_colour(stroke) {
                    let c = [(r.0, r.1), (r.2, r.1), (r.2, r.3), (r.0, r.3), (r.0, r.1)];
                    shapes.extend(c.windows(2).map(|w| Shape::Segment(w[0], w[1], half)));
                }
            }
            "polyline" if opacity >= 1.0 && series_colour(stroke) => {
                let p = points(attr("points"));
                shapes.extend(p.windows(2).map(|w| Shape::Segment(w[0], w[1], half)));
                if let [only] = p[..] {
                    shapes.push(Shape::Segment(only, only, half));
                }
            }
            "line" if opacity >= 1.0 && series_colour(stroke) => {
                shapes.push(Shape::Segment(
                    (num("x1"), num("y1")),
                    (num("x2"), num("y2")),
                    half,
                ));
            }
            "polygon" if opacity >= 1.0 && series_colour(fill) => {
                shapes.push(Shape::Fill(bounds(&points(attr("points")))));
            }
            "circle" if opacity >= 1.0 && series_colour(fill) => {
                shapes.push(Shape::Circle((num("cx"), num("cy")), num("r")));
            }
            _ => {}
        }
        // A swatch drawn inside a legend box after it belongs to the legend.
        let of_legend = |s: &Shape| out.legends.iter().any(|l| inside(&shape_bounds(s), l, 1.0));
        let what = format!("<{}> ({} {})", n.tag_name().name(), fill, stroke);
        let kept: Vec<_> = shapes.into_iter().filter(|s| !of_legend(s)).collect();
        out.marks
            .extend(kept.into_iter().map(|s| (what.clone(), s)));
    }
    out
}

/// How far (canvas units) `s` reaches into the box `r`: 0 when clear.
fn depth(s: &Shape, r: &Rect) -> f64 {
    match *s {
        Shape::Fill(b) => {
            let dx = r.2.min(b.2) - r.0.max(b.0);
            let dy = r.3.min(b.3) - r.1.max(b.1);
            dx.min(dy).max(0.0)
        }
        Shape::Circle((cx, cy), rad) => {
            // Distance from the centre to the box.
            let dx = (r.0 - cx).max(cx - r.2).max(0.0);
            let dy = (r.1 - cy).max(cy - r.3).max(0.0);
            (rad - dx.hypot(dy)).max(0.0)
        }
        Shape::Segment(a, b, hw) => {
            // Clip the segment to the box grown by half the stroke
            // (Liang–Barsky); the depth is how far the clipped part gets
            // past that border, at most hw.
            let g = (r.0 - hw, r.1 - hw, r.2 + hw, r.3 + hw);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let (mut t0, mut t1) = (0.0f64, 1.0f64);
            for (p, q) in [
                (-dx, a.0 - g.0),
                (dx, g.2 - a.0),
                (-dy, a.1 - g.1),
                (dy, g.3 - a.1),
            ] {
                if p == 0.0 {
                    if q < 0.0 {
                        return 0.0;
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
            if t0 > t1 {
                return 0.0;
            }
            // The deepest clipped point's distance inside the grown box.
            let deepest = [t0, t1, (t0 + t1) / 2.0]
                .iter()
                .map(|&t| {
                    let (x, y) = (a.0 + dx * t, a.1 + dy * t);
                    (x - g.0).min(g.2 - x).min(y - g.1).min(g.3 - y)
                })
                .fold(0.0f64, f64::max);
            deepest.min(2.0 * hw).max(0.0)
        }
    }
}

/// What is wrong with `path`: texts outside the canvas, texts or legend
/// boxes on marks, texts across a legend's edge; and how many texts and
/// marks were checked.
pub fn clearance_problems(path: &Path) -> (Vec<String>, usize, usize) {
    let (texts, (w, h)) = laid_out(path);
    let d = drawn(path);
    // Less than a line's width: rounding of the drawn pixels.
    let slack = 0.5;
    let mut bad = Vec::new();
    let canvas = (0.0, 0.0, w, h);
    for (t, b) in &texts {
        if !inside(b, &canvas, 0.01) {
            bad.push(format!(
                "`{}` at ({:.1}, {:.1})–({:.1}, {:.1}) leaves the {w} × {h} canvas",
                t.text, b.0, b.1, b.2, b.3
            ));
        }
        for (what, m) in &d.marks {
            let k = depth(m, b);
            if k > slack {
                bad.push(format!("`{}` lies {k:.1} deep on {what} {m:?}", t.text));
                break;
            }
        }
        for l in &d.legends {
            let dx = b.2.min(l.2) - b.0.max(l.0);
            let dy = b.3.min(l.3) - b.1.max(l.1);
            if dx > slack && dy > slack && !inside(b, l, slack) {
                bad.push(format!(
                    "`{}` crosses the edge of the legend box {l:?}",
                    t.text
                ));
            }
        }
    }
    for l in &d.legends {
        if !inside(l, &canvas, 0.01) {
            bad.push(format!("the legend box {l:?} leaves the {w} × {h} canvas"));
        }
        for (what, m) in &d.marks {
            let k = depth(m, l);
            if k > slack {
                bad.push(format!(
                    "the legend box {l:?} covers {what} {m:?} ({k:.1} deep)"
                ));
            }
        }
    }
    (bad, texts.len(), d.marks.len())
}

/// The bundled results folders drawn at each width: (width, figure files).
struct Figures {
    /// Their folder, kept after the process (see [`figures_root`]).
    dir: PathBuf,
    drawn: Vec<(&'static str, PathBuf)>,
}

/// How old a run's folder of figures is before a later run removes it
/// (a run draws its figures in minutes).
const STALE: Duration = Duration::from_secs(6 * 3600);

/// Where a run draws its figures: the target folder's scratch space
/// (`CARGO_TARGET_TMPDIR`), not the system's temporary folder. The
/// figures live in a static, which is never dropped, so their folder
/// outlives the test process: the next run removes it once [`STALE`]
/// ([`remove_stale`]), and `cargo clean` removes them all.
fn figures_root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("plot-clearance")
}

/// Remove the folders in `root` last modified more than [`STALE`] ago.
fn remove_stale(root: &Path) {
    for entry in fs::read_dir(root).into_iter().flatten().flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if stale {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

const WIDTHS: [&str; 3] = ["single", "double", "screen"];

/// Every scenario of `tests/golden/SCENARIOS` run with `--jobs` (and a
/// typed cluster, the one figure kind they lack, and the speedups of
/// issue 27), each drawn at the paper
/// widths and on the screen canvas. Once per test process.
fn figures() -> &'static Figures {
    static FIGURES: OnceLock<Figures> = OnceLock::new();
    FIGURES.get_or_init(|| {
        let root = figures_root();
        fs::create_dir_all(&root).expect("scratch folder");
        remove_stale(&root);
        // Kept: a static is never dropped, so a `TempDir` would not remove
        // it either.
        let dir = tempfile::tempdir_in(&root).expect("tempdir").keep();
        let list = fs::read_to_string(repo("tests/golden/SCENARIOS")).expect("SCENARIOS");
        // Each folder is one job: run its scenario (none for the fixtures),
        // then draw it at every width. The jobs run side by side (the
        // debug binary's runs and plots of the lcdb-curves scenarios take
        // minutes in a row); the figures are listed in the order of a
        // serial run: width by width, folder by folder.
        let mut jobs: Vec<(PathBuf, Option<String>)> = Vec::new();
        for s in list.split_whitespace() {
            let name = Path::new(s)
                .file_stem()
                .expect("stem")
                .to_string_lossy()
                .into_owned();
            jobs.push((dir.join(&name), Some(s.to_string())));
        }
        // The value of issue 27 (a bar left of 1 labelled "0.0463×" ran
        // off the page) and a long bar to the right: the plot fixture
        // with beta-fast 21.6 times slower at θ = 0.2 and 498 times faster
        // at θ = 0.1.
        let extremes = dir.join("speedup-extremes");
        fs::create_dir_all(&extremes).expect("dir");
        for e in fs::read_dir(repo("tests/fixtures/plots/model")).expect("fixture") {
            let p = e.expect("entry").path();
            let text = fs::read_to_string(&p).expect("fixture file");
            let text = text
                .replace(
                    "beta-fast,alpha-base,0.2,4.000000,2.000000,2,2",
                    "beta-fast,alpha-base,0.2,4.000000,86.393089,0.0463,0.0463",
                )
                .replace(
                    "beta-fast,alpha-base,0.1,8.000000,4.000000,2,2",
                    "beta-fast,alpha-base,0.1,8.000000,0.016064,498.0,498.0",
                );
            fs::write(extremes.join(p.file_name().expect("name")), text).expect("copy");
        }
        jobs.push((extremes, None));
        // A shared folder with workflows (DESIGN §14.7), written by hand:
        // three policies, one with CPU utilisation n/a.
        jobs.push((repo("tests/fixtures/plots/workflows"), None));
        let typed = dir.join("typed-results");
        let typed_toml = typed_scenario(&dir);
        jobs.push((typed, Some(typed_toml.to_string_lossy().into_owned())));
        let base = dir.as_path();
        let per_dir: Vec<Vec<(&'static str, PathBuf)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = jobs
                .iter()
                .map(|(dir, scenario)| {
                    let tmp = base;
                    scope.spawn(move || {
                        if let Some(s) = scenario {
                            run_scenario(s, dir, &["--jobs", "--quiet", "--no-plots"]);
                        }
                        let mut drawn = Vec::new();
                        for width in WIDTHS {
                            let out = tmp
                                .join("figures")
                                .join(width)
                                .join(dir.file_name().expect("name"));
                            let paper = ["--style", "paper", "--width", width];
                            tenantsim()
                                .arg("plot")
                                .arg(dir)
                                .args(["--format", "svg", "--out"])
                                .arg(&out)
                                .args(if width == "screen" {
                                    &[][..]
                                } else {
                                    &paper[..]
                                })
                                .assert()
                                .success();
                            drawn.extend(svgs(&out).into_iter().map(|f| (width, f)));
                        }
                        drawn
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        let mut drawn = Vec::new();
        for width in WIDTHS {
            for d in &per_dir {
                drawn.extend(d.iter().filter(|(w, _)| *w == width).cloned());
            }
        }
        Figures { dir, drawn }
    })
}

/// The figure kind of an SVG file: its stem, `sweep-<metric>` for every
/// sweep metric.
fn kind(f: &Path) -> String {
    let s = f.file_stem().expect("stem").to_string_lossy().into_owned();
    let in_workflows = f
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "workflows");
    if in_workflows {
        format!("workflows/{s}")
    } else if s.starts_with("sweep-") {
        "sweep-<metric>".into()
    } else {
        s
    }
}

/// Every figure of `kind` at every width keeps its texts inside the canvas
/// and its texts and legends off the marks.
fn check_kind(kind_name: &str) {
    let figs = figures();
    for width in WIDTHS {
        let files: Vec<&PathBuf> = figs
            .drawn
            .iter()
            .filter(|(w, f)| *w == width && kind(f) == kind_name)
            .map(|(_, f)| f)
            .collect();
        assert!(
            !files.is_empty(),
            "{width}: no `{kind_name}` figure was drawn"
        );
        let (mut texts, mut marks, mut bad) = (0, 0, Vec::new());
        for f in files {
            let (problems, t, m) = clearance_problems(f);
            texts += t;
            marks += m;
            if !problems.is_empty() {
                let name = f.strip_prefix(&figs.dir).unwrap_or(f);
                bad.push(format!("{}:\n  {}", name.display(), problems.join("\n  ")));
            }
        }
        assert!(
            bad.is_empty(),
            "{kind_name} at {width}:\n{}",
            bad.join("\n")
        );
        assert!(
            texts > 0 && marks > 0,
            "{kind_name} at {width}: {texts} texts, {marks} marks"
        );
    }
}

#[test]
fn regret_curves_keep_text_and_legend_off_the_curves() {
    check_kind("regret-curves");
}

#[test]
fn regret_curves_by_job_keep_text_and_legend_off_the_curves() {
    check_kind("regret-curves-by-job");
}

#[test]
fn speedup_labels_stay_inside_their_canvas_and_off_the_bars() {
    check_kind("speedups");
}

#[test]
fn regret_bars_keep_text_off_the_bars() {
    check_kind("regret");
}

#[test]
fn tenant_regret_keeps_text_off_the_marks() {
    check_kind("tenant-regret");
}

#[test]
fn tenant_accuracy_keeps_text_and_legend_off_the_curves() {
    check_kind("tenant-accuracy");
}

#[test]
fn promotions_keep_text_and_legend_off_the_marks() {
    check_kind("promotions");
}

#[test]
fn sweep_figures_keep_text_and_legend_off_the_lines() {
    check_kind("sweep-<metric>");
}

#[test]
fn jct_cdf_keeps_legend_off_the_curves_and_medians() {
    check_kind("jct-cdf");
}

#[test]
fn utilization_keeps_text_off_the_curves() {
    check_kind("utilization");
}

#[test]
fn utilization_by_type_keeps_text_off_the_curves() {
    check_kind("utilization-by-type");
}

#[test]
fn workflows_completion_keeps_text_off_the_bars() {
    check_kind("workflows/completion");
}

#[test]
fn workflows_utilization_keeps_text_off_the_bars() {
    check_kind("workflows/utilization");
}

#[test]
fn workflows_makespan_cdf_keeps_legend_off_the_curves_and_medians() {
    check_kind("workflows/makespan_cdf");
}

/// Regression: a draft of this file drew the hand-written workflow
/// fixture's figures into the fixture folder itself, and they were
/// committed (`tests/fixtures/plots/workflows/figures/`, 16 files). The
/// figures go to the scratch folder only: the fixture folder holds its
/// result files and nothing drawn.
#[test]
fn the_workflow_fixtures_figures_were_drawn_into_the_fixture_folder() {
    assert!(!figures().drawn.is_empty());
    let fixture = repo("tests/fixtures/plots/workflows");
    assert!(
        !fixture.join("figures").exists(),
        "figures in {}",
        fixture.display()
    );
    assert_eq!(svgs(&fixture), Vec::<PathBuf>::new());
}

/// The checker itself: a legend box on a polyline, a text on a bar, a text
/// outside the canvas and a text across a legend's edge are each found; a
/// clear figure passes.
#[test]
fn the_clearance_check_finds_covered_marks() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // A real figure's head (its embedded font) and its shortest text,
    // whose glyphs the font has.
    let figure = fs::read_to_string(&figures().drawn[0].1).expect("svg");
    let style_end = figure.find("</style>").expect("a style") + "</style>".len();
    let head = &figure[..style_end];
    let family = {
        let at = figure.find("font-family=\"").expect("a text") + "font-family=\"".len();
        &figure[at..at + figure[at..].find('"').expect("end")]
    };
    let doc = roxmltree::Document::parse(&figure).expect("XML");
    let word = crate::plot_layout::text_elements(&doc)
        .into_iter()
        .map(|t| t.text)
        .min_by_key(|t| t.chars().count())
        .expect("a text")
        .replace('&', "&amp;")
        .replace('<', "&lt;");
    let blue = "#0072B2";
    let text = |x: f64, y: f64| {
        format!(
            "<text x=\"{x}\" y=\"{y}\" dy=\"0.76em\" text-anchor=\"start\" font-family=\"{family}\" font-size=\"12\" opacity=\"1\" fill=\"#222222\">{word}</text>"
        )
    };
    let svg = |body: &str| {
        let h = head.replacen(
            &head[head.find("<svg").expect("svg")..head.find('>').expect("tag") + 1],
            "<svg width=\"400\" height=\"300\" viewBox=\"0 0 400 300\" xmlns=\"http://www.w3.org/2000/svg\">",
            1,
        );
        format!("{h}</defs>{body}</svg>")
    };
    let legend = "<rect x=\"100\" y=\"100\" width=\"280\" height=\"60\" opacity=\"0.92\" fill=\"#FFFFFF\" stroke=\"none\"/>";
    let swatch = format!(
        "<polyline fill=\"none\" opacity=\"1\" stroke=\"{blue}\" stroke-width=\"4\" points=\"110,120 150,120 \"/>"
    );
    let cases = [
        // Clear: a curve and a bar away from a legend with its swatch and label.
        (
            format!(
                "<polyline fill=\"none\" opacity=\"1\" stroke=\"{blue}\" stroke-width=\"4\" points=\"10,280 390,280 \"/>\
                 <rect x=\"300\" y=\"10\" width=\"20\" height=\"50\" opacity=\"1\" fill=\"{blue}\" stroke=\"none\"/>\
                 {legend}{swatch}{}",
                text(155.0, 110.0)
            ),
            None,
        ),
        (
            format!(
                "<polyline fill=\"none\" opacity=\"1\" stroke=\"{blue}\" stroke-width=\"4\" points=\"10,10 390,290 \"/>{legend}"
            ),
            Some("covers"),
        ),
        (
            format!(
                "<rect x=\"30\" y=\"30\" width=\"300\" height=\"30\" opacity=\"1\" fill=\"{blue}\" stroke=\"none\"/>{}",
                text(40.0, 35.0)
            ),
            Some("deep on"),
        ),
        (text(398.0, 10.0), Some("leaves")),
        (format!("{legend}{}", text(95.0, 110.0)), Some("crosses")),
        (
            format!(
                "<circle cx=\"50\" cy=\"50\" r=\"9\" opacity=\"1\" fill=\"{blue}\" stroke=\"none\"/>{}",
                text(45.0, 45.0)
            ),
            Some("deep on"),
        ),
    ];
    for (i, (body, want)) in cases.iter().enumerate() {
        let f = tmp.path().join(format!("case-{i}.svg"));
        fs::write(&f, svg(body)).expect("write");
        let (bad, _, _) = clearance_problems(&f);
        match want {
            None => assert!(bad.is_empty(), "case {i}: {bad:?}"),
            Some(w) => assert!(
                bad.len() == 1 && bad[0].contains(w),
                "case {i}: expected one `{w}`, got {bad:?}"
            ),
        }
    }
}

/// Regression: the figures' folder, held by a static that is never
/// dropped, was made in the system's temporary folder, so each `cargo
/// test` left 243 MB of results and figures in /tmp. It is now made in
/// the target folder's scratch space, where a later run removes a folder
/// once it is stale and keeps a recent one (another run's, perhaps still
/// drawing).
#[test]
fn each_test_run_left_its_figures_in_the_system_temporary_folder() {
    assert!(figures().dir.starts_with(figures_root()));
    let root = tempfile::tempdir().expect("tempdir");
    let (old, recent) = (root.path().join("old"), root.path().join("recent"));
    for d in [&old, &recent] {
        fs::create_dir_all(d.join("results")).expect("dir");
        fs::write(d.join("results/tenants.csv"), "x\n").expect("write");
    }
    let long_ago = SystemTime::now() - STALE - Duration::from_secs(60);
    fs::File::open(&old)
        .and_then(|f| f.set_modified(long_ago))
        .expect("backdate the folder");
    remove_stale(root.path());
    assert!(!old.exists(), "a stale folder is removed");
    assert!(
        recent.join("results/tenants.csv").exists(),
        "a recent one is kept"
    );
}
