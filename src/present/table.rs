//! Summary tables of a results folder for papers and notes (`tenantsim
//! table`, and the tables of `tenantsim report`): LaTeX (booktabs), markdown,
//! CSV or HTML. Every number is a number of the folder's CSVs (or, for job
//! mode's `rel. JCT`, a ratio of two of them), scaled to the column's unit
//! and rounded for print, never otherwise recomputed. The rules (DESIGN
//! §6.11):
//!
//! - **Columns.** The defaults fit a single paper column: model mode the
//!   mean cumulative regret, its ratio to the baseline and T(θ) per θ; job
//!   mode the mean JCT, the makespan and the mean JCT's ratio to the
//!   baseline. `--metric` picks others.
//! - **Digits.** 3 significant digits by default ([`Precision`]), so a
//!   non-zero value never prints as `0.00`; with fixed decimals a non-zero
//!   value that would print as zero gets one significant digit instead.
//!   Below 10⁻⁴ and from 10⁶ on a number is written in scientific form.
//! - **Units.** Per column, from its largest finite |value|: seconds below
//!   600 s, minutes below 36,000 s (10 h), hours from there; cumulative
//!   regret likewise in accuracy·s, accuracy·min or accuracy·h. The header
//!   names the unit. CSV keeps the base units (s, acc·s) and, unless a
//!   precision is asked for, full precision: it is for machines.
//! - **Bold.** Per column (per group of rows: a repetition in job mode, a
//!   point in sweeps) the rows whose *printed* value equals the best value's
//!   printed form are bold, all of them when several tie; none when every
//!   comparable row prints the same (one row, or all tied), since then
//!   nothing stands out. CSV has no bold.
//! - **LaTeX layout.** Numeric headers on two lines (title, then unit), no
//!   outer padding, 4 pt column gaps: the quickstart's default table is
//!   256 pt wide in a 10 pt article (measured, DESIGN §6.11).
//!
//! | folder | rows | columns (`--metric`) |
//! |---|---|---|
//! | model mode | policies | `regret`: mean cumulative regret (`regret.csv` `mean_regret`) and, when asked for, its interval; `ratio`: `ratio_to_baseline`; `time`: T(θ) per θ (`speedups.csv` `t_policy_s`); `speedup`: T_B(θ)/T_X(θ) per θ (`speedup`) |
//! | job mode | policies (× repetitions when there are several) | `summary.csv` columns: mean, median, p95, p99 JCT, mean queueing delay, makespan, GPU utilisation; `ratio`: mean JCT / the baseline's in the same repetition |
//! | sweep | swept key values × policy (bold per point) | `sweep.csv` columns, default `regret_mean` with its interval and every `time_to_*` and `speedup_*` (model sweeps), `mean_jct_s`, `makespan_s` and `speedup` (job sweeps) |

use super::figures::read::{Cell, Source};
use super::figures::{Kind, WORKFLOWS_DIR, kind_of, shared_workflows, shared_workloads};
use crate::core::choice::Choice;
use crate::core::error::{Error, Result};
use crate::core::io::manifest_doc::{self, ManifestDoc};

/// Output syntax of a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TableFormat {
    /// A LaTeX `tabular` with booktabs rules.
    #[default]
    Latex,
    /// A GitHub-flavoured markdown table.
    Markdown,
    /// CSV (intervals as two columns, no bold, base units).
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
            Self::Csv => "CSV in base units (s, acc·s), full precision unless asked otherwise",
        }
    }
}

/// How the numbers of a table are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// This many significant digits (at least 1): the default, 3.
    Significant(usize),
    /// This many decimals (a non-zero value that would print as zero gets
    /// one significant digit instead).
    Decimals(usize),
    /// The shortest text that reads back as the same `f64` (CSV's default).
    Full,
}

/// The default number of significant digits.
pub const DEFAULT_SIGNIFICANT: usize = 3;

/// What to tabulate and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOptions {
    /// Output syntax.
    pub format: TableFormat,
    /// Column groups (model mode: `regret`, `ratio`, `time`, `speedup`) or
    /// columns (job mode: `summary.csv` columns and `ratio`; sweeps:
    /// `sweep.csv` columns); empty = the defaults.
    pub metrics: Vec<String>,
    /// How numbers are written; `None`: the format's default
    /// ([`TableOptions::precision`]).
    pub precision: Option<Precision>,
}

impl Default for TableOptions {
    fn default() -> Self {
        Self {
            format: TableFormat::Latex,
            metrics: Vec::new(),
            precision: None,
        }
    }
}

impl TableOptions {
    /// The precision in force: the one asked for, else full precision for
    /// CSV and [`DEFAULT_SIGNIFICANT`] significant digits for the rest.
    pub fn precision(&self) -> Precision {
        self.precision.unwrap_or(match self.format {
            TableFormat::Csv => Precision::Full,
            _ => Precision::Significant(DEFAULT_SIGNIFICANT),
        })
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

/// What a column measures, which decides its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// A pure number (ratio, speedup, fraction): no unit.
    Pure,
    /// A duration, in seconds in the CSVs: printed in s, min or h.
    Time,
    /// Cumulative regret, accuracy·seconds in the CSVs (DESIGN §2.6):
    /// printed in acc·s, acc·min or acc·h.
    Regret,
}

/// Units of a [`Quantity`]: (name, seconds per unit), smallest first.
fn units_of(q: Quantity) -> &'static [(&'static str, f64)] {
    match q {
        Quantity::Pure => &[("", 1.0)],
        Quantity::Time => &[("s", 1.0), ("min", 60.0), ("h", 3600.0)],
        Quantity::Regret => &[("acc·s", 1.0), ("acc·min", 60.0), ("acc·h", 3600.0)],
    }
}

/// The unit of a column of quantity `q` whose largest finite |value| in
/// base units is `largest` (DESIGN §6.11): the base unit below 600, the
/// second (×60) below 36,000, the third (×3600) from there — so a printed
/// number has at most 3 digits before the point up to 10 h, and a
/// makespan of 6,072,174 s reads 1690 h. (name, base units per unit).
pub fn unit_for(q: Quantity, largest: Option<f64>) -> (&'static str, f64) {
    let units = units_of(q);
    let m = largest.unwrap_or(0.0);
    let i = if m < 600.0 {
        0
    } else if m < 36_000.0 {
        1
    } else {
        2
    };
    units[i.min(units.len() - 1)]
}

/// One value of a table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A number, `inf` or `n/a`.
    One(Cell),
    /// An interval (low, high).
    Interval(f64, f64),
}

