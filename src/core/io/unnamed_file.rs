//! A temporary file without a name: created in the system's temporary
//! folder (`TMPDIR`) and unlinked at once, so the open handle is all that
//! holds its bytes and nothing is left behind however the process ends.
//! Where the unlink fails (a file system that refuses it), the name is
//! removed when the handle is dropped. One mechanism for the results
//! spools ([`super::spool`]) and the metrics' spilled sequences
//! (`core::io::spill`).

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::core::error::{Error, Result};

/// Names [`UnnamedFile::create`] tries before it gives up: each one
/// already there (left by a killed process of the same PID) is passed over.
pub const NAME_ATTEMPTS: u32 = 1_000;

/// An open, unlinked temporary file.
#[derive(Debug)]
pub struct UnnamedFile {
    file: File,
    /// Where it was created (shown in messages; already unlinked unless
    /// `linked`).
    path: PathBuf,
    /// Whether the name is still there (the unlink failed): removed on drop.
    linked: bool,
}

impl UnnamedFile {
    /// A new empty file named `.tenantsim-PID-N-SUFFIX` in the temporary
    /// folder, unlinked at once; an error says it was to hold `what`.
    pub fn create(what: &str, suffix: &str) -> Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Self::create_in(&std::env::temp_dir(), what, suffix, &NEXT)
    }

    /// [`Self::create`] in `dir`, N taken from `next`. A name that is
    /// already there is passed over for the next N (up to
    /// [`NAME_ATTEMPTS`] names), never opened or removed: a process killed
    /// between creating its file and unlinking it leaves its name behind,
    /// and a later process given the same PID came to it first. (It was
    /// the error "cannot create a temporary file for summary.csv in /tmp:
    /// File exists" of a run whose PID had been a killed run's.)
    fn create_in(dir: &Path, what: &str, suffix: &str, next: &AtomicU64) -> Result<Self> {
        let mut attempt = 0;
        loop {
            let path = dir.join(format!(
                ".tenantsim-{}-{}-{suffix}",
                std::process::id(),
                next.fetch_add(1, Ordering::Relaxed)
            ));
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => {
                    let linked = fs::remove_file(&path).is_err();
                    return Ok(Self { file, path, linked });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists && attempt + 1 < NAME_ATTEMPTS => {
                    attempt += 1;
                }
                Err(e) => {
                    return Err(Error::io(
                        &format!("create a temporary file for {what} in"),
                        dir,
                        &e,
                    ));
                }
            }
        }
    }

    /// The open file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The open file, to seek and write through.
    pub fn file_mut(&mut self) -> &mut File {
        &mut self.file
    }

    /// Where it was created (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether its name is still in the folder (the unlink failed).
    pub fn is_linked(&self) -> bool {
        self.linked
    }
}

impl Drop for UnnamedFile {
    fn drop(&mut self) {
        if self.linked {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom, Write};

    /// A killed process of the same PID left the names this one would
    /// take first: they are passed over and left as they are, and the file
    /// is made at the next free name.
    #[test]
    fn a_name_left_by_a_killed_process_with_the_same_pid_is_passed_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let name = |n: u64| {
            dir.path()
                .join(format!(".tenantsim-{}-{n}-rows", std::process::id()))
        };
        for n in 0..3 {
            fs::write(name(n), "a killed run's").expect("a leftover");
        }
        let next = AtomicU64::new(0);
        let f = UnnamedFile::create_in(dir.path(), "summary.csv", "rows", &next).expect("created");
        assert_eq!(f.path(), name(3));
        assert!(!f.path().exists(), "unlinked");
        for n in 0..3 {
            let left = fs::read_to_string(name(n)).expect("still there");
            assert_eq!(left, "a killed run's");
        }
        // A folder where every name is taken is an error that says where.
        let next = AtomicU64::new(0);
        let full = tempfile::tempdir().expect("tempdir");
        for n in 0..u64::from(NAME_ATTEMPTS) {
            fs::write(
                full.path()
                    .join(format!(".tenantsim-{}-{n}-rows", std::process::id())),
                "",
            )
            .expect("a leftover");
        }
        let e = UnnamedFile::create_in(full.path(), "summary.csv", "rows", &next)
            .expect_err("every name taken")
            .to_string();
        assert!(
            e.contains("create a temporary file for summary.csv in") && e.contains("exists"),
            "{e}"
        );
    }

    #[test]
    fn an_unnamed_file_holds_its_bytes_and_leaves_no_name() {
        let mut f = UnnamedFile::create("a test", "unnamed-test").expect("create");
        assert!(!f.is_linked(), "the unlink failed on this file system");
        assert!(
            !f.path().exists(),
            "{} still has a name",
            f.path().display()
        );
        f.file_mut().write_all(b"rows").expect("write");
        f.file_mut().seek(SeekFrom::Start(0)).expect("seek");
        let mut back = String::new();
        f.file_mut().read_to_string(&mut back).expect("read");
        assert_eq!(back, "rows");
        let path = f.path().to_path_buf();
        drop(f);
        assert!(!path.exists());
    }
}
