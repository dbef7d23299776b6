//! Records that arrive in one order and are read back in the order of a
//! key, without holding them all: an external merge sort over [`Spill`]s
//! (issue 34; DESIGN §2.6 "Done tenants").
//!
//! A record is a head `H` (which carries the key) and a fixed number of
//! tail records `T` (a done tenant's figures and its times to the
//! thresholds). Records gather in a run in memory; a run that reaches its
//! size is sorted by key (records of equal keys in the order they came)
//! and appended to two [`Spill`]s, heads and tails, which move to an
//! unnamed temporary file past their threshold. Reading back merges the
//! runs: one small buffered stream per run, the run with the smallest key
//! next (the earlier run on a tie), so records of equal keys still come in
//! the order they were pushed.
//!
//! Why: a run's done tenants finish in the order they arrived, a shuffled
//! order (DESIGN §2.8), and their rows are read in tenant order. Writing
//! each at its tenant's index was one write to the file a tenant (10^7
//! in scale-year, a few seconds each 10^6; docs/PERFORMANCE.md "Internet
//! scale", "Done tenants were written one at a time"); here every write is
//! a run or a write buffer, and the merge reads each run in order.
//!
//! Memory: the open run (at most `run_records` records), what the two spills keep
//! before they move to disk, and while merging [`MERGE_READ`] bytes a run
//! for each of the two streams plus one head a run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::spill::{Record, Spill, SpillIter};
use crate::core::error::{Error, Result};

/// Bytes each run's stream reads from the file at a time while merging:
/// 8 KiB (10^7 done tenants in runs of 32,768 are 306 runs: 5 MB of
/// buffers for their two streams).
pub const MERGE_READ: usize = 8 << 10;

/// Records sorted by a key through runs on disk (see the module's
/// documentation).
#[derive(Debug)]
pub struct SortedRuns<H, T> {
    /// The key of a head.
    key: fn(&H) -> u64,
    /// Tail records a head.
    per: usize,
    /// Records a run holds at most.
    run_records: usize,
    /// The open run's heads and (`per` each) tails, in the order pushed.
    open: Vec<H>,
    open_tails: Vec<T>,
    /// The written runs: run r is `heads[starts[r]..starts[r + 1]]` (the
    /// last one up to the end), its tails `per` times that.
    heads: Spill<H>,
    tails: Spill<T>,
    starts: Vec<u64>,
}

impl<H: Record + Clone, T: Record + Clone> SortedRuns<H, T> {
    /// Records of a head keyed by `key` and `per` tails, sorted in runs of
    /// `run_records` (at least one; a power of two is what the open run's
    /// vectors grow to, so they hold no spare room when full), the
    /// written runs spilling to disk past `spill_bytes` (each of the two
    /// sequences).
    pub fn new(key: fn(&H) -> u64, per: usize, run_records: usize, spill_bytes: usize) -> Self {
        Self {
            key,
            per,
            run_records: run_records.max(1),
            open: Vec::new(),
            open_tails: Vec::new(),
            heads: Spill::with_threshold(spill_bytes),
            tails: Spill::with_threshold(spill_bytes),
            starts: Vec::new(),
        }
    }

    /// Records pushed so far.
    pub fn len(&self) -> u64 {
        self.heads.len() + self.open.len() as u64
    }

    /// Whether none was pushed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the written runs moved to disk.
    pub fn is_spilled(&self) -> bool {
        self.heads.is_spilled()
    }

    /// Writes to the runs' files so far.
    pub fn file_writes(&self) -> u64 {
        self.heads.file_writes() + self.tails.file_writes()
    }

    /// Runs written so far (the open one aside).
    pub fn runs(&self) -> usize {
        self.starts.len()
    }

    /// Push a record: `head` and its `per` tails. An error: `tails` are
    /// not `per`, or writing a full run.
    pub fn push(&mut self, head: H, tails: impl IntoIterator<Item = T>) -> Result<()> {
        let at = self.open_tails.len();
        self.open_tails.extend(tails);
        let got = self.open_tails.len() - at;
        if got != self.per {
            self.open_tails.truncate(at);
            return Err(Error::input(format!(
                "internal: a record with {got} tail records among records with {}",
                self.per
            )));
        }
        self.open.push(head);
        if self.open.len() >= self.run_records {
            self.write_run()?;
        }
        Ok(())
    }

