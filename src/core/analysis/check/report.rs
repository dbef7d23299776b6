//! Checking a results folder (one run or a sweep) against a golden one,
//! exactly (within a tolerance) or statistically (`--stat`), into a
//! [`Report`] that the renderers ([`super::render`]) turn into text, JSON,
//! JUnit XML or markdown.

use std::collections::BTreeMap;
use std::path::Path;

use super::family::{Family, resolve};
use super::folder::{Layout, layout, summary_header};
use super::welch::{hedges_g, holm, mean_var, paired, welch};
use super::{
    Comparison, Drift, SummaryTable, Tolerance, compare_aligned, compare_summaries, differences,
    read_summary, rep_order,
};
use crate::core::error::{Error, Result};
use crate::core::io::manifest_doc::ManifestDoc;
use crate::core::resources::{human_bytes, memory_budget};

/// How values are compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// Every value within the tolerance of its golden value.
    Exact(Tolerance),
    /// Per (point, policy, metric): Welch's t test of the per-repetition
    /// values, or the paired t test of their differences where golden and
    /// results share seed and repetitions ([`Pairing`]), Holm–Bonferroni
    /// within the pass/fail family ([`Family`]),
    /// drift where the adjusted p-value is ≤ `alpha`; columns constant on
    /// both sides compared exactly, outside Holm's m; the other metrics
    /// tested as a secondary family that never fails the check.
    Stat {
        /// Family-wise significance level.
        alpha: f64,
    },
}

/// One value beyond the tolerance (exact check).
#[derive(Debug, Clone, PartialEq)]
pub struct Deviation {
    /// Repetition.
    pub rep: String,
    /// Value in the results.
    pub got: String,
    /// Golden value.
    pub golden: String,
    /// |got − golden| / |golden| (|got − golden| when golden is 0; inf for
    /// text or infinities that differ): what "largest first" sorts by.
    pub size: f64,
}

/// Which test a (point, policy, metric) got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// Welch's two-sample t test (the runs' seeds or repetitions differ,
    /// or a `run.json` is missing).
    Welch,
    /// The paired t test of the per-repetition differences (the same seed
    /// and repetitions on both sides, matched by `rep`).
    Paired,
}

impl Test {
    /// The name the reports use: `welch`, `paired`.
    pub fn name(self) -> &'static str {
        match self {
            Test::Welch => "welch",
            Test::Paired => "paired",
        }
    }
}

/// The statistical test of one (point, policy, metric).
#[derive(Debug, Clone, PartialEq)]
pub struct StatTest {
    /// Welch's or the paired t test.
    pub test: Test,
    /// Repetitions in the golden and the results.
    pub n: (usize, usize),
    /// Means over repetitions: golden, results.
    pub mean: (f64, f64),
    /// t (results − golden): Welch's, or the paired d̄ / (s_d / √n).
    pub t: f64,
    /// Degrees of freedom: Welch–Satterthwaite, or n − 1 when paired.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// Holm-adjusted p-value, over the tests of the case's family (the
    /// pass/fail family or the secondary one).
    pub p_holm: f64,
    /// Hedges' g of the results against the golden.
    pub g: f64,
}

/// A paired (point, policy, metric) whose per-repetition differences are
/// all equal (up to the rounding of the values, [`paired`]): no test, an
/// exact comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedExact {
    /// Repetitions (the same on both sides).
    pub n: usize,
    /// Means over repetitions: golden, results.
    pub mean: (f64, f64),
    /// The difference results − golden of every repetition: 0 identical
    /// (passes), else a certain difference (fails like a changed constant).
    pub diff: f64,
}

/// Whether the repetitions of one point (one run) pair, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairing {
    /// The sweep point's folder ("" for a single run).
    pub point: String,
    /// Both `run.json` files have the same `seed` and `repetitions`.
    pub paired: bool,
    /// Why (or why not), for people.
    pub reason: String,
}

