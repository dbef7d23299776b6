//! Which metrics make the pass/fail family of `check --stat` (docs/CI.md
//! "The statistical check"): the metrics named by `--metric`, else those
//! of the golden's `check.toml`, else the mode's primary metrics. Every
//! other metric column is secondary: tested and shown in its own family,
//! never part of the verdict, so it cannot dilute the headline in Holm's m.

use std::path::Path;

use serde::Deserialize;

use crate::core::error::{Error, Result};
use crate::core::io::echo::shown;

/// The file beside the golden's `summary.csv` (a sweep golden: beside its
/// `sweep.csv`) that may name the family.
pub const CHECK_FILE: &str = "check.toml";

/// The word that names every metric column (`--metric all`).
pub const ALL: &str = "all";

/// Where the family came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FamilySource {
    /// `--metric` on the command line.
    Flag,
    /// The golden's `check.toml` (its path).
    File(String),
    /// The primary metrics of this mode (`"model"`, `"job"`).
    Mode(&'static str),
    /// Every metric: the mode is unknown and nothing named a family.
    Every,
}

/// The metrics of the pass/fail family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// The metric columns, in the golden's column order.
    pub metrics: Vec<String>,
    /// Where they came from.
    pub source: FamilySource,
}

impl Family {
    /// Whether `metric` is in the family (else it is secondary).
    pub fn contains(&self, metric: &str) -> bool {
        self.metrics.iter().any(|m| m == metric)
    }

    /// Where the family came from, for people: "--metric",
    /// "GOLDEN/check.toml", "model mode's primary metrics", "every metric,
    /// mode unknown".
    pub fn describe(&self) -> String {
        match &self.source {
            FamilySource::Flag => "--metric".into(),
            FamilySource::File(path) => path.clone(),
            FamilySource::Mode(mode) => format!("{mode} mode's primary metrics"),
            FamilySource::Every => "every metric, mode unknown".into(),
        }
    }
}

/// Whether `column` is a primary metric of `mode`: model mode, the
/// cumulative regret and every T(θ) column `time_to_<θ>_s` (DESIGN §6.1);
/// job mode, the average job completion time `mean_jct_s` and the
/// `makespan_s` (DESIGN §9.6); a shared folder's workflows, the
/// `completion_rate` and the GPU and CPU utilisation (DESIGN §14.7).
pub fn is_primary(mode: &str, column: &str) -> bool {
    match mode {
        "model" => {
            column == "cumulative_regret"
                || (column.starts_with("time_to_") && column.ends_with("_s"))
        }
        "job" => column == "mean_jct_s" || column == "makespan_s",
        "workflows" => matches!(
            column,
            "completion_rate" | "gpu_utilization" | "cpu_utilization"
        ),
        _ => false,
    }
}

/// `[check]` of `check.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckFile {
    check: CheckTable,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckTable {
    metrics: Vec<String>,
}

/// The metric names of `golden/check.toml`, or `None` without the file.
pub fn read_check_file(golden: &Path) -> Result<Option<(String, Vec<String>)>> {
    let path = golden.join(CHECK_FILE);
    if let Some(e) = crate::core::io::special_file_error(&path, "golden check file") {
        return Err(e);
    }
    if !path.is_file() {
        return Ok(None);
    }
    let at = path.display().to_string();
    let text = crate::core::io::read_text(&path, "golden check file", "a TOML text file", 1 << 20)?;
    let file: CheckFile = toml::from_str(&text).map_err(|e| {
        crate::core::io::scenario::toml_error(
            &format!("{at} (expected `[check]` with `metrics = [\"NAME\", ...]`)"),
            &e,
        )
    })?;
    Ok(Some((at, file.check.metrics)))
}

