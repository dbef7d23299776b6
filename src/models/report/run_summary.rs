//! The summary of a run shown after it finishes: an aligned table for the
//! terminal (stderr) and the same figures as JSON (`--json`, stdout).

use serde_json::{Value, json};

use crate::core::io::table::{align, num_text};
use crate::models::aggregate::{Aggregate, Ratio};
use crate::models::trace::Micros;

/// A time in seconds for people: three decimals, scientific from 10⁶ s.
fn secs_text(t: Option<Micros>) -> String {
    t.map_or_else(|| "inf".to_string(), |us| num_text(us as f64 / 1.0e6))
}

/// A θ of the dense grid for people: four significant digits.
fn theta_text(theta: f64) -> String {
    let text = format!("{theta:.3e}");
    match text.split_once('e') {
        Some((m, e)) => {
            let exp: i32 = e.parse().unwrap_or(0);
            let value: f64 = format!("{m}e{exp}").parse().unwrap_or(theta);
            let decimals = (3 - exp).max(0) as usize;
            let s = format!("{value:.decimals$}");
            if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s
            }
        }
        None => text,
    }
}

fn ratio_text(r: Ratio) -> String {
    match r {
        Ratio::Finite(x) => num_text(x),
        other => other.to_string(),
    }
}

/// The baseline policy's name.
pub fn baseline_name(agg: &Aggregate) -> &str {
    agg.policies
        .get(agg.baseline)
        .map_or("", |p| p.name.as_str())
}

/// The terminal table: per policy, T(θ) of the mean curve for each θ, the
/// mean cumulative regret with the half-width of its confidence interval,
/// the regret ratio to the baseline, and the speedup over the baseline per
/// θ.
pub fn summary_table(agg: &Aggregate) -> String {
    let pct = format!("{:.6}", agg.confidence * 100.0);
    let level = format!("{}%", pct.trim_end_matches('0').trim_end_matches('.'));
    let mut header = vec!["policy".to_string()];
    header.extend(agg.thresholds.iter().map(|t| format!("T({t}) s")));
    header.push("regret".into());
    header.push(format!("± {level}"));
    header.push("regret/base".into());
    header.extend(agg.thresholds.iter().map(|t| format!("speedup@{t}")));
    let with_up_to = !agg.up_to.is_empty();
    if with_up_to {
        header.push("up to (at θ)".into());
    }
    let with_tenants = agg.policies.iter().any(|p| p.tenants.is_some());
    if with_tenants {
        header.extend(["tenant area", "worst tenant", "jain", "left"].map(String::from));
    }
    let mut rows = vec![header];
    for (i, p) in agg.policies.iter().enumerate() {
        let mut row = vec![p.name.clone()];
        row.extend(p.time_to.iter().map(|&t| secs_text(t)));
        row.push(num_text(p.regret.mean));
        row.push(num_text(p.regret.high - p.regret.mean));
        row.push(
            agg.regret
                .get(i)
                .map_or_else(String::new, |r| ratio_text(r.ratio)),
        );
        row.extend(
            agg.speedups
                .iter()
                .filter(|s| s.policy == i)
                .map(|s| ratio_text(s.speedup)),
        );
        if with_up_to {
            row.push(
                agg.up_to
                    .iter()
                    .find(|u| u.policy == i)
                    .and_then(|u| u.up_to)
                    .map_or_else(
                        || "n/a".to_string(),
                        |u| format!("{} (@{})", num_text(u.speedup), theta_text(u.theta)),
                    ),
            );
        }
        if let Some(t) = p.tenants.as_ref().filter(|_| with_tenants) {
            row.push(num_text(t.area_mean));
            row.push(num_text(t.area_max));
            row.push(t.jain.map_or_else(|| "n/a".to_string(), num_text));
            row.push(num_text(t.abandoned));
        }
        rows.push(row);
    }
    let mut out = format!(
        "baseline `{}`; T(θ) from the mean loss curve over {} repetition(s); regret in accuracy·s\n",
        baseline_name(agg),
        agg.repetitions
    );
    if let Some(u) = agg.up_to.first() {
        // One threshold makes the range a point: "over 200 log-spaced θ
        // from 0.1 to 0.1" said nothing true.
        if u.range.0 == u.range.1 {
            out.push_str(&format!(
                "up to: the speedup at θ = {}, the one threshold (speedups_up_to.csv)\n",
                u.range.0
            ));
        } else {
            out.push_str(&format!(
                "up to: the largest speedup over {} log-spaced θ from {} to {}, with the θ where it occurs (speedups_up_to.csv)\n",
                u.points, u.range.0, u.range.1
            ));
        }
    }
    if with_tenants {
        out.push_str(
            "tenant area: mean per-tenant regret area from arrival; worst tenant: the largest; \
             jain: fairness of areas relative to each tenant alone (1 = fair); left: tenants that gave up \
             (all means over repetitions)\n",
        );
    }
    out.push_str(&align(&rows));
    out
}

fn time_json(t: Option<Micros>) -> Value {
    t.map_or_else(|| json!("inf"), |us| json!(us as f64 / 1.0e6))
}

/// The figures of [`summary_table`] as JSON: times in seconds, `"inf"` for
/// a θ never reached, ratios as numbers or `"inf"` / `"n/a"`.
pub fn summary_json(agg: &Aggregate) -> Value {
    let policies: Vec<Value> = agg
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let rows: Vec<_> = agg.speedups.iter().filter(|s| s.policy == i).collect();
            let regret = agg.regret.get(i);
            json!({
                "name": p.name,
                "time_to_s": p.time_to.iter().map(|&t| time_json(t)).collect::<Vec<_>>(),
                "cumulative_regret": {
                    "mean": p.regret.mean,
                    "ci_low": p.regret.low,
                    "ci_high": p.regret.high,
                    "median": p.regret_median,
                },
                "regret_ratio": regret.map_or(Value::Null, |r| r.ratio.to_json()),
                "median_rep_regret_ratio":
                    regret.map_or(Value::Null, |r| r.median_rep_ratio.to_json()),
                "final_loss_mean": p.final_loss.mean,
                "speedup": rows.iter().map(|s| s.speedup.to_json()).collect::<Vec<_>>(),
                "up_to_speedup": agg
                    .up_to
                    .iter()
                    .find(|u| u.policy == i)
                    .and_then(|u| u.up_to)
                    .map_or(Value::Null, |u| json!({"speedup": u.speedup, "theta": u.theta})),
                "median_rep_speedup":
                    rows.iter().map(|s| s.median_rep_speedup.to_json()).collect::<Vec<_>>(),
                "tenants": p.tenants.as_ref().map_or(Value::Null, |t| json!({
                    "regret_area_mean": t.area_mean,
                    "regret_area_p90": t.area_p90,
                    "regret_area_worst": t.area_max,
                    "jain_index": t.jain,
                    "abandoned": t.abandoned,
                })),
            })
        })
        .collect();
    json!({
        "repetitions": agg.repetitions,
        "baseline": baseline_name(agg),
        "thresholds": agg.thresholds,
        "confidence": agg.confidence,
        "policies": policies,
    })
}

#[cfg(test)]
mod tests {
    use super::theta_text;

    #[test]
    fn theta_text_has_four_significant_digits() {
        assert_eq!(theta_text(0.05), "0.05");
        assert_eq!(theta_text(0.11535097119037328), "0.1154");
        assert_eq!(theta_text(0.023750000001), "0.02375");
        assert_eq!(theta_text(0.2), "0.2");
        assert_eq!(theta_text(0.000123456), "0.0001235");
    }
}
