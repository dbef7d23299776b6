//! Comparing two `summary.csv` files row by row, in bounded memory.
//!
//! Two results of the same scenario list the same (policy, rep) keys in
//! the same order, so the files are read in lockstep and each pair of rows
//! is compared as it is read; memory holds the policy names and the drifts,
//! never the tables. When the files do not line up like that (a key or a
//! row count differs, a policy's repetitions do not strictly increase, a
//! row does not parse), the comparison starts over with the keyed tables
//! of [`read_summary`] and [`compare_summaries`], which give the same
//! answer for aligned files and explain everything else.

use std::io::BufReader;

use crate::core::io::csv_columns::CsvReader;
use std::path::Path;

use super::{Drift, Tolerance, compare_summaries, read_summary};
use crate::core::error::Result;
use crate::core::io::open_input;

/// The outcome of [`compare_dirs`].
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Values beyond the tolerance, ordered by (policy, rep) as text, then
    /// column (empty = pass).
    pub drifts: Vec<Drift>,
    /// Values compared (rows × metric columns of the golden file).
    pub checked: usize,
    /// The policies, in order of first appearance (as
    /// [`SummaryTable::policies`](super::SummaryTable)).
    pub policies: Vec<String>,
    /// The metric columns, in file order.
    pub metrics: Vec<String>,
    /// The results file, as named in messages.
    pub results: String,
    /// The golden file.
    pub golden: String,
}

/// Compare `results/summary.csv` against `golden/summary.csv`: errors and
/// drifts as [`compare_summaries`] gives them.
pub fn compare_dirs(results: &Path, golden: &Path, tol: Tolerance) -> Result<Comparison> {
    if let Some(c) = lockstep(results, golden, tol)? {
        return Ok(c);
    }
    let got = read_summary(results)?;
    let want = read_summary(golden)?;
    let drifts = compare_summaries(&got, &want, tol)?;
    Ok(Comparison {
        drifts,
        checked: want.rows.len() * want.metrics.len(),
        results: got.source,
        golden: want.source,
        policies: want.policies,
        metrics: want.metrics,
    })
}

/// The comparison of `results/summary.csv` and `golden/summary.csv` read
/// in lockstep, in memory that holds only the drifts, when the two files
/// line up (the same keys in the same order); `None` when they do not, and
/// the caller reads the keyed tables ([`read_summary`]).
pub fn compare_aligned(
    results: &Path,
    golden: &Path,
    tol: Tolerance,
) -> Result<Option<Comparison>> {
    lockstep(results, golden, tol)
}

/// One `summary.csv` opened for reading row by row.
struct Rows {
    reader: CsvReader<BufReader<std::fs::File>>,
    source: String,
    /// Columns `policy` and `rep`.
    key: (usize, usize),
    /// Metric column names, in file order.
    metrics: Vec<String>,
    /// Their positions.
    columns: Vec<usize>,
}

impl Rows {
    /// Open `dir/summary.csv`; `None` when its header is not usable here.
    fn open(dir: &Path) -> Result<Option<Self>> {
        let path = dir.join("summary.csv");
        let file = open_input(&path, "summary")?;
        // Any trouble reading (a BOM inside, ragged rows, bad UTF-8) sends
        // the caller to the keyed comparison, whose reader reports it.
        let Ok(reader) = CsvReader::new(&path.display().to_string(), BufReader::new(file), false)
        else {
            return Ok(None);
        };
        let headers = reader.headers().clone();
        let pos = |name: &str| headers.iter().position(|h| h == name);
        let (Some(p), Some(r)) = (pos("policy"), pos("rep").or_else(|| pos("reps"))) else {
            return Ok(None);
        };
        let columns: Vec<usize> = (0..headers.len()).filter(|&i| i != p && i != r).collect();
        let metrics = columns.iter().map(|&i| headers[i].to_string()).collect();
        Ok(Some(Self {
            reader,
            source: path.display().to_string(),
            key: (p, r),
            metrics,
            columns,
        }))
    }

    /// The next row into `rec`: `Some(false)` at the end, `None` on a row
    /// that does not parse.
    fn next(&mut self, rec: &mut csv::StringRecord) -> Option<bool> {
        self.reader.read_record(rec).ok().map(|line| line.is_some())
    }
}

/// The most drifts the lockstep comparison holds: past it (the files
/// differ almost everywhere) it gives up, and the caller's keyed
/// comparison decides, after its memory check, whether to list them all.
/// A drift held here takes about 300 bytes (with its deviation).
pub const MAX_STREAMED_DRIFTS: usize = 1_000_000;

