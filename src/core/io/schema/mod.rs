//! The result files, each defined once: name, columns in order, each
//! column's type, unit and meaning, and when an optional column is there.
//! The writers (`models::report`, `jobs::report`, the two `sweep.csv`)
//! write their headers from these schemas, the figure readers
//! (`plot::data`) look their columns up through them, and `tenantsim
//! schema --json` exports them for the Python package
//! (`python/tenantsim/schema.json`). docs/REFERENCE.md "Results folder"
//! describes the files; `tenantsim schema` prints these tables.
//!
//! A column's name may hold one placeholder: `<θ>` (one column per
//! threshold θ, in the scenario's order), `<type>` (one per GPU type, in
//! the cluster's order) or `<key>` (one per swept key, in the sweep's
//! order). This module imports nothing from `models`, `jobs` or `plot`.

pub mod job_files;
pub mod model_files;

use std::fmt::Write as _;

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
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 10] = [
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
}

impl When {
    /// In words, for `tenantsim schema`.
    pub fn text(self) -> &'static str {
        match self {
            When::Always => "always",
            When::CurveTrace => "on a curve trace",
            When::TypedCluster => "on a typed cluster",
            When::EndReasons => "when a policy may end a tenant by its schedule",
        }
    }
}

/// Which of the two modes writes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Model mode (`crate::models`).
    Models,
    /// Job mode (`crate::jobs`).
    Jobs,
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
}

