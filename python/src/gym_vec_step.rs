//! The stepping of a vector of environments (DESIGN §15.3), on one thread
//! or several: each sub-environment is independent and writes only its
//! own slots of the outputs, so the result does not depend on the number
//! of threads (tested: `python/tests/test_gym.py`).

use tenantsim::models::sim::Choice;
use tenantsim::{Error, Result};

use crate::gym_action::ActionKind;
use crate::gym_core::{Core, StepError};

/// One sub-environment and its slots of the outputs.
pub struct Slot<'a> {
    /// The environment.
    pub env: &'a mut Core,
    /// Its episode ended at the last call: reset it (next-step auto-reset).
    pub to_reset: &'a mut bool,
    /// Its checked choice (`None` when it is reset instead).
    pub choice: Option<Choice>,
    /// Its observation.
    pub obs: &'a mut [f32],
    /// Its mask.
    pub mask: &'a mut [u8],
    /// Its policy action (1 or 2 numbers).
    pub policy: &'a mut [i64],
    /// Its reward.
    pub reward: &'a mut f64,
    /// Whether its episode ended.
    pub terminated: &'a mut u8,
}

/// Bring `env`'s observation and mask in its slots up to date
/// ([`Core::refresh`]: the slots keep them between calls, only what
/// changed is rewritten) and write its policy action.
pub fn fill(env: &mut Core, obs: &mut [f32], mask: &mut [u8], policy: &mut [i64]) {
    env.refresh(obs, mask);
    let (t, model) = env.policy_action();
    policy[0] = t;
    if env.kind() == ActionKind::Pair {
        policy[1] = model;
    }
}

/// Step one slot; `stride` is the number of sub-environments (a reset
/// sub-environment plays its repetition + `stride`).
fn step_slot(s: &mut Slot<'_>, stride: u64) -> std::result::Result<(), StepError> {
    match s.choice {
        None => {
            let rep = s.env.rep() + stride;
            s.env.reset(rep).map_err(StepError::Engine)?;
            *s.to_reset = false;
            *s.reward = 0.0;
            *s.terminated = 0;
        }
        Some(c) => {
            let r = s.env.step_checked(c)?;
            *s.reward = r.reward;
            *s.terminated = u8::from(r.terminated);
            *s.to_reset = r.terminated;
        }
    }
    fill(s.env, s.obs, s.mask, s.policy);
    Ok(())
}

/// The threads that step the sub-environments when there are more than
/// one: a pool started once per vector environment (starting threads at
/// every call would cost more than a step of K sub-environments).
pub fn pool(threads: usize) -> Result<Option<rayon::ThreadPool>> {
    if threads <= 1 {
        return Ok(None);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("tenantsim-gym-{i}"))
        .build()
        .map(Some)
        .map_err(|e| Error::input(format!("could not start {threads} stepping threads: {e}")))
}

/// Step every slot, on the calling thread or on `pool`'s threads (as
/// many contiguous chunks of slots as it has threads); the first error in
/// sub-environment order, if any. Each slot is stepped by one thread and
/// writes only its own outputs, so the result does not depend on the pool.
pub fn step_all(
    slots: &mut [Slot<'_>],
    stride: u64,
    pool: Option<&rayon::ThreadPool>,
) -> std::result::Result<(), StepError> {
    let run = |chunk: &mut [Slot<'_>]| -> std::result::Result<(), StepError> {
        chunk.iter_mut().try_for_each(|s| step_slot(s, stride))
    };
    match pool {
        Some(pool) if slots.len() >= 2 => {
            use rayon::prelude::*;
            let per = slots.len().div_ceil(pool.current_num_threads());
            // Every chunk runs (no early stop), so the error reported is
            // the first in sub-environment order whatever the timing.
            let results: Vec<std::result::Result<(), StepError>> =
                pool.install(|| slots.par_chunks_mut(per).map(run).collect());
            results.into_iter().collect()
        }
        _ => run(slots),
    }
}

/// Check a thread count (1 to 256).
pub fn check_threads(threads: usize) -> Result<usize> {
    if (1..=256).contains(&threads) {
        Ok(threads)
    } else {
        Err(Error::usage(format!(
            "threads: expected 1 to 256 threads stepping the sub-environments, got {threads}"
        )))
    }
}
