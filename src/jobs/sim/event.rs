//! The events of the job simulation and their kinds: the kind orders the
//! events of one instant (completions, arrivals, timers, waits over, then
//! round boundaries, DESIGN §9 and §11.3). A leaf: the simulation and the
//! rounds both push these events.

pub(super) const COMPLETION: u8 = 0;
pub(super) const ARRIVAL: u8 = 1;
pub(super) const TIMER: u8 = 2;
pub(super) const WAIT_OVER: u8 = 3;

/// Event kind of a round boundary (after completions 0, arrivals 1,
/// timers 2 and wait bounds 3).
pub(super) const BOUNDARY: u8 = 4;

/// An event of the job simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobEvent {
    /// A run of `job` ends with the job's last service; stale unless `run`
    /// is the job's current run number.
    Completion {
        /// Job index.
        job: u32,
        /// Run number when scheduled.
        run: u32,
    },
    /// `job` is submitted.
    Arrival {
        /// Job index.
        job: u32,
    },
    /// The scheduler asked to be told when `job` reaches a service level
    /// (e.g. a LAS queue threshold); stale unless `run` is current.
    Timer {
        /// Job index.
        job: u32,
        /// Run number when scheduled.
        run: u32,
    },
    /// `job` has waited its `fastest-or-wait` bound: it may now start on
    /// any allowed type (a pass runs if it is still waiting).
    WaitOver {
        /// Job index.
        job: u32,
    },
    /// A round boundary ([`super::rounds`]); stale unless `seq` is the
    /// pending boundary's.
    Boundary {
        /// Sequence number when scheduled.
        seq: u32,
    },
    /// An event of the workload beside the trace ([`super::workload`]),
    /// handed to it as it is.
    Workload {
        /// What the workload says it is.
        tag: u8,
        /// Its datum (e.g. a tenant).
        data: u32,
    },
}
