//! Results folders: which folders tenantsim may replace, how it replaces
//! them without ever losing the old or the new one, and how it finds and
//! resolves what a killed run left behind (docs/REFERENCE.md, "Replacing a
//! results folder safely").
//!
//! - Every folder tenantsim writes carries the mark [`RESULTS_MARK`]. A
//!   command replaces an existing folder only when it is empty, marked (or
//!   an older results folder whose `run.json` says `"tool": "tenantsim"`),
//!   or the user passed `--force`; never when it holds one of the run's
//!   inputs or the current directory ([`prepare_target`]).
//! - [`StagedDir`] builds the new folder as `.NAME.partial-PID` beside the
//!   target, then renames the old one to `.NAME.old-PID`, the new one to
//!   `NAME`, fsyncs the parent folder, and only then removes the old one.
//! - A kill can leave those hidden folders; the next command that writes
//!   `NAME` reports and resolves them first ([`recover_leftovers`]).

use std::ffi::OsStr;
use std::fs::{self, File};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::core::error::{Error, Result};
use crate::core::interrupt;

use super::manifest_doc::ManifestDoc;
use super::{create_dir_all, hidden_stem, write_atomic};

/// The file that marks a folder as written by tenantsim.
pub const RESULTS_MARK: &str = ".tenantsim-results";

/// Test hook (documented in docs/REFERENCE.md): milliseconds to sleep between the
/// two renames of a commit, so tests can kill a run in that window.
pub const PAUSE_HOOK: &str = "TENANTSIM_TEST_PAUSE_BETWEEN_RENAMES";

const STAGED_TAG: &str = ".partial-";
const OLD_TAG: &str = ".old-";

/// Targets the user allowed with `--force` (resolved paths).
static FORCED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn mark_text() -> String {
    format!(
        "This folder was written by tenantsim {}: a later run may replace it as a whole.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The line of the mark after which the entries a command wrote are
/// listed, one name a line.
const ENTRIES_LINE: &str = "The entries it wrote (a later run replaces the folder only if it holds no others, or with --force):";

/// The mark of a folder whose top-level entries, as written, are
/// `entries` ([`StagedDir::commit`]).
fn mark_text_listing(entries: &[String]) -> String {
    let mut text = mark_text();
    text.push_str(ENTRIES_LINE);
    text.push('\n');
    for name in entries {
        text.push_str(name);
        text.push('\n');
    }
    text
}

/// The top-level entries of `dir` but its mark, sorted by name.
fn entry_names(dir: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| Error::io("list", dir, &e))? {
        let entry = entry.map_err(|e| Error::io("list", dir, &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != RESULTS_MARK {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Names tenantsim's later commands write into a results folder by
/// default (`plot`'s `plots/`, `report`'s `report.html`): not the user's.
const WRITTEN_LATER: [&str; 2] = [super::PLOTS_DIR, "report.html"];

/// The entries of the results folder `dir` that tenantsim did not write:
/// not listed in its mark, not a folder tenantsim wrote (a `whatif`
/// fork's), not what a later command writes there by default
/// ([`WRITTEN_LATER`]). Empty for a folder whose mark lists nothing (one
/// written before the marks listed their entries, 2026-12-06): its
/// entries are taken as tenantsim's, as they were then.
fn entries_not_written_by_tenantsim(dir: &Path) -> Vec<String> {
    let Ok(mark) = fs::read_to_string(dir.join(RESULTS_MARK)) else {
        return Vec::new();
    };
    let Some((_, listed)) = mark.split_once(&format!("{ENTRIES_LINE}\n")) else {
        return Vec::new();
    };
    let listed: Vec<&str> = listed.lines().collect();
    entry_names(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|name| {
            !listed.contains(&name.as_str())
                && !WRITTEN_LATER.contains(&name.as_str())
                && !is_results_folder(&dir.join(name))
        })
        .collect()
}

/// An input of the command that a results folder must never swallow.
#[derive(Debug, Clone, Copy)]
pub struct Protected<'a> {
    /// What it is ("the scenario file", "the trace").
    pub what: &'a str,
    /// Where it is.
    pub path: &'a Path,
}

/// `path` made absolute, `.` and `..` removed, and symbolic links of its
/// existing part resolved; the part that does not exist yet is kept as
/// written (it holds no links).
pub fn resolve(path: &Path) -> Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Error::io("find the current directory for", path, &e))?
            .join(path)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => {
                out.push(n);
                let is_link = fs::symlink_metadata(&out).is_ok_and(|m| m.file_type().is_symlink());
                if is_link && let Ok(real) = fs::canonicalize(&out) {
                    out = real;
                }
            }
        }
    }
    Ok(out)
}

/// Whether `dir` is a folder tenantsim wrote: it holds [`RESULTS_MARK`], or
/// a `run.json` naming tenantsim as its tool (results written before the
/// mark existed), or it is the `plots/` folder of such a folder.
pub fn is_results_folder(dir: &Path) -> bool {
    if dir.join(RESULTS_MARK).is_file() || manifest_names_tenantsim(dir) {
        return true;
    }
    dir.file_name() == Some(OsStr::new(super::PLOTS_DIR))
        && dir
            .parent()
            .is_some_and(|p| p.join(RESULTS_MARK).is_file() || manifest_names_tenantsim(p))
}

/// Whether `dir/run.json` is a manifest tenantsim wrote (read by the one
/// reader: anything special, huge or not JSON is not ours).
fn manifest_names_tenantsim(dir: &Path) -> bool {
    ManifestDoc::read(dir, "its `tool` tells whose folder it is")
        .ok()
        .flatten()
        .is_some_and(|m| m.is_tenantsim())
}

fn is_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|mut it| it.next().is_none())
}

