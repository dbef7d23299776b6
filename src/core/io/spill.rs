//! A growing per-run sequence of fixed-size records that lives in memory
//! while it is small and in an unnamed temporary file once it passes a
//! size threshold (DESIGN §2.6 "Where a run's curves and rows live", issue 34): the one
//! mechanism for per-run results whose length grows with the total number
//! of tenants (a loss curve's change points, the curve by jobs, the
//! tenants' rows).
//!
//! - **In memory** (the common case: a thousand small repetitions): the
//!   records encoded (`R::encode`, fixed size, little-endian) into one
//!   byte vector, as they would be on file, so a record weighs `R::BYTES`
//!   with no padding (a loss curve's point: 20 bytes, not the 24 of its
//!   struct); nothing is allocated per record beyond the vector's
//!   doubling.
//! - **Spilled**: when `len × R::BYTES` passes the threshold, the bytes
//!   move to a temporary file created in the system's temporary folder (`TMPDIR`) with
//!   `create_new` and unlinked at once, so the open handle is all that
//!   holds it: nothing is left behind, and nothing that looks like a
//!   result, whatever ends the process (an error, Ctrl-C, a kill). Where
//!   the unlink fails (a platform that refuses to unlink an open file), the
//!   name is removed when the sequence is dropped. Later records are
//!   encoded into a write buffer of [`WRITE_BUFFER`] bytes, appended to the
//!   file when it is full.
//! - **Read back** in order as a stream ([`Spill::iter`]): each reader
//!   reads [`READ_BUFFER`] bytes at a time at its own offset (positional
//!   reads, so several readers of one sequence, and of many sequences,
//!   coexist), then the records still in the write buffer; one record at
//!   its index ([`Spill::get`], one positional read on file).
//! - **Appended only.** Records written at their index (a done tenant's
//!   row, in the order tenants were done) were one write to the file
//!   each when the order was shuffled (10^7 in scale-year); a holder
//!   whose records come in another order than they are read sorts them
//!   through [`super::sorted_runs`] instead.
//!
//! The records read back are the records written, bit for bit (a unit
//! test checks in-memory and spilled sequences against each other), so a
//! figure computed from the stream has the bits of one computed from the
//! vector.
//!
//! The threshold: [`spill_threshold`], [`DEFAULT_SPILL_BYTES`] unless the
//! hidden knob `TENANTSIM_SPILL_BYTES` (read once per process; tests set it
//! to a few bytes to force every sequence to disk) says otherwise.

use std::fs::File;
use std::io;
use std::marker::PhantomData;
use std::sync::OnceLock;

use super::unnamed_file::UnnamedFile;
use crate::core::error::{Error, Result};

/// The size, in bytes, past which a sequence moves to disk unless
/// `TENANTSIM_SPILL_BYTES` says otherwise: 64 MiB. Holders cap it lower
/// where a large run holds the sequence beside everything else: a loss
/// curve at [`CURVE_IN_MEMORY`](crate::core::memory::CURVE_IN_MEMORY) (8 MiB), the done
/// tenants' figures at 4 MiB.
pub const DEFAULT_SPILL_BYTES: usize = 64 << 20;

/// Bytes a spilled sequence buffers before it appends them to its file.
pub const WRITE_BUFFER: usize = 64 << 10;

/// Bytes a reader of a spilled sequence reads at a time.
pub const READ_BUFFER: usize = 64 << 10;

/// The environment variable of the threshold (bytes, a whole number; `0`
/// spills every sequence at its first record). A hidden knob for tests
/// and for machines with little memory; read once per process.
pub const SPILL_ENV: &str = "TENANTSIM_SPILL_BYTES";

/// The spill threshold of this process: `TENANTSIM_SPILL_BYTES` when set,
/// else [`DEFAULT_SPILL_BYTES`]; a value that is not a whole number of
/// bytes is an error naming the variable (at every call: the value is read
/// once).
pub fn spill_threshold() -> Result<usize> {
    static THRESHOLD: OnceLock<std::result::Result<usize, String>> = OnceLock::new();
    THRESHOLD
        .get_or_init(|| parse_threshold(std::env::var(SPILL_ENV).ok().as_deref()))
        .clone()
        .map_err(Error::usage)
}

