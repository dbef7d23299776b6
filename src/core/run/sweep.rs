//! Parameter sweeps, for both modes (DESIGN §6.8): a `[sweep]` table lists
//! values for chosen keys; the scenario is expanded into one validated
//! scenario per grid point.
//!
//! Values are applied to the scenario's TOML document *before* it is
//! deserialised, so every key a scenario supports can be swept without
//! special cases, and each grid point is validated exactly like a plain
//! scenario. A mode supplies how to deserialise a document and how to
//! build a scenario from it ([`Expand`]).
//!
//! A mistake that is not the sweep's (a typo in a key no axis sets) is
//! reported as in a plain scenario, with its line and column: the
//! scenario without its `[sweep]` (the base) is read from the text too,
//! and an error a point shares with the base is the base's.

use std::fmt::Write as _;
use std::path::Path;

use serde::de::DeserializeOwned;
use toml::{Table, Value};

use crate::core::error::{Error, Result};
use crate::core::io::scenario::{Overrides, toml_error};
use crate::core::limits::{MAX_SWEEP_POINTS, grouped};

/// One swept key and its values, in the order listed.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepAxis {
    /// Dotted key, e.g. `cluster.gpus` or `policy.0.delta` (a number
    /// indexes an array such as the `[[policy]]` list, from 0).
    pub key: String,
    /// The values, at least one.
    pub values: Vec<Value>,
}

/// One point of the grid: the values it takes and its validated scenario.
#[derive(Debug, Clone)]
pub struct SweepPoint<S> {
    /// Position in the grid, from 0.
    pub index: usize,
    /// `(key, value)` per axis, in axis order.
    pub values: Vec<(String, Value)>,
    /// The scenario with these values applied.
    pub scenario: S,
}

impl<S> SweepPoint<S> {
    /// The point's results folder name, e.g. `point-003-cluster.gpus=8`
    /// (the index is zero-padded to `width` digits; characters other than
    /// letters, digits and `._=+-` become `_`).
    pub fn folder_name(&self, width: usize) -> String {
        let mut name = format!("point-{:0width$}", self.index);
        for (i, (k, v)) in self.values.iter().enumerate() {
            name.push(if i == 0 { '-' } else { '+' });
            let _ = write!(name, "{k}={}", value_text(v));
        }
        let mut clean: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._=+-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if clean.len() > 120 {
            clean.truncate(120);
        }
        clean
    }
}

/// A swept value as text: strings without quotes, anything else in TOML
/// syntax (`8`, `0.5`, `[1, 2]`).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What a scenario file asks to run: one scenario, or a grid of them.
#[derive(Debug, Clone)]
pub enum Plan<S> {
    /// A scenario without `[sweep]`.
    Single(Box<S>),
    /// A scenario with `[sweep]`: the axes and every grid point.
    Sweep {
        /// The swept keys, in grid order (the last varies fastest).
        axes: Vec<SweepAxis>,
        /// Every grid point, in grid order.
        points: Vec<SweepPoint<S>>,
    },
}

impl<S> Plan<S> {
    /// Every scenario to run, in grid order.
    pub fn scenarios(&self) -> Vec<&S> {
        match self {
            Self::Single(s) => vec![s.as_ref()],
            Self::Sweep { points, .. } => points.iter().map(|p| &p.scenario).collect(),
        }
    }
}

/// How a mode turns scenario documents into scenarios: `F` is its
/// deserialised file, `S` its validated scenario.
pub trait Expand<F, S> {
    /// Parse and validate a scenario without `[sweep]` from its `text` (so
    /// that messages keep toml's line and column).
    fn plain(&mut self, path: &Path, text: &str, overrides: Overrides) -> Result<S>;
    /// Deserialise a document (a message without the file name on error).
    fn deserialize(&mut self, doc: Table) -> Result<F>;
    /// Validate a deserialised point; the error names what is wrong.
    fn build(&mut self, path: &Path, file: F, overrides: Overrides) -> Result<S>;
}