/// A column: its title (without the unit), which direction is best (none:
/// no bold), what it measures and the key of its definition
/// ([`definition`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Title, without the unit (the header adds it).
    pub title: String,
    /// Best direction, if any.
    pub better: Option<Better>,
    /// What it measures (its unit).
    pub quantity: Quantity,
    /// Take the unit of this column instead of choosing one (an interval
    /// beside its mean).
    pub unit_of: Option<usize>,
    /// The key of its definition ([`definition`]).
    pub metric: &'static str,
}

impl Column {
    fn new(
        title: impl Into<String>,
        better: Option<Better>,
        quantity: Quantity,
        metric: &'static str,
    ) -> Self {
        Self {
            title: title.into(),
            better,
            quantity,
            unit_of: None,
            metric,
        }
    }
}

/// A table: leading text columns (policy, swept keys), numeric columns,
/// rows in groups (bold is per column within a group), and notes that say
/// what the columns are relative to (the baseline).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grid {
    /// Titles of the text columns.
    pub keys: Vec<String>,
    /// The numeric columns.
    pub columns: Vec<Column>,
    /// Rows: group, key texts, values (one per column).
    pub rows: Vec<(usize, Vec<String>, Vec<Value>)>,
    /// Sentences printed under the table (LaTeX: as comments).
    pub notes: Vec<String>,
}

/// The definition of a column's metric (its [`Column::metric`] key), with
/// the section of docs/DESIGN.md that gives the formula; `None` for a
/// column the table does not know (a `sweep.csv` column named by
/// `--metric`).
pub fn definition(metric: &str) -> Option<&'static str> {
    Some(match metric {
        "regret" => {
            "cumulative regret R = ∫ S(τ) dτ over the run, S(τ) the summed loss A*ᵢ − bestᵢ(τ) of the tenants arrived by τ (A*ᵢ: tenant i's best accuracy, bestᵢ(τ): the best it has found by τ); the mean over repetitions. Unit: accuracy × time (acc·s: one unit of accuracy missing for one second; acc·min, acc·h when scaled) (DESIGN §2.6, §6.7)"
        }
        "regret-interval" => {
            "the Student-t confidence interval of the mean cumulative regret over repetitions, at [output] confidence (DESIGN §6.3, §6.7)"
        }
        "rel-regret" => {
            "the policy's mean cumulative regret / the baseline's (regret.csv ratio_to_baseline; below 1: less regret than the baseline; DESIGN §6.7)"
        }
        "T" => {
            "T(θ): the first time at or after the last arrival when the mean loss over tenants L(τ), averaged over repetitions, is at most θ; ∞ if never (DESIGN §2.6, §6.5)"
        }
        "speedup" => {
            "speedup at θ = T_B(θ) / T_X(θ), the baseline's time to θ over the policy's (above 1: faster than the baseline; DESIGN §6.5)"
        }
        "final-loss" => {
            "the mean loss over tenants L at the end of the run, averaged over repetitions (DESIGN §2.6)"
        }
        "mean-jct" => "mean job completion time, JCT = end − submit (DESIGN §9.5)",
        "median-jct" => {
            "median JCT (percentiles: linear interpolation between closest ranks; DESIGN §9.5)"
        }
        "p95-jct" => "95th percentile of JCT (DESIGN §9.5)",
        "p99-jct" => "99th percentile of JCT (DESIGN §9.5)",
        "queueing" => "mean queueing delay = first start − submit (DESIGN §9.5)",
        "makespan" => "makespan = last job end − first submit (DESIGN §9.5)",
        "utilisation" => {
            "GPU utilisation = GPU-time held (restores included) / (GPUs × makespan) (DESIGN §9.5)"
        }
        "wf-completion" => {
            "completion rate = workflows done (all steps, within their deadline and the horizon) / workflows submitted; the mean over repetitions (DESIGN §14.7)"
        }
        "wf-makespan" => {
            "a percentile (type 7) of the done workflows' makespans end − submit; the mean over repetitions (DESIGN §14.7)"
        }
        "wf-utilisation" => {
            "utilisation = the workflows' busy GPU- (CPU-) time / (cluster GPUs (CPUs) × the run's length, first submit to last workflows event); the mean over repetitions (DESIGN §14.7)"
        }
        "wf-hit-ratio" => {
            "cache hit ratio = hits / (hits + misses) over ready steps with a cache_key; the mean over repetitions (DESIGN §14.7)"
        }
        "wf-bytes" => {
            "the most bytes the memo cache held at once; the mean over repetitions (DESIGN §14.7)"
        }
        "wf-saved" => {
            "GPU- (CPU-) hours the cache hits saved: Σ gpus (cpus) × runtime_s of each hit step / 3600; the mean over repetitions (DESIGN §14.7)"
        }
        "wf-interval" => {
            "the Student-t confidence interval of the mean over repetitions, at [output] confidence (DESIGN §14.7)"
        }
        "rel-jct" => {
            "the policy's mean JCT / the baseline's in the same repetition (below 1: faster than the baseline; the inverse of the job-mode speedup; DESIGN §6.11, §9.6)"
        }
        "jct-speedup" => {
            "speedup = the baseline's mean JCT / the policy's, both means over repetitions (DESIGN §9.6)"
        }
        _ => return None,
    })
}

/// The table of the results folder `dir`, rendered.
pub fn table_of(dir: &std::path::Path, opts: &TableOptions) -> Result<String> {
    let workloads = shared_workloads(dir);
    let workflows = shared_workflows(dir);
    if !workloads.is_empty() || workflows.is_some() {
        // A shared folder: one table per workload, each under its folder's
        // name (a comment line in LaTeX and CSV); `--metric` names the
        // first workload's columns, the others show their defaults.
        let mut out = String::new();
        let parts = workloads
            .into_iter()
            .chain(workflows.map(|wf| (WORKFLOWS_DIR, wf)));
        for (k, (w, sub)) in parts.enumerate() {
            let metrics: &[String] = if k == 0 { &opts.metrics } else { &[] };
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&match opts.format {
                TableFormat::Latex => format!("% {w}/\n"),
                TableFormat::Csv => format!("# {w}/\n"),
                TableFormat::Markdown => format!("**{w}/**\n\n"),
            });
            let grid = if w == WORKFLOWS_DIR {
                workflows_grid(&Source::dir(&sub), metrics)?
            } else {
                grid_of(&sub, metrics)?
            };
            out.push_str(&render(&grid, opts.format, opts.precision()));
        }
        return Ok(out);
    }
    Ok(render(
        &grid_of(dir, &opts.metrics)?,
        opts.format,
        opts.precision(),
    ))
}

fn unknown(what: &str, m: &str, known: &[String]) -> Error {
    Error::usage(format!(
        "--metric {m}: not a {what} (choose from: {})",
        known.join(", ")
    ))
}

