//! Figure `promotions` (curve traces): drawn by `run --jobs` and `plot`
//! when some job ran below its tenant's largest fidelity, with one circle
//! per evaluation of the tenant shown and its models named; absent on a
//! plain trace and when every job ran at the top; every format and the
//! paper style; `--tenant` picks the tenant, and a bad one is an error.

use crate::common;
use common::tenantsim;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Five users (two drawn as prior users per repetition, as ASHA's order
/// by prior mean needs) × four models × fidelities 1, 3, 9: accuracy
/// grows with fidelity towards a per-(user, model) ceiling; cost ∝
/// fidelity.
fn curve_trace() -> String {
    let mut s = String::from("user,model,fidelity,accuracy,runtime_s\n");
    for u in 0..5 {
        for m in 0..4 {
            let ceiling = 0.55 + 0.1 * f64::from((m + u) % 4);
            for f in [1u32, 3, 9] {
                let acc = ceiling * (1.0 - 0.4 / f64::from(f));
                let cost = f64::from(f) * f64::from(1 + m) / 2.0;
                s.push_str(&format!("u{u},m{m},{f},{acc:.4},{cost}\n"));
            }
        }
    }
    s
}

/// A scenario on `trace` with the given `[[policy]]` (scheduler, selector)
/// pairs; returns its results folder after `run --jobs`.
fn run_in(dir: &Path, trace: &str, policies: &[(&str, &str, &str)]) -> PathBuf {
    fs::write(dir.join("t.csv"), trace).expect("write trace");
    let mut text = String::from(
        "name = \"promo\"\nrepetitions = 2\nthresholds = [0.05]\nfairness = false\n\
         [trace]\npath = \"t.csv\"\n[split]\nprior_count = 2\n[cluster]\ngpus = 2\n",
    );
    for (name, scheduler, selector) in policies {
        text.push_str(&format!(
            "[[policy]]\nname = \"{name}\"\nscheduler = \"{scheduler}\"\nselector = \"{selector}\"\n"
        ));
    }
    let scenario = dir.join("s.toml");
    fs::write(&scenario, text).expect("write scenario");
    let out = dir.join("out");
    let o = tenantsim()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "--quiet"])
        .output()
        .expect("runs");
    assert!(
        o.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

const MULTI: [(&str, &str, &str); 3] = [
    ("rr-random", "round-robin", "random"),
    ("rr-asha", "round-robin", "asha"),
    ("rr-sh", "round-robin", "successive-halving"),
];

/// `jobs.csv` rows of repetition `rep`: (policy, user, model, fidelity).
fn jobs_of(out: &Path, rep: &str) -> Vec<(String, String, String, f64)> {
    let text = fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|h| *h == n)
            .unwrap_or_else(|| panic!("no {n}"))
    };
    let (p, r, u, m, f) = (
        col("policy"),
        col("rep"),
        col("user"),
        col("model"),
        col("fidelity"),
    );
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[r] == rep)
        .map(|c| {
            (
                c[p].to_string(),
                c[u].to_string(),
                c[m].to_string(),
                c[f].parse().expect("fidelity"),
            )
        })
        .collect()
}

/// Texts of every `<text>` element, and the number of `<circle>`s.
fn svg_texts_and_circles(path: &Path) -> (Vec<String>, usize) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{} is not XML: {e}", path.display()));
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect();
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    (texts, circles)
}

/// The tenant named in the title `promo: promotions of tenant X (...)`.
fn titled_tenant(texts: &[String]) -> String {
    let t = texts
        .iter()
        .find_map(|t| t.strip_prefix("promo: promotions of tenant "))
        .unwrap_or_else(|| panic!("no title: {texts:?}"));
    t.split(' ').next().expect("tenant").to_string()
}