/// Expand the scenario `text` read from `path`: its `[sweep]`, if any,
/// into every grid point, each built by `mode`.
pub fn expand_plan<F: DeserializeOwned, S>(
    mode: &mut impl Expand<F, S>,
    path: &Path,
    text: &str,
    overrides: Overrides,
) -> Result<Plan<S>> {
    let at = path.display().to_string();
    let mut doc: Table = toml::from_str(text).map_err(|e| toml_error(&at, &e))?;
    let Some(sweep) = doc.remove("sweep") else {
        // The plain path keeps toml's line and column in its messages.
        return Ok(Plan::Single(Box::new(mode.plain(path, text, overrides)?)));
    };
    let axes = parse_axes(&at, sweep)?;
    check_point_count(&at, &axes)?;
    for (flag, key, set) in [
        ("--seed", "seed", overrides.seed.is_some()),
        ("--reps", "repetitions", overrides.repetitions.is_some()),
    ] {
        if set && axes.iter().any(|a| a.key == key) {
            return Err(Error::usage(format!(
                "{flag} conflicts with the [sweep] key `{key}` of {at}: drop one of them"
            )));
        }
    }
    // The base may lack what the sweep gives (a key only the sweep sets):
    // its error counts only where a point fails with it too.
    let base = Base(base_file::<F>(text));
    // Each value alone first, so a bad key or value is blamed on its axis.
    for axis in &axes {
        for v in &axis.values {
            let mut d = doc.clone();
            let blame = |e: Error| {
                Error::input(format!(
                    "{at}: [sweep] `{}` = {v}: {}",
                    axis.key,
                    e.message()
                ))
            };
            set_key(&mut d, &axis.key, v.clone()).map_err(blame)?;
            if let Err(e) = mode.deserialize(d.clone()) {
                return Err(base.shared_parse_error(&at, &d).unwrap_or_else(|| blame(e)));
            }
        }
    }
    let mut points = Vec::new();
    for (index, values) in grid(&axes).into_iter().enumerate() {
        let kv: Vec<String> = values.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        let describe = || format!("{at}: [sweep] point {index} ({})", kv.join(", "));
        let mut d = doc.clone();
        for (k, v) in &values {
            set_key(&mut d, k, v.clone()).map_err(|e| e.context(describe()))?;
        }
        let file = match mode.deserialize(d.clone()) {
            Ok(file) => file,
            Err(e) => {
                return Err(base
                    .shared_parse_error(&at, &d)
                    .unwrap_or_else(|| e.context(describe())));
            }
        };
        match mode.build(path, file, overrides) {
            Ok(scenario) => points.push(SweepPoint {
                index,
                values,
                scenario,
            }),
            Err(e) => {
                if base.build_fails_with(mode, path, overrides, &e) {
                    return Err(e);
                }
                return Err(e.context(format!("[sweep] point {index} ({})", kv.join(", "))));
            }
        }
    }
    Ok(Plan::Sweep { axes, points })
}

/// The scenario of a sweep without its `[sweep]`, deserialised from the
/// file's text (so that an error keeps its line and column).
struct Base<F>(std::result::Result<F, toml::de::Error>);

impl<F: DeserializeOwned> Base<F> {
    /// The base's own error, with its line and column, if the point
    /// document `doc` fails to deserialise with it too: the sweep did not
    /// cause it.
    fn shared_parse_error(&self, at: &str, doc: &Table) -> Option<Error> {
        let base = self.0.as_ref().err()?;
        match F::deserialize(Value::Table(doc.clone())) {
            Err(e) if e.message() == base.message() => Some(toml_error(at, base)),
            _ => None,
        }
    }

    /// Whether building the base fails with the error `e` of a point: the
    /// sweep did not cause it.
    fn build_fails_with<S>(
        self,
        mode: &mut impl Expand<F, S>,
        path: &Path,
        overrides: Overrides,
        e: &Error,
    ) -> bool {
        let Ok(file) = self.0 else {
            return false;
        };
        matches!(mode.build(path, file, overrides), Err(b) if b.message() == e.message())
    }
}