/// Model mode's column groups, in the order of the columns.
pub const MODEL_GROUPS: [&str; 4] = ["regret", "ratio", "time", "speedup"];

/// Model mode: policies × cumulative regret (with its interval when
/// `regret` is asked for by name), its ratio to the baseline, T(θ) and
/// speedup(θ). Default: regret (no interval), ratio, time.
pub fn model_grid(src: &Source<'_>, metrics: &[String]) -> Result<Grid> {
    let groups = MODEL_GROUPS.map(String::from);
    for m in metrics {
        if !groups.contains(m) {
            return Err(unknown("model-mode column group", m, &groups));
        }
    }
    let want = |g: &str| {
        if metrics.is_empty() {
            g != "speedup"
        } else {
            metrics.iter().any(|m| m == g)
        }
    };
    let interval = !metrics.is_empty() && want("regret");
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
    let mut required = vec!["policy", "mean_regret", "ci_low", "ci_high"];
    if want("ratio") {
        required.push("ratio_to_baseline");
    }
    let rg = src.table("regret.csv", &required)?;
    let (rp, rm, lo, hi) = (
        rg.col("policy")?,
        rg.col("mean_regret")?,
        rg.col("ci_low")?,
        rg.col("ci_high")?,
    );
    let ratio_col = rg.col("ratio_to_baseline").ok();
    let rb = rg.col("baseline").ok();
    // policy, mean, low, high, ratio to the baseline
    let mut regret: Vec<(String, f64, f64, f64, Cell)> = Vec::new();
    for r in rg.rows() {
        let r = r?;
        let policy = r.name(rp)?.to_string();
        if !policies.contains(&policy) {
            policies.push(policy.clone());
        }
        if let Some(b) = rb
            && baseline.is_empty()
        {
            baseline = r.str(b).to_string();
        }
        let ratio = match ratio_col {
            Some(c) if want("ratio") => r.cell(c)?,
            _ => Cell::NotApplicable,
        };
        regret.push((policy, r.num(rm)?, r.num(lo)?, r.num(hi)?, ratio));
    }
    let mut grid = Grid {
        keys: vec!["policy".into()],
        ..Grid::default()
    };
    if want("regret") {
        grid.columns.push(Column::new(
            "regret",
            Some(Better::Lower),
            Quantity::Regret,
            "regret",
        ));
        if interval {
            let mut c = Column::new("regret interval", None, Quantity::Regret, "regret-interval");
            c.unit_of = Some(grid.columns.len() - 1);
            grid.columns.push(c);
        }
    }
    if want("ratio") {
        grid.columns.push(Column::new(
            "rel. regret",
            Some(Better::Lower),
            Quantity::Pure,
            "rel-regret",
        ));
    }
    if want("time") {
        for th in &thetas {
            grid.columns.push(Column::new(
                format!("T({th})"),
                Some(Better::Lower),
                Quantity::Time,
                "T",
            ));
        }
    }
    if want("speedup") {
        for th in &thetas {
            grid.columns.push(Column::new(
                format!("speedup at θ={th}"),
                Some(Better::Higher),
                Quantity::Pure,
                "speedup",
            ));
        }
    }
    let base = if baseline.is_empty() {
        "the baseline".to_string()
    } else {
        format!("the baseline, {baseline}")
    };
    if want("ratio") {
        grid.notes.push(format!(
            "rel. regret = the policy's mean cumulative regret / that of {base} (DESIGN §6.7)."
        ));
    }
    if want("speedup") {
        grid.notes.push(format!(
            "speedup at θ = T(θ) of {base} / the policy's T(θ) (DESIGN §6.5)."
        ));
    }
    let find = |policy: &str, th: &str| {
        cells
            .iter()
            .find(|c| c.0 == policy && c.1 == th)
            .map(|c| (c.2, c.3))
    };
    for policy in &policies {
        let mut values = Vec::new();
        let mine = regret.iter().find(|r| &r.0 == policy);
        if want("regret") {
            match mine {
                Some(r) => {
                    values.push(Value::One(Cell::Num(r.1)));
                    if interval {
                        values.push(Value::Interval(r.2, r.3));
                    }
                }
                None => {
                    values.push(Value::One(Cell::NotApplicable));
                    if interval {
                        values.push(Value::One(Cell::NotApplicable));
                    }
                }
            }
        }
        if want("ratio") {
            values.push(Value::One(mine.map_or(Cell::NotApplicable, |r| r.4)));
        }
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
        grid.rows.push((0, vec![policy.clone()], values));
    }
    Ok(grid)
}

/// The columns of a job-mode `summary.csv` the table knows: (column,
/// title, best direction, quantity, definition key).
const JOB_COLUMNS: [(&str, &str, Better, Quantity, &str); 7] = [
    (
        "mean_jct_s",
        "mean JCT",
        Better::Lower,
        Quantity::Time,
        "mean-jct",
    ),
    (
        "median_jct_s",
        "median JCT",
        Better::Lower,
        Quantity::Time,
        "median-jct",
    ),
    (
        "p95_jct_s",
        "p95 JCT",
        Better::Lower,
        Quantity::Time,
        "p95-jct",
    ),
    (
        "p99_jct_s",
        "p99 JCT",
        Better::Lower,
        Quantity::Time,
        "p99-jct",
    ),
    (
        "mean_queueing_delay_s",
        "mean queueing delay",
        Better::Lower,
        Quantity::Time,
        "queueing",
    ),
    (
        "makespan_s",
        "makespan",
        Better::Lower,
        Quantity::Time,
        "makespan",
    ),
    (
        "gpu_utilization",
        "GPU utilisation",
        Better::Higher,
        Quantity::Pure,
        "utilisation",
    ),
];

/// Job mode's default columns.
const JOB_DEFAULT: [&str; 3] = ["mean_jct_s", "makespan_s", "ratio"];

/// The figures of a shared folder's `workflows/summary.csv` (DESIGN
/// §14.7) a table can show: (column, title, best direction, quantity,
/// definition key).
const WORKFLOW_COLUMNS: [(&str, &str, Better, Quantity, &str); 9] = [
    (
        "completion_rate",
        "completion",
        Better::Higher,
        Quantity::Pure,
        "wf-completion",
    ),
    (
        "makespan_p50_s",
        "makespan p50",
        Better::Lower,
        Quantity::Time,
        "wf-makespan",
    ),
    (
        "makespan_p99_s",
        "makespan p99",
        Better::Lower,
        Quantity::Time,
        "wf-makespan",
    ),
    (
        "gpu_utilization",
        "GPU util",
        Better::Higher,
        Quantity::Pure,
        "wf-utilisation",
    ),
    (
        "cpu_utilization",
        "CPU util",
        Better::Higher,
        Quantity::Pure,
        "wf-utilisation",
    ),
    (
        "cache_hit_ratio",
        "hit ratio",
        Better::Higher,
        Quantity::Pure,
        "wf-hit-ratio",
    ),
    (
        "bytes_stored",
        "bytes stored",
        Better::Lower,
        Quantity::Pure,
        "wf-bytes",
    ),
    (
        "gpu_hours_saved",
        "GPU-h saved",
        Better::Higher,
        Quantity::Pure,
        "wf-saved",
    ),
    (
        "cpu_hours_saved",
        "CPU-h saved",
        Better::Higher,
        Quantity::Pure,
        "wf-saved",
    ),
];

