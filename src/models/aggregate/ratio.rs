//! Ratios that may be infinite or undefined (speedups, regret ratios).

use std::fmt;

use crate::core::analysis::stats::{quantile, sorted};
use crate::models::trace::Micros;

/// A ratio as written in the result files: a number, `inf`, or `n/a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ratio {
    /// A finite, non-negative number.
    Finite(f64),
    /// Infinite.
    Inf,
    /// Undefined (both sides infinite).
    NotApplicable,
}

impl Ratio {
    /// The ratio as `f64` (`inf` → ∞, `n/a` → `None`).
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Self::Finite(x) => Some(x),
            Self::Inf => Some(f64::INFINITY),
            Self::NotApplicable => None,
        }
    }

    fn from_f64(x: f64) -> Self {
        if x.is_infinite() {
            Self::Inf
        } else if x.is_nan() {
            Self::NotApplicable
        } else {
            Self::Finite(x)
        }
    }

    /// JSON form: a number, or the string `"inf"` / `"n/a"`.
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Self::Finite(x) => serde_json::json!(x),
            other => serde_json::Value::String(other.to_string()),
        }
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Finite(x) => write!(f, "{x}"),
            Self::Inf => f.write_str("inf"),
            Self::NotApplicable => f.write_str("n/a"),
        }
    }
}

/// Speedup T_B / T_X of times that may be ∞ (`None`):
///
/// | T_B | T_X | speedup |
/// |---|---|---|
/// | ∞ | ∞ | `n/a` |
/// | ∞ | finite | `inf` |
/// | finite | ∞ | `0` |
/// | 0 | 0 | `1` (both reach θ at once) |
/// | > 0 | 0 | `inf` |
/// | a | b > 0 | a / b |
pub fn time_ratio(baseline: Option<Micros>, policy: Option<Micros>) -> Ratio {
    match (baseline, policy) {
        (None, None) => Ratio::NotApplicable,
        (None, Some(_)) => Ratio::Inf,
        (Some(_), None) => Ratio::Finite(0.0),
        (Some(b), Some(x)) => value_ratio(b as f64, x as f64),
    }
}

/// num / den for finite, non-negative values: `inf` when only den is 0,
/// `1` when both are 0.
pub fn value_ratio(num: f64, den: f64) -> Ratio {
    if den == 0.0 {
        if num == 0.0 {
            Ratio::Finite(1.0)
        } else {
            Ratio::Inf
        }
    } else {
        Ratio::from_f64(num / den)
    }
}

/// The median (type 7, see [`quantile`]) of the defined ratios, with `inf`
/// ordered above every number; `n/a` entries are left out, and the median
/// of none is `n/a`.
pub fn median_ratio(ratios: &[Ratio]) -> Ratio {
    let defined: Vec<f64> = ratios.iter().filter_map(|r| r.as_f64()).collect();
    if defined.is_empty() {
        return Ratio::NotApplicable;
    }
    Ratio::from_f64(quantile(&sorted(&defined), 0.5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions() {
        assert_eq!(time_ratio(Some(10), Some(5)), Ratio::Finite(2.0));
        assert_eq!(time_ratio(None, Some(5)), Ratio::Inf);
        assert_eq!(time_ratio(Some(5), None), Ratio::Finite(0.0));
        assert_eq!(time_ratio(None, None), Ratio::NotApplicable);
        assert_eq!(time_ratio(Some(0), Some(0)), Ratio::Finite(1.0));
        assert_eq!(time_ratio(Some(3), Some(0)), Ratio::Inf);
        assert_eq!(Ratio::Finite(0.0).to_string(), "0");
        assert_eq!(Ratio::Inf.to_string(), "inf");
        assert_eq!(Ratio::NotApplicable.to_string(), "n/a");
    }

    #[test]
    fn median_skips_undefined_and_orders_inf_last() {
        let r = [
            Ratio::Inf,
            Ratio::NotApplicable,
            Ratio::Finite(2.0),
            Ratio::Finite(0.0),
        ];
        assert_eq!(median_ratio(&r), Ratio::Finite(2.0));
        assert_eq!(median_ratio(&[Ratio::NotApplicable]), Ratio::NotApplicable);
        assert_eq!(median_ratio(&[Ratio::Inf, Ratio::Finite(1.0)]), Ratio::Inf);
    }
}
