//! Summary tables of a results folder for papers and notes (`tenantsim
//! table`): LaTeX (booktabs, best per column in bold, ∞ for `inf`),
//! markdown or CSV. Every number is a number of the folder's CSVs rounded
//! to [`TableOptions::digits`] decimals (half away from zero, as `format!`
//! rounds), never recomputed.
//!
//! | folder | rows | columns (`--metric`) |
//! |---|---|---|
//! | model mode | policies | `time`: T(θ) per θ (`speedups.csv` `t_policy_s`); `speedup`: T_B(θ)/T_X(θ) per θ (`speedup`); `regret`: mean cumulative regret and its interval (`regret.csv`) |
//! | job mode | policies (× repetitions when there are several) | `summary.csv` JCT columns: mean, median, p95, p99 JCT, mean queueing delay, makespan, GPU utilisation |
//! | sweep | swept key values × policy (best in bold per point) | `sweep.csv` columns, default `regret_mean` with its interval and every `time_to_*` and `speedup_*` |

use super::read::{Cell, Source};
use super::{Kind, kind_of};
use crate::core::choice::Choice;
use crate::core::error::{Error, Result};

/// Output syntax of a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TableFormat {
    /// A LaTeX `tabular` with booktabs rules.
    #[default]
    Latex,
    /// A GitHub-flavoured markdown table.
    Markdown,
    /// CSV (intervals as two columns, no bold).
    Csv,
}

impl Choice for TableFormat {
    const ALL: &'static [Self] = &[Self::Latex, Self::Markdown, Self::Csv];
    fn name(self) -> &'static str {
        match self {
            Self::Latex => "latex",
            Self::Markdown => "markdown",
            Self::Csv => "csv",
        }
    }
    fn help(self) -> &'static str {
        match self {
            Self::Latex => "tabular with booktabs rules (\\usepackage{booktabs}), best in bold",
            Self::Markdown => "markdown table, best in bold",
            Self::Csv => "CSV, the rounded numbers only",
        }
    }
}

/// What to tabulate and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOptions {
    /// Output syntax.
    pub format: TableFormat,
    /// Column groups (model mode: `time`, `speedup`, `regret`) or columns
    /// (job mode: `summary.csv` columns; sweeps: `sweep.csv` columns);
    /// empty = the defaults.
    pub metrics: Vec<String>,
    /// Decimals of every number.
    pub digits: usize,
}

impl Default for TableOptions {
    fn default() -> Self {
        Self {
            format: TableFormat::Latex,
            metrics: Vec::new(),
            digits: 2,
        }
    }
}

/// Which value of a column is best.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// The smallest.
    Lower,
    /// The largest.
    Higher,
}

/// One value of a table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A number, `inf` or `n/a`.
    One(Cell),
    /// An interval (low, high).
    Interval(f64, f64),
}

/// A column: its title and which direction is best (none: no bold).
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Title.
    pub title: String,
    /// Best direction, if any.
    pub better: Option<Better>,
}

/// A table: leading text columns (policy, swept keys), numeric columns,
/// rows in groups (bold is per column within a group).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grid {
    /// Titles of the text columns.
    pub keys: Vec<String>,
    /// The numeric columns.
    pub columns: Vec<Column>,
    /// Rows: group, key texts, values (one per column).
    pub rows: Vec<(usize, Vec<String>, Vec<Value>)>,
}

/// The table of the results folder `dir`, rendered.
pub fn table_of(dir: &std::path::Path, opts: &TableOptions) -> Result<String> {
    Ok(render(
        &grid_of(dir, &opts.metrics)?,
        opts.format,
        opts.digits,
    ))
}

fn unknown(what: &str, m: &str, known: &[String]) -> Error {
    Error::usage(format!(
        "--metric {m}: not a {what} (choose from: {})",
        known.join(", ")
    ))
}