/// The threshold `value` of `TENANTSIM_SPILL_BYTES` names (`None`: unset).
fn parse_threshold(value: Option<&str>) -> std::result::Result<usize, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(DEFAULT_SPILL_BYTES),
        Some(v) => v.parse::<usize>().map_err(|_| {
            format!(
                "{SPILL_ENV}: expected a whole number of bytes (the size past which a \
                 run's curves and rows move to a temporary file), got `{v}`"
            )
        }),
    }
}

/// A fixed-size binary record of a [`Spill`].
pub trait Record: Sized {
    /// Its size, bytes.
    const BYTES: usize;
    /// Write it to `out` (`BYTES` long).
    fn encode(&self, out: &mut [u8]);
    /// Read it back from `bytes` (`BYTES` long): `decode(encode(r))` is `r`
    /// bit for bit.
    fn decode(bytes: &[u8]) -> Self;
}

/// `N` bytes of `b` from `at` (callers pass slices of the record's size).
fn take<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[at..at + N]);
    a
}

impl Record for u64 {
    const BYTES: usize = 8;
    fn encode(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        u64::from_le_bytes(take(b, 0))
    }
}

impl Record for u32 {
    const BYTES: usize = 4;
    fn encode(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        u32::from_le_bytes(take(b, 0))
    }
}

impl Record for f64 {
    const BYTES: usize = 8;
    fn encode(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_bits().to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        f64::from_bits(u64::from_le_bytes(take(b, 0)))
    }
}

/// A loss curve's change point (instant µs, S, arrived): 20 bytes.
impl Record for (u64, f64, u32) {
    const BYTES: usize = 20;
    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.0.to_le_bytes());
        out[8..16].copy_from_slice(&self.1.to_bits().to_le_bytes());
        out[16..20].copy_from_slice(&self.2.to_le_bytes());
    }
    fn decode(b: &[u8]) -> Self {
        (
            u64::from_le_bytes(take(b, 0)),
            f64::from_bits(u64::from_le_bytes(take(b, 8))),
            u32::from_le_bytes(take(b, 16)),
        )
    }
}

/// The unnamed temporary file of a spilled sequence (the unlinked file of
/// `core::io::unnamed_file`, shared with the results spools).
#[derive(Debug)]
struct SpillFile {
    file: UnnamedFile,
    /// Bytes in the file.
    len: u64,
    /// Writes to the file so far ([`Spill::file_writes`]).
    writes: u64,
}

impl SpillFile {
    /// A new unnamed file in the system's temporary folder.
    fn create() -> Result<Self> {
        Ok(Self {
            file: UnnamedFile::create("a run's curves or rows", "spill")?,
            len: 0,
            writes: 0,
        })
    }

    /// Write `bytes` at `offset`.
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        write_all_at(self.file.file(), bytes, offset)
            .map_err(|e| Error::io("write a run's curves or rows to", self.file.path(), &e))?;
        self.len = self.len.max(offset + bytes.len() as u64);
        self.writes += 1;
        Ok(())
    }

    /// Fill `buf` from `offset`.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        read_exact_at(self.file.file(), buf, offset).map_err(|e| {
            Error::io(
                "read a run's curves or rows back from",
                self.file.path(),
                &e,
            )
        })
    }
}

#[cfg(unix)]
fn write_all_at(f: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, bytes, offset)
}

#[cfg(unix)]
fn read_exact_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

#[cfg(windows)]
fn write_all_at(f: &File, mut bytes: &[u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !bytes.is_empty() {
        let n = f.seek_write(bytes, offset)?;
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::WriteZero));
        }
        bytes = &bytes[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(windows)]
fn read_exact_at(f: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        let n = f.seek_read(buf, offset)?;
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        buf = &mut buf[n..];
        offset += n as u64;
    }
    Ok(())
}

