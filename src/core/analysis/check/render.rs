//! The check [`Report`] as text (capped, for people), JSON, JUnit XML (one
//! testcase per point, policy and metric) and markdown (for
//! `$GITHUB_STEP_SUMMARY`).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Case, Method, Report, Test, rep_order, same_value};

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
            let count = |f: &dyn Fn(&Case) -> bool| r.cases.iter().filter(|c| f(c)).count();
            let untested = count(&|c| c.untested.is_some());
            let rejected = count(&|c| c.failed && c.stat.is_some());
            let constant = count(&|c| !c.secondary && c.constant.is_some());
            let differ = count(&|c| c.failed && c.constant.is_some());
            let exact = count(&|c| !c.secondary && c.paired_exact.is_some());
            let shifted = count(&|c| c.failed && c.paired_exact.is_some());
            let secondary = r.secondary_checked
                + count(&|c| c.secondary && (c.constant.is_some() || c.paired_exact.is_some()));
            let moved = count(&|c| c.moved);
            let family = r.family.as_ref().map_or(String::new(), |f| f.describe());
            let rest = format!(
                "{untested} not tested; family: {family}{}; secondary (not in the verdict): {moved} of {secondary} moved ({} vs {})",
                pairing_note(r),
                r.results,
                r.golden
            );
            let tests = tests_label(r);
            if r.drifted() {
                let shifted = if exact > 0 {
                    format!(", {shifted} of {exact} paired metrics shifted by a constant")
                } else {
                    String::new()
                };
                format!(
                    "drift: {shape}{rejected} of {} {tests} reject at alpha {alpha} (Holm-adjusted), {differ} of {constant} constant metrics differ{shifted}; {rest}",
                    r.checked
                )
            } else {
                let identical = if exact > 0 {
                    format!(", {exact} paired metrics identical")
                } else {
                    String::new()
                };
                format!(
                    "ok: {} {tests} at alpha {alpha} (Holm-adjusted), no distribution moved; {constant} constant metrics the same{identical}; {rest}",
                    r.checked
                )
            }
        }
    }
}

/// The tests of the pass/fail family, named for the verdict: "Welch
/// tests" when no point pairs its repetitions (or none of its tests is
/// paired), "paired t tests" when every test is paired, else "t tests
/// (W Welch, P paired)".
fn tests_label(r: &Report) -> String {
    let of = |t: Test| {
        r.cases
            .iter()
            .filter(|c| !c.secondary && c.stat.as_ref().is_some_and(|s| s.test == t))
            .count()
    };
    let (w, p) = (of(Test::Welch), of(Test::Paired));
    let any_paired = r.pairing.iter().any(|x| x.paired);
    if p == 0 && (w > 0 || !any_paired) {
        "Welch tests".into()
    } else if w == 0 {
        "paired t tests".into()
    } else {
        format!("t tests ({w} Welch, {p} paired)")
    }
}

