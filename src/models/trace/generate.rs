//! Synthetic traces (`gen syn`), after the ease.ml SYN workload.
//!
//! The model, for `K` models and `N` users:
//! - model means `a_k ~ N(0.5, S²)` (`S` = `model_sd`), k = 0..K;
//! - accuracy of user `i` on model `k`: `A[i,k] ~ N(a_k, U²)` (`U` =
//!   `user_sd`), independent, clipped to [0, 1];
//! - runtime of each pair drawn independently from [`CostDist`]
//!   (default `uniform(0,2)`, mean 1 s), then rounded to whole microseconds
//!   (the engine's resolution) and kept within
//!   [[`RUNTIME_FLOOR_S`], [`MAX_RUNTIME_S`]]: a draw below 1 µs (possible
//!   with `uniform(0,…)`, with probability about 2.5e-7 per pair for the
//!   default) becomes 1 µs, so every runtime is > 0 as DESIGN §1.1 requires;
//! - synthetic model metadata, so the `most-recent` / `most-cited`
//!   heuristics can run: `model_year` uniform over 2000..=2020 and
//!   `model_citations = floor(10^(4v))`, v ~ U[0,1) (log-uniform over
//!   1..=9999), drawn independently of accuracy. They are made up: they
//!   carry no information about accuracy, so those heuristics act as fixed
//!   arbitrary orders on a synthetic trace.
//!
//! Every trace has all N·K pairs. Users are `u0…`, models `m0…`, zero-padded
//! to equal width (`u00…u99` for 100 users).
//!
//! Randomness and platform independence: all draws come, in a fixed order,
//! from one ChaCha8 stream `rng::stream(seed, 0, Purpose::Generator)`.
//! A uniform is `(next_u64() >> 11) · 2⁻⁵³` in [0, 1). A normal is one
//! Box–Muller draw from two consecutive uniforms `u1, u2`:
//! `z = sqrt(−2 ln(1 − u1)) · cos(2π u2)` (the sine partner is not used).
//! `ln`, `cos`, `exp` and `pow` come from the pure-Rust `libm` crate rather
//! than the platform's C library, so the same seed gives bit-identical
//! traces on every platform. Draw order: for each model k in order, `a_k`
//! (two uniforms), year (one), citations (one); then for each user i, for
//! each model k: the accuracy deviation (two uniforms), then the cost (two
//! uniforms for `lognormal`, one for `uniform`, none for `constant`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rand::RngCore;
use rayon::prelude::*;

use sha2::{Digest, Sha256};

use super::csv_write::{CSV_HEADER_WITH_METADATA, push_csv_row_parts, push_row_tail};
use super::{MAX_RUNTIME_S, RUNTIME_FLOOR_S, TraceRow, write_trace};
use crate::core::error::{Error, Result};
use crate::core::io::csv_text::csv_field;
use crate::core::run::identity::hex;
use crate::core::sim::rng::{self, Purpose, SimRng};

mod seek;
pub use seek::{SynRows, cost_draws};

/// First `model_year` drawn.
pub const YEAR_MIN: i64 = 2000;
/// Last `model_year` drawn.
pub const YEAR_MAX: i64 = 2020;
/// `model_citations` lie in `1..CITATIONS_BOUND`.
pub const CITATIONS_BOUND: i64 = 10_000;
/// Most users, and most models, of a generated trace: they are indexed as
/// 32-bit numbers (`crate::core::limits::MAX_TRACE_INDEX`). How many pairs
/// is bounded by memory instead: `gen syn` and every scenario check their
/// estimate against the machine's memory or `--max-memory` (issue 34).
pub const MAX_INDEX: usize = u32::MAX as usize;

/// The distribution of per-pair runtimes, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CostDist {
    /// Uniform over [lo, hi).
    Uniform {
        /// Lower bound (≥ 0).
        lo: f64,
        /// Upper bound (≥ lo, > 0).
        hi: f64,
    },
    /// `exp(N(mu, sigma²))`.
    LogNormal {
        /// Mean of the log.
        mu: f64,
        /// Standard deviation of the log (≥ 0).
        sigma: f64,
    },
    /// Every pair takes this many seconds (> 0).
    Constant(f64),
}

