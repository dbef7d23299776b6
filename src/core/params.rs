//! The parameter bag of one `[[policy]]` table, for both modes.
//!
//! A scenario loader wraps the table's parameter keys (everything but the
//! keys the loader reads itself, such as `name` and `scheduler`) in a
//! [`Params`]; each policy part (a model-mode scheduler and selector, a
//! job-mode scheduler) takes the keys it understands; [`Params::finish`]
//! then rejects whatever nobody took, so a typo is an error that lists the
//! keys accepted.

use std::collections::BTreeMap;

use crate::core::error::{Error, Result};

/// The parameter keys of one `[[policy]]` table.
#[derive(Debug, Clone)]
pub struct Params {
    /// Where the table is, for messages: `file: [[policy]] #2 ("ease.ml")`.
    context: String,
    values: BTreeMap<String, toml::Value>,
    /// Keys asked for (present or not), and the table's own keys: the list
    /// of accepted keys in [`Params::finish`]'s message.
    taken: Vec<String>,
}

impl Params {
    /// Wrap the keys of one table; `context` locates it in messages.
    pub fn new(context: impl Into<String>, values: BTreeMap<String, toml::Value>) -> Self {
        Self {
            context: context.into(),
            values,
            taken: Vec::new(),
        }
    }

    /// Name `keys` among the accepted ones in [`Params::finish`]'s message:
    /// the keys of the table that the loader reads itself (job mode lists
    /// `name`, `scheduler` and `backfill` there).
    pub fn with_table_keys(mut self, keys: &[&str]) -> Self {
        self.taken.extend(keys.iter().map(|k| (*k).to_string()));
        self
    }

    /// Where these parameters come from.
    pub fn context(&self) -> &str {
        &self.context
    }

    fn take(&mut self, key: &str) -> Option<toml::Value> {
        self.taken.push(key.to_string());
        self.values.remove(key)
    }

    fn wrong_type(&self, key: &str, expected: &str, got: &toml::Value) -> Error {
        self.invalid(
            key,
            format!("expected {expected}, got {} `{got}`", got.type_str()),
        )
    }

    /// A float parameter (integers are accepted), or `default`.
    pub fn f64(&mut self, key: &str, default: f64) -> Result<f64> {
        match self.take(key) {
            None => Ok(default),
            Some(toml::Value::Float(f)) => Ok(f),
            Some(toml::Value::Integer(i)) => Ok(i as f64),
            Some(v) => Err(self.wrong_type(key, "a number", &v)),
        }
    }

    /// An optional float parameter.
    pub fn opt_f64(&mut self, key: &str) -> Result<Option<f64>> {
        if self.values.contains_key(key) {
            self.f64(key, 0.0).map(Some)
        } else {
            self.taken.push(key.to_string());
            Ok(None)
        }
    }

    /// A non-negative integer parameter, or `default`.
    pub fn u64(&mut self, key: &str, default: u64) -> Result<u64> {
        match self.take(key) {
            None => Ok(default),
            Some(toml::Value::Integer(i)) if i >= 0 => Ok(i as u64),
            Some(v) => Err(self.wrong_type(key, "a non-negative integer", &v)),
        }
    }

    /// A boolean parameter, or `default`.
    pub fn bool(&mut self, key: &str, default: bool) -> Result<bool> {
        match self.take(key) {
            None => Ok(default),
            Some(toml::Value::Boolean(b)) => Ok(b),
            Some(v) => Err(self.wrong_type(key, "true or false", &v)),
        }
    }

    /// A string parameter, or `default`.
    pub fn string(&mut self, key: &str, default: &str) -> Result<String> {
        match self.take(key) {
            None => Ok(default.to_string()),
            Some(toml::Value::String(s)) => Ok(s),
            Some(v) => Err(self.wrong_type(key, "a string", &v)),
        }
    }

    /// A list of numbers (integers accepted), or `default`.
    pub fn f64_list(&mut self, key: &str, default: &[f64]) -> Result<Vec<f64>> {
        let Some(v) = self.take(key) else {
            return Ok(default.to_vec());
        };
        let toml::Value::Array(items) = v else {
            return Err(self.wrong_type(key, "a list of numbers", &v));
        };
        items
            .iter()
            .map(|x| match x {
                toml::Value::Float(f) => Ok(*f),
                toml::Value::Integer(i) => Ok(*i as f64),
                other => Err(self.invalid(
                    key,
                    format!(
                        "expected a list of numbers, found {} `{other}`",
                        other.type_str()
                    ),
                )),
            })
            .collect()
    }

    /// Every key not taken yet, with its value, now taken: for a policy
    /// that accepts any keys (e.g. one written in Python, which receives
    /// them as keyword arguments).
    pub fn take_rest(&mut self) -> BTreeMap<String, toml::Value> {
        let rest = std::mem::take(&mut self.values);
        self.taken.extend(rest.keys().cloned());
        rest
    }

