//! The content-addressed result cache (DESIGN §10.2): one file per
//! finished task, under the task's key ([`crate::core::run::identity`]).
//!
//! An entry is `TSCACHE2`, the payload's length (u64), the payload and
//! the SHA-256 of the payload; the payload is the task's key (its
//! identity, 64 hex digits) then the run (a
//! [`Mode::encode_run`](crate::core::run::mode::Mode::encode_run) encoding)
//! ([`seal_bound`]): an entry copied or swapped to another key's place
//! passes its checksum but names another task, and reads as missing
//! (counted apart, [`ResultCache::misplaced_entries`]), never as the
//! other task's result. It is written to a temporary name in its
//! own folder and renamed into place, so a reader sees a whole entry or
//! none; entries are not fsynced (a crash of the machine may lose recent
//! entries, and a torn one fails its checksum). An entry that is short,
//! long, or fails its checksum reads as missing: the task runs again and
//! its entry is replaced. Processes sharing one cache folder are safe:
//! the same key always holds the same bytes, and a rename replaces an
//! entry atomically.

use std::fs;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::core::error::{Error, Result};

const MAGIC: &[u8; 8] = b"TSCACHE2";
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

/// The length of a task's identity inside a bound entry: a key, the hex
/// SHA-256 of the task's identity ([`crate::core::run::identity::TaskKeys`]).
pub const IDENTITY_LEN: usize = 64;

/// A run sealed with the identity of its task ([`seal`] of the identity
/// followed by the run): the checksum covers both, so the entry cannot be
/// served for another task without its checksum failing or its identity
/// differing. `identity` is a task key ([`IDENTITY_LEN`] bytes).
pub fn seal_bound(identity: &str, run: &[u8]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(identity.len() + run.len());
    payload.extend_from_slice(identity.as_bytes());
    payload.extend_from_slice(run);
    seal(&payload)
}

/// What a bound entry ([`seal_bound`]) holds for the task `identity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsealed<'a> {
    /// The task's run.
    Run(&'a [u8]),
    /// Not a whole entry: truncated, extended, or its checksum fails.
    Damaged,
    /// A whole entry, but the run of another task (copied or swapped).
    OtherTask,
}

/// The run in `entry` if it is a whole entry of the task `identity`: the
/// entry format's definition over bytes in memory. The cache and the
/// shards check their files as they read them (`read_bound`), which the
/// tests hold to this function's verdicts.
pub fn unseal_bound<'a>(entry: &'a [u8], identity: &str) -> Unsealed<'a> {
    let Some(payload) = unseal(entry) else {
        return Unsealed::Damaged;
    };
    match payload.split_at_checked(IDENTITY_LEN) {
        Some((id, run)) if id == identity.as_bytes() => Unsealed::Run(run),
        Some(_) => Unsealed::OtherTask,
        None => Unsealed::Damaged,
    }
}

/// Bytes of an entry checked at a time ([`ResultCache::get_run`]).
const CHECK_CHUNK: usize = 64 << 10;

/// What [`check_bound`] found in an entry's file (`R`: the run's length),
/// and [`read_bound`] (`R`: the run to read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checked<R = u64> {
    /// The task's run.
    Run(R),
    /// Not a whole entry: truncated, extended, or its checksum fails.
    Damaged,
    /// A whole entry, but the run of another task.
    OtherTask,
}

/// [`unseal_bound`] of the entry `input` yields (`len` bytes), read
/// through once without holding it: the same verdict for the same bytes.
pub(crate) fn check_bound(
    input: &mut dyn Read,
    len: u64,
    identity: &str,
) -> std::io::Result<Checked> {
    let mut head = [0u8; 16];
    if len < (head.len() + 32) as u64 {
        return Ok(Checked::Damaged);
    }
    input.read_exact(&mut head)?;
    let (magic, plen) = head.split_at(8);
    let plen = u64::from_le_bytes(plen.try_into().unwrap_or([0xff; 8]));
    if magic != MAGIC || plen.checked_add(16 + 32) != Some(len) {
        return Ok(Checked::Damaged);
    }
    let mut sha = Sha256::new();
    let mut id = Vec::with_capacity(IDENTITY_LEN);
    let mut chunk = vec![0u8; CHECK_CHUNK];
    let mut left = plen;
    while left > 0 {
        let n = usize::try_from(left).map_or(chunk.len(), |l| l.min(chunk.len()));
        input.read_exact(&mut chunk[..n])?;
        sha.update(&chunk[..n]);
        let want = IDENTITY_LEN - id.len();
        id.extend_from_slice(&chunk[..n.min(want)]);
        left -= n as u64;
    }
    let mut sum = [0u8; 32];
    input.read_exact(&mut sum)?;
    if sha.finalize().as_slice() != sum || id.len() < IDENTITY_LEN {
        return Ok(Checked::Damaged);
    }
    Ok(if id == identity.as_bytes() {
        Checked::Run(plen - IDENTITY_LEN as u64)
    } else {
        Checked::OtherTask
    })
}

