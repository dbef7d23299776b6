//! Synthetic learning curves (`gen syn --fidelities L`): the `gen syn`
//! trace ([`super::generate`]) with `L` fidelities per pair, for the
//! multi-fidelity selectors' large benchmarks (e.g. 10,000 tenants).
//!
//! The top level of every curve is the plain `gen syn` trace of the same
//! parameters: accuracy `A = A[i,k]`, runtime `R`, `model_year` and
//! `model_citations` exactly as [`generate_syn`] draws them (the same
//! stream, untouched). So `L = 1` is today's trace, byte for byte, and for
//! any `L` the existing full-fidelity selectors see the same trace.
//!
//! Below the top, for `L ≥ 2` levels `j = 0..L−1`:
//! - fidelity `f_j = 2^(j − (L−1))`: halving the budget per level, the top
//!   at 1 (`L = 4`: 0.125, 0.25, 0.5, 1 — exact in binary);
//! - a saturating power law through the top point,
//!   `a_j = A − G · (f_j^(−c) − 1) / (f_0^(−c) − 1) + ε_j`, i.e.
//!   `a(f) = a_∞ − b·f^(−c)` with `b = G / (f_0^(−c) − 1)` and
//!   `a_∞ = A + b`: `a_0 = A − G` at the lowest fidelity, rising ever more
//!   slowly to `a_{L−1} = A` at the top, where `ε` is 0;
//!   - gap `G = A · g`, `g ~ U[0, MAX_GAP_FRACTION)` (the lowest fidelity
//!     keeps between half and all of the top accuracy);
//!   - exponent `c ~ U[EXPONENT_LO, EXPONENT_HI)`;
//!   - noise `ε_j ~ N(0, NOISE_SD²)` on each level below the top, so curves
//!     need not be monotone, as real ones (LCDB) are not; then `a_j` is
//!     clipped to [0, 1];
//! - runtime `r_j = R · f_j` (training cost ∝ data or epochs), rounded to
//!   whole microseconds and at least 1 µs. It is the from-scratch cost of
//!   that level: simulate with `[trace] cost = "from-scratch"`.
//!
//! Randomness: the curve shapes come from their own ChaCha8 stream
//! `rng::stream(seed, 1, Purpose::Generator)` (stream 0 is the plain
//! trace's), with the uniforms and Box–Muller normals of
//! [`super::generate`]. Draw order: for each user i, for each model k: `g`
//! (one uniform), `c` (one uniform), then `ε_0 … ε_{L−2}` (two uniforms
//! each). Single-threaded, `libm` for `pow`: the same seed gives the same
//! bytes on every platform and thread count.

use std::fmt;
use std::path::{Path, PathBuf};

use super::generate::{GenSynReport, MAX_INDEX, SynNames, normal, run_gen_syn, uniform};
use super::{
    CurveRow, MAX_RUNTIME_S, RUNTIME_FLOOR_S, SynParams, TraceRow, generate_syn, write_curve_trace,
};
use crate::core::error::{Error, Result};
use crate::core::sim::rng::{self, Purpose, SimRng};

pub use crate::core::limits::MAX_FIDELITIES;
/// `g` of the gap `G = A·g` is drawn below this.
pub const MAX_GAP_FRACTION: f64 = 0.5;
/// Smallest power-law exponent `c` drawn.
pub const EXPONENT_LO: f64 = 0.25;
/// `c` is drawn below this.
pub const EXPONENT_HI: f64 = 1.0;
/// Standard deviation of the per-level accuracy noise below the top.
pub const NOISE_SD: f64 = 0.01;

/// The fidelity of level `j` of `levels`: `2^(j − (levels − 1))`.
pub fn level_fidelity(j: usize, levels: usize) -> f64 {
    libm::pow(2.0, j as f64 - (levels as f64 - 1.0))
}

/// The noise-free accuracy at fidelity `f` of a curve through `(1, top)`
/// with gap `gap` at the lowest fidelity `f0` (< 1) and exponent `c`:
/// `top − gap · (f^(−c) − 1) / (f0^(−c) − 1)`.
pub fn curve_accuracy(top: f64, gap: f64, c: f64, f: f64, f0: f64) -> f64 {
    top - gap * (libm::pow(f, -c) - 1.0) / (libm::pow(f0, -c) - 1.0)
}

/// Check `levels` against the pair count of `p`: 1..=[`MAX_FIDELITIES`]
/// and at most [`MAX_INDEX`] rows in all (a curve trace's level offsets
/// are 32-bit; the memory they take is the memory check's).
pub fn validate_levels(p: &SynParams, levels: usize) -> Result<()> {
    validate_levels_named(p, levels, SynNames::FLAGS)
}

