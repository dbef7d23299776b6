//! ASlib scenarios (Bischl et al., AIJ 2016): `algorithm_runs.arff`, one
//! row per (instance, repetition, algorithm) run, e.g. OPENML-WEKA-2017
//! (105 OpenML data sets × 30 WEKA classifiers).
//!
//! Input: the ARFF file, or the scenario folder holding it. When a
//! `description.txt` lies beside it, its `performance_measures` and
//! `maximize` lists are read to pick and check the measure.
//!
//! What becomes what:
//! - `user` = `instance_id`, verbatim (in OPENML-WEKA-2017 an OpenML id).
//! - `model` = `algorithm`, verbatim: the flow-id prefix must stay, since
//!   names repeat without it (`2364_weka.IBk` and `2889_weka.IBk`; three
//!   `weka.MultilayerPerceptron` flows).
//! - `accuracy` = the performance measure: `--measure`, else the first of
//!   the description's `performance_measures`, else `predictive_accuracy`.
//!   It must be maximised (a measure the description marks `maximize: false`,
//!   such as `runtime`, is rejected) and lie in [0, 1] (checked per row).
//! - `runtime_s` = the `runtime` attribute when the file has one (values
//!   below 1 µs are raised to [`RUNTIME_FLOOR_S`] and counted; negative is an
//!   error). OPENML-WEKA-2017 has none (`algorithm_cutoff_time: 0`): then the
//!   caller must ask for [`RuntimeModel::Unit`] (every job takes 1 s).
//! - No `model_year` / `model_citations` (none in the data).
//!
//! Repetitions: the values of the runs with `runstatus` `ok` are averaged
//! per (instance, algorithm); a run repeated with the same repetition number
//! is an error. Dropped: runs whose `runstatus` is not `ok` (timeout, memout,
//! crash, …: their measure is a penalty, not a result); a pair with no `ok`
//! run is unavailable and counted in [`Imported::dropped`]. Other attributes
//! (feature files, `cv.arff`) are not read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Imported, RUNTIME_FLOOR_S, RuntimeModel, UNIT_RUNTIME_S, parse_number, read_text};
use crate::core::error::{Error, Result};
use crate::models::trace::{TraceBuilder, TraceRow};

/// The file an ASlib scenario keeps its runs in.
pub const RUNS_FILE: &str = "algorithm_runs.arff";
/// The scenario description beside it.
pub const DESCRIPTION_FILE: &str = "description.txt";
/// The measure used when neither the caller nor the description names one.
pub const DEFAULT_MEASURE: &str = "predictive_accuracy";

/// Options of the ASlib importer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AslibOptions {
    /// The performance measure that becomes accuracy.
    pub measure: Option<String>,
    /// `None`: measured if the file has a `runtime` attribute, else an
    /// error asking for `Unit`. `Some(Unit)`: 1 s per job.
    /// `Some(Measured)`: the `runtime` attribute is required.
    pub runtime: Option<RuntimeModel>,
}

/// Read an ASlib scenario (`path` is the ARFF file or its folder).
pub fn read(path: &Path, opts: &AslibOptions) -> Result<Vec<TraceRow>> {
    read_with_stats(path, opts).map(|i| i.rows)
}

/// Like [`read`], with counts.
pub fn read_with_stats(path: &Path, opts: &AslibOptions) -> Result<Imported> {
    let runs: PathBuf = if path.is_dir() {
        path.join(RUNS_FILE)
    } else {
        path.to_path_buf()
    };
    let text = read_text(&runs, "ASlib algorithm runs file")?;
    let desc_path = runs.parent().map_or_else(
        || PathBuf::from(DESCRIPTION_FILE),
        |p| p.join(DESCRIPTION_FILE),
    );
    let description = if desc_path.is_file() {
        Some((
            desc_path.display().to_string(),
            read_text(&desc_path, "ASlib description")?,
        ))
    } else {
        None
    };
    parse(
        &runs.display().to_string(),
        &text,
        description
            .as_ref()
            .map(|(name, text)| (name.as_str(), text.as_str())),
        opts,
    )
}