/// One (point, policy, metric) of the golden.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The sweep point's folder ("" for a single run).
    pub point: String,
    /// Policy label.
    pub policy: String,
    /// Metric column.
    pub metric: String,
    /// Exact check: the values beyond the tolerance, repetitions in
    /// numeric order.
    pub deviations: Vec<Deviation>,
    /// Statistical check: the test, or `None` when not tested.
    pub stat: Option<StatTest>,
    /// Statistical check: why the case was not tested.
    pub untested: Option<String>,
    /// Statistical check: the values are constant on both sides (zero
    /// variance, or the same text such as `inf` or `n/a` in every
    /// repetition), compared exactly rather than tested: (golden value,
    /// results value) as written.
    pub constant: Option<(String, String)>,
    /// Statistical check, paired: the differences are all equal, compared
    /// exactly rather than tested.
    pub paired_exact: Option<PairedExact>,
    /// Statistical check: the metric is not in the pass/fail family; the
    /// case is tested in the secondary family and never fails the check.
    pub secondary: bool,
    /// Whether this case drifted (fails the check).
    pub failed: bool,
    /// A secondary case that would have drifted (its Holm-adjusted p ≤ α
    /// within the secondary family, or a constant that differs): shown,
    /// not part of the verdict.
    pub moved: bool,
}

impl Case {
    /// What "worst first" sorts statistical cases by: the Holm-adjusted p
    /// (0 for a constant that differs), then −|g| (−inf for a constant).
    fn severity(&self) -> (f64, f64) {
        match (&self.stat, &self.constant, &self.paired_exact) {
            (Some(s), _, _) => (s.p_holm, -s.g.abs()),
            (None, Some((g, r)), _) if !same_value(g, r) => (0.0, f64::NEG_INFINITY),
            (None, _, Some(e)) if e.diff != 0.0 => (0.0, f64::NEG_INFINITY),
            _ => (1.0, 0.0),
        }
    }
}

/// Whether two values as written are the same: equal numbers (`1` and
/// `1.0`; `inf` and `inf`), else equal text.
pub fn same_value(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// A difference of shape: a missing or extra point, other policies,
/// metrics or repetitions. Always drift.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The sweep point's folder ("" for a single run).
    pub point: String,
    /// What differs.
    pub message: String,
}

/// The outcome of [`check_folders`].
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// How values were compared.
    pub method: Method,
    /// The results folder, as named in messages.
    pub results: String,
    /// The golden folder.
    pub golden: String,
    /// Every (point, policy, metric) compared, in point, policy (golden
    /// order) and metric (column) order.
    pub cases: Vec<Case>,
    /// Differences of shape.
    pub problems: Vec<Problem>,
    /// Values compared (exact) or t tests (Welch or paired) of the
    /// pass/fail family (stat; constant columns and paired columns of
    /// equal differences not counted).
    pub checked: usize,
    /// Statistical check: the pass/fail family.
    pub family: Option<Family>,
    /// Statistical check: t tests of the secondary family.
    pub secondary_checked: usize,
    /// Statistical check: whether each point compared pairs its
    /// repetitions, in point order.
    pub pairing: Vec<Pairing>,
}

impl Report {
    /// Whether anything drifted (exit code 1).
    pub fn drifted(&self) -> bool {
        !self.problems.is_empty() || self.cases.iter().any(|c| c.failed)
    }

    /// The failed cases, worst first: exact, by the largest relative
    /// deviation of the case; stat, by the smallest adjusted p (a constant
    /// that differs first), then the largest |g|; ties in case order.
    pub fn failures_largest_first(&self) -> Vec<&Case> {
        self.worst_first(|c| c.failed)
    }

    /// The secondary cases that moved, worst first (as
    /// [`Report::failures_largest_first`]).
    pub fn moved_largest_first(&self) -> Vec<&Case> {
        self.worst_first(|c| c.moved)
    }

    fn worst_first(&self, keep: impl Fn(&Case) -> bool) -> Vec<&Case> {
        let mut v: Vec<&Case> = self.cases.iter().filter(|c| keep(c)).collect();
        match self.method {
            Method::Stat { .. } => v.sort_by(|a, b| {
                let (x, y) = (a.severity(), b.severity());
                x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1))
            }),
            Method::Exact(_) => v.sort_by(|a, b| largest(b).total_cmp(&largest(a))),
        }
        v
    }
}

/// The largest relative deviation of a case.
fn largest(c: &Case) -> f64 {
    c.deviations.iter().map(|d| d.size).fold(0.0, f64::max)
}

/// Tells the modes apart from a `summary.csv` header: `Some(name)` when
/// the columns are a known mode's.
pub type ModeOf<'a> = &'a dyn Fn(&[String]) -> Option<&'static str>;

