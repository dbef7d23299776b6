//! The Slurm-style job-log CSV shared by the Philly (flattened) and Helios
//! importers: columns found by name, times as `YYYY-MM-DD HH:MM:SS` (read
//! as UTC; the logs carry no zone, only differences matter) or as numbers
//! of seconds.

use std::path::Path;

use super::report::ImportReport;
use crate::core::error::{Error, Result};
use crate::core::io::open_input;
use crate::jobs::trace::JobRow;

/// Column names (first match wins) of one layout.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    /// Format name for messages.
    pub format: &'static str,
    pub job_id: &'static [&'static str],
    pub user: &'static [&'static str],
    pub group: &'static [&'static str],
    pub gpus: &'static [&'static str],
    pub submit: &'static [&'static str],
    pub start: &'static [&'static str],
    pub end: &'static [&'static str],
    pub duration: &'static [&'static str],
}

/// Seconds since 1970-01-01 of a civil date-time (proleptic Gregorian,
/// Howard Hinnant's days-from-civil).
fn epoch_seconds(y: i64, m: i64, d: i64, hh: i64, mm: i64, ss: f64) -> f64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    (days * 86_400 + hh * 3600 + mm * 60) as f64 + ss
}

/// Parse a time: a number of seconds, or `YYYY-MM-DD[ T]HH:MM:SS[.fff]`.
/// `None` for an empty cell or `None`/`NaN`/`NaT` (never happened).
pub(super) fn parse_time(text: &str) -> Option<std::result::Result<f64, ()>> {
    let t = text.trim();
    if t.is_empty() || matches!(t, "None" | "none" | "NaN" | "nan" | "NaT" | "null") {
        return None;
    }
    if let Ok(x) = t.parse::<f64>() {
        return Some(if x.is_finite() { Ok(x) } else { Err(()) });
    }
    let parse = || -> Option<f64> {
        let (date, time) = t.split_once([' ', 'T'])?;
        let mut d = date.split('-');
        let (y, m, day) = (
            d.next()?.parse::<i64>().ok()?,
            d.next()?.parse::<i64>().ok()?,
            d.next()?.parse::<i64>().ok()?,
        );
        let mut c = time.split(':');
        let (hh, mm, ss) = (
            c.next()?.parse::<i64>().ok()?,
            c.next()?.parse::<i64>().ok()?,
            c.next()?.parse::<f64>().ok()?,
        );
        if d.next().is_some()
            || c.next().is_some()
            || !(1..=12).contains(&m)
            || !(1..=31).contains(&day)
            || !(0..24).contains(&hh)
            || !(0..60).contains(&mm)
            || !(0.0..61.0).contains(&ss)
        {
            return None;
        }
        Some(epoch_seconds(y, m, day, hh, mm, ss))
    };
    Some(parse().ok_or(()))
}

