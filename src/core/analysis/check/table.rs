//! Reading a `summary.csv` generically: key columns `policy` and `rep`,
//! every other column a metric. A summary of means per policy (a shared
//! folder's `workflows/summary.csv`, DESIGN §14.7) has `reps` in place of
//! `rep`: its rows are keyed by (policy, repetitions).

use std::collections::BTreeMap;
use std::path::Path;

use crate::core::error::{Error, Result};
use crate::core::io::csv_columns::CsvReader;
use crate::core::io::echo::shown;
use crate::core::io::open_input;

/// A summary table keyed by (policy, rep).
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryTable {
    /// Where it was read from.
    pub source: String,
    /// Metric column names, in file order.
    pub metrics: Vec<String>,
    /// Rows: (policy, rep) → metric values as written.
    pub rows: BTreeMap<(String, String), Vec<String>>,
    /// Policy names in order of first appearance.
    pub policies: Vec<String>,
}

/// Read `summary.csv` from `dir`.
pub fn read_summary(dir: &Path) -> Result<SummaryTable> {
    let path = dir.join("summary.csv");
    let source = path.display().to_string();
    let file = open_input(&path, "summary")?;
    parse_summary(&source, file)
}

/// Parse a `summary.csv` read from `input`; `source` names it in errors.
pub fn parse_summary(source: &str, input: impl std::io::Read) -> Result<SummaryTable> {
    let source = source.to_string();
    let mut reader = CsvReader::new(&source, input, false)?;
    let headers = reader.headers().clone();
    let pos = |name: &str| headers.iter().position(|h| h == name);
    let (Some(p), Some(r)) = (pos("policy"), pos("rep").or_else(|| pos("reps"))) else {
        return Err(Error::input(format!(
            "{source}: line 1: expected the columns `policy` and `rep`"
        )));
    };
    let metric_idx: Vec<usize> = (0..headers.len()).filter(|&i| i != p && i != r).collect();
    let metrics = metric_idx.iter().map(|&i| headers[i].to_string()).collect();
    let mut rows = BTreeMap::new();
    let mut policies: Vec<String> = Vec::new();
    let mut rec = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut rec)? {
        let key = (rec[p].to_string(), rec[r].to_string());
        if !policies.contains(&key.0) {
            policies.push(key.0.clone());
        }
        let values = metric_idx.iter().map(|&i| rec[i].to_string()).collect();
        if rows.insert(key.clone(), values).is_some() {
            return Err(Error::input(format!(
                "{source}: line {line}: policy `{}` repetition {} appears twice",
                shown(&key.0),
                shown(&key.1)
            )));
        }
    }
    Ok(SummaryTable {
        source,
        metrics,
        rows,
        policies,
    })
}

/// Repetitions in numeric order (text that is not a number after them, as
/// text).
pub fn rep_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        _ => a.cmp(b),
    }
}