    /// Sort the open run by key (stably) and append it to the spills.
    fn write_run(&mut self) -> Result<()> {
        if self.open.is_empty() {
            return Ok(());
        }
        let key = self.key;
        let mut order: Vec<usize> = (0..self.open.len()).collect();
        order.sort_by_key(|&j| key(&self.open[j]));
        self.starts.push(self.heads.len());
        for &j in &order {
            self.heads.push(self.open[j].clone())?;
            for t in &self.open_tails[j * self.per..(j + 1) * self.per] {
                self.tails.push(t.clone())?;
            }
        }
        self.open.clear();
        self.open_tails.clear();
        Ok(())
    }

    /// The head of the last record pushed with key `key`, if any (a
    /// point lookup, for the rare reader of one record: read many with
    /// [`Self::sorted`]). The open run is searched from its end, then the
    /// written runs from the newest, each by binary search on its sorted
    /// heads: ⌈log₂ run_records⌉ + 1 reads of one head a run at most, each
    /// one positional read once the runs are on disk. An error: reading
    /// a run back.
    pub fn last_of(&self, key: u64) -> Result<Option<H>> {
        let k = self.key;
        if let Some(h) = self.open.iter().rev().find(|h| k(h) == key) {
            return Ok(Some(h.clone()));
        }
        for (r, &start) in self.starts.iter().enumerate().rev() {
            let end = self.starts.get(r + 1).copied().unwrap_or(self.heads.len());
            // The first place in the run whose key is above `key`: the
            // record before it is the run's last with a key ≤ `key`
            // (equal keys keep their push order within a run).
            let (mut lo, mut hi) = (start, end);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if k(&self.heads.get(mid)?) <= key {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if lo > start {
                let h = self.heads.get(lo - 1)?;
                if k(&h) == key {
                    return Ok(Some(h));
                }
            }
        }
        Ok(None)
    }

    /// An independent copy (a fork of a run); on failure an empty one,
    /// and `failure` says why (if it said nothing yet).
    pub fn copy_or_empty(&self, failure: &mut Option<Error>) -> Self {
        let heads = self.heads.copy_or_empty(failure);
        let tails = self.tails.copy_or_empty(failure);
        let lost = heads.len() != self.heads.len() || tails.len() != self.tails.len();
        Self {
            key: self.key,
            per: self.per,
            run_records: self.run_records,
            open: self.open.clone(),
            open_tails: self.open_tails.clone(),
            starts: if lost {
                Vec::new()
            } else {
                self.starts.clone()
            },
            heads,
            tails,
        }
    }

    /// Every record pushed, in key order (records of equal keys in the
    /// order they were pushed), each as its head and tails. Records that
    /// all fit in the open run (a run's few hundred done tenants) are read
    /// from it, sorted in memory; otherwise the open run is written first
    /// and the runs are merged. An error: writing it; the stream's items
    /// are reading errors.
    pub fn sorted(&mut self) -> Result<Merged<'_, H, T>> {
        self.seal()?;
        self.merged()
    }

    /// Make the records readable in key order from a shared reference
    /// ([`Self::merged`]): once a run was written, the open one is written
    /// too and what held it is given back (the open run's vectors, the
    /// spills' write buffers); records that all fit in the open run stay
    /// in memory. Pushing after sealing is allowed (seal again before
    /// merging). An error: writing the open run.
    pub fn seal(&mut self) -> Result<()> {
        if self.starts.is_empty() {
            return Ok(());
        }
        self.write_run()?;
        self.open = Vec::new();
        self.open_tails = Vec::new();
        self.heads.shrink_to_fit()?;
        self.tails.shrink_to_fit()
    }

    /// Every record pushed, in key order, as [`Self::sorted`] gives them,
    /// without changing the runs: records that all fit in the open run are
    /// sorted in memory, written runs are merged. An error: records were
    /// pushed to the open run after a run was written and the runs were
    /// not [sealed](Self::seal) since (an internal error), or reading a
    /// run's first record.
    pub fn merged(&self) -> Result<Merged<'_, H, T>> {
        if self.starts.is_empty() {
            let key = self.key;
            let mut order: Vec<usize> = (0..self.open.len()).collect();
            order.sort_by_key(|&j| key(&self.open[j]));
            return Ok(Merged {
                key,
                per: self.per,
                streams: Vec::new(),
                heap: BinaryHeap::new(),
                open: Some((order.into_iter(), &self.open, &self.open_tails)),
                failed: false,
            });
        }
        if !self.open.is_empty() {
            return Err(Error::input(
                "internal: sorted runs merged with records not yet written (seal them first)",
            ));
        }
        let per = self.per as u64;
        let mut streams = Vec::with_capacity(self.starts.len());
        let mut heap = BinaryHeap::with_capacity(self.starts.len());
        for (r, &start) in self.starts.iter().enumerate() {
            let end = self.starts.get(r + 1).copied().unwrap_or(self.heads.len());
            let mut heads = self.heads.iter_range(start, end, MERGE_READ);
            let tails = self.tails.iter_range(start * per, end * per, MERGE_READ);
            let first = heads.next().transpose()?;
            if let Some(h) = &first {
                heap.push(Reverse(((self.key)(h), r)));
            }
            streams.push(Stream {
                heads,
                tails,
                head: first,
            });
        }
        Ok(Merged {
            key: self.key,
            per: self.per,
            streams,
            heap,
            open: None,
            failed: false,
        })
    }
}

