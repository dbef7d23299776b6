//! A run's job log (`--jobs`, DESIGN §2.6 "The job log"): every job the run started,
//! in start order, and the order the engine processed their completions,
//! written as jobs end rather than held whole (issue 34).
//!
//! A job's record is final when it ends: at its completion, when its
//! tenant leaves (cancelled), or at the run's end (cut by the horizon).
//! Jobs end in another order than they start, so [`LogBuilder`] holds the
//! records from the oldest job still running to the newest started (a
//! window: one entry a job, empty while it runs) and appends the front of
//! the window to the log as soon as it is final. The log itself is a
//! [`Spill`]: in memory up to [`SEALED_IN_MEMORY`], then in an unnamed
//! temporary file; sealed at the run's end into the outcome's
//! [`JobLog`] and [`CompletionOrder`].
//!
//! What the window holds: the jobs started since the oldest one still
//! running started, at most the whole log (a job that runs from the start
//! to the end of the run holds every later one), in practice about the
//! GPUs times the ratio of the longest runtime to the mean: at most 9,180
//! jobs of scale-1m's 20 million on 2,048 GPUs, 376 of 1,056 on
//! online-lcdb-high-load's 4 GPUs (LCDB's runtimes span four orders of
//! magnitude; docs/PERFORMANCE.md "The job log written as jobs end").
//!
//! The records and their order are those of the whole log kept in a
//! vector, as before (`scripts/compare-with-binary` runs every bundled
//! scenario with `--jobs` against an earlier build). `tests/it/job_log.rs`
//! checks an engine's log against what start order means (with cancelled
//! and cut jobs, and a fork) and `jobs.csv` of a spilled log against one
//! in memory; this file's tests check the window against a brute force.

use std::collections::VecDeque;

use super::outcome::{CompletionOrder, JobLog, JobRecord};
use crate::core::error::{Error, Result};
use crate::core::io::sealed::Sealed;
use crate::core::io::spill::{Spill, spill_threshold};
use crate::core::memory::SEALED_IN_MEMORY;

/// The log of a run being simulated (see the module's documentation).
#[derive(Debug)]
pub(super) struct LogBuilder {
    /// The number of the window's first job: every job before it is in
    /// `records`.
    front: u32,
    /// The records of jobs `front..` in start order, `None` while running.
    window: VecDeque<Option<JobRecord>>,
    /// Per engine job slot: the number of the job in it.
    numbers: Vec<u32>,
    /// The final records, in start order.
    records: Spill<JobRecord>,
    /// Completed jobs' numbers, in the order processed.
    order: Spill<u32>,
}

impl LogBuilder {
    /// An empty log, each sequence in memory up to this process's spill
    /// threshold or [`SEALED_IN_MEMORY`], whichever is smaller.
    pub(super) fn new() -> Result<Self> {
        let threshold = spill_threshold()?.min(SEALED_IN_MEMORY);
        Ok(Self {
            front: 0,
            window: VecDeque::new(),
            numbers: Vec::new(),
            records: Spill::with_threshold(threshold),
            order: Spill::with_threshold(threshold),
        })
    }

    /// A job starts in engine slot `slot`: its number (an error past
    /// 2^32 jobs).
    pub(super) fn started(&mut self, slot: u32) -> Result<u32> {
        let number = u32::try_from(u64::from(self.front) + self.window.len() as u64)
            .map_err(|_| Error::input("more than 2^32 jobs in one run"))?;
        self.window.push_back(None);
        let s = slot as usize;
        if s >= self.numbers.len() {
            self.numbers.resize(s + 1, 0);
        }
        self.numbers[s] = number;
        Ok(number)
    }

    /// The number of the job in engine slot `slot`.
    pub(super) fn number(&self, slot: u32) -> u32 {
        self.numbers[slot as usize]
    }

    /// The job in slot `slot` ended as `rec` says (completed, cancelled,
    /// or cut at the run's end): its record is final. The window's
    /// front, while final, moves to the log.
    pub(super) fn ended(&mut self, slot: u32, rec: &JobRecord) -> Result<()> {
        let at = (self.number(slot) - self.front) as usize;
        self.window[at] = Some(*rec);
        while let Some(Some(r)) = self.window.front() {
            self.records.push(*r)?;
            self.window.pop_front();
            self.front += 1;
        }
        Ok(())
    }

