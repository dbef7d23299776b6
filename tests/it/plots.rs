//! Figures: every kind is drawn from small fixture results
//! (`tests/fixtures/plots/`) and from real runs; each file exists, decodes
//! as a PNG of the requested size or parses as SVG, and the SVG names
//! every policy and carries the axis titles. Policies that never reach θ
//! (speedup `inf`, `0`, `n/a`) still plot. Bad folders are errors naming
//! the file (more cases in `tests/bad_inputs/plot_*`).

use crate::common;
use common::{repo, tenantsim, tree};

use std::fs;
use std::path::{Path, PathBuf};

use tenantsim::present::figures::{Canvas, Format, PlotOptions, Source, plot_sweep};

fn fixture(p: &str) -> PathBuf {
    repo("tests/fixtures/plots").join(p)
}

/// Width and height of a PNG file (decoding every pixel).
fn png_size(path: &Path) -> (u32, u32) {
    let file = fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder
        .read_info()
        .unwrap_or_else(|e| panic!("{} is not a PNG: {e}", path.display()));
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader
        .next_frame(&mut buf)
        .unwrap_or_else(|e| panic!("{}: bad image data: {e}", path.display()));
    (info.width, info.height)
}

/// The text of every `<text>` element of an SVG file, which must parse as
/// XML with an `<svg>` root of the given size.
fn svg_texts(path: &Path, size: (u32, u32)) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not XML: {e}", path.display()));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{}", path.display());
    assert_eq!(root.attribute("width"), Some(size.0.to_string().as_str()));
    assert_eq!(root.attribute("height"), Some(size.1.to_string().as_str()));
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

/// Check one figure in both formats: the PNG has `size`, the SVG parses
/// and contains every string of `must_name` in some text element.
fn check_figure(dir: &Path, stem: &str, size: (u32, u32), must_name: &[&str]) {
    let png = dir.join(format!("{stem}.png"));
    assert_eq!(png_size(&png), size, "{}", png.display());
    let svg = dir.join(format!("{stem}.svg"));
    let texts = svg_texts(&svg, size);
    for s in must_name {
        assert!(
            texts.iter().any(|t| t.contains(s)),
            "{}: no text contains `{s}`; texts: {texts:?}",
            svg.display()
        );
    }
}

const MODEL_POLICIES: [&str; 3] = ["alpha-base", "beta-fast", "gamma-never"];

fn plot_cli(results: &Path, out: &Path, extra: &[&str]) -> String {
    let output = tenantsim()
        .arg("plot")
        .arg(results)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "plot failed: {stderr}");
    stderr
}

#[test]
fn every_model_figure_renders_from_fixture_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("p");
    let stderr = plot_cli(&fixture("model"), &out, &["--size", "800x500"]);
    assert!(stderr.contains("wrote 10 file(s)"), "{stderr}");
    let size = (800, 500);
    let with_titles = |stem: &str, titles: &[&str]| {
        let mut names: Vec<&str> = MODEL_POLICIES.to_vec();
        names.extend_from_slice(titles);
        check_figure(&out, stem, size, &names);
    };
    with_titles(
        "regret-curves",
        &[
            "simulated time τ (s, log scale)",
            "mean loss L(τ) (accuracy)",
            // The θ labels: a header right of the plot over the values.
            "θ",
            "0.05",
            "last arrival",
        ],
    );
    // The three kinds of speedup without a number are spelled out.
    with_titles(
        "speedups",
        &[
            "speedup T_B(θ) / T_X(θ) (×, log scale)",
            "2×",
            "∞ (baseline never reaches θ)",
            "never reached",
            "n/a (neither reaches θ)",
        ],
    );
    with_titles(
        "regret",
        &["mean cumulative regret R (accuracy·s)", "(×2.32)", "90 %"],
    );
    with_titles(
        "tenant-regret",
        &["regret area of a tenant from its arrival (accuracy·s)"],
    );
    // gamma-never completes no job for t3 in repetition 0.
    with_titles(
        "tenant-accuracy",
        &[
            "simulated time τ (s, log scale)",
            "best accuracy so far",
            "t2 (arrives 3 s)",
            "t3 (no job done: gamma-never)",
        ],
    );
}