/// [`validate_levels`], the messages naming the parameters as `names`
/// does.
pub fn validate_levels_named(p: &SynParams, levels: usize, names: SynNames) -> Result<()> {
    let SynNames {
        prefix, fidelities, ..
    } = names;
    if !(1..=MAX_FIDELITIES).contains(&levels) {
        return Err(Error::usage(format!(
            "{prefix}{fidelities}{levels}: expected 1 to {MAX_FIDELITIES}"
        )));
    }
    let rows = p.users.saturating_mul(p.models).saturating_mul(levels);
    if rows > MAX_INDEX {
        return Err(Error::usage(format!(
            "{prefix}{} users x {} models x {levels} fidelities is more than {MAX_INDEX} rows (32-bit level offsets)",
            p.users, p.models
        )));
    }
    Ok(())
}

/// The curve rows of [`generate_syn`]`(p)` with `levels` fidelities (see
/// the module docs): per pair, levels in increasing fidelity; pairs in the
/// order of the plain trace. `p` and `levels` should pass
/// [`SynParams::validate`] and [`validate_levels`].
pub fn generate_syn_curves(p: &SynParams, levels: usize) -> Vec<CurveRow> {
    curves_from_tops(
        &generate_syn(p),
        levels,
        &mut rng::stream(p.seed, 1, Purpose::Generator),
    )
}

fn curves_from_tops(tops: &[TraceRow], levels: usize, rng: &mut SimRng) -> Vec<CurveRow> {
    let levels = levels.max(1);
    let fidelities: Vec<f64> = (0..levels).map(|j| level_fidelity(j, levels)).collect();
    let mut rows = Vec::with_capacity(tops.len() * levels);
    for top in tops {
        let point = |fidelity: f64, accuracy: f64, runtime_s: f64| CurveRow {
            user: top.user.clone(),
            model: top.model.clone(),
            fidelity,
            accuracy,
            runtime_s,
            model_year: top.model_year,
            model_citations: top.model_citations,
        };
        if levels > 1 {
            let gap = top.accuracy * MAX_GAP_FRACTION * uniform(rng);
            let c = EXPONENT_LO + (EXPONENT_HI - EXPONENT_LO) * uniform(rng);
            for &f in &fidelities[..levels - 1] {
                let a =
                    curve_accuracy(top.accuracy, gap, c, f, fidelities[0]) + NOISE_SD * normal(rng);
                let r = ((top.runtime_s * f) * 1e6).round() / 1e6;
                rows.push(point(
                    f,
                    a.clamp(0.0, 1.0),
                    r.clamp(RUNTIME_FLOOR_S, MAX_RUNTIME_S),
                ));
            }
        }
        rows.push(point(1.0, top.accuracy, top.runtime_s));
    }
    rows
}

/// What [`run_gen_syn_curves`] did, for a one-line summary.
#[derive(Debug, Clone, PartialEq)]
pub struct GenSynCurvesReport {
    /// The plain trace's report (its pairs are the curves' top levels).
    pub syn: GenSynReport,
    /// Fidelities per pair.
    pub levels: usize,
    /// Rows written (pairs × levels).
    pub rows: usize,
}

impl fmt::Display for GenSynCurvesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.levels == 1 {
            return self.syn.fmt(f);
        }
        let p = &self.syn.params;
        write!(
            f,
            "generated syn curve trace: {} users, {} models, {} pairs x {} fidelities \
             (2^-{}..1) = {} rows (S={}, U={}, cost {} at fidelity 1, seed {}); wrote {} \
             (simulate it with [trace] cost = \"from-scratch\")",
            p.users,
            p.models,
            self.syn.pairs,
            self.levels,
            self.levels - 1,
            self.rows,
            p.model_sd,
            p.user_sd,
            p.cost,
            p.seed,
            self.syn.out.display()
        )
    }
}

/// Validate, generate and write atomically: with `levels = 1` exactly
/// [`run_gen_syn`] (the plain trace CSV), otherwise the curve trace CSV.
pub fn run_gen_syn_curves(
    params: &SynParams,
    levels: usize,
    out: &Path,
) -> Result<GenSynCurvesReport> {
    params.validate()?;
    validate_levels(params, levels)?;
    if levels == 1 {
        let syn = run_gen_syn(params, out)?;
        let rows = syn.pairs;
        return Ok(GenSynCurvesReport { syn, levels, rows });
    }
    let tops = generate_syn(params);
    let rows = curves_from_tops(
        &tops,
        levels,
        &mut rng::stream(params.seed, 1, Purpose::Generator),
    );
    write_curve_trace(out, &rows)?;
    Ok(GenSynCurvesReport {
        syn: GenSynReport {
            params: params.clone(),
            out: PathBuf::from(out),
            pairs: tops.len(),
            runtime_floored: rows
                .iter()
                .filter(|r| r.runtime_s == RUNTIME_FLOOR_S)
                .count(),
        },
        levels,
        rows: rows.len(),
    })
}

