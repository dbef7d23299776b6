//! What every importer of this folder shares: the rows it produced with
//! their counts ([`Imported`]), where runtimes come from ([`RuntimeModel`]),
//! the runtime floor, and reading text and numbers with errors that name
//! the file and field. The format files import this leaf; `mod.rs`
//! dispatches to them.

use std::path::Path;

use crate::core::choice::Choice;
use crate::core::error::{Error, Result};
use crate::core::io::read_input;
use crate::models::trace::{Trace, TraceRow};

/// Seconds per job under [`RuntimeModel::Unit`].
pub const UNIT_RUNTIME_S: f64 = 1.0;

/// The 1 µs floor for measured runtimes (see each format); floored runtimes
/// are counted in [`Imported::runtime_floored`].
pub use crate::core::sim::time::RUNTIME_FLOOR_S;

/// Where the runtimes of an imported trace come from (named as in
/// [`Choice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RuntimeModel {
    /// The runtimes measured in the data (only for formats that have them).
    #[default]
    Measured,
    /// No runtime information: every job takes 1 s, so cost-aware policies
    /// see uniform costs. Required for data without runtimes.
    Unit,
}

impl Choice for RuntimeModel {
    const ALL: &'static [Self] = &[Self::Measured, Self::Unit];

    fn name(self) -> &'static str {
        match self {
            Self::Measured => "measured",
            Self::Unit => "unit",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Measured => "The runtimes measured in the data (only for formats that have them)",
            Self::Unit => {
                "No runtime information: every job takes 1 s, so cost-aware policies see uniform \
                 costs. Required for data without runtimes"
            }
        }
    }
}

/// The rows an importer produced, already validated, with counts.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Canonical trace rows, in input order.
    pub rows: Vec<TraceRow>,
    /// Distinct users.
    pub users: usize,
    /// Distinct models.
    pub models: usize,
    /// (user, model) cells of the input that did not become rows (missing
    /// values, failed runs, filtered out); what counts is documented per
    /// format.
    pub dropped: usize,
    /// Runtimes raised to [`RUNTIME_FLOOR_S`].
    pub runtime_floored: usize,
    /// Where the runtimes came from.
    pub runtime: RuntimeModel,
}

impl Imported {
    pub(super) fn new(
        rows: Vec<TraceRow>,
        trace: &Trace,
        dropped: usize,
        runtime_floored: usize,
        runtime: RuntimeModel,
    ) -> Self {
        Self {
            rows,
            users: trace.n_users(),
            models: trace.n_models(),
            dropped,
            runtime_floored,
            runtime,
        }
    }

    /// Number of (user, model) pairs.
    pub fn pairs(&self) -> usize {
        self.rows.len()
    }
}

/// Read a whole input file as UTF-8 text; invalid UTF-8 is reported with
/// the line it is on.
pub(crate) fn read_text(path: &Path, what: &str) -> Result<String> {
    let bytes = read_input(path, what)?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        Error::input(format!(
            "{}: line {line}: invalid UTF-8: expected text encoded as UTF-8",
            path.display()
        ))
    })
}

/// Parse a number from `text` found at `where_` as the named `field`.
pub(crate) fn parse_number(text: &str, field: &str, where_: &str) -> Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(Error::input(format!(
            "{where_}: field `{field}`: expected a finite number, got `{}`",
            crate::core::io::echo::shown(text)
        ))),
    }
}