/// The run of the bound entry of `entry_len` bytes at byte `at` of
/// `file`, for the task `identity`: the entry checked in one pass
/// ([`check_bound`]), then its run read from the same open file as asked.
/// The result cache's entries (at 0) and the shard records (after their
/// task id) are read so.
pub(crate) fn read_bound(
    mut file: fs::File,
    at: u64,
    entry_len: u64,
    identity: &str,
) -> std::io::Result<Checked<StoredRun>> {
    file.seek(SeekFrom::Start(at))?;
    let mut input = BufReader::with_capacity(CHECK_CHUNK, file);
    Ok(match check_bound(&mut input, entry_len, identity)? {
        Checked::Run(len) => {
            let run_at = at + (MAGIC.len() + 8 + IDENTITY_LEN) as u64;
            input.seek(SeekFrom::Start(run_at))?;
            Checked::Run(StoredRun {
                input: input.take(len),
                len,
            })
        }
        Checked::Damaged => Checked::Damaged,
        Checked::OtherTask => Checked::OtherTask,
    })
}

/// A checked entry's run, read from its file ([`ResultCache::get_run`]).
#[derive(Debug)]
pub struct StoredRun {
    input: std::io::Take<BufReader<fs::File>>,
    len: u64,
}

impl StoredRun {
    /// The run's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the run is empty (no mode writes one).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Read for StoredRun {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.input.read(buf)
    }
}

/// The largest run a cache stores or serves, encoded: 256 MiB. An entry
/// is written as its run is encoded ([`ResultCache::put_with`]) and read
/// back as it is decoded ([`ResultCache::get_run`]), never held whole,
/// but a run of 10^7 tenants (scenarios/scale-year.toml, about 1.6 GB
/// encoded) would not fit the default size cap ([`DEFAULT_MAX_BYTES`]),
/// and job and shared runs are still read whole before they are
/// decoded. Such a run is simulated again each time (DESIGN §10.2).
pub const MAX_STORED_RUN: u64 = 256 << 20;

/// A cache folder.
#[derive(Debug)]
pub struct ResultCache {
    dir: PathBuf,
    temp_counter: AtomicU64,
    corrupt: AtomicU64,
    misplaced: AtomicU64,
    too_large: AtomicU64,
    write_error: Mutex<Option<String>>,
    /// The largest encoded run stored or served ([`MAX_STORED_RUN`]).
    max_run: u64,
}

/// How storing one entry ended ([`ResultCache::put_with`]).
enum EntryEnd {
    Renamed,
    TooLarge,
}

/// An entry's file as its run is written into it: the SHA-256 and the
/// length of the payload (identity and run) so far, and what is left of
/// the room for the run.
struct EntryWriter<'a> {
    file: &'a mut BufWriter<fs::File>,
    sha: Sha256,
    len: u64,
    room: u64,
    /// The run did not fit in the room: the entry is abandoned.
    over: bool,
    /// The file could not be written.
    failed: Option<std::io::Error>,
}

impl EntryWriter<'_> {
    fn payload(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if let Err(e) = self.file.write_all(bytes) {
            let copy = std::io::Error::new(e.kind(), e.to_string());
            self.failed = Some(e);
            return Err(copy);
        }
        self.sha.update(bytes);
        self.len += bytes.len() as u64;
        Ok(())
    }
}

impl Write for EntryWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() as u64 > self.room {
            self.over = true;
            return Err(std::io::Error::other(
                "the run is larger than its entry may hold",
            ));
        }
        self.payload(buf)?;
        self.room -= buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// How writing one bound entry ended ([`write_bound`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The whole entry is written.
    Whole,
    /// The run outgrew the room: the entry is cut where it did, and
    /// should be abandoned.
    TooLarge,
}