/// Check `results` against `golden` (each one run or a sweep, the same
/// kind). `metrics` names the pass/fail family of the statistical check
/// (`--metric`; empty: the golden's `check.toml`, else the mode's primary
/// metrics, [`resolve`]). Errors are trouble (exit 2): a folder missing
/// or of the wrong kind or mode, a file that does not parse, an unknown
/// metric. Drift is in the report.
pub fn check_folders(
    results: &Path,
    golden: &Path,
    method: Method,
    metrics: &[String],
    mode_of: ModeOf<'_>,
) -> Result<Report> {
    let lr = layout(results, "results")?;
    let lg = layout(golden, "golden")?;
    let mut problems = Vec::new();
    let mut pairs: Vec<(String, std::path::PathBuf, std::path::PathBuf)> = Vec::new();
    match (&lr, &lg) {
        (Layout::Single, Layout::Single) => {
            pairs.push((String::new(), results.to_path_buf(), golden.to_path_buf()));
        }
        (Layout::Sweep(got), Layout::Sweep(want)) => {
            // Sweeps of the other mode share no point: say so, not "every
            // point missing".
            if let (Some(p), Some(q)) = (got.first(), want.first()) {
                same_mode(&results.join(p), &golden.join(q), mode_of)?;
            }
            for p in want.iter().filter(|p| !got.contains(p)) {
                problems.push(Problem {
                    point: p.clone(),
                    message: format!(
                        "point {p} is missing from the results {}",
                        results.display()
                    ),
                });
            }
            for p in got.iter().filter(|p| !want.contains(p)) {
                problems.push(Problem {
                    point: p.clone(),
                    message: format!("point {p} is not in the golden {}", golden.display()),
                });
            }
            for p in want.iter().filter(|p| got.contains(p)) {
                pairs.push((p.clone(), results.join(p), golden.join(p)));
            }
        }
        _ => {
            let kind = |l: &Layout| match l {
                Layout::Single => "one run",
                Layout::Sweep(_) => "a sweep",
            };
            return Err(Error::input(format!(
                "the results {} are {} but the golden {} is {}: check a sweep against a sweep golden, a run against a run golden",
                results.display(),
                kind(&lr),
                golden.display(),
                kind(&lg)
            )));
        }
    }
    let mut tables = Vec::new();
    // The golden's metric columns over every point, in first-seen order:
    // the names `--metric` and check.toml may use.
    let mut known: Vec<String> = Vec::new();
    // What the keyed tables read so far will hold (memory guard).
    let mut table_bytes = 0u64;
    for (point, r, g) in &pairs {
        same_mode(r, g, mode_of)?;
        // The exact check of files that line up streams them: memory
        // holds the drifts, never the tables (issue 33).
        if let Method::Exact(tol) = method
            && let Some(c) = compare_aligned(r, g, tol)?
        {
            tables.push((point, PointData::Streamed(c)));
            continue;
        }
        table_bytes = tables_memory(r, g, table_bytes)?;
        let got = read_summary(r)?;
        let want = read_summary(g)?;
        for m in &want.metrics {
            if !known.contains(m) {
                known.push(m.clone());
            }
        }
        tables.push((point, PointData::Tables(got, want)));
    }
    let family = match method {
        Method::Stat { .. } => {
            let mode = match pairs.first() {
                Some((_, _, g)) => mode_of(&summary_header(g)?),
                None => None,
            };
            Some(resolve(metrics, golden, &known, mode)?)
        }
        Method::Exact(_) => None,
    };
    let mut pairing = Vec::new();
    if let Method::Stat { .. } = method {
        for (point, r, g) in &pairs {
            pairing.push(pairing_of(point, r, g)?);
        }
    }
    let mut cases = Vec::new();
    let mut checked = 0;
    for (k, (point, data)) in tables.iter().enumerate() {
        let (got, want) = match data {
            PointData::Streamed(c) => {
                checked += c.checked;
                cases_from_drifts(point, &c.policies, &c.metrics, &c.drifts, &mut cases);
                continue;
            }
            PointData::Tables(got, want) => (got, want),
        };
        let exact = matches!(method, Method::Exact(_));
        if let Some(message) = differences(got, want, exact) {
            problems.push(Problem {
                point: point.to_string(),
                message,
            });
            continue;
        }
        match method {
            Method::Exact(tol) => {
                checked += want.rows.len() * want.metrics.len();
                exact_cases(point, got, want, tol, &mut cases)?;
            }
            Method::Stat { .. } => {
                if let Some(f) = &family {
                    let paired = pairing.get(k).is_some_and(|p| p.paired);
                    stat_cases(point, got, want, f, paired, &mut cases);
                }
            }
        }
    }
    let mut secondary_checked = 0;
    if let Method::Stat { alpha } = method {
        // Holm within each family: the pass/fail one and the secondary one.
        for secondary in [false, true] {
            let tested: Vec<usize> = (0..cases.len())
                .filter(|&i| cases[i].stat.is_some() && cases[i].secondary == secondary)
                .collect();
            let p: Vec<f64> = tested
                .iter()
                .filter_map(|&i| cases[i].stat.as_ref().map(|s| s.p))
                .collect();
            for (&i, adj) in tested.iter().zip(holm(&p)) {
                if let Some(s) = cases[i].stat.as_mut() {
                    s.p_holm = adj;
                }
                if secondary {
                    cases[i].moved = adj <= alpha;
                } else {
                    cases[i].failed = adj <= alpha;
                }
            }
            if secondary {
                secondary_checked = tested.len();
            } else {
                checked = tested.len();
            }
        }
    }
    Ok(Report {
        method,
        results: results.display().to_string(),
        golden: golden.display().to_string(),
        cases,
        problems,
        checked,
        family,
        secondary_checked,
        pairing,
    })
}

