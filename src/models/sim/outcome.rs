//! What one simulation produces.

use serde::{Deserialize, Serialize};

use crate::core::io::sealed::Sealed;
use crate::core::io::spill::Record;
use crate::models::trace::Micros;

/// One job: a (tenant, model) pair run on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    /// Tenant index in the run (see [`Tenants`](super::Tenants)).
    pub tenant: u32,
    /// Trace model index.
    pub model: u32,
    /// Level (index into the pair's fidelities, ascending) the job trains
    /// at; 0 on a plain trace (DESIGN §12.1). A pair has fewer than
    /// `u16::MAX` levels (`MAX_LEVELS`, checked at load), and the narrow
    /// field keeps the record at 40 bytes (the job log is a quarter of the
    /// memory of a million-tenant run, issue 34).
    pub level: u16,
    /// GPU index, from 0.
    pub gpu: u32,
    /// Start time, µs.
    pub start: Micros,
    /// End time, µs (start + runtime).
    pub end: Micros,
    /// Accuracy observed when the job completes.
    pub accuracy: f64,
    /// Whether the job completed within the run (false when the horizon
    /// cut it off; its accuracy was then never observed).
    pub completed: bool,
    /// Whether the job was cancelled because its tenant left (`end` is
    /// then the cancel time).
    pub cancelled: bool,
}

/// Every job a run started, in start order (a job's number is its index).
pub type JobLog = Sealed<JobRecord>;

/// The numbers of the jobs that completed, in the order the engine
/// processed their completions.
pub type CompletionOrder = Sealed<u32>;

/// A [`JobRecord`] on file: tenant, model, level, GPU, start, end,
/// accuracy, then a byte of flags (completed, cancelled): 39 bytes.
impl Record for JobRecord {
    const BYTES: usize = 39;
    fn encode(&self, out: &mut [u8]) {
        // The fields through the spill's own records (`u32`, `u64`, `f64`).
        self.tenant.encode(&mut out[0..4]);
        self.model.encode(&mut out[4..8]);
        out[8..10].copy_from_slice(&self.level.to_le_bytes());
        self.gpu.encode(&mut out[10..14]);
        self.start.encode(&mut out[14..22]);
        self.end.encode(&mut out[22..30]);
        self.accuracy.encode(&mut out[30..38]);
        out[38] = u8::from(self.completed) | u8::from(self.cancelled) << 1;
    }
    fn decode(b: &[u8]) -> Self {
        Self {
            tenant: u32::decode(&b[0..4]),
            model: u32::decode(&b[4..8]),
            level: u16::from_le_bytes([b[8], b[9]]),
            gpu: u32::decode(&b[10..14]),
            start: u64::decode(&b[14..22]),
            end: u64::decode(&b[22..30]),
            accuracy: f64::decode(&b[30..38]),
            completed: b[38] & 1 != 0,
            cancelled: b[38] & 2 != 0,
        }
    }
}

/// The log of one simulation, from which every metric is computed (or,
/// with [`Self::folded`], what was folded from it as the run went).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunOutcome {
    /// Jobs in start order (the job number is the index); in memory while
    /// small, in a temporary file past it ([`JobLog`], written as jobs end: `models/sim/job_log.rs`).
    pub jobs: JobLog,
    /// Indices into `jobs` in the order the engine processed completions.
    pub completion_order: CompletionOrder,
    /// When the run ended, µs: the last event processed, or the horizon.
    pub end: Micros,
    /// GPU-µs of busy time up to `end`.
    pub busy: u128,
    /// On a typed cluster, GPU-µs of busy time up to `end` per GPU type
    /// (empty when untyped).
    pub busy_by_type: Vec<u128>,
    /// GPU-µs of busy time up to `end` of jobs below their pair's top
    /// level (DESIGN §12.2; 0 on a plain trace).
    pub low_fidelity_busy: u128,
    /// Events processed (completions and arrivals).
    pub events: u64,
    /// Number of GPUs at the start.
    pub gpus: u32,
    /// GPU-µs the cluster had up to `end` when GPUs were added or removed
    /// during the run (a what-if, DESIGN §15.4): Σ over the stretches
    /// between changes of (GPUs then × the stretch's length). `None`: the
    /// cluster never changed, and the capacity is `gpus × end`.
    pub capacity: Option<u128>,
    /// Per tenant: when it left for lack of patience (held for the
    /// tenants that left, [`LeftAt`](super::LeftAt)).
    pub left_at: super::LeftAt,
    /// Per tenant: why it ended (`tenants.csv`'s `ended`, DESIGN §12.3)
    /// and whether it hit its GPU-time budget (in runs on disk above
    /// 65,536 tenants, [`EndStates`](super::EndStates)).
    pub end_states: super::EndStates,
    /// Time spent inside the scheduler's and selector's calls (sampled; a
    /// measurement, never part of a result file that must be
    /// reproducible).
    pub policy_clock: crate::core::sim::policy_clock::PolicyClock,
    /// What the run's [`JobSink`](super::JobSink) returned at its end
    /// ([`ModelRun::observe_jobs`](super::ModelRun::observe_jobs)): the
    /// metrics folded online (DESIGN §2.6, §8.5), which the runner takes
    /// instead of computing them from the log. Not serialised: they are
    /// what the result's own fields hold.
    #[serde(skip)]
    pub folded: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

/// A record with every field drawn from `tenant` (the tests' records).
#[cfg(test)]
pub(super) fn sample_record(tenant: u32, start: u64, end: u64) -> JobRecord {
    JobRecord {
        tenant,
        model: tenant * 3 + 1,
        level: (tenant % 5) as u16,
        gpu: tenant % 7,
        start,
        end,
        accuracy: 0.1 * f64::from(tenant) + 1e-17,
        completed: tenant.is_multiple_of(2),
        cancelled: tenant % 3 == 1,
    }
}

#[cfg(test)]
mod tests {
    use super::{JobRecord, Record, sample_record as rec};

    #[test]
    fn a_job_record_reads_back_bit_for_bit() {
        let mut buf = [0u8; JobRecord::BYTES];
        for r in [
            rec(0, 0, 0),
            rec(7, 5, u64::MAX),
            JobRecord {
                tenant: u32::MAX,
                level: u16::MAX,
                gpu: u32::MAX,
                accuracy: f64::NAN,
                completed: true,
                cancelled: true,
                ..rec(9, 1, 2)
            },
        ] {
            r.encode(&mut buf);
            let back = JobRecord::decode(&buf);
            assert_eq!(
                (back.accuracy.to_bits(), back.completed, back.cancelled),
                (r.accuracy.to_bits(), r.completed, r.cancelled)
            );
            assert_eq!(
                (back.tenant, back.model, back.level),
                (r.tenant, r.model, r.level)
            );
            assert_eq!((back.gpu, back.start, back.end), (r.gpu, r.start, r.end));
        }
    }

    /// Issue 34: the job log holds one record per job (20 million in
    /// `scenarios/scale-1m.toml`); a `u32` level made it 48 bytes.
    #[test]
    fn a_job_record_is_40_bytes() {
        assert_eq!(size_of::<JobRecord>(), 40);
    }
}