impl Default for CostDist {
    fn default() -> Self {
        Self::Uniform { lo: 0.0, hi: 2.0 }
    }
}

impl fmt::Display for CostDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Uniform { lo, hi } => write!(f, "uniform({lo},{hi})"),
            Self::LogNormal { mu, sigma } => write!(f, "lognormal({mu},{sigma})"),
            Self::Constant(c) => write!(f, "constant({c})"),
        }
    }
}

const COST_SYNTAX: &str = "expected uniform(LO,HI), lognormal(MU,SIGMA) or constant(SECONDS)";

impl FromStr for CostDist {
    type Err = Error;

    /// Parse `uniform(0,2)`, `lognormal(0,1)` or `constant(1)` (name
    /// case-insensitive, spaces allowed) and check the parameters.
    fn from_str(s: &str) -> Result<Self> {
        let bad = |why: String| Error::usage(format!("cost `{s}`: {why}"));
        let t = s.trim();
        let (name, rest) = t
            .split_once('(')
            .ok_or_else(|| bad(COST_SYNTAX.to_string()))?;
        let inner = rest
            .trim_end()
            .strip_suffix(')')
            .ok_or_else(|| bad(format!("missing `)`: {COST_SYNTAX}")))?;
        let mut args = Vec::new();
        for a in inner.split(',') {
            let a = a.trim();
            match a.parse::<f64>() {
                Ok(v) if v.is_finite() => args.push(v),
                _ => return Err(bad(format!("`{a}` is not a finite number"))),
            }
        }
        let name = name.trim().to_ascii_lowercase();
        let want = |n: usize, names: &str| {
            if args.len() == n {
                Ok(())
            } else {
                Err(bad(format!(
                    "{name} takes {n} number(s) ({names}), got {}",
                    args.len()
                )))
            }
        };
        let dist = match name.as_str() {
            "uniform" => {
                want(2, "lo, hi")?;
                Self::Uniform {
                    lo: args[0],
                    hi: args[1],
                }
            }
            "lognormal" => {
                want(2, "mu, sigma")?;
                Self::LogNormal {
                    mu: args[0],
                    sigma: args[1],
                }
            }
            "constant" => {
                want(1, "seconds")?;
                Self::Constant(args[0])
            }
            _ => return Err(bad(format!("unknown distribution `{name}`: {COST_SYNTAX}"))),
        };
        dist.validate().map_err(|e| bad(e.message().to_string()))?;
        Ok(dist)
    }
}

impl CostDist {
    /// A bound on the mean of a drawn runtime, seconds: the distribution's
    /// mean plus the floor (a draw is `clamp(x, RUNTIME_FLOOR_S,
    /// MAX_RUNTIME_S)` of `x`, at most `x + RUNTIME_FLOOR_S`): uniform
    /// (lo + hi)/2, lognormal exp(μ + σ²/2), constant c. Used by the memory
    /// estimate's tenants present at once (DESIGN §8.5), where more is the
    /// safe side.
    pub fn mean_bound_s(&self) -> f64 {
        let mean = match *self {
            Self::Uniform { lo, hi } => 0.5 * (lo + hi),
            Self::LogNormal { mu, sigma } => libm::exp(mu + 0.5 * sigma * sigma),
            Self::Constant(c) => c,
        };
        mean + RUNTIME_FLOOR_S
    }

    /// Check the parameters (usage error naming the rule broken).
    pub fn validate(&self) -> Result<()> {
        let ok = match *self {
            Self::Uniform { lo, hi } => {
                if !(lo.is_finite() && hi.is_finite() && lo >= 0.0 && lo <= hi && hi > 0.0) {
                    return Err(Error::usage(format!(
                        "uniform({lo},{hi}): expected 0 <= lo <= hi and hi > 0"
                    )));
                }
                hi <= MAX_RUNTIME_S
            }
            Self::LogNormal { mu, sigma } => {
                if !(mu.is_finite() && sigma.is_finite() && sigma >= 0.0) {
                    return Err(Error::usage(format!(
                        "lognormal({mu},{sigma}): expected a finite mu and sigma >= 0"
                    )));
                }
                true
            }
            Self::Constant(c) => c.is_finite() && c > 0.0 && c <= MAX_RUNTIME_S,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::usage(format!(
                "{self}: runtimes must be > 0 and <= {MAX_RUNTIME_S:e} s"
            )))
        }
    }
}

