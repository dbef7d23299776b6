//! The per-run files (`summary.csv`, `tenants.csv`, `jobs.csv`) written row
//! by row while the runs are folded, so no run is kept for them.
//!
//! Rows go to an anonymous temporary file (created in the system's
//! temporary folder, `TMPDIR`, and unlinked at once, so nothing is left
//! behind whatever kills the process); when the results folder is written
//! they are copied into it, in bounded memory.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{JOBS_HEADER, jobs_rows, summary_header, summary_row, tenants_header, tenants_rows};
use crate::error::{Error, Result};
use crate::experiment::RepResult;
use crate::scenario::Scenario;

/// A file of rows being written.
#[derive(Debug)]
pub struct Spool {
    /// What it will become (for messages).
    name: &'static str,
    out: BufWriter<File>,
    /// Where it was created (shown in messages).
    path: PathBuf,
    /// Whether the name is still there (the unlink failed): removed on drop.
    linked: bool,
}

impl Spool {
    /// A new spool for the file `name`, starting with `header`.
    pub fn new(name: &'static str, header: &str) -> Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        let path = dir.join(format!(
            ".tenantsim-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&format!("create a temporary file for {name} in"), &dir, &e))?;
        // Unlinked now: the open file is all that holds the rows, and it
        // goes away with the process however that ends.
        let linked = fs::remove_file(&path).is_err();
        let mut spool = Self {
            name,
            out: BufWriter::with_capacity(1 << 16, file),
            path,
            linked,
        };
        spool.write(header)?;
        Ok(spool)
    }

    /// Append `text`.
    pub fn write(&mut self, text: &str) -> Result<()> {
        self.out
            .write_all(text.as_bytes())
            .map_err(|e| self.error(&e))
    }

    /// Flush what is buffered.
    pub fn finish(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| self.error(&e))
    }

    fn error(&self, e: &io::Error) -> Error {
        Error::io(
            &format!("write the rows of {} to the temporary file", self.name),
            &self.path,
            e,
        )
    }

    /// Copy everything written (after [`RowSpools::finish`]) to `path`
    /// atomically: a temporary name beside it, fsync, rename.
    pub fn copy_to(&self, path: &Path) -> Result<()> {
        let name = path
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let result = (|| {
            let mut src: &File = self.out.get_ref();
            src.seek(SeekFrom::Start(0))?;
            let mut dst = File::create(&tmp)?;
            io::copy(&mut src, &mut dst)?;
            dst.sync_all()?;
            fs::rename(&tmp, path)
        })();
        result.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            Error::io("write", path, &e)
        })
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        if self.linked {
            let _ = fs::remove_file(&self.path);
        }
    }
}

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
                Some(Spool::new("jobs.csv", JOBS_HEADER)?)
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
        self.line.clear();
        tenants_rows(&mut self.line, scenario, run);
        self.tenants.write(&self.line)?;
        if let Some(jobs) = &mut self.jobs {
            self.line.clear();
            jobs_rows(&mut self.line, scenario, run);
            jobs.write(&self.line)?;
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