/// The workflows' columns shown without `--metric`.
const WORKFLOW_DEFAULT: [&str; 4] = [
    "completion_rate",
    "makespan_p50_s",
    "gpu_utilization",
    "cpu_utilization",
];

/// A shared folder's workflows (`workflows/summary.csv`, DESIGN §14.7):
/// policies × the means over repetitions of the chosen figures (default
/// completion rate, makespan p50, GPU and CPU utilisation; `--metric`
/// names `summary.csv` figure columns, each then followed by its
/// confidence interval).
pub fn workflows_grid(src: &Source<'_>, metrics: &[String]) -> Result<Grid> {
    let known: Vec<String> = WORKFLOW_COLUMNS.iter().map(|c| c.0.to_string()).collect();
    for m in metrics {
        if !known.contains(m) {
            return Err(unknown("workflows summary.csv figure", m, &known));
        }
    }
    let chosen: Vec<_> = WORKFLOW_COLUMNS
        .iter()
        .filter(|c| {
            if metrics.is_empty() {
                WORKFLOW_DEFAULT.contains(&c.0)
            } else {
                metrics.iter().any(|m| m == c.0)
            }
        })
        .collect();
    let intervals = !metrics.is_empty();
    let lows: Vec<String> = chosen.iter().map(|c| format!("{}_ci_low", c.0)).collect();
    let highs: Vec<String> = chosen.iter().map(|c| format!("{}_ci_high", c.0)).collect();
    let mut names: Vec<&str> = vec!["policy"];
    names.extend(chosen.iter().map(|c| c.0));
    if intervals {
        names.extend(lows.iter().map(String::as_str));
        names.extend(highs.iter().map(String::as_str));
    }
    let t = src.table("summary.csv", &names)?;
    let p = t.col("policy")?;
    let mut grid = Grid {
        keys: vec!["policy".into()],
        ..Grid::default()
    };
    let mut cols = Vec::new();
    for (k, c) in chosen.iter().enumerate() {
        let at = grid.columns.len();
        grid.columns.push(Column::new(c.1, Some(c.2), c.3, c.4));
        cols.push((t.col(c.0)?, None));
        if intervals {
            let mut iv = Column::new(format!("{} CI", c.1), None, c.3, "wf-interval");
            iv.unit_of = Some(at);
            grid.columns.push(iv);
            cols.push((t.col(&lows[k])?, Some(t.col(&highs[k])?)));
        }
    }
    for r in t.rows() {
        let r = r?;
        let mut values = Vec::new();
        for &(c, high) in &cols {
            values.push(match high {
                None => Value::One(r.cell(c)?),
                Some(h) => match (r.cell(c)?, r.cell(h)?) {
                    (Cell::Num(lo), Cell::Num(hi)) => Value::Interval(lo, hi),
                    _ => Value::One(Cell::NotApplicable),
                },
            });
        }
        grid.rows.push((0, vec![r.name(p)?.to_string()], values));
    }
    grid.notes
        .push("workflows: means over repetitions; completion = workflows done / submitted (DESIGN §14.7).".into());
    Ok(grid)
}

/// Every figure of a shared folder's workflows (the report's table), or
/// `None` when `dir` has no `workflows/`.
pub fn workflows_full_grid(dir: &std::path::Path) -> Result<Option<Grid>> {
    shared_workflows(dir)
        .map(|wf| {
            workflows_grid(
                &Source::dir(&wf),
                &WORKFLOW_COLUMNS.map(|c| c.0.to_string()),
            )
        })
        .transpose()
}

/// The baseline of a job-mode folder: the scenario's top-level `baseline`
/// in `run.json`, else `None` (the first policy, DESIGN §9.6).
fn job_baseline(src: &Source<'_>) -> Result<Option<String>> {
    if !src.has(manifest_doc::FILE) {
        return Ok(None);
    }
    let text = src.text(manifest_doc::FILE)?;
    let doc = ManifestDoc::parse(
        &src.path(manifest_doc::FILE),
        &text,
        "`table` reads the scenario's `baseline` from it",
    )?;
    Ok(doc
        .pointer("/scenario/baseline")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string))
}

/// x / b with regret.csv's conventions (DESIGN §6.7): `inf` when only b
/// is 0, 1 when both are.
fn ratio(x: f64, b: f64) -> Cell {
    if b == 0.0 {
        if x == 0.0 { Cell::Num(1.0) } else { Cell::Inf }
    } else {
        Cell::Num(x / b)
    }
}

