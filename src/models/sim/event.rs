//! The events of a model-selection simulation and their order at an
//! instant (DESIGN §2.4).

/// Event kinds, in the order they are processed at one instant (DESIGN §2.4:
/// completions, then arrivals, then free GPUs are filled). A patience
/// deadline comes after both, so a job completing exactly at the deadline
/// counts as in time.
pub(super) const COMPLETION: u8 = 0;
pub(super) const ARRIVAL: u8 = 1;
pub(super) const PATIENCE: u8 = 2;

/// An event of the model-selection simulation.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// Job number `job` completes.
    Completion {
        /// Index into the job log.
        job: u32,
    },
    /// Tenant `tenant` arrives.
    Arrival {
        /// Tenant index.
        tenant: u32,
    },
    /// Tenant `tenant`'s patience runs out: it leaves if it has no
    /// completed job.
    Patience {
        /// Tenant index.
        tenant: u32,
    },
}