/// Model mode: policies × T(θ), speedup(θ), regret and its interval.
pub fn model_grid(src: &Source<'_>, metrics: &[String]) -> Result<Grid> {
    let groups = ["time", "speedup", "regret"].map(String::from);
    for m in metrics {
        if !groups.contains(m) {
            return Err(unknown("model-mode column group", m, &groups));
        }
    }
    let want = |g: &str| metrics.is_empty() || metrics.iter().any(|m| m == g);
    let sp = src.table(
        "speedups.csv",
        &["policy", "theta", "t_policy_s", "speedup"],
    )?;
    let (p, th, t, s) = (
        sp.col("policy")?,
        sp.col("theta")?,
        sp.col("t_policy_s")?,
        sp.col("speedup")?,
    );
    let mut policies: Vec<String> = Vec::new();
    let mut thetas: Vec<String> = Vec::new();
    let mut cells: Vec<(String, String, Cell, Cell)> = Vec::new();
    let mut baseline = String::new();
    let b = sp.col("baseline").ok();
    for r in sp.rows() {
        let r = r?;
        let policy = r.name(p)?.to_string();
        let theta = r.name(th)?.to_string();
        let time = match r.time_or_inf(t)? {
            Some(v) => Cell::Num(v),
            None => Cell::Inf,
        };
        if let Some(b) = b {
            baseline = r.str(b).to_string();
        }
        if !policies.contains(&policy) {
            policies.push(policy.clone());
        }
        if !thetas.contains(&theta) {
            thetas.push(theta.clone());
        }
        cells.push((policy, theta, time, r.cell(s)?));
    }
    let rg = src.table(
        "regret.csv",
        &["policy", "mean_regret", "ci_low", "ci_high"],
    )?;
    let (rp, rm, lo, hi) = (
        rg.col("policy")?,
        rg.col("mean_regret")?,
        rg.col("ci_low")?,
        rg.col("ci_high")?,
    );
    let mut regret: Vec<(String, f64, f64, f64)> = Vec::new();
    for r in rg.rows() {
        let r = r?;
        let policy = r.name(rp)?.to_string();
        if !policies.contains(&policy) {
            policies.push(policy.clone());
        }
        regret.push((policy, r.num(rm)?, r.num(lo)?, r.num(hi)?));
    }
    let mut grid = Grid {
        keys: vec!["policy".into()],
        ..Grid::default()
    };
    if want("time") {
        for th in &thetas {
            grid.columns.push(Column {
                title: format!("T({th}) (s)"),
                better: Some(Better::Lower),
            });
        }
    }
    if want("speedup") {
        for th in &thetas {
            grid.columns.push(Column {
                title: if baseline.is_empty() {
                    format!("speedup at θ={th}")
                } else {
                    format!("speedup at θ={th} vs {baseline}")
                },
                better: Some(Better::Higher),
            });
        }
    }
    if want("regret") {
        grid.columns.push(Column {
            title: "cumulative regret".into(),
            better: Some(Better::Lower),
        });
        grid.columns.push(Column {
            title: "regret interval".into(),
            better: None,
        });
    }
    let find = |policy: &str, th: &str| {
        cells
            .iter()
            .find(|c| c.0 == policy && c.1 == th)
            .map(|c| (c.2, c.3))
    };
    for policy in &policies {
        let mut values = Vec::new();
        if want("time") {
            for th in &thetas {
                values.push(Value::One(
                    find(policy, th).map_or(Cell::NotApplicable, |c| c.0),
                ));
            }
        }
        if want("speedup") {
            for th in &thetas {
                values.push(Value::One(
                    find(policy, th).map_or(Cell::NotApplicable, |c| c.1),
                ));
            }
        }
        if want("regret") {
            match regret.iter().find(|r| &r.0 == policy) {
                Some(r) => {
                    values.push(Value::One(Cell::Num(r.1)));
                    values.push(Value::Interval(r.2, r.3));
                }
                None => {
                    values.push(Value::One(Cell::NotApplicable));
                    values.push(Value::One(Cell::NotApplicable));
                }
            }
        }
        grid.rows.push((0, vec![policy.clone()], values));
    }
    Ok(grid)
}

/// The JCT columns of a job-mode `summary.csv` (title, best direction).
const JOB_COLUMNS: [(&str, &str, Better); 7] = [
    ("mean_jct_s", "mean JCT (s)", Better::Lower),
    ("median_jct_s", "median JCT (s)", Better::Lower),
    ("p95_jct_s", "p95 JCT (s)", Better::Lower),
    ("p99_jct_s", "p99 JCT (s)", Better::Lower),
    (
        "mean_queueing_delay_s",
        "mean queueing delay (s)",
        Better::Lower,
    ),
    ("makespan_s", "makespan (s)", Better::Lower),
    ("gpu_utilization", "GPU utilisation", Better::Higher),
];