impl Layout {
    fn has(&self, when: When) -> bool {
        match when {
            When::Always => true,
            When::CurveTrace => self.curve_trace,
            When::TypedCluster => self.typed,
            When::EndReasons => self.end_reasons,
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

/// Every result file's schema: model mode's, then job mode's.
pub fn all() -> Vec<&'static FileSchema> {
    model_files::ALL
        .iter()
        .chain(job_files::ALL)
        .copied()
        .collect()
}

/// The schema of `name` in `mode`, if that mode writes such a file.
pub fn find(mode: Mode, name: &str) -> Option<&'static FileSchema> {
    all().into_iter().find(|f| f.mode == mode && f.name == name)
}

/// The document `tenantsim schema --json` prints and
/// `python/tenantsim/schema.json` holds.
#[derive(Debug, Serialize)]
struct Document {
    /// What this is.
    about: &'static str,
    /// Kind name → meaning.
    kinds: serde_json::Map<String, serde_json::Value>,
    /// Every file.
    files: Vec<&'static FileSchema>,
}

/// The schemas as one JSON document (pretty, with a final newline):
/// `tenantsim schema --json`.
pub fn to_json() -> String {
    let doc = Document {
        about: "tenantsim result files: generated by `tenantsim schema --json`; do not edit",
        kinds: Kind::ALL
            .iter()
            .map(|k| (k.name().to_string(), k.meaning().into()))
            .collect(),
        files: all(),
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}

/// The schemas as Markdown, one table per file: `tenantsim schema`.
pub fn to_markdown() -> String {
    let mut out = String::new();
    for f in all() {
        let mode = match f.mode {
            Mode::Models => "model mode",
            Mode::Jobs => "job mode",
        };
        let _ = writeln!(
            out,
            "#### `{}` ({mode})\n\nOne row per {}; written {}.\n",
            f.name, f.rows, f.written
        );
        out.push_str("| column | type | unit | when | meaning |\n|---|---|---|---|---|\n");
        for c in f.columns {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                c.name,
                c.kind.name(),
                c.unit,
                c.when.text(),
                c.meaning
            );
        }
        out.push('\n');
    }
    out.push_str("Types: ");
    for (i, k) in Kind::ALL.iter().enumerate() {
        let sep = if i + 1 == Kind::ALL.len() {
            ".\n"
        } else {
            "; "
        };
        let _ = write!(out, "`{}` {}{sep}", k.name(), k.meaning());
    }
    out
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
        $crate::core::io::schema::result_file! {
            $mode, $fname, rows $rows, written $written;
            $id0 = $name0 : $kind0, $unit0, $when0, $meaning0;
            $( $id = $name : $kind, $unit, $when, $meaning; )*
        }
        #[doc = concat!("The header of `", $fname, "` (no trailing newline); its columns never vary.")]
        pub const HEADER: &str = concat!($name0 $(, ",", $name)*);
    };
}
pub(crate) use result_file;

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed file's `HEADER` is the header its schema builds.
    #[test]
    fn fixed_headers_are_the_schemas_headers() {
        use model_files::{curves, curves_by_job, regret, speedups, speedups_up_to};
        for (file, header) in [
            (curves::FILE, curves::HEADER),
            (curves_by_job::FILE, curves_by_job::HEADER),
            (speedups::FILE, speedups::HEADER),
            (speedups_up_to::FILE, speedups_up_to::HEADER),
            (regret::FILE, regret::HEADER),
            (job_files::users::FILE, job_files::users::HEADER),
            (job_files::utilization::FILE, job_files::utilization::HEADER),
        ] {
            assert_eq!(file.header(&Layout::default()), format!("{header}\n"));
        }
    }

    /// Placeholders expand in order, optional columns follow their
    /// condition, and `match_header` maps the expansion back.
    #[test]
    fn headers_expand_and_match_back() {
        let f = model_files::summary::FILE;
        let layout = Layout {
            thresholds: vec![0.1, 0.05],
            gpu_types: vec!["v100".into(), "k80".into()],
            typed: true,
            ..Layout::default()
        };
        let names = f.names(&layout);
        assert_eq!(names[5..7], ["time_to_0.1_s", "time_to_0.05_s"]);
        assert!(names.ends_with(&[
            "gpu_busy_fraction.v100".to_string(),
            "gpu_busy_fraction.k80".to_string()
        ]));
        assert!(!names.iter().any(|n| n == "low_fidelity_gpu_s"));
        let cols = f.match_header(&names).expect("matches");
        assert_eq!(cols.len(), names.len());
        assert_eq!(cols[6].name, "time_to_<θ>_s");
        let mut wrong = names.clone();
        wrong.swap(0, 1);
        let e = f.match_header(&wrong).expect_err("order");
        assert!(e.to_string().contains("column 1: expected `policy`"), "{e}");
        wrong = names;
        wrong.push("extra".into());
        let e = f.match_header(&wrong).expect_err("extra");
        assert!(
            e.to_string().contains("`extra` is not in the schema"),
            "{e}"
        );
        // Swept keys: any names up to `policy`.
        let s = model_files::sweep::FILE;
        let layout = Layout {
            swept_keys: vec!["cluster.gpus".into(), "a,b".into()],
            thresholds: vec![0.1],
            ..Layout::default()
        };
        assert!(
            s.header(&layout)
                .starts_with("point,folder,cluster.gpus,\"a,b\",policy,")
        );
        let cols = s.match_header(&s.names(&layout)).expect("sweep");
        assert_eq!(cols[3].name, "<key>");
        assert_eq!(cols[4].name, "policy");
    }

    /// The figure reader reads either mode's `sweep.csv` by the same
    /// leading columns.
    #[test]
    fn both_sweep_files_start_alike() {
        assert_eq!(
            model_files::sweep::FILE.columns[..5],
            job_files::sweep::FILE.columns[..5]
        );
    }

    #[test]
    fn kinds_accept_their_texts_only() {
        assert!(Kind::Seconds.accepts("1.500000"));
        assert!(!Kind::Seconds.accepts("1.5"));
        assert!(Kind::SecondsOrInf.accepts("inf"));
        assert!(!Kind::Seconds.accepts("inf"));
        assert!(Kind::Ratio.accepts("n/a") && Kind::Ratio.accepts("") && Kind::Ratio.accepts("2"));
        assert!(!Kind::Int.accepts("2.5") && !Kind::Float.accepts("NaN"));
        assert!(Kind::Bool.accepts("false") && !Kind::Bool.accepts("0"));
    }

    /// Every file has its columns once, and the JSON names every kind.
    #[test]
    fn schemas_are_well_formed() {
        for f in all() {
            for (i, c) in f.columns.iter().enumerate() {
                assert!(
                    !f.columns[..i].iter().any(|d| d.name == c.name),
                    "{}: `{}` twice",
                    f.name,
                    c.name
                );
                assert!(!c.meaning.is_empty(), "{}: `{}`", f.name, c.name);
            }
        }
        let json: serde_json::Value = serde_json::from_str(&to_json()).expect("json");
        assert_eq!(
            json["kinds"].as_object().map(|k| k.len()),
            Some(Kind::ALL.len())
        );
    }
}