#[test]
fn options_change_scales_formats_and_the_repetition() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("p");
    plot_cli(
        &fixture("model"),
        &out,
        &["--format", "svg", "--linear-x", "--log-y", "--rep", "1"],
    );
    let names: Vec<String> = fs::read_dir(&out)
        .expect("out")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != common::RESULTS_MARK)
        .collect();
    assert_eq!(names.len(), 5);
    assert!(names.iter().all(|n| n.ends_with(".svg")), "{names:?}");
    let texts = svg_texts(&out.join("regret-curves.svg"), (1000, 640));
    assert!(texts.iter().any(|t| t == "simulated time τ (s)"));
    assert!(
        texts
            .iter()
            .any(|t| t == "mean loss L(τ) (accuracy, log scale)")
    );
    let texts = svg_texts(&out.join("tenant-accuracy.svg"), (1000, 640));
    assert!(texts.iter().any(|t| t.contains("(repetition 1)")));
    let png_only = tmp.path().join("q");
    plot_cli(
        &fixture("model"),
        &png_only,
        &["--format", "png", "--log-x"],
    );
    assert!(fs::read_dir(&png_only).expect("out").all(|e| {
        let name = e.expect("entry").file_name();
        name == common::RESULTS_MARK || name.to_string_lossy().ends_with(".png")
    }));
}

#[test]
fn job_mode_figures_render_from_fixture_results() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("p");
    plot_cli(&fixture("jobs"), &out, &["--size", "640x480"]);
    let size = (640, 480);
    check_figure(
        &out,
        "jct-cdf",
        size,
        &[
            "fifo-x",
            "las-y",
            "job completion time (s, log scale)",
            "fraction of jobs completed within (CDF)",
        ],
    );
    check_figure(
        &out,
        "utilization",
        size,
        &[
            "fifo-x: mean 60 %",
            "las-y: mean 70 %",
            "simulated time (s)",
            "GPUs held (% of the cluster)",
        ],
    );
}

#[test]
fn sweep_figures_draw_a_metric_against_the_swept_key() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("p");
    let opts = PlotOptions {
        canvas: Canvas::screen(900, 600),
        ..PlotOptions::default()
    };
    let done = plot_sweep(&Source::dir(&fixture("sweep")), &out, &opts).expect("plots");
    assert_eq!(done.files.len(), 4, "{:?}", done.files);
    // Numeric key on x, one panel per selector; the θ-time has an `inf`.
    check_figure(
        &out,
        "sweep-regret_mean",
        opts.canvas.size,
        &[
            "alpha-base",
            "gamma-never",
            "cluster.gpus",
            "mean cumulative regret (accuracy·s)",
            "policy.0.selector = in-order",
            "policy.0.selector = random",
        ],
    );
    check_figure(
        &out,
        "sweep-time_to_0.2_s",
        opts.canvas.size,
        &["T(0.2) of the mean loss curve (s)", "inf (θ never reached)"],
    );
    // A non-numeric key on x, a chosen metric, SVG only.
    let opts = PlotOptions {
        format: Format::Svg,
        metrics: vec!["speedup_0.2".into()],
        sweep_x: Some("policy.0.selector".into()),
        ..PlotOptions::default()
    };
    let out2 = tmp.path().join("q");
    let done = plot_sweep(&Source::dir(&fixture("sweep")), &out2, &opts).expect("plots");
    assert_eq!(done.files, [out2.join("sweep-speedup_0.2.svg")]);
    let texts = svg_texts(&done.files[0], opts.canvas.size);
    for s in [
        "in-order",
        "random",
        "cluster.gpus = 4",
        "speedup T_B(0.2) / T_X(0.2) (×)",
    ] {
        assert!(texts.iter().any(|t| t.contains(s)), "{s}: {texts:?}");
    }
    let bad = PlotOptions {
        metrics: vec!["nope".into()],
        ..PlotOptions::default()
    };
    let err = plot_sweep(&Source::dir(&fixture("sweep")), &out2, &bad).expect_err("unknown");
    assert!(err.to_string().contains("--metric nope"), "{err}");
}