/// Test helper: `trace` holds exactly `rows`, level by level (each pair's
/// rows in increasing fidelity, as the writer's input has them).
#[cfg(test)]
pub(crate) fn assert_same_levels(trace: &super::Trace, rows: &[CurveRow]) {
    assert!(trace.is_curve());
    let mut levels = 0;
    let mut i = 0;
    while i < rows.len() {
        let r = &rows[i];
        let u = trace.user_index(&r.user).expect("user");
        let k = trace.model_index(&r.model).expect("model");
        let n = trace.n_levels(u, k);
        for j in 0..n {
            let row = &rows[i + j];
            assert_eq!(
                (&row.user, &row.model),
                (&r.user, &r.model),
                "row {}",
                i + j
            );
            assert_eq!(trace.level_fidelity(u, k, j), row.fidelity, "row {}", i + j);
            assert_eq!(trace.level_accuracy(u, k, j), row.accuracy, "row {}", i + j);
            assert_eq!(
                trace.level_runtime_us(u, k, j),
                super::secs_to_micros(row.runtime_s),
                "row {}",
                i + j
            );
        }
        levels += n;
        i += n;
    }
    assert_eq!(levels, rows.len());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;
    use crate::models::trace::{CostDist, curve_trace_to_csv, parse_trace};

    #[test]
    fn written_curves_load_back_with_the_same_levels() {
        let p = params(6, 4, 2);
        let rows = generate_syn_curves(&p, 4);
        let text = curve_trace_to_csv(&rows);
        let trace = parse_trace("syn-curves.csv", text.as_bytes()).expect("loads");
        assert_same_levels(&trace, &rows);
        assert_eq!((trace.min_fidelity(), trace.max_fidelity()), (0.125, 1.0));
        // The top levels are the plain trace: same accuracy and runtime matrices.
        let plain = super::super::generate_syn_trace(&p, "plain").trace;
        assert_eq!(trace.accuracy_matrix(), plain.accuracy_matrix());
        assert_eq!(trace.runtime_matrix_us(), plain.runtime_matrix_us());
        assert_eq!(trace.model_year(), plain.model_year());
    }

    fn params(users: usize, models: usize, seed: u64) -> SynParams {
        SynParams {
            users,
            models,
            seed,
            ..SynParams::default()
        }
    }

    #[test]
    fn fidelities_halve_down_from_one() {
        let got: Vec<f64> = (0..4).map(|j| level_fidelity(j, 4)).collect();
        assert_eq!(got, [0.125, 0.25, 0.5, 1.0]);
        assert_eq!(level_fidelity(0, 1), 1.0);
    }

    /// By hand, top A = 0.8, gap G = 0.2, c = 1, L = 3 (f = 1/4, 1/2, 1):
    /// f0^(−c) − 1 = 4 − 1 = 3, so
    /// a(1/4) = 0.8 − 0.2·(4 − 1)/3 = 0.6,
    /// a(1/2) = 0.8 − 0.2·(2 − 1)/3 = 0.8 − 0.0667 = 0.7333…,
    /// a(1)   = 0.8 − 0.2·0/3 = 0.8.
    /// With c = 0.5: f0^(−c) − 1 = 2 − 1 = 1 and a(1/2) = 0.8 − 0.2·(√2 − 1)
    /// = 0.8 − 0.08284… = 0.71716….
    #[test]
    fn curve_accuracy_matches_the_hand_computation() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(curve_accuracy(0.8, 0.2, 1.0, 0.25, 0.25), 0.6));
        assert!(close(
            curve_accuracy(0.8, 0.2, 1.0, 0.5, 0.25),
            0.8 - 0.2 / 3.0
        ));
        assert!(close(curve_accuracy(0.8, 0.2, 1.0, 1.0, 0.25), 0.8));
        assert!(close(
            curve_accuracy(0.8, 0.2, 0.5, 0.5, 0.25),
            0.8 - 0.2 * (2f64.sqrt() - 1.0)
        ));
    }

    /// The generated rows follow the formula with the draws of the
    /// documented stream, in the documented order.
    #[test]
    fn rows_follow_the_documented_draws() {
        let p = params(2, 3, 7);
        let levels = 3;
        let rows = generate_syn_curves(&p, levels);
        let tops = generate_syn(&p);
        assert_eq!(rows.len(), tops.len() * levels);
        let mut rng = rng::stream(7, 1, Purpose::Generator);
        for (pair, top) in rows.chunks(levels).zip(&tops) {
            let gap = top.accuracy * MAX_GAP_FRACTION * uniform(&mut rng);
            let c = EXPONENT_LO + (EXPONENT_HI - EXPONENT_LO) * uniform(&mut rng);
            for (j, r) in pair.iter().enumerate() {
                assert_eq!((&r.user, &r.model), (&top.user, &top.model));
                assert_eq!(r.fidelity, [0.25, 0.5, 1.0][j]);
                assert_eq!(
                    (r.model_year, r.model_citations),
                    (top.model_year, top.model_citations)
                );
                if j + 1 == levels {
                    assert_eq!((r.accuracy, r.runtime_s), (top.accuracy, top.runtime_s));
                } else {
                    let want = curve_accuracy(top.accuracy, gap, c, r.fidelity, 0.25)
                        + NOISE_SD * normal(&mut rng);
                    assert_eq!(r.accuracy, want.clamp(0.0, 1.0));
                    let runtime = ((top.runtime_s * r.fidelity) * 1e6).round() / 1e6;
                    assert_eq!(r.runtime_s, runtime.max(RUNTIME_FLOOR_S));
                }
            }
        }
    }

    /// Over many pairs the lowest level sits, on average, at
    /// A·(1 − E[g]) = A·0.75 of the top, and fidelities strictly increase.
    #[test]
    fn low_fidelity_accuracy_is_lower_on_average_and_fidelities_increase() {
        let p = params(200, 50, 3);
        let rows = generate_syn_curves(&p, 4);
        let mut ratio = 0.0;
        let mut n = 0.0;
        for pair in rows.chunks(4) {
            assert!(pair.windows(2).all(|w| w[0].fidelity < w[1].fidelity));
            if pair[3].accuracy > 0.2 {
                ratio += pair[0].accuracy / pair[3].accuracy;
                n += 1.0;
            }
        }
        let mean = ratio / n;
        assert!((mean - 0.75).abs() < 0.01, "mean ratio {mean}");
    }

    #[test]
    fn one_fidelity_writes_the_plain_trace_byte_for_byte() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
        let p = SynParams {
            cost: CostDist::LogNormal {
                mu: 0.0,
                sigma: 1.0,
            },
            ..params(30, 8, 5)
        };
        let plain = run_gen_syn(&p, &a).expect("plain");
        let report = run_gen_syn_curves(&p, 1, &b).expect("L = 1");
        let (bytes_a, bytes_b) = (std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
        assert_eq!(bytes_a, bytes_b);
        assert!(bytes_a.starts_with(b"user,model,accuracy,runtime_s,"));
        assert_eq!(
            report.to_string(),
            plain.to_string().replace("a.csv", "b.csv")
        );
    }

    #[test]
    fn several_fidelities_write_a_deterministic_curve_trace() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("c.csv");
        let p = params(4, 3, 11);
        let report = run_gen_syn_curves(&p, 5, &out).expect("written");
        assert_eq!((report.syn.pairs, report.rows), (12, 60));
        let text = std::fs::read_to_string(&out).expect("read");
        assert_eq!(text, curve_trace_to_csv(&generate_syn_curves(&p, 5)));
        assert!(
            text.starts_with(
                "user,model,fidelity,accuracy,runtime_s,model_year,model_citations\nu0,m0,0.0625,"
            ),
            "{}",
            &text[..80]
        );
        assert!(
            report
                .to_string()
                .contains("12 pairs x 5 fidelities (2^-4..1) = 60 rows")
        );
        assert_ne!(
            generate_syn_curves(&params(4, 3, 12), 5),
            generate_syn_curves(&p, 5),
            "the seed matters"
        );
    }

    #[test]
    fn rejects_bad_fidelity_counts() {
        let p = params(2, 2, 0);
        for l in [0, MAX_FIDELITIES + 1] {
            let e = validate_levels(&p, l).expect_err("out of range");
            assert_eq!(e.kind(), ErrorKind::Usage);
            assert!(e.message().contains("--fidelities"), "{e}");
        }
        // 10^10 rows overflow the 32-bit level offsets; 2 × 10^8 do not
        // (their memory is the memory check's).
        let e = validate_levels(&params(100_000, 10_000, 0), 10).expect_err("too many rows");
        assert!(e.message().contains("more than 4294967295 rows"), "{e}");
        validate_levels(&params(10_000, 1_000, 0), 2).expect("2 × 10^7 rows are fine");
    }
}
