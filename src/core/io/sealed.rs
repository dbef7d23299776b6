//! A finished [`Spill`]: a per-run sequence of records that no longer
//! grows, shared by its clones and serialised as the vector it replaces
//! (DESIGN §2.6 "Where a run's curves and rows live", §8.5; issue 34). A
//! run's job log is one (`models::sim::JobLog`): kept with `--jobs`, it
//! was a vector of every job a run started, 40 bytes each (0.8 GB at
//! scale-1m's 21 million jobs); as a spilled sequence it holds
//! [`SEALED_IN_MEMORY`] at most and the rest is on disk until `jobs.csv`
//! has it.
//!
//! - **Built** by appending to a [`Spill`] and sealing it
//!   ([`Sealed::new`]), or from a vector built whole ([`Sealed::from_vec`]:
//!   the shared engine's service log), which it keeps as it is: no copy.
//! - **Read** as a stream in order ([`Sealed::iter`], an I/O error of a
//!   spilled sequence is an item, and the last), one record at its index
//!   ([`Sealed::get`]), whole ([`Sealed::to_vec`]), or as a slice
//!   ([`Sealed::records`]: the vector itself when built from one, read
//!   back otherwise).
//! - **Stored** (the result cache, the shards' raw runs) as a sequence of
//!   its records through their own `Serialize`, exactly the bytes of the
//!   vector it replaced, and read back record by record into a new
//!   spilled sequence, never into a vector of every record.
//! - **Compared** record by record (`PartialEq`); an unreadable record is
//!   unequal to everything.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::spill::{Record, Spill, SpillIter, spill_threshold};
use crate::core::error::{Error, Result};
use crate::core::memory::SEALED_IN_MEMORY;

/// A sequence of records that no longer grows (see the module's
/// documentation). Cheap to clone: the records are shared.
pub struct Sealed<R> {
    records: Arc<Records<R>>,
}

/// Where a sealed sequence's records are.
enum Records<R> {
    /// Appended to a spilled sequence.
    Spill(Spill<R>),
    /// Built whole, kept as given.
    Vec(Vec<R>),
}

impl<R> Clone for Sealed<R> {
    fn clone(&self) -> Self {
        Self {
            records: Arc::clone(&self.records),
        }
    }
}

impl<R: Record> Default for Sealed<R> {
    /// No records.
    fn default() -> Self {
        Self::new(Spill::with_threshold(0))
    }
}

impl<R: Record> Sealed<R> {
    /// `records`, sealed: the room their in-memory vector grew beyond
    /// them is given back (up to as much again as the records: a result
    /// held until it is folded holds its records, not twice their bytes;
    /// DESIGN §8.5).
    pub fn new(mut records: Spill<R>) -> Self {
        records.shrink_memory();
        Self {
            records: Arc::new(Records::Spill(records)),
        }
    }

    /// The records of `v`, in order: `v` itself, kept in memory.
    pub fn from_vec(v: Vec<R>) -> Self {
        Self {
            records: Arc::new(Records::Vec(v)),
        }
    }

    /// Records in the sequence.
    pub fn len(&self) -> usize {
        match &*self.records {
            Records::Spill(s) => usize::try_from(s.len()).unwrap_or(usize::MAX),
            Records::Vec(v) => v.len(),
        }
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes its records hold in memory (a spilled sequence's: its write
    /// buffer).
    pub fn bytes_in_memory(&self) -> usize {
        match &*self.records {
            Records::Spill(s) => s.bytes_in_memory(),
            Records::Vec(v) => v.capacity() * size_of::<R>(),
        }
    }

    /// Whether its records are in a temporary file.
    pub fn is_spilled(&self) -> bool {
        matches!(&*self.records, Records::Spill(s) if s.is_spilled())
    }

    /// The record at index `i` (an error past the end, or an I/O error of
    /// a spilled sequence).
    pub fn get(&self, i: usize) -> Result<R>
    where
        R: Clone,
    {
        match &*self.records {
            Records::Spill(s) => s.get(i as u64),
            Records::Vec(v) => v.get(i).cloned().ok_or_else(|| {
                Error::usage(format!("record {i} of a sequence of {} (a bug)", v.len()))
            }),
        }
    }

    /// Every record, in order, as a stream.
    pub fn iter(&self) -> SealedIter<'_, R> {
        self.iter_range(0, self.len())
    }

    /// The records from index `start` to `end` (not included, both clamped
    /// to the length), in order, as a stream.
    pub fn iter_range(&self, start: usize, end: usize) -> SealedIter<'_, R> {
        match &*self.records {
            Records::Spill(s) => {
                SealedIter::Spill(s.iter_range(start as u64, end as u64, super::spill::READ_BUFFER))
            }
            Records::Vec(v) => {
                let end = end.min(v.len());
                SealedIter::Vec(v[start.min(end)..end].iter())
            }
        }
    }

    /// Every record, read back into a vector.
    pub fn to_vec(&self) -> Result<Vec<R>>
    where
        R: Clone,
    {
        Ok(self.records()?.into_owned())
    }

    /// Every record as a slice: the vector a sequence was built from,
    /// borrowed, or the records read back (a batch computation over a
    /// log reads it once this way, with no copy of the shared engine's).
    pub fn records(&self) -> Result<Cow<'_, [R]>>
    where
        R: Clone,
    {
        match &*self.records {
            Records::Spill(s) => Ok(Cow::Owned(s.to_vec()?)),
            Records::Vec(v) => Ok(Cow::Borrowed(v)),
        }
    }
}

