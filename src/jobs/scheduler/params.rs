//! Scheduler parameters from a job-mode `[[policy]]` table.

use std::collections::BTreeMap;

use crate::core::error::{Error, Result};

/// The keys of one `[[policy]]` table besides `name`, `scheduler` and
/// `backfill`. Schedulers take the keys they understand;
/// [`JobParams::finish`] rejects whatever nobody took.
#[derive(Debug, Clone)]
pub struct JobParams {
    context: String,
    values: BTreeMap<String, toml::Value>,
    taken: Vec<&'static str>,
}

impl JobParams {
    /// Wrap the keys of one table; `context` locates it in messages.
    pub fn new(context: impl Into<String>, values: BTreeMap<String, toml::Value>) -> Self {
        Self {
            context: context.into(),
            values,
            taken: Vec::new(),
        }
    }

    /// An error about `key`.
    pub fn invalid(&self, key: &str, message: impl std::fmt::Display) -> Error {
        Error::input(format!("{}: key `{key}`: {message}", self.context))
    }

    /// A list of numbers (integers accepted), or `default`.
    pub fn f64_list(&mut self, key: &'static str, default: &[f64]) -> Result<Vec<f64>> {
        self.taken.push(key);
        let Some(v) = self.values.remove(key) else {
            return Ok(default.to_vec());
        };
        let toml::Value::Array(items) = v else {
            return Err(self.invalid(
                key,
                format!("expected a list of numbers, got {} `{v}`", v.type_str()),
            ));
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

    /// Reject keys nobody took; `owner` names the scheduler.
    pub fn finish(self, owner: &str) -> Result<()> {
        if let Some(key) = self.values.keys().next() {
            let mut accepted: Vec<&str> = self.taken.clone();
            accepted.extend(["name", "scheduler", "backfill"]);
            accepted.sort_unstable();
            accepted.dedup();
            return Err(Error::input(format!(
                "{}: unknown key `{key}` for scheduler `{owner}`: the keys it accepts are {}",
                self.context,
                accepted.join(", ")
            )));
        }
        Ok(())
    }
}
