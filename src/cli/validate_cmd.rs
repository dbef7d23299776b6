//! `tenantsim validate FILE`.

use std::path::Path;

use super::ValidateArgs;
use super::jobs::line;
use crate::core::error::Result;
use crate::core::scenario::Overrides;
use crate::core::sweep::Plan;
use crate::models::scenario::{Scenario, load_plan};
use crate::models::trace::{Trace, load_trace};

fn describe_trace(t: &Trace) -> String {
    let cells = t.n_users() * t.n_models();
    format!(
        "trace {}: {} users × {} models, {} of {} pairs available{}{}",
        t.source(),
        t.n_users(),
        t.n_models(),
        t.n_pairs(),
        cells,
        if t.model_year().is_some() {
            ", with model_year"
        } else {
            ""
        },
        if t.model_citations().is_some() {
            ", with model_citations"
        } else {
            ""
        },
    )
}

/// Check a trace or scenario; describe it on stderr.
pub fn validate(args: &ValidateArgs) -> Result<()> {
    eprint!("{}", validate_file(&args.file)?);
    Ok(())
}

/// What `tenantsim validate FILE` does, for library callers (the Python
/// package): check a trace (CSV, either mode) or a scenario (`.toml`,
/// every point of its sweep) and return the description it prints.
pub fn validate_file(file: &Path) -> Result<String> {
    let is_scenario = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    if let Some(done) = crate::cli::jobs::validate_if_jobs(file, is_scenario) {
        return done;
    }
    if !is_scenario {
        let trace = load_trace(file)?;
        return Ok(format!("ok: {}\n", describe_trace(&trace)));
    }
    let plan = load_plan(file, Overrides::default())?;
    Ok(describe_plan(
        "scenario",
        file,
        &plan,
        Scenario::name,
        describe_scenario,
    ))
}

/// The description `validate` prints of a plan of either mode: one
/// scenario (`what`: "scenario" or "job scenario"), or a sweep's grid and
/// its point 0, each scenario described by `describe`.
pub(super) fn describe_plan<S>(
    what: &str,
    file: &Path,
    plan: &Plan<S>,
    name: impl Fn(&S) -> &str,
    describe: impl Fn(&mut String, &S),
) -> String {
    let mut text = String::new();
    match plan {
        Plan::Single(s) => {
            line(
                &mut text,
                format_args!("ok: {what} `{}` ({})", name(s), file.display()),
            );
            describe(&mut text, s);
        }
        Plan::Sweep { axes, points } => {
            let keys: Vec<String> = axes
                .iter()
                .map(|a| format!("{} ({} values)", a.key, a.values.len()))
                .collect();
            line(
                &mut text,
                format_args!(
                    "ok: {what} `{}` ({}) sweeps {} point(s) over {}; every point validated",
                    points.first().map_or("", |p| name(&p.scenario)),
                    file.display(),
                    points.len(),
                    keys.join(" × ")
                ),
            );
            if let Some(p) = points.first() {
                line(&mut text, format_args!("point 0:"));
                describe(&mut text, &p.scenario);
            }
        }
    }
    text
}

fn describe_scenario(text: &mut String, s: &Scenario) {
    line(text, format_args!("  {}", describe_trace(&s.trace)));
    let split = s.split.resolve(s.seed(), 0);
    line(
        text,
        format_args!(
            "  split: {} prior users, {} tenants ({})",
            split.prior.len(),
            split.tenants.len(),
            if s.split.is_fixed() {
                "fixed"
            } else {
                "sampled per repetition"
            }
        ),
    );
    line(
        text,
        format_args!(
            "  cluster: {} GPUs, up to {} job(s) per tenant{}",
            s.config.gpus,
            s.config.max_jobs_per_tenant,
            s.file
                .horizon_s
                .map_or(String::new(), |h| format!(", horizon {h} s"))
        ),
    );
    let types = &s.gpu_types;
    if types.is_typed() {
        let each: Vec<String> = types
            .names()
            .iter()
            .enumerate()
            .map(|(t, name)| format!("{name} × {}", types.gpus_of_type(t as u16)))
            .collect();
        line(
            text,
            format_args!("  GPU types (DESIGN §11.4): {}", each.join(", ")),
        );
    }
    line(
        text,
        format_args!(
            "  seed {}, {} repetition(s), thresholds {:?}",
            s.seed(),
            s.repetitions(),
            s.thresholds
        ),
    );
    for p in &s.policies {
        line(
            text,
            format_args!(
                "  policy `{}`: scheduler {}, selector {}",
                p.name, p.scheduler.name, p.selector.name
            ),
        );
    }
    if let Some(b) = s.policies.get(s.baseline) {
        line(text, format_args!("  baseline `{}`", b.name));
    }
    for w in crate::models::warnings::setup_warnings(s) {
        line(text, format_args!("  warning: {w}"));
    }
}
