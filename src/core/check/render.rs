//! The check [`Report`] as text (capped, for people), JSON, JUnit XML (one
//! testcase per point, policy and metric) and markdown (for
//! `$GITHUB_STEP_SUMMARY`).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Case, Method, Report, rep_order};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The capped human text.
    Text,
    /// JSON (keys sorted).
    Json,
    /// JUnit XML.
    Junit,
    /// A markdown summary.
    Markdown,
}

/// Lines of deviations the text shows before "and N more".
pub const TEXT_CAP: usize = 20;
/// Table rows the markdown shows before "and N more".
pub const MARKDOWN_CAP: usize = 50;

/// `report` in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Text => text(report),
        Format::Json => json_text(report),
        Format::Junit => junit(report),
        Format::Markdown => markdown(report),
    }
}

/// The one-line verdict.
pub fn verdict(r: &Report) -> String {
    let failed = r.cases.iter().filter(|c| c.failed).count();
    let shape = if r.problems.is_empty() {
        String::new()
    } else {
        format!(
            "{} difference(s) of shape (points, policies, metrics or repetitions); ",
            r.problems.len()
        )
    };
    match r.method {
        Method::Exact(tol) => {
            let values: usize = r.cases.iter().map(|c| c.deviations.len()).sum();
            if r.drifted() {
                format!(
                    "drift: {shape}{values} of {} values drifted beyond rtol {:e} / atol {:e} ({} vs {})",
                    r.checked, tol.rtol, tol.atol, r.results, r.golden
                )
            } else {
                format!(
                    "ok: {} values of {} match {} (rtol {:e}, atol {:e})",
                    r.checked, r.results, r.golden, tol.rtol, tol.atol
                )
            }
        }
        Method::Stat { alpha } => {
            let untested = r.cases.iter().filter(|c| c.stat.is_none()).count();
            if r.drifted() {
                format!(
                    "drift: {shape}{failed} of {} Welch tests reject at alpha {alpha} (Holm-adjusted; {untested} not tested) ({} vs {})",
                    r.checked, r.results, r.golden
                )
            } else {
                format!(
                    "ok: {} Welch tests at alpha {alpha} (Holm-adjusted), no distribution moved; {untested} not tested ({} vs {})",
                    r.checked, r.results, r.golden
                )
            }
        }
    }
}

/// A number as the reports write it: shortest round-trip text, `inf`.
fn num(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{x}")
    }
}

/// A number for JSON: a JSON number when finite, else the text "inf",
/// "-inf" or "nan" (JSON has no such numbers).
fn jnum(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        json!(num(x))
    }
}

/// A number rounded to 4 significant decimals for people.
fn short(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.4}")
    } else {
        num(x)
    }
}

/// Rows of cells, the columns padded to their widest cell.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (c, w) in cells.iter().zip(&widths) {
            let _ = write!(s, "{c:<w$}  ");
        }
        s.trim_end().to_string()
    };
    let mut out = line(header.to_vec()) + "\n";
    for r in rows {
        out += &line(r.iter().map(String::as_str).collect());
        out.push('\n');
    }
    out
}

/// Exact check: every deviation as (case, deviation index), largest first,
/// ties by point, policy, repetition (numeric) and metric.
fn deviations_largest_first(r: &Report) -> Vec<(&Case, usize)> {
    let mut v: Vec<(&Case, usize)> = r
        .cases
        .iter()
        .flat_map(|c| (0..c.deviations.len()).map(move |i| (c, i)))
        .collect();
    v.sort_by(|(a, i), (b, j)| {
        let (x, y) = (&a.deviations[*i], &b.deviations[*j]);
        y.size
            .total_cmp(&x.size)
            .then_with(|| a.point.cmp(&b.point))
            .then_with(|| a.policy.cmp(&b.policy))
            .then_with(|| rep_order(&x.rep, &y.rep))
            .then_with(|| a.metric.cmp(&b.metric))
    });
    v
}