/// The comparison of aligned files; `None` when they are not aligned (the
/// caller then compares the keyed tables) or more than
/// [`MAX_STREAMED_DRIFTS`] values drift.
fn lockstep(results: &Path, golden: &Path, tol: Tolerance) -> Result<Option<Comparison>> {
    let (Some(mut got), Some(mut want)) = (Rows::open(results)?, Rows::open(golden)?) else {
        return Ok(None);
    };
    if got.metrics != want.metrics {
        return Ok(None);
    }
    let (mut a, mut b) = (csv::StringRecord::new(), csv::StringRecord::new());
    let mut policies: Vec<String> = Vec::new();
    let mut last_rep: Vec<u64> = Vec::new();
    let mut drifts = Vec::new();
    let mut rows = 0usize;
    loop {
        let (Some(more_a), Some(more_b)) = (got.next(&mut a), want.next(&mut b)) else {
            return Ok(None);
        };
        match (more_a, more_b) {
            (false, false) => break,
            (true, true) => {}
            _ => return Ok(None),
        }
        let (pa, ra) = (&a[got.key.0], &a[got.key.1]);
        let (pb, rb) = (&b[want.key.0], &b[want.key.1]);
        if pa != pb || ra != rb {
            return Ok(None);
        }
        let Ok(rep) = ra.parse::<u64>() else {
            return Ok(None);
        };
        let i = match policies.iter().position(|p| p == pa) {
            Some(i) => {
                if rep <= last_rep[i] {
                    return Ok(None);
                }
                i
            }
            None => {
                policies.push(pa.to_string());
                last_rep.push(rep);
                policies.len() - 1
            }
        };
        last_rep[i] = rep;
        for ((metric, &ga), &wa) in want.metrics.iter().zip(&got.columns).zip(&want.columns) {
            let (g, w) = (&a[ga], &b[wa]);
            if !tol.matches(g, w) {
                if drifts.len() == MAX_STREAMED_DRIFTS {
                    return Ok(None);
                }
                drifts.push(Drift {
                    policy: pa.to_string(),
                    rep: ra.to_string(),
                    metric: metric.clone(),
                    got: g.to_string(),
                    golden: w.to_string(),
                });
            }
        }
        rows += 1;
    }
    // The keyed comparison lists drifts in key order.
    drifts.sort_by(|x, y| (&x.policy, &x.rep).cmp(&(&y.policy, &y.rep)));
    Ok(Some(Comparison {
        drifts,
        checked: rows * want.metrics.len(),
        results: got.source,
        golden: want.source,
        policies,
        metrics: want.metrics,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "policy,rep,loss,jobs\n";

    fn dir_with(text: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().expect("tempdir");
        std::fs::write(d.path().join("summary.csv"), text).expect("write");
        d
    }

    /// What the keyed tables say about the same two files.
    fn keyed(a: &Path, b: &Path, tol: Tolerance) -> Result<Vec<Drift>> {
        compare_summaries(&read_summary(a)?, &read_summary(b)?, tol)
    }

    #[test]
    fn aligned_files_give_the_keyed_drifts_in_key_order() {
        let got = dir_with(&format!(
            "{HEAD}b,0,0.5,3\na,0,0.25,3\nb,1,0.7,4\na,1,0.1,2\nb,2,0.9,9\na,2,0.1,1\nb,10,0.0,1\na,10,0.3,1\n"
        ));
        let want = dir_with(&format!(
            "{HEAD}b,0,0.5,3\na,0,0.2,3\nb,1,0.7,5\na,1,0.1,2\nb,2,0.8,9\na,2,0.1,1\nb,10,0.0,1\na,10,0.4,1\n"
        ));
        let tol = Tolerance::default();
        assert!(
            lockstep(got.path(), want.path(), tol)
                .expect("ok")
                .is_some()
        );
        let c = compare_dirs(got.path(), want.path(), tol).expect("compare");
        assert_eq!(c.checked, 16);
        assert_eq!(
            c.drifts,
            keyed(got.path(), want.path(), tol).expect("keyed")
        );
        let keys: Vec<(&str, &str, &str)> = c
            .drifts
            .iter()
            .map(|d| (d.policy.as_str(), d.rep.as_str(), d.metric.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                ("a", "0", "loss"),
                ("a", "10", "loss"),
                ("b", "1", "jobs"),
                ("b", "2", "loss")
            ]
        );
    }

    #[test]
    fn files_that_do_not_line_up_get_the_keyed_answer() {
        let tol = Tolerance::default();
        let base = dir_with(&format!("{HEAD}a,0,0.5,3\nb,0,0.25,3\na,1,0.7,4\n"));
        for other in [
            // Rows in another order.
            format!("{HEAD}b,0,0.25,3\na,0,0.5,3\na,1,0.6,4\n"),
            // A row missing, a row too many.
            format!("{HEAD}a,0,0.5,3\nb,0,0.25,3\n"),
            format!("{HEAD}a,0,0.5,3\nb,0,0.25,3\na,1,0.7,4\na,2,0.7,4\n"),
            // A repetition twice.
            format!("{HEAD}a,0,0.5,3\nb,0,0.25,3\na,0,0.7,4\n"),
            // Another policy, other columns, a short row.
            format!("{HEAD}a,0,0.5,3\nc,0,0.25,3\na,1,0.7,4\n"),
            "policy,rep,loss\na,0,0.5\nb,0,0.25\na,1,0.7\n".to_string(),
            format!("{HEAD}a,0,0.5,3\nb,0\na,1,0.7,4\n"),
        ] {
            let o = dir_with(&other);
            assert!(
                lockstep(o.path(), base.path(), tol).expect("ok").is_none(),
                "{other}"
            );
            let streamed = compare_dirs(o.path(), base.path(), tol).map(|c| c.drifts);
            assert_eq!(streamed, keyed(o.path(), base.path(), tol), "{other}");
        }
    }
}