/// The scenario `text` without its top-level `sweep` key, deserialised
/// with its spans: an error shows its line and column as a plain
/// scenario's does.
fn base_file<F: DeserializeOwned>(text: &str) -> std::result::Result<F, toml::de::Error> {
    let mut root = toml::de::DeTable::parse(text)?;
    root.get_mut().remove("sweep");
    F::deserialize(toml::de::Deserializer::from(root)).map_err(|mut e| {
        e.set_input(Some(text));
        e
    })
}

/// The grid's size is the product of the list lengths; it is counted
/// before anything is expanded and must not exceed [`MAX_SWEEP_POINTS`].
fn check_point_count(at: &str, axes: &[SweepAxis]) -> Result<()> {
    let points = axes
        .iter()
        .try_fold(1u64, |n, a| n.checked_mul(a.values.len() as u64));
    match points {
        Some(n) if n <= MAX_SWEEP_POINTS => Ok(()),
        _ => {
            let sizes: Vec<String> = axes
                .iter()
                .map(|a| format!("{} ({})", a.key, a.values.len()))
                .collect();
            Err(Error::input(format!(
                "{at}: [sweep]: {} grid points ({}) exceed the limit of {} points",
                points.map_or_else(|| "more than 2^64".to_string(), grouped),
                sizes.join(" × "),
                grouped(MAX_SWEEP_POINTS)
            )))
        }
    }
}

/// The axes of a `[sweep]` table. Keys may be written quoted
/// (`"cluster.gpus" = [...]`) or as nested tables (`cluster.gpus = [...]`,
/// `[sweep.cluster]`); both flatten to the dotted key. Axes come in
/// lexicographic order of their dotted keys.
fn parse_axes(at: &str, sweep: Value) -> Result<Vec<SweepAxis>> {
    let Value::Table(table) = sweep else {
        return Err(Error::input(format!(
            "{at}: [sweep]: expected a table of `key = [values]`, got {}",
            sweep.type_str()
        )));
    };
    let mut axes = Vec::new();
    flatten(at, "", table, &mut axes)?;
    if axes.is_empty() {
        return Err(Error::input(format!(
            "{at}: [sweep]: expected at least one `key = [values]` entry, got an empty table"
        )));
    }
    axes.sort_by(|a, b| a.key.cmp(&b.key));
    for w in axes.windows(2) {
        if w[0].key == w[1].key {
            return Err(Error::input(format!(
                "{at}: [sweep]: the key `{}` is listed twice",
                w[0].key
            )));
        }
    }
    Ok(axes)
}

fn flatten(at: &str, prefix: &str, table: Table, axes: &mut Vec<SweepAxis>) -> Result<()> {
    for (k, v) in table {
        let key = if prefix.is_empty() {
            k
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Table(t) => flatten(at, &key, t, axes)?,
            Value::Array(values) if values.is_empty() => {
                return Err(Error::input(format!(
                    "{at}: [sweep] `{key}`: expected a non-empty list of values, got []"
                )));
            }
            Value::Array(values) => {
                if key == "sweep" || key.starts_with("sweep.") {
                    return Err(Error::input(format!(
                        "{at}: [sweep] `{key}`: the sweep table itself cannot be swept"
                    )));
                }
                axes.push(SweepAxis { key, values });
            }
            other => {
                return Err(Error::input(format!(
                    "{at}: [sweep] `{key}`: expected a list of values to sweep, got {} `{other}`",
                    other.type_str()
                )));
            }
        }
    }
    Ok(())
}

/// The cartesian product of the axes: the first axis varies slowest, the
/// last fastest.
fn grid(axes: &[SweepAxis]) -> Vec<Vec<(String, Value)>> {
    let mut points: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for axis in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                axis.values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push((axis.key.clone(), v.clone()));
                    q
                })
            })
            .collect();
    }
    points
}