/// Job mode: one row per policy (and repetition, when there are several).
pub fn jobs_grid(src: &Source<'_>, metrics: &[String]) -> Result<Grid> {
    let known: Vec<String> = JOB_COLUMNS.iter().map(|c| c.0.to_string()).collect();
    for m in metrics {
        if !known.contains(m) {
            return Err(unknown("job-mode summary.csv column", m, &known));
        }
    }
    let chosen: Vec<_> = JOB_COLUMNS
        .iter()
        .filter(|c| metrics.is_empty() || metrics.iter().any(|m| m == c.0))
        .collect();
    let names: Vec<&str> = ["policy", "rep"]
        .into_iter()
        .chain(chosen.iter().map(|c| c.0))
        .collect();
    let t = src.table("summary.csv", &names)?;
    let (p, rep) = (t.col("policy")?, t.col("rep")?);
    let cols = chosen
        .iter()
        .map(|c| t.col(c.0))
        .collect::<Result<Vec<_>>>()?;
    let mut rows = Vec::new();
    for r in t.rows() {
        let r = r?;
        let values = cols
            .iter()
            .map(|&c| r.cell(c).map(Value::One))
            .collect::<Result<Vec<_>>>()?;
        rows.push((r.name(p)?.to_string(), r.count(rep)?, values));
    }
    let many_reps = rows.iter().any(|r| r.1 != rows[0].1);
    let mut grid = Grid {
        keys: if many_reps {
            vec!["policy".into(), "rep".into()]
        } else {
            vec!["policy".into()]
        },
        columns: chosen
            .iter()
            .map(|c| Column {
                title: c.1.to_string(),
                better: Some(c.2),
            })
            .collect(),
        rows: Vec::new(),
    };
    for (policy, rep, values) in rows {
        let keys = if many_reps {
            vec![policy, rep.to_string()]
        } else {
            vec![policy]
        };
        // Bold within a repetition: the policies compared on the same jobs.
        grid.rows.push((rep as usize, keys, values));
    }
    Ok(grid)
}

/// A sweep: swept key values × policy, the chosen `sweep.csv` columns.
pub fn sweep_grid(src: &Source<'_>, metrics: &[String]) -> Result<Grid> {
    let t = src.table("sweep.csv", &["point", "folder", "policy"])?;
    let header: Vec<String> = t.header().to_vec();
    let pos = |n: &str| header.iter().position(|h| h == n);
    let (Some(folder), Some(policy_at)) = (pos("folder"), pos("policy")) else {
        return Err(Error::input("sweep.csv: no folder or policy column"));
    };
    // The swept keys sit between `folder` and `policy`.
    let keys: Vec<usize> = (folder + 1..policy_at).collect();
    let metric_cols: Vec<usize> = if metrics.is_empty() {
        header
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                h.as_str() == "regret_mean"
                    || h.starts_with("time_to_")
                    || h.starts_with("speedup_")
            })
            .map(|(i, _)| i)
            .collect()
    } else {
        metrics
            .iter()
            .map(|m| {
                pos(m)
                    .filter(|&i| i > policy_at)
                    .ok_or_else(|| unknown("sweep.csv column", m, &header[policy_at + 1..]))
            })
            .collect::<Result<Vec<_>>>()?
    };
    let (lo, hi) = (pos("regret_ci_low"), pos("regret_ci_high"));
    let better = |h: &str| {
        if h.starts_with("speedup") {
            Some(Better::Higher)
        } else if h.starts_with("regret_mean")
            || h.starts_with("time_to_")
            || h.starts_with("final_loss")
        {
            Some(Better::Lower)
        } else {
            None
        }
    };
    let mut grid = Grid {
        keys: keys
            .iter()
            .map(|&k| header[k].clone())
            .chain(std::iter::once("policy".to_string()))
            .collect(),
        ..Grid::default()
    };
    let mut with_interval = Vec::new();
    for &c in &metric_cols {
        grid.columns.push(Column {
            title: header[c].clone(),
            better: better(&header[c]),
        });
        let interval = header[c] == "regret_mean" && lo.is_some() && hi.is_some();
        if interval {
            grid.columns.push(Column {
                title: "regret interval".into(),
                better: None,
            });
        }
        with_interval.push(interval);
    }
    let point = t.col("point")?;
    let mut points: Vec<String> = Vec::new();
    for r in t.rows() {
        let r = r?;
        let pt = r.name(point)?.to_string();
        if !points.contains(&pt) {
            points.push(pt.clone());
        }
        let group = points.iter().position(|p| *p == pt).unwrap_or(0);
        let mut values = Vec::new();
        for (&c, &interval) in metric_cols.iter().zip(&with_interval) {
            values.push(Value::One(r.cell(c)?));
            if let (true, Some(lo), Some(hi)) = (interval, lo, hi) {
                values.push(Value::Interval(r.num(lo)?, r.num(hi)?));
            }
        }
        let texts = keys
            .iter()
            .chain(std::iter::once(&policy_at))
            .map(|&k| r.str(k).to_string())
            .collect();
        grid.rows.push((group, texts, values));
    }
    Ok(grid)
}