/// Whether staged folder `dir` is one whose run was killed while writing
/// its mark: it holds nothing but the mark's temporary file
/// (`write_atomic`'s `.STEM.tmp-PID` of [`RESULTS_MARK`]), or nothing.
fn is_unmarked_start(dir: &Path) -> bool {
    let prefix = format!(".{}.tmp-", hidden_stem(RESULTS_MARK));
    fs::read_dir(dir).is_ok_and(|entries| {
        let mut n = 0;
        entries.into_iter().all(|e| {
            n += 1;
            n <= 1
                && e.is_ok_and(|e| {
                    e.file_name().to_string_lossy().starts_with(&prefix)
                        && e.file_type().is_ok_and(|t| t.is_file())
                })
        })
    })
}

/// The folder that holds `resolved` and its final name.
fn split(resolved: &Path, shown: &Path) -> Result<(PathBuf, String)> {
    match (resolved.parent(), resolved.file_name()) {
        (Some(parent), Some(name)) => {
            Ok((parent.to_path_buf(), name.to_string_lossy().into_owned()))
        }
        _ => Err(Error::input(format!(
            "output folder {} is the root of the file system: choose a folder inside it",
            shown.display()
        ))),
    }
}

/// Check, before anything runs, that the results folder `target` may be
/// written: it is not a file; it does not hold `protect`ed inputs or the
/// current directory (not even with `force`); leftovers of killed runs
/// beside it are resolved (their reports are returned, one line each); an
/// existing folder is empty, tenantsim's, or `force`d; and the folder beside
/// it accepts a staged folder. Nothing is changed when it refuses.
pub fn prepare_target(
    target: &Path,
    force: bool,
    protect: &[Protected<'_>],
) -> Result<Vec<String>> {
    if target.exists() && !target.is_dir() {
        return Err(Error::input(format!(
            "output folder {} exists and is not a folder",
            target.display()
        )));
    }
    let resolved = resolve(target)?;
    let (parent, name) = split(&resolved, target)?;
    let cwd = std::env::current_dir().ok().and_then(|d| resolve(&d).ok());
    let inputs = protect
        .iter()
        .map(|p| {
            (
                p.what.to_string(),
                resolve(p.path).ok(),
                p.path.to_path_buf(),
            )
        })
        .chain(cwd.map(|d| ("the current directory".to_string(), Some(d.clone()), d)));
    for (what, real, shown) in inputs {
        if real.is_some_and(|r| r.starts_with(&resolved)) {
            let which = if shown == resolved || what == "the current directory" {
                what
            } else {
                format!("{what} {}", shown.display())
            };
            return Err(Error::input(format!(
                "refusing to write results to {}: it holds {which}, and writing results \
                 replaces the whole folder; choose another --out (even --force never \
                 replaces a folder holding the command's inputs or the current directory)",
                target.display()
            )));
        }
    }
    let notes = recover_leftovers(&parent, &name)?;
    if resolved.is_dir() && is_results_folder(&resolved) && !force {
        let added = entries_not_written_by_tenantsim(&resolved);
        if !added.is_empty() {
            const SHOWN: usize = 5;
            let mut listed: Vec<String> =
                added.iter().take(SHOWN).map(|n| format!("`{n}`")).collect();
            if added.len() > SHOWN {
                listed.push(format!("and {} more", added.len() - SHOWN));
            }
            return Err(Error::input(format!(
                "refusing to replace {}: it is a results folder tenantsim wrote, but it also \
                 holds {} it did not write ({}), which replacing the folder would delete; \
                 move {} out, choose another --out, or pass --force to replace the folder \
                 and everything in it",
                target.display(),
                if added.len() == 1 {
                    "an entry"
                } else {
                    "entries"
                },
                listed.join(", "),
                if added.len() == 1 { "it" } else { "them" },
            )));
        }
    }
    if resolved.is_dir() && !is_empty_dir(&resolved) && !is_results_folder(&resolved) {
        if !force {
            return Err(Error::input(format!(
                "refusing to replace {}: it exists and is not a results folder written by \
                 tenantsim (it has no {RESULTS_MARK} file), so its files are left as they were; \
                 choose a new folder with --out, move it away yourself, or pass --force to \
                 replace it and everything in it",
                target.display()
            )));
        }
        FORCED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(resolved.clone());
    }
    if resolved.is_dir() && is_mount_point(&resolved) {
        return Err(Error::input(format!(
            "cannot write results to {}: it is a mount point, which cannot be renamed, and \
             results folders are replaced by renaming; use a folder inside it, e.g. --out {}",
            target.display(),
            target.join("results").display()
        )));
    }
    probe(&parent, &name, target)?;
    Ok(notes)
}

/// Make and rename a staging folder beside the target (then remove it), so
/// a folder where that is impossible fails now, not after the simulation.
fn probe(parent: &Path, name: &str, shown: &Path) -> Result<()> {
    create_dir_all(parent)?;
    let pid = std::process::id();
    let stem = hidden_stem(name);
    let a = parent.join(format!(".{stem}{STAGED_TAG}{pid}"));
    let b = parent.join(format!(".{stem}{STAGED_TAG}{pid}-probe"));
    fs::create_dir(&a).map_err(|e| Error::io("create a folder beside", shown, &e))?;
    let renamed = fs::rename(&a, &b);
    let _ = fs::remove_dir(&a);
    let _ = fs::remove_dir(&b);
    renamed.map_err(|e| Error::io("rename a folder beside", shown, &e))
}

#[cfg(target_os = "linux")]
fn is_mount_point(dir: &Path) -> bool {
    // Field 5 of /proc/self/mountinfo is the mount point, with space, tab,
    // newline and backslash written as octal escapes.
    let Ok(text) = fs::read_to_string("/proc/self/mountinfo") else {
        return device_differs(dir);
    };
    let want = dir.to_string_lossy();
    text.lines()
        .filter_map(|l| l.split(' ').nth(4))
        .any(|m| unescape_mount(m) == want)
        || device_differs(dir)
}

#[cfg(target_os = "linux")]
fn unescape_mount(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest
            .get(i + 1..i + 4)
            .and_then(|o| u8::from_str_radix(o, 8).ok());
        match code {
            Some(b) => {
                out.push(char::from(b));
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(not(target_os = "linux"))]
fn is_mount_point(dir: &Path) -> bool {
    device_differs(dir)
}

#[cfg(unix)]
fn device_differs(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(dir), dir.parent().map(fs::metadata)) {
        (Ok(d), Some(Ok(p))) => d.dev() != p.dev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn device_differs(_dir: &Path) -> bool {
    false
}

/// A hidden folder a run left beside `NAME`.
#[derive(Debug)]
struct Leftover {
    path: PathBuf,
    file: String,
    pid: u32,
    old: bool,
}

fn leftovers(parent: &Path, name: &str) -> Vec<Leftover> {
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    let prefix = format!(".{}", hidden_stem(name));
    let mut found: Vec<Leftover> = entries
        .filter_map(std::result::Result::ok)
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let rest = file.strip_prefix(&prefix)?;
            let (old, tail) = if let Some(t) = rest.strip_prefix(OLD_TAG) {
                (true, t)
            } else {
                (false, rest.strip_prefix(STAGED_TAG)?)
            };
            let digits = tail.split('-').next()?;
            let pid: u32 = digits.parse().ok()?;
            let path = e.path();
            fs::symlink_metadata(&path)
                .ok()?
                .is_dir()
                .then_some(Leftover {
                    path,
                    file,
                    pid,
                    old,
                })
        })
        .collect();
    found.sort_by(|a, b| a.file.cmp(&b.file));
    found
}

fn process_alive(pid: u32) -> bool {
    pid == std::process::id()
        || (Path::new("/proc/self").exists() && Path::new("/proc").join(pid.to_string()).exists())
}

fn modified(p: &Path) -> std::time::SystemTime {
    fs::metadata(p)
        .and_then(|m| m.modified())
        .unwrap_or(std::time::UNIX_EPOCH)
}

/// Find the hidden folders that killed runs left beside `parent/name` and
/// resolve them, as docs/REFERENCE.md documents:
/// - `.NAME.partial-PID` (a new folder not yet complete) is removed;
/// - `.NAME.old-PID` (the earlier folder, moved aside while being
///   replaced) is renamed back to `NAME` when `NAME` is missing (the newest
///   one if several), and removed when `NAME` is a complete results folder;
/// - folders of a process still running, or that do not look like
///   tenantsim's, are left alone.
///
/// Returns one report per leftover.
pub fn recover_leftovers(parent: &Path, name: &str) -> Result<Vec<String>> {
    let target = parent.join(name);
    let mut notes = Vec::new();
    let mut olds = Vec::new();
    for l in leftovers(parent, name) {
        if process_alive(l.pid) {
            if l.pid != std::process::id() {
                notes.push(format!(
                    "left {} alone: process {} that made it is still running",
                    l.path.display(),
                    l.pid
                ));
            }
            continue;
        }
        if l.old {
            olds.push(l);
            continue;
        }
        if is_results_folder(&l.path) || is_unmarked_start(&l.path) {
            fs::remove_dir_all(&l.path).map_err(|e| Error::io("remove", &l.path, &e))?;
            notes.push(format!(
                "removed {}: the unfinished results of a run (process {}) that was stopped \
                 before it completed",
                l.path.display(),
                l.pid
            ));
        } else {
            notes.push(format!(
                "left {} alone: it is not marked as tenantsim's; remove it yourself",
                l.path.display()
            ));
        }
    }
    if !target.exists() {
        // The newest earlier folder goes back into place.
        olds.sort_by_key(|l| modified(&l.path));
        if let Some(l) = olds.pop() {
            fs::rename(&l.path, &target).map_err(|e| Error::io("restore", &target, &e))?;
            sync_dir(parent)?;
            notes.push(format!(
                "restored {} from {}: a run (process {}) was stopped while replacing it; \
                 these are the complete earlier results",
                target.display(),
                l.file,
                l.pid
            ));
        }
    }
    for l in olds {
        if is_results_folder(&target) {
            fs::remove_dir_all(&l.path).map_err(|e| Error::io("remove", &l.path, &e))?;
            notes.push(format!(
                "removed {}: earlier results that a run (process {}) had already replaced \
                 with the complete results now in {}",
                l.path.display(),
                l.pid,
                target.display()
            ));
        } else {
            notes.push(format!(
                "left {} alone: earlier results moved aside by process {}, but {} is not a \
                 results folder; look at both and remove one yourself",
                l.path.display(),
                l.pid,
                target.display()
            ));
        }
    }
    Ok(notes)
}

/// fsync a folder, so the renames in it survive a power loss.
fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io("sync folder", dir, &e))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// fsync `dir` and every folder in it (the files are fsynced as written).
fn sync_tree(dir: &Path) -> Result<()> {
    for e in fs::read_dir(dir).map_err(|e| Error::io("read folder", dir, &e))? {
        let e = e.map_err(|e| Error::io("read folder", dir, &e))?;
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            sync_tree(&e.path())?;
        }
    }
    sync_dir(dir)
}

