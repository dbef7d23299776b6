//! A job-mode run's segment log (DESIGN §9.5, §8.5; issue 34): every
//! interval a job held GPUs, in the order the intervals ended, written as
//! they end rather than held whole.
//!
//! A preemptive scheduler in rounds records a segment each time a job
//! runs: `max-min-fairness` on Gavel's trace in 360 s rounds about 27 a
//! job (273,160 preemptions of 10,000 jobs, docs/PERFORMANCE.md "The
//! segment log written as segments end"), 46 bytes each. As a vector the
//! log grew with the preemptions, which the memory estimate cannot know
//! before the run; as a [`RecordLog`] (`core::io::record_log`, the
//! mechanism the shared service's kept segments use too) it holds at most
//! [`SEGMENTS_IN_MEMORY`] and the rest is in an unnamed temporary file,
//! sealed at the run's end into the outcome's [`Segments`] and read back
//! as a stream by the metrics. Segments are appended by the engine at
//! preemptions and completions, which return nothing: a failed write is
//! returned when the log is sealed.

use serde::{Deserialize, Serialize};

use crate::core::error::Result;
use crate::core::io::cluster::GpuType;
use crate::core::io::record_log::RecordLog;
use crate::core::io::sealed::Sealed;
use crate::core::io::spill::Record;
use crate::core::memory::SEGMENTS_IN_MEMORY;
use crate::core::sim::time::Micros;

/// One interval during which a job held GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// Job index.
    pub job: u32,
    /// GPUs held.
    pub gpus: u32,
    /// When the GPUs were taken, µs.
    pub start: Micros,
    /// When they were given back, µs.
    pub end: Micros,
    /// Restore time at the start of the segment without progress, µs.
    pub overhead: Micros,
    /// Offset of the segment's per-node allocation in
    /// [`JobOutcome::segment_allocs`](super::JobOutcome::segment_allocs) (only
    /// when recorded).
    pub alloc_offset: u32,
    /// Number of allocation entries (0 when not recorded).
    pub alloc_len: u32,
    /// The GPU type of the segment's GPUs (0 when untyped).
    pub gpu_type: GpuType,
    /// The first node of the segment's allocation (`u32::MAX` when it
    /// held none: a CPU-only or withdrawn job).
    pub node: u32,
}

impl Segment {
    /// Service received in the segment, µs.
    pub fn service(&self) -> Micros {
        self.end - self.start - self.overhead
    }
}

/// A run's segments, sealed ([`JobOutcome::segments`](super::JobOutcome::segments)).
pub type Segments = Sealed<Segment>;

/// A [`Segment`] on file: job, GPUs, start, end, overhead, allocation
/// offset and length, GPU type, first node: 46 bytes.
impl Record for Segment {
    const BYTES: usize = 46;
    fn encode(&self, out: &mut [u8]) {
        self.job.encode(&mut out[0..4]);
        self.gpus.encode(&mut out[4..8]);
        self.start.encode(&mut out[8..16]);
        self.end.encode(&mut out[16..24]);
        self.overhead.encode(&mut out[24..32]);
        self.alloc_offset.encode(&mut out[32..36]);
        self.alloc_len.encode(&mut out[36..40]);
        out[40..42].copy_from_slice(&self.gpu_type.to_le_bytes());
        self.node.encode(&mut out[42..46]);
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            job: u32::decode(&b[0..4]),
            gpus: u32::decode(&b[4..8]),
            start: u64::decode(&b[8..16]),
            end: u64::decode(&b[16..24]),
            overhead: u64::decode(&b[24..32]),
            alloc_offset: u32::decode(&b[32..36]),
            alloc_len: u32::decode(&b[36..40]),
            gpu_type: u16::from_le_bytes([b[40], b[41]]),
            node: u32::decode(&b[42..46]),
        }
    }
}

/// The segments of a run being simulated (see the module's
/// documentation): a [`RecordLog`] of [`Segment`]s.
pub type SegmentLog = RecordLog<Segment>;

impl RecordLog<Segment> {
    /// An empty segment log, in memory up to this process's spill
    /// threshold or [`SEGMENTS_IN_MEMORY`], whichever is smaller.
    pub fn new() -> Result<Self> {
        Self::with_bound(SEGMENTS_IN_MEMORY, "the run's GPU segments")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(k: u32) -> Segment {
        Segment {
            job: k,
            gpus: k % 9,
            start: u64::from(k) * 1_000_003,
            end: u64::from(k) * 1_000_003 + 7 + (u64::from(k) << 20),
            overhead: u64::from(k % 4),
            alloc_offset: k.wrapping_mul(3),
            alloc_len: k % 5,
            gpu_type: (k % 3) as u16 + 0x0101,
            node: if k.is_multiple_of(2) { u32::MAX } else { k },
        }
    }

    /// Every field comes back bit for bit, the largest values included.
    #[test]
    fn a_segment_is_read_back_as_written() {
        let mut all: Vec<Segment> = (0..50).map(segment).collect();
        all.push(Segment {
            job: u32::MAX,
            gpus: u32::MAX,
            start: u64::MAX,
            end: u64::MAX,
            overhead: u64::MAX,
            alloc_offset: u32::MAX,
            alloc_len: u32::MAX,
            gpu_type: u16::MAX,
            node: u32::MAX,
        });
        for s in all {
            let mut b = [0u8; Segment::BYTES];
            s.encode(&mut b);
            assert_eq!(Segment::decode(&b), s);
        }
    }
}