/// A growing sequence of records, in memory below a threshold and in an
/// unnamed temporary file above it (see the module's documentation).
#[derive(Debug)]
pub struct Spill<R> {
    /// The records while in memory, encoded as on file (`R::BYTES`
    /// each, so a sequence holds what its records weigh, no padding;
    /// empty once spilled).
    mem: Vec<u8>,
    _records: PhantomData<R>,
    /// The file, once spilled.
    file: Option<SpillFile>,
    /// Encoded records not yet in the file (appended at `file.len`).
    pending: Vec<u8>,
    /// Records in the sequence.
    len: u64,
    /// Bytes past which the sequence spills.
    threshold: usize,
}

impl<R: Record> Spill<R> {
    /// An empty sequence that spills past this process's
    /// [`spill_threshold`].
    pub fn new() -> Result<Self> {
        Ok(Self::with_threshold(spill_threshold()?))
    }

    /// An empty sequence that spills once it holds more than `bytes`.
    pub fn with_threshold(bytes: usize) -> Self {
        Self {
            mem: Vec::new(),
            _records: PhantomData,
            file: None,
            pending: Vec::new(),
            len: 0,
            threshold: bytes,
        }
    }

    /// Records in the sequence.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes past which it spills.
    pub fn threshold(&self) -> usize {
        self.threshold
    }

    /// Whether it moved to disk.
    pub fn is_spilled(&self) -> bool {
        self.file.is_some()
    }

    /// Writes to its file so far (0 in memory): one per [`WRITE_BUFFER`]
    /// of records appended, what the regression tests of the sequences'
    /// holders count.
    pub fn file_writes(&self) -> u64 {
        self.file.as_ref().map_or(0, |f| f.writes)
    }

    /// Give back the room the in-memory vector grew beyond its records
    /// (a sequence that will not grow: up to as much again as its
    /// records, by doubling). Nothing is written; a spilled sequence
    /// keeps its write buffer.
    pub fn shrink_memory(&mut self) {
        self.mem.shrink_to_fit();
    }

    /// Bytes of records held in memory (the vector's, or the write
    /// buffer's once spilled).
    pub fn bytes_in_memory(&self) -> usize {
        if self.file.is_some() {
            self.pending.capacity()
        } else {
            self.mem.capacity()
        }
    }

    /// Append `r`.
    pub fn push(&mut self, r: R) -> Result<()> {
        if self.file.is_none() {
            let at = self.mem.len();
            self.mem.resize(at + R::BYTES, 0);
            r.encode(&mut self.mem[at..]);
            self.len += 1;
            return self.spill_if_large();
        }
        let at = self.pending.len();
        self.pending.resize(at + R::BYTES, 0);
        r.encode(&mut self.pending[at..]);
        self.len += 1;
        if self.pending.len() >= WRITE_BUFFER {
            self.flush()?;
        }
        Ok(())
    }

    /// Move to disk if past the threshold.
    fn spill_if_large(&mut self) -> Result<()> {
        if self.mem.len() <= self.threshold {
            return Ok(());
        }
        self.spill_now()
    }

    /// Move the records to a new temporary file (they are encoded
    /// already); later ones go through the write buffer.
    fn spill_now(&mut self) -> Result<()> {
        let mut file = SpillFile::create()?;
        for (k, chunk) in self.mem.chunks(WRITE_BUFFER).enumerate() {
            file.write_at((k * WRITE_BUFFER) as u64, chunk)?;
        }
        self.mem = Vec::new();
        self.pending = Vec::with_capacity(WRITE_BUFFER.max(R::BYTES));
        self.file = Some(file);
        Ok(())
    }

    /// Append the write buffer to the file.
    fn flush(&mut self) -> Result<()> {
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        if !self.pending.is_empty() {
            let at = (self.len - (self.pending.len() / R::BYTES) as u64) * R::BYTES as u64;
            file.write_at(at, &self.pending)?;
            self.pending.clear();
        }
        Ok(())
    }

    /// Give back what the sequence holds beyond its records: the unused
    /// capacity of an in-memory vector (it grew by doubling), or, once
    /// spilled, the write buffer (its records are appended to the file).
    /// A later `push` works as before.
    pub fn shrink_to_fit(&mut self) -> Result<()> {
        self.mem.shrink_to_fit();
        self.flush()?;
        self.pending = Vec::new();
        Ok(())
    }