    /// An error about the value of `key`.
    pub fn invalid(&self, key: &str, message: impl std::fmt::Display) -> Error {
        Error::input(format!("{}: key `{key}`: {message}", self.context))
    }

    /// Reject keys nobody took; `owners` names who took them in the
    /// message ("scheduler `greedy` and selector `gp-ucb`").
    pub fn finish(self, owners: &str) -> Result<()> {
        if let Some(key) = self.values.keys().next() {
            let mut accepted: Vec<&str> = self.taken.iter().map(String::as_str).collect();
            accepted.sort_unstable();
            accepted.dedup();
            let list = if accepted.is_empty() {
                "none".to_string()
            } else {
                accepted.join(", ")
            };
            return Err(Error::input(format!(
                "{}: unknown key `{key}` for {owners}: the keys it accepts are {list}",
                self.context
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_rest_takes_every_remaining_key() {
        let values: BTreeMap<String, toml::Value> = [
            ("a".to_string(), toml::Value::Integer(1)),
            ("b".to_string(), toml::Value::Boolean(true)),
        ]
        .into_iter()
        .collect();
        let mut p = Params::new("ctx", values);
        assert_eq!(p.u64("a", 0).ok(), Some(1));
        let rest = p.take_rest();
        assert_eq!(rest.keys().collect::<Vec<_>>(), ["b"]);
        assert!(p.finish("me").is_ok(), "nothing left to reject");
    }

    fn params(toml_text: &str) -> Params {
        let table: toml::Table = toml_text.parse().expect("test TOML");
        Params::new("s.toml: [[policy]] #1 (\"p\")", table.into_iter().collect())
    }

    fn message(r: Result<impl std::fmt::Debug>) -> String {
        r.expect_err("an error").to_string()
    }

    #[test]
    fn values_defaults_and_integers_for_floats() {
        let mut p = params("beta = 2\nn = 3\nkind = \"a\"\nxs = [1, 2.5]");
        assert_eq!(p.f64("beta", 0.0).ok(), Some(2.0));
        assert_eq!(p.f64("absent", 0.5).ok(), Some(0.5));
        assert_eq!(p.opt_f64("also_absent").ok(), Some(None));
        assert_eq!(p.u64("n", 0).ok(), Some(3));
        assert_eq!(p.string("kind", "b").ok().as_deref(), Some("a"));
        assert_eq!(p.f64_list("xs", &[]).ok(), Some(vec![1.0, 2.5]));
        assert_eq!(p.f64_list("ys", &[4.0]).ok(), Some(vec![4.0]));
        assert!(p.finish("scheduler `x`").is_ok());
    }

    #[test]
    fn wrong_types_name_the_table_key_and_value() {
        let mut p = params("beta = \"high\"\nn = -1\nxs = 3\nys = [1, \"a\"]");
        assert_eq!(
            message(p.f64("beta", 0.0)),
            "s.toml: [[policy]] #1 (\"p\"): key `beta`: expected a number, got string `\"high\"`"
        );
        assert_eq!(
            message(p.u64("n", 0)),
            "s.toml: [[policy]] #1 (\"p\"): key `n`: expected a non-negative integer, got integer `-1`"
        );
        assert_eq!(
            message(p.f64_list("xs", &[])),
            "s.toml: [[policy]] #1 (\"p\"): key `xs`: expected a list of numbers, got integer `3`"
        );
        assert_eq!(
            message(p.f64_list("ys", &[])),
            "s.toml: [[policy]] #1 (\"p\"): key `ys`: expected a list of numbers, found string `\"a\"`"
        );
    }

    #[test]
    fn unknown_keys_list_what_was_asked_for_and_the_table_keys() {
        // Model mode: the keys its scheduler and selector asked for.
        let mut p = params("xi = 0.1");
        let _ = p.f64("beta", 1.0);
        let _ = p.opt_f64("alpha");
        let _ = p.f64("beta", 1.0);
        assert_eq!(
            message(p.finish("scheduler `greedy` and selector `gp-ucb`")),
            "s.toml: [[policy]] #1 (\"p\"): unknown key `xi` for scheduler `greedy` and \
             selector `gp-ucb`: the keys it accepts are alpha, beta"
        );
        assert!(message(params("xi = 1").finish("scheduler `rr`")).ends_with("accepts are none"));
        // Job mode: the table's own keys are named too.
        let mut p = params("queue_thresholds_gpu_s = [1]").with_table_keys(&[
            "name",
            "scheduler",
            "backfill",
        ]);
        let _ = p.f64_list("other", &[]);
        assert_eq!(
            message(p.finish("scheduler `fifo`")),
            "s.toml: [[policy]] #1 (\"p\"): unknown key `queue_thresholds_gpu_s` for scheduler \
             `fifo`: the keys it accepts are backfill, name, other, scheduler"
        );
    }
}
