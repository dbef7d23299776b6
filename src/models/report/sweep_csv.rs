//! `sweep.csv`: one row per (grid point, policy) of a sweep.

use std::fmt::Write as _;

use super::{csv_field, secs_or_inf};
use crate::core::io::schema::Layout;
use crate::core::run::sweep::{SweepAxis, value_text};
use crate::models::aggregate::Aggregate;

/// One grid point as `sweep.csv` needs it.
#[derive(Debug, Clone, Copy)]
pub struct SweepRow<'a> {
    /// Point index.
    pub index: usize,
    /// Its results folder (relative to the sweep's folder).
    pub folder: &'a str,
    /// The value of each axis, in axis order.
    pub values: &'a [(String, toml::Value)],
    /// The point's aggregate.
    pub aggregate: &'a Aggregate,
}

/// Render `sweep.csv`. Columns: `point,folder`, one column per swept key
/// (its value: strings bare, anything else in TOML syntax), then
/// `policy,baseline,reps,final_loss_mean,regret_mean,regret_ci_low,`
/// `regret_ci_high,regret_ratio`, then `time_to_<θ>_s` (mean curve, `inf`
/// if never) and `speedup_<θ>` (over the point's baseline) for every θ of
/// any point, in order of first appearance; cells of a θ a point does not
/// use are empty.
pub fn sweep_csv(axes: &[SweepAxis], rows: &[SweepRow<'_>]) -> String {
    let mut thetas: Vec<f64> = Vec::new();
    for r in rows {
        for &t in &r.aggregate.thresholds {
            if !thetas.contains(&t) {
                thetas.push(t);
            }
        }
    }
    // The header, from the schema (crate::core::io::schema::model_files::sweep).
    let mut out = crate::core::io::schema::model_files::sweep::FILE.header(&Layout {
        thresholds: thetas.clone(),
        swept_keys: axes.iter().map(|a| a.key.clone()).collect(),
        ..Layout::default()
    });
    for r in rows {
        let agg = r.aggregate;
        let baseline = agg
            .policies
            .get(agg.baseline)
            .map_or("", |p| p.name.as_str());
        for (i, p) in agg.policies.iter().enumerate() {
            let _ = write!(out, "{},{}", r.index, csv_field(r.folder));
            for (_, v) in r.values {
                let _ = write!(out, ",{}", csv_field(&value_text(v)));
            }
            let ratio = agg
                .regret
                .get(i)
                .map_or_else(String::new, |x| x.ratio.to_string());
            let _ = write!(
                out,
                ",{},{},{},{},{},{},{},{ratio}",
                csv_field(&p.name),
                csv_field(baseline),
                p.regret.n,
                p.final_loss.mean,
                p.regret.mean,
                p.regret.low,
                p.regret.high,
            );
            let pos = |t: f64| agg.thresholds.iter().position(|&x| x == t);
            for &t in &thetas {
                out.push(',');
                if let Some(k) = pos(t) {
                    out.push_str(&secs_or_inf(p.time_to[k]));
                }
            }
            for &t in &thetas {
                out.push(',');
                if let Some(k) = pos(t)
                    && let Some(s) = agg.speedups.iter().find(|s| s.policy == i && s.theta == k)
                {
                    let _ = write!(out, "{}", s.speedup);
                }
            }
            out.push('\n');
        }
    }
    out
}