/// One point's summaries, as [`check_folders`] compares them.
enum PointData {
    /// Compared in lockstep as they were read (the exact check of files
    /// that line up): only the drifts are held.
    Streamed(Comparison),
    /// The keyed tables (results, golden).
    Tables(SummaryTable, SummaryTable),
}

/// Bytes of memory the keyed comparison takes per byte of the two
/// `summary.csv` files, at worst: every value kept as a `String` in a
/// `BTreeMap` of rows, and every drifted value again as a drift and a
/// deviation. Measured with `/usr/bin/time -f %M tenantsim check A
/// --against B`: 449 MB peak for two 50 MB summaries that match (4.5
/// bytes per input byte), 8.86 GB for two 250 MB summaries of which 94 %
/// of the values drift (17.7).
pub const TABLE_BYTES_PER_INPUT_BYTE: u64 = 18;

/// The memory the keyed tables will take once those of `results` and
/// `golden` are read besides the `held` bytes of earlier points
/// ([`TABLE_BYTES_PER_INPUT_BYTE`]), refused before anything is read when
/// it is more than this process may use ([`memory_budget`]): a clear
/// error naming the files instead of an aborted allocation.
fn tables_memory(results: &Path, golden: &Path, held: u64) -> Result<u64> {
    let size = |d: &Path| {
        std::fs::metadata(d.join("summary.csv"))
            .map(|m| m.len())
            .unwrap_or(0)
    };
    let (a, b) = (size(results), size(golden));
    let need = a
        .saturating_add(b)
        .saturating_mul(TABLE_BYTES_PER_INPUT_BYTE)
        .saturating_add(held);
    if let Some((budget, from)) = memory_budget()
        && need > budget
    {
        return Err(Error::input(format!(
            "{} ({}) and {} ({}) are compared as keyed tables (they do not line up row by \
             row, or more than {} of their values drift), which take up to {} bytes of memory \
             per byte of the files: {}, more than the {} this process may use ({from})",
            results.join("summary.csv").display(),
            human_bytes(a),
            golden.join("summary.csv").display(),
            human_bytes(b),
            crate::core::limits::grouped(super::stream::MAX_STREAMED_DRIFTS as u64),
            TABLE_BYTES_PER_INPUT_BYTE,
            human_bytes(need),
            human_bytes(budget),
        )));
    }
    Ok(need)
}

/// `seed` and `repetitions` of `dir/run.json`: `Ok(Err(why not))` when
/// the file is missing or lacks them (the point is then not paired), an
/// error when it cannot be read or is not JSON.
fn run_identity(dir: &Path, what: &str) -> Result<std::result::Result<(u64, u64), String>> {
    let Some(doc) = ManifestDoc::read(
        dir,
        "`check --stat` reads its `seed` and `repetitions` to pair repetitions",
    )?
    else {
        return Ok(Err(format!("no run.json in the {what}")));
    };
    Ok(match (doc.seed(), doc.repetitions()) {
        (Some(s), Some(r)) => Ok((s, r)),
        _ => Err(format!(
            "{} has no integer `seed` and `repetitions`",
            doc.path().display()
        )),
    })
}

