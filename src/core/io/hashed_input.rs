//! An input file read as a stream and hashed as it is read: a trace is
//! parsed from it and its SHA-256 (the result cache's key, `run.json`'s
//! `trace.sha256`) is the digest of the bytes the parser read, then of
//! any it left, so the file is never held whole beside what is parsed
//! from it (DESIGN §8.5; docs/PERFORMANCE.md "Limits from memory").
//!
//! Before 2026-12-07 a model or job trace named by a scenario was read
//! whole into memory, hashed, then parsed from that copy: its bytes were
//! held beside the trace being built (a 10^7-job trace file is about 600
//! MB), and the memory estimate counted them.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::open_input;
use crate::core::error::{Error, Result};

/// Bytes read from the file at a time.
pub const READ_BUFFER: usize = 64 << 10;

/// An input file being read, hashed as its bytes pass.
#[derive(Debug)]
pub struct HashedInput {
    inner: BufReader<File>,
    sha: Sha256,
    path: PathBuf,
    what: &'static str,
}

impl HashedInput {
    /// Open `path` (`what` describes it in errors: "trace", "job trace"),
    /// with the checks of [`open_input`].
    pub fn open(path: &Path, what: &'static str) -> Result<Self> {
        let file = open_input(path, what)?;
        Ok(Self {
            inner: BufReader::with_capacity(READ_BUFFER, file),
            sha: Sha256::new(),
            path: path.to_path_buf(),
            what,
        })
    }

    /// The SHA-256 of the whole file: what was read, then the rest, read
    /// to its end.
    pub fn finish(mut self) -> Result<[u8; 32]> {
        io::copy(&mut self, &mut io::sink())
            .map_err(|e| Error::io(&format!("read {}", self.what), &self.path, &e))?;
        Ok(self.sha.finalize().into())
    }
}

impl Read for HashedInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.sha.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use sha2::{Digest, Sha256};

    use super::{HashedInput, READ_BUFFER};

    /// The digest is the whole file's whether the reader read all of it,
    /// part of it or none, in reads of any size.
    #[test]
    fn the_digest_is_the_whole_files_however_much_was_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.csv");
        let bytes: Vec<u8> = (0..3 * READ_BUFFER + 17)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&path, &bytes).expect("write");
        let want: [u8; 32] = Sha256::digest(&bytes).into();
        for read in [0, 1, 5_000, READ_BUFFER + 3, bytes.len(), bytes.len() + 9] {
            let mut input = HashedInput::open(&path, "trace").expect("open");
            let mut got = Vec::new();
            let mut buf = vec![0u8; 777];
            while got.len() < read {
                let n = input.read(&mut buf).expect("read");
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got[..], bytes[..got.len()], "read {read}");
            assert_eq!(input.finish().expect("digest"), want, "read {read}");
        }
    }

    /// A missing file is the same clear error as before.
    #[test]
    fn a_missing_file_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = HashedInput::open(&dir.path().join("no.csv"), "job trace").expect_err("missing");
        assert!(e.to_string().contains("job trace"), "{e}");
        assert!(e.to_string().contains("no.csv"), "{e}");
    }
}