/// The figures a run draws from the texts it writes are the figures
/// `tenantsim plot` draws from the written files, byte for byte.
#[test]
fn run_plots_equal_plot_command_output_in_both_modes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (scenario, n) in [
        ("scenarios/quickstart.toml", 12),
        ("scenarios/jobs-quickstart.toml", 4),
    ] {
        let res = tmp.path().join("res");
        tenantsim()
            .arg("run")
            .arg(repo(scenario))
            .arg("--out")
            .arg(&res)
            .args(["--jobs", "--quiet"])
            .assert()
            .success();
        let drawn = tree(&res.join("plots"));
        assert_eq!(drawn.len(), n, "{scenario}: {:?}", drawn.keys());
        let again = tmp.path().join("again");
        plot_cli(&res, &again, &[]);
        assert!(drawn == tree(&again), "{scenario}: plot differs from run");
        fs::remove_dir_all(&res).expect("rm");
        fs::remove_dir_all(&again).expect("rm");
    }
}

/// A policy that never reaches θ, a baseline that never does, and a θ
/// nobody reaches: the run still draws every figure.
#[test]
fn runs_where_theta_is_never_reached_still_plot() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("s.toml");
    // Cut at 6 s: rr-in-order reaches 0.2 only at 7 s, rr-most-cited at
    // 4 s, rr-most-recent at 12 s; nobody reaches 0.01.
    fs::write(
        &scenario,
        format!(
            "name = \"cut\"\nhorizon_s = 6\nthresholds = [0.2, 0.01]\n\
             [trace]\npath = \"{}\"\n[cluster]\ngpus = 2\n\
             [[policy]]\nname = \"rr-in-order\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n\
             [[policy]]\nname = \"rr-most-cited\"\nscheduler = \"round-robin\"\nselector = \"most-cited\"\n\
             [[policy]]\nname = \"rr-most-recent\"\nscheduler = \"round-robin\"\nselector = \"most-recent\"\n",
            repo("traces/hand.csv").display()
        ),
    )
    .expect("write");
    let res = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&res)
        .arg("--quiet")
        .assert()
        .success();
    let speedups = fs::read_to_string(res.join("speedups.csv")).expect("speedups.csv");
    assert!(speedups.contains("rr-most-cited,rr-in-order,0.2,inf,4.000000,inf,inf"));
    assert!(speedups.contains("rr-most-recent,rr-in-order,0.2,inf,inf,n/a,n/a"));
    let plots = res.join("plots");
    check_figure(
        &plots,
        "speedups",
        (1000, 640),
        &["∞ (baseline never reaches θ)", "n/a (neither reaches θ)"],
    );
    for stem in ["regret-curves", "regret", "tenant-regret"] {
        check_figure(&plots, stem, (1000, 640), &["rr-most-recent"]);
    }
    assert!(!plots.join("tenant-accuracy.png").exists(), "needs --jobs");
}

#[test]
fn output_plots_false_draws_nothing_in_either_mode() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let text = fs::read_to_string(repo("scenarios/quickstart.toml")).expect("read");
    let model = tmp.path().join("m.toml");
    fs::write(
        &model,
        text.replace("../traces/", &format!("{}/", repo("traces").display()))
            + "\n[output]\nplots = false\n",
    )
    .expect("write");
    let text = fs::read_to_string(repo("scenarios/jobs-quickstart.toml")).expect("read");
    let jobs = tmp.path().join("j.toml");
    fs::write(
        &jobs,
        text.replace("../traces/", &format!("{}/", repo("traces").display()))
            + "\n[output]\nplots = false\n",
    )
    .expect("write");
    for s in [&model, &jobs] {
        let res = tmp.path().join("res");
        let out = tenantsim()
            .arg("run")
            .arg(s)
            .arg("--out")
            .arg(&res)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(res.join("summary.csv").exists());
        assert!(!res.join("plots").exists(), "{}", s.display());
        assert!(!String::from_utf8_lossy(&out.stderr).contains("plots/"));
        fs::remove_dir_all(&res).expect("rm");
    }
}