/// Write [`seal_bound`]`(key, run)` to `file` from where it stands,
/// `run` being what `encode` writes, as it is encoded: never held whole.
/// The length, known only at the end, is written last, in place; the
/// file is left at the end of the entry. A run longer than `room` bytes
/// stops where it outgrows it ([`Written::TooLarge`]). The outer error
/// is the file's, the inner one `encode`'s own. Shared by the result
/// cache's entries and the shard records (DESIGN §10.2).
pub fn write_bound(
    file: &mut BufWriter<fs::File>,
    key: &str,
    room: u64,
    encode: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
) -> std::io::Result<Result<Written>> {
    let start = file.stream_position()?;
    file.write_all(MAGIC)?;
    file.write_all(&0u64.to_le_bytes())?;
    let mut w = EntryWriter {
        file,
        sha: Sha256::new(),
        len: 0,
        room,
        over: false,
        failed: None,
    };
    w.payload(key.as_bytes())?;
    if let Err(e) = encode(&mut w) {
        if w.over {
            return Ok(Ok(Written::TooLarge));
        }
        return match w.failed.take() {
            Some(io) => Err(io),
            None => Ok(Err(e)),
        };
    }
    let EntryWriter { file, sha, len, .. } = w;
    file.write_all(&sha.finalize())?;
    let end = file.stream_position()?;
    file.seek(SeekFrom::Start(start + MAGIC.len() as u64))?;
    file.write_all(&len.to_le_bytes())?;
    file.seek(SeekFrom::Start(end))?;
    Ok(Ok(Written::Whole))
}

impl ResultCache {
    /// The cache in `dir` (created, with its parents, if missing).
    pub fn open(dir: &Path) -> Result<Self> {
        let entries = dir.join("v1");
        fs::create_dir_all(&entries).map_err(|e| Error::io("create the cache folder", dir, &e))?;
        Ok(Self::at(dir))
    }

