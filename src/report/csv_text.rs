//! Small helpers for writing CSV text deterministically.

use crate::trace::{Micros, micros_to_secs_string};

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
