//! The values at given ranks of a multiset read in passes, holding little
//! of it (issue 34: scale-year's per-tenant quantiles of 10^7 regret
//! areas, read back from disk, without a list of them all).
//!
//! Ranks are in [`f64::total_cmp`]'s order (IEEE 754 totalOrder), the order
//! [`super::stats::sort_total`] sorts in, so the value at rank r is the
//! r-th (from 0) of the sorted list, bit for bit.
//!
//! How (a radix selection):
//! - each value maps to a 64-bit key whose unsigned order is totalOrder
//!   (a negative value's bits inverted, a positive value's sign bit set);
//! - a pass counts the values whose key starts with the bits fixed so far
//!   by their next 16 bits (a histogram of 65,536 counts); the rank falls
//!   in one bucket, whose bits are then fixed and the rank made relative
//!   to it;
//! - once the values left under the fixed bits are few
//!   ([`COLLECT_AT_MOST`]), a last pass collects them and selects the rank
//!   among them; with all 64 bits fixed, the key is the value.
//!
//! Ranks are found together, one pass for all of them; at most five passes
//! (four of 16 bits and a collection), usually two for real data.

use super::stats::{quantile_by, quantile_ranks};
use crate::core::error::{Error, Result};

/// Values left under the fixed bits that a pass collects rather than
/// counts: 8 MiB of them.
pub const COLLECT_AT_MOST: usize = 1 << 20;

/// Bits fixed per counting pass.
const DIGIT: u32 = 16;

/// A key whose unsigned order is [`f64::total_cmp`]'s (IEEE 754
/// totalOrder): equal keys are equal bits. Also the key by which sorted
/// runs order regret areas (`present::figures::area_summary`).
pub fn total_order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | 1 << 63 }
}

