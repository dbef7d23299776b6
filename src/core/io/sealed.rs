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
//!   ([`Sealed::new`]), or from a vector ([`Sealed::from_vec`], a small
//!   log built whole).
//! - **Read** as a stream in order ([`Sealed::iter`], an I/O error of a
//!   spilled sequence is an item, and the last), one record at its index
//!   ([`Sealed::get`]), or whole ([`Sealed::to_vec`]).
//! - **Stored** (the result cache, the shards' raw runs) as a sequence of
//!   its records through their own `Serialize`, exactly the bytes of the
//!   vector it replaced, and read back record by record into a new
//!   spilled sequence, never into a vector of every record.
//! - **Compared** record by record (`PartialEq`); an unreadable record is
//!   unequal to everything.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::spill::{Record, Spill, SpillIter, spill_threshold};
use crate::core::error::Result;
use crate::core::memory::SEALED_IN_MEMORY;

/// A sequence of records that no longer grows (see the module's
/// documentation). Cheap to clone: the records are shared.
pub struct Sealed<R> {
    records: Arc<Spill<R>>,
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
    /// `records`, sealed.
    pub fn new(records: Spill<R>) -> Self {
        Self {
            records: Arc::new(records),
        }
    }

    /// The records of `v`, in order, in memory up to this process's
    /// spill threshold or [`SEALED_IN_MEMORY`], whichever is smaller.
    pub fn from_vec(v: Vec<R>) -> Result<Self> {
        let mut s = Spill::with_threshold(spill_threshold()?.min(SEALED_IN_MEMORY));
        for r in v {
            s.push(r)?;
        }
        Ok(Self::new(s))
    }

    /// Records in the sequence.
    pub fn len(&self) -> usize {
        usize::try_from(self.records.len()).unwrap_or(usize::MAX)
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether its records are in a temporary file.
    pub fn is_spilled(&self) -> bool {
        self.records.is_spilled()
    }

    /// The record at index `i` (an error past the end, or an I/O error of
    /// a spilled sequence).
    pub fn get(&self, i: usize) -> Result<R> {
        self.records.get(i as u64)
    }

    /// Every record, in order, as a stream.
    pub fn iter(&self) -> SpillIter<'_, R> {
        self.records.iter()
    }

    /// The records from index `start` to `end` (not included), in order,
    /// as a stream.
    pub fn iter_range(&self, start: usize, end: usize) -> SpillIter<'_, R> {
        self.records
            .iter_range(start as u64, end as u64, super::spill::READ_BUFFER)
    }

    /// Every record, read back into a vector.
    pub fn to_vec(&self) -> Result<Vec<R>>
    where
        R: Clone,
    {
        self.records.to_vec()
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

    /// In memory or on disk, the same records, the same bytes stored as
    /// the vector's, and read back to the same records.
    #[test]
    fn a_sealed_sequence_is_stored_as_the_vector_it_replaces() {
        let v: Vec<u64> = (0..5000).map(|i| i * 7 + (i % 3)).collect();
        let mut vec_bytes = Vec::new();
        crate::core::io::codec::encode(&v, &mut vec_bytes).expect("in memory or a temporary file");
        for threshold in [0, 64, 1 << 20] {
            let s = spilled(&v, threshold);
            assert_eq!(s.is_spilled(), threshold < v.len() * 8);
            assert_eq!(s.to_vec().expect("the job log"), v);
            assert_eq!(s.len(), v.len());
            assert_eq!(s.get(4321).expect("in memory or a temporary file"), v[4321]);
            assert!(s.get(5000).is_err());
            let part: Vec<u64> = s
                .iter_range(10, 20)
                .map(|r| r.expect("in memory or a temporary file"))
                .collect();
            assert_eq!(part, v[10..20]);
            let mut bytes = Vec::new();
            crate::core::io::codec::encode(&s, &mut bytes).expect("in memory or a temporary file");
            assert_eq!(bytes, vec_bytes, "threshold {threshold}");
            let back: Sealed<u64> =
                crate::core::io::codec::decode(&bytes).expect("in memory or a temporary file");
            assert_eq!(back, s);
            assert_eq!(back.clone().to_vec().expect("the job log"), v);
        }
        assert_ne!(spilled(&v, 0), spilled(&v[1..], 0));
        assert_eq!(Sealed::<u64>::default().len(), 0);
        assert_eq!(
            Sealed::from_vec(v.clone())
                .expect("in memory or a temporary file")
                .to_vec()
                .expect("the job log"),
            v
        );
    }
}