/// The rows of the failure table, worst first, at most `cap` (and how
/// many were left out).
fn failure_rows(r: &Report, cap: usize) -> (Vec<&'static str>, Vec<Vec<String>>, usize) {
    let sweep = r.cases.iter().any(|c| !c.point.is_empty())
        || r.problems.iter().any(|p| !p.point.is_empty());
    let mut header: Vec<&'static str> = if sweep { vec!["point"] } else { vec![] };
    let mut rows = Vec::new();
    let total;
    match r.method {
        Method::Exact(_) => {
            header.extend(["policy", "rep", "metric", "got", "golden", "rel_dev"]);
            let all = deviations_largest_first(r);
            total = all.len();
            for (c, i) in all.into_iter().take(cap) {
                let d = &c.deviations[i];
                let mut row = if sweep { vec![c.point.clone()] } else { vec![] };
                row.extend([
                    c.policy.clone(),
                    d.rep.clone(),
                    c.metric.clone(),
                    d.got.clone(),
                    d.golden.clone(),
                    format!("{:.3e}", d.size),
                ]);
                rows.push(row);
            }
        }
        Method::Stat { .. } => {
            header.extend([
                "policy",
                "metric",
                "golden_mean",
                "results_mean",
                "hedges_g",
                "p",
                "p_holm",
            ]);
            let all = r.failures_largest_first();
            total = all.len();
            for c in all.into_iter().take(cap) {
                let Some(s) = &c.stat else { continue };
                let mut row = if sweep { vec![c.point.clone()] } else { vec![] };
                row.extend([
                    c.policy.clone(),
                    c.metric.clone(),
                    short(s.mean.0),
                    short(s.mean.1),
                    short(s.g),
                    format!("{:.3e}", s.p),
                    format!("{:.3e}", s.p_holm),
                ]);
                rows.push(row);
            }
        }
    }
    (header, rows, total.saturating_sub(cap))
}

fn text(r: &Report) -> String {
    let mut out = String::new();
    for p in r.problems.iter().take(TEXT_CAP) {
        let _ = writeln!(out, "{}", p.message);
    }
    if r.problems.len() > TEXT_CAP {
        let _ = writeln!(
            out,
            "and {} more differences of shape",
            r.problems.len() - TEXT_CAP
        );
    }
    let (header, rows, more) = failure_rows(r, TEXT_CAP);
    if !rows.is_empty() {
        out += &table(&header, &rows);
    }
    if more > 0 {
        let _ = writeln!(out, "and {more} more");
    }
    out + &verdict(r) + "\n"
}

/// Exact or stat, with its parameters, as JSON.
fn method_json(m: Method) -> Value {
    match m {
        Method::Exact(t) => json!({"kind": "exact", "rtol": t.rtol, "atol": t.atol}),
        Method::Stat { alpha } => {
            json!({"kind": "stat", "test": "welch", "correction": "holm", "alpha": alpha})
        }
    }
}

