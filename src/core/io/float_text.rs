//! Rust's `{}` text of an `f64`, written faster: [`push_f64`] appends
//! exactly what `write!(out, "{x}")` appends, at about half the cost.
//!
//! Where it matters: the canonical CSV text of a generated trace is
//! formatted row by row to take its SHA-256 (two floats a row; 2 × 10^8
//! rows in `scenarios/scale-year.toml`, where it took about 45 s of the
//! run: docs/PERFORMANCE.md "Internet scale", "Hashing a generated trace").
//!
//! # The text
//!
//! `{}` of a finite `x` (Rust's `Display`, no precision) writes the
//! *shortest* decimal digits d₁…d_k that read back as `x`, and among
//! those the ones *closest* to `x`, laid out without an exponent: with
//! x = ±0.d₁…d_k × 10^p,
//! - p ≤ 0: `0.` then −p zeros then the digits (`0.0000001`);
//! - 0 < p < k: the digits with a point after the p-th (`12.5`);
//! - p ≥ k: the digits then p − k zeros, no point (`1000000`, `1`);
//!
//! a sign `-` before a negative number (and before −0: `-0`); `NaN`,
//! `inf` and `-inf` otherwise.
//!
//! # How
//!
//! The digits come from the Ryū algorithm (the `ryu` crate, already in the
//! build through `serde_json`), which also gives the shortest digits and,
//! among them, the closest. Ryū writes a number in [10⁻⁵, 10¹⁶) as plain
//! decimal, the same text as `{}` except a trailing `.0` on whole numbers
//! (`1.0`, `{}`: `1`), and the rest with an exponent (`1e-7`), which is
//! laid out again by the rules above.
//!
//! The two differ on one case: when `x` lies exactly halfway between the
//! two closest shortest candidates, Ryū picks the even last digit and
//! `{}` the one above (`848151359743546.25`: Ryū `…546.2`, `{}` `…546.3`).
//! That needs the exact decimal value of `x` to have one digit more than
//! the shortest digits, so at most 18 significant digits (the shortest
//! have at most 17). Writing x = m·2^e with m odd, its exact value has the
//! significant digits of m·5^(−e) when e < 0 (x = m·5^(−e)·10^e, and
//! m·5^(−e) is odd, so it ends in no zero). `may_tie` is true when
//! e ≥ 0 (a whole number) or m·5^(−e) < 10^18, and then `{}` itself
//! writes the number: a random fraction almost never takes that path, and
//! the text is `{}`'s in every case. A unit test compares both on random
//! bit patterns, fractions, and numbers built to tie.

use std::fmt::Write as _;

/// Append `x` as `write!(out, "{x}")` would (module docs).
pub fn push_f64(out: &mut String, x: f64) {
    if !x.is_finite() || may_tie(x) {
        let _ = write!(out, "{x}");
        return;
    }
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(x);
    if !text.contains('e') {
        out.push_str(text.strip_suffix(".0").unwrap_or(text));
        return;
    }
    push_laid_out(out, text);
}

/// Whether `x` (finite) might lie halfway between two shortest candidates:
/// it is a whole number, or its exact decimal value has at most 18
/// significant digits (module docs, "How").
fn may_tie(x: f64) -> bool {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    // x = m · 2^e: the significand with its hidden bit, the exponent
    // unbiased (a subnormal has no hidden bit and the exponent of 1).
    let (m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    if m == 0 {
        return true;
    }
    let shift = m.trailing_zeros();
    let (m, e) = (m >> shift, e + shift as i32);
    if e >= 0 {
        return true;
    }
    // 5^28 > 10^18 > m·5^(−e) needs −e ≤ 26; past it, no tie.
    if e < -27 {
        return false;
    }
    u128::from(m) * 5u128.pow(e.unsigned_abs()) < 10u128.pow(18)
}

/// Lay out Ryū's exponent form (`-1.25e-7`, `1e22`) as `{}` does.
fn push_laid_out(out: &mut String, text: &str) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exp10) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // x = 0.d₁…d_k × 10^p, the digits without leading or trailing zeros.
    let mut digits = [0u8; 40];
    let mut k = 0;
    for &c in int.as_bytes().iter().chain(frac.as_bytes()) {
        if k < digits.len() {
            digits[k] = c;
            k += 1;
        }
    }
    let mut p = int.len() as i32 + exp10;
    let mut first = 0;
    while first < k && digits[first] == b'0' {
        first += 1;
        p -= 1;
    }
    while k > first && digits[k - 1] == b'0' {
        k -= 1;
    }
    if negative {
        out.push('-');
    }
    let d = std::str::from_utf8(&digits[first..k]).unwrap_or("0");
    if d.is_empty() {
        out.push('0');
        return;
    }
    let len = d.len() as i32;
    if p <= 0 {
        out.push_str("0.");
        push_zeros(out, -p);
        out.push_str(d);
    } else if p < len {
        out.push_str(&d[..p as usize]);
        out.push('.');
        out.push_str(&d[p as usize..]);
    } else {
        out.push_str(d);
        push_zeros(out, p - len);
    }
}