    /// The cache in `dir` as it is, creating nothing (to describe or
    /// prune it).
    pub fn at(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            temp_counter: AtomicU64::new(0),
            corrupt: AtomicU64::new(0),
            misplaced: AtomicU64::new(0),
            too_large: AtomicU64::new(0),
            write_error: Mutex::new(None),
            max_run: MAX_STORED_RUN,
        }
    }

    /// The same cache storing and serving runs of at most `bytes`
    /// encoded, not [`MAX_STORED_RUN`] (tests use a small bound).
    pub fn with_max_run(mut self, bytes: u64) -> Self {
        self.max_run = bytes;
        self
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

    /// The run stored under `key`, if a whole, checked entry of that task
    /// is there. An entry that is not a regular file (a FIFO would block
    /// the run for ever, a device never ends) is an error naming it; one
    /// longer than a record can be
    /// ([`MAX_RECORD_BYTES`](crate::core::limits::MAX_RECORD_BYTES)) reads
    /// as damaged without being read, and one holding a run larger than
    /// the cache stores ([`MAX_STORED_RUN`]; written by an older version)
    /// as missing, without being read.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let Some(mut run) = self.get_run(key)? else {
            return Ok(None);
        };
        let mut bytes = Vec::with_capacity(usize::try_from(run.len()).unwrap_or(0));
        match run.read_to_end(&mut bytes) {
            Ok(_) if bytes.len() as u64 == run.len() => Ok(Some(bytes)),
            // Cut short since it was checked (by hand; the cache never
            // writes an entry in place): missing.
            _ => Ok(None),
        }
    }

    /// [`Self::get`] without holding the run: the entry is checked as
    /// [`Self::get`] checks it, in one pass over its file (its checksum
    /// computed 64 KiB at a time), and the run is then read from the same
    /// open file as its reader asks (DESIGN §10.2). A file replaced in
    /// between by another process is not seen: the open file is the
    /// one checked.
    pub fn get_run(&self, key: &str) -> Result<Option<StoredRun>> {
        let path = self.entry_path(key);
        let what = "result cache entry";
        if let Some(e) = crate::core::io::special_file_error(&path, what) {
            return Err(Error::input(format!(
                "{e}; remove it, or run with --no-cache or another --cache folder"
            )));
        }
        let Ok(file) = fs::File::open(&path) else {
            return Ok(None);
        };
        let Ok(len) = file.metadata().map(|m| m.len()) else {
            return Ok(None);
        };
        let max = crate::core::limits::MAX_RECORD_BYTES + OVERHEAD as u64;
        let served = self
            .max_run
            .saturating_add((IDENTITY_LEN + OVERHEAD) as u64);
        if len > max {
            self.corrupt.fetch_add(1, Ordering::Relaxed);
            return Ok(None);
        }
        if len > served {
            return Ok(None);
        }
        match read_bound(file, 0, len, key) {
            Ok(Checked::Run(run)) => {
                touch(&path);
                Ok(Some(run))
            }
            Ok(Checked::Damaged) => {
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                Ok(None)
            }
            Ok(Checked::OtherTask) => {
                self.misplaced.fetch_add(1, Ordering::Relaxed);
                Ok(None)
            }
            Err(_) => Ok(None),
        }
    }

    /// Entries found damaged (and ignored) so far.
    pub fn corrupt_entries(&self) -> u64 {
        self.corrupt.load(Ordering::Relaxed)
    }

    /// Whole entries found under another task's key (copied or swapped
    /// by hand; ignored) so far.
    pub fn misplaced_entries(&self) -> u64 {
        self.misplaced.load(Ordering::Relaxed)
    }

    /// Runs not stored because they were larger than the cache stores
    /// ([`MAX_STORED_RUN`]) so far.
    pub fn too_large_runs(&self) -> u64 {
        self.too_large.load(Ordering::Relaxed)
    }

    /// The largest encoded run this cache stores or serves.
    pub fn max_run(&self) -> u64 {
        self.max_run
    }

    /// Store the run `payload` under `key` ([`ResultCache::put_with`]).
    pub fn put(&self, key: &str, payload: &[u8]) {
        // Writing a slice cannot fail to encode: every failure is the
        // file's, remembered by `put_with`.
        let _ = self.put_with(key, &mut |out: &mut dyn Write| {
            out.write_all(payload)
                .map_err(|e| Error::input(format!("cannot write a run: {e}")))
        });
    }

    /// Store under `key`, bound to it, the run that `encode` writes: to a
    /// temporary file in the entry's folder as it is encoded (never held
    /// whole in memory), then renamed into place. The bytes are those of
    /// [`seal_bound`]`(key, run)`: magic, length, key and run, SHA-256,
    /// the length written last, once known.
    ///
    /// A run larger than [`MAX_STORED_RUN`] is abandoned where it
    /// outgrows it and counted ([`ResultCache::too_large_runs`]); a file
    /// that cannot be written is remembered ([`ResultCache::write_error`]).
    /// Neither stops the run: its result is still folded. An error of
    /// `encode` itself (not of the file) is returned.
    pub fn put_with(
        &self,
        key: &str,
        encode: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
    ) -> Result<()> {
        let path = self.entry_path(key);
        let n = self.temp_counter.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_file_name(format!(".{key}.tmp-{}-{n}", std::process::id()));
        let stored = self.write_entry(&path, &tmp, key, encode);
        if !matches!(stored, Ok(Ok(EntryEnd::Renamed))) {
            let _ = fs::remove_file(&tmp);
        }
        match stored {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(encoding)) => Err(encoding),
            Err(e) => {
                let mut first = self
                    .write_error
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                first.get_or_insert_with(|| format!("cannot write {}: {e}", path.display()));
                Ok(())
            }
        }
    }

    /// [`ResultCache::put_with`]'s file: the outer error is the file's,
    /// the inner one `encode`'s own.
    fn write_entry(
        &self,
        path: &Path,
        tmp: &Path,
        key: &str,
        encode: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
    ) -> std::io::Result<Result<EntryEnd>> {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut file = BufWriter::new(fs::File::create(tmp)?);
        match write_bound(&mut file, key, self.max_run, encode)? {
            Ok(Written::Whole) => {}
            Ok(Written::TooLarge) => {
                self.too_large.fetch_add(1, Ordering::Relaxed);
                return Ok(Ok(EntryEnd::TooLarge));
            }
            Err(encoding) => return Ok(Err(encoding)),
        }
        file.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        fs::rename(tmp, path)?;
        Ok(Ok(EntryEnd::Renamed))
    }

    /// The first failed write, if any.
    pub fn write_error(&self) -> Option<String> {
        self.write_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// Mark an entry as used now (its modification time), for the
/// least-recently-used order of [`ResultCache::prune`]. Best effort: a
/// read-only cache is still served.
fn touch(path: &Path) {
    if let Ok(f) = fs::File::options().append(true).open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// The default size cap of a result cache: 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// A hidden temporary file older than this is a killed writer's leftover,
/// which [`ResultCache::prune`] removes.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// A size such as `500M`, `1.5G`, `2GiB` or `1048576` (bytes), in binary
/// units (K = 1,024 bytes, M, G, T; an optional `B` or `iB` after the
/// letter), or the message saying what was expected.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let power = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 1,
        "m" | "mb" | "mib" => 2,
        "g" | "gb" | "gib" => 3,
        "t" | "tb" | "tib" => 4,
        _ => {
            return Err(format!(
                "expected a size such as 500M, 2G or 1048576 (bytes), got `{text}`"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            format!("expected a size such as 500M, 2G or 1048576 (bytes), got `{text}`")
        })?;
    let bytes = value * 1024f64.powi(power);
    if bytes >= u64::MAX as f64 {
        return Err(format!("`{text}` is too large a size"));
    }
    Ok(bytes as u64)
}

/// An age such as `30d`, `12h`, `90m`, `45s` or `2w`, or the message
/// saying what was expected.
pub fn parse_age(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let expected = || format!("expected an age such as 30d, 12h, 90m, 45s or 2w, got `{text}`");
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(expected)?;
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| expected())?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(expected()),
    };
    n.checked_mul(seconds)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("`{text}` is too long an age"))
}