/// The records of a [`Sealed`] sequence, in order.
#[derive(Debug)]
pub enum SealedIter<'a, R> {
    /// Read from a spilled sequence.
    Spill(SpillIter<'a, R>),
    /// Copied out of a vector.
    Vec(std::slice::Iter<'a, R>),
}

impl<R: Record + Clone> Iterator for SealedIter<'_, R> {
    type Item = Result<R>;

    fn next(&mut self) -> Option<Result<R>> {
        match self {
            SealedIter::Spill(s) => s.next(),
            SealedIter::Vec(v) => v.next().cloned().map(Ok),
        }
    }
}

impl<R: Record + Clone + fmt::Debug> fmt::Debug for Sealed<R> {
    /// The records, wherever they live.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_vec() {
            Ok(v) => f.debug_list().entries(&v).finish(),
            Err(e) => write!(f, "Sealed(unreadable: {e})"),
        }
    }
}

impl<R: Record + Clone + PartialEq> PartialEq for Sealed<R> {
    /// The same records in the same order.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.iter().zip(other.iter()).all(|(a, b)| match (a, b) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

impl<R: Record + Clone + Serialize> Serialize for Sealed<R> {
    /// As the vector it replaces: a sequence of records, each through its
    /// own `Serialize`.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for r in self.iter() {
            seq.serialize_element(&r.map_err(S::Error::custom)?)?;
        }
        seq.end()
    }
}

impl<'de, R: Record + Deserialize<'de>> Deserialize<'de> for Sealed<R> {
    /// The sequence [`Serialize`] writes, each record appended as it is
    /// read (past [`SEALED_IN_MEMORY`] to a temporary file).
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{Error as _, SeqAccess, Visitor};
        struct Records<R>(PhantomData<R>);
        impl<'de, R: Record + Deserialize<'de>> Visitor<'de> for Records<R> {
            type Value = Sealed<R>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence of records")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Sealed<R>, A::Error> {
                let threshold = spill_threshold().map_err(A::Error::custom)?;
                let mut s = Spill::with_threshold(threshold.min(SEALED_IN_MEMORY));
                while let Some(r) = seq.next_element::<R>()? {
                    s.push(r).map_err(A::Error::custom)?;
                }
                Ok(Sealed::new(s))
            }
        }
        d.deserialize_seq(Records(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spilled(v: &[u64], threshold: usize) -> Sealed<u64> {
        let mut s = Spill::with_threshold(threshold);
        for &x in v {
            s.push(x).expect("in memory or a temporary file");
        }
        Sealed::new(s)
    }

    /// A sealed sequence in memory holds its records' bytes, not the room
    /// its vector grew to (3,000 records of 8 bytes grew it to 32 KiB).
    #[test]
    fn a_sealed_sequence_gives_back_the_room_its_vector_grew_to() {
        let mut s = Spill::with_threshold(usize::MAX);
        for x in 0..3_000u64 {
            s.push(x).expect("in memory");
        }
        assert!(s.bytes_in_memory() > 3_000 * 8, "grown by doubling");
        let sealed = Sealed::new(s);
        assert_eq!(sealed.bytes_in_memory(), 3_000 * 8);
        assert_eq!(
            sealed.to_vec().expect("in memory"),
            (0..3_000).collect::<Vec<u64>>()
        );
    }

    /// In memory or on disk, the same records, the same bytes stored as
    /// the vector's, and read back to the same records.
    #[test]
    fn a_sealed_sequence_is_stored_as_the_vector_it_replaces() {
        let v: Vec<u64> = (0..5000).map(|i| i * 7 + (i % 3)).collect();
        let mut vec_bytes = Vec::new();
        crate::core::io::codec::encode(&v, &mut vec_bytes).expect("in memory or a temporary file");
        // Spilled at once, after 8 records, never; and a vector kept as it is.
        let sequences = [
            (spilled(&v, 0), true),
            (spilled(&v, 64), true),
            (spilled(&v, 1 << 20), false),
            (Sealed::from_vec(v.clone()), false),
        ];
        for (s, on_disk) in sequences {
            assert_eq!(s.is_spilled(), on_disk);
            assert_eq!(s.to_vec().expect("the job log"), v);
            assert_eq!(s.len(), v.len());
            assert_eq!(s.get(4321).expect("in memory or a temporary file"), v[4321]);
            assert!(s.get(5000).is_err());
            let part: Vec<u64> = s
                .iter_range(10, 20)
                .map(|r| r.expect("in memory or a temporary file"))
                .collect();
            assert_eq!(part, v[10..20]);
            assert_eq!(s.iter_range(4990, 9000).count(), 10);
            let mut bytes = Vec::new();
            crate::core::io::codec::encode(&s, &mut bytes).expect("in memory or a temporary file");
            assert_eq!(bytes, vec_bytes, "spilled: {on_disk}");
            let back: Sealed<u64> =
                crate::core::io::codec::decode(&bytes).expect("in memory or a temporary file");
            assert_eq!(back, s);
            assert_eq!(back.clone().to_vec().expect("the job log"), v);
        }
        assert_ne!(spilled(&v, 0), spilled(&v[1..], 0));
        assert_eq!(Sealed::<u64>::default().len(), 0);
        let kept = Sealed::from_vec(v.clone());
        assert!(matches!(kept.records(), Ok(Cow::Borrowed(r)) if r == v.as_slice()));
        assert_eq!(kept, spilled(&v, 0));
    }
}