/// Parameters of a synthetic trace (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct SynParams {
    /// Number of users N.
    pub users: usize,
    /// Number of models K.
    pub models: usize,
    /// S: standard deviation of the model means around 0.5.
    pub model_sd: f64,
    /// U: standard deviation of a user's accuracy around the model mean.
    pub user_sd: f64,
    /// Per-pair runtime distribution.
    pub cost: CostDist,
    /// Seed of the generator stream.
    pub seed: u64,
}

impl Default for SynParams {
    fn default() -> Self {
        Self {
            users: 100,
            models: 100,
            model_sd: 0.1,
            user_sd: 0.05,
            cost: CostDist::default(),
            seed: 0,
        }
    }
}

/// How messages about the generator's parameters name them: as `gen
/// syn`'s flags ([`SynNames::FLAGS`]) or as a scenario's `[trace.syn]`
/// keys ([`SynNames::KEYS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynNames {
    /// Before every message (`gen syn: `).
    pub prefix: &'static str,
    /// Before the value of `model_sd`, `user_sd`, `fidelities`.
    pub model_sd: &'static str,
    /// See `model_sd`.
    pub user_sd: &'static str,
    /// See `model_sd`.
    pub fidelities: &'static str,
}

impl SynNames {
    /// `gen syn`'s flags: "gen syn: --model-sd -1: expected …".
    pub const FLAGS: Self = Self {
        prefix: "gen syn: ",
        model_sd: "--model-sd ",
        user_sd: "--user-sd ",
        fidelities: "--fidelities ",
    };
    /// A scenario's `[trace.syn]` keys (the caller names the table):
    /// "model_sd = -1: expected …".
    pub const KEYS: Self = Self {
        prefix: "",
        model_sd: "model_sd = ",
        user_sd: "user_sd = ",
        fidelities: "fidelities = ",
    };
}

impl SynParams {
    /// Check the parameters: at least one user and model, at most
    /// [`MAX_INDEX`] of each, finite non-negative SDs, a valid cost; the
    /// messages name `gen syn`'s flags.
    pub fn validate(&self) -> Result<()> {
        self.validate_named(SynNames::FLAGS)
    }

    /// [`SynParams::validate`], the messages naming the parameters as
    /// `names` does.
    pub fn validate_named(&self, names: SynNames) -> Result<()> {
        let prefix = names.prefix;
        if self.users == 0 || self.models == 0 {
            return Err(Error::usage(format!(
                "{prefix}expected at least 1 user and 1 model, got {} users and {} models",
                self.users, self.models
            )));
        }
        if self.users > MAX_INDEX || self.models > MAX_INDEX {
            return Err(Error::usage(format!(
                "{prefix}{} users x {} models: expected at most {MAX_INDEX} of each (32-bit indices)",
                self.users, self.models
            )));
        }
        for (name, v) in [
            (names.model_sd, self.model_sd),
            (names.user_sd, self.user_sd),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::usage(format!(
                    "{prefix}{name}{}: expected a finite number >= 0",
                    crate::core::io::echo::shown_number(v)
                )));
            }
        }
        self.cost.validate()
    }
}

/// Uniform in [0, 1) with 53 random bits.
pub(crate) fn uniform(rng: &mut SimRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Standard normal by Box–Muller (cosine branch) from two uniforms.
pub(crate) fn normal(rng: &mut SimRng) -> f64 {
    let u1 = 1.0 - uniform(rng); // (0, 1]: ln is finite
    let u2 = uniform(rng);
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2)
}

/// Draw one runtime and bring it to whole microseconds within the bounds.
fn draw_runtime(cost: CostDist, rng: &mut SimRng) -> f64 {
    let c = match cost {
        CostDist::Uniform { lo, hi } => lo + (hi - lo) * uniform(rng),
        CostDist::LogNormal { mu, sigma } => libm::exp(mu + sigma * normal(rng)),
        CostDist::Constant(c) => c,
    };
    let us = (c * 1e6).round() / 1e6;
    us.clamp(RUNTIME_FLOOR_S, MAX_RUNTIME_S)
}

/// The per-model draws.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ModelDraw {
    mean: f64,
    year: i64,
    citations: i64,
}