/// One entry (or a writer's leftover temporary file) of a cache folder.
#[derive(Debug, Clone)]
struct Stored {
    path: PathBuf,
    bytes: u64,
    /// Last written or served.
    used: SystemTime,
    temporary: bool,
}

/// What a cache folder holds ([`ResultCache::usage`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Entries.
    pub entries: u64,
    /// Their bytes (temporary leftovers included).
    pub bytes: u64,
    /// Hidden temporary files left by killed writers (counted in `bytes`).
    pub temporary: u64,
    /// When the least recently used entry was last used.
    pub oldest: Option<SystemTime>,
    /// When the most recently used entry was last used.
    pub newest: Option<SystemTime>,
}

/// What [`ResultCache::prune`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Entries removed.
    pub entries: u64,
    /// Bytes freed (temporary leftovers included).
    pub bytes: u64,
}

/// Whether `name` is an entry's file name: a key, 64 lowercase hex digits.
fn is_key(name: &str) -> bool {
    name.len() == IDENTITY_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl ResultCache {
    /// Every entry and writer's leftover under the cache's `v1/` folder;
    /// nothing else there is ever touched (a file of another name, a
    /// folder that is not a fan-out folder).
    fn stored(&self) -> Result<Vec<Stored>> {
        let root = self.dir.join("v1");
        let mut found = Vec::new();
        let fans = match fs::read_dir(&root) {
            Ok(it) => it,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
            Err(e) => return Err(Error::io("read the cache folder", &root, &e)),
        };
        for fan in fans {
            let fan = fan.map_err(|e| Error::io("read the cache folder", &root, &e))?;
            let name = fan.file_name();
            let is_fan = name.len() == 2
                && name
                    .to_str()
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_hexdigit()));
            if !is_fan || !fan.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let dir = fan.path();
            let files =
                fs::read_dir(&dir).map_err(|e| Error::io("read the cache folder", &dir, &e))?;
            for file in files {
                let file = file.map_err(|e| Error::io("read the cache folder", &dir, &e))?;
                let Some(name) = file.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                let temporary = name.starts_with('.')
                    && name.get(1..).is_some_and(|rest| {
                        rest.split_once(".tmp-").is_some_and(|(key, _)| is_key(key))
                    });
                if !temporary && !is_key(&name) {
                    continue;
                }
                // A file removed meanwhile (another process pruning or
                // replacing it) is skipped.
                let Ok(meta) = file.metadata() else { continue };
                if !meta.is_file() {
                    continue;
                }
                found.push(Stored {
                    path: file.path(),
                    bytes: meta.len(),
                    used: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    temporary,
                });
            }
        }
        Ok(found)
    }

    /// How many entries the cache holds, their size and age.
    pub fn usage(&self) -> Result<Usage> {
        let mut u = Usage::default();
        for s in self.stored()? {
            u.bytes += s.bytes;
            if s.temporary {
                u.temporary += 1;
                continue;
            }
            u.entries += 1;
            u.oldest = Some(u.oldest.map_or(s.used, |o| o.min(s.used)));
            u.newest = Some(u.newest.map_or(s.used, |n| n.max(s.used)));
        }
        Ok(u)
    }

    /// Remove the entries not used for `older_than` (when given), then the
    /// least recently used ones until the cache holds at most `max_bytes`
    /// (when given), and writers' leftovers older than an hour. Entries
    /// are whole files removed one by one: a process reading one at the
    /// same time reads it whole or finds it missing (and runs its task).
    pub fn prune(&self, older_than: Option<Duration>, max_bytes: Option<u64>) -> Result<Pruned> {
        let now = SystemTime::now();
        let age = |s: &Stored| now.duration_since(s.used).unwrap_or_default();
        let mut pruned = Pruned::default();
        let remove = |s: &Stored, pruned: &mut Pruned| match fs::remove_file(&s.path) {
            Ok(()) => {
                pruned.bytes += s.bytes;
                if !s.temporary {
                    pruned.entries += 1;
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io("remove the cache entry", &s.path, &e)),
        };
        let mut kept = Vec::new();
        for s in self.stored()? {
            let old = older_than.is_some_and(|limit| age(&s) > limit);
            let stale_temp = s.temporary && age(&s) > STALE_TEMP;
            if old || stale_temp {
                remove(&s, &mut pruned)?;
            } else {
                kept.push(s);
            }
        }
        if let Some(cap) = max_bytes {
            let mut total: u64 = kept.iter().map(|s| s.bytes).sum();
            // Least recently used first; ties by path, so the order is
            // the same every time.
            kept.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.path.cmp(&b.path)));
            for s in kept.iter().filter(|s| !s.temporary) {
                if total <= cap {
                    break;
                }
                remove(s, &mut pruned)?;
                total -= s.bytes;
            }
        }
        Ok(pruned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_bound_to_one_task_is_never_the_run_of_another() {
        let (a, b) = ("a".repeat(IDENTITY_LEN), "b".repeat(IDENTITY_LEN));
        let entry = seal_bound(&a, b"run of a");
        assert_eq!(unseal_bound(&entry, &a), Unsealed::Run(&b"run of a"[..]));
        assert_eq!(unseal_bound(&entry, &b), Unsealed::OtherTask);
        assert_eq!(unseal_bound(&entry[..20], &a), Unsealed::Damaged);
        // An old entry without an identity, or one too short to hold one.
        assert_eq!(unseal_bound(&seal(b"run"), &a), Unsealed::Damaged);
    }

    #[test]
    fn a_swapped_entry_reads_as_missing_and_is_counted_apart() {
        let tmp = std::env::temp_dir().join(format!("tenantsim-cache-swap-{}", std::process::id()));
        let cache = ResultCache::open(&tmp).expect("open");
        let (a, b) = ("ab".repeat(32), "cd".repeat(32));
        cache.put(&a, b"run a");
        cache.put(&b, b"run b");
        let (pa, pb) = (cache.entry_path(&a), cache.entry_path(&b));
        let (ea, eb) = (fs::read(&pa).expect("a"), fs::read(&pb).expect("b"));
        fs::write(&pa, eb).expect("swap");
        fs::write(&pb, ea).expect("swap");
        assert_eq!(cache.get(&a).expect("no error"), None);
        assert_eq!(cache.get(&b).expect("no error"), None);
        assert_eq!(cache.misplaced_entries(), 2);
        assert_eq!(cache.corrupt_entries(), 0);
        let _ = fs::remove_dir_all(&tmp);
    }

    /// The hidden temporary files of `cache`'s entry folder of `key`.
    fn temporaries(cache: &ResultCache, key: &str) -> Vec<PathBuf> {
        let dir = cache.entry_path(key).parent().expect("fan").to_path_buf();
        fs::read_dir(dir)
            .map(|it| {
                it.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_run_is_streamed_into_its_entry_with_the_bytes_of_seal_bound() {
        let tmp =
            std::env::temp_dir().join(format!("tenantsim-cache-stream-{}", std::process::id()));
        let cache = ResultCache::open(&tmp).expect("open");
        let key = "ef".repeat(32);
        let run: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut on_disk_midway = 0;
        cache
            .put_with(&key, &mut |out| {
                for part in run.chunks(100_000) {
                    out.write_all(part).expect("written");
                    if on_disk_midway == 0 {
                        // The first part is in the file before the rest
                        // is encoded: the entry is never held whole.
                        let temp = temporaries(&cache, &key);
                        assert_eq!(temp.len(), 1, "{temp:?}");
                        on_disk_midway = fs::metadata(&temp[0]).expect("temp").len();
                    }
                }
                Ok(())
            })
            .expect("stored");
        assert!(on_disk_midway >= 90_000, "{on_disk_midway}");
        let entry = fs::read(cache.entry_path(&key)).expect("entry");
        assert_eq!(entry, seal_bound(&key, &run));
        assert_eq!(cache.get(&key).expect("no error"), Some(run));
        assert!(temporaries(&cache, &key).is_empty());
        assert_eq!((cache.too_large_runs(), cache.write_error()), (0, None));
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn a_run_larger_than_the_cache_stores_is_neither_stored_nor_served() {
        let tmp =
            std::env::temp_dir().join(format!("tenantsim-cache-large-{}", std::process::id()));
        let cache = ResultCache::open(&tmp).expect("open").with_max_run(10);
        let (fits, over) = ("0a".repeat(32), "0b".repeat(32));
        cache.put(&fits, b"ten bytes!");
        cache.put(&over, b"eleven byte");
        assert_eq!(
            cache.get(&fits).expect("no error").as_deref(),
            Some(&b"ten bytes!"[..])
        );
        assert_eq!(cache.get(&over).expect("no error"), None);
        assert!(!cache.entry_path(&over).exists());
        assert!(
            temporaries(&cache, &over).is_empty(),
            "the abandoned entry is removed"
        );
        assert_eq!(cache.too_large_runs(), 1);
        // Not a failure of the file, and not damage.
        assert_eq!((cache.write_error(), cache.corrupt_entries()), (None, 0));
        // An entry written with a larger bound (an older version) is not
        // served, and not counted as damaged.
        ResultCache::open(&tmp)
            .expect("open")
            .put(&over, b"eleven byte");
        assert!(cache.entry_path(&over).exists());
        assert_eq!(cache.get(&over).expect("no error"), None);
        assert_eq!(cache.corrupt_entries(), 0);
        // An error of the encoding itself is the caller's.
        let err = cache
            .put_with(&fits, &mut |_| {
                Err(Error::input("cannot encode a run: bad"))
            })
            .expect_err("an encoding error");
        assert!(err.to_string().contains("bad"), "{err}");
        let _ = fs::remove_dir_all(&tmp);
    }

    /// [`check_bound`]'s verdict on `entry` as a file of its length.
    fn checked(entry: &[u8], identity: &str) -> Checked {
        check_bound(&mut &entry[..], entry.len() as u64, identity).unwrap_or(Checked::Damaged)
    }

    /// The reference: [`unseal_bound`]'s verdict in [`Checked`]'s terms.
    fn unsealed(entry: &[u8], identity: &str) -> Checked {
        match unseal_bound(entry, identity) {
            Unsealed::Run(run) => Checked::Run(run.len() as u64),
            Unsealed::Damaged => Checked::Damaged,
            Unsealed::OtherTask => Checked::OtherTask,
        }
    }

    #[test]
    fn an_entry_checked_as_it_is_read_gets_the_verdict_of_unseal_bound() {
        let (a, b) = ("a".repeat(IDENTITY_LEN), "b".repeat(IDENTITY_LEN));
        // A run longer than a checked chunk, so the sum spans reads.
        let long: Vec<u8> = (0..CHECK_CHUNK as u32 * 2 + 77)
            .map(|i| (i % 253) as u8)
            .collect();
        for run in [&b"run of a"[..], &b""[..], &long[..]] {
            let entry = seal_bound(&a, run);
            assert_eq!(checked(&entry, &a), Checked::Run(run.len() as u64));
            assert_eq!(checked(&entry, &b), Checked::OtherTask);
            let mut longer = entry.clone();
            longer.push(0);
            assert_eq!(checked(&longer, &a), Checked::Damaged);
        }
        // Every cut and every flipped byte of a short entry; an old entry
        // without an identity; a payload shorter than one.
        let entry = seal_bound(&a, b"run of a");
        for cut in 0..entry.len() {
            assert_eq!(
                checked(&entry[..cut], &a),
                unsealed(&entry[..cut], &a),
                "cut {cut}"
            );
            assert_eq!(checked(&entry[..cut], &a), Checked::Damaged);
        }
        for at in 0..entry.len() {
            let mut flipped = entry.clone();
            flipped[at] ^= 0x10;
            assert_eq!(checked(&flipped, &a), unsealed(&flipped, &a), "flip {at}");
        }
        for old in [seal(b"run"), seal(&[b'a'; IDENTITY_LEN - 1])] {
            assert_eq!(checked(&old, &a), Checked::Damaged);
            assert_eq!(unsealed(&old, &a), Checked::Damaged);
        }
        // A file whose length disagrees with the one it was opened at
        // (written to since): damaged.
        assert_eq!(
            check_bound(&mut &entry[..], entry.len() as u64 + 1, &a).ok(),
            Some(Checked::Damaged)
        );
    }

    #[test]
    fn a_stored_run_is_read_from_its_checked_file_as_asked() {
        let tmp =
            std::env::temp_dir().join(format!("tenantsim-cache-reader-{}", std::process::id()));
        let cache = ResultCache::open(&tmp).expect("open");
        let key = "cd".repeat(32);
        let run: Vec<u8> = (0..200_000u32).map(|i| (i % 241) as u8).collect();
        cache.put(&key, &run);
        let mut stored = cache.get_run(&key).expect("no error").expect("stored");
        assert_eq!(stored.len(), run.len() as u64);
        let mut first = [0u8; 1000];
        stored.read_exact(&mut first).expect("read");
        assert_eq!(&first[..], &run[..1000]);
        // The entry replaced (renamed over) while it is read: the open
        // file, the one checked, is read to its end.
        cache.put(&key, b"another run");
        let mut rest = Vec::new();
        stored.read_to_end(&mut rest).expect("read");
        assert_eq!(&rest[..], &run[1000..]);
        assert_eq!(
            cache.get(&key).expect("no error").as_deref(),
            Some(&b"another run"[..])
        );
        // Damaged: missing and counted, as `get` counts it.
        let path = cache.entry_path(&key);
        let mut bytes = fs::read(&path).expect("entry");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        fs::write(&path, bytes).expect("damage");
        assert!(cache.get_run(&key).expect("no error").is_none());
        assert_eq!(cache.corrupt_entries(), 1);
        let _ = fs::remove_dir_all(&tmp);
    }

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
        fs::write(cache.entry_path(&key), b"TSCACHE2garbage").expect("damage");
        assert_eq!(cache.get(&key).expect("no error"), None);
        assert_eq!(cache.corrupt_entries(), 1);
        assert_eq!(cache.misplaced_entries(), 0);
        assert_eq!(cache.write_error(), None);
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn prune_removes_by_age_then_least_recently_used_and_nothing_else() {
        let tmp =
            std::env::temp_dir().join(format!("tenantsim-cache-prune-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        let cache = ResultCache::open(&tmp).expect("open");
        let keys: Vec<String> = ["aa", "bb", "cc", "dd"]
            .iter()
            .map(|k| k.repeat(32))
            .collect();
        let hours_ago = |h: u64| SystemTime::now() - Duration::from_secs(h * 3600);
        for (i, key) in keys.iter().enumerate() {
            cache.put(key, &[7u8; 100]);
            let f = fs::File::options()
                .append(true)
                .open(cache.entry_path(key))
                .expect("entry");
            // aa used 40 h ago, bb 30 h, cc 20 h, dd 10 h.
            f.set_modified(hours_ago(40 - 10 * i as u64)).expect("age");
        }
        // A file that is not an entry is never touched.
        let foreign = tmp.join("v1").join("aa").join("notes.txt");
        fs::write(&foreign, "mine").expect("write");
        let size = seal_bound(&keys[0], &[7u8; 100]).len() as u64;
        let u = cache.usage().expect("usage");
        assert_eq!((u.entries, u.bytes), (4, 4 * size));
        // Served: cc becomes the most recently used.
        assert!(cache.get(&keys[2]).expect("no error").is_some());
        let by_age = cache
            .prune(Some(Duration::from_secs(35 * 3600)), None)
            .expect("prune");
        assert_eq!(
            by_age,
            Pruned {
                entries: 1,
                bytes: size
            }
        );
        assert!(!cache.entry_path(&keys[0]).exists());
        // Room for two: bb (30 h) goes, then dd (10 h); cc was just used.
        let by_size = cache.prune(None, Some(2 * size - 1)).expect("prune");
        assert_eq!(by_size.entries, 2);
        assert!(cache.entry_path(&keys[2]).exists());
        assert!(!cache.entry_path(&keys[1]).exists() && !cache.entry_path(&keys[3]).exists());
        assert_eq!(fs::read_to_string(&foreign).expect("kept"), "mine");
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn sizes_and_ages_are_read_or_refused_with_what_was_expected() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("500M"), Ok(500 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("0"), Ok(0));
        for bad in ["", "M", "-1G", "1X", "1e99T", "nan"] {
            let err = parse_size(bad).expect_err(bad);
            assert!(err.contains("size"), "{bad}: {err}");
        }
        assert_eq!(parse_age("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_age("90m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_age("2w"), Ok(Duration::from_secs(14 * 86_400)));
        for bad in ["", "d", "5", "5y", "-1d", "1.5h"] {
            let err = parse_age(bad).expect_err(bad);
            assert!(err.contains("age"), "{bad}: {err}");
        }
    }
}