/// Whether the repetitions of the results `r` and the golden `g` (one run
/// or one sweep point) pair: both `run.json` files name the same `seed`
/// and the same `repetitions`, so repetition k of both sides drew its
/// tenant split, arrivals and tie-breaks from the same streams (they
/// derive from seed, repetition and purpose).
fn pairing_of(point: &str, r: &Path, g: &Path) -> Result<Pairing> {
    let (ir, ig) = (run_identity(r, "results")?, run_identity(g, "golden")?);
    let (paired, reason) = match (ir, ig) {
        (Err(why), _) | (_, Err(why)) => (false, why),
        (Ok((sr, nr)), Ok((sg, ng))) if sr == sg && nr == ng => (
            true,
            format!("the same seed {sr} and {nr} repetitions on both sides"),
        ),
        (Ok((sr, nr)), Ok((sg, ng))) if sr != sg => (
            false,
            format!("seeds differ: results {sr}, golden {sg} ({nr} and {ng} repetitions)"),
        ),
        (Ok((_, nr)), Ok((_, ng))) => (
            false,
            format!("repetitions differ: results {nr}, golden {ng}"),
        ),
    };
    Ok(Pairing {
        point: point.to_string(),
        paired,
        reason,
    })
}

/// An error unless the `summary.csv` files of `r` and `g` belong to the
/// same mode (or `mode_of` knows neither).
fn same_mode(r: &Path, g: &Path, mode_of: ModeOf<'_>) -> Result<()> {
    let (hr, hg) = (summary_header(r)?, summary_header(g)?);
    if let (Some(mr), Some(mg)) = (mode_of(&hr), mode_of(&hg))
        && mr != mg
    {
        return Err(Error::input(format!(
            "{} holds {mr}-mode results but the golden {} holds {mg}-mode results: check against a golden of the same mode",
            r.join("summary.csv").display(),
            g.join("summary.csv").display()
        )));
    }
    Ok(())
}

/// The relative size of a deviation (see [`Deviation::size`]).
fn deviation_size(got: &str, golden: &str) -> f64 {
    match (got.parse::<f64>(), golden.parse::<f64>()) {
        (Ok(x), Ok(g)) if x.is_finite() && g.is_finite() => {
            let d = (x - g).abs();
            if g == 0.0 { d } else { d / g.abs() }
        }
        _ => f64::INFINITY,
    }
}

fn exact_cases(
    point: &str,
    got: &SummaryTable,
    want: &SummaryTable,
    tol: Tolerance,
    cases: &mut Vec<Case>,
) -> Result<()> {
    let drifts = compare_summaries(got, want, tol)?;
    cases_from_drifts(point, &want.policies, &want.metrics, &drifts, cases);
    Ok(())
}

/// One case per (policy, metric) of the golden, in that order, with its
/// drifts as deviations (repetitions in numeric order).
fn cases_from_drifts(
    point: &str,
    policies: &[String],
    metrics: &[String],
    drifts: &[Drift],
    cases: &mut Vec<Case>,
) {
    let mut by_case: BTreeMap<(&str, &str), Vec<Deviation>> = BTreeMap::new();
    for d in drifts {
        by_case
            .entry((d.policy.as_str(), d.metric.as_str()))
            .or_default()
            .push(Deviation {
                rep: d.rep.clone(),
                got: d.got.clone(),
                golden: d.golden.clone(),
                size: deviation_size(&d.got, &d.golden),
            });
    }
    for policy in policies {
        for metric in metrics {
            let mut deviations = by_case
                .remove(&(policy.as_str(), metric.as_str()))
                .unwrap_or_default();
            deviations.sort_by(|a, b| rep_order(&a.rep, &b.rep));
            cases.push(Case {
                point: point.to_string(),
                policy: policy.clone(),
                metric: metric.clone(),
                failed: !deviations.is_empty(),
                deviations,
                stat: None,
                untested: None,
                constant: None,
                paired_exact: None,
                secondary: false,
                moved: false,
            });
        }
    }
}

