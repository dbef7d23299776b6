//! Where `check --report`, `report --out` and `table --out` may write
//! (docs/REFERENCE.md, "Files a command writes"): a file the user named is
//! written only when
//!
//! - it does not exist yet, or it is a file the same command wrote before
//!   (recognised by its content, [`Ours`]: `check`'s reports, `report`'s
//!   default `RESULTS/report.html`), or the user passed `--force`;
//! - and it is not one of the command's inputs, not even with `--force`:
//!   inside a folder the command reads (the results, the golden), a file
//!   of a kind it reads ([`READ_KINDS`], or the results mark) is replaced
//!   only when the command itself wrote it.
//!
//! Every check is made before the command reads or computes anything, so
//! a refusal leaves every file as it was. The existing file is looked at
//! only when it is a regular file (a FIFO is never opened), and only its
//! first and last bytes are read.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::core::error::{Error, Result};
use crate::core::io::{RESULTS_MARK, resolve};

/// Extensions of the files a results or golden folder is read from
/// (tables, manifests, scenarios, figures, shard records).
pub const READ_KINDS: [&str; 8] = ["csv", "json", "toml", "png", "svg", "pdf", "bin", "tsv"];

/// How a command recognises a file it wrote: a test on the file's first
/// and last bytes (at most [`PEEK`] each).
pub type Ours = fn(head: &str, tail: &str) -> bool;

/// Bytes read from each end of an existing file to recognise it.
pub const PEEK: u64 = 4096;

/// A folder the command reads, named for messages ("the results folder").
pub struct Input<'a> {
    /// What it is.
    pub what: &'a str,
    /// Where it is.
    pub dir: &'a Path,
}

/// Refuse to write `path` (the value of `option`, e.g. `--out`) unless the
/// rules of this module allow it; `ours` recognises the command's own
/// output, `inputs` are the folders it reads. A refusal is a usage error
/// (exit 2) that names the file and why.
pub fn check_out_file(
    option: &str,
    path: &Path,
    force: bool,
    ours: Option<Ours>,
    inputs: &[Input<'_>],
) -> Result<()> {
    let shown = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Error::usage(format!(
                "{option} {shown}: cannot look at the existing file ({e})"
            )));
        }
    };
    if meta.is_dir() {
        return Err(Error::usage(format!(
            "{option} {shown}: a folder; expected a file to write"
        )));
    }
    if !meta.is_file() {
        return Err(Error::usage(format!(
            "{option} {shown}: not a regular file (a FIFO, socket or device); expected a file to write"
        )));
    }
    let written_by_us = ours.is_some_and(|f| peek(path).is_some_and(|(h, t)| f(&h, &t)));
    if !written_by_us && let Some(input) = input_holding(path, inputs) {
        return Err(Error::usage(format!(
            "{option} {shown}: refusing to replace it: it is a file of {} {}, which this \
             command reads, and an input is never replaced, not even with --force; choose a \
             file elsewhere",
            input.what,
            input.dir.display()
        )));
    }
    if !written_by_us && !force {
        return Err(Error::usage(format!(
            "{option} {shown}: the file exists and this command did not write it; it is left \
             as it was (pass --force to replace it)"
        )));
    }
    Ok(())
}

/// Refuse to write `path` (the value of `option`) when it is one of the
/// command's input files, `inputs` (what each is called, its path): the
/// commands that make a trace from files (`gen workflows`, `import`,
/// `import-workflows`, `import-jobs`) replace an existing `--out` as a
/// whole, but never the file they read from, whatever its name and even
/// with `--force` (it would be lost: an import that reads and writes one
/// file leaves only its output). The same file is recognised through
/// links and other spellings of its path (its canonical path, and on Unix
/// its device and inode). A refusal is a usage error (exit 2) made before
/// anything is read.
pub fn check_not_an_input<'a>(
    option: &str,
    path: &Path,
    inputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    match inputs.into_iter().find(|(_, input)| same_file(path, input)) {
        Some((what, input)) => Err(Error::usage(format!(
            "{option} {}: refusing to replace it: it is {what} {}, which this command reads;              an input is never replaced, not even with --force; choose another file",
            path.display(),
            input.display()
        ))),
        None => Ok(()),
    }
}

/// The input files `paths` (none, one or several), each called `what`,
/// for [`check_not_an_input`].
pub fn named<'a>(
    what: &'a str,
    paths: impl IntoIterator<Item = &'a PathBuf>,
) -> impl Iterator<Item = (&'a str, &'a Path)> {
    paths.into_iter().map(move |p| (what, p.as_path()))
}

/// Whether `a` and `b` name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if ma.dev() == mb.dev() && ma.ino() == mb.ino() {
            return true;
        }
    }
    let _ = (ma, mb);
    matches!(
        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
        (Ok(x), Ok(y)) if x == y
    )
}