/// Set the dotted `key` of `doc` to `value`, creating missing tables. A
/// numeric segment indexes an existing array (`policy.1.delta`).
fn set_key(doc: &mut Table, key: &str, value: Value) -> Result<()> {
    let segments: Vec<&str> = key.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(Error::input(format!(
            "`{key}` is not a dotted key (empty segment)"
        )));
    }
    set_in_table(doc, &segments, 0, value)
}

fn set_in_table(t: &mut Table, segs: &[&str], depth: usize, value: Value) -> Result<()> {
    let seg = segs[depth];
    if depth + 1 == segs.len() {
        t.insert(seg.to_string(), value);
        return Ok(());
    }
    let next = t
        .entry(seg.to_string())
        .or_insert_with(|| Value::Table(Table::new()));
    set_in_value(next, segs, depth + 1, value)
}

fn set_in_value(v: &mut Value, segs: &[&str], depth: usize, value: Value) -> Result<()> {
    let so_far = segs[..depth].join(".");
    match v {
        Value::Table(t) => set_in_table(t, segs, depth, value),
        Value::Array(a) => {
            let (seg, len) = (segs[depth], a.len());
            let i: usize = seg.parse().map_err(|_| {
                Error::input(format!(
                    "`{so_far}` is a list: expected an index from 0 after it, got `{seg}`"
                ))
            })?;
            let elem = a.get_mut(i).ok_or_else(|| {
                Error::input(format!(
                    "`{so_far}` has {len} entries: index {i} is out of range"
                ))
            })?;
            if depth + 1 == segs.len() {
                *elem = value;
                Ok(())
            } else {
                set_in_value(elem, segs, depth + 1, value)
            }
        }
        other => Err(Error::input(format!(
            "`{so_far}` is {} `{other}`, not a table",
            other.type_str()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Table {
        toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn set_key_creates_tables_and_indexes_arrays() {
        let mut d =
            doc("[cluster]\ngpus = 1\n[[policy]]\nname = \"a\"\n[[policy]]\nname = \"b\"\n");
        set_key(&mut d, "cluster.gpus", Value::Integer(8)).unwrap_or_else(|e| panic!("{e}"));
        set_key(&mut d, "split.tenant_count", Value::Integer(2)).unwrap_or_else(|e| panic!("{e}"));
        set_key(&mut d, "policy.1.delta", Value::Float(0.5)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d["cluster"]["gpus"].as_integer(), Some(8));
        assert_eq!(d["split"]["tenant_count"].as_integer(), Some(2));
        assert_eq!(d["policy"][1]["delta"].as_float(), Some(0.5));
        assert!(set_key(&mut d, "policy.2.delta", Value::Float(0.5)).is_err());
        assert!(set_key(&mut d, "policy.x", Value::Float(0.5)).is_err());
        assert!(set_key(&mut d, "cluster.gpus.x", Value::Float(0.5)).is_err());
        assert!(set_key(&mut d, "cluster..gpus", Value::Float(0.5)).is_err());
    }

    #[test]
    fn grid_is_the_cartesian_product_last_axis_fastest() {
        let axes = [
            SweepAxis {
                key: "a".into(),
                values: vec![Value::Integer(1), Value::Integer(2)],
            },
            SweepAxis {
                key: "b".into(),
                values: vec![Value::Integer(10), Value::Integer(20), Value::Integer(30)],
            },
        ];
        let g = grid(&axes);
        let flat: Vec<(i64, i64)> = g
            .iter()
            .map(|p| {
                (
                    p[0].1.as_integer().unwrap_or(-1),
                    p[1].1.as_integer().unwrap_or(-1),
                )
            })
            .collect();
        assert_eq!(flat, [(1, 10), (1, 20), (1, 30), (2, 10), (2, 20), (2, 30)]);
    }
}
