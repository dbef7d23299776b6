//! `tenantsim check RESULTS --against GOLDEN`: exit 0 the same, 1 drift,
//! 2 trouble (bad input, missing files, usage), like `diff`.

use std::io::Write as _;
use std::path::Path;

use super::args::{CheckArgs, ReportFormat};
use crate::core::analysis::check::{Format, Method, Tolerance, check_folders, render};
use crate::core::error::{Error, Result};
use crate::core::io::write_atomic;
use crate::present::figures::{WORKFLOWS_DIR, shared_workflows, shared_workloads};

use super::out_file::{Input, Ours, check_out_file};

/// The mode a `summary.csv` header belongs to (DESIGN §6.1, §9.6).
fn mode_of(header: &[String]) -> Option<&'static str> {
    let has = |c: &str| header.iter().any(|h| h == c);
    if has("mean_jct_s") {
        Some("job")
    } else if has("completion_rate") {
        Some("workflows")
    } else if has("cumulative_regret") {
        Some("model")
    } else {
        None
    }
}

/// The report format a `--report` file's extension names.
fn format_of(path: &Path) -> Result<Format> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => Ok(Format::Json),
        Some("xml") => Ok(Format::Junit),
        Some("md") => Ok(Format::Markdown),
        Some("txt") => Ok(Format::Text),
        _ => Err(Error::usage(format!(
            "--report {}: expected a .json, .xml (JUnit), .md (markdown) or .txt file",
            path.display()
        ))),
    }
}

/// How a `--report` file that `check` wrote in `format` is recognised:
/// markdown by its title, JUnit by its suite's name, JSON by its first
/// brace and last keys, text by its verdict line.
fn ours(format: Format) -> Ours {
    match format {
        Format::Markdown => |head, _| head.starts_with("## tenantsim check: "),
        Format::Junit => |head, _| {
            head.starts_with("<?xml") && head.contains("<testsuites name=\"tenantsim check\"")
        },
        Format::Json => |head, tail| {
            head.starts_with("{\n")
                && tail.contains("\n  \"summary\": \"")
                && tail.trim_end().ends_with(['}'])
                && (tail.contains("\n  \"verdict\": \"drift\"\n")
                    || tail.contains("\n  \"verdict\": \"same\"\n"))
        },
        Format::Text => |_, tail| {
            tail.trim_end()
                .rsplit('\n')
                .next()
                .is_some_and(|last| last.starts_with("ok: ") || last.starts_with("drift: "))
        },
    }
}

/// Compare; print the capped text on stderr, the chosen report on stdout,
/// write the `--report` files; drift is an input error (exit 1), any other
/// error a usage error (exit 2).
pub fn check(args: &CheckArgs) -> Result<()> {
    let method = method(args)?;
    let reports: Vec<(&Path, Format)> = args
        .report
        .iter()
        .map(|p| format_of(p).map(|f| (p.as_path(), f)))
        .collect::<Result<_>>()?;
    // Every --report file is checked before anything is read: a refusal
    // leaves every file as it was (nothing is written).
    let inputs = [
        Input {
            what: "the results folder",
            dir: &args.results,
        },
        Input {
            what: "the golden folder",
            dir: &args.against,
        },
    ];
    for (i, &(path, format)) in reports.iter().enumerate() {
        if reports[..i].iter().any(|(p, _)| *p == path) {
            return Err(Error::usage(format!(
                "--report {}: given twice; name each report file once",
                path.display()
            )));
        }
        check_out_file("--report", path, args.force, Some(ours(format)), &inputs)?;
    }
    let mut workloads = shared_workloads(&args.against);
    if let Some(wf) = shared_workflows(&args.against) {
        workloads.push((WORKFLOWS_DIR, wf));
    }
    if !workloads.is_empty() {
        return check_shared(args, method, &workloads);
    }
    let report = check_folders(&args.results, &args.against, method, &args.metric, &mode_of)
        .map_err(|e| Error::usage(e.message()))?;
    for (path, format) in reports {
        write_atomic(path, render(&report, format).as_bytes())
            .map_err(|e| Error::usage(e.message()))?;
    }
    let stdout_format = match args.format {
        ReportFormat::Text => None,
        ReportFormat::Json => Some(Format::Json),
        ReportFormat::Junit => Some(Format::Junit),
        ReportFormat::Markdown => Some(Format::Markdown),
    };
    if let Some(f) = stdout_format {
        let mut out = std::io::stdout().lock();
        out.write_all(render(&report, f).as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| Error::stdout("the report", &e))?;
    }
    let text = render(&report, Format::Text);
    if !report.drifted() {
        eprint!("{text}");
        return Ok(());
    }
    // The verdict (the last line) becomes the error main prints.
    let body = text.trim_end_matches('\n');
    let (table, verdict) = body.rsplit_once('\n').unwrap_or(("", body));
    if !table.is_empty() {
        eprintln!("{table}");
    }
    Err(Error::input(verdict))
}

