//! The vocabulary of a result file's schema: what a cell holds ([`Kind`]),
//! when an optional column is written ([`When`]), a column, a file, and a
//! header's layout against its schema. The files themselves are listed in
//! `model_files`, `job_files` and `shared_files`; `mod.rs` gathers them.

use serde::Serialize;

use crate::core::error::{Error, Result};
use crate::core::io::csv_text::csv_field;

/// What a cell holds, and how it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A name, as written (policy, user, model, GPU type...).
    Text,
    /// A whole number ≥ 0 (a count or an index).
    Int,
    /// A finite number (shortest round-trip text).
    Float,
    /// A finite number or `n/a` (not applicable).
    FloatOrNa,
    /// Seconds ≥ 0 with six decimals (exact microseconds).
    Seconds,
    /// Seconds ≥ 0, or `inf` (never).
    SecondsOrInf,
    /// Seconds ≥ 0, `inf` (never), or empty (the θ is not the point's).
    SecondsOrInfOrEmpty,
    /// A ratio: a finite number, `inf` (denominator 0), `n/a` (undefined)
    /// or empty (undefined in a `sweep.csv`).
    Ratio,
    /// `true` or `false`.
    Bool,
    /// A swept value: a string bare, anything else in TOML syntax.
    Value,
    /// Seconds ≥ 0 with six decimals, or empty (never: a time that did
    /// not come, as in `workflows/`).
    SecondsOrEmpty,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 11] = [
        Kind::Text,
        Kind::Int,
        Kind::Float,
        Kind::FloatOrNa,
        Kind::Seconds,
        Kind::SecondsOrInf,
        Kind::SecondsOrInfOrEmpty,
        Kind::Ratio,
        Kind::Bool,
        Kind::Value,
        Kind::SecondsOrEmpty,
    ];

    /// The kind's name (as in `schema.json`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::FloatOrNa => "float_or_na",
            Kind::Seconds => "seconds",
            Kind::SecondsOrInf => "seconds_or_inf",
            Kind::SecondsOrInfOrEmpty => "seconds_or_inf_or_empty",
            Kind::Ratio => "ratio",
            Kind::Bool => "bool",
            Kind::Value => "value",
            Kind::SecondsOrEmpty => "seconds_or_empty",
        }
    }

    /// What a cell of this kind holds, in one line.
    pub fn meaning(self) -> &'static str {
        match self {
            Kind::Text => "a name, as written",
            Kind::Int => "a whole number ≥ 0",
            Kind::Float => "a finite number (shortest round-trip text)",
            Kind::FloatOrNa => "a finite number, or `n/a`",
            Kind::Seconds => "seconds ≥ 0 with six decimals",
            Kind::SecondsOrInf => "seconds ≥ 0 with six decimals, or `inf` (never)",
            Kind::SecondsOrInfOrEmpty => {
                "seconds ≥ 0, `inf` (never), or empty (θ not used by the point)"
            }
            Kind::Ratio => "a finite number, `inf`, `n/a` or empty (undefined)",
            Kind::Bool => "`true` or `false`",
            Kind::Value => "a swept value: a string bare, anything else as TOML",
            Kind::SecondsOrEmpty => "seconds ≥ 0 with six decimals, or empty (never)",
        }
    }

    /// Whether `cell` is a valid text of this kind (used by the tests that
    /// hold every writer to its schema).
    pub fn accepts(self, cell: &str) -> bool {
        let num = |s: &str| s.parse::<f64>().is_ok_and(f64::is_finite);
        let secs = |s: &str| {
            s.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0)
                && s.split_once('.').is_some_and(|(_, d)| d.len() == 6)
        };
        match self {
            Kind::Text => !cell.is_empty(),
            Kind::Int => cell.parse::<u64>().is_ok(),
            Kind::Float => num(cell),
            Kind::FloatOrNa => cell == "n/a" || num(cell),
            Kind::Seconds => secs(cell),
            Kind::SecondsOrInf => cell == "inf" || secs(cell),
            Kind::SecondsOrInfOrEmpty => cell.is_empty() || cell == "inf" || secs(cell),
            Kind::Ratio => cell.is_empty() || cell == "inf" || cell == "n/a" || num(cell),
            Kind::Bool => cell == "true" || cell == "false",
            Kind::Value => true,
            Kind::SecondsOrEmpty => cell.is_empty() || secs(cell),
        }
    }
}