/// Job mode: one row per policy (and repetition, when there are several).
/// `ratio` is the policy's mean JCT / the baseline's in the same
/// repetition (DESIGN §6.11).
pub fn jobs_grid(src: &Source<'_>, metrics: &[String]) -> Result<Grid> {
    let mut known: Vec<String> = JOB_COLUMNS.iter().map(|c| c.0.to_string()).collect();
    known.push("ratio".into());
    for m in metrics {
        if !known.contains(m) {
            return Err(unknown("job-mode summary.csv column or `ratio`", m, &known));
        }
    }
    let want = |name: &str| {
        if metrics.is_empty() {
            JOB_DEFAULT.contains(&name)
        } else {
            metrics.iter().any(|m| m == name)
        }
    };
    let chosen: Vec<_> = JOB_COLUMNS.iter().filter(|c| want(c.0)).collect();
    let with_ratio = want("ratio");
    let mut names: Vec<&str> = ["policy", "rep"]
        .into_iter()
        .chain(chosen.iter().map(|c| c.0))
        .collect();
    if with_ratio && !names.contains(&"mean_jct_s") {
        names.push("mean_jct_s");
    }
    let t = src.table("summary.csv", &names)?;
    let (p, rep, mean) = (t.col("policy")?, t.col("rep")?, t.col("mean_jct_s").ok());
    let cols = chosen
        .iter()
        .map(|c| t.col(c.0))
        .collect::<Result<Vec<_>>>()?;
    // policy, rep, values, mean JCT (for the ratio)
    let mut rows = Vec::new();
    for r in t.rows() {
        let r = r?;
        let values = cols
            .iter()
            .map(|&c| r.cell(c).map(Value::One))
            .collect::<Result<Vec<_>>>()?;
        // An empty or `n/a` mean JCT gives an `n/a` ratio.
        let m = match (with_ratio, mean) {
            (true, Some(c)) => match r.cell(c)? {
                Cell::Num(x) => Some(x),
                _ => None,
            },
            _ => None,
        };
        rows.push((r.name(p)?.to_string(), r.count(rep)?, values, m));
    }
    let baseline = match job_baseline(src)? {
        Some(b) => {
            if with_ratio && !rows.iter().any(|r| r.0 == b) {
                return Err(Error::input(format!(
                    "{}: no row of the baseline policy `{b}` named in run.json",
                    src.path("summary.csv").display()
                )));
            }
            b
        }
        None => rows.first().map(|r| r.0.clone()).unwrap_or_default(),
    };
    let many_reps = rows.iter().any(|r| r.1 != rows[0].1);
    let mut grid = Grid {
        keys: if many_reps {
            vec!["policy".into(), "rep".into()]
        } else {
            vec!["policy".into()]
        },
        columns: chosen
            .iter()
            .map(|c| Column::new(c.1, Some(c.2), c.3, c.4))
            .collect(),
        ..Grid::default()
    };
    if with_ratio {
        grid.columns.push(Column::new(
            "rel. JCT",
            Some(Better::Lower),
            Quantity::Pure,
            "rel-jct",
        ));
        grid.notes.push(format!(
            "rel. JCT = the policy's mean JCT / that of the baseline, {baseline}, in the same repetition (DESIGN §6.11)."
        ));
    }
    let base_jct: Vec<(u64, f64)> = rows
        .iter()
        .filter(|r| r.0 == baseline)
        .filter_map(|r| r.3.map(|m| (r.1, m)))
        .collect();
    for (policy, rep, mut values, m) in rows {
        if with_ratio {
            let b = base_jct.iter().find(|b| b.0 == rep).map(|b| b.1);
            values.push(Value::One(match (m, b) {
                (Some(m), Some(b)) => ratio(m, b),
                _ => Cell::NotApplicable,
            }));
        }
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

/// A `sweep.csv` column's title (a trailing `_s` goes: the header names
/// the unit), best direction, quantity and definition key.
fn sweep_column(h: &str) -> Column {
    let (better, quantity, metric) = if h.starts_with("time_to_") {
        (Some(Better::Lower), Quantity::Time, "T")
    } else if h.starts_with("speedup_") {
        (Some(Better::Higher), Quantity::Pure, "speedup")
    } else if h == "speedup" {
        (Some(Better::Higher), Quantity::Pure, "jct-speedup")
    } else if h.starts_with("regret_mean") {
        (Some(Better::Lower), Quantity::Regret, "regret")
    } else if h == "regret_ratio" {
        (Some(Better::Lower), Quantity::Pure, "rel-regret")
    } else if h.starts_with("final_loss") {
        (Some(Better::Lower), Quantity::Pure, "final-loss")
    } else if h == "gpu_utilization" {
        (Some(Better::Higher), Quantity::Pure, "utilisation")
    } else if let Some(c) = JOB_COLUMNS.iter().find(|c| c.0 == h) {
        (Some(c.2), c.3, c.4)
    } else if h.ends_with("_s") {
        (None, Quantity::Time, "")
    } else {
        (None, Quantity::Pure, "")
    };
    let title = if quantity == Quantity::Time {
        h.strip_suffix("_s").unwrap_or(h)
    } else {
        h
    };
    Column::new(title, better, quantity, metric)
}

/// The definition of the `sweep.csv` column `h` ([`definition`]), if the
/// table knows it.
pub fn sweep_definition(h: &str) -> Option<&'static str> {
    definition(sweep_column(h).metric)
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
    let job_sweep = pos("mean_jct_s").is_some();
    let metric_cols: Vec<usize> = if metrics.is_empty() {
        header
            .iter()
            .enumerate()
            .filter(|&(i, h)| {
                i > policy_at
                    && if job_sweep {
                        ["mean_jct_s", "makespan_s", "speedup"].contains(&h.as_str())
                    } else {
                        h.as_str() == "regret_mean"
                            || h.starts_with("time_to_")
                            || h.starts_with("speedup_")
                    }
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
        grid.columns.push(sweep_column(&header[c]));
        let interval = header[c] == "regret_mean" && lo.is_some() && hi.is_some();
        if interval {
            let mut col = Column::new("regret interval", None, Quantity::Regret, "regret-interval");
            col.unit_of = Some(grid.columns.len() - 1);
            grid.columns.push(col);
        }
        with_interval.push(interval);
    }
    if let Some(b) = pos("baseline") {
        let mut names: Vec<String> = Vec::new();
        for r in t.rows() {
            let r = r?;
            if !names.iter().any(|n| n == r.str(b)) {
                names.push(r.str(b).to_string());
            }
        }
        if metric_cols.iter().any(|&c| {
            let h = &header[c];
            h.starts_with("speedup") || h == "regret_ratio"
        }) {
            grid.notes.push(format!(
                "Ratios and speedups are against each point's baseline ({}).",
                names.join(", ")
            ));
        }
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

/// A value as printed, before a format's syntax: a number's canonical
/// text ([`number`]), an interval's two, `inf` or `n/a`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Printed {
    /// A number.
    Num(String),
    /// An interval (low, high).
    Interval(String, String),
    /// `inf`.
    Inf,
    /// `n/a`.
    NotApplicable,
}

/// `v` rounded to `precision` (DESIGN §6.11), as plain text: `1690`,
/// `0.00420`, `12.3`; scientific (`4.56e-7`, `1.23e8`) below 10⁻⁴ and from
/// 10⁶ on with significant digits. Rounding is Rust's `format!` on the
/// exact binary value (an exact tie goes to the even digit: 0.125 → 0.12).
/// Zero is `0`; a non-zero value never prints as zero.
pub fn number(v: f64, precision: Precision) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return format!("{v}");
    }
    match precision {
        Precision::Significant(n) => significant(v, n),
        Precision::Decimals(d) => {
            let s = format!("{v:.d$}");
            if s.parse::<f64>().is_ok_and(|x| x == 0.0) {
                significant(v, 1)
            } else {
                s
            }
        }
        Precision::Full => format!("{v}"),
    }
}

/// `v` (finite, non-zero) to `n` significant digits: the digits and the
/// exponent of `format!("{:.(n-1)e}")`, the point placed by hand.
fn significant(v: f64, n: usize) -> String {
    let n = n.max(1);
    let s = format!("{:.*e}", n - 1, v);
    let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        return format!("{mant}e{exp}");
    }
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let body = if exp >= 0 {
        let int_len = exp.unsigned_abs() as usize + 1;
        if digits.len() <= int_len {
            format!("{digits}{}", "0".repeat(int_len - digits.len()))
        } else {
            format!("{}.{}", &digits[..int_len], &digits[int_len..])
        }
    } else {
        format!("0.{}{digits}", "0".repeat(exp.unsigned_abs() as usize - 1))
    };
    if v < 0.0 { format!("-{body}") } else { body }
}

/// A table ready to write: headers with units, printed cells
/// (`cells[row][column]`) and which are bold.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The numeric columns' headers: title and unit.
    pub heads: Vec<String>,
    /// The printed values, row by row.
    pub cells: Vec<Vec<Printed>>,
    /// Which printed values are bold, row by row.
    pub bold: Vec<Vec<bool>>,
}