/// A results folder built under a temporary name and moved into place only
/// when complete, so an interrupted or killed run never leaves a folder that
/// looks finished, and never loses the earlier one.
///
/// Files go into [`StagedDir::path`] (`.NAME.partial-PID` beside the
/// target, marked with [`RESULTS_MARK`]); [`StagedDir::commit`] renames an
/// existing target to `.NAME.old-PID`, the staged folder to the target,
/// fsyncs the parent folder, and then removes the old one. Dropped without
/// commit, the staged folder is removed. A second signal removes it too
/// ([`crate::core::interrupt`]).
#[derive(Debug)]
pub struct StagedDir {
    target: PathBuf,
    shown: PathBuf,
    staged: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Start staging the folder `target`. This does not check whether
    /// `target` may be replaced: commands call [`prepare_target`] first,
    /// and [`StagedDir::commit`] refuses a folder that is not tenantsim's.
    pub fn new(target: &Path) -> Result<Self> {
        if target.exists() && !target.is_dir() {
            return Err(Error::input(format!(
                "output folder {} exists and is not a folder",
                target.display()
            )));
        }
        let resolved = resolve(target)?;
        let (parent, name) = split(&resolved, target)?;
        create_dir_all(&parent)?;
        let staged = parent.join(format!(
            ".{}{STAGED_TAG}{}",
            hidden_stem(&name),
            std::process::id()
        ));
        if staged.exists() {
            let _ = fs::remove_dir_all(&staged);
        }
        fs::create_dir(&staged).map_err(|e| Error::io("create output folder", &staged, &e))?;
        interrupt::register_staging(&staged);
        let dir = Self {
            target: resolved,
            shown: target.to_path_buf(),
            staged,
            committed: false,
        };
        write_atomic(&dir.staged.join(RESULTS_MARK), mark_text().as_bytes())?;
        Ok(dir)
    }