/// When a column (or a file) is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// Always.
    Always,
    /// On a curve trace (DESIGN §12.1).
    CurveTrace,
    /// On a typed cluster (DESIGN §11.2, §11.4).
    TypedCluster,
    /// When some policy may end a tenant by its schedule.
    EndReasons,
    /// When the cluster counts CPUs (`cpus_per_node`, DESIGN §14.6).
    CpuCluster,
}

impl When {
    /// In words, for `tenantsim schema`.
    pub fn text(self) -> &'static str {
        match self {
            When::Always => "always",
            When::CurveTrace => "on a curve trace",
            When::TypedCluster => "on a typed cluster",
            When::EndReasons => "when a policy may end a tenant by its schedule",
            When::CpuCluster => "when the cluster counts CPUs (cpus_per_node)",
        }
    }
}

/// Which mode writes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Model mode (`crate::models`).
    Models,
    /// Job mode (`crate::jobs`).
    Jobs,
    /// Shared-cluster mode (`crate::shared`): its own files only; its
    /// `service/` and `background/` hold model and job mode's.
    Shared,
}

/// One column of a result file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Column {
    /// Its name in the header; may hold one placeholder (`<θ>`, `<type>`,
    /// `<key>`: one column per threshold, GPU type or swept key).
    pub name: &'static str,
    /// What its cells hold.
    pub kind: Kind,
    /// Unit (empty when none).
    pub unit: &'static str,
    /// When it is written.
    pub when: When,
    /// What it means, in one line.
    pub meaning: &'static str,
}

/// The placeholders a column name may hold.
const PLACEHOLDERS: [&str; 3] = ["<θ>", "<type>", "<key>"];

impl Column {
    /// The placeholder the name holds, if any.
    pub fn placeholder(&self) -> Option<&'static str> {
        PLACEHOLDERS.into_iter().find(|p| self.name.contains(p))
    }
}

/// One result file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FileSchema {
    /// File name in the results folder.
    pub name: &'static str,
    /// The mode that writes it.
    pub mode: Mode,
    /// What one row is.
    pub rows: &'static str,
    /// When the file is written (in words).
    pub written: &'static str,
    /// Its columns, in order.
    pub columns: &'static [Column],
}

/// What the varying part of a header depends on: the thresholds, the GPU
/// types, the swept keys and the optional columns' conditions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// θ values (`<θ>` columns), in order.
    pub thresholds: Vec<f64>,
    /// GPU type names (`<type>` columns); empty on an untyped cluster.
    pub gpu_types: Vec<String>,
    /// Swept keys (`<key>` columns), in order.
    pub swept_keys: Vec<String>,
    /// A curve trace ([`When::CurveTrace`]).
    pub curve_trace: bool,
    /// A typed cluster ([`When::TypedCluster`]).
    pub typed: bool,
    /// Tenants' end reasons reported ([`When::EndReasons`]).
    pub end_reasons: bool,
    /// The cluster counts CPUs ([`When::CpuCluster`]).
    pub cpus: bool,
}

impl Layout {
    fn has(&self, when: When) -> bool {
        match when {
            When::Always => true,
            When::CurveTrace => self.curve_trace,
            When::TypedCluster => self.typed,
            When::EndReasons => self.end_reasons,
            When::CpuCluster => self.cpus,
        }
    }

    /// The values a placeholder stands for.
    fn values(&self, placeholder: &str) -> Vec<String> {
        match placeholder {
            "<θ>" => self.thresholds.iter().map(f64::to_string).collect(),
            "<type>" => self.gpu_types.clone(),
            _ => self.swept_keys.clone(),
        }
    }
}

impl FileSchema {
    /// The column named `name` (placeholders as written in the schema),
    /// if the file has one.
    pub fn column(&self, name: &str) -> Option<&'static Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The column names of a file written with `layout`, placeholders
    /// expanded (not CSV-quoted).
    pub fn names(&self, layout: &Layout) -> Vec<String> {
        let mut out = Vec::new();
        for c in self.columns.iter().filter(|c| layout.has(c.when)) {
            match c.placeholder() {
                None => out.push(c.name.to_string()),
                Some(p) => out.extend(layout.values(p).iter().map(|v| c.name.replace(p, v))),
            }
        }
        out
    }

