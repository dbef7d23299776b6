//! Small helpers for writing CSV text deterministically.

use crate::core::sim::time::{Micros, micros_to_secs_string};

/// A CSV field, quoted when it needs to be.
pub fn csv_field(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains([',', '"', '\n', '\r']) || text.trim() != text {
        format!("\"{}\"", text.replace('"', "\"\"")).into()
    } else {
        text.into()
    }
}

/// A time in seconds with six decimals, or `inf` for "never".
pub fn secs_or_inf(t: Option<Micros>) -> String {
    t.map_or_else(|| "inf".to_string(), micros_to_secs_string)
}

/// Append a time in seconds with six decimals (exact microseconds), as
/// [`micros_to_secs_string`] writes it, without an intermediate `String`.
pub fn push_secs(out: &mut String, us: Micros) {
    use std::fmt::Write as _;
    let _ = write!(out, "{}.{:06}", us / 1_000_000, us % 1_000_000);
}

/// Append [`secs_or_inf`] of `t` without an intermediate `String`.
pub fn push_secs_or_inf(out: &mut String, t: Option<Micros>) {
    match t {
        Some(us) => push_secs(out, us),
        None => out.push_str("inf"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushed_times_equal_the_strings() {
        for t in [None, Some(0), Some(7), Some(1_500_000), Some(u64::MAX)] {
            let mut out = String::from("x");
            push_secs_or_inf(&mut out, t);
            assert_eq!(out, format!("x{}", secs_or_inf(t)));
        }
    }
}