/// A top-level YAML list `key:` of `text`, written inline (`[a, b]`) or as
/// `- item` lines. Enough for ASlib's `description.txt`.
fn yaml_list(text: &str, key: &str) -> Option<Vec<String>> {
    let mut lines = text.lines();
    let rest = lines.find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))?;
    let clean = |s: &str| s.trim().trim_matches(['\'', '"']).to_string();
    let rest = rest.trim();
    if let Some(inline) = rest.strip_prefix('[') {
        let inner = inline.trim_end().trim_end_matches(']');
        return Some(
            inner
                .split(',')
                .map(clean)
                .filter(|s| !s.is_empty())
                .collect(),
        );
    }
    if !rest.is_empty() {
        return Some(vec![clean(rest)]);
    }
    Some(
        lines
            .map_while(|l| l.trim_start().strip_prefix('-'))
            .map(clean)
            .collect(),
    )
}

/// The measure to use, checked against the description.
fn choose_measure(opts: &AslibOptions, description: Option<(&str, &str)>) -> Result<String> {
    let measures = description.and_then(|(_, t)| yaml_list(t, "performance_measures"));
    let measure = opts
        .measure
        .clone()
        .or_else(|| measures.as_ref().and_then(|m| m.first().cloned()))
        .unwrap_or_else(|| DEFAULT_MEASURE.to_string());
    if let (Some((name, text)), Some(measures)) = (description, &measures)
        && let Some(i) = measures.iter().position(|m| *m == measure)
    {
        let maximize = yaml_list(text, "maximize").unwrap_or_default();
        if maximize
            .get(i)
            .is_some_and(|m| m.eq_ignore_ascii_case("false"))
        {
            return Err(Error::input(format!(
                "{name}: performance measure `{measure}` is minimised (maximize: false): an accuracy trace needs a maximised measure in [0, 1]"
            )));
        }
    }
    Ok(measure)
}

/// Split one ARFF data line on commas outside single or double quotes,
/// trimming and unquoting each value.
fn split_values(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut was_quoted = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') if cur.trim().is_empty() => {
                cur.clear();
                quote = Some(c);
                was_quoted = true;
            }
            (None, ',') => {
                out.push(if was_quoted {
                    std::mem::take(&mut cur)
                } else {
                    std::mem::take(&mut cur).trim().to_string()
                });
                was_quoted = false;
            }
            (None, c) => cur.push(c),
        }
    }
    out.push(if was_quoted {
        cur
    } else {
        cur.trim().to_string()
    });
    out
}

/// The attribute name of an `@attribute NAME TYPE` line (NAME may be quoted).
fn attribute_name(rest: &str) -> String {
    let rest = rest.trim_start();
    for q in ['\'', '"'] {
        if let Some(inner) = rest.strip_prefix(q) {
            return inner.split(q).next().unwrap_or("").to_string();
        }
    }
    rest.split_whitespace().next().unwrap_or("").to_string()
}

