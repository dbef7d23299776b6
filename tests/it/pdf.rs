//! `--format pdf`: every figure type becomes a PDF that poppler parses, of
//! one page of the requested size (within 1 %), its fonts embedded and its
//! text (policy names, θ labels) extractable. Needs poppler-utils
//! (`scripts/install-viewers`): skipped with a note when absent, a failure
//! when `TENANTSIM_REQUIRE_TOOLS=1` (CI).

use crate::common::{repo, tenantsim};

use std::path::Path;
use std::process::Command;

use tenantsim::core::testing::external_tool;
use tenantsim::present::figures::{
    Canvas, Format, PaperWidth, PlotOptions, Source, Style, canvas_for, parse_size, plot_sweep,
};

/// The canvas the command-line arguments of a case ask for.
fn canvas(args: &[&str]) -> Canvas {
    let style = if args.contains(&"paper") {
        Style::Paper
    } else {
        Style::Screen
    };
    let width = args.contains(&"double").then_some(PaperWidth::Double);
    let size = args
        .iter()
        .position(|a| *a == "--size")
        .map(|i| parse_size(args[i + 1]).expect("size"));
    canvas_for(style, size, width).expect("canvas")
}

fn poppler() -> bool {
    ["pdfinfo", "pdffonts", "pdftotext"]
        .iter()
        .all(|t| external_tool(t))
}

fn tool(name: &str, args: &[&str], pdf: &Path) -> String {
    let out = Command::new(name)
        .args(args)
        .arg(pdf)
        .args(if name == "pdftotext" {
            &["-"][..]
        } else {
            &[][..]
        })
        .output()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        out.status.success(),
        "{name} {}: {}",
        pdf.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Check one PDF: parses, one page of `w` × `h` pt within 1 %, every font
/// embedded, and every string of `texts` extractable.
fn check_pdf(pdf: &Path, (w, h): (f64, f64), texts: &[&str]) {
    let info = tool("pdfinfo", &[], pdf);
    assert!(
        info.lines()
            .any(|l| l.split_whitespace().eq(["Pages:", "1"])),
        "{}: {info}",
        pdf.display()
    );
    let size = info
        .lines()
        .find_map(|l| l.strip_prefix("Page size:"))
        .unwrap_or_else(|| panic!("{}: no page size: {info}", pdf.display()));
    let nums: Vec<f64> = size
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    assert_eq!(nums.len(), 2, "{size}");
    assert!(
        (nums[0] - w).abs() / w < 0.01 && (nums[1] - h).abs() / h < 0.01,
        "{}: page {size}, expected {w} x {h} pts",
        pdf.display()
    );
    let fonts = tool("pdffonts", &[], pdf);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(!rows.is_empty(), "{}: no font: {fonts}", pdf.display());
    for row in rows {
        // name, type…, encoding, then emb sub uni (yes/no), object id.
        let cols: Vec<&str> = row.split_whitespace().collect();
        let emb = cols[cols.len() - 5];
        assert_eq!(emb, "yes", "{}: font not embedded: {row}", pdf.display());
    }
    let text = tool("pdftotext", &[], pdf);
    for t in texts {
        assert!(
            text.contains(t),
            "{}: `{t}` not extractable from: {text}",
            pdf.display()
        );
    }
}

fn plot(results: &str, out: &Path, extra: &[&str]) {
    let output = tenantsim()
        .arg("plot")
        .arg(repo(results))
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_figure_type_becomes_a_one_page_pdf_of_the_requested_size_with_embedded_fonts() {
    if !poppler() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let policies = ["alpha-base", "beta-fast", "gamma-never"];
    // Paper, single and double column, and a screen size in pixels.
    let cases: [(&[&str], (f64, f64)); 3] = [
        (&["--style", "paper"], (239.76, 158.4)),
        (&["--style", "paper", "--width", "double"], (504.0, 187.2)),
        (&["--size", "800x500"], (600.0, 375.0)),
    ];
    for (i, (args, size)) in cases.iter().enumerate() {
        let out = tmp.path().join(format!("model{i}"));
        let mut a = vec!["--format", "pdf"];
        a.extend_from_slice(args);
        plot("tests/fixtures/plots/model", &out, &a);
        check_pdf(&out.join("regret-curves.pdf"), *size, &policies);
        // The θ labels right of the plot: a header over the values.
        check_pdf(&out.join("regret-curves.pdf"), *size, &["θ", "0.05"]);
        check_pdf(&out.join("speedups.pdf"), *size, &["θ = 0.1", "beta-fast"]);
        check_pdf(&out.join("regret.pdf"), *size, &policies);
        check_pdf(&out.join("tenant-regret.pdf"), *size, &policies);
        check_pdf(&out.join("tenant-accuracy.pdf"), *size, &["alpha-base"]);
        let jobs = tmp.path().join(format!("jobs{i}"));
        plot("tests/fixtures/plots/jobs", &jobs, &a);
        for stem in ["utilization", "jct-cdf"] {
            check_pdf(&jobs.join(format!("{stem}.pdf")), *size, &[]);
        }
        // The sweep fixture has no point folders: its figures alone.
        let sweep = tmp.path().join(format!("sweep{i}"));
        let opts = PlotOptions {
            format: Format::Pdf,
            canvas: canvas(args),
            ..PlotOptions::default()
        };
        plot_sweep(
            &Source::dir(&repo("tests/fixtures/plots/sweep")),
            &sweep,
            &opts,
        )
        .expect("sweep figures");
        check_pdf(
            &sweep.join("sweep-regret_mean.pdf"),
            *size,
            &["alpha-base", "cluster.gpus"],
        );
    }
}

#[test]
fn format_all_writes_png_svg_and_pdf() {
    let tmp = tempfile::tempdir().expect("tempdir");
    plot(
        "tests/fixtures/plots/model",
        tmp.path(),
        &["--format", "all"],
    );
    for ext in ["png", "svg", "pdf"] {
        let f = tmp.path().join(format!("regret.{ext}"));
        assert!(f.is_file(), "{} missing", f.display());
    }
    let pdf = std::fs::read(tmp.path().join("regret.pdf")).expect("pdf");
    assert!(pdf.starts_with(b"%PDF-"), "not a PDF");
}

/// svg2pdf lists page resources in hash-map order; the PDFs are made
/// byte-identical across processes all the same (scripts/update-plots
/// --check relies on that).
#[test]
fn pdfs_are_byte_identical_across_processes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for out in [&a, &b] {
        plot(
            "tests/fixtures/plots/model",
            out,
            &["--format", "pdf", "--style", "paper"],
        );
    }
    for stem in [
        "regret-curves",
        "speedups",
        "regret",
        "tenant-regret",
        "tenant-accuracy",
    ] {
        let f = format!("{stem}.pdf");
        let (x, y) = (
            std::fs::read(a.join(&f)).expect("a"),
            std::fs::read(b.join(&f)).expect("b"),
        );
        assert!(x == y, "{f} differs between two runs");
    }
}
