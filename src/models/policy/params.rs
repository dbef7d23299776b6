//! Policy parameters from a scenario's `[[policy]]` table.

use std::collections::BTreeMap;

use crate::core::error::{Error, Result};

/// The parameter keys of one `[[policy]]` table (everything but `name`,
/// `scheduler` and `selector`). Policies take the keys they understand;
/// [`Params::finish`] rejects whatever nobody took, so a typo is an error.
#[derive(Debug, Clone)]
pub struct Params {
    /// Where the table is, for messages: `file: [[policy]] #2 ("ease.ml")`.
    context: String,
    values: BTreeMap<String, toml::Value>,
    taken: Vec<String>,
}

impl Params {
    /// Wrap the keys of one table.
    pub fn new(context: impl Into<String>, values: BTreeMap<String, toml::Value>) -> Self {
        Self {
            context: context.into(),
            values,
            taken: Vec::new(),
        }
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
        Error::input(format!(
            "{}: key `{key}`: expected {expected}, got {} `{got}`",
            self.context,
            got.type_str()
        ))
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

    /// A string parameter, or `default`.
    pub fn string(&mut self, key: &str, default: &str) -> Result<String> {
        match self.take(key) {
            None => Ok(default.to_string()),
            Some(toml::Value::String(s)) => Ok(s),
            Some(v) => Err(self.wrong_type(key, "a string", &v)),
        }
    }

    /// An error about the value of `key`.
    pub fn invalid(&self, key: &str, message: impl std::fmt::Display) -> Error {
        Error::input(format!("{}: key `{key}`: {message}", self.context))
    }

    /// Reject keys nobody took; `owners` names the scheduler and selector.
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