fn draw_models(p: &SynParams, rng: &mut SimRng) -> Vec<ModelDraw> {
    (0..p.models)
        .map(|_| {
            let mean = 0.5 + p.model_sd * normal(rng);
            let span = (YEAR_MAX - YEAR_MIN + 1) as f64;
            let year = YEAR_MIN + (uniform(rng) * span) as i64;
            let citations =
                (libm::pow(10.0, 4.0 * uniform(rng)) as i64).clamp(1, CITATIONS_BOUND - 1);
            ModelDraw {
                mean,
                year,
                citations,
            }
        })
        .collect()
}

/// `prefix` and `i`, zero-padded to the width of the largest index `n − 1`
/// (`padded_id("u", 7, 100)` = `u07`).
pub fn padded_id(prefix: &str, i: usize, n: usize) -> String {
    let mut id = String::new();
    push_padded_id(&mut id, prefix, i, n);
    id
}

/// Append [`padded_id`]`(prefix, i, n)` to `out`, allocating nothing
/// beyond `out`'s growth (the hash of a generated trace writes one a user).
pub fn push_padded_id(out: &mut String, prefix: &str, i: usize, n: usize) {
    use std::fmt::Write as _;
    // The digits of n − 1 (at least 1), as `to_string().len()` counts them.
    let (mut width, mut rest) = (1, n.saturating_sub(1).max(1) / 10);
    while rest > 0 {
        width += 1;
        rest /= 10;
    }
    let _ = write!(out, "{prefix}{i:0width$}");
}

/// Every draw of a synthetic trace in the documented order: the per-model
/// draws (returned), then `pair(i, k, model_draw, accuracy, runtime_s)` for
/// each user i and, within it, each model k in order. The one place the
/// draw order lives: [`generate_syn`] and [`generate_syn_trace`](super::generate_syn_trace) both call
/// it.
fn draw_pairs(
    p: &SynParams,
    mut pair: impl FnMut(usize, usize, &ModelDraw, f64, f64),
) -> Vec<ModelDraw> {
    let mut rng = rng::stream(p.seed, 0, Purpose::Generator);
    let models = draw_models(p, &mut rng);
    for i in 0..p.users {
        for (k, m) in models.iter().enumerate() {
            let accuracy = (m.mean + p.user_sd * normal(&mut rng)).clamp(0.0, 1.0);
            let runtime_s = draw_runtime(p.cost, &mut rng);
            pair(i, k, m, accuracy, runtime_s);
        }
    }
    models
}

fn generate_parts(p: &SynParams) -> (Vec<ModelDraw>, Vec<TraceRow>) {
    let model_ids: Vec<String> = (0..p.models).map(|k| padded_id("m", k, p.models)).collect();
    let mut rows = Vec::with_capacity(p.users * p.models);
    let mut user = String::new();
    let models = draw_pairs(p, |i, k, m, accuracy, runtime_s| {
        if k == 0 {
            user = padded_id("u", i, p.users);
        }
        rows.push(TraceRow {
            user: user.clone(),
            model: model_ids[k].clone(),
            accuracy,
            runtime_s,
            model_year: Some(m.year),
            model_citations: Some(m.citations),
        });
    });
    (models, rows)
}

/// Generate a synthetic trace: every (user, model) pair, users in order,
/// models in order within a user. Deterministic in `p` (see the module docs);
/// `p` should pass [`SynParams::validate`].
pub fn generate_syn(p: &SynParams) -> Vec<TraceRow> {
    generate_parts(p).1
}

