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

/// Write `env`'s observation, mask and policy action into its slots.
pub fn fill(env: &Core, obs: &mut [f32], mask: &mut [u8], policy: &mut [i64]) {
    env.encode(obs);
    env.mask(mask);
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

/// Step every slot, on `threads` threads (contiguous chunks of slots);
/// the first error in sub-environment order, if any.
pub fn step_all(
    slots: &mut [Slot<'_>],
    stride: u64,
    threads: usize,
) -> std::result::Result<(), StepError> {
    let run = |chunk: &mut [Slot<'_>]| -> std::result::Result<(), StepError> {
        chunk.iter_mut().try_for_each(|s| step_slot(s, stride))
    };
    if threads <= 1 || slots.len() < 2 {
        return run(slots);
    }
    let per = slots.len().div_ceil(threads);
    let results: Vec<std::result::Result<(), StepError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = slots
            .chunks_mut(per)
            .map(|chunk| scope.spawn(move || run(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(StepError::Engine(Error::input(
                        "a stepping thread of the vector environment panicked",
                    )))
                })
            })
            .collect()
    });
    results.into_iter().collect()
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
