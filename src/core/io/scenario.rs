//! What every scenario file shares, whatever its mode: reading it, the
//! `mode` key that picks the mode, the command-line overrides, TOML error
//! messages and the checks of the top-level keys (DESIGN §3).

use std::fmt;
use std::path::Path;

use crate::core::error::{Error, Result};
use crate::core::io::echo::shown;
use crate::core::io::read_text;
use crate::core::limits::{MAX_NAME_BYTES, MAX_REPETITIONS, MAX_SCENARIO_BYTES, grouped};
use crate::core::spelling::looks_like;

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

/// The index of the baseline policy: the one named `baseline`, or the
/// first (DESIGN §6.5). `names` are the policies' names in order.
pub fn resolve_baseline(at: &str, baseline: Option<&str>, names: &[&str]) -> Result<usize> {
    let Some(name) = baseline else {
        return Ok(0);
    };
    names.iter().position(|p| *p == name).ok_or_else(|| {
        let listed: Vec<String> = names.iter().map(|p| format!("`{p}`")).collect();
        Error::input(format!(
            "{at}: baseline: unknown policy `{}`: expected the name of a [[policy]] ({})",
            shown(name),
            listed.join(", ")
        ))
    })
}

/// Command-line values that replace the file's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Replaces `seed`.
    pub seed: Option<u64>,
    /// Replaces `repetitions`.
    pub repetitions: Option<u32>,
    /// Replaces `[output] plots` (`--no-plots` sets it to `false`).
    pub plots: Option<bool>,
    /// What the memory check before loading may assume (`--max-memory`,
    /// `--threads`, `--jobs`; docs/REFERENCE.md, "Limits").
    pub memory: crate::core::memory::MemoryBudget,
}

impl Overrides {
    /// Apply the overrides to a scenario file's `seed`, `repetitions` and
    /// `[output] plots` (every mode's loader calls this one rule).
    pub fn apply(&self, seed: &mut u64, repetitions: &mut u32, plots: &mut bool) {
        if let Some(s) = self.seed {
            *seed = s;
        }
        if let Some(r) = self.repetitions {
            *repetitions = r;
        }
        if let Some(x) = self.plots {
            *plots = x;
        }
    }
}

/// The text of the scenario file at `path`: a regular file of at most
/// [`MAX_SCENARIO_BYTES`] bytes of UTF-8.
pub fn read_scenario_text(path: &Path) -> Result<String> {
    read_text(path, "scenario", "a TOML text file", MAX_SCENARIO_BYTES)
}

/// A TOML parse or deserialisation error of the scenario `at`, its lines
/// (which quote the source) capped and escaped, its message in TOML's
/// words ([`in_toml_words`]).
pub fn toml_error(at: &str, e: &impl fmt::Display) -> Error {
    let text = e.to_string();
    let lines: Vec<String> = text
        .trim_end()
        .lines()
        .map(|l| {
            if is_source_excerpt(l) {
                l.to_string()
            } else {
                in_toml_words(l)
            }
        })
        .collect();
    Error::input(format!(
        "{at}: {}",
        crate::core::io::echo::capped_lines(&lines.join("\n"))
    ))
}

/// A line of toml's source excerpt (`  |`, `5 | gpus = -1`, `  |  ^^`):
/// it quotes the user's text, which is never rewritten.
fn is_source_excerpt(line: &str) -> bool {
    line.trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start()
        .starts_with('|')
}

/// A deserialisation message in TOML's words, not serde's Rust names
/// (first-contact audit): `unknown variant` reads `unknown value`,
/// `expected f64` reads `expected a number`, an
/// integer type (`u32`, `i64`, …) `a whole number`, `a sequence` and
/// `sequence` read `an array` and `array`, `a map` and `map` `a table`
/// and `table`, and `expected struct ClusterSection` reads `expected a
/// table`. Keys with a documented range state it themselves
/// ([`crate::core::io::whole`]); this catches every other key, present or
/// future. Other text is left as it is.
pub fn in_toml_words(message: &str) -> String {
    const WHOLE: [&str; 10] = [
        "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize",
    ];
    let mut m = message.to_string();
    if let Some(rest) = m.strip_prefix("unknown variant ") {
        m = format!("unknown value {rest}");
    }
    for (serde, toml) in [("sequence", "array"), ("map", "table")] {
        if let Some(rest) = m.strip_prefix(&format!("invalid type: {serde}, ")) {
            m = format!("invalid type: {toml}, {rest}");
        }
    }
    let Some(at) = m.rfind(", expected ") else {
        return m;
    };
    let (head, expected) = m.split_at(at + ", expected ".len());
    let plain = match expected {
        "f64" | "f32" => "a number",
        "a sequence" => "an array",
        "a map" => "a table",
        e if WHOLE.contains(&e) => "a whole number",
        e if e.strip_prefix("struct ").is_some_and(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) =>
        {
            "a table"
        }
        _ => return m,
    };
    format!("{head}{plain}")
}

/// Which simulation a scenario file asks for (its top-level `mode` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioMode {
    /// Model selection (DESIGN §2; the default).
    Models,
    /// Job-trace replay (DESIGN §9).
    Jobs,
    /// Several workloads on one cluster (DESIGN §13).
    Shared,
}

