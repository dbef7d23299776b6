//! Input and output, a room of core: this file (crash-safe writes, reading inputs) and beside it results folders, CSV reading and writing, scenario files, node lists, the binary run codec and text tables; it may import core's basics and [`crate::core::sim`], no other room.
//!
//! File input and crash-safe output.
//!
//! Every output file is written to a temporary name in its destination
//! folder, flushed to disk, and renamed over the final name, so a reader
//! never sees a half-written file under the final name (DESIGN §6). Whole
//! results folders are staged and replaced safely ([`StagedDir`],
//! [`prepare_target`]).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::core::error::{Error, Result};

/// Name of the folder of figures inside a results folder.
pub const PLOTS_DIR: &str = "plots";

pub mod by_name;
pub mod cluster;
pub mod codec;
pub mod csv_columns;
pub mod csv_text;
pub mod echo;
pub mod float_text;
pub mod hashed_input;
pub mod key_taken;
pub mod manifest_doc;
pub mod record_log;
mod results_folder;
pub mod scenario;
pub mod schema;
pub mod sealed;
pub mod sorted_runs;
pub mod spill;
pub mod spool;
pub mod table;
pub mod unnamed_file;
pub mod whole;

pub use results_folder::{
    PAUSE_HOOK, Protected, RESULTS_MARK, StagedDir, is_results_folder, prepare_target,
    recover_leftovers, resolve,
};

/// Open `path` for reading; `what` describes it in errors ("trace",
/// "scenario"). A missing file, a directory, and anything that is not a
/// regular file (a FIFO would block forever, a device such as `/dev/zero`
/// never ends) give a clear error. The file is opened non-blocking and
/// checked again once open, so a FIFO put in its place between the check
/// and the open is refused too instead of blocking the open (issue 33).
pub fn open_input(path: &Path, what: &str) -> Result<File> {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(Error::input(format!(
                "{what} {} is a directory: expected a file",
                path.display()
            )));
        }
        Ok(m) if !m.is_file() => return Err(not_regular(path, what, &m)),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::input(format!(
                "{what} {} not found: no such file",
                path.display()
            )));
        }
        Err(e) => return Err(Error::io(&format!("read {what}"), path, &e)),
    }
    let file = open_nonblocking(path).map_err(|e| Error::io(&format!("open {what}"), path, &e))?;
    let m = file
        .metadata()
        .map_err(|e| Error::io(&format!("read {what}"), path, &e))?;
    if !m.is_file() {
        return Err(not_regular(path, what, &m));
    }
    Ok(file)
}

/// Whether `path` is something [`open_input`] would refuse because it is
/// not a regular file (a FIFO, a device, a socket): its error, if so.
/// A missing path is not such a case (`None`).
pub fn special_file_error(path: &Path, what: &str) -> Option<Error> {
    let m = fs::metadata(path).ok()?;
    (!m.is_file() && !m.is_dir()).then(|| not_regular(path, what, &m))
}

fn not_regular(path: &Path, what: &str, m: &fs::Metadata) -> Error {
    Error::input(format!(
        "{what} {} is not a regular file ({}): expected a file",
        path.display(),
        special_kind(m)
    ))
}

/// Open for reading without blocking on a FIFO (a regular file reads as
/// usual with `O_NONBLOCK`).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
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

/// Create `dir` (`what` names it in the error), which must not exist yet:
/// a folder written whole by one caller, never mixed with earlier files.
pub fn create_new_dir(dir: &Path, what: &str) -> Result<()> {
    if dir.exists() {
        return Err(Error::usage(format!(
            "{}: {what} must not exist yet",
            dir.display()
        )));
    }
    fs::create_dir_all(dir)
        .map_err(|e| Error::input(format!("{}: cannot create the folder: {e}", dir.display())))
}

/// The temporary name used while `path` is being written.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(
        ".{}.tmp-{}",
        hidden_stem(&name),
        std::process::id()
    ))
}

/// `name` as it appears in the hidden temporary names beside it
/// (`.STEM.tmp-PID`, `.STEM.partial-PID`): itself, or, when it is too long
/// for those to fit in 255 bytes, its first bytes and a hash of it.
pub(crate) fn hidden_stem(name: &str) -> String {
    const ROOM: usize = 200;
    if name.len() <= ROOM {
        return name.to_string();
    }
    let mut cut = ROOM - 17;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    // FNV-1a: stable across runs and builds, so leftovers are found again.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{}~{hash:016x}", &name[..cut])
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