fn push_zeros(out: &mut String, n: i32) {
    for _ in 0..n {
        out.push('0');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// 848151359743546.25, exactly halfway between …546.2 and …546.3
    /// (written as a sum: the literal has more digits than an `f64`).
    const TIE: f64 = 848_151_359_743_546.0 + 0.25;

    fn text(x: f64) -> String {
        let mut s = String::new();
        push_f64(&mut s, x);
        s
    }

    /// Every class of number against `format!("{x}")`, one by one.
    #[test]
    fn pushed_floats_are_the_display_text() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(34);
        let mut checked = 0;
        for i in 0..600_000u32 {
            let x = match i % 6 {
                // Any bit pattern: every exponent, subnormals, NaNs.
                0 => f64::from_bits(rng.r#gen()),
                // A generated trace's accuracies and runtimes.
                1 => rng.r#gen::<f64>(),
                2 => rng.gen_range(0.0..500.0),
                // Whole numbers and short decimals at every scale.
                3 => f64::from(rng.r#gen::<u32>()) * 10f64.powi(rng.gen_range(-30..30)),
                // Odd multiples of powers of two: exact values with few
                // digits, where ties live.
                4 => {
                    let m = rng.gen_range(0..1u64 << 40) | 1;
                    m as f64 * 2f64.powi(rng.gen_range(-40..10))
                }
                _ => {
                    let m = rng.gen_range(0..1u64 << 53) | 1;
                    m as f64 * 2f64.powi(rng.gen_range(-60..-30))
                }
            };
            assert_eq!(text(x), format!("{x}"), "{x:e} ({:#x})", x.to_bits());
            checked += 1;
        }
        assert_eq!(checked, 600_000);
    }

    #[test]
    fn special_and_tied_floats_are_the_display_text() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1e-5,
            9.99e-6,
            1e-7,
            1e15,
            1e16,
            1e17,
            1e21,
            1.5e300,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123_456_789_012_345_680.0,
            // Halfway between two shortest candidates: Ryū rounds to
            // even (…546.2), `{}` up (…546.3).
            TIE,
            -1_490_389_947_213_899.0 - 0.25,
            // An odd multiple of 2⁻¹⁵ in [256, 512): exact in 18
            // digits, so it takes the `{}` path.
            256.0 + 3.0 / 32768.0,
        ] {
            assert_eq!(text(x), format!("{x}"), "{x:e}");
        }
    }

    #[test]
    fn ties_take_the_display_path_and_long_fractions_do_not() {
        assert!(may_tie(TIE));
        assert!(may_tie(256.0 + 3.0 / 32768.0));
        assert!(may_tie(1.0) && may_tie(0.0) && may_tie(0.5));
        assert!(!may_tie(0.1) && !may_tie(1.0 / 3.0) && !may_tie(5e-324));
        // Ryū and `{}` do differ there: the path is needed.
        let mut buf = ryu::Buffer::new();
        assert_eq!(buf.format_finite(TIE), "848151359743546.2");
        assert_eq!(format!("{}", TIE), "848151359743546.3");
    }
}