/// The input folder that holds `path` as a file the command reads.
fn input_holding<'a>(path: &Path, inputs: &'a [Input<'a>]) -> Option<&'a Input<'a>> {
    let real = resolve(path).ok()?;
    let name = real.file_name()?.to_string_lossy().into_owned();
    let kind = real.extension().and_then(|e| e.to_str()).unwrap_or("");
    let read = name == RESULTS_MARK || READ_KINDS.iter().any(|k| kind.eq_ignore_ascii_case(k));
    if !read {
        return None;
    }
    inputs
        .iter()
        .find(|i| resolve(i.dir).is_ok_and(|d| real.starts_with(d)))
}

/// The first and last [`PEEK`] bytes of the regular file `path` as text
/// (invalid UTF-8 replaced).
fn peek(path: &Path) -> Option<(String, String)> {
    let mut f = File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut head = Vec::new();
    (&mut f).take(PEEK).read_to_end(&mut head).ok()?;
    let mut tail = Vec::new();
    if len > PEEK {
        f.seek(SeekFrom::Start(len.saturating_sub(PEEK))).ok()?;
        f.take(PEEK).read_to_end(&mut tail).ok()?;
    } else {
        tail.clone_from(&head);
    }
    Some((
        String::from_utf8_lossy(&head).into_owned(),
        String::from_utf8_lossy(&tail).into_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(head: &str, _tail: &str) -> bool {
        head.starts_with("ours")
    }

    #[test]
    fn a_new_file_may_be_written_anywhere_but_an_existing_one_needs_force_or_to_be_ours() {
        let dir = tempfile::tempdir().expect("tempdir");
        let new = dir.path().join("new.md");
        assert!(check_out_file("--out", &new, false, Some(ours), &[]).is_ok());
        std::fs::write(&new, "theirs").expect("write");
        let e = check_out_file("--out", &new, false, Some(ours), &[]).expect_err("refused");
        assert_eq!(e.kind(), crate::core::error::ErrorKind::Usage);
        assert!(e.to_string().contains("pass --force"), "{e}");
        assert!(check_out_file("--out", &new, true, Some(ours), &[]).is_ok());
        std::fs::write(&new, "ours, written before").expect("write");
        assert!(check_out_file("--out", &new, false, Some(ours), &[]).is_ok());
    }

    #[test]
    fn an_import_whose_out_was_its_input_replaced_the_input() {
        let dir = tempfile::tempdir().expect("tempdir");
        let table = dir.path().join("table.csv");
        std::fs::write(&table, "ds,learner,acc,secs\n").expect("write");
        let inputs = [("the input table", table.as_path())];
        let e = check_not_an_input("--out", &table, inputs).expect_err("refused");
        assert_eq!(e.kind(), crate::core::error::ErrorKind::Usage);
        assert!(e.to_string().contains("never replaced"), "{e}");
        // Another spelling of the same path, and a link to it.
        let other = dir.path().join(".").join("table.csv");
        assert!(check_not_an_input("--out", &other, inputs).is_err());
        #[cfg(unix)]
        {
            let link = dir.path().join("link.csv");
            std::os::unix::fs::symlink(&table, &link).expect("symlink");
            assert!(check_not_an_input("--out", &link, inputs).is_err());
            let hard = dir.path().join("hard.csv");
            std::fs::hard_link(&table, &hard).expect("hard link");
            assert!(check_not_an_input("--out", &hard, inputs).is_err());
        }
        // Another existing file, or a new one, may be written.
        let old = dir.path().join("old.csv");
        std::fs::write(&old, "user,model\n").expect("write");
        assert!(check_not_an_input("--out", &old, inputs).is_ok());
        assert!(check_not_an_input("--out", &dir.path().join("new.csv"), inputs).is_ok());
        assert_eq!(
            std::fs::read_to_string(&table).expect("read"),
            "ds,learner,acc,secs\n"
        );
    }

    #[test]
    fn an_input_file_is_never_replaced_even_with_force_unless_the_command_wrote_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let results = dir.path().join("results");
        std::fs::create_dir(&results).expect("mkdir");
        let summary = results.join("summary.csv");
        std::fs::write(&summary, "policy\n").expect("write");
        let inputs = [Input {
            what: "the results folder",
            dir: &results,
        }];
        let e = check_out_file("--out", &summary, true, Some(ours), &inputs).expect_err("refused");
        assert!(e.to_string().contains("even with --force"), "{e}");
        assert_eq!(std::fs::read_to_string(&summary).expect("read"), "policy\n");
        // A file of a kind the command does not read: --force replaces it.
        let notes = results.join("notes.html");
        std::fs::write(&notes, "theirs").expect("write");
        assert!(check_out_file("--out", &notes, true, Some(ours), &inputs).is_ok());
        // One the command wrote there before is replaced.
        let json = results.join("check.json");
        std::fs::write(&json, "ours").expect("write");
        assert!(check_out_file("--out", &json, false, Some(ours), &inputs).is_ok());
    }
}