/// `run RESULTS` with `--jobs` (and `extra`) from the bundled `scenario`:
/// its stderr and its resolved scenario's `[output] plots` (run.json).
fn run_bundled(scenario: &str, res: &Path, extra: &[&str]) -> (String, serde_json::Value) {
    let out = tenantsim()
        .arg("run")
        .arg(repo(scenario))
        .arg("--out")
        .arg(res)
        .arg("--jobs")
        .args(extra)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{scenario} {extra:?}: {stderr}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(res.join("run.json")).expect("run.json"))
            .expect("run.json is JSON");
    (stderr, manifest["scenario"]["output"]["plots"].clone())
}

/// `run --no-plots` (issue 15) draws nothing in either mode, says no
/// `plots/` among the files written, and its run.json records the
/// override in the resolved scenario; a default run records `true`.
#[test]
fn run_no_plots_draws_nothing_and_run_json_records_plots_false_in_either_mode() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for scenario in [
        "scenarios/quickstart.toml",
        "scenarios/jobs-quickstart.toml",
    ] {
        let res = tmp.path().join("bare");
        let (stderr, plots) = run_bundled(scenario, &res, &["--no-plots"]);
        assert!(res.join("summary.csv").is_file(), "{scenario}");
        assert!(!res.join("plots").exists(), "{scenario}: drew figures");
        assert!(stderr.contains("results in"), "{scenario}: {stderr}");
        assert!(!stderr.contains("plots/"), "{scenario}: {stderr}");
        assert_eq!(plots, serde_json::json!(false), "{scenario}: run.json");
        fs::remove_dir_all(&res).expect("rm");
        let (stderr, plots) = run_bundled(scenario, &res, &[]);
        assert!(res.join("plots").is_dir(), "{scenario}: default run");
        assert!(stderr.contains("plots/"), "{scenario}: {stderr}");
        assert_eq!(plots, serde_json::json!(true), "{scenario}: run.json");
        fs::remove_dir_all(&res).expect("rm");
    }
    // A sweep: no figure in any point's folder, no sweep figure.
    let sweep = tmp.path().join("sweep");
    tenantsim()
        .arg("run")
        .arg(repo("scenarios/sweep.toml"))
        .arg("--out")
        .arg(&sweep)
        .args(["--reps", "1", "--quiet", "--no-plots"])
        .assert()
        .success();
    assert!(sweep.join("sweep.csv").is_file());
    let files = tree(&sweep);
    assert_eq!(
        files.len(),
        1 + 6 * 8,
        "sweep.csv + 6 points × 8 files (no jobs.csv without --jobs)"
    );
    assert!(
        files.keys().all(|f| !f.iter().any(|c| c == "plots")),
        "{:?}",
        files.keys()
    );
}

/// `tenantsim plot RESULTS` after `run --no-plots` draws the figure files
/// a default run draws, in either mode.
#[test]
fn plot_after_run_no_plots_draws_the_figures_of_a_default_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for scenario in [
        "scenarios/quickstart.toml",
        "scenarios/jobs-quickstart.toml",
    ] {
        let (default, bare) = (tmp.path().join("default"), tmp.path().join("bare"));
        run_bundled(scenario, &default, &["--quiet"]);
        run_bundled(scenario, &bare, &["--quiet", "--no-plots"]);
        assert!(!bare.join("plots").exists(), "{scenario}");
        let output = tenantsim().arg("plot").arg(&bare).output().expect("runs");
        assert!(
            output.status.success(),
            "{scenario}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let (drawn, later) = (tree(&default.join("plots")), tree(&bare.join("plots")));
        assert!(
            !drawn.is_empty(),
            "{scenario}: the default run drew nothing"
        );
        assert_eq!(
            drawn.keys().collect::<Vec<_>>(),
            later.keys().collect::<Vec<_>>(),
            "{scenario}: the figure files"
        );
        for (name, bytes) in &drawn {
            assert!(
                bytes == &later[name],
                "{scenario}: {} differs",
                name.display()
            );
        }
        fs::remove_dir_all(&default).expect("rm");
        fs::remove_dir_all(&bare).expect("rm");
    }
}

