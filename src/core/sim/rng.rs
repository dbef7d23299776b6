//! Deterministic random streams (DESIGN §5).
//!
//! Every random choice draws from a ChaCha8 stream whose 256-bit seed is
//! derived only from `(scenario seed, repetition, purpose)`. Nothing is
//! shared between repetitions or threads, so results do not depend on the
//! thread count or the order in which repetitions run.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The RNG type used everywhere in the simulator.
pub type SimRng = ChaCha8Rng;

/// What a stream is used for; each purpose gets an independent stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Splitting users into prior users and tenants.
    Split = 1,
    /// Tenant arrival times.
    Arrivals = 2,
    /// The user scheduler's own choices (e.g. `random`).
    Scheduler = 3,
    /// The model selector's own choices (e.g. `random`).
    Selector = 4,
    /// Trace generation (`gen syn`).
    Generator = 5,
    /// A workflow step attempt's failure draws (DESIGN §14.4), one stream
    /// per (workflow, step, attempt): [`stream_for`].
    Failure = 6,
    /// The order in which tenants arrive when it is drawn as they arrive
    /// (`[arrivals] order = "streamed"`, DESIGN §2.8).
    ArrivalOrder = 7,
}

/// A uniform integer in `0..n` (`n > 0`) from `rng`: rand 0.8's
/// `gen_range(0..n)` (widening multiply with rejection). The built-in
/// `random` scheduler and selector draw with it, and so do policies
/// written in Python (`self.rng.below(n)`), so a re-implementation of
/// those policies replays the same draws. `n == 0` gives 0 without a draw.
pub fn below(rng: &mut SimRng, n: usize) -> usize {
    if n == 0 { 0 } else { rng.gen_range(0..n) }
}

/// A uniform float in `[0, 1)` from `rng` (53 random bits).
pub fn unit(rng: &mut SimRng) -> f64 {
    rng.r#gen::<f64>()
}

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective mix of 64 bits.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for `(seed, repetition, purpose)`.
pub fn stream(seed: u64, repetition: u64, purpose: Purpose) -> SimRng {
    let mut key = [0u8; 32];
    let mut h = splitmix64(seed);
    h = splitmix64(h ^ repetition);
    h = splitmix64(h ^ purpose as u64);
    for chunk in key.chunks_exact_mut(8) {
        h = splitmix64(h);
        chunk.copy_from_slice(&h.to_le_bytes());
    }
    ChaCha8Rng::from_seed(key)
}

/// The stream for `(seed, repetition, purpose, ids...)`: [`stream`]'s
/// derivation with each id mixed in after the purpose (`h ←
/// splitmix64(h ⊕ id)`), so every (workflow, step, attempt) of a run has
/// its own stream, whatever else the run draws.
pub fn stream_for(seed: u64, repetition: u64, purpose: Purpose, ids: &[u64]) -> SimRng {
    let mut key = [0u8; 32];
    let mut h = splitmix64(seed);
    h = splitmix64(h ^ repetition);
    h = splitmix64(h ^ purpose as u64);
    for &id in ids {
        h = splitmix64(h ^ id);
    }
    for chunk in key.chunks_exact_mut(8) {
        h = splitmix64(h);
        chunk.copy_from_slice(&h.to_le_bytes());
    }
    ChaCha8Rng::from_seed(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a = stream(7, 3, Purpose::Split).next_u64();
        assert_eq!(a, stream(7, 3, Purpose::Split).next_u64());
        assert_ne!(a, stream(7, 4, Purpose::Split).next_u64());
        assert_ne!(a, stream(7, 3, Purpose::Arrivals).next_u64());
        assert_ne!(a, stream(8, 3, Purpose::Split).next_u64());
    }

    #[test]
    fn keyed_streams_are_reproducible_distinct_and_extend_the_plain_one() {
        let f = |ids: &[u64]| stream_for(7, 3, Purpose::Failure, ids).next_u64();
        assert_eq!(f(&[1, 2, 0]), f(&[1, 2, 0]));
        assert_ne!(f(&[1, 2, 0]), f(&[1, 2, 1]));
        assert_ne!(f(&[1, 2, 0]), f(&[2, 1, 0]));
        assert_eq!(f(&[]), stream(7, 3, Purpose::Failure).next_u64());
    }
}