    /// Record `i` (below [`Self::len`]): what [`Self::iter`] gives at `i`.
    /// One positional read when it is on file (a random access, for the
    /// rare reader of one record; read many in order with `iter`).
    pub fn get(&self, i: u64) -> Result<R> {
        if i >= self.len {
            return Err(Error::usage(format!(
                "record {i} of a sequence of {} (a bug)",
                self.len
            )));
        }
        let b = R::BYTES;
        let Some(file) = &self.file else {
            let at = usize::try_from(i).unwrap_or(usize::MAX).saturating_mul(b);
            return self
                .mem
                .get(at..at.saturating_add(b))
                .map(R::decode)
                .ok_or_else(spilled_file_missing);
        };
        let on_file = self.len - (self.pending.len() / b) as u64;
        if i >= on_file {
            let at = (i - on_file) as usize * b;
            return Ok(R::decode(&self.pending[at..at + b]));
        }
        let mut buf = vec![0u8; b];
        file.read_at(i * b as u64, &mut buf)?;
        Ok(R::decode(&buf))
    }

    /// Every record, in order, as a stream (I/O errors of a spilled
    /// sequence are items).
    pub fn iter(&self) -> SpillIter<'_, R> {
        self.iter_range(0, self.len, READ_BUFFER)
    }

    /// Records `start..end` (clamped to [`Self::len`]), in order, read
    /// from the file `read_bytes` at a time (at least one record): many
    /// such streams over one sequence read at once (the sorted runs
    /// merged by [`super::sorted_runs`]) each hold their own
    /// buffer, so they take a smaller one than [`Self::iter`]'s
    /// [`READ_BUFFER`].
    pub fn iter_range(&self, start: u64, end: u64, read_bytes: usize) -> SpillIter<'_, R> {
        let on_file = match &self.file {
            Some(_) => self.len - (self.pending.len() / R::BYTES) as u64,
            None => 0,
        };
        SpillIter {
            spill: self,
            next: start,
            end: end.min(self.len),
            per_read: (read_bytes / R::BYTES).max(1) as u64,
            on_file,
            buf: Vec::new(),
            buf_start: 0,
            failed: false,
        }
    }

    /// An independent copy with the same records and threshold (a fork
    /// of a run, DESIGN §15.2): a spilled sequence is copied record by
    /// record into a file of its own.
    pub fn try_clone(&self) -> Result<Self>
    where
        R: Clone,
    {
        if self.file.is_none() {
            return Ok(Self {
                mem: self.mem.clone(),
                _records: PhantomData,
                file: None,
                pending: Vec::new(),
                len: self.len,
                threshold: self.threshold,
            });
        }
        let mut copy = Self::with_threshold(self.threshold);
        for r in self.iter() {
            copy.push(r?)?;
        }
        Ok(copy)
    }

    /// A copy ([`Self::try_clone`]) for a holder that reports errors
    /// later (a fork of a run's fold): on failure an empty sequence with
    /// the same threshold, and `failure` says why (if it said nothing yet).
    pub fn copy_or_empty(&self, failure: &mut Option<Error>) -> Self
    where
        R: Clone,
    {
        self.try_clone().unwrap_or_else(|e| {
            failure.get_or_insert(e);
            Self::with_threshold(self.threshold)
        })
    }

    /// Every record, read back into a vector.
    pub fn to_vec(&self) -> Result<Vec<R>>
    where
        R: Clone,
    {
        self.iter().collect()
    }
}

fn spilled_file_missing() -> Error {
    Error::usage("a spilled sequence lost its temporary file (a bug)")
}

/// The records of a [`Spill`], in order.
#[derive(Debug)]
pub struct SpillIter<'a, R> {
    spill: &'a Spill<R>,
    /// Index of the next record.
    next: u64,
    /// Index past the last record read.
    end: u64,
    /// Records a read from the file brings in.
    per_read: u64,
    /// Records in the file (the rest are in `pending`).
    on_file: u64,
    /// Records read from the file, from index `buf_start`.
    buf: Vec<u8>,
    buf_start: u64,
    failed: bool,
}