/// Which rows hold the best value of column `c` within their group.
fn best(grid: &Grid, c: usize) -> Vec<bool> {
    let Some(dir) = grid.columns[c].better else {
        return vec![false; grid.rows.len()];
    };
    let score = |v: &Value| match v {
        Value::One(Cell::Num(x)) => Some(*x),
        Value::One(Cell::Inf) => Some(f64::INFINITY),
        _ => None,
    };
    grid.rows
        .iter()
        .map(|(g, _, vals)| {
            let Some(mine) = score(&vals[c]) else {
                return false;
            };
            let others = grid
                .rows
                .iter()
                .filter(|r| r.0 == *g)
                .filter_map(|r| score(&r.2[c]));
            match dir {
                Better::Lower => others.fold(f64::INFINITY, f64::min) == mine && mine.is_finite(),
                Better::Higher => others.fold(f64::NEG_INFINITY, f64::max) == mine,
            }
        })
        .collect()
}

fn num(v: f64, digits: usize) -> String {
    format!("{v:.digits$}")
}

fn latex_escape(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(ch);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            'θ' => out.push_str("$\\theta$"),
            c => out.push(c),
        }
    }
    out
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Render `grid` in `format` with `digits` decimals.
pub fn render(grid: &Grid, format: TableFormat, digits: usize) -> String {
    let bold: Vec<Vec<bool>> = (0..grid.columns.len()).map(|c| best(grid, c)).collect();
    let text = |v: &Value, f: TableFormat| -> String {
        match (v, f) {
            (Value::One(Cell::Num(x)), _) => num(*x, digits),
            (Value::One(Cell::Inf), TableFormat::Latex) => "$\\infty$".into(),
            (Value::One(Cell::Inf), TableFormat::Markdown) => "∞".into(),
            (Value::One(Cell::Inf), TableFormat::Csv) => "inf".into(),
            (Value::One(Cell::NotApplicable), TableFormat::Latex) => "n/a".into(),
            (Value::One(Cell::NotApplicable), _) => "n/a".into(),
            (Value::Interval(a, b), TableFormat::Latex) => {
                format!("[{}, {}]", num(*a, digits), num(*b, digits))
            }
            (Value::Interval(a, b), _) => format!("[{}, {}]", num(*a, digits), num(*b, digits)),
        }
    };
    let mut out = String::new();
    match format {
        TableFormat::Latex => {
            out.push_str(&format!(
                "% tenantsim table: numbers of the results CSVs rounded to {digits} decimal(s); best per column in bold\n% needs \\usepackage{{booktabs}}\n"
            ));
            out.push_str(&format!(
                "\\begin{{tabular}}{{{}{}}}\n\\toprule\n",
                "l".repeat(grid.keys.len()),
                "r".repeat(grid.columns.len())
            ));
            let head: Vec<String> = grid
                .keys
                .iter()
                .map(|k| latex_escape(k))
                .chain(grid.columns.iter().map(|c| latex_escape(&c.title)))
                .collect();
            out.push_str(&head.join(" & "));
            out.push_str(" \\\\\n\\midrule\n");
            let mut last_group = None;
            for (i, (g, keys, vals)) in grid.rows.iter().enumerate() {
                if last_group.is_some_and(|l| l != *g) {
                    out.push_str("\\midrule\n");
                }
                last_group = Some(*g);
                let cells: Vec<String> = keys
                    .iter()
                    .map(|k| latex_escape(k))
                    .chain(vals.iter().enumerate().map(|(c, v)| {
                        let t = text(v, format);
                        if bold[c][i] {
                            format!("\\textbf{{{t}}}")
                        } else {
                            t
                        }
                    }))
                    .collect();
                out.push_str(&cells.join(" & "));
                out.push_str(" \\\\\n");
            }
            out.push_str("\\bottomrule\n\\end{tabular}\n");
        }
        TableFormat::Markdown => {
            let head: Vec<String> = grid
                .keys
                .iter()
                .map(|k| md_escape(k))
                .chain(grid.columns.iter().map(|c| md_escape(&c.title)))
                .collect();
            out.push_str(&format!("| {} |\n", head.join(" | ")));
            let rule: Vec<&str> = grid
                .keys
                .iter()
                .map(|_| ":---")
                .chain(grid.columns.iter().map(|_| "---:"))
                .collect();
            out.push_str(&format!("| {} |\n", rule.join(" | ")));
            for (i, (_, keys, vals)) in grid.rows.iter().enumerate() {
                let cells: Vec<String> = keys
                    .iter()
                    .map(|k| md_escape(k))
                    .chain(vals.iter().enumerate().map(|(c, v)| {
                        let t = text(v, format);
                        if bold[c][i] { format!("**{t}**") } else { t }
                    }))
                    .collect();
                out.push_str(&format!("| {} |\n", cells.join(" | ")));
            }
            out.push_str(&format!(
                "\nNumbers of the results CSVs rounded to {digits} decimal(s); best per column in bold.\n"
            ));
        }
        TableFormat::Csv => {
            let mut head: Vec<String> = grid.keys.clone();
            for (c, col) in grid.columns.iter().enumerate() {
                if grid
                    .rows
                    .iter()
                    .any(|r| matches!(r.2[c], Value::Interval(..)))
                {
                    head.push(format!("{} low", col.title));
                    head.push(format!("{} high", col.title));
                } else {
                    head.push(col.title.clone());
                }
            }
            out.push_str(
                &head
                    .iter()
                    .map(|h| csv_field(h))
                    .collect::<Vec<_>>()
                    .join(","),
            );
            out.push('\n');
            for (_, keys, vals) in &grid.rows {
                let mut cells: Vec<String> = keys.iter().map(|k| csv_field(k)).collect();
                for v in vals {
                    match v {
                        Value::Interval(a, b) => {
                            cells.push(num(*a, digits));
                            cells.push(num(*b, digits));
                        }
                        v => cells.push(text(v, format)),
                    }
                }
                out.push_str(&cells.join(","));
                out.push('\n');
            }
        }
    }
    out
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `grid` as an HTML `<table>` (best per column in `<strong>`).
pub fn render_html(grid: &Grid, digits: usize) -> String {
    let bold: Vec<Vec<bool>> = (0..grid.columns.len()).map(|c| best(grid, c)).collect();
    let mut out = String::from("<table>\n<thead><tr>");
    for k in &grid.keys {
        out.push_str(&format!("<th>{}</th>", html_escape(k)));
    }
    for c in &grid.columns {
        out.push_str(&format!("<th class=\"num\">{}</th>", html_escape(&c.title)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, (_, keys, vals)) in grid.rows.iter().enumerate() {
        out.push_str("<tr>");
        for k in keys {
            out.push_str(&format!("<td>{}</td>", html_escape(k)));
        }
        for (c, v) in vals.iter().enumerate() {
            let t = match v {
                Value::One(Cell::Num(x)) => num(*x, digits),
                Value::One(Cell::Inf) => "∞".into(),
                Value::One(Cell::NotApplicable) => "n/a".into(),
                Value::Interval(a, b) => format!("[{}, {}]", num(*a, digits), num(*b, digits)),
            };
            if bold[c][i] {
                out.push_str(&format!("<td class=\"num\"><strong>{t}</strong></td>"));
            } else {
                out.push_str(&format!("<td class=\"num\">{t}</td>"));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// The [`Grid`] of the results folder `dir` (any kind).
pub fn grid_of(dir: &std::path::Path, metrics: &[String]) -> Result<Grid> {
    let src = Source::dir(dir);
    match kind_of(dir)? {
        Kind::Model => model_grid(&src, metrics),
        Kind::Jobs => jobs_grid(&src, metrics),
        Kind::Sweep => sweep_grid(&src, metrics),
    }
}