    /// The header line (with its newline) of a file written with
    /// `layout`: [`FileSchema::names`], each CSV-quoted where needed.
    pub fn header(&self, layout: &Layout) -> String {
        let mut out = String::new();
        for (i, n) in self.names(layout).iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&csv_field(n));
        }
        out.push('\n');
        out
    }

    /// The schema column of each name of `header` (a file's header line,
    /// split), in order: an error naming the first column that does not
    /// follow the schema (a missing or extra column, a wrong order).
    /// Placeholder columns match any run of names of their pattern.
    pub fn match_header(&self, header: &[String]) -> Result<Vec<&'static Column>> {
        let mut out = Vec::new();
        let mut i = 0;
        for c in self.columns {
            match c.placeholder() {
                None => {
                    if header.get(i).is_some_and(|h| h == c.name) {
                        out.push(c);
                        i += 1;
                    } else if c.when == When::Always {
                        return Err(Error::input(format!(
                            "{}: column {}: expected `{}`, found `{}`",
                            self.name,
                            i + 1,
                            c.name,
                            header.get(i).map_or("(end of header)", String::as_str)
                        )));
                    }
                }
                Some(p) => {
                    let (pre, post) = c.name.split_once(p).unwrap_or((c.name, ""));
                    // A `<key>` column is any name up to the next fixed
                    // column of the schema.
                    let next_fixed = self
                        .columns
                        .iter()
                        .skip_while(|x| x.name != c.name)
                        .skip(1)
                        .find(|x| x.placeholder().is_none())
                        .map(|x| x.name);
                    while let Some(h) = header.get(i) {
                        let fits = if p == "<key>" {
                            Some(h.as_str()) != next_fixed
                        } else {
                            h.len() > pre.len() + post.len()
                                && h.starts_with(pre)
                                && h.ends_with(post)
                        };
                        if !fits {
                            break;
                        }
                        out.push(c);
                        i += 1;
                    }
                }
            }
        }
        match header.get(i) {
            None => Ok(out),
            Some(extra) => Err(Error::input(format!(
                "{}: column {}: `{extra}` is not in the schema",
                self.name,
                i + 1
            ))),
        }
    }
}

/// Declare one result file: a `Column` constant per column (named after
/// it) and the file's `FILE` constant listing them in order; with `fixed`,
/// also `HEADER`, the header line of a file whose columns never vary.
macro_rules! result_file {
    (
        $mode:ident, $fname:literal, rows $rows:literal, written $written:literal;
        $( $id:ident = $name:literal : $kind:ident, $unit:literal, $when:ident, $meaning:literal; )*
    ) => {
        $(
            #[doc = concat!("`", $name, "`: ", $meaning)]
            pub const $id: $crate::core::io::schema::Column = $crate::core::io::schema::Column {
                name: $name,
                kind: $crate::core::io::schema::Kind::$kind,
                unit: $unit,
                when: $crate::core::io::schema::When::$when,
                meaning: $meaning,
            };
        )*
        #[doc = concat!("The schema of `", $fname, "`.")]
        pub const FILE: $crate::core::io::schema::FileSchema = $crate::core::io::schema::FileSchema {
            name: $fname,
            mode: $crate::core::io::schema::Mode::$mode,
            rows: $rows,
            written: $written,
            columns: &[$($id),*],
        };
    };
    (
        fixed $mode:ident, $fname:literal, rows $rows:literal, written $written:literal;
        $id0:ident = $name0:literal : $kind0:ident, $unit0:literal, $when0:ident, $meaning0:literal;
        $( $id:ident = $name:literal : $kind:ident, $unit:literal, $when:ident, $meaning:literal; )*
    ) => {
        $crate::core::io::schema::file_schema::result_file! {
            $mode, $fname, rows $rows, written $written;
            $id0 = $name0 : $kind0, $unit0, $when0, $meaning0;
            $( $id = $name : $kind, $unit, $when, $meaning; )*
        }
        #[doc = concat!("The header of `", $fname, "` (no trailing newline); its columns never vary.")]
        pub const HEADER: &str = concat!($name0 $(, ",", $name)*);
    };
}
pub(crate) use result_file;
