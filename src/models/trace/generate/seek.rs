//! One user's row of a synthetic trace, alone, by seeking the generator
//! stream (DESIGN §1.2 "Per-user rows").
//!
//! The draws of a synthetic trace come in a fixed order from one ChaCha8
//! stream (the parent module's docs), and every draw is one `next_u64`, two
//! 32-bit words of the stream. Each model takes 4 draws (its mean: 2, its
//! year: 1, its citations: 1); each (user, model) pair takes
//! `2 + c` draws, `c` = [`cost_draws`] (the accuracy deviation: 2; the
//! cost: 1 for `uniform`, 2 for `lognormal`, 0 for `constant`), the same
//! for every pair. So the draws of user `i` start at draw
//!
//! `start(i) = 4·K + i·K·(2 + c)`
//!
//! and at 32-bit word `2·start(i)` of the stream: [`SynRows::row`] sets the
//! stream there (`set_word_pos`) and replays that user's `K` pairs,
//! bit-identical to the whole trace's sequential pass (a test compares
//! every user of several traces).

use rand_chacha::ChaCha8Rng;

use super::{CostDist, ModelDraw, SynParams, draw_models, draw_runtime, normal};
use crate::core::sim::rng::{self, Purpose};

/// Draws (`next_u64` calls) each model takes before the first user's:
/// a normal (2), the year (1), the citations (1).
const DRAWS_PER_MODEL: u128 = 4;

/// Draws the cost of one pair takes: 1 for `uniform` (even with lo = hi),
/// 2 for `lognormal` (one Box–Muller normal), 0 for `constant`.
pub fn cost_draws(cost: CostDist) -> u128 {
    match cost {
        CostDist::Uniform { .. } => 1,
        CostDist::LogNormal { .. } => 2,
        CostDist::Constant(_) => 0,
    }
}

/// The per-model draws of a synthetic trace and a stream to seek, from
/// which any user's row is produced on its own ([`SynRows::row`]). Holds
/// `O(K)` memory, whatever the number of users.
#[derive(Debug, Clone)]
pub struct SynRows {
    params: SynParams,
    models: Vec<ModelDraw>,
    /// The generator stream at its start (cloned, then sought, per row).
    stream: ChaCha8Rng,
}

impl SynRows {
    /// Draw the per-model values of `p` (which should pass
    /// [`SynParams::validate`]).
    pub fn new(p: &SynParams) -> Self {
        let stream = rng::stream(p.seed, 0, Purpose::Generator);
        let mut first = stream.clone();
        let models = draw_models(p, &mut first);
        Self {
            params: p.clone(),
            models,
            stream,
        }
    }

    /// The generator parameters.
    pub fn params(&self) -> &SynParams {
        &self.params
    }

    /// Number of users.
    pub fn n_users(&self) -> usize {
        self.params.users
    }

    /// Number of models.
    pub fn n_models(&self) -> usize {
        self.params.models
    }

    /// `model_year` per model.
    pub fn model_years(&self) -> Vec<i64> {
        self.models.iter().map(|m| m.year).collect()
    }

    /// `model_citations` per model.
    pub fn model_citations(&self) -> Vec<i64> {
        self.models.iter().map(|m| m.citations).collect()
    }

    /// The per-model draws, in model order.
    pub(super) fn models(&self) -> &[ModelDraw] {
        &self.models
    }

    /// `start(i)` of the module docs: the index of user `i`'s first draw.
    pub fn user_start_draw(&self, user: usize) -> u128 {
        let k = self.params.models as u128;
        DRAWS_PER_MODEL * k + user as u128 * k * (2 + cost_draws(self.params.cost))
    }

    /// User `user`'s row: its accuracy and its runtime in seconds (whole
    /// microseconds, within the bounds) per model, written into the first
    /// `K` entries of `accuracy` and `runtime_s`; bit-identical to the
    /// whole trace's pass (module docs). `user < n_users()`; the slices
    /// hold at least `K` entries.
    pub fn row(&self, user: usize, accuracy: &mut [f64], runtime_s: &mut [f64]) {
        let mut rng = self.stream.clone();
        // 2 words a draw (a `next_u64` reads two 32-bit words).
        rng.set_word_pos(2 * self.user_start_draw(user));
        let p = &self.params;
        for ((m, a), r) in self.models.iter().zip(accuracy).zip(runtime_s) {
            *a = (m.mean + p.user_sd * normal(&mut rng)).clamp(0.0, 1.0);
            *r = draw_runtime(p.cost, &mut rng);
        }
    }
}

#[cfg(test)]
mod tests;
