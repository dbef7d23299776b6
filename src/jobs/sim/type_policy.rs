//! GPU types as the simulation sees them (DESIGN §11.2): each job's allowed
//! types and its service time on each type ([`JobTypes`]), and the rule
//! that picks the type a job starts on ([`TypePolicy`]).
//!
//! A job's *work* is its reference duration `duration_s` in µs (its
//! [`Job::duration`]); running on type `t`, whose duration for the job is
//! `d_t`, it does `duration / d_t` work units per µs. The remaining work of
//! a preempted job is therefore the fraction of the job not yet done, and
//! it resumes on any type with the right time left:
//! `ceil(remaining × d_t / duration)` µs. With one type `d_t = duration`
//! and work units are µs of service, as before types existed.

use crate::core::io::cluster::GpuType;
use crate::core::sim::time::Micros;
use crate::jobs::trace::Job;

/// How a job's GPU type is chosen among the types it may use (`[[policy]]
/// type_policy`, default `agnostic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TypePolicy {
    /// The placement rule over the nodes of every allowed type, as if types
    /// did not matter (`consolidate`: the best-fit node among them;
    /// `spread`: the lowest type index with enough free GPUs).
    #[default]
    Agnostic,
    /// Among the allowed types with room now, the one on which the job is
    /// fastest (shortest duration; ties: lowest type index).
    Fastest,
    /// Only the job's fastest allowed type (ties: lowest type index) until
    /// it has waited `max_wait` µs since its submission; then as
    /// `Fastest`.
    FastestOrWait {
        /// The wait bound, µs (`max_wait_s`).
        max_wait: Micros,
    },
}

impl TypePolicy {
    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Agnostic => "agnostic",
            Self::Fastest => "fastest",
            Self::FastestOrWait { .. } => "fastest-or-wait",
        }
    }
}

/// Per job: the GPU types it may use (a bit mask over the cluster's types)
/// and its duration on each, µs. Indexed like the jobs of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobTypes {
    types: usize,
    allowed: Vec<u64>,
    duration: Vec<Micros>,
}

impl JobTypes {
    /// Jobs on a cluster of `types` types: `allowed[j]` is job `j`'s mask
    /// (bit `t` = type `t`, at least one bit below `types`) and
    /// `duration[j × types + t]` its duration on type `t`, µs (at least 1).
    pub fn new(types: usize, allowed: Vec<u64>, duration: Vec<Micros>) -> Self {
        debug_assert_eq!(duration.len(), allowed.len() * types);
        Self {
            types,
            allowed,
            duration,
        }
    }

    /// Every job allowed on type 0 only, with its own duration: the one
    /// anonymous type.
    pub fn untyped(jobs: &[Job]) -> Self {
        Self {
            types: 1,
            allowed: vec![1; jobs.len()],
            duration: jobs.iter().map(|j| j.duration).collect(),
        }
    }

    /// Number of types.
    pub fn types(&self) -> usize {
        self.types
    }
    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.allowed.len()
    }
    /// Whether there is no job.
    pub fn is_empty(&self) -> bool {
        self.allowed.is_empty()
    }
    /// The types job `j` may use, as a mask.
    pub fn allowed(&self, j: usize) -> u64 {
        self.allowed[j]
    }
    /// Job `j`'s duration on type `t`, µs.
    pub fn duration(&self, j: usize, t: GpuType) -> Micros {
        self.duration[j * self.types + t as usize]
    }

    /// Job `j`'s fastest type in `mask` (shortest duration, then lowest
    /// index), if `mask` has one.
    pub fn fastest_in(&self, j: usize, mask: u64) -> Option<GpuType> {
        let mut best: Option<(Micros, GpuType)> = None;
        for t in 0..self.types {
            if mask & (1 << t) != 0 {
                let d = self.duration(j, t as GpuType);
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, t as GpuType));
                }
            }
        }
        best.map(|(_, t)| t)
    }

    /// `len` more jobs, each allowed every type with duration 0 on each:
    /// placeholders for a workload's jobs (DESIGN §13), set by
    /// [`JobTypes::pin`] when submitted.
    pub fn extend_placeholders(&mut self, len: usize) {
        self.allowed.resize(self.allowed.len() + len, u64::MAX);
        self.duration
            .resize(self.duration.len() + len * self.types, 0);
    }

    /// Job `j` runs on type `t` only, taking `duration` there (and, in work
    /// units, everywhere: its reference duration is the same).
    pub fn pin(&mut self, j: usize, t: GpuType, duration: Micros) {
        self.allowed[j] = 1 << t;
        self.duration[j * self.types..(j + 1) * self.types].fill(duration);
    }

    /// The jobs at `index` (trace indices), in that order.
    pub fn select(&self, index: &[u32]) -> Self {
        let mut duration = Vec::with_capacity(index.len() * self.types);
        for &i in index {
            let i = i as usize;
            duration.extend_from_slice(&self.duration[i * self.types..(i + 1) * self.types]);
        }
        Self {
            types: self.types,
            allowed: index.iter().map(|&i| self.allowed[i as usize]).collect(),
            duration,
        }
    }
}

/// The service time, µs, of `work` work units of a job whose reference
/// duration is `reference` on a type where it takes `on_type`:
/// `ceil(work × on_type / reference)`.
pub fn time_for_work(work: Micros, reference: Micros, on_type: Micros) -> Micros {
    if on_type == reference {
        return work;
    }
    let num = u128::from(work) * u128::from(on_type);
    let r = u128::from(reference);
    u64::try_from(num.div_ceil(r)).unwrap_or(Micros::MAX)
}

/// The work units done in `elapsed` µs of progress on a type where the job
/// takes `on_type` (reference duration `reference`):
/// `floor(elapsed × reference / on_type)`.
pub fn work_in_time(elapsed: Micros, reference: Micros, on_type: Micros) -> Micros {
    if on_type == reference {
        return elapsed;
    }
    let num = u128::from(elapsed) * u128::from(reference);
    u64::try_from(num / u128::from(on_type)).unwrap_or(Micros::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_units_round_trip_without_overshoot() {
        // A 100 µs job that takes 300 µs on a slow type: 1/3 unit per µs.
        assert_eq!(time_for_work(100, 100, 300), 300);
        assert_eq!(work_in_time(150, 100, 300), 50);
        // 50 units left on a type twice as fast as the reference: 25 µs.
        assert_eq!(time_for_work(50, 100, 50), 25);
        // Rounding: 1 unit on the slow type needs 3 µs; 2 µs do 0 units.
        assert_eq!(time_for_work(1, 100, 300), 3);
        assert_eq!(work_in_time(2, 100, 300), 0);
        // Any elapsed time short of the run does less than the work left.
        for work in 1..50u64 {
            let t = time_for_work(work, 7, 19);
            assert!(work_in_time(t - 1, 7, 19) < work);
            assert!(work_in_time(t, 7, 19) >= work);
        }
    }

    #[test]
    fn fastest_breaks_ties_by_lowest_index_and_select_keeps_rows() {
        let jt = JobTypes::new(3, vec![0b111, 0b110], vec![5, 3, 3, 9, 9, 4]);
        assert_eq!(jt.fastest_in(0, 0b111), Some(1));
        assert_eq!(jt.fastest_in(0, 0b001), Some(0));
        assert_eq!(jt.fastest_in(1, jt.allowed(1)), Some(2));
        assert_eq!(jt.fastest_in(1, 0), None);
        let s = jt.select(&[1]);
        assert_eq!(s.len(), 1);
        assert_eq!(s.duration(0, 2), 4);
        assert_eq!(s.allowed(0), 0b110);
    }
}
