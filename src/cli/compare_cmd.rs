//! `tenantsim compare A B`: B − A per policy and metric with an interval.

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::json;

use crate::core::analysis::compare::{Options, Row, compare_folders};
use crate::core::error::{Error, Result};
use crate::present::figures::{WORKFLOWS_DIR, shared_workflows, shared_workloads};

/// Arguments of `tenantsim compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// The reference results folder (a run or a sweep).
    pub a: PathBuf,
    /// The results folder compared with it (the same kind).
    pub b: PathBuf,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,
    /// Confidence level of the intervals.
    #[arg(
        long,
        allow_negative_numbers = true,
        default_value_t = 0.95,
        value_name = "L"
    )]
    pub level: f64,
    /// Bootstrap resamples of a paired interval.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    pub resamples: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Formats of `compare --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    /// An aligned table.
    Text,
    /// CSV.
    Csv,
    /// A JSON array of rows.
    Json,
}

/// A number as written: shortest round-trip text, `nan`/`inf` as words.
fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else if x.is_nan() {
        "nan".into()
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

fn json_num(x: f64) -> serde_json::Value {
    if x.is_finite() { json!(x) } else { json!(null) }
}

const HEADER: [&str; 11] = [
    "point", "policy", "metric", "n_a", "n_b", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
    "paired",
];

/// A row's cells: numbers as `number` writes them (full precision for
/// CSV, [`for_people`] for the text table).
fn cells(r: &Row, number: fn(f64) -> String) -> [String; 11] {
    [
        r.point.clone(),
        r.policy.clone(),
        r.metric.clone(),
        r.n.0.to_string(),
        r.n.1.to_string(),
        number(r.mean.0),
        number(r.mean.1),
        number(r.diff),
        number(r.ci_low),
        number(r.ci_high),
        r.paired.to_string(),
    ]
}

/// A number of the text table: three decimals, scientific from 10⁶ and
/// below 10⁻³ (`num_text`, as the run summaries print), `nan`/`inf` as
/// words. The table printed `15.309999999999999` and
/// `0.00999999999999801` (a first-contact audit, 2026-12-06); CSV and
/// JSON keep every digit.
fn for_people(x: f64) -> String {
    if x.is_finite() {
        crate::core::io::table::num_text(x)
    } else {
        num(x)
    }
}

/// The rows in `format`.
pub fn render(rows: &[Row], format: CompareFormat) -> Result<String> {
    match format {
        CompareFormat::Json => {
            let v: Vec<serde_json::Value> = rows
                .iter()
                .map(|r| {
                    json!({
                        "point": r.point, "policy": r.policy, "metric": r.metric,
                        "n_a": r.n.0, "n_b": r.n.1,
                        "mean_a": json_num(r.mean.0), "mean_b": json_num(r.mean.1),
                        "diff": json_num(r.diff), "ci_low": json_num(r.ci_low),
                        "ci_high": json_num(r.ci_high), "paired": r.paired,
                    })
                })
                .collect();
            serde_json::to_string_pretty(&v)
                .map(|s| s + "\n")
                .map_err(|e| Error::input(format!("cannot render the JSON: {e}")))
        }
        CompareFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            let io = |e: csv::Error| Error::input(format!("cannot render the CSV: {e}"));
            w.write_record(HEADER).map_err(io)?;
            for r in rows {
                w.write_record(cells(r, num)).map_err(io)?;
            }
            let bytes = w
                .into_inner()
                .map_err(|e| Error::input(format!("cannot render the CSV: {e}")))?;
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        CompareFormat::Text => {
            let all: Vec<[String; 11]> = rows.iter().map(|r| cells(r, for_people)).collect();
            let widths: Vec<usize> = (0..11)
                .map(|c| {
                    all.iter()
                        .map(|r| r[c].chars().count())
                        .chain([HEADER[c].len()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: Vec<&str>| {
                cells
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
                    + "\n"
            };
            let mut out = line(HEADER.to_vec());
            for r in &all {
                out += &line(r.iter().map(String::as_str).collect());
            }
            Ok(out)
        }
    }
}

/// Compare and print.
pub fn compare(args: &CompareArgs) -> Result<()> {
    let options = Options {
        level: args.level,
        resamples: args.resamples,
        seed: args.seed,
    };
    let workloads = shared_workloads(&args.a);
    // The workflows' summary.csv holds means over repetitions (DESIGN
    // §14.7), not the per-repetition rows compare resamples: say so, and
    // compare the other workloads.
    if shared_workflows(&args.a).is_some() {
        if workloads.is_empty() {
            return Err(Error::usage(format!(
                "{}: a shared folder with only {WORKFLOWS_DIR}/, whose summary.csv holds means over \
                 repetitions: compare needs one row per repetition; see `tenantsim table` or \
                 `tenantsim check` for the workflows",
                args.a.display()
            )));
        }
        eprintln!(
            "note: {WORKFLOWS_DIR}/ not compared (its summary.csv holds means over repetitions); \
             see `tenantsim table`"
        );
    }
    let rows = if workloads.is_empty() {
        compare_folders(&args.a, &args.b, options)?
    } else {
        // A shared folder: each workload's folder against B's, its rows'
        // `point` naming the workload (DESIGN §13.5).
        let mut rows = Vec::new();
        for (w, sub) in workloads {
            for mut r in compare_folders(&sub, &args.b.join(w), options)? {
                r.point = if r.point.is_empty() {
                    w.to_string()
                } else {
                    format!("{w}/{}", r.point)
                };
                rows.push(r);
            }
        }
        rows
    };
    let text = render(&rows, args.format)?;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::stdout("the comparison", &e))
}
