//! `tenantsim validate FILE`.

use super::ValidateArgs;
use crate::core::error::Result;
use crate::core::scenario::Overrides;
use crate::models::scenario::{Plan, Scenario, load_plan};
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
    let is_scenario = args
        .file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    if let Some(done) = crate::cli::jobs::validate_if_jobs(&args.file, is_scenario) {
        return done;
    }
    if !is_scenario {
        let trace = load_trace(&args.file)?;
        eprintln!("ok: {}", describe_trace(&trace));
        return Ok(());
    }
    match load_plan(&args.file, Overrides::default())? {
        Plan::Single(s) => {
            eprintln!("ok: scenario `{}` ({})", s.name(), args.file.display());
            describe_scenario(&s);
        }
        Plan::Sweep { axes, points } => {
            let keys: Vec<String> = axes
                .iter()
                .map(|a| format!("{} ({} values)", a.key, a.values.len()))
                .collect();
            eprintln!(
                "ok: scenario `{}` ({}) sweeps {} point(s) over {}; every point validated",
                points.first().map_or("", |p| p.scenario.name()),
                args.file.display(),
                points.len(),
                keys.join(" × ")
            );
            if let Some(p) = points.first() {
                eprintln!("point 0:");
                describe_scenario(&p.scenario);
            }
        }
    }
    Ok(())
}

fn describe_scenario(s: &Scenario) {
    eprintln!("  {}", describe_trace(&s.trace));
    let split = s.split.resolve(s.seed(), 0);
    eprintln!(
        "  split: {} prior users, {} tenants ({})",
        split.prior.len(),
        split.tenants.len(),
        if s.split.is_fixed() {
            "fixed"
        } else {
            "sampled per repetition"
        }
    );
    eprintln!(
        "  cluster: {} GPUs, up to {} job(s) per tenant{}",
        s.config.gpus,
        s.config.max_jobs_per_tenant,
        s.file
            .horizon_s
            .map_or(String::new(), |h| format!(", horizon {h} s"))
    );
    eprintln!(
        "  seed {}, {} repetition(s), thresholds {:?}",
        s.seed(),
        s.repetitions(),
        s.thresholds
    );
    for p in &s.policies {
        eprintln!(
            "  policy `{}`: scheduler {}, selector {}",
            p.name, p.scheduler.name, p.selector.name
        );
    }
    if let Some(b) = s.policies.get(s.baseline) {
        eprintln!("  baseline `{}`", b.name);
    }
    for w in crate::models::warnings::setup_warnings(s) {
        eprintln!("  warning: {w}");
    }
}
