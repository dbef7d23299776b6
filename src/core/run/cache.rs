//! The content-addressed result cache (DESIGN §10.2): one file per
//! finished task, under the task's key ([`crate::core::run::identity`]).
//!
//! An entry is `TSCACHE1`, the payload's length (u64), the payload (a
//! [`Mode::encode_run`](crate::core::run::mode::Mode::encode_run) encoding) and
//! the SHA-256 of the payload. It is written to a temporary name in its
//! own folder and renamed into place, so a reader sees a whole entry or
//! none; entries are not fsynced (a crash of the machine may lose recent
//! entries, and a torn one fails its checksum). An entry that is short,
//! long, or fails its checksum reads as missing: the task runs again and
//! its entry is replaced. Processes sharing one cache folder are safe:
//! the same key always holds the same bytes, and a rename replaces an
//! entry atomically.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use crate::core::error::{Error, Result};

const MAGIC: &[u8; 8] = b"TSCACHE1";
/// Magic, length, checksum.
const OVERHEAD: usize = 8 + 8 + 32;

/// Wrap `payload` as a checked entry.
pub fn seal(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + OVERHEAD);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&Sha256::digest(payload));
    out
}

/// The payload of an entry made by [`seal`], or `None` if it is not one
/// (truncated, extended, or its checksum fails).
pub fn unseal(entry: &[u8]) -> Option<&[u8]> {
    let rest = entry.strip_prefix(MAGIC)?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
    if rest.len() != len.checked_add(32)? {
        return None;
    }
    let (payload, sum) = rest.split_at(len);
    (Sha256::digest(payload).as_slice() == sum).then_some(payload)
}

/// A cache folder.
#[derive(Debug)]
pub struct ResultCache {
    dir: PathBuf,
    temp_counter: AtomicU64,
    corrupt: AtomicU64,
    write_error: Mutex<Option<String>>,
}

impl ResultCache {
    /// The cache in `dir` (created, with its parents, if missing).
    pub fn open(dir: &Path) -> Result<Self> {
        let entries = dir.join("v1");
        fs::create_dir_all(&entries).map_err(|e| Error::io("create the cache folder", dir, &e))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            temp_counter: AtomicU64::new(0),
            corrupt: AtomicU64::new(0),
            write_error: Mutex::new(None),
        })
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry of `key` lives.
    pub fn entry_path(&self, key: &str) -> PathBuf {
        let fan = key.get(..2).unwrap_or("xx");
        self.dir.join("v1").join(fan).join(key)
    }

    /// The payload stored under `key`, if a whole, checked entry is there.
    /// An entry that is not a regular file (a FIFO would block the run for
    /// ever, a device never ends) is an error naming it; one longer than
    /// a record can be ([`MAX_RECORD_BYTES`](crate::core::limits::MAX_RECORD_BYTES))
    /// reads as damaged without being read.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let path = self.entry_path(key);
        let what = "result cache entry";
        if let Some(e) = crate::core::io::special_file_error(&path, what) {
            return Err(Error::input(format!(
                "{e}; remove it, or run with --no-cache or another --cache folder"
            )));
        }
        let max = crate::core::limits::MAX_RECORD_BYTES + OVERHEAD as u64;
        let bytes = match crate::core::io::read_input_limited(&path, what, max) {
            Ok(bytes) => bytes,
            Err(_) if path.is_file() && fs::metadata(&path).is_ok_and(|m| m.len() > max) => {
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                return Ok(None);
            }
            Err(_) => return Ok(None),
        };
        match unseal(&bytes) {
            Some(p) => Ok(Some(p.to_vec())),
            None => {
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                Ok(None)
            }
        }
    }

    /// Entries found damaged (and ignored) so far.
    pub fn corrupt_entries(&self) -> u64 {
        self.corrupt.load(Ordering::Relaxed)
    }

    /// Store `payload` under `key`: temporary file in the entry's folder,
    /// then rename. A failure is remembered ([`ResultCache::write_error`])
    /// and never stops the run: the result is still folded.
    pub fn put(&self, key: &str, payload: &[u8]) {
        let path = self.entry_path(key);
        let n = self.temp_counter.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_file_name(format!(".{key}.tmp-{}-{n}", std::process::id()));
        let result = (|| {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&tmp, seal(payload))?;
            fs::rename(&tmp, &path)
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            let mut first = self
                .write_error
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            first.get_or_insert_with(|| format!("cannot write {}: {e}", path.display()));
        }
    }

    /// The first failed write, if any.
    pub fn write_error(&self) -> Option<String> {
        self.write_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_entry_reads_as_missing() {
        let entry = seal(b"payload");
        assert_eq!(unseal(&entry), Some(&b"payload"[..]));
        for cut in 0..entry.len() {
            assert_eq!(unseal(&entry[..cut]), None, "truncated at {cut}");
        }
        let mut flipped = entry.clone();
        flipped[18] ^= 1;
        assert_eq!(unseal(&flipped), None);
        let mut longer = entry;
        longer.push(0);
        assert_eq!(unseal(&longer), None);
    }

    #[test]
    fn entries_round_trip_and_corrupt_ones_are_counted() {
        let tmp = std::env::temp_dir().join(format!("tenantsim-cache-unit-{}", std::process::id()));
        let cache = ResultCache::open(&tmp).expect("open");
        let key = "ab".repeat(32);
        assert_eq!(cache.get(&key).expect("no error"), None);
        cache.put(&key, b"run");
        assert_eq!(
            cache.get(&key).expect("no error").as_deref(),
            Some(&b"run"[..])
        );
        fs::write(cache.entry_path(&key), b"TSCACHE1garbage").expect("damage");
        assert_eq!(cache.get(&key).expect("no error"), None);
        assert_eq!(cache.corrupt_entries(), 1);
        assert_eq!(cache.write_error(), None);
        let _ = fs::remove_dir_all(&tmp);
    }
}