/// One policy's values of metric column `i`, repetitions in numeric order.
pub fn column<'a>(t: &'a SummaryTable, policy: &str, i: usize) -> Vec<(&'a str, &'a str)> {
    let mut v: Vec<(&str, &str)> = t
        .rows
        .iter()
        .filter(|((p, _), _)| p == policy)
        .map(|((_, r), vals)| (r.as_str(), vals[i].as_str()))
        .collect();
    v.sort_by(|a, b| rep_order(a.0, b.0));
    v
}

/// The finite numbers of a column, or `None` if any value is not one.
pub fn numbers(values: &[(&str, &str)]) -> Option<Vec<f64>> {
    values
        .iter()
        .map(|(_, v)| v.parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect()
}

/// The one value of a column of at least 2 repetitions when every value
/// is the same ([`same_value`]): zero variance.
fn constant<'a>(values: &[(&str, &'a str)]) -> Option<&'a str> {
    let first = values.first()?.1;
    (values.len() >= 2 && values.iter().all(|v| same_value(v.1, first))).then_some(first)
}

fn stat_cases(
    point: &str,
    got: &SummaryTable,
    want: &SummaryTable,
    family: &Family,
    paired_point: bool,
    cases: &mut Vec<Case>,
) {
    for policy in &want.policies {
        for (i, metric) in want.metrics.iter().enumerate() {
            let (a, b) = (column(want, policy, i), column(got, policy, i));
            let secondary = !family.contains(metric);
            let mut case = Case {
                point: point.to_string(),
                policy: policy.clone(),
                metric: metric.clone(),
                deviations: Vec::new(),
                stat: None,
                untested: None,
                constant: None,
                paired_exact: None,
                secondary,
                failed: false,
                moved: false,
            };
            // Zero variance on both sides: no test (its p would be 1 or 0
            // and still count in Holm's m) but an exact comparison.
            if let (Some(u), Some(v)) = (constant(&a), constant(&b)) {
                if !same_value(u, v) {
                    case.failed = !secondary;
                    case.moved = secondary;
                }
                case.constant = Some((u.to_string(), v.to_string()));
                cases.push(case);
                continue;
            }
            match (numbers(&a), numbers(&b)) {
                (Some(x), Some(y)) if x.len() >= 2 && y.len() >= 2 => {
                    let mean = (mean_var(&x).0, mean_var(&y).0);
                    // Paired only when the point's run.json files match
                    // and this policy has the same repetitions on both
                    // sides (matched by `rep`); otherwise Welch.
                    let same_reps = a.len() == b.len() && a.iter().zip(&b).all(|(u, v)| u.0 == v.0);
                    if paired_point && same_reps {
                        let w = paired(&x, &y);
                        if w.se == 0.0 {
                            // Equal differences: identical (d = 0) or a
                            // certain difference, compared exactly and
                            // outside Holm's m like a constant column.
                            if w.diff != 0.0 {
                                case.failed = !secondary;
                                case.moved = secondary;
                            }
                            case.paired_exact = Some(PairedExact {
                                n: x.len(),
                                mean,
                                diff: w.diff,
                            });
                        } else {
                            case.stat = Some(stat_test(Test::Paired, &x, &y, (w.t, w.df, w.p)));
                        }
                    } else {
                        let w = welch(&x, &y);
                        case.stat = Some(stat_test(Test::Welch, &x, &y, (w.t, w.df, w.p)));
                    }
                }
                (Some(_), Some(_)) => {
                    case.untested = Some("fewer than 2 repetitions on a side".into());
                }
                _ => {
                    let mut sa: Vec<&str> = a.iter().map(|v| v.1).collect();
                    let mut sb: Vec<&str> = b.iter().map(|v| v.1).collect();
                    sa.sort_unstable();
                    sb.sort_unstable();
                    if sa == sb {
                        case.untested = Some("not all finite numbers; the same values".into());
                    } else {
                        case.untested =
                            Some("not all finite numbers (inf or n/a): not tested".into());
                    }
                }
            }
            cases.push(case);
        }
    }
}

/// The row of a t test of `x` against `y` with statistic, degrees of
/// freedom and p value `(t, df, p)`; `p_holm` starts at `p` (Holm adjusts
/// it over the family afterwards).
fn stat_test(test: Test, x: &[f64], y: &[f64], (t, df, p): (f64, f64, f64)) -> StatTest {
    StatTest {
        test,
        n: (x.len(), y.len()),
        mean: (mean_var(x).0, mean_var(y).0),
        t,
        df,
        p,
        p_holm: p,
        g: hedges_g(x, y),
    }
}
