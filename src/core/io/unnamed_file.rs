//! A temporary file without a name: created in the system's temporary
//! folder (`TMPDIR`) and unlinked at once, so the open handle is all that
//! holds its bytes and nothing is left behind however the process ends.
//! Where the unlink fails (a file system that refuses it), the name is
//! removed when the handle is dropped. One mechanism for the results
//! spools ([`super::spool`]) and the metrics' spilled sequences
//! (`core::io::spill`).

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::core::error::{Error, Result};

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
        let dir = std::env::temp_dir();
        let path = dir.join(format!(
            ".tenantsim-{}-{}-{suffix}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&format!("create a temporary file for {what} in"), &dir, &e))?;
        let linked = fs::remove_file(&path).is_err();
        Ok(Self { file, path, linked })
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
