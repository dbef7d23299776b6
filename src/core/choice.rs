//! Closed sets of named values (an import format, a score, a figure
//! format…) that users pick by name, in a scenario or on the command line.
//!
//! The library owns the names and a one-line description of each value;
//! the command line builds its possible values (and their `--help` lines)
//! from them, and scenario parsing uses [`parse_choice`], so both accept
//! the same names.

/// A closed set of values chosen by name.
pub trait Choice: Copy + PartialEq + 'static {
    /// Every value, in the order they are listed to users.
    const ALL: &'static [Self];
    /// The name users type.
    fn name(self) -> &'static str;
    /// What the value means, in one line (shown by `--help`).
    fn help(self) -> &'static str;
}

/// The value named `name`, ignoring ASCII case.
///
/// ```
/// use tenantsim::core::choice::{Choice, parse_choice};
/// use tenantsim::models::import::RuntimeModel;
/// assert_eq!(parse_choice::<RuntimeModel>("Unit"), Some(RuntimeModel::Unit));
/// assert_eq!(parse_choice::<RuntimeModel>("fast"), None);
/// ```
pub fn parse_choice<T: Choice>(name: &str) -> Option<T> {
    T::ALL
        .iter()
        .copied()
        .find(|v| v.name().eq_ignore_ascii_case(name))
}

/// The names of every value, comma-separated (`measured, unit`), for error
/// messages.
pub fn choice_names<T: Choice>() -> String {
    T::ALL
        .iter()
        .map(|v| v.name())
        .collect::<Vec<_>>()
        .join(", ")
}