impl<R: Record + Clone> SpillIter<'_, R> {
    /// The next `n` records, for a sequence read in groups of `n` beside
    /// another (a row's times to the thresholds, a sorted run's tails):
    /// fewer than `n` left is an error saying `lost` (a bug), as is a
    /// failed read.
    pub fn next_n(&mut self, n: usize, lost: &str) -> Result<Vec<R>> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(
                self.next()
                    .ok_or_else(|| Error::input(format!("internal: {lost}")))??,
            );
        }
        Ok(out)
    }
}

impl<R: Record + Clone> Iterator for SpillIter<'_, R> {
    type Item = Result<R>;

    fn next(&mut self) -> Option<Result<R>> {
        let s = self.spill;
        if self.failed || self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let Some(file) = &s.file else {
            let b = R::BYTES;
            return usize::try_from(i)
                .ok()
                .and_then(|i| s.mem.get(i * b..(i + 1) * b))
                .map(|bytes| Ok(R::decode(bytes)));
        };
        let b = R::BYTES;
        if i >= self.on_file {
            let at = (i - self.on_file) as usize * b;
            return Some(Ok(R::decode(&s.pending[at..at + b])));
        }
        let buffered = (self.buf.len() / b) as u64;
        if i < self.buf_start || i >= self.buf_start + buffered {
            let count = self.per_read.min(self.on_file - i) as usize;
            self.buf.resize(count * b, 0);
            if let Err(e) = file.read_at(i * b as u64, &mut self.buf) {
                self.failed = true;
                return Some(Err(e));
            }
            self.buf_start = i;
        }
        let at = (i - self.buf_start) as usize * b;
        Some(Ok(R::decode(&self.buf[at..at + b])))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.end.saturating_sub(self.next)).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Point = (u64, f64, u32);

    fn point(j: u64) -> Point {
        (j * 7 + 1, (j as f64).sqrt() * -0.1 + 1.0 / 3.0, j as u32)
    }

    fn bits(p: &Point) -> (u64, u64, u32) {
        (p.0, p.1.to_bits(), p.2)
    }

    #[test]
    fn a_spilled_sequence_reads_back_what_memory_holds_bit_for_bit() {
        // Sizes around the write and read buffers' record counts.
        for n in [0u64, 1, 2, 3, 3276, 3277, 3300, 10_000] {
            let mut mem = Spill::<Point>::with_threshold(usize::MAX);
            let mut disk = Spill::<Point>::with_threshold(40);
            for j in 0..n {
                mem.push(point(j)).expect("push");
                disk.push(point(j)).expect("push");
            }
            assert!(!mem.is_spilled());
            assert_eq!(disk.is_spilled(), n * 20 > 40, "n = {n}");
            assert_eq!((mem.len(), disk.len()), (n, n));
            let a: Vec<_> = mem.to_vec().expect("read").iter().map(bits).collect();
            let b: Vec<_> = disk.to_vec().expect("read").iter().map(bits).collect();
            let want: Vec<_> = (0..n).map(|j| bits(&point(j))).collect();
            assert_eq!(a, want, "n = {n}");
            assert_eq!(b, want, "n = {n}");
            // Two readers at once, interleaved.
            let mut r1 = disk.iter();
            let mut r2 = disk.iter();
            for j in 0..n {
                let x = r1.next().expect("some").expect("ok");
                if j % 2 == 0 {
                    let y = r2.next().expect("some").expect("ok");
                    assert_eq!(bits(&y), bits(&point(j / 2)));
                }
                assert_eq!(bits(&x), bits(&point(j)));
            }
            assert!(r1.next().is_none());
        }
    }

    /// One record read back at its index ([`Spill::get`]): in memory, on
    /// file, and still in the write buffer; past the end an error.
    #[test]
    fn a_record_reads_back_at_its_index_wherever_it_is() {
        for threshold in [usize::MAX, 0, 1000] {
            let mut s = Spill::<u64>::with_threshold(threshold);
            let n = 20_000u64;
            for j in 0..n {
                s.push(j * 3).expect("push");
                // The record just pushed, and one far behind it.
                assert_eq!(s.get(j).expect("get"), j * 3);
                assert_eq!(s.get(j / 7).expect("get"), j / 7 * 3);
            }
            assert_eq!(s.is_spilled(), threshold < 8 * n as usize);
            assert!((0..n).all(|j| s.get(j).ok() == Some(j * 3)));
            assert!(s.get(n).is_err(), "past the end");
        }
    }

    /// A sequence in memory holds its records encoded: 20 bytes a loss
    /// curve point once it gave its spare room back, not the 24 of the
    /// tuple (a `Vec` of points would hold); once spilled, only the write
    /// buffer.
    #[test]
    fn records_in_memory_weigh_their_encoded_size() {
        assert_eq!(size_of::<Point>(), 24, "the tuple is padded");
        let mut s = Spill::<Point>::with_threshold(usize::MAX);
        for j in 0..1000 {
            s.push(point(j)).expect("push");
        }
        s.shrink_to_fit().expect("shrink");
        assert_eq!(s.bytes_in_memory(), 1000 * 20);
        let mut d = Spill::<Point>::with_threshold(100);
        for j in 0..1000 {
            d.push(point(j)).expect("push");
        }
        d.shrink_to_fit().expect("shrink");
        assert!(d.is_spilled());
        assert_eq!(d.bytes_in_memory(), 0);
        let back: Vec<_> = d.to_vec().expect("read").iter().map(bits).collect();
        assert_eq!(back, (0..1000).map(|j| bits(&point(j))).collect::<Vec<_>>());
    }

    /// A copy reads back the original's records, and the two go on
    /// independently, in memory and spilled alike.
    #[test]
    fn a_copy_holds_the_same_records_and_goes_on_alone() {
        for threshold in [usize::MAX, 0, 200] {
            let mut s = Spill::<Point>::with_threshold(threshold);
            for j in 0..50 {
                s.push(point(j)).expect("push");
            }
            let mut copy = s.try_clone().expect("copy");
            assert_eq!(copy.is_spilled(), s.is_spilled(), "threshold {threshold}");
            s.push(point(99)).expect("push");
            copy.push(point(77)).expect("push");
            let a: Vec<_> = s.to_vec().expect("read").iter().map(bits).collect();
            let b: Vec<_> = copy.to_vec().expect("read").iter().map(bits).collect();
            let mut want: Vec<_> = (0..50).map(|j| bits(&point(j))).collect();
            assert_eq!(a[..50], want[..], "threshold {threshold}");
            assert_eq!(b[..50], want[..], "threshold {threshold}");
            want.push(bits(&point(99)));
            assert_eq!(a, want);
            *want.last_mut().expect("51") = bits(&point(77));
            assert_eq!(b, want);
        }
    }

    /// Regression (CI of stop 47): this test listed every spill name of
    /// the process in the temporary folder, and another test of the same
    /// binary, creating its own file at that instant, held a name between
    /// its create and its unlink. It now looks at its own file's name only.
    #[test]
    fn a_spilled_sequence_leaves_no_file_behind() {
        let mut s = Spill::<Point>::with_threshold(0);
        for j in 0..5000 {
            s.push(point(j)).expect("push");
        }
        assert!(s.is_spilled());
        let file = &s.file.as_ref().expect("spilled").file;
        // Unlinked at once: no name while it lives, none after.
        assert!(!file.is_linked(), "the unlink failed on this file system");
        let path = file.path().to_path_buf();
        assert!(path.starts_with(std::env::temp_dir()));
        assert!(!path.exists(), "{} has a name", path.display());
        assert!(s.bytes_in_memory() <= 2 * WRITE_BUFFER);
        drop(s);
        assert!(!path.exists(), "{} has a name", path.display());
    }

    #[test]
    fn the_threshold_knob_is_a_whole_number_or_a_clear_error() {
        assert_eq!(parse_threshold(None), Ok(DEFAULT_SPILL_BYTES));
        assert_eq!(parse_threshold(Some(" ")), Ok(DEFAULT_SPILL_BYTES));
        assert_eq!(parse_threshold(Some("0")), Ok(0));
        assert_eq!(parse_threshold(Some("4096")), Ok(4096));
        let Err(e) = parse_threshold(Some("64M")) else {
            panic!("64M accepted")
        };
        assert!(
            e.contains("TENANTSIM_SPILL_BYTES") && e.contains("`64M`"),
            "{e}"
        );
    }
}
