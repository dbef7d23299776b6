//! A log a simulation appends records to as they happen and seals at its
//! end (DESIGN §8.5; issue 34): in memory up to a bound, in an unnamed
//! temporary file past it, so what it holds does not grow with what the
//! run does.
//!
//! Two logs are of this kind: a job-mode run's segments
//! (`jobs::sim::segment_log`: every interval a job held GPUs, which a
//! preemptive scheduler records about 27 times a job on Gavel's trace)
//! and the shared service's segments kept for `service/jobs.csv`
//! (`shared::sim::outcome`). Nothing knows before the run how many
//! records either gets; as a vector each grew with the preemptions, as a
//! [`RecordLog`] each holds at most its bound and the rest is on disk
//! until it is read back, as a stream, from the [`Sealed`] sequence it
//! becomes.
//!
//! Records are appended where nothing can return an error (an engine's
//! preemptions and completions): a failed write is kept and returned when
//! the log is sealed (the run then fails with it), and a copy of a spilled
//! log (a fork of the run, DESIGN §15.5) that fails is returned the same
//! way.

use super::sealed::Sealed;
use super::spill::{Record, Spill, spill_threshold};
use crate::core::error::{Error, Result};

/// Records appended by a run being simulated (see the module's
/// documentation).
#[derive(Debug)]
pub struct RecordLog<R> {
    records: Spill<R>,
    /// The first write or copy that failed (the records since are lost).
    failure: Option<Error>,
    /// What the records are, for the failure's message ("the run's GPU
    /// segments").
    what: &'static str,
}

impl<R: Record> Default for RecordLog<R> {
    /// An empty log that never spills: the stand-in a planning copy of a
    /// run's state appends to (its records are dropped with it).
    fn default() -> Self {
        Self {
            records: Spill::with_threshold(usize::MAX),
            failure: None,
            what: "records",
        }
    }
}

impl<R: Record + Clone> Clone for RecordLog<R> {
    /// An independent copy (a fork of the run): a spilled log is copied
    /// into a file of its own; a failure to is returned by [`Self::seal`].
    fn clone(&self) -> Self {
        let mut failure = self.failure.clone();
        let records = self.records.copy_or_empty(&mut failure);
        Self {
            records,
            failure,
            what: self.what,
        }
    }
}

impl<R: Record> RecordLog<R> {
    /// An empty log of `what`, in memory up to `in_memory` bytes or this
    /// process's spill threshold, whichever is smaller.
    pub fn with_bound(in_memory: usize, what: &'static str) -> Result<Self> {
        Ok(Self {
            records: Spill::with_threshold(spill_threshold()?.min(in_memory)),
            failure: None,
            what,
        })
    }

    /// Append `r` (a failure is kept for [`Self::seal`]).
    pub fn push(&mut self, r: R) {
        if self.failure.is_none()
            && let Err(e) = self.records.push(r)
        {
            self.failure = Some(e);
        }
    }

    /// The log, or the first failure to write or copy it.
    pub fn seal(self) -> Result<Sealed<R>> {
        match self.failure {
            Some(e) => Err(e.context(self.what)),
            None => Ok(Sealed::new(self.records)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log past its threshold is in a file; it, a copy made while it
    /// grew (a fork) and the same log kept in memory hold the same
    /// records in order.
    #[test]
    fn a_spilled_log_and_its_copy_hold_what_was_appended() {
        let mut spilled = RecordLog::<u64> {
            records: Spill::with_threshold(10 * u64::BYTES),
            failure: None,
            what: "numbers",
        };
        let mut kept = RecordLog::default();
        let mut copy = None;
        let value = |k: u64| k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for k in 0..5_000 {
            spilled.push(value(k));
            kept.push(value(k));
            if k == 2_500 {
                copy = Some(spilled.clone());
            }
        }
        let mut copy = copy.expect("copied half way");
        for k in 2_501..5_000 {
            copy.push(value(k));
        }
        let (spilled, kept, copy) = (
            spilled.seal().expect("a temporary file"),
            kept.seal().expect("in memory"),
            copy.seal().expect("a temporary file"),
        );
        assert!(spilled.is_spilled() && copy.is_spilled() && !kept.is_spilled());
        let want: Vec<u64> = (0..5_000).map(value).collect();
        assert_eq!(spilled.to_vec().expect("read back"), want);
        assert_eq!(copy.to_vec().expect("read back"), want);
        assert_eq!(kept.to_vec().expect("in memory"), want);
    }

    /// A failure to write is what sealing returns, naming the records.
    #[test]
    fn a_failed_write_is_returned_when_sealed() {
        let mut log = RecordLog::<u64> {
            failure: Some(Error::input("disk full")),
            what: "the run's numbers",
            ..RecordLog::default()
        };
        log.push(1);
        let e = log.seal().expect_err("the failure").to_string();
        assert!(
            e.contains("disk full") && e.contains("the run's numbers"),
            "{e}"
        );
    }

    /// A log made with a bound keeps at most that many bytes in memory.
    #[test]
    fn a_bounded_log_moves_to_a_file_past_its_bound() {
        let mut log = RecordLog::<u64>::with_bound(64 * u64::BYTES, "numbers").expect("a log");
        for k in 0..64 {
            log.push(k);
        }
        // (In memory unless `TENANTSIM_SPILL_BYTES` sets a smaller
        // threshold for this process: the smaller of the two counts.)
        let threshold = spill_threshold().expect("a threshold");
        assert_eq!(log.records.is_spilled(), threshold < 64 * u64::BYTES);
        for k in 64..200 {
            log.push(k);
        }
        let sealed = log.seal().expect("sealed");
        assert!(sealed.is_spilled());
        assert_eq!(
            sealed.to_vec().expect("read back"),
            (0..200).collect::<Vec<u64>>()
        );
    }
}
