//! File input and crash-safe output.
//!
//! Every output file is written to a temporary name in its destination
//! folder, flushed to disk, and renamed over the final name, so a reader
//! never sees a half-written file under the final name (DESIGN §6).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Open `path` for reading; `what` describes it in errors ("trace",
/// "scenario"). A missing file, a directory, and anything that is not a
/// regular file (a FIFO would block forever, a device such as `/dev/zero`
/// never ends) give a clear error.
pub fn open_input(path: &Path, what: &str) -> Result<File> {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(Error::input(format!(
                "{what} {} is a directory: expected a file",
                path.display()
            )));
        }
        Ok(m) if !m.is_file() => {
            return Err(Error::input(format!(
                "{what} {} is not a regular file ({}): expected a file",
                path.display(),
                special_kind(&m)
            )));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::input(format!(
                "{what} {} not found: no such file",
                path.display()
            )));
        }
        Err(e) => return Err(Error::io(&format!("read {what}"), path, &e)),
    }
    File::open(path).map_err(|e| Error::io(&format!("open {what}"), path, &e))
}

/// What kind of special file `m` describes, for messages.
fn special_kind(m: &fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    let _ = m;
    "a special file"
}

/// Read a whole input file as bytes (see [`open_input`] for errors).
pub fn read_input(path: &Path, what: &str) -> Result<Vec<u8>> {
    read_input_limited(path, what, u64::MAX)
}

/// [`read_input`] for a file of at most `max_bytes` bytes: a larger file
/// is an error that names the limit, found before anything is read (and
/// reading stops at the limit should the file grow meanwhile).
pub fn read_input_limited(path: &Path, what: &str, max_bytes: u64) -> Result<Vec<u8>> {
    let file = open_input(path, what)?;
    let too_big = || {
        Error::input(format!(
            "{what} {} is larger than {max_bytes} bytes, the limit for a {what}",
            path.display()
        ))
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > max_bytes {
        return Err(too_big());
    }
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, max_bytes.saturating_add(1)),
        &mut buf,
    )
    .map_err(|e| Error::io(&format!("read {what}"), path, &e))?;
    if buf.len() as u64 > max_bytes {
        return Err(too_big());
    }
    Ok(buf)
}

/// Read a whole input file of at most `max_bytes` bytes as UTF-8 text;
/// `what` describes it in errors, `expected` says what kind of text it
/// should be ("a TOML text file").
pub fn read_text(path: &Path, what: &str, expected: &str, max_bytes: u64) -> Result<String> {
    String::from_utf8(read_input_limited(path, what, max_bytes)?).map_err(|e| {
        Error::input(format!(
            "{}: invalid UTF-8 at byte {}: expected {expected}",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Create `dir` and its parents, with a clear error when that is impossible
/// (a file in the way, no permission).
pub fn create_dir_all(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(Error::input(format!(
            "output folder {} exists and is not a folder",
            dir.display()
        )));
    }
    fs::create_dir_all(dir).map_err(|e| Error::io("create output folder", dir, &e))
}

/// The temporary name used while `path` is being written.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Write `bytes` to `path` atomically: temp file, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_dir_all(parent)?;
    }
    let tmp = temp_path(path);
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io("write", path, &e)
    })
}

/// A results folder built under a temporary name and moved into place only
/// when complete, so an interrupted or killed run never leaves a folder that
/// looks finished: the final folder is either the previous complete one,
/// the new complete one, or absent.
///
/// Files go into [`StagedDir::path`] (`.<name>.partial-<pid>` beside the
/// target); [`StagedDir::commit`] renames any existing target to
/// `.<name>.old-<pid>`, renames the staged folder to the target, and removes
/// the old one. Dropped without commit, the staged folder is removed.
#[derive(Debug)]
pub struct StagedDir {
    target: PathBuf,
    staged: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Start staging the folder `target`.
    pub fn new(target: &Path) -> Result<Self> {
        if target.exists() && !target.is_dir() {
            return Err(Error::input(format!(
                "output folder {} exists and is not a folder",
                target.display()
            )));
        }
        let name = target
            .file_name()
            .map_or_else(|| "results".into(), |n| n.to_string_lossy().into_owned());
        let parent = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        create_dir_all(parent)?;
        let staged = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if staged.exists() {
            let _ = fs::remove_dir_all(&staged);
        }
        fs::create_dir(&staged).map_err(|e| Error::io("create output folder", &staged, &e))?;
        Ok(Self {
            target: target.to_path_buf(),
            staged,
            committed: false,
        })
    }

    /// Where to write the files.
    pub fn path(&self) -> &Path {
        &self.staged
    }

    /// Move the complete folder into place.
    pub fn commit(mut self) -> Result<()> {
        let old = self.staged.with_file_name(
            self.staged
                .file_name()
                .map(|n| n.to_string_lossy().replace(".partial-", ".old-"))
                .unwrap_or_default(),
        );
        let had_old = self.target.exists();
        if had_old {
            fs::rename(&self.target, &old)
                .map_err(|e| Error::io("replace output folder", &self.target, &e))?;
        }
        fs::rename(&self.staged, &self.target)
            .map_err(|e| Error::io("move results into", &self.target, &e))?;
        self.committed = true;
        if had_old {
            let _ = fs::remove_dir_all(&old);
        }
        Ok(())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.staged);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_dir_appears_only_on_commit_and_replaces_the_old_one() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let target = tmp.path().join("res");
        fs::create_dir(&target).expect("mkdir");
        fs::write(target.join("old.csv"), "old").expect("write");
        let staged = StagedDir::new(&target).expect("stage");
        write_atomic(&staged.path().join("new.csv"), b"new").expect("write");
        assert!(
            target.join("old.csv").exists(),
            "old folder intact before commit"
        );
        assert!(!target.join("new.csv").exists());
        staged.commit().expect("commit");
        assert!(!target.join("old.csv").exists());
        assert_eq!(fs::read(target.join("new.csv")).expect("read"), b"new");
        let leftovers: Vec<_> = fs::read_dir(tmp.path()).expect("ls").collect();
        assert_eq!(leftovers.len(), 1, "only the results folder remains");
    }

    #[test]
    fn dropped_staged_dir_leaves_nothing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let target = tmp.path().join("res");
        {
            let staged = StagedDir::new(&target).expect("stage");
            write_atomic(&staged.path().join("a.csv"), b"a").expect("write");
        }
        assert!(!target.exists());
        assert_eq!(fs::read_dir(tmp.path()).expect("ls").count(), 0);
    }
}