    /// Where to write the files.
    pub fn path(&self) -> &Path {
        &self.staged
    }

    /// Move the complete folder into place, replacing an earlier one; a
    /// stop requested before the new folder is in place cancels it and
    /// keeps the earlier one.
    pub fn commit(mut self) -> Result<()> {
        let stopped = || {
            Error::interrupted(format!(
                "interrupted: the run stopped before its results were moved into place; {} is as it was",
                self.shown.display()
            ))
        };
        if interrupt::requested() {
            return Err(stopped());
        }
        // The mark lists what was written, so that a later run can tell
        // the user's files added since from these ([`prepare_target`]).
        let written = entry_names(&self.staged)?;
        write_atomic(
            &self.staged.join(RESULTS_MARK),
            mark_text_listing(&written).as_bytes(),
        )?;
        sync_tree(&self.staged)?;
        let replaceable = |t: &Path| {
            is_empty_dir(t)
                || is_results_folder(t)
                || FORCED
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .iter()
                    .any(|f| f == t)
        };
        let had_old = self.target.exists();
        if had_old && !replaceable(&self.target) {
            return Err(Error::input(format!(
                "refusing to replace {}: it is not a results folder written by tenantsim",
                self.shown.display()
            )));
        }
        let old = self.staged.with_file_name(
            self.staged
                .file_name()
                .map(|n| n.to_string_lossy().replace(STAGED_TAG, OLD_TAG))
                .unwrap_or_default(),
        );
        let parent = self
            .target
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        {
            // No second signal removes the staged folder while it is being
            // renamed.
            let _renaming = interrupt::renaming();
            if had_old {
                fs::rename(&self.target, &old)
                    .map_err(|e| Error::io("replace output folder", &self.shown, &e))?;
                pause_between_renames();
                if interrupt::requested() {
                    fs::rename(&old, &self.target).map_err(|e| {
                        Error::io("put back the earlier results in", &self.shown, &e)
                    })?;
                    return Err(stopped());
                }
            }
            if let Err(e) = fs::rename(&self.staged, &self.target) {
                if had_old {
                    let _ = fs::rename(&old, &self.target);
                }
                return Err(Error::io("move results into", &self.shown, &e));
            }
            self.committed = true;
            interrupt::unregister_staging(&self.staged);
        }
        sync_dir(&parent)?;
        if had_old {
            fs::remove_dir_all(&old)
                .map_err(|e| Error::io("remove the earlier results moved aside to", &old, &e))?;
        }
        Ok(())
    }
}