/// The largest finite |value| of column `c` (intervals count both ends).
fn largest(grid: &Grid, c: usize) -> Option<f64> {
    let mut m: Option<f64> = None;
    let mut see = |x: f64| {
        if x.is_finite() {
            m = Some(m.map_or(x.abs(), |m| m.max(x.abs())));
        }
    };
    for (_, _, vals) in &grid.rows {
        match vals.get(c) {
            Some(Value::One(Cell::Num(x))) => see(*x),
            Some(Value::Interval(a, b)) => {
                see(*a);
                see(*b);
            }
            _ => {}
        }
    }
    m
}

/// Units, printed values and bold of `grid` (DESIGN §6.11). With
/// `base_units` every column keeps the CSVs' unit (s, acc·s).
pub fn prepare(grid: &Grid, precision: Precision, base_units: bool) -> Prepared {
    let root = |c: usize| {
        grid.columns[c]
            .unit_of
            .filter(|&u| u < grid.columns.len())
            .unwrap_or(c)
    };
    let big: Vec<Option<f64>> = (0..grid.columns.len()).map(|c| largest(grid, c)).collect();
    let units: Vec<(&str, f64)> = (0..grid.columns.len())
        .map(|c| {
            let q = grid.columns[c].quantity;
            if base_units {
                return units_of(q)[0];
            }
            // The largest value of the column and of those sharing its unit.
            let family = (0..grid.columns.len())
                .filter(|&k| root(k) == root(c))
                .filter_map(|k| big[k])
                .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
            unit_for(q, family)
        })
        .collect();
    let heads = grid
        .columns
        .iter()
        .zip(&units)
        .map(|(col, (u, _))| {
            if u.is_empty() {
                col.title.clone()
            } else {
                format!("{} ({u})", col.title)
            }
        })
        .collect();
    let cells: Vec<Vec<Printed>> = grid
        .rows
        .iter()
        .map(|(_, _, vals)| {
            vals.iter()
                .enumerate()
                .map(|(c, v)| {
                    let scale = units.get(c).map_or(1.0, |u| u.1);
                    match v {
                        Value::One(Cell::Num(x)) => Printed::Num(number(x / scale, precision)),
                        Value::One(Cell::Inf) => Printed::Inf,
                        Value::One(Cell::NotApplicable) => Printed::NotApplicable,
                        Value::Interval(a, b) => Printed::Interval(
                            number(a / scale, precision),
                            number(b / scale, precision),
                        ),
                    }
                })
                .collect()
        })
        .collect();
    let mut bold = vec![vec![false; grid.columns.len()]; grid.rows.len()];
    for (c, col) in grid.columns.iter().enumerate() {
        let Some(dir) = col.better else { continue };
        let mut groups: Vec<usize> = grid.rows.iter().map(|r| r.0).collect();
        groups.sort_unstable();
        groups.dedup();
        for g in groups {
            let scored: Vec<(usize, f64)> = grid
                .rows
                .iter()
                .enumerate()
                .filter(|(_, r)| r.0 == g)
                .filter_map(|(i, r)| match r.2.get(c) {
                    Some(Value::One(Cell::Num(x))) => Some((i, *x)),
                    Some(Value::One(Cell::Inf)) => Some((i, f64::INFINITY)),
                    _ => None,
                })
                .collect();
            let best = match dir {
                Better::Lower => scored.iter().map(|s| s.1).fold(f64::INFINITY, f64::min),
                Better::Higher => scored.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max),
            };
            if dir == Better::Lower && !best.is_finite() {
                continue;
            }
            let Some(&(at, _)) = scored.iter().find(|s| s.1 == best) else {
                continue;
            };
            let shown = &cells[at][c];
            let tied: Vec<usize> = scored
                .iter()
                .map(|s| s.0)
                .filter(|&i| cells[i][c] == *shown)
                .collect();
            // Bold only where the printed values differ.
            if tied.len() < scored.len() {
                for i in tied {
                    bold[i][c] = true;
                }
            }
        }
    }
    Prepared { heads, cells, bold }
}

/// What the numbers are, for the line under (or above) a table.
fn precision_text(p: Precision) -> String {
    match p {
        Precision::Significant(1) => "1 significant digit".into(),
        Precision::Significant(n) => format!("{n} significant digits"),
        Precision::Decimals(1) => "1 decimal".into(),
        Precision::Decimals(d) => format!("{d} decimals"),
        Precision::Full => "full precision".into(),
    }
}

/// The sentence that says how a table is written.
pub fn legend(p: Precision) -> String {
    format!(
        "Numbers of the results CSVs to {}, in the units the headers name; bold: the best per column where the printed values differ (every tied row; none when all print the same).",
        precision_text(p)
    )
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
            '·' => out.push_str("$\\cdot$"),
            c => out.push(c),
        }
    }
    out
}

/// A canonical number in LaTeX: `1.23e-7` as `$1.23\times10^{-7}$`.
fn latex_num(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => format!("${m}\\times10^{{{e}}}$"),
        None => s.to_string(),
    }
}

/// A canonical number in HTML: `1.23e-7` as `1.23×10<sup>-7</sup>`.
fn html_num(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => format!("{m}×10<sup>{e}</sup>"),
        None => s.to_string(),
    }
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

/// A printed value in one syntax: `num` writes a number.
fn cell_text(p: &Printed, num: fn(&str) -> String, inf: &str) -> String {
    match p {
        Printed::Num(s) => num(s),
        Printed::Interval(a, b) => format!("[{}, {}]", num(a), num(b)),
        Printed::Inf => inf.to_string(),
        Printed::NotApplicable => "n/a".into(),
    }
}

