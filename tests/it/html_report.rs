//! `tenantsim report`: one self-contained HTML file, loaded in a real
//! headless Chromium (Debian's `chromium`, `scripts/install-viewers`) with
//! networking disabled: the DOM names every policy and holds one `<svg>`
//! per figure, and a screenshot is not blank. Skipped with a note when
//! Chromium is absent, a failure when `TENANTSIM_REQUIRE_TOOLS=1` (CI).

use crate::common::{repo, run_scenario, tenantsim};

use std::fs;
use std::path::Path;
use std::process::Command;

use tenantsim::core::testing::external_tool;
use tenantsim::present::figures::embedded_font::EMBEDDED_FAMILY;

use crate::plot_layout::{data_uri_fonts, svg_fragments, text_elements};

fn report(results: &Path, out: &Path) -> String {
    tenantsim()
        .arg("report")
        .arg(results)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    fs::read_to_string(out).expect("report")
}

/// The figures `tenantsim plot --format svg` draws for `results`.
fn figure_count(results: &Path, scratch: &Path) -> usize {
    tenantsim()
        .arg("plot")
        .arg(results)
        .args(["--format", "svg", "--out"])
        .arg(scratch)
        .assert()
        .success();
    fs::read_dir(scratch)
        .expect("plots")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "svg"))
        })
        .count()
}

fn policies(results: &Path) -> Vec<String> {
    let mut r = csv::Reader::from_path(results.join("regret.csv")).expect("regret.csv");
    r.records()
        .map(|x| x.expect("record")[0].to_string())
        .collect()
}

/// Chromium, headless, without network (every host unresolvable, a dead
/// proxy), its profile in `profile`.
fn chromium(profile: &Path, args: &[&str], page: &Path) -> std::process::Output {
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--proxy-server=127.0.0.1:9",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs")
}

/// The report has no script, stylesheet, font or image from elsewhere
/// (its one `url(` is the data URI of its font).
fn assert_self_contained(html: &str) {
    for bad in ["<script", "<link", "<img", "<iframe", "@import", "src="] {
        assert!(!html.contains(bad), "the report holds `{bad}`");
    }
    for (at, _) in html.match_indices("url(") {
        assert!(
            html[at..].starts_with("url(data:font/ttf;base64,"),
            "the report loads `{}`",
            &html[at..(at + 40).min(html.len())]
        );
    }
    let external = html
        .match_indices("http")
        .filter(|(i, _)| !html[*i..].starts_with("http://www.w3.org/2000/svg"))
        .count();
    assert_eq!(
        external, 0,
        "the report names an address other than the SVG namespace"
    );
}

/// Mean and variance of the pixels' gray level of a PNG.
fn gray_variance(png_path: &Path) -> f64 {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        fs::File::open(png_path).expect("screenshot"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("pixels");
    let channels = info.color_type.samples();
    let px: Vec<f64> = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| {
            p[..3.min(channels)]
                .iter()
                .map(|&v| f64::from(v))
                .sum::<f64>()
                / 3.0
        })
        .collect();
    let mean = px.iter().sum::<f64>() / px.len() as f64;
    px.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / px.len() as f64
}

#[test]
fn report_is_self_contained_with_one_svg_per_figure() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = repo("tests/fixtures/plots/model");
    let html = report(&dir, &tmp.path().join("r.html"));
    assert_self_contained(&html);
    let n = figure_count(&dir, &tmp.path().join("plots"));
    assert_eq!(html.matches("<svg ").count(), n, "one <svg> per figure");
    for p in policies(&dir) {
        assert!(html.contains(&p), "{p} missing");
    }
    assert!(html.contains("<h2>Scenario</h2>") && html.contains("<h2>Summary</h2>"));
    // An existing file is not replaced without --force.
    let again = tenantsim()
        .arg("report")
        .arg(&dir)
        .arg("--out")
        .arg(tmp.path().join("r.html"))
        .output()
        .expect("runs");
    assert!(!again.status.success());
}