/// Read a job log in `layout`.
pub(super) fn import(layout: &Layout, path: &Path) -> Result<(Vec<JobRow>, ImportReport)> {
    let source = path.display().to_string();
    let file = open_input(path, &format!("{} job log", layout.format))?;
    let (mut reader, headers) = crate::core::io::csv_columns::csv_with_header(&source, file)?;
    let find = |names: &[&str]| crate::core::io::csv_columns::find_column(&headers, names);
    let need = |names: &[&str]| {
        find(names).ok_or_else(|| {
            Error::input(format!(
                "{source}: line 1: missing column `{}`: a {} job log needs {}",
                names[0],
                layout.format,
                [
                    layout.job_id[0],
                    layout.user[0],
                    layout.gpus[0],
                    layout.submit[0]
                ]
                .join(", ")
            ))
        })
    };
    let (c_id, c_user, c_gpus, c_submit) = (
        need(layout.job_id)?,
        need(layout.user)?,
        need(layout.gpus)?,
        need(layout.submit)?,
    );
    let (c_group, c_start, c_end, c_dur) = (
        find(layout.group),
        find(layout.start),
        find(layout.end),
        find(layout.duration),
    );
    if c_dur.is_none() && (c_start.is_none() || c_end.is_none()) {
        return Err(Error::input(format!(
            "{source}: line 1: missing column `{}`: a {} job log needs a duration, or start and end times",
            layout.duration[0], layout.format
        )));
    }
    let mut kept: Vec<(JobRow, f64)> = Vec::new();
    let mut report = ImportReport::default();
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        report.rows += 1;
        let cell = |c: usize| record.get(c).unwrap_or("");
        let bad = |c: usize, what: &str| {
            Error::input(format!(
                "{source}: line {line}: field `{}`: expected {what}, got `{}`",
                &headers[c],
                crate::core::io::echo::shown(cell(c))
            ))
        };
        let gpus_f: f64 = cell(c_gpus)
            .parse()
            .map_err(|_| bad(c_gpus, "a number of GPUs"))?;
        if !(gpus_f.is_finite() && gpus_f >= 0.0 && gpus_f.fract() == 0.0 && gpus_f < 1e9) {
            return Err(bad(c_gpus, "a whole number of GPUs >= 0"));
        }
        if gpus_f == 0.0 {
            report.cpu_only += 1;
            continue;
        }
        let time = |c: usize| match parse_time(cell(c)) {
            None => Ok(None),
            Some(Ok(t)) => Ok(Some(t)),
            Some(Err(())) => Err(bad(c, "a time `YYYY-MM-DD HH:MM:SS` or seconds")),
        };
        let Some(submit) = time(c_submit)? else {
            return Err(bad(c_submit, "a submit time"));
        };
        let start = c_start.map(time).transpose()?.flatten();
        if c_start.is_some() && start.is_none() {
            report.never_ran += 1;
            continue;
        }
        let duration = match c_dur {
            Some(c) if !cell(c).is_empty() => cell(c)
                .parse::<f64>()
                .ok()
                .filter(|d| d.is_finite())
                .ok_or_else(|| bad(c, "a duration in seconds"))?,
            _ => match (start, c_end.map(time).transpose()?.flatten()) {
                (Some(s), Some(e)) => e - s,
                _ => {
                    report.never_ran += 1;
                    continue;
                }
            },
        };
        if duration <= 0.0 {
            report.no_duration += 1;
            continue;
        }
        report.kept += 1;
        report.gpus += gpus_f as u64;
        kept.push((
            JobRow {
                job_id: cell(c_id).to_string(),
                user: cell(c_user).to_string(),
                submit_s: 0.0,
                duration_s: duration,
                gpus: gpus_f as u32,
                gpu_type: None,
                group: c_group.map(|c| cell(c).to_string()),
                type_durations: Vec::new(),
                cpus: None,
            },
            submit,
        ));
    }
    let t0 = kept.iter().map(|(_, s)| *s).fold(f64::INFINITY, f64::min);
    let rows = kept
        .into_iter()
        .map(|(mut r, s)| {
            r.submit_s = s - t0;
            r
        })
        .collect();
    Ok((rows, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_times_match_known_epochs() {
        assert_eq!(epoch_seconds(1970, 1, 1, 0, 0, 0.0), 0.0);
        // 2020-04-01 00:00:03 UTC = 1585699203.
        assert_eq!(parse_time("2020-04-01 00:00:03"), Some(Ok(1_585_699_203.0)));
        // 2017-10-03T05:05:53 UTC = 1507007153.
        assert_eq!(parse_time("2017-10-03T05:05:53"), Some(Ok(1_507_007_153.0)));
        assert_eq!(parse_time("12.5"), Some(Ok(12.5)));
        assert_eq!(parse_time("None"), None);
        assert_eq!(parse_time("2020-13-01 00:00:00"), Some(Err(())));
        assert_eq!(parse_time("yesterday"), Some(Err(())));
    }
}
