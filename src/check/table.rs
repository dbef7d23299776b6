//! Reading a `summary.csv` generically: key columns `policy` and `rep`,
//! every other column a metric.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::io_util::read_input;

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
    let bytes = read_input(&path, "summary")?;
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes.as_slice());
    let headers = reader
        .headers()
        .map_err(|e| Error::input(format!("{source}: {e}")))?
        .clone();
    let pos = |name: &str| headers.iter().position(|h| h == name);
    let (Some(p), Some(r)) = (pos("policy"), pos("rep")) else {
        return Err(Error::input(format!(
            "{source}: line 1: expected the columns `policy` and `rep`"
        )));
    };
    let metric_idx: Vec<usize> = (0..headers.len()).filter(|&i| i != p && i != r).collect();
    let metrics = metric_idx.iter().map(|&i| headers[i].to_string()).collect();
    let mut rows = BTreeMap::new();
    let mut policies: Vec<String> = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| crate::trace::csv_error_for(&source, &e))?;
        let line = rec.position().map_or(0, csv::Position::line);
        let key = (rec[p].to_string(), rec[r].to_string());
        if !policies.contains(&key.0) {
            policies.push(key.0.clone());
        }
        let values = metric_idx.iter().map(|&i| rec[i].to_string()).collect();
        if rows.insert(key.clone(), values).is_some() {
            return Err(Error::input(format!(
                "{source}: line {line}: policy `{}` repetition {} appears twice",
                key.0, key.1
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