#[test]
fn missing_or_malformed_csvs_are_errors_naming_the_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let copy = |name: &str| {
        let dir = tmp.path().join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        for e in fs::read_dir(fixture("model")).expect("fixture") {
            let p = e.expect("entry").path();
            fs::copy(&p, dir.join(p.file_name().expect("name"))).expect("copy");
        }
        dir
    };
    let plot_err = |dir: &Path| -> String {
        let out = tenantsim()
            .arg("plot")
            .arg(dir)
            .arg("--out")
            .arg(dir.join("p"))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains("panicked"), "{stderr}");
        stderr
    };
    for (file, what) in [
        ("curves.csv", "curves.csv not found"),
        ("speedups.csv", "speedups.csv not found"),
        ("regret.csv", "regret.csv not found"),
        ("tenants.csv", "tenants.csv not found"),
    ] {
        let dir = copy(&format!("missing-{file}"));
        fs::remove_file(dir.join(file)).expect("rm");
        let err = plot_err(&dir);
        assert!(
            err.contains(&format!("{}", dir.join(file).display())) || err.contains(what),
            "{file}: {err}"
        );
    }
    let dir = copy("bad-number");
    let text = fs::read_to_string(dir.join("regret.csv")).expect("read");
    fs::write(dir.join("regret.csv"), text.replace("7.2,6,", "7.2,six,")).expect("write");
    let err = plot_err(&dir);
    assert!(
        err.contains(&format!(
            "{}: line 4, column `ci_low`: expected a finite number, found `six`",
            dir.join("regret.csv").display()
        )),
        "{err}"
    );
    let dir = copy("bad-jobs");
    fs::write(dir.join("jobs.csv"), "policy,rep,user\nalpha-base,0,t1\n").expect("write");
    let err = plot_err(&dir);
    assert!(
        err.contains("jobs.csv: line 1: missing column `end_s`"),
        "{err}"
    );
    // Nothing is drawn when the folder is bad.
    assert!(!dir.join("p").exists());
}

/// With staggered arrivals the regret curves mark the median last arrival
/// (from which on T(θ) counts) and the per-tenant panels their arrivals.
#[test]
fn regret_curves_honour_staggered_arrivals() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("s.toml");
    fs::write(
        &scenario,
        format!(
            "name = \"online\"\nseed = 5\nrepetitions = 3\nthresholds = [0.2]\n\
             [trace]\npath = \"{}\"\n[cluster]\ngpus = 1\n\
             [arrivals]\nkind = \"uniform\"\nwindow_s = 10\n\
             [[policy]]\nname = \"rr-in-order\"\nscheduler = \"round-robin\"\nselector = \"in-order\"\n\
             [[policy]]\nname = \"random-random\"\nscheduler = \"random\"\nselector = \"random\"\n",
            repo("traces/hand.csv").display()
        ),
    )
    .expect("write");
    let res = tmp.path().join("res");
    tenantsim()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&res)
        .args(["--quiet", "--jobs"])
        .assert()
        .success();
    let plots = res.join("plots");
    check_figure(
        &plots,
        "regret-curves",
        (1000, 640),
        &[
            "rr-in-order",
            "random-random",
            "last arrival (median over repetitions)",
            "L(τ): mean loss over the tenants that have arrived",
        ],
    );
    // The per-job view of the same run (curves_by_job.csv): a job axis, no
    // arrival line.
    check_figure(
        &plots,
        "regret-curves-by-job",
        (1000, 640),
        &[
            "rr-in-order",
            "random-random",
            "completed jobs",
            "mean loss (accuracy)",
            "mean loss over the arrived tenants right after each completed job",
        ],
    );
    let by_job = svg_texts(&plots.join("regret-curves-by-job.svg"), (1000, 640));
    assert!(
        !by_job.iter().any(|t| t.contains("last arrival")),
        "{by_job:?}"
    );
    let texts = svg_texts(&plots.join("tenant-accuracy.svg"), (1000, 640));
    assert!(texts.iter().any(|t| t.contains("(arrives ")), "{texts:?}");
}