/// One run being merged: its streams and its next head.
#[derive(Debug)]
struct Stream<'a, H, T> {
    heads: SpillIter<'a, H>,
    tails: SpillIter<'a, T>,
    head: Option<H>,
}

/// The records of a [`SortedRuns`] in key order ([`SortedRuns::sorted`]).
#[derive(Debug)]
pub struct Merged<'a, H, T> {
    key: fn(&H) -> u64,
    per: usize,
    streams: Vec<Stream<'a, H, T>>,
    /// (key of the run's next head, run), smallest first.
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    /// Instead of runs: the open run in key order (the records left to
    /// read, by place) and its heads and tails.
    open: Option<OpenRun<'a, H, T>>,
    failed: bool,
}

/// The open run read in key order: the places left, its heads and tails.
type OpenRun<'a, H, T> = (std::vec::IntoIter<usize>, &'a [H], &'a [T]);

impl<H: Record + Clone, T: Record + Clone> Merged<'_, H, T> {
    /// The next record, or `None` at the end.
    fn step(&mut self) -> Result<Option<(H, Vec<T>)>> {
        if let Some((order, heads, tails)) = &mut self.open {
            let per = self.per;
            return Ok(order
                .next()
                .map(|j| (heads[j].clone(), tails[j * per..(j + 1) * per].to_vec())));
        }
        let Some(Reverse((_, r))) = self.heap.pop() else {
            return Ok(None);
        };
        let s = &mut self.streams[r];
        let head = s
            .head
            .take()
            .ok_or_else(|| Error::input("internal: a sorted run lost its head"))?;
        let tails = s.tails.next_n(self.per, "a sorted run lost its tails")?;
        s.head = s.heads.next().transpose()?;
        if let Some(h) = &s.head {
            self.heap.push(Reverse(((self.key)(h), r)));
        }
        Ok(Some((head, tails)))
    }
}

impl<H: Record + Clone, T: Record + Clone> Iterator for Merged<'_, H, T> {
    type Item = Result<(H, Vec<T>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.step().transpose();
        self.failed = matches!(item, Some(Err(_)));
        item
    }
}

/// For each key `0..n` in order, the last record a [`Merged`] stream
/// holds with that key (records of equal keys come in the order they were
/// pushed, so the last pushed), or `None` for a key without one: a
/// per-key view of records kept for some keys only (a run's end states,
/// the tenants that left). An error reading a run back is an item, and
/// the last; so is a record whose key is out of order (an internal
/// error). Records with keys `n` or above are not read.
#[derive(Debug)]
pub struct LastOfEach<'a, H, T> {
    merged: Merged<'a, H, T>,
    /// The next record of the merge, read ahead.
    next: Option<Result<(H, Vec<T>)>>,
    /// The next key.
    at: u64,
    /// Keys.
    n: u64,
    failed: bool,
}

impl<'a, H: Record + Clone, T: Record + Clone> LastOfEach<'a, H, T> {
    /// The last record of each key `0..n` of `merged`.
    pub fn new(mut merged: Merged<'a, H, T>, n: u64) -> Self {
        let next = merged.next();
        Self {
            merged,
            next,
            at: 0,
            n,
            failed: false,
        }
    }
}