/// The figure of `user`: one circle per evaluation under the policies
/// that ran below the top (the legend adds one circle per model named),
/// every model named, one panel caption per such policy.
fn check_promotions(svg: &Path, out: &Path, rep: &str, user: &str) {
    let (texts, circles) = svg_texts_and_circles(svg);
    assert_eq!(titled_tenant(&texts), user);
    let jobs = jobs_of(out, rep);
    // Each (tenant, model) pair's top fidelity in the repetition; the
    // policies with a job below its pair's.
    let mut top: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for (_, u, m, f) in &jobs {
        let t = top.entry((u.as_str(), m.as_str())).or_insert(*f);
        *t = t.max(*f);
    }
    let low: BTreeSet<&str> = jobs
        .iter()
        .filter(|(_, u, m, f)| *f < top[&(u.as_str(), m.as_str())])
        .map(|(p, ..)| p.as_str())
        .collect();
    assert!(low.contains("rr-asha") && low.contains("rr-sh"), "{low:?}");
    assert!(!low.contains("rr-random"), "random runs at the top only");
    let evals: Vec<_> = jobs
        .iter()
        .filter(|(p, u, ..)| u == user && low.contains(p.as_str()))
        .collect();
    let models: BTreeSet<&str> = evals.iter().map(|(_, _, m, _)| m.as_str()).collect();
    assert!(
        evals.len() > models.len(),
        "some model of {user} was promoted"
    );
    assert_eq!(
        circles,
        evals.len() + models.len(),
        "one circle per evaluation plus one legend swatch per model"
    );
    for m in &models {
        assert!(texts.iter().any(|t| t == m), "{m} not named: {texts:?}");
    }
    for p in &low {
        let n = evals.iter().filter(|(q, ..)| q == p).count();
        let caption = format!("{p}: {n} evaluations");
        assert!(
            texts.iter().any(|t| t.starts_with(&caption)),
            "{caption}: {texts:?}"
        );
    }
    assert!(
        !texts.iter().any(|t| t.starts_with("rr-random:")),
        "no panel for a full-fidelity policy"
    );
}

