//! Running tasks on a thread pool and folding their results in task order,
//! whatever the thread count (DESIGN §5).

use rayon::prelude::*;

use crate::core::error::{Error, Result};

/// A rayon pool of `threads` workers (default: all cores).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::input(format!("cannot start {threads} worker threads: {e}")))
}

/// Compute `task(k)` for k in `0..total` on `pool` and hand the results to
/// `sink` in order of k, whatever the thread count: tasks run in chunks of
/// `chunk`, and one chunk is folded (on one worker) while the next is
/// computed (on the others), so at most two chunks of results are held.
/// Stops with an error between tasks once an interrupt was requested.
pub fn fold_in_order<T: Send>(
    pool: &rayon::ThreadPool,
    total: u64,
    chunk: usize,
    task: &(dyn Fn(u64) -> Result<T> + Sync),
    sink: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<()> {
    let run = |k: u64| {
        if crate::core::interrupt::requested() {
            return Err(Error::interrupted(
                "interrupted: the run stopped before finishing; no results were written",
            ));
        }
        task(k)
    };
    let chunk = chunk.max(1) as u64;
    let mut ready: Vec<T> = Vec::new();
    let mut from = 0u64;
    while from < total {
        let to = total.min(from.saturating_add(chunk));
        let (computed, folded) = pool.install(|| {
            rayon::join(
                || {
                    (from..to)
                        .into_par_iter()
                        .map(run)
                        .collect::<Result<Vec<_>>>()
                },
                || ready.drain(..).try_for_each(&mut *sink),
            )
        });
        folded?;
        ready = computed?;
        from = to;
    }
    ready.into_iter().try_for_each(sink)
}