/// The value of key `k` ([`key`]'s inverse).
fn value(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// One rank's search.
struct Search {
    /// The rank among the values under the fixed bits.
    rank: usize,
    /// Leading key bits fixed.
    fixed: u32,
    /// Their value.
    prefix: u64,
    /// Values under them.
    count: usize,
    /// The value at the rank, once known.
    found: Option<f64>,
}

impl Search {
    fn holds(&self, k: u64) -> bool {
        self.fixed == 0 || k >> (64 - self.fixed) == self.prefix
    }
}

/// What one pass gathers for a search.
enum Gather {
    Done,
    Count(Vec<usize>),
    Collect(Vec<f64>),
}

/// The values at `ranks` (each below `n`, from 0, in [`f64::total_cmp`]'s
/// order) of the `n` values that each call of `pass` gives to the
/// function it is handed, in any order but the same values each time.
/// An error: `pass`'s own, a pass that gave a different number of values,
/// or a rank not below `n`.
pub fn select_ranks(
    n: usize,
    ranks: &[usize],
    pass: impl FnMut(&mut dyn FnMut(f64)) -> Result<()>,
) -> Result<Vec<f64>> {
    select_ranks_collecting(n, ranks, COLLECT_AT_MOST, pass)
}

/// The type-7 quantiles at `ps` of the `n` values `pass` gives (as for
/// [`select_ranks`]): [`quantile_by`] of the values at each one's
/// [`quantile_ranks`], selected together, so the bits of
/// [`super::stats::quantile`] of the sorted values (NaN for none).
pub fn select_quantiles(
    n: usize,
    ps: &[f64],
    pass: impl FnMut(&mut dyn FnMut(f64)) -> Result<()>,
) -> Result<Vec<f64>> {
    let ranks: Vec<usize> = ps.iter().flat_map(|&p| quantile_ranks(n, p)).collect();
    let at = select_ranks(n, &ranks, pass)?;
    let value = |i: usize| {
        ranks
            .iter()
            .position(|&r| r == i)
            .map_or(f64::NAN, |j| at[j])
    };
    Ok(ps.iter().map(|&p| quantile_by(n, p, value)).collect())
}

/// [`select_ranks`], collecting once at most `collect` values are left.
fn select_ranks_collecting(
    n: usize,
    ranks: &[usize],
    collect: usize,
    mut pass: impl FnMut(&mut dyn FnMut(f64)) -> Result<()>,
) -> Result<Vec<f64>> {
    if let Some(&r) = ranks.iter().find(|&&r| r >= n) {
        return Err(Error::input(format!("internal: rank {r} of {n} values")));
    }
    let mut searches: Vec<Search> = ranks
        .iter()
        .map(|&rank| Search {
            rank,
            fixed: 0,
            prefix: 0,
            count: n,
            found: None,
        })
        .collect();
    while searches.iter().any(|s| s.found.is_none()) {
        let mut gather: Vec<Gather> = searches
            .iter()
            .map(|s| match s {
                Search { found: Some(_), .. } => Gather::Done,
                s if s.count <= collect => Gather::Collect(Vec::with_capacity(s.count)),
                _ => Gather::Count(vec![0; 1 << DIGIT]),
            })
            .collect();
        let mut seen = 0usize;
        pass(&mut |x| {
            seen += 1;
            let k = total_order_key(x);
            for (s, g) in searches.iter().zip(gather.iter_mut()) {
                match g {
                    Gather::Done => {}
                    _ if !s.holds(k) => {}
                    Gather::Collect(v) => v.push(x),
                    Gather::Count(h) => {
                        h[((k >> (64 - s.fixed - DIGIT)) & ((1 << DIGIT) - 1)) as usize] += 1;
                    }
                }
            }
        })?;
        if seen != n {
            return Err(Error::input(format!(
                "internal: a pass over {n} values gave {seen}"
            )));
        }
        for (s, g) in searches.iter_mut().zip(gather) {
            match g {
                Gather::Done => {}
                Gather::Collect(mut v) => {
                    if v.len() != s.count || s.rank >= v.len() {
                        return Err(Error::input("internal: the values changed between passes"));
                    }
                    let (_, x, _) = v.select_nth_unstable_by(s.rank, f64::total_cmp);
                    s.found = Some(*x);
                }
                Gather::Count(h) => {
                    let mut below = 0;
                    let Some(b) = h.iter().position(|&c| {
                        below += c;
                        s.rank < below
                    }) else {
                        return Err(Error::input("internal: the values changed between passes"));
                    };
                    s.rank -= below - h[b];
                    s.count = h[b];
                    s.prefix = (s.prefix << DIGIT) | b as u64;
                    s.fixed += DIGIT;
                    if s.fixed == 64 {
                        s.found = Some(value(s.prefix));
                    }
                }
            }
        }
    }
    Ok(searches
        .iter()
        .map(|s| s.found.unwrap_or(f64::NAN))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::analysis::stats::sort_total;
    use rand::{Rng, SeedableRng};

    fn over(values: &[f64]) -> impl FnMut(&mut dyn FnMut(f64)) -> Result<()> + '_ {
        |f| {
            values.iter().for_each(|&x| f(x));
            Ok(())
        }
    }

    /// Brute force: sort, index; at most nine ranks at once (the smallest,
    /// the largest and seven spread between).
    fn check(values: &[f64], collect: usize) {
        let mut sorted = values.to_vec();
        sort_total(&mut sorted);
        let n = values.len();
        let mut ranks: Vec<usize> = (0..9).map(|j| j * (n - 1) / 8).collect();
        ranks.dedup();
        let got = select_ranks_collecting(n, &ranks, collect, over(values)).expect("selects");
        for (&r, g) in ranks.iter().zip(&got) {
            assert_eq!(
                g.to_bits(),
                sorted[r].to_bits(),
                "rank {r} of {values:?}, collect {collect}"
            );
        }
    }

    #[test]
    fn keys_order_as_total_cmp_and_map_back() {
        let xs = [
            f64::NEG_INFINITY,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for &a in &xs {
            assert_eq!(value(total_order_key(a)).to_bits(), a.to_bits());
            for &b in &xs {
                assert_eq!(
                    total_order_key(a).cmp(&total_order_key(b)),
                    a.total_cmp(&b),
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn every_rank_is_the_sorted_lists_value_counted_or_collected() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(34);
        for _ in 0..300 {
            let n = rng.gen_range(1..300);
            let values: Vec<f64> = (0..n)
                .map(|_| match rng.gen_range(0..6) {
                    // Ties, both zeros, a spread, tiny and huge, negatives.
                    0 => f64::from(rng.gen_range(0..4)),
                    1 => -0.0,
                    2 => rng.r#gen::<f64>() * 1e3,
                    3 => f64::from_bits(rng.r#gen::<u64>() >> 2),
                    4 => -rng.r#gen::<f64>(),
                    _ => f64::INFINITY,
                })
                .collect();
            // From counting all 64 bits down (collect nothing) to one
            // collecting pass.
            for collect in [0, 1, 5, n] {
                check(&values, collect);
            }
        }
        // All equal: the key is fixed whole by counting.
        check(&[2.5; 40], 0);
    }

    #[test]
    fn a_rank_out_of_range_or_a_pass_that_changes_is_an_error() {
        assert!(select_ranks(3, &[3], over(&[1.0, 2.0, 3.0])).is_err());
        let mut calls = 0;
        let changing = |f: &mut dyn FnMut(f64)| {
            calls += 1;
            // The second pass has nothing under the bits the first fixed.
            (0..4).for_each(|i| f(f64::from(i * calls * 1000)));
            Ok(())
        };
        assert!(select_ranks_collecting(4, &[1], 0, changing).is_err());
        let short = |f: &mut dyn FnMut(f64)| {
            f(1.0);
            Ok(())
        };
        assert!(select_ranks(2, &[0], short).is_err());
        assert_eq!(
            select_ranks(0, &[], over(&[])).expect("none"),
            Vec::<f64>::new()
        );
    }
}