/// The SHA-256 (hex) of the canonical CSV text of the synthetic trace
/// `gen_rows` describes ([`trace_to_csv`](super::trace_to_csv) of
/// [`generate_syn`]'s rows), formatted in pieces of about 64 KiB in
/// parallel (rayon) and hashed piece by piece in order: the text is never
/// held whole, and neither are the rows. `row(i, accuracy, runtime_s)`
/// writes user `i`'s K accuracies and runtimes in seconds (as
/// [`SynRows::row`] does: a dense trace copies its matrices' row, a lazy
/// one regenerates it).
pub fn syn_csv_sha256(
    gen_rows: &SynRows,
    row: impl Fn(usize, &mut [f64], &mut [f64]) + Sync,
) -> String {
    let (n, k) = (gen_rows.n_users(), gen_rows.n_models());
    let model_ids: Vec<String> = (0..k).map(|m| padded_id("m", m, k)).collect();
    // What a line holds besides its user and floats, made once per model
    // (the same text `push_csv_row` writes cell by cell).
    let model_cells: Vec<String> = model_ids
        .iter()
        .map(|m| format!("{},", csv_field(m)))
        .collect();
    let tails: Vec<String> = gen_rows
        .models()
        .iter()
        .map(|draw| {
            let mut tail = String::new();
            push_row_tail(&mut tail, Some(Some(draw.year)), Some(Some(draw.citations)));
            tail
        })
        .collect();
    let mut hasher = Sha256::new();
    hasher.update(CSV_HEADER_WITH_METADATA.as_bytes());
    let users_per_piece = (HASH_CHUNK / (48 * k.max(1))).max(1);
    let pieces: Vec<(usize, usize)> = (0..n)
        .step_by(users_per_piece)
        .map(|a| (a, (a + users_per_piece).min(n)))
        .collect();
    let format_piece = |&(a, b): &(usize, usize)| {
        let mut text = String::with_capacity(HASH_CHUNK + 4096);
        let (mut acc, mut secs) = (vec![0.0; k], vec![0.0; k]);
        let (mut id, mut user) = (String::new(), String::new());
        for i in a..b {
            row(i, &mut acc, &mut secs);
            id.clear();
            push_padded_id(&mut id, "u", i, n);
            user.clear();
            user.push_str(&csv_field(&id));
            user.push(',');
            for m in 0..k {
                push_csv_row_parts(
                    &mut text,
                    [&user, &model_cells[m]],
                    acc[m],
                    secs[m],
                    &tails[m],
                );
            }
        }
        text
    };
    // Each batch is hashed while the next is formatted (the hash is
    // sequential: alone it left a core idle for a third of the time).
    let mut formatted: Vec<String> = Vec::new();
    for batch in pieces.chunks(PIECES_PER_BATCH) {
        let hashed = std::mem::take(&mut formatted);
        let ((), texts) = rayon::join(
            || {
                for text in &hashed {
                    hasher.update(text.as_bytes());
                }
            },
            || batch.par_iter().map(format_piece).collect(),
        );
        formatted = texts;
    }
    for text in &formatted {
        hasher.update(text.as_bytes());
    }
    hex(&hasher.finalize())
}

/// Pieces formatted in parallel before they are hashed (about 2 MiB).
const PIECES_PER_BATCH: usize = 32;

/// Bytes of CSV text per piece formatted by [`generate_syn_trace`](super::generate_syn_trace).
const HASH_CHUNK: usize = 64 * 1024;

/// What [`run_gen_syn`] did, for a one-line summary.
#[derive(Debug, Clone, PartialEq)]
pub struct GenSynReport {
    /// The parameters used.
    pub params: SynParams,
    /// The trace written.
    pub out: PathBuf,
    /// Rows written (users × models).
    pub pairs: usize,
    /// Runtimes at the 1 µs floor.
    pub runtime_floored: usize,
}

impl fmt::Display for GenSynReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.params;
        write!(
            f,
            "generated syn trace: {} users, {} models, {} pairs (S={}, U={}, cost {}, seed {})",
            p.users, p.models, self.pairs, p.model_sd, p.user_sd, p.cost, p.seed
        )?;
        if self.runtime_floored > 0 {
            write!(f, "; {} runtimes at the 1 µs floor", self.runtime_floored)?;
        }
        write!(f, "; wrote {}", self.out.display())
    }
}

/// Validate `params`, generate the trace and write it to `out` atomically.
pub fn run_gen_syn(params: &SynParams, out: &Path) -> Result<GenSynReport> {
    params.validate()?;
    let rows = generate_syn(params);
    write_trace(out, &rows)?;
    Ok(GenSynReport {
        pairs: rows.len(),
        runtime_floored: rows
            .iter()
            .filter(|r| r.runtime_s == RUNTIME_FLOOR_S)
            .count(),
        params: params.clone(),
        out: out.to_path_buf(),
    })
}

#[cfg(test)]
mod tests;
