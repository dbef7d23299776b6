//! A results file written row by row while the runs are folded, so no run
//! is kept for it (the per-run files of both modes).
//!
//! Rows go to an anonymous temporary file (created in the system's
//! temporary folder, `TMPDIR`, and unlinked at once, so nothing is left
//! behind whatever kills the process); when the results folder is written
//! they are copied into it, in bounded memory.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::core::error::{Error, Result};

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

    /// Copy everything written (after [`Spool::finish`]) to `path`
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