/// Every `<text>` of a paper-style SVG with its font size in points (the
/// root's `width` is in `pt`; its viewBox in canvas units).
fn svg_text_points(path: &Path) -> Vec<(String, f64)> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not XML: {e}", path.display()));
    let root = doc.root_element();
    let width_pt: f64 = root
        .attribute("width")
        .and_then(|w| w.strip_suffix("pt"))
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{}: width not in pt", path.display()));
    let view_w: f64 = root
        .attribute("viewBox")
        .and_then(|v| v.split_whitespace().nth(2))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{}: no viewBox", path.display()));
    let per_pt = view_w / width_pt;
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let size: f64 = n
                .attribute("font-size")
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{}: a text without font-size", path.display()));
            (n.text().unwrap_or("").trim().to_string(), size / per_pt)
        })
        .collect()
}

/// Issue 18: at single-column width the ticks came out at about 2.7 pt.
/// Paper style keeps 8 pt axis labels and 7 pt ticks at both preset
/// widths, draws no title and writes it to captions.md instead.
#[test]
fn paper_style_fonts_are_the_requested_points_at_both_widths() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (width, (w_pt, h_pt)) in [("single", (239.76, 158.4)), ("double", (504.0, 187.2))] {
        let out = tmp.path().join(width);
        plot_cli(
            &fixture("model"),
            &out,
            &["--style", "paper", "--width", width, "--format", "svg"],
        );
        let svg = out.join("regret-curves.svg");
        let text = fs::read_to_string(&svg).expect("svg");
        let doc = roxmltree::Document::parse(&text).expect("xml");
        let root = doc.root_element();
        let w: f64 = root
            .attribute("width")
            .and_then(|w| w.strip_suffix("pt"))
            .and_then(|w| w.parse().ok())
            .expect("width");
        let h: f64 = root
            .attribute("height")
            .and_then(|w| w.strip_suffix("pt"))
            .and_then(|w| w.parse().ok())
            .expect("height");
        assert!(
            (w - w_pt).abs() / w_pt < 0.01 && (h - h_pt).abs() / h_pt < 0.01,
            "{width}: {w} x {h} pt"
        );
        let texts = svg_text_points(&svg);
        let size_of = |s: &str| {
            texts
                .iter()
                .find(|(t, _)| t == s)
                .map(|(_, p)| *p)
                .unwrap_or_else(|| panic!("{width}: no text `{s}` in {texts:?}"))
        };
        for tick in ["0.2", "0.4", "1", "10"] {
            assert!(
                (size_of(tick) - 7.0).abs() < 0.01,
                "{width}: tick {tick} at {} pt",
                size_of(tick)
            );
        }
        for label in [
            "simulated time τ (s, log scale)",
            "mean loss L(τ) (accuracy)",
        ] {
            // An axis title may wrap to the plot's size: its lines, in
            // order, spell it, each at 8 pt.
            let lines: Vec<&(String, f64)> = texts
                .iter()
                .filter(|(t, _)| t.chars().count() > 4 && label.contains(t.as_str()))
                .collect();
            let joined: Vec<&str> = lines.iter().map(|(t, _)| t.as_str()).collect();
            assert_eq!(joined.join(" "), label, "{width}: {texts:?}");
            for (t, p) in lines {
                assert!((p - 8.0).abs() < 0.01, "{width}: {t} at {p} pt");
            }
        }
        assert!(
            !texts
                .iter()
                .any(|(t, _)| t.contains("mean loss L(τ) per policy")),
            "{width}: the title is drawn: {texts:?}"
        );
        let captions = fs::read_to_string(out.join("captions.md")).expect("captions.md");
        assert!(
            captions.contains("## regret-curves\n\nfixture: mean loss L(τ) per policy."),
            "{captions}"
        );
        assert!(captions.contains("## speedups"), "{captions}");
    }
}