fn plot(results: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    tenantsim()
        .arg("plot")
        .arg(results)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
fn promotions_figure_has_one_marker_per_evaluation_of_the_tenant() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_in(tmp.path(), &curve_trace(), &MULTI);
    let svg = out.join("plots/promotions.svg");
    assert!(out.join("plots/promotions.png").is_file());
    let (texts, _) = svg_texts_and_circles(&svg);
    let user = titled_tenant(&texts);
    check_promotions(&svg, &out, "0", &user);
    // `plot` draws the same bytes from the files.
    let again = tmp.path().join("again");
    let o = plot(&out, &again, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for ext in ["svg", "png"] {
        let f = format!("promotions.{ext}");
        assert!(
            fs::read(out.join("plots").join(&f)).expect(&f) == fs::read(again.join(&f)).expect(&f),
            "{f}: run and plot differ"
        );
    }
    // Another tenant and repetition, chosen.
    let rep1 = jobs_of(&out, "1");
    let other = rep1
        .iter()
        .map(|(_, u, ..)| u.as_str())
        .find(|u| *u != user)
        .expect("another tenant in repetition 1");
    let chosen = tmp.path().join("chosen");
    let o = plot(
        &out,
        &chosen,
        &["--tenant", other, "--rep", "1", "--format", "svg"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_promotions(&chosen.join("promotions.svg"), &out, "1", other);
}

#[test]
fn promotions_figure_in_every_format_and_the_paper_style() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_in(tmp.path(), &curve_trace(), &MULTI);
    let paper = tmp.path().join("paper");
    let o = plot(&out, &paper, &["--format", "all", "--style", "paper"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for ext in ["png", "svg", "pdf"] {
        let f = paper.join(format!("promotions.{ext}"));
        let bytes = fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(bytes.len() > 1000, "{}: {} bytes", f.display(), bytes.len());
    }
    assert!(
        fs::read(paper.join("promotions.pdf"))
            .expect("pdf")
            .starts_with(b"%PDF")
    );
    // Paper style keeps the title and notes for captions.md.
    let captions = fs::read_to_string(paper.join("captions.md")).expect("captions.md");
    let section = captions
        .split("\n## ")
        .find(|s| s.starts_with("promotions\n"))
        .unwrap_or_else(|| panic!("no promotions caption: {captions}"));
    assert!(section.contains("promotions of tenant"), "{section}");
    assert!(section.contains("a promotion"), "{section}");
    let (texts, _) = svg_texts_and_circles(&paper.join("promotions.svg"));
    assert!(!texts.iter().any(|t| t.contains("promotions of tenant")));
}

#[test]
fn no_promotions_figure_for_a_plain_trace_or_full_fidelity_policies() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // A plain trace: the top levels of the curve trace, no fidelity column.
    let plain: String = curve_trace()
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || l.split(',').nth(2) == Some("9"))
        .map(|(_, l)| {
            let c: Vec<&str> = l.split(',').collect();
            format!("{},{},{},{}\n", c[0], c[1], c[3], c[4])
        })
        .collect();
    assert!(plain.starts_with("user,model,accuracy,runtime_s\nu0,m0,"));
    let a = tmp.path().join("a");
    fs::create_dir(&a).expect("mkdir");
    let out = run_in(&a, &plain, &[("rr-random", "round-robin", "random")]);
    assert!(out.join("plots/tenant-accuracy.svg").is_file());
    assert!(!out.join("plots/promotions.svg").exists());
    assert!(!out.join("plots/promotions.png").exists());
    let o = plot(&out, &tmp.path().join("pa"), &["--tenant", "u0"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--tenant") && err.contains("no fidelity column"),
        "{err}"
    );
    // A curve trace run at the largest fidelity only: no figure, a note.
    let b = tmp.path().join("b");
    fs::create_dir(&b).expect("mkdir");
    let out = run_in(
        &b,
        &curve_trace(),
        &[("rr-random", "round-robin", "random")],
    );
    assert!(!out.join("plots/promotions.svg").exists());
    let o = plot(&out, &tmp.path().join("pb"), &[]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("promotions skipped") && err.contains("largest fidelity"),
        "{err}"
    );
}

#[test]
fn promotions_tenant_without_jobs_is_a_usage_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_in(tmp.path(), &curve_trace(), &MULTI);
    let o = plot(&out, &tmp.path().join("p"), &["--tenant", "nobody"]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--tenant nobody") && err.contains("repetition 0"),
        "{err}"
    );
    assert!(!tmp.path().join("p").exists(), "nothing written");
}

/// Regression: "below the top" was measured against the tenant's largest
/// fidelity, so on LCDB (pairs of one data set stop at different anchors)
/// the full-fidelity `random` baseline got a panel and was chosen. It is
/// measured per (tenant, model) pair now.
#[test]
fn pairs_with_different_tops_give_a_full_fidelity_policy_no_panel() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // m1 and m3 stop at fidelity 3; m0 and m2 go on to 9.
    let trace: String = curve_trace()
        .lines()
        .filter(|l| !(l.contains(",m1,9,") || l.contains(",m3,9,")))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(trace.contains(",m1,3,") && !trace.contains(",m1,9,"));
    let a = tmp.path().join("a");
    fs::create_dir(&a).expect("mkdir");
    let out = run_in(&a, &trace, &[("rr-random", "round-robin", "random")]);
    assert!(!out.join("plots/promotions.svg").exists());
    // With ASHA beside it, the figure is drawn without a random panel.
    let b = tmp.path().join("b");
    fs::create_dir(&b).expect("mkdir");
    let out = run_in(&b, &trace, &MULTI);
    let svg = out.join("plots/promotions.svg");
    let (texts, _) = svg_texts_and_circles(&svg);
    check_promotions(&svg, &out, "0", &titled_tenant(&texts));
}