/// "; paired: the same seed S and N repetitions on both sides" (one run)
/// or "; paired at K of M points" (a sweep) when some point pairs its
/// repetitions; empty otherwise.
fn pairing_note(r: &Report) -> String {
    let paired: Vec<_> = r.pairing.iter().filter(|p| p.paired).collect();
    match (paired.as_slice(), r.pairing.as_slice()) {
        ([], _) => String::new(),
        ([one], [_]) if one.point.is_empty() => format!("; paired: {}", one.reason),
        (some, all) => format!("; paired at {} of {} points", some.len(), all.len()),
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

/// Whether the report is of a sweep (its tables get a point column).
fn is_sweep(r: &Report) -> bool {
    r.cases.iter().any(|c| !c.point.is_empty()) || r.problems.iter().any(|p| !p.point.is_empty())
}

/// The statistical table of `cases` (worst first), at most `cap` rows
/// (and how many were left out). A constant compared exactly shows its
/// two values as the means, g ±inf (or n/a for text) and p `exact`; a
/// paired column whose differences are all equal its means, g ±inf and p
/// `exact`. The last column names the test: `welch`, `paired`,
/// `constant`, `paired-exact`.
fn stat_rows(
    r: &Report,
    cases: Vec<&Case>,
    cap: usize,
) -> (Vec<&'static str>, Vec<Vec<String>>, usize) {
    let sweep = is_sweep(r);
    let mut header: Vec<&'static str> = if sweep { vec!["point"] } else { vec![] };
    header.extend([
        "policy",
        "metric",
        "golden_mean",
        "results_mean",
        "hedges_g",
        "p",
        "p_holm",
        "test",
    ]);
    let total = cases.len();
    let mut rows = Vec::new();
    for c in cases.into_iter().take(cap) {
        let mut row = if sweep { vec![c.point.clone()] } else { vec![] };
        row.extend([c.policy.clone(), c.metric.clone()]);
        match (&c.stat, &c.constant, &c.paired_exact) {
            (Some(s), _, _) => row.extend([
                short(s.mean.0),
                short(s.mean.1),
                short(s.g),
                format!("{:.3e}", s.p),
                format!("{:.3e}", s.p_holm),
                s.test.name().into(),
            ]),
            (None, Some((g, v)), _) => row.extend([
                g.clone(),
                v.clone(),
                constant_g(g, v),
                "exact".into(),
                "exact".into(),
                "constant".into(),
            ]),
            (None, None, Some(e)) => row.extend([
                short(e.mean.0),
                short(e.mean.1),
                num(if e.diff == 0.0 {
                    0.0
                } else {
                    e.diff.signum() * f64::INFINITY
                }),
                "exact".into(),
                "exact".into(),
                "paired-exact".into(),
            ]),
            _ => continue,
        }
        rows.push(row);
    }
    (header, rows, total.saturating_sub(cap))
}

/// Hedges' g of two constants: 0 when the same, ±inf by the direction of
/// the change between numbers, `n/a` between texts.
fn constant_g(golden: &str, results: &str) -> String {
    if same_value(golden, results) {
        return "0".into();
    }
    match (golden.parse::<f64>(), results.parse::<f64>()) {
        (Ok(g), Ok(v)) if v > g => "inf".into(),
        (Ok(g), Ok(v)) if v < g => "-inf".into(),
        _ => "n/a".into(),
    }
}

/// The rows of the failure table, worst first, at most `cap` (and how
/// many were left out).
fn failure_rows(r: &Report, cap: usize) -> (Vec<&'static str>, Vec<Vec<String>>, usize) {
    if let Method::Stat { .. } = r.method {
        return stat_rows(r, r.failures_largest_first(), cap);
    }
    let sweep = is_sweep(r);
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
        Method::Stat { .. } => total = 0,
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
    let (header, rows, more) = stat_rows(r, r.moved_largest_first(), TEXT_CAP);
    if !rows.is_empty() {
        out += MOVED_TITLE;
        out.push('\n');
        out += &table(&header, &rows);
    }
    if more > 0 {
        let _ = writeln!(out, "and {more} more");
    }
    out + &verdict(r) + "\n"
}

/// The title of the table of secondary cases that moved.
const MOVED_TITLE: &str = "secondary metrics that moved (not part of the verdict):";

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
                "status": if c.failed { "fail" } else if c.moved { "moved" } else if c.untested.is_some() { "untested" } else { "pass" },
            });
            if let Method::Stat { .. } = r.method {
                v["family"] = json!(if c.secondary { "secondary" } else { "primary" });
                let test = match (&c.stat, &c.constant, &c.paired_exact) {
                    (Some(s), _, _) => Some(s.test.name()),
                    (None, Some(_), _) => Some("constant"),
                    (None, None, Some(_)) => Some("paired-exact"),
                    _ => None,
                };
                if let Some(t) = test {
                    v["test"] = json!(t);
                }
            }
            if let Some((g, x)) = &c.constant {
                v["constant"] = json!({"golden": g, "results": x});
            }
            if let Some(e) = &c.paired_exact {
                v["paired_exact"] = json!({
                    "n": e.n, "mean_golden": jnum(e.mean.0), "mean_results": jnum(e.mean.1),
                    "difference": jnum(e.diff),
                });
            }
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
    let mut doc = json!({
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
    if let Some(f) = &r.family {
        doc["family"] = json!({"source": f.describe(), "metrics": f.metrics});
        doc["secondary_checked"] = json!(r.secondary_checked);
        doc["moved"] = json!(r.cases.iter().filter(|c| c.moved).count());
        // Which test the points' tables got: welch (no point pairs),
        // paired (every point), paired+welch (a sweep with both); a row's
        // own `test` says which it got.
        let paired = r.pairing.iter().filter(|p| p.paired).count();
        if paired > 0 {
            doc["method"]["test"] = json!(if paired == r.pairing.len() {
                "paired"
            } else {
                "paired+welch"
            });
        }
        doc["pairing"] = r
            .pairing
            .iter()
            .map(|p| json!({"point": p.point, "paired": p.paired, "reason": p.reason}))
            .collect();
    }
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
            "golden mean {} (n {}), results mean {} (n {}), {} t {} (df {}), p {}, Holm-adjusted p {}, Hedges' g {}",
            num(s.mean.0),
            s.n.0,
            num(s.mean.1),
            s.n.1,
            match s.test {
                Test::Welch => "Welch",
                Test::Paired => "paired",
            },
            short(s.t),
            short(s.df),
            num(s.p),
            num(s.p_holm),
            short(s.g)
        ),
        None if c.paired_exact.is_some() => {
            let e = c.paired_exact.clone().unwrap_or(super::PairedExact {
                n: 0,
                mean: (f64::NAN, f64::NAN),
                diff: f64::NAN,
            });
            format!(
                "paired (the same seed): results - golden = {} in every one of {} repetitions (compared exactly); golden mean {}, results mean {}",
                num(e.diff),
                e.n,
                num(e.mean.0),
                num(e.mean.1)
            )
        }
        None if c.constant.is_some() => {
            let (g, v) = c.constant.clone().unwrap_or_default();
            format!(
                "constant: golden {g} in every repetition, results {v} in every repetition (compared exactly)"
            )
        }
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
        } else if c.moved {
            let _ = writeln!(
                out,
                ">\n      <system-out>{}</system-out>\n    </testcase>",
                xml(&format!(
                    "moved (a secondary metric, not part of the verdict): {}",
                    failure_detail(c)
                ))
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
            let family = r.family.as_ref().map_or(String::new(), |f| {
                let names: Vec<String> = f.metrics.iter().map(|m| format!("`{}`", md(m))).collect();
                format!(
                    "; pass/fail family: {} ({}), other metrics secondary",
                    names.join(", "),
                    md(&f.describe())
                )
            });
            let paired = r.pairing.iter().filter(|p| p.paired).count();
            let test = match (paired, r.pairing.as_slice()) {
                (0, _) => "Welch's t".to_string(),
                (1, [one]) => format!("paired t ({})", md(&one.reason)),
                (k, all) if k == all.len() => {
                    "paired t (the same seed and repetitions at every point)".to_string()
                }
                (k, all) => format!(
                    "paired t at {k} of {} points (the same seed and repetitions), Welch's t at the others",
                    all.len()
                ),
            };
            format!(
                "statistical: {test} per policy and metric, Holm-Bonferroni, alpha {alpha}{family}"
            )
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
    let tables = [
        (None, failure_rows(r, MARKDOWN_CAP)),
        (
            Some(MOVED_TITLE),
            stat_rows(r, r.moved_largest_first(), MARKDOWN_CAP),
        ),
    ];
    for (title, (header, rows, more)) in tables {
        if rows.is_empty() {
            continue;
        }
        if let Some(t) = title {
            let _ = writeln!(out, "{}\n", capitalised(t));
        }
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

/// `s` with its first letter upper-case.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}