#[test]
fn report_opens_offline_in_headless_chromium() {
    if !external_tool("chromium") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let results = tmp.path().join("quickstart");
    run_scenario(
        "scenarios/quickstart.toml",
        &results,
        &["--jobs", "--quiet"],
    );
    let page = tmp.path().join("report.html");
    let html = report(&results, &page);
    assert_self_contained(&html);
    let n = figure_count(&results, &tmp.path().join("plots"));
    assert!(n >= 6, "quickstart draws {n} figures");
    let profile = tmp.path().join("profile");
    let dom = chromium(&profile, &["--dump-dom"], &page);
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(
        dom.matches("<svg ").count(),
        n,
        "one <svg> per figure in the DOM"
    );
    for p in policies(&results) {
        assert!(dom.contains(&p), "{p} not in the DOM");
    }
    let shot = tmp.path().join("shot.png");
    let arg = format!("--screenshot={}", shot.display());
    let out = chromium(&profile, &[&arg, "--window-size=1280,900"], &page);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let var = gray_variance(&shot);
    assert!(
        var > 100.0,
        "the screenshot looks blank (gray variance {var})"
    );
}

/// Issue 18: SVGs named a generic `sans-serif`. A paper or screen SVG
/// carries its glyphs of the bundled font, and Chromium loads that font
/// (its font sanitiser accepts the subset, hinting and licence text
/// dropped).
#[test]
fn the_font_embedded_in_a_paper_or_screen_svg_loads_in_chromium() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for style in ["paper", "screen"] {
        let out = tmp.path().join(style);
        tenantsim()
            .arg("plot")
            .arg(repo("tests/fixtures/plots/model"))
            .args(["--style", style, "--format", "svg", "--out"])
            .arg(&out)
            .assert()
            .success();
        let svg = fs::read_to_string(out.join("regret.svg")).expect("svg");
        assert!(
            svg.contains(&format!(
                "@font-face{{font-family:\"{EMBEDDED_FAMILY}\";src:url(data:font/ttf;base64,"
            )),
            "{style}"
        );
        assert!(
            !svg.contains("font-family=\"sans-serif\""),
            "{style}: a text without the embedded font"
        );
        if !external_tool("chromium") {
            return;
        }
        assert_eq!(
            loaded_faces(
                &tmp.path().join(format!("{style}-page")),
                &format!("<!DOCTYPE html><html><body>{svg}</body></html>")
            ),
            format!("{EMBEDDED_FAMILY}:loaded"),
            "{style}: the embedded font did not load"
        );
    }
}

