//! Comparing two summary tables within a tolerance.

use super::SummaryTable;
use crate::core::error::{Error, Result};

/// A value matches its golden value `g` when `|x − g| ≤ atol + rtol·|g|`.
/// `inf` matches only `inf`; text that is not a number must match exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self {
            rtol: 1e-9,
            atol: 1e-12,
        }
    }
}

impl Tolerance {
    /// Whether `got` matches `golden`.
    pub fn matches(&self, got: &str, golden: &str) -> bool {
        match (got.parse::<f64>(), golden.parse::<f64>()) {
            (Ok(x), Ok(g)) if x.is_finite() && g.is_finite() => {
                (x - g).abs() <= self.atol + self.rtol * g.abs()
            }
            (Ok(x), Ok(g)) => x == g || (x.is_nan() && g.is_nan()),
            _ => got == golden,
        }
    }
}

/// One value that drifted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// Policy label.
    pub policy: String,
    /// Repetition.
    pub rep: String,
    /// Metric column.
    pub metric: String,
    /// Value in the results.
    pub got: String,
    /// Golden value.
    pub golden: String,
}

/// Compare `results` against `golden`. Different policies, metrics (for
/// example thresholds) or repetitions are an error; values beyond the
/// tolerance are returned as drifts (empty = pass).
pub fn compare_summaries(
    results: &SummaryTable,
    golden: &SummaryTable,
    tol: Tolerance,
) -> Result<Vec<Drift>> {
    if let Some(message) = differences(results, golden, true) {
        return Err(Error::input(message));
    }
    let mut drifts = Vec::new();
    for (key, want) in &golden.rows {
        let got = &results.rows[key];
        for (i, metric) in golden.metrics.iter().enumerate() {
            if !tol.matches(&got[i], &want[i]) {
                drifts.push(Drift {
                    policy: key.0.clone(),
                    rep: key.1.clone(),
                    metric: metric.clone(),
                    got: got[i].clone(),
                    golden: want[i].clone(),
                });
            }
        }
    }
    Ok(drifts)
}

/// How `results` and `golden` differ in shape: other policies, other metric
/// columns or (with `check_reps`) other repetitions; `None` when they have
/// the same shape. The message names what is only on either side.
pub fn differences(
    results: &SummaryTable,
    golden: &SummaryTable,
    check_reps: bool,
) -> Option<String> {
    // Rows are keyed by (policy, rep): the order they come in is not a
    // difference, only which policies there are.
    let mut got_policies: Vec<&String> = results.policies.iter().collect();
    let mut want_policies: Vec<&String> = golden.policies.iter().collect();
    got_policies.sort();
    want_policies.sort();
    if got_policies != want_policies {
        let only = |a: &[String], b: &[String]| -> String {
            let v: Vec<String> = a
                .iter()
                .filter(|p| !b.contains(p))
                .map(|p| format!("`{}`", crate::core::io::echo::shown(p)))
                .collect();
            if v.is_empty() {
                "none".into()
            } else {
                v.join(", ")
            }
        };
        return Some(format!(
            "policies differ: only in {}: {}; only in {}: {}",
            results.source,
            only(&results.policies, &golden.policies),
            golden.source,
            only(&golden.policies, &results.policies)
        ));
    }
    if results.metrics != golden.metrics {
        return Some(format!(
            "columns differ (thresholds or metrics changed): {} has [{}], {} has [{}]",
            results.source,
            results.metrics.join(", "),
            golden.source,
            golden.metrics.join(", ")
        ));
    }
    let mut keys: Vec<&(String, String)> = golden
        .rows
        .keys()
        .filter(|k| !results.rows.contains_key(*k))
        .chain(
            results
                .rows
                .keys()
                .filter(|k| !golden.rows.contains_key(*k)),
        )
        .collect();
    // Repetitions in numeric order (0, 1, 2, 10), not as text.
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(super::rep_order(&a.1, &b.1)));
    let missing: Vec<String> = keys
        .into_iter()
        .map(|(p, r)| {
            format!(
                "{}/rep {}",
                crate::core::io::echo::shown(p),
                crate::core::io::echo::shown(r)
            )
        })
        .collect();
    if check_reps && !missing.is_empty() {
        const SHOWN: usize = 10;
        let more = missing.len().saturating_sub(SHOWN);
        return Some(format!(
            "repetitions differ between {} and {}: {}{}",
            results.source,
            golden.source,
            missing[..missing.len().min(SHOWN)].join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_rules() {
        let t = Tolerance {
            rtol: 1e-3,
            atol: 1e-6,
        };
        assert!(t.matches("1.0005", "1.0"));
        assert!(!t.matches("1.002", "1.0"));
        assert!(t.matches("inf", "inf"));
        assert!(!t.matches("1e300", "inf"));
        assert!(!t.matches("inf", "5"));
        assert!(t.matches("0.0000005", "0"));
        assert!(t.matches("abc", "abc"));
        assert!(!t.matches("abc", "abd"));
    }

    #[test]
    fn missing_repetitions_are_listed_in_numeric_order() {
        let t = |text: &str| {
            crate::core::analysis::check::parse_summary("s.csv", text.as_bytes()).expect("parses")
        };
        let golden = t("policy,rep,x\na,0,1\na,2,1\na,10,1\na,1,1\n");
        let results = t("policy,rep,x\na,0,1\n");
        let msg = differences(&results, &golden, true).expect("differs");
        assert!(msg.ends_with("a/rep 1, a/rep 2, a/rep 10"), "{msg}");
        assert_eq!(differences(&results, &golden, false), None);
    }
}
