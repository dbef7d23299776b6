//! A results file written row by row while the runs are folded, so no run
//! is kept for it (the per-run files of both modes).
//!
//! Rows are buffered in memory in chunks of at most [`CHUNK`] bytes; a
//! full chunk is appended to one anonymous temporary file that every live
//! spool of the process shares (created in the system's temporary folder,
//! `TMPDIR`, and unlinked at once, so nothing is left behind whatever kills
//! the process). A spool remembers where its chunks lie; when the results
//! folder is written they are copied into it, in bounded memory.
//!
//! One file for all spools keeps the open files of a run at one whatever
//! the sweep size: a 600-point sweep holds 1,800 to 3,000 spools until its
//! folders are written, which one file per spool would turn into
//! `Too many open files` under the usual `ulimit -n 1024` (issue 33). The
//! shared file is closed, and its space freed, when the last spool goes.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use super::unnamed_file::UnnamedFile;
use crate::core::error::{Error, Result};

/// The most rows a spool buffers in memory before it appends them to the
/// shared file (bytes).
pub const CHUNK: usize = 16 << 10;

/// The shared temporary file of the live spools.
#[derive(Debug)]
struct Store {
    file: UnnamedFile,
    /// Bytes written so far (every chunk is appended at this offset).
    len: u64,
}

/// The store every new spool joins while one is alive.
static SHARED: Mutex<Weak<Mutex<Store>>> = Mutex::new(Weak::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The live shared store, or a new one.
fn shared_store(name: &str) -> Result<Arc<Mutex<Store>>> {
    let mut shared = lock(&SHARED);
    if let Some(store) = shared.upgrade() {
        return Ok(store);
    }
    let store = Arc::new(Mutex::new(Store {
        file: UnnamedFile::create(name, "rows")?,
        len: 0,
    }));
    *shared = Arc::downgrade(&store);
    Ok(store)
}

/// A file of rows being written.
#[derive(Debug)]
pub struct Spool {
    /// What it will become (for messages).
    name: &'static str,
    store: Arc<Mutex<Store>>,
    /// The rows not yet in the store.
    buf: String,
    /// Where this spool's rows lie in the store, in order: (offset, length).
    chunks: Vec<(u64, u64)>,
}

impl Spool {
    /// A new spool for the file `name`, starting with `header`.
    pub fn new(name: &'static str, header: &str) -> Result<Self> {
        let mut spool = Self {
            name,
            store: shared_store(name)?,
            buf: String::new(),
            chunks: Vec::new(),
        };
        spool.write(header)?;
        Ok(spool)
    }

    /// Append `text`.
    pub fn write(&mut self, text: &str) -> Result<()> {
        self.buf.push_str(text);
        self.end_row()
    }

    /// The rows not yet in the store, to append rows to in place (then
    /// [`end_row`](Self::end_row)), so a run of many rows is written
    /// chunk by chunk instead of formatted whole first.
    pub fn buffer(&mut self) -> &mut String {
        &mut self.buf
    }

    /// After rows were appended to [`buffer`](Self::buffer): move them to
    /// the store once they fill a chunk.
    pub fn end_row(&mut self) -> Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Move the buffered rows to the store.
    fn flush_buf(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut store = lock(&self.store);
        let at = store.len;
        let n = self.buf.len() as u64;
        let written = (|| {
            store.file.file_mut().seek(SeekFrom::Start(at))?;
            store.file.file_mut().write_all(self.buf.as_bytes())
        })();
        if let Err(e) = written {
            return Err(error(self.name, store.file.path(), &e));
        }
        store.len = at + n;
        drop(store);
        match self.chunks.last_mut() {
            // The previous chunk ends here: one longer chunk.
            Some((off, len)) if *off + *len == at => *len += n,
            _ => self.chunks.push((at, n)),
        }
        // A large write must not keep its buffer's size.
        if self.buf.capacity() > 2 * CHUNK {
            self.buf = String::new();
        } else {
            self.buf.clear();
        }
        Ok(())
    }

    /// Every row is in: move them to the store and free the buffer.
    pub fn finish(&mut self) -> Result<()> {
        self.flush_buf()?;
        self.buf = String::new();
        Ok(())
    }

    /// Copy everything written to `path` atomically: a temporary name
    /// beside it, fsync, rename.
    pub fn copy_to(&self, path: &Path) -> Result<()> {
        let tmp = super::temp_path(path);
        let result = (|| {
            let mut dst = File::create(&tmp)?;
            {
                let mut store = lock(&self.store);
                for &(off, len) in &self.chunks {
                    store.file.file_mut().seek(SeekFrom::Start(off))?;
                    let copied = io::copy(&mut store.file.file().take(len), &mut dst)?;
                    if copied != len {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "the temporary file of rows is shorter than written",
                        ));
                    }
                }
            }
            dst.write_all(self.buf.as_bytes())?;
            dst.sync_all()?;
            fs::rename(&tmp, path)
        })();
        result.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            Error::io("write", path, &e)
        })
    }
}

fn error(name: &str, path: &Path, e: &io::Error) -> Error {
    Error::io(
        &format!("write the rows of {name} to the temporary file"),
        path,
        e,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job-mode run's `jobs.csv` rows were formatted whole into one
    /// string and then copied into the spool's buffer: two copies of every
    /// row of the run, each grown by doubling (about 130 bytes a job with
    /// `--jobs`). Rows appended in place hold at most a chunk and a row.
    #[test]
    fn a_runs_rows_were_held_whole_before_they_were_spooled() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut spool = Spool::new("jobs.csv", "h\n").expect("spool");
        let mut expected = String::from("h\n");
        for i in 0..100_000 {
            let row = format!("fifo,0,j{i},u{},{i}.5,{i}.5,{i}.75,1\n", i % 7);
            spool.buffer().push_str(&row);
            spool.end_row().expect("row");
            expected.push_str(&row);
            assert!(spool.buffer().len() < CHUNK, "row {i}");
        }
        spool.finish().expect("finish");
        let path = dir.path().join("jobs.csv");
        spool.copy_to(&path).expect("copy");
        assert_eq!(fs::read_to_string(&path).expect("read"), expected);
    }

    #[test]
    fn many_spools_share_one_file_and_keep_their_rows_apart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut spools: Vec<Spool> = (0..3000)
            .map(|_| Spool::new("summary.csv", "h\n").expect("spool"))
            .collect();
        // Interleaved writes, some past a chunk.
        let big = "x".repeat(CHUNK + 7);
        for round in 0..3 {
            for (i, s) in spools.iter_mut().enumerate() {
                s.write(&format!("{i},{round}\n")).expect("write");
                if i % 1000 == 0 {
                    s.write(&big).expect("write");
                    s.write("\n").expect("write");
                }
            }
        }
        assert!(
            spools
                .iter()
                .all(|s| Arc::ptr_eq(&s.store, &spools[0].store))
        );
        for (i, s) in spools.iter_mut().enumerate().step_by(499) {
            s.finish().expect("finish");
            let out = dir.path().join(format!("{i}.csv"));
            s.copy_to(&out).expect("copy");
            let mut want = String::from("h\n");
            for round in 0..3 {
                want.push_str(&format!("{i},{round}\n"));
                if i % 1000 == 0 {
                    want.push_str(&big);
                    want.push('\n');
                }
            }
            assert_eq!(fs::read_to_string(&out).expect("read"), want);
        }
    }
}