/// The font faces of the HTML page `html` and their status once Chromium
/// has loaded it (`family:status;…`), from a copy of the page with a
/// script (reports have none) written into `dir`.
fn loaded_faces(dir: &Path, html: &str) -> String {
    let body = html.rfind("</body>").expect("a body");
    let page = dir.join("fonts.html");
    fs::create_dir_all(dir).expect("dir");
    fs::write(
        &page,
        format!(
            "{}<div id=\"r\">pending</div><script>\
             document.fonts.ready.then(()=>{{let s=[];document.fonts.forEach(f=>s.push(f.family+':'+f.status));\
             document.getElementById('r').textContent=s.join(';');}});</script>{}",
            &html[..body],
            &html[body..]
        ),
    )
    .expect("page");
    let dom = chromium(
        &dir.join("profile"),
        &["--virtual-time-budget=3000", "--dump-dom"],
        &page,
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    let line = dom
        .lines()
        .find(|l| l.contains("<div id=\"r\">"))
        .unwrap_or_else(|| panic!("no result in the DOM: {dom}"));
    let start = line.find("<div id=\"r\">").expect("div") + "<div id=\"r\">".len();
    let end = line[start..].find("</div>").expect("end") + start;
    line[start..end].to_string()
}

/// Issue 18: the report inlines several SVGs, each with its own
/// `@font-face` of one family and a different subset, and the browser used
/// one of them for every figure. The report now declares one face, whose
/// cmap covers every character of every inline figure's text, and the
/// figures none.
#[test]
fn a_report_has_one_font_face_covering_the_text_of_every_figure() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let jobs = tmp.path().join("jobs-quickstart");
    run_scenario(
        "scenarios/jobs-quickstart.toml",
        &jobs,
        &["--jobs", "--quiet"],
    );
    for (fixture, results) in [
        ("model", repo("tests/fixtures/plots/model")),
        ("jobs", jobs),
    ] {
        let page = tmp.path().join(format!("{fixture}.html"));
        let html = report(&results, &page);
        assert_eq!(html.matches("@font-face").count(), 1, "{fixture}");
        let fonts = data_uri_fonts(&html);
        assert_eq!(fonts.len(), 1, "{fixture}");
        let face = ttf_parser::Face::parse(&fonts[0], 0).expect("the face is a font");
        let head = &html[..html.find("</head>").expect("head")];
        assert!(
            head.contains(&format!("@font-face{{font-family:\"{EMBEDDED_FAMILY}\"")),
            "{fixture}: the face is not in the page's style"
        );
        let figures = svg_fragments(&html);
        assert!(figures.len() >= 2, "{fixture}: {} figures", figures.len());
        let mut checked = 0;
        for svg in figures {
            let doc = roxmltree::Document::parse(svg).expect("an inline figure is XML");
            for t in text_elements(&doc) {
                assert!(
                    t.family.starts_with(EMBEDDED_FAMILY),
                    "{fixture}: `{}` is set in {}",
                    t.text,
                    t.family
                );
                for c in t.text.chars() {
                    assert!(
                        face.glyph_index(c).is_some(),
                        "{fixture}: `{c}` of `{}` is not in the report's font",
                        t.text
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{fixture}: {checked} characters");
        if external_tool("chromium") {
            assert_eq!(
                loaded_faces(&tmp.path().join(fixture), &html),
                format!("{EMBEDDED_FAMILY}:loaded"),
                "{fixture}: the page's one face did not load"
            );
        }
    }
}

/// A sweep's report: the sweep table and figures, then per point a table
/// and the point's figures.
#[test]
fn a_sweep_report_has_a_table_and_the_figures_of_every_point() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let results = tmp.path().join("sweep");
    run_scenario("scenarios/sweep.toml", &results, &["--quiet"]);
    let html = report(&results, &tmp.path().join("sweep.html"));
    assert_self_contained(&html);
    let scratch = tmp.path().join("plots");
    tenantsim()
        .arg("plot")
        .arg(&results)
        .args(["--format", "svg", "--out"])
        .arg(&scratch)
        .assert()
        .success();
    let mut svgs = 0;
    let mut points = 0;
    for e in fs::read_dir(&scratch).expect("plots") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            points += 1;
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            assert!(html.contains(&format!("<h2>Point {name}</h2>")), "{name}");
            svgs += fs::read_dir(&p).expect("point").count();
        } else if p.extension().is_some_and(|x| x == "svg") {
            svgs += 1;
        }
    }
    assert!(points >= 2, "{points} points");
    assert_eq!(html.matches("<svg ").count(), svgs, "one <svg> per figure");
    // The sweep table and one per point.
    assert_eq!(html.matches("<table>").count(), points + 1);
}

/// The texts between `open` and `close` in `html`, in order.
fn between<'h>(html: &'h str, open: &str, close: &str) -> Vec<&'h str> {
    html.split(open)
        .skip(1)
        .filter_map(|rest| rest.split(close).next())
        .collect()
}

#[test]
fn report_defines_every_metric_of_its_tables_and_figures() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let jobs = tmp.path().join("jobs");
    run_scenario(
        "scenarios/jobs-quickstart.toml",
        &jobs,
        &["--quiet", "--jobs"],
    );
    for (name, dir) in [
        ("model", repo("tests/fixtures/plots/model")),
        ("jobs", jobs),
    ] {
        let html = report(&dir, &tmp.path().join(format!("{name}.html")));
        let heads = between(&html, "<th class=\"num\">", "</th>");
        assert!(heads.len() >= 8, "{name}: every column: {heads:?}");
        // Each header is named by a <dt> whose <dd> gives the formula's
        // DESIGN section.
        let defs: Vec<(&str, &str)> = between(&html, "<dt>", "</dd>")
            .into_iter()
            .filter_map(|d| d.split_once("</dt><dd>"))
            .collect();
        for h in &heads {
            let (_, dd) = defs
                .iter()
                .find(|(dt, _)| dt.split(", ").any(|t| t == *h))
                .unwrap_or_else(|| panic!("{name}: no definition of `{h}`: {defs:?}"));
            assert!(dd.contains("DESIGN §"), "{name}: `{h}`: {dd}");
        }
        // Every figure's caption says what it shows, with its section.
        let captions = between(&html, "<figcaption>", "</figcaption>");
        assert_eq!(captions.len(), html.matches("<figure ").count(), "{name}");
        assert!(!captions.is_empty(), "{name}");
        for c in captions {
            assert!(c.contains("DESIGN §"), "{name}: {c}");
        }
    }
}