/// Read the top-level `mode` of the TOML text `text` from `path`. A text
/// that is not valid TOML is reported as `Models`, so that the
/// model-selection loader reports the syntax error as it always did.
pub fn mode_of_text(path: &Path, text: &str) -> Result<ScenarioMode> {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(ScenarioMode::Models);
    };
    match table.get("mode") {
        None => Ok(ScenarioMode::Models),
        Some(toml::Value::String(s)) if s == "models" => Ok(ScenarioMode::Models),
        Some(toml::Value::String(s)) if s == "jobs" => Ok(ScenarioMode::Jobs),
        Some(toml::Value::String(s)) if s == "shared" => Ok(ScenarioMode::Shared),
        Some(v) => Err(Error::input(format!(
            "{}: mode: expected \"models\", \"jobs\" or \"shared\", got `{}`",
            path.display(),
            shown(&v.to_string())
        ))),
    }
}

/// The mode of the scenario file at `path` (see [`mode_of_text`]);
/// unreadable files are `Models` so the usual loader reports them.
pub fn scenario_mode(path: &Path) -> Result<ScenarioMode> {
    match read_scenario_text(path) {
        Ok(text) => mode_of_text(path, &text),
        Err(_) => Ok(ScenarioMode::Models),
    }
}

/// The message for a `[[policy]]` table (named `name`, if it has one)
/// without its required key `missing`: when one of its other keys
/// `present` looks like a misspelling of it, that key is named first (a
/// typo would otherwise only read as "missing field"). serde's own
/// message otherwise.
pub fn missing_policy_key<'a>(
    name: Option<&str>,
    missing: &str,
    present: impl IntoIterator<Item = &'a str>,
) -> String {
    let typo = present.into_iter().find(|k| looks_like(k, missing));
    match typo {
        Some(typo) => {
            let table = name.map_or_else(
                || "[[policy]]".to_string(),
                |n| format!("[[policy]] (\"{}\")", shown(n)),
            );
            format!(
                "{table}: unknown key `{}` (did you mean `{missing}`?), and the required key \
                 `{missing}` is missing",
                shown(typo)
            )
        }
        None => format!("missing field `{missing}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serdes_rust_names_read_in_tomls_words() {
        for (serde, toml) in [
            (
                "invalid type: string \"lots\", expected f64",
                "invalid type: string \"lots\", expected a number",
            ),
            (
                "invalid type: sequence, expected f64",
                "invalid type: array, expected a number",
            ),
            (
                "invalid type: map, expected u32",
                "invalid type: table, expected a whole number",
            ),
            (
                "invalid type: floating point `0.1`, expected a sequence",
                "invalid type: floating point `0.1`, expected an array",
            ),
            (
                "invalid type: integer `5`, expected struct ClusterSection",
                "invalid type: integer `5`, expected a table",
            ),
            (
                "invalid type: integer `5`, expected a map",
                "invalid type: integer `5`, expected a table",
            ),
            (
                "unknown variant `pack`, expected `consolidate` or `spread`",
                "unknown value `pack`, expected `consolidate` or `spread`",
            ),
            // Left alone: messages already in plain words, and a quoted
            // value that merely contains the words.
            (
                "invalid type: string \"yes\", expected a boolean",
                "invalid type: string \"yes\", expected a boolean",
            ),
            (
                "unknown field `cont`, expected one of `type`, `count`",
                "unknown field `cont`, expected one of `type`, `count`",
            ),
            (
                "invalid type: string \"x, expected f64\", expected a boolean",
                "invalid type: string \"x, expected f64\", expected a boolean",
            ),
            ("wanted string or table", "wanted string or table"),
        ] {
            assert_eq!(in_toml_words(serde), toml);
        }
    }

    #[test]
    fn the_source_excerpt_is_never_rewritten() {
        let e = toml::from_str::<toml::Table>("x = 1\ny = [")
            .map(|_| ())
            .expect_err("unclosed");
        assert_eq!(
            toml_error("f", &e).message(),
            format!("f: {}", e.to_string().trim_end())
        );
        #[derive(Debug, serde::Deserialize)]
        struct F {
            #[allow(dead_code)]
            speed: f64,
        }
        // The quoted line ends as a message would ("…, expected f64", in
        // its comment) and is kept; the message line reads in TOML's words.
        let text = "speed = \"lots\" # no, expected f64";
        let e = toml::from_str::<F>(text).expect_err("a string");
        let message = toml_error("f", &e).message().to_string();
        assert!(
            message.contains("1 | speed = \"lots\" # no, expected f64\n"),
            "{message}"
        );
        assert!(
            message.ends_with("\ninvalid type: string \"lots\", expected a number"),
            "{message}"
        );
    }

    #[test]
    fn a_misspelt_required_key_is_named_with_what_is_missing() {
        assert!(looks_like("selectr", "selector"));
        assert_eq!(
            missing_policy_key(Some("p"), "selector", ["selectr", "delta"]),
            "[[policy]] (\"p\"): unknown key `selectr` (did you mean `selector`?), and the \
             required key `selector` is missing"
        );
        assert_eq!(
            missing_policy_key(None, "selector", ["delta"]),
            "missing field `selector`"
        );
    }
}