/// `check` of a shared results folder (DESIGN §13.5): each workload's
/// folder of the golden against the same folder of the results, one
/// report each (stdout and stderr, headed by the folder's name); drift in
/// any is drift. `--report` files hold one report: give a workload's
/// folder for them. The workflows' `summary.csv` holds means over
/// repetitions (DESIGN §14.7), so the exact check compares it (rows keyed
/// by policy and `reps`) and `--stat`, which needs one row per
/// repetition, passes it over with a note.
fn check_shared(
    args: &CheckArgs,
    method: Method,
    workloads: &[(&'static str, std::path::PathBuf)],
) -> Result<()> {
    if !args.report.is_empty() {
        return Err(Error::usage(format!(
            "--report: {} is a shared results folder, whose workloads are checked one by one; \
             for a report file, check a workload's folder (e.g. {}/service against {}/service)",
            args.against.display(),
            args.results.display(),
            args.against.display()
        )));
    }
    if matches!(method, Method::Stat { .. }) && workloads.iter().all(|(w, _)| *w == WORKFLOWS_DIR) {
        return Err(Error::usage(format!(
            "--stat: {} holds only workflows, whose summary.csv holds means over repetitions \
             (not one row per repetition): check it without --stat",
            args.against.display()
        )));
    }
    let mut drifted = Vec::new();
    for (w, golden) in workloads {
        if *w == WORKFLOWS_DIR && matches!(method, Method::Stat { .. }) {
            eprintln!(
                "{w}/: not checked by --stat (its summary.csv holds means over repetitions, \
                 not one row per repetition); the exact check compares it"
            );
            continue;
        }
        let results = args.results.join(w);
        let report = check_folders(&results, golden, method, &args.metric, &mode_of)
            .map_err(|e| Error::usage(e.message()))?;
        let stdout_format = match args.format {
            ReportFormat::Text => None,
            ReportFormat::Json => Some(Format::Json),
            ReportFormat::Junit => Some(Format::Junit),
            ReportFormat::Markdown => Some(Format::Markdown),
        };
        if let Some(f) = stdout_format {
            let mut out = std::io::stdout().lock();
            out.write_all(render(&report, f).as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| Error::stdout("the report", &e))?;
        }
        eprint!("{w}/:\n{}", render(&report, Format::Text));
        if report.drifted() {
            drifted.push(format!("{w}/"));
        }
    }
    if drifted.is_empty() {
        Ok(())
    } else {
        Err(Error::input(format!(
            "drift in {} of {}",
            drifted.join(" and "),
            args.results.display()
        )))
    }
}

fn method(args: &CheckArgs) -> Result<Method> {
    if args.stat {
        if !(args.alpha > 0.0 && args.alpha < 1.0) {
            return Err(Error::usage(format!(
                "--alpha: expected a level in (0, 1), got {}",
                args.alpha
            )));
        }
        return Ok(Method::Stat { alpha: args.alpha });
    }
    for (name, v) in [("--rtol", args.rtol), ("--atol", args.atol)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::usage(format!(
                "{name}: expected a finite tolerance >= 0, got {v}"
            )));
        }
    }
    Ok(Method::Exact(Tolerance {
        rtol: args.rtol,
        atol: args.atol,
    }))
}