impl<H: Record + Clone, T: Record + Clone> Iterator for LastOfEach<'_, H, T> {
    type Item = Result<Option<H>>;

    fn next(&mut self) -> Option<Result<Option<H>>> {
        if self.failed || self.at >= self.n {
            return None;
        }
        let key = self.at;
        self.at += 1;
        let mut last = None;
        loop {
            match self.next.take() {
                Some(Ok((h, _))) if (self.merged.key)(&h) == key => {
                    last = Some(h);
                    self.next = self.merged.next();
                }
                Some(Ok((h, _))) if (self.merged.key)(&h) < key => {
                    self.failed = true;
                    return Some(Err(Error::input(format!(
                        "internal: a record of key {} read after key {key}",
                        (self.merged.key)(&h)
                    ))));
                }
                Some(Err(e)) => {
                    self.failed = true;
                    return Some(Err(e));
                }
                other => {
                    self.next = other;
                    return Some(Ok(last));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::sim::rng::{Purpose, below, stream};

    /// A head: (key, payload).
    type Head = (u64, f64, u32);

    fn key(h: &Head) -> u64 {
        h.0
    }

    /// `n` records with keys drawn from `0..n / 3` (each key about three
    /// times), payloads their push order.
    fn records(n: u64) -> Vec<(Head, Vec<u64>)> {
        let mut rng = stream(7, 0, Purpose::Arrivals);
        (0..n)
            .map(|j| {
                let k = below(&mut rng, (n / 3).max(1) as usize) as u64;
                ((k, j as f64 * 0.5, j as u32), vec![j, j + 1])
            })
            .collect()
    }

    #[test]
    fn records_come_back_in_key_order_equal_keys_in_push_order_in_memory_and_on_file() {
        for n in [0u64, 1, 2, 7, 100, 1_000, 10_000] {
            let all = records(n);
            // The reference: a stable sort of everything in memory.
            let mut want = all.clone();
            want.sort_by_key(|(h, _)| h.0);
            // Runs of 1 record, of 37, of everything; held in memory or
            // spilled at once.
            for (run, spill_bytes) in [(1, 0), (37, 0), (37, usize::MAX), (usize::MAX, 0)] {
                let mut s = SortedRuns::<Head, u64>::new(key, 2, run, spill_bytes);
                for (h, t) in &all {
                    s.push(*h, t.iter().copied()).expect("push");
                }
                assert_eq!(s.len(), n);
                let got: Vec<(Head, Vec<u64>)> = s
                    .sorted()
                    .expect("sorted")
                    .collect::<Result<_>>()
                    .expect("read");
                let bits = |v: &[(Head, Vec<u64>)]| -> Vec<(u64, u64, u32, Vec<u64>)> {
                    v.iter()
                        .map(|(h, t)| (h.0, h.1.to_bits(), h.2, t.clone()))
                        .collect()
                };
                assert_eq!(bits(&got), bits(&want), "n = {n}, runs of {run}");
            }
        }
    }

    /// `LastOfEach` against a brute-force search of everything pushed:
    /// for every key below n (keys pushed several times, once, never, and
    /// keys at n and past it, which are not read), with runs of one
    /// record, of 37 and of everything, in memory and on file.
    #[test]
    fn last_of_each_gives_each_keys_last_record_or_none() {
        let all = records(300);
        // Keys run up to 99; read 0..90 (the rest past n) and 0..120.
        for n in [0u64, 90, 120] {
            let want: Vec<Option<u32>> = (0..n)
                .map(|k| all.iter().rev().find(|(h, _)| h.0 == k).map(|(h, _)| h.2))
                .collect();
            assert!(
                want.iter().any(Option::is_none) || n == 0,
                "some key never pushed"
            );
            for (run, spill_bytes) in [(1, 0), (37, 0), (37, usize::MAX), (usize::MAX, 0)] {
                let mut s = SortedRuns::<Head, u64>::new(key, 2, run, spill_bytes);
                for (h, t) in &all {
                    s.push(*h, t.iter().copied()).expect("push");
                }
                let got: Vec<Option<u32>> = LastOfEach::new(s.sorted().expect("sorted"), n)
                    .map(|h| h.map(|h| h.map(|h| h.2)))
                    .collect::<Result<_>>()
                    .expect("read");
                assert_eq!(got, want, "n = {n}, runs of {run}");
            }
        }
    }

    /// `last_of` against a brute-force search of everything pushed: for
    /// every key (and keys never pushed), after every push, with runs of
    /// one record, of 37 and of everything, in memory and on file.
    #[test]
    fn last_of_finds_the_last_record_pushed_with_a_key() {
        let all = records(300);
        for (run, spill_bytes) in [(1, 0), (37, 0), (37, usize::MAX), (usize::MAX, 0)] {
            let mut s = SortedRuns::<Head, u64>::new(key, 2, run, spill_bytes);
            for (j, (h, t)) in all.iter().enumerate() {
                s.push(*h, t.iter().copied()).expect("push");
                if j % 7 != 0 && j != all.len() - 1 {
                    continue;
                }
                for k in 0..=101u64 {
                    let want = all[..=j]
                        .iter()
                        .rev()
                        .find(|(h, _)| h.0 == k)
                        .map(|r| r.0.2);
                    let got = s.last_of(k).expect("read").map(|h| h.2);
                    assert_eq!(got, want, "key {k} after {} pushes, runs of {run}", j + 1);
                }
            }
            assert!(run != 37 || s.runs() == 8);
        }
    }

    #[test]
    fn a_run_is_written_when_full_and_the_open_run_when_read() {
        let mut s = SortedRuns::<Head, u64>::new(key, 2, 10, usize::MAX);
        for (h, t) in records(25) {
            s.push(h, t).expect("push");
        }
        assert_eq!(s.runs(), 2);
        assert_eq!(s.sorted().expect("sorted").count(), 25);
        assert_eq!(s.runs(), 3);
    }

    /// Sealed runs are read from a shared reference, twice, as `sorted`
    /// reads them; records pushed after a run was written and before
    /// sealing are refused, not silently left out.
    #[test]
    fn sealed_runs_merge_from_a_shared_reference_as_sorted_reads_them() {
        let ids =
            |m: Merged<'_, Head, u64>| -> Vec<u32> { m.map(|r| r.expect("read").0.2).collect() };
        for (n, run) in [(0u64, 10), (7, 10), (95, 10), (95, 1), (95, usize::MAX)] {
            let mut a = SortedRuns::<Head, u64>::new(key, 2, run, 0);
            let mut b = SortedRuns::<Head, u64>::new(key, 2, run, 0);
            for (h, t) in records(n) {
                a.push(h, t.clone()).expect("push");
                b.push(h, t).expect("push");
            }
            let want = ids(a.sorted().expect("sorted"));
            b.seal().expect("seal");
            if b.runs() > 0 {
                // Written runs: the open run and the write buffer given back.
                assert_eq!(b.open.capacity() + b.heads.bytes_in_memory(), 0);
            }
            let shared = &b;
            assert_eq!(ids(shared.merged().expect("merged")), want, "n = {n}");
            assert_eq!(ids(shared.merged().expect("merged")), want, "again");
        }
        let mut s = SortedRuns::<Head, u64>::new(key, 2, 10, 0);
        for (h, t) in records(25) {
            s.push(h, t).expect("push");
        }
        let e = s.merged().expect_err("5 records not written");
        assert!(e.to_string().contains("seal them first"), "{e}");
        s.seal().expect("seal");
        assert_eq!(ids(s.merged().expect("merged")).len(), 25);
    }

    /// 20,000 records in a shuffled order, every run on disk: the runs
    /// are appended a write buffer at a time (20 bytes a head, 16 of
    /// tails: 720 KB), not a write a record.
    #[test]
    fn records_in_a_shuffled_order_take_a_write_a_buffer_not_one_each() {
        let mut s = SortedRuns::<Head, u64>::new(key, 2, 1000, 0);
        for (h, t) in records(20_000) {
            s.push(h, t).expect("push");
        }
        let read: Vec<u64> = s
            .sorted()
            .expect("sorted")
            .map(|r| r.expect("read").0.0)
            .collect();
        assert!(read.windows(2).all(|w| w[0] <= w[1]) && read.len() == 20_000);
        assert!(s.file_writes() <= 40, "{} writes", s.file_writes());
    }

    #[test]
    fn a_copy_merges_what_the_original_merges() {
        let mut s = SortedRuns::<Head, u64>::new(key, 2, 10, 0);
        for (h, t) in records(95) {
            s.push(h, t).expect("push");
        }
        let mut failure = None;
        let mut copy = s.copy_or_empty(&mut failure);
        assert!(failure.is_none());
        let a: Vec<_> = s
            .sorted()
            .expect("sorted")
            .map(|r| r.expect("read").0.2)
            .collect();
        let b: Vec<_> = copy
            .sorted()
            .expect("sorted")
            .map(|r| r.expect("read").0.2)
            .collect();
        assert_eq!(a, b);
        assert_eq!(a.len(), 95);
    }

    #[test]
    fn a_record_with_the_wrong_number_of_tails_is_an_error() {
        let mut s = SortedRuns::<Head, u64>::new(key, 2, 10, 0);
        let e = s.push((1, 0.0, 0), [1]).expect_err("one tail of two");
        assert!(
            e.to_string()
                .contains("1 tail records among records with 2"),
            "{e}"
        );
    }
}
