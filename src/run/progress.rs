//! What a run tells an observer about its progress ([`Progress`]); the
//! command line's bar is one observer, [`NoProgress`] the silent one.

/// What a run tells about its progress. Every method has a default that
/// does nothing; nothing an observer does feeds back into a simulation.
pub trait Progress: Sync {
    /// The run is about to simulate `total` tasks (repetition × policy,
    /// over every sweep point; a shard's own tasks).
    fn start(&self, total: u64) {
        let _ = total;
    }

    /// One more task finished (called from the worker threads).
    fn task_done(&self) {}

    /// The tasks are done (or the run stopped).
    fn finish(&self) {}
}

/// The observer that observes nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
