//! Checks every scenario kind shares (model mode and job-trace mode).

use crate::echo::shown;
use crate::error::{Error, Result};
use crate::limits::{MAX_NAME_BYTES, MAX_REPETITIONS, grouped};

/// `name` must be usable as a results folder name; `repetitions` ≥ 1;
/// policies (given by their names) must exist, be named and be named
/// uniquely. `policy_keys` names the keys a `[[policy]]` needs, for the
/// message when there is none.
pub fn check_common(
    at: &str,
    name: &str,
    repetitions: u32,
    policy_names: &[&str],
    policy_keys: &str,
) -> Result<()> {
    let bad = |field: &str, msg: String| Err(Error::input(format!("{at}: {field}: {msg}")));
    let trimmed = name.trim();
    if trimmed.is_empty()
        || trimmed == "."
        || trimmed == ".."
        || trimmed.contains(['/', '\\'])
        || name.contains(char::is_control)
    {
        return bad(
            "name",
            format!(
                "expected a non-empty label usable as a folder name (no `/`, no control characters), got `{}`",
                shown(name)
            ),
        );
    }
    if name.len() > MAX_NAME_BYTES {
        return bad(
            "name",
            format!(
                "a name of {} bytes exceeds the limit of {MAX_NAME_BYTES} bytes (it names the results folder): `{}`",
                name.len(),
                shown(name)
            ),
        );
    }
    if repetitions == 0 {
        return bad("repetitions", "expected at least 1, got 0".into());
    }
    if u64::from(repetitions) > MAX_REPETITIONS {
        return bad(
            "repetitions",
            format!(
                "{} repetitions exceed the limit of {} (also for --reps)",
                grouped(u64::from(repetitions)),
                grouped(MAX_REPETITIONS)
            ),
        );
    }
    if policy_names.is_empty() {
        return bad(
            "[[policy]]",
            format!("expected at least one policy table (`[[policy]]` with {policy_keys})"),
        );
    }
    for (i, p) in policy_names.iter().enumerate() {
        if p.trim().is_empty() {
            return bad(
                &format!("[[policy]] #{}", i + 1),
                "`name` must not be empty".into(),
            );
        }
        if policy_names[..i].contains(p) {
            return bad(
                &format!("[[policy]] #{}", i + 1),
                format!(
                    "the name `{}` is used by two policies: names must be unique",
                    shown(p)
                ),
            );
        }
    }
    Ok(())
}