fn strip_keyword<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let head = line.get(..keyword.len())?;
    head.eq_ignore_ascii_case(keyword)
        .then(|| &line[keyword.len()..])
        .filter(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

struct Pair {
    user: String,
    model: String,
    where_: String,
    ok_runs: usize,
    accuracy_sum: f64,
    runtime_sum: f64,
}

/// Parse the ARFF text of an algorithm runs file; `description` is
/// `(name, text)` of the scenario's `description.txt` when known.
pub fn parse(
    source: &str,
    text: &str,
    description: Option<(&str, &str)>,
    opts: &AslibOptions,
) -> Result<Imported> {
    let measure = choose_measure(opts, description)?;
    let mut attributes: Vec<String> = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let mut data_started = false;
    for (line, l) in lines.by_ref() {
        if l.is_empty() || l.starts_with('%') {
            continue;
        }
        if strip_keyword(l, "@relation").is_some() {
            continue;
        }
        if let Some(rest) = strip_keyword(l, "@attribute") {
            attributes.push(attribute_name(rest));
            continue;
        }
        if strip_keyword(l, "@data").is_some() {
            data_started = true;
            break;
        }
        return Err(Error::input(format!(
            "{source}: line {line}: expected an ARFF header (`@relation`, `@attribute NAME TYPE`, `@data`), found `{}`",
            l.chars().take(60).collect::<String>()
        )));
    }
    if !data_started {
        return Err(Error::input(format!(
            "{source}: no `@data` line: expected an ARFF file with an `@attribute` header and an `@data` section"
        )));
    }
    let col = |name: &str| attributes.iter().position(|a| a == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            Error::input(format!(
                "{source}: missing attribute `{name}`: the header declares {}",
                attributes.join(", ")
            ))
        })
    };
    let user_col = need("instance_id")?;
    let model_col = need("algorithm")?;
    let measure_col = need(&measure)?;
    let repetition_col = col("repetition");
    let status_col = col("runstatus");
    let runtime = match (opts.runtime, col("runtime")) {
        (Some(RuntimeModel::Unit), _) => RuntimeModel::Unit,
        (_, Some(_)) => RuntimeModel::Measured,
        (Some(RuntimeModel::Measured), None) => {
            return Err(Error::usage(format!(
                "{source}: no `runtime` attribute, so there are no measured runtimes: pass --runtime unit to give every job 1 s"
            )));
        }
        (None, None) => {
            return Err(Error::usage(format!(
                "{source}: no `runtime` attribute (the scenario records no runtimes): pass --runtime unit to give every job 1 s"
            )));
        }
    };
    let runtime_col = match runtime {
        RuntimeModel::Measured => col("runtime"),
        RuntimeModel::Unit => None,
    };

    let mut pairs: Vec<Pair> = Vec::new();
    let mut pair_index: HashMap<(String, String), usize> = HashMap::new();
    let mut runs_seen: HashMap<(String, String, String), usize> = HashMap::new();
    let mut floored = 0;
    for (line, l) in lines {
        if l.is_empty() || l.starts_with('%') {
            continue;
        }
        let where_ = format!("{source}: line {line}");
        if l.starts_with('{') {
            return Err(Error::input(format!(
                "{where_}: sparse ARFF rows are not supported: expected comma-separated values"
            )));
        }
        let values = split_values(l);
        if values.len() != attributes.len() {
            return Err(Error::input(format!(
                "{where_}: expected {} values like the @attribute list, found {}",
                attributes.len(),
                values.len()
            )));
        }
        let user = values[user_col].clone();
        let model = values[model_col].clone();
        let repetition = repetition_col.map_or_else(String::new, |c| values[c].clone());
        let run_key = (user.clone(), model.clone(), repetition);
        if let Some(first) = runs_seen.insert(run_key, line) {
            return Err(Error::input(format!(
                "{where_}: duplicate run (instance `{user}`, algorithm `{model}`, same repetition): already given at line {first}"
            )));
        }
        let key = (user.clone(), model.clone());
        let idx = *pair_index.entry(key).or_insert_with(|| {
            pairs.push(Pair {
                user,
                model,
                where_: where_.clone(),
                ok_runs: 0,
                accuracy_sum: 0.0,
                runtime_sum: 0.0,
            });
            pairs.len() - 1
        });
        let ok = status_col.is_none_or(|c| values[c] == "ok");
        if !ok {
            continue;
        }
        let accuracy = parse_number(&values[measure_col], &measure, &where_)?;
        let runtime_s = match runtime_col {
            None => UNIT_RUNTIME_S,
            Some(c) => {
                let t = parse_number(&values[c], "runtime", &where_)?;
                if t < 0.0 {
                    return Err(Error::input(format!(
                        "{where_}: field `runtime`: expected seconds >= 0, got {t}"
                    )));
                }
                t
            }
        };
        let p = &mut pairs[idx];
        p.ok_runs += 1;
        p.accuracy_sum += accuracy;
        p.runtime_sum += runtime_s;
    }

    let mut builder = TraceBuilder::new(source, false, false);
    let mut rows = Vec::with_capacity(pairs.len());
    let mut dropped = 0;
    for p in pairs {
        if p.ok_runs == 0 {
            dropped += 1;
            continue;
        }
        let n = p.ok_runs as f64;
        let mut runtime_s = if p.ok_runs == 1 {
            p.runtime_sum
        } else {
            p.runtime_sum / n
        };
        if runtime_s < RUNTIME_FLOOR_S {
            runtime_s = RUNTIME_FLOOR_S;
            floored += 1;
        }
        let row = TraceRow {
            user: p.user,
            model: p.model,
            accuracy: if p.ok_runs == 1 {
                p.accuracy_sum
            } else {
                p.accuracy_sum / n
            },
            runtime_s,
            model_year: None,
            model_citations: None,
        };
        builder.push(&row, &p.where_)?;
        rows.push(row);
    }
    let trace = builder.finish()?;
    Ok(Imported::new(rows, &trace, dropped, floored, runtime))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorKind;

    const HEADER: &str = "@RELATION ALGORITHM_RUNS_X\n\n\
        @ATTRIBUTE instance_id STRING\n\
        @ATTRIBUTE repetition NUMERIC\n\
        @ATTRIBUTE algorithm STRING\n\
        @ATTRIBUTE predictive_accuracy NUMERIC\n\
        @ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}\n\n\
        @DATA\n";

    const DESC: &str = "algorithm_cutoff_time: 0\nmaximize:\n- true\nperformance_measures:\n- predictive_accuracy\nscenario_id: X\n";

    fn unit() -> AslibOptions {
        AslibOptions {
            runtime: Some(RuntimeModel::Unit),
            ..AslibOptions::default()
        }
    }

    fn runs(body: &str) -> String {
        format!("{HEADER}{body}")
    }

    #[test]
    fn reads_runs_averages_repetitions_and_drops_failed_runs() {
        let text = runs(
            "2097,1,2369_weka.RandomForest,0.9,ok\n\
             2097,1,2364_weka.IBk,0.8,ok\n\
             2097,1,2889_weka.IBk,0.7,ok\n\
             2097,2,2889_weka.IBk,0.8,ok\n\
             2097,3,2889_weka.IBk,0.1,timeout\n\
             % a comment\n\
             '10067',1,2369_weka.RandomForest,0.5,ok\n\
             10067,1,2364_weka.IBk,?,crash\n",
        );
        let imp =
            parse("runs.arff", &text, Some(("description.txt", DESC)), &unit()).expect("valid");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (2, 3, 4, 1)
        );
        let got: Vec<(&str, &str, f64)> = imp
            .rows
            .iter()
            .map(|r| (r.user.as_str(), r.model.as_str(), r.accuracy))
            .collect();
        assert_eq!(got[0], ("2097", "2369_weka.RandomForest", 0.9));
        assert_eq!(got[2].1, "2889_weka.IBk");
        assert!((got[2].2 - 0.75).abs() < 1e-12);
        assert_eq!(got[3], ("10067", "2369_weka.RandomForest", 0.5));
        assert!(imp.rows.iter().all(|r| r.runtime_s == 1.0));
    }

    #[test]
    fn a_runtime_attribute_gives_measured_runtimes() {
        let text = "@relation r\n@attribute instance_id string\n@attribute algorithm string\n\
                    @attribute predictive_accuracy numeric\n@attribute runtime numeric\n@data\n\
                    a,alg1,0.5,12.5\na,alg2,0.6,0\n";
        let imp = parse("r.arff", text, None, &AslibOptions::default()).expect("valid");
        assert_eq!(imp.runtime, RuntimeModel::Measured);
        assert_eq!(imp.rows[0].runtime_s, 12.5);
        assert_eq!(imp.rows[1].runtime_s, 1e-6);
        assert_eq!(imp.runtime_floored, 1);
    }

    #[test]
    fn no_runtime_needs_an_explicit_unit_model() {
        let text = runs("1,1,a,0.5,ok\n");
        let e = parse("runs.arff", &text, None, &AslibOptions::default()).expect_err("no runtime");
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains("--runtime unit"), "{e}");
    }

    #[test]
    fn description_picks_and_checks_the_measure() {
        let desc =
            "maximize: [false, true]\nperformance_measures: [runtime, predictive_accuracy]\n";
        let text = runs("1,1,a,0.5,ok\n");
        let e = parse("runs.arff", &text, Some(("d.txt", desc)), &unit()).expect_err("minimised");
        assert!(
            e.message()
                .starts_with("d.txt: performance measure `runtime` is minimised"),
            "{e}"
        );
        let o = AslibOptions {
            measure: Some("predictive_accuracy".into()),
            ..unit()
        };
        let imp = parse("runs.arff", &text, Some(("d.txt", desc)), &o).expect("valid");
        assert_eq!(imp.rows[0].accuracy, 0.5);
        assert_eq!(yaml_list(DESC, "maximize"), Some(vec!["true".to_string()]));
    }

    #[test]
    fn rejects_malformed_input_with_file_and_line() {
        let err =
            |text: &str| parse("bad.arff", text, None, &unit()).expect_err("must be rejected");
        let e = err(&runs("1,1,a,0.5,ok\n1,1,b,high,ok\n"));
        assert_eq!(e.kind(), ErrorKind::Input);
        assert!(e.message().starts_with("bad.arff: line 11: field `predictive_accuracy`: expected a finite number, got `high`"), "{e}");
        let e = err(&runs("1,1,a,0.5,ok\n1,1,b,0.5\n"));
        assert!(
            e.message().starts_with(
                "bad.arff: line 11: expected 5 values like the @attribute list, found 4"
            ),
            "{e}"
        );
        let e = err("1,1,a,0.5,ok\n");
        assert!(
            e.message()
                .starts_with("bad.arff: line 1: expected an ARFF header"),
            "{e}"
        );
        let e = err("@relation r\n@attribute instance_id string\n");
        assert!(e.message().contains("no `@data` line"), "{e}");
        let e = err(
            "@relation r\n@attribute instance_id string\n@attribute algorithm string\n@data\n1,a\n",
        );
        assert!(
            e.message()
                .contains("missing attribute `predictive_accuracy`"),
            "{e}"
        );
        let e = err(&runs("1,1,a,1.5,ok\n"));
        assert!(
            e.message()
                .starts_with("bad.arff: line 10: field `accuracy`: expected a number in [0, 1]"),
            "{e}"
        );
        let e = err(&runs("1,1,a,0.5,ok\n1,1,a,0.6,ok\n"));
        assert!(
            e.message().starts_with("bad.arff: line 11: duplicate run"),
            "{e}"
        );
        let e = err(&runs("{0 1, 2 a}\n"));
        assert!(e.message().contains("sparse"), "{e}");
    }

    #[test]
    fn reads_a_fixture_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/aslib_small");
        let imp = read_with_stats(&dir, &unit()).expect("valid fixture");
        assert_eq!(
            (imp.users, imp.models, imp.pairs(), imp.dropped),
            (2, 2, 3, 1)
        );
        let e = read(&dir, &AslibOptions::default()).expect_err("no runtime");
        assert!(e.message().contains("algorithm_runs.arff"), "{e}");
    }
}
