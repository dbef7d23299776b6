//! `tenantsim check RESULTS --against GOLDEN`.

use super::CheckArgs;
use crate::core::check::{Tolerance, compare_dirs};
use crate::core::error::{Error, Result};

/// Compare summaries; print a diff table and fail on drift.
pub fn check(args: &CheckArgs) -> Result<()> {
    for (name, v) in [("--rtol", args.rtol), ("--atol", args.atol)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::usage(format!(
                "{name}: expected a finite tolerance >= 0, got {v}"
            )));
        }
    }
    let tol = Tolerance {
        rtol: args.rtol,
        atol: args.atol,
    };
    // Row by row when the files line up (see `check::compare_dirs`).
    let cmp = compare_dirs(&args.results, &args.against, tol)?;
    let (drifts, checked) = (&cmp.drifts, cmp.checked);
    if drifts.is_empty() {
        eprintln!(
            "ok: {checked} values of {} match {} (rtol {:e}, atol {:e})",
            cmp.results, cmp.golden, tol.rtol, tol.atol
        );
        return Ok(());
    }
    let header = ["policy", "rep", "metric", "got", "golden"];
    let rows: Vec<[&str; 5]> = drifts
        .iter()
        .map(|d| [d.policy.as_str(), &d.rep, &d.metric, &d.got, &d.golden])
        .collect();
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain([header[c].len()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..5).map(width).collect();
    let line = |cells: [&str; 5]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    eprintln!("{}", line(header));
    for r in rows {
        eprintln!("{}", line(r));
    }
    Err(Error::input(format!(
        "{} of {checked} values drifted beyond rtol {:e} / atol {:e} ({} vs {})",
        drifts.len(),
        tol.rtol,
        tol.atol,
        cmp.results,
        cmp.golden
    )))
}
