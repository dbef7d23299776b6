//! The per-run files of model mode (`summary.csv`, `tenants.csv`,
//! `jobs.csv`), spooled row by row while the runs are folded.

use std::ops::Range;

use super::{
    jobs_header, jobs_rows_of, summary_header, summary_row, tenants_header, tenants_rows_of,
};
use crate::core::error::Result;
use crate::core::io::spool::Spool;
use crate::models::metrics::RepResult;
use crate::models::scenario::Scenario;

/// Tenants whose `tenants.csv` rows are formatted at a time (about 1 MB
/// of text).
const TENANT_ROWS_AT_ONCE: usize = 8192;

/// Jobs of a run's log whose `jobs.csv` rows are formatted at a time
/// (about 1 MB of text).
const JOB_ROWS_AT_ONCE: usize = 16_384;

/// The spooled rows of one scenario's per-run files.
#[derive(Debug)]
pub struct RowSpools {
    /// `summary.csv`.
    pub summary: Spool,
    /// `tenants.csv`.
    pub tenants: Spool,
    /// `jobs.csv`, when the runs keep their job logs.
    pub jobs: Option<Spool>,
    /// The rows of the run being added (reused).
    line: String,
}

impl RowSpools {
    /// Start the files of `scenario` (`jobs.csv` too with `jobs`).
    pub fn new(scenario: &Scenario, jobs: bool) -> Result<Self> {
        Ok(Self {
            summary: Spool::new("summary.csv", &summary_header(scenario))?,
            tenants: Spool::new("tenants.csv", &tenants_header(scenario))?,
            jobs: if jobs {
                Some(Spool::new("jobs.csv", &jobs_header(scenario))?)
            } else {
                None
            },
            line: String::new(),
        })
    }

    /// Append the rows of the next run.
    pub fn add(&mut self, scenario: &Scenario, run: &RepResult) -> Result<()> {
        self.line.clear();
        summary_row(&mut self.line, scenario, run);
        self.summary.write(&self.line)?;
        // A range at a time: the text of a run's rows is never held whole
        // (at 10^7 tenants, 2.2 GB and its copy in the spool's buffer).
        let line = &mut self.line;
        // The rows are read once, in order (from disk for a large run).
        let mut rows = run.tenants.iter();
        let mut chunk = Vec::with_capacity(TENANT_ROWS_AT_ONCE.min(run.tenants.len()));
        let mut start = 0;
        loop {
            chunk.clear();
            for row in rows.by_ref().take(TENANT_ROWS_AT_ONCE) {
                chunk.push(row?);
            }
            if chunk.is_empty() {
                break;
            }
            line.clear();
            tenants_rows_of(line, scenario, run, start, &chunk);
            self.tenants.write(line)?;
            start += chunk.len();
        }
        if let Some(jobs) = &mut self.jobs {
            let n = run.outcome.jobs.len();
            in_ranges(line, jobs, n, JOB_ROWS_AT_ONCE, |l, r| {
                jobs_rows_of(l, scenario, run, r)
            })?;
        }
        // A run with a huge job log must not keep its buffer's size.
        if self.line.capacity() > 1 << 20 {
            self.line = String::new();
        }
        Ok(())
    }

    /// Every row is in: flush them to the files.
    pub fn finish(&mut self) -> Result<()> {
        self.summary.finish()?;
        self.tenants.finish()?;
        if let Some(j) = &mut self.jobs {
            j.finish()?;
        }
        Ok(())
    }
}

/// Write the rows of items `0..n` to `spool`, `at_once` items at a time,
/// each range formatted by `rows` into `line` (cleared first).
fn in_ranges(
    line: &mut String,
    spool: &mut Spool,
    n: usize,
    at_once: usize,
    mut rows: impl FnMut(&mut String, Range<usize>) -> Result<()>,
) -> Result<()> {
    for start in (0..n).step_by(at_once.max(1)) {
        line.clear();
        rows(line, start..(start + at_once).min(n))?;
        spool.write(line)?;
    }
    Ok(())
}
