//! Entries known by a unique name, in the order added: the registries of
//! both modes' policies (DESIGN §10) are lists of these.

use std::sync::Arc;

use crate::core::error::{Error, Result};
use crate::core::spelling::nearest;

/// Something scenarios refer to by name.
pub trait Named {
    /// The name scenarios use.
    fn name(&self) -> &str;
}

/// Entries with unique, non-empty names, in the order added; `kind`
/// ("scheduler", "job scheduler"…) names them in messages.
#[derive(Debug, Clone)]
pub struct NamedList<E> {
    kind: &'static str,
    entries: Vec<Arc<E>>,
}

impl<E: Named> NamedList<E> {
    /// A list of `entries` (names assumed unique: the built-ins).
    pub fn new(kind: &'static str, entries: impl IntoIterator<Item = E>) -> Self {
        Self {
            kind,
            entries: entries.into_iter().map(Arc::new).collect(),
        }
    }

    /// Add `entry`; its name must be non-empty and not taken.
    pub fn add(&mut self, entry: E) -> Result<()> {
        let (kind, name) = (self.kind, entry.name());
        if name.trim().is_empty() {
            return Err(Error::usage(format!(
                "cannot register a {kind} with an empty name"
            )));
        }
        if self.get(name).is_some() {
            return Err(Error::usage(format!(
                "cannot register the {kind} `{name}`: a {kind} of that name is already registered"
            )));
        }
        self.entries.push(Arc::new(entry));
        Ok(())
    }

    /// The entry called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<E>> {
        self.entries.iter().find(|e| e.name() == name)
    }

    /// Every entry, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        self.entries.iter().map(AsRef::as_ref)
    }

    /// Every name, comma-separated, for messages.
    pub fn names(&self) -> String {
        self.iter().map(Named::name).collect::<Vec<_>>().join(", ")
    }

    /// The message for a scenario that names `name`, which is not in the
    /// list: "unknown job scheduler `fifa` (did you mean `fifo`?): expected
    /// one of …", the hint when `name` looks like a misspelling of one
    /// ([`nearest`]). `shown` is `name` as the message quotes it (escaped
    /// and capped by the caller).
    pub fn unknown(&self, name: &str, shown: &str) -> String {
        format!(
            "unknown {} `{shown}`{}: expected one of {}",
            self.kind,
            self.hint(name),
            self.names()
        )
    }

    /// " (did you mean `fifo`?)" when `name` looks like a misspelling of
    /// one of the list's names ([`nearest`]), else nothing: for messages
    /// that list the choices their own way (the workflows' rules, with
    /// what each does).
    pub fn hint(&self, name: &str) -> String {
        nearest(name, self.iter().map(Named::name))
            .map(|near| format!(" (did you mean `{near}`?)"))
            .unwrap_or_default()
    }
}