/// A header on two lines: the title and `(unit)`, or without a unit the
/// text before and after its last space (`rel.` / `regret`).
fn two_lines(h: &str) -> (String, String) {
    if h.ends_with(')')
        && let Some(i) = h.rfind(" (")
    {
        return (h[..i].to_string(), h[i + 1..].to_string());
    }
    match h.rfind(' ') {
        Some(i) => (h[..i].to_string(), h[i + 1..].to_string()),
        None => (h.to_string(), String::new()),
    }
}

/// Render `grid` in `format` at `precision` (DESIGN §6.11).
pub fn render(grid: &Grid, format: TableFormat, precision: Precision) -> String {
    let prep = prepare(grid, precision, format == TableFormat::Csv);
    let mut out = String::new();
    match format {
        TableFormat::Latex => {
            out.push_str(&format!(
                "% tenantsim table. {}\n% needs \\usepackage{{booktabs}}\n",
                legend(precision)
            ));
            for n in &grid.notes {
                out.push_str(&format!("% {n}\n"));
            }
            // Narrower gaps and no outer padding (`@{}`), and each numeric
            // header on two lines (title, then unit), so that the default
            // columns fit one paper column (DESIGN §6.11).
            out.push_str(&format!(
                "{{\\setlength{{\\tabcolsep}}{{4pt}}%\n\\begin{{tabular}}{{@{{}}{}{}@{{}}}}\n\\toprule\n",
                "l".repeat(grid.keys.len()),
                "r".repeat(grid.columns.len())
            ));
            let (first, second): (Vec<String>, Vec<String>) = grid
                .keys
                .iter()
                .map(|k| (k.clone(), String::new()))
                .chain(prep.heads.iter().map(|h| two_lines(h)))
                .map(|(a, b)| (latex_escape(&a), latex_escape(&b)))
                .unzip();
            out.push_str(&first.join(" & "));
            if second.iter().any(|s| !s.is_empty()) {
                out.push_str(" \\\\\n");
                out.push_str(&second.join(" & "));
            }
            out.push_str(" \\\\\n\\midrule\n");
            let mut last_group = None;
            for (i, (g, keys, _)) in grid.rows.iter().enumerate() {
                if last_group.is_some_and(|l| l != *g) {
                    out.push_str("\\midrule\n");
                }
                last_group = Some(*g);
                let cells: Vec<String> = keys
                    .iter()
                    .map(|k| latex_escape(k))
                    .chain(prep.cells[i].iter().enumerate().map(|(c, p)| {
                        let t = cell_text(p, latex_num, "$\\infty$");
                        if prep.bold[i][c] {
                            format!("\\textbf{{{t}}}")
                        } else {
                            t
                        }
                    }))
                    .collect();
                out.push_str(&cells.join(" & "));
                out.push_str(" \\\\\n");
            }
            out.push_str("\\bottomrule\n\\end{tabular}}\n");
        }
        TableFormat::Markdown => {
            let head: Vec<String> = grid
                .keys
                .iter()
                .chain(&prep.heads)
                .map(|k| md_escape(k))
                .collect();
            out.push_str(&format!("| {} |\n", head.join(" | ")));
            let rule: Vec<&str> = grid
                .keys
                .iter()
                .map(|_| ":---")
                .chain(grid.columns.iter().map(|_| "---:"))
                .collect();
            out.push_str(&format!("| {} |\n", rule.join(" | ")));
            for (i, (_, keys, _)) in grid.rows.iter().enumerate() {
                let cells: Vec<String> = keys
                    .iter()
                    .map(|k| md_escape(k))
                    .chain(prep.cells[i].iter().enumerate().map(|(c, p)| {
                        let t = cell_text(p, str::to_string, "∞");
                        if prep.bold[i][c] {
                            format!("**{t}**")
                        } else {
                            t
                        }
                    }))
                    .collect();
                out.push_str(&format!("| {} |\n", cells.join(" | ")));
            }
            out.push_str(&format!("\n{}\n", legend(precision)));
            for n in &grid.notes {
                out.push_str(&format!("{n}\n"));
            }
        }
        TableFormat::Csv => {
            let mut head: Vec<String> = grid.keys.clone();
            for (c, title) in prep.heads.iter().enumerate() {
                if grid
                    .rows
                    .iter()
                    .any(|r| matches!(r.2.get(c), Some(Value::Interval(..))))
                {
                    head.push(format!("{title} low"));
                    head.push(format!("{title} high"));
                } else {
                    head.push(title.clone());
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
            for (i, (_, keys, _)) in grid.rows.iter().enumerate() {
                let mut cells: Vec<String> = keys.iter().map(|k| csv_field(k)).collect();
                for p in &prep.cells[i] {
                    match p {
                        Printed::Interval(a, b) => {
                            cells.push(a.clone());
                            cells.push(b.clone());
                        }
                        p => cells.push(cell_text(p, str::to_string, "inf")),
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

/// `grid` as an HTML `<table>` (best per column in `<strong>`, the rules
/// of [`render`]), then its notes.
pub fn render_html(grid: &Grid, precision: Precision) -> String {
    let prep = prepare(grid, precision, false);
    let mut out = String::from("<table>\n<thead><tr>");
    for k in &grid.keys {
        out.push_str(&format!("<th>{}</th>", html_escape(k)));
    }
    for h in &prep.heads {
        out.push_str(&format!("<th class=\"num\">{}</th>", html_escape(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, (_, keys, _)) in grid.rows.iter().enumerate() {
        out.push_str("<tr>");
        for k in keys {
            out.push_str(&format!("<td>{}</td>", html_escape(k)));
        }
        for (c, p) in prep.cells[i].iter().enumerate() {
            let t = cell_text(p, html_num, "∞");
            if prep.bold[i][c] {
                out.push_str(&format!("<td class=\"num\"><strong>{t}</strong></td>"));
            } else {
                out.push_str(&format!("<td class=\"num\">{t}</td>"));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out.push_str(&format!("<p>{}</p>\n", html_escape(&legend(precision))));
    for n in &grid.notes {
        out.push_str(&format!("<p>{}</p>\n", html_escape(n)));
    }
    out
}

/// The [`Grid`] of the results folder `dir` (any kind).
pub fn grid_of(dir: &std::path::Path, metrics: &[String]) -> Result<Grid> {
    let src = Source::dir(dir);
    match kind_of(dir)? {
        Kind::Model => model_grid(&src, metrics),
        Kind::Jobs => jobs_grid(&src, metrics),
        Kind::Sweep => sweep_grid(&src, metrics),
        // The first workload's: the service's, else the background's,
        // else the workflows'.
        Kind::Shared => match (shared_workloads(dir).first(), shared_workflows(dir)) {
            (Some((_, sub)), _) => grid_of(sub, metrics),
            (None, Some(wf)) => workflows_grid(&Source::dir(&wf), metrics),
            (None, None) => Err(Error::input(format!(
                "{}: a shared results folder without service/, background/ or workflows/",
                dir.display()
            ))),
        },
    }
}

/// Every column `tenantsim table` can show of `dir` (the report's table):
/// model mode every group, job mode every known column and `ratio`,
/// sweeps the defaults.
pub fn full_grid_of(dir: &std::path::Path) -> Result<Grid> {
    let metrics: Vec<String> = match kind_of(dir)? {
        Kind::Model => MODEL_GROUPS.iter().map(|s| s.to_string()).collect(),
        Kind::Jobs => JOB_COLUMNS
            .iter()
            .map(|c| c.0.to_string())
            .chain(std::iter::once("ratio".to_string()))
            .collect(),
        Kind::Sweep => Vec::new(),
        Kind::Shared => {
            return match (shared_workloads(dir).first(), shared_workflows(dir)) {
                (Some((_, sub)), _) => full_grid_of(sub),
                (None, Some(_)) => grid_of(dir, &WORKFLOW_COLUMNS.map(|c| c.0.to_string())),
                (None, None) => grid_of(dir, &[]),
            };
        }
    };
    grid_of(dir, &metrics)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many significant digits a plain or scientific text shows.
    fn shown_digits(s: &str) -> usize {
        let mant = s.split('e').next().unwrap_or(s);
        let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
        let trimmed = digits.trim_start_matches('0');
        // A plain integer like 1690 shows its trailing zeros as padding.
        if !mant.contains('.') {
            trimmed.trim_end_matches('0').len().max(1)
        } else {
            trimmed.len()
        }
    }

    #[test]
    fn significant_digits_round_within_half_a_unit_of_the_last_digit() {
        // Deterministic values over 10 decades, both signs.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for i in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let frac = (x >> 11) as f64 / (1u64 << 53) as f64;
            let v = 10f64.powf(-6.0 + 13.0 * frac) * if i % 2 == 0 { 1.0 } else { -1.0 };
            for n in 1..=5 {
                let s = number(v, Precision::Significant(n));
                let back: f64 = s.parse().expect("reads back");
                // Independent: the last shown digit's place from log10 of
                // the printed value.
                let mag = back.abs().log10().floor() as i32;
                let half = 0.5 * 10f64.powi(mag + 1 - n as i32);
                assert!(
                    (back - v).abs() <= half * (1.0 + 1e-9),
                    "{v} to {n} digits: {s}"
                );
                assert!(back != 0.0, "{v} printed as zero");
                if !(s.ends_with('0') && !s.contains('.') && !s.contains('e')) {
                    assert_eq!(shown_digits(&s), n, "{v} to {n} digits: {s}");
                }
            }
        }
    }

    #[test]
    fn significant_digits_by_hand() {
        let sig3 = |v| number(v, Precision::Significant(3));
        assert_eq!(sig3(0.0), "0");
        assert_eq!(sig3(0.0042), "0.00420");
        assert_eq!(sig3(0.0001), "0.000100");
        assert_eq!(sig3(0.0000456), "4.56e-5");
        assert_eq!(sig3(1686.7), "1690");
        assert_eq!(sig3(999.6), "1000");
        assert_eq!(sig3(999_999.0), "1.00e6");
        assert_eq!(sig3(6_072_174.02), "6.07e6");
        assert_eq!(sig3(-12.345), "-12.3");
        assert_eq!(sig3(17.05), "17.1"); // 17.05 is 17.050000000000000710… in binary
        assert_eq!(number(0.125, Precision::Significant(2)), "0.12"); // an exact tie: to even
        assert_eq!(number(2.0, Precision::Significant(1)), "2");
    }

    #[test]
    fn fixed_decimals_never_print_a_non_zero_value_as_zero() {
        assert_eq!(number(0.004, Precision::Decimals(2)), "0.004");
        assert_eq!(number(-0.001, Precision::Decimals(2)), "-0.001");
        assert_eq!(number(0.006, Precision::Decimals(2)), "0.01");
        assert_eq!(number(12.345_6, Precision::Decimals(2)), "12.35");
        assert_eq!(number(0.0, Precision::Decimals(2)), "0");
        assert_eq!(number(6_072_174.02, Precision::Full), "6072174.02");
    }

    #[test]
    fn units_switch_at_600_and_36000_base_units() {
        assert_eq!(unit_for(Quantity::Time, Some(599.9)), ("s", 1.0));
        assert_eq!(unit_for(Quantity::Time, Some(600.0)), ("min", 60.0));
        assert_eq!(unit_for(Quantity::Time, Some(35_999.0)), ("min", 60.0));
        assert_eq!(unit_for(Quantity::Time, Some(36_000.0)), ("h", 3600.0));
        assert_eq!(unit_for(Quantity::Time, None), ("s", 1.0));
        assert_eq!(unit_for(Quantity::Regret, Some(1e5)), ("acc·h", 3600.0));
        assert_eq!(unit_for(Quantity::Pure, Some(1e9)), ("", 1.0));
    }

    #[test]
    fn an_interval_takes_the_unit_of_its_mean() {
        // The mean alone would stay in acc·s; its interval reaches 700.
        let mut interval =
            Column::new("regret interval", None, Quantity::Regret, "regret-interval");
        interval.unit_of = Some(0);
        let grid = Grid {
            keys: vec!["policy".into()],
            columns: vec![
                Column::new("regret", Some(Better::Lower), Quantity::Regret, "regret"),
                interval,
            ],
            rows: vec![(
                0,
                vec!["a".into()],
                vec![Value::One(Cell::Num(590.0)), Value::Interval(480.0, 700.0)],
            )],
            notes: Vec::new(),
        };
        let p = prepare(&grid, Precision::Significant(3), false);
        assert_eq!(p.heads, ["regret (acc·min)", "regret interval (acc·min)"]);
        assert_eq!(
            p.cells[0],
            [
                Printed::Num("9.83".into()),
                Printed::Interval("8.00".into(), "11.7".into())
            ]
        );
    }

    #[test]
    fn every_column_the_tables_make_has_a_definition_citing_design() {
        let mut keys: Vec<&str> = JOB_COLUMNS.iter().map(|c| c.4).collect();
        keys.extend([
            "regret",
            "regret-interval",
            "rel-regret",
            "T",
            "speedup",
            "rel-jct",
        ]);
        for h in [
            "time_to_0.1_s",
            "speedup_0.1",
            "speedup",
            "regret_mean",
            "regret_ratio",
            "final_loss_mean",
        ] {
            keys.push(sweep_column(h).metric);
        }
        for k in keys {
            let d = definition(k).unwrap_or_else(|| panic!("no definition of {k}"));
            assert!(d.contains("DESIGN §"), "{k}: {d}");
        }
    }
}