fn json_text(r: &Report) -> String {
    let cases: Vec<Value> = r
        .cases
        .iter()
        .map(|c| {
            let mut v = json!({
                "point": c.point,
                "policy": c.policy,
                "metric": c.metric,
                "status": if c.failed { "fail" } else if c.untested.is_some() { "untested" } else { "pass" },
            });
            if let Method::Exact(_) = r.method {
                v["deviations"] = c
                    .deviations
                    .iter()
                    .map(|d| json!({"rep": d.rep, "got": d.got, "golden": d.golden, "rel_dev": jnum(d.size)}))
                    .collect();
            }
            if let Some(s) = &c.stat {
                v["stat"] = json!({
                    "n_golden": s.n.0, "n_results": s.n.1,
                    "mean_golden": jnum(s.mean.0), "mean_results": jnum(s.mean.1),
                    "t": jnum(s.t), "df": jnum(s.df), "p": jnum(s.p), "p_holm": jnum(s.p_holm),
                    "hedges_g": jnum(s.g),
                });
            }
            if let Some(u) = &c.untested {
                v["untested"] = json!(u);
            }
            v
        })
        .collect();
    let problems: Vec<Value> = r
        .problems
        .iter()
        .map(|p| json!({"point": p.point, "message": p.message}))
        .collect();
    let doc = json!({
        "verdict": if r.drifted() { "drift" } else { "same" },
        "summary": verdict(r),
        "method": method_json(r.method),
        "results": r.results,
        "golden": r.golden,
        "checked": r.checked,
        "failed": r.cases.iter().filter(|c| c.failed).count(),
        "problems": problems,
        "cases": cases,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// Text escaped for an XML attribute or element.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 does not allow, even escaped.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// What failed in a case, one line per deviation (exact) or the test.
fn failure_detail(c: &Case) -> String {
    match &c.stat {
        Some(s) => format!(
            "golden mean {} (n {}), results mean {} (n {}), Welch t {} (df {}), p {}, Holm-adjusted p {}, Hedges' g {}",
            num(s.mean.0),
            s.n.0,
            num(s.mean.1),
            s.n.1,
            short(s.t),
            short(s.df),
            num(s.p),
            num(s.p_holm),
            short(s.g)
        ),
        None => c
            .deviations
            .iter()
            .map(|d| format!("rep {}: got {}, golden {}", d.rep, d.got, d.golden))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn junit(r: &Report) -> String {
    let failures = r.cases.iter().filter(|c| c.failed).count() + r.problems.len();
    let skipped = r.cases.iter().filter(|c| c.untested.is_some()).count();
    let tests = r.cases.len() + r.problems.len();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"tenantsim check\" tests=\"{tests}\" failures=\"{failures}\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" skipped=\"{skipped}\" errors=\"0\">",
        xml(&format!("check {} against {}", r.results, r.golden))
    );
    let class = |point: &str| {
        if point.is_empty() {
            "tenantsim.check".to_string()
        } else {
            format!("tenantsim.check.{point}")
        }
    };
    for p in &r.problems {
        let _ = writeln!(
            out,
            "    <testcase classname=\"{}\" name=\"shape\">\n      <failure message=\"{}\" type=\"drift\"/>\n    </testcase>",
            xml(&class(&p.point)),
            xml(&p.message)
        );
    }
    for c in &r.cases {
        let name = xml(&format!("{} {}", c.policy, c.metric));
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{name}\"",
            xml(&class(&c.point))
        );
        if c.failed {
            let detail = failure_detail(c);
            let first = detail.lines().next().unwrap_or("");
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}: {}\" type=\"drift\">{}</failure>\n    </testcase>",
                xml(&format!(
                    "{} / {} / {}",
                    if c.point.is_empty() { "run" } else { &c.point },
                    c.policy,
                    c.metric
                )),
                xml(first),
                xml(&detail)
            );
        } else if let Some(u) = &c.untested {
            let _ = writeln!(
                out,
                ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                xml(u)
            );
        } else {
            let _ = writeln!(out, "/>");
        }
    }
    out + "  </testsuite>\n</testsuites>\n"
}

/// A markdown table cell: pipes escaped, no line breaks.
fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn markdown(r: &Report) -> String {
    let mut out = format!(
        "## tenantsim check: {}\n\n",
        if r.drifted() { "drift" } else { "same" }
    );
    let how = match r.method {
        Method::Exact(t) => format!("exact, rtol {:e}, atol {:e}", t.rtol, t.atol),
        Method::Stat { alpha } => {
            format!("statistical: Welch's t per policy and metric, Holm-Bonferroni, alpha {alpha}")
        }
    };
    let _ = writeln!(
        out,
        "`{}` against the golden `{}` ({how}).\n",
        md(&r.results),
        md(&r.golden)
    );
    for p in r.problems.iter().take(MARKDOWN_CAP) {
        let _ = writeln!(out, "- {}", md(&p.message));
    }
    if !r.problems.is_empty() {
        out.push('\n');
    }
    let (header, rows, more) = failure_rows(r, MARKDOWN_CAP);
    if !rows.is_empty() {
        let _ = writeln!(out, "| {} |", header.join(" | "));
        let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
        for row in &rows {
            let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        if more > 0 {
            let _ = writeln!(out, "\nand {more} more");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "**{}**", md(&verdict(r)));
    out
}