    /// The job in slot `slot` completed (after [`Self::ended`]).
    pub(super) fn completed(&mut self, slot: u32) -> Result<()> {
        self.order.push(self.number(slot))
    }

    /// An independent copy (a fork of the run, DESIGN §15.2).
    pub(super) fn try_clone(&self) -> Result<Self> {
        Ok(Self {
            front: self.front,
            window: self.window.clone(),
            numbers: self.numbers.clone(),
            records: self.records.try_clone()?,
            order: self.order.try_clone()?,
        })
    }

    /// The log and the completion order, once every job has ended (an
    /// error otherwise: a bug).
    pub(super) fn seal(self) -> Result<(JobLog, CompletionOrder)> {
        let running = self.window.iter().filter(|r| r.is_none()).count();
        if running > 0 {
            return Err(Error::input(format!(
                "internal: {running} of the log's jobs never ended"
            )));
        }
        Ok((Sealed::new(self.records), Sealed::new(self.order)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::outcome::sample_record as rec;
    use super::*;

    /// Jobs ending in any order give the log in start order, the
    /// completions in the order told, against a brute force: the records
    /// put at their numbers in a vector.
    #[test]
    fn jobs_ending_out_of_order_are_logged_in_start_order() {
        // Slots reused as the engine reuses them: a slot is free once its
        // job ended. Ends are drawn from a fixed pseudo-random sequence.
        let mut state = 12345u64;
        let mut draw = |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % n
        };
        let mut b = LogBuilder::new().expect("in memory or a temporary file");
        let mut running: Vec<(u32, u32)> = Vec::new(); // (slot, number)
        let mut free: Vec<u32> = Vec::new();
        let mut next_slot = 0;
        let mut want: Vec<Option<JobRecord>> = Vec::new();
        let mut want_order = Vec::new();
        // Jobs that ended while an earlier one still ran (held back).
        let mut held_back = 0;
        for step in 0..3000u64 {
            if running.len() < 40 && (running.is_empty() || draw(3) > 0) {
                let slot = free.pop().unwrap_or_else(|| {
                    next_slot += 1;
                    next_slot - 1
                });
                let n = b.started(slot).expect("in memory or a temporary file");
                assert_eq!(n as usize, want.len());
                want.push(None);
                running.push((slot, n));
            } else {
                let (slot, n) = running.swap_remove(draw(running.len()));
                held_back += usize::from(running.iter().any(|&(_, m)| m < n));
                let r = rec(n, step, step + 1);
                b.ended(slot, &r).expect("in memory or a temporary file");
                if r.completed {
                    b.completed(slot).expect("in memory or a temporary file");
                    want_order.push(n);
                }
                want[n as usize] = Some(r);
                free.push(slot);
            }
        }
        for (slot, n) in running {
            let r = rec(n, 0, 1);
            b.ended(slot, &r).expect("in memory or a temporary file");
            want[n as usize] = Some(r);
        }
        assert!(held_back > 1000, "{held_back} jobs held back");
        let copy = b.try_clone().expect("in memory or a temporary file");
        let (log, order) = b.seal().expect("in memory or a temporary file");
        let want: Vec<JobRecord> = want
            .into_iter()
            .map(|r| r.expect("every job ended"))
            .collect();
        assert_eq!(log.to_vec().expect("the job log"), want);
        assert_eq!(order.to_vec().expect("the job log"), want_order);
        let (log2, order2) = copy.seal().expect("in memory or a temporary file");
        assert_eq!((log2, order2), (log, order));
    }

    #[test]
    fn a_log_with_a_job_still_running_is_not_sealed() {
        let mut b = LogBuilder::new().expect("in memory or a temporary file");
        b.started(0).expect("in memory or a temporary file");
        b.started(1).expect("in memory or a temporary file");
        b.ended(1, &rec(1, 0, 1))
            .expect("in memory or a temporary file");
        let e = b.seal().expect_err("refused").to_string();
        assert!(e.contains("1 of the log's jobs never ended"), "{e}");
    }
}