/// The family of a check: `named` (from `--metric`; `all` names every
/// column) when not empty, else the metrics of `golden/check.toml`, else
/// the primary metrics of `mode` among `known` (the golden's metric
/// columns), else every column. A name that is not a column of the golden
/// is an error listing the known ones; so is an empty list, or a family
/// none of whose metrics is a column.
pub fn resolve(
    named: &[String],
    golden: &Path,
    known: &[String],
    mode: Option<&'static str>,
) -> Result<Family> {
    let list = |v: &[String]| -> Result<Vec<String>> {
        if v.iter().any(|n| n == ALL) {
            return Ok(known.to_vec());
        }
        if let Some(bad) = v.iter().find(|n| !known.contains(n)) {
            return Err(Error::input(format!(
                "unknown metric `{}`: the golden {} has the metrics {} (or `{ALL}` for every one)",
                shown(bad),
                golden.display(),
                known.join(", ")
            )));
        }
        // The golden's column order, each once.
        Ok(known.iter().filter(|k| v.contains(k)).cloned().collect())
    };
    if !named.is_empty() {
        let metrics =
            list(named).map_err(|e| Error::input(format!("--metric: {}", e.message())))?;
        return Ok(Family {
            metrics,
            source: FamilySource::Flag,
        });
    }
    if let Some((at, names)) = read_check_file(golden)? {
        if names.is_empty() {
            return Err(Error::input(format!(
                "{at}: [check] metrics is empty: name at least one of {} (or `{ALL}`)",
                known.join(", ")
            )));
        }
        let metrics = list(&names)
            .map_err(|e| Error::input(format!("{at}: [check] metrics: {}", e.message())))?;
        return Ok(Family {
            metrics,
            source: FamilySource::File(at),
        });
    }
    if let Some(mode) = mode {
        let metrics: Vec<String> = known
            .iter()
            .filter(|c| is_primary(mode, c))
            .cloned()
            .collect();
        if !metrics.is_empty() {
            return Ok(Family {
                metrics,
                source: FamilySource::Mode(mode),
            });
        }
    }
    Ok(Family {
        metrics: known.to_vec(),
        source: FamilySource::Every,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn primary_metrics_of_each_mode() {
        let model = cols(&[
            "tenants",
            "final_loss",
            "cumulative_regret",
            "time_to_0.05_s",
            "time_to_0.01_s",
            "jobs",
            "regret_area_mean",
        ]);
        let dir = tempfile::tempdir().expect("tempdir");
        let f = resolve(&[], dir.path(), &model, Some("model")).expect("family");
        assert_eq!(
            f.metrics,
            ["cumulative_regret", "time_to_0.05_s", "time_to_0.01_s"]
        );
        assert_eq!(f.source, FamilySource::Mode("model"));
        let job = cols(&["jobs", "mean_jct_s", "p95_jct_s", "makespan_s", "events"]);
        let f = resolve(&[], dir.path(), &job, Some("job")).expect("family");
        assert_eq!(f.metrics, ["mean_jct_s", "makespan_s"]);
        // An unknown mode: every column.
        let other = cols(&["loss", "jobs"]);
        let f = resolve(&[], dir.path(), &other, None).expect("family");
        assert_eq!((f.metrics, f.source), (other, FamilySource::Every));
    }

    #[test]
    fn named_metrics_keep_the_column_order_and_unknown_ones_list_the_known() {
        let known = cols(&["a", "b", "c"]);
        let dir = tempfile::tempdir().expect("tempdir");
        let f = resolve(&cols(&["c", "a", "c"]), dir.path(), &known, None).expect("family");
        assert_eq!(f.metrics, ["a", "c"]);
        let f = resolve(&cols(&["all"]), dir.path(), &known, None).expect("family");
        assert_eq!(f.metrics, known);
        let e = resolve(&cols(&["a", "zz"]), dir.path(), &known, None).expect_err("unknown");
        assert!(
            e.message().starts_with("--metric: unknown metric `zz`"),
            "{e:?}"
        );
        assert!(e.message().contains("has the metrics a, b, c"), "{e:?}");
    }

    #[test]
    fn check_toml_names_the_family_and_the_flag_wins() {
        let known = cols(&["a", "b", "c"]);
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(CHECK_FILE), "[check]\nmetrics = [\"b\"]\n").expect("w");
        let f = resolve(&[], dir.path(), &known, None).expect("family");
        assert_eq!(f.metrics, ["b"]);
        assert!(matches!(f.source, FamilySource::File(_)));
        let f = resolve(&cols(&["c"]), dir.path(), &known, None).expect("family");
        assert_eq!((f.metrics, f.source), (cols(&["c"]), FamilySource::Flag));
        for (text, want) in [
            (
                "[check]\nmetrics = [\"q\"]\n",
                "[check] metrics: unknown metric `q`",
            ),
            ("[check]\nmetrics = []\n", "[check] metrics is empty"),
            (
                "[check]\nmetric = [\"a\"]\n",
                "expected `[check]` with `metrics",
            ),
            ("[check\n", "expected `[check]` with `metrics"),
        ] {
            std::fs::write(dir.path().join(CHECK_FILE), text).expect("w");
            let e = resolve(&[], dir.path(), &known, None).expect_err(text);
            assert!(e.message().contains(want), "{text}: {e:?}");
            assert!(e.message().contains("check.toml"), "{text}: {e:?}");
        }
    }
}