fn pause_between_renames() {
    let ms = std::env::var(PAUSE_HOOK)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(ms) = ms {
        eprintln!("test hook {PAUSE_HOOK}: pausing {ms} ms between the renames");
        std::thread::sleep(Duration::from_millis(ms));
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let _renaming = interrupt::renaming();
            let _ = fs::remove_dir_all(&self.staged);
            interrupt::unregister_staging(&self.staged);
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
        fs::write(target.join(RESULTS_MARK), "").expect("mark");
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
        assert!(is_results_folder(&target), "the new folder is marked");
        let leftovers: Vec<_> = fs::read_dir(tmp.path()).expect("ls").collect();
        assert_eq!(leftovers.len(), 1, "only the results folder remains");
    }

    #[test]
    fn commit_refuses_a_folder_that_is_not_tenantsims() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let target = tmp.path().join("mine");
        fs::create_dir(&target).expect("mkdir");
        fs::write(target.join("thesis.txt"), "precious").expect("write");
        let staged = StagedDir::new(&target).expect("stage");
        let err = staged.commit().expect_err("must refuse");
        assert!(err.message().contains("not a results folder"), "{err}");
        assert_eq!(
            fs::read(target.join("thesis.txt")).expect("kept"),
            b"precious"
        );
        assert_eq!(fs::read_dir(tmp.path()).expect("ls").count(), 1);
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

    #[test]
    fn resolve_removes_dots_and_follows_links() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let real = fs::canonicalize(tmp.path()).expect("canon");
        fs::create_dir(real.join("work")).expect("mkdir");
        assert_eq!(
            resolve(&real.join("work/../work/./x/../y")).expect("resolve"),
            real.join("work/y")
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(real.join("work"), real.join("link")).expect("link");
            assert_eq!(
                resolve(&real.join("link/new")).expect("resolve"),
                real.join("work/new")
            );
        }
    }

    /// A run killed between creating its staged folder and renaming its
    /// mark into it left a folder holding only the mark's temporary file;
    /// the next run left it alone as "not tenantsim's" (seen once in
    /// `interrupt::sigkill_at_random_points…`). It is removed, and a
    /// folder with anything else in it is still left alone.
    #[test]
    fn a_staged_folder_killed_while_writing_its_mark_is_removed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path();
        let dead = 4_000_000_000u32;
        let partial = dir.join(format!(".res.partial-{dead}"));
        fs::create_dir(&partial).expect("mkdir");
        let mark_tmp = crate::core::io::temp_path(&partial.join(RESULTS_MARK));
        assert_eq!(mark_tmp.parent(), Some(partial.as_path()));
        fs::write(&mark_tmp, "").expect("half mark");
        let notes = recover_leftovers(dir, "res").expect("recover");
        assert!(
            notes.len() == 1 && notes[0].starts_with("removed"),
            "{notes:?}"
        );
        assert!(!partial.exists());
        // The same temporary file beside a file of the user's: left alone.
        fs::create_dir(&partial).expect("mkdir");
        fs::write(&mark_tmp, "").expect("half mark");
        fs::write(partial.join("notes.txt"), "mine").expect("user file");
        let notes = recover_leftovers(dir, "res").expect("recover");
        assert!(
            notes.len() == 1 && notes[0].starts_with("left"),
            "{notes:?}"
        );
        assert!(partial.join("notes.txt").exists());
    }

    #[test]
    fn leftovers_of_dead_runs_are_restored_or_removed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path();
        // A run killed between the renames: no target, the old one aside,
        // the new one staged. Process ids above the kernel's limit are dead.
        let dead = 4_000_000_000u32;
        let old = dir.join(format!(".res.old-{dead}"));
        let partial = dir.join(format!(".res.partial-{dead}"));
        for d in [&old, &partial] {
            fs::create_dir(d).expect("mkdir");
            fs::write(d.join(RESULTS_MARK), "").expect("mark");
        }
        fs::write(old.join("summary.csv"), "old").expect("write");
        // Someone else's folder with a similar name is left alone.
        fs::create_dir(dir.join(".res.partial-7x")).expect("mkdir");
        let notes = recover_leftovers(dir, "res").expect("recover");
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("removed") && n.contains("unfinished"))
        );
        assert!(notes.iter().any(|n| n.starts_with("restored")));
        assert_eq!(
            fs::read(dir.join("res/summary.csv")).expect("restored"),
            b"old"
        );
        assert!(!old.exists() && !partial.exists());
        assert!(dir.join(".res.partial-7x").exists());
        // Killed after the second rename: the old copy goes.
        fs::create_dir(&old).expect("mkdir");
        fs::write(old.join(RESULTS_MARK), "").expect("mark");
        let notes = recover_leftovers(dir, "res").expect("recover");
        assert!(
            notes.len() == 1 && notes[0].contains("already replaced"),
            "{notes:?}"
        );
        assert!(!old.exists());
        assert!(dir.join("res/summary.csv").exists());
    }

    #[test]
    fn a_long_name_gets_short_hidden_names_and_its_leftovers_are_found() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let name = "n".repeat(250);
        let target = tmp.path().join(&name);
        let staged = StagedDir::new(&target).expect("stage a 250-byte name");
        write_atomic(&staged.path().join("a.csv"), b"a").expect("write");
        staged.commit().expect("commit");
        assert!(target.join("a.csv").is_file());
        let leftover = tmp
            .path()
            .join(format!(".{}.partial-4000000000", hidden_stem(&name)));
        fs::create_dir(&leftover).expect("mkdir");
        let notes = recover_leftovers(tmp.path(), &name).expect("recover");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(!leftover.exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn mount_points_are_unescaped() {
        assert_eq!(unescape_mount("/a\\040b\\134c"), "/a b\\c");
        assert!(is_mount_point(Path::new("/proc")));
        assert!(!is_mount_point(
            &resolve(Path::new(".")).expect("cwd").join("src")
        ));
    }
}
