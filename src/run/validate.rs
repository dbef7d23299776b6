//! What `tenantsim validate FILE` does: check a trace (either mode's CSV)
//! or a scenario (every point of its sweep) and describe it.

use std::path::Path;

use crate::core::error::Result;
use crate::core::io::scenario::Overrides;
use crate::core::memory::{Estimate, MemoryBudget, within};
use crate::core::run::mode::Mode as _;
use crate::core::run::sweep::{Plan, SweepPoint};
use crate::jobs::scenario::{JobScenario, load_job_plan_with};
use crate::jobs::trace::{JobTrace, load_job_trace};
use crate::models::scenario::{Scenario, load_plan_with};
use crate::models::trace::{Trace, load_trace};
use crate::registry::Registry;
use crate::shared::scenario::SharedScenario;

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

/// What `tenantsim validate FILE` does, for library callers (the Python
/// package): check a trace (CSV, either mode) or a scenario (`.toml`,
/// every point of its sweep) and return the description it prints.
pub fn validate_file(file: &Path) -> Result<String> {
    validate_file_with(file, &Registry::builtin())
}

/// [`validate_file`] with the policies of `registry`: a scenario may name
/// any policy registered there.
pub fn validate_file_with(file: &Path, registry: &Registry) -> Result<String> {
    validate_file_within(file, registry, MemoryBudget::default())
}

/// [`validate_file_with`] whose memory check (made before a scenario's
/// trace is loaded or generated; docs/REFERENCE.md, "Limits") assumes
/// `memory`: `tenantsim validate --max-memory SIZE`.
pub fn validate_file_within(
    file: &Path,
    registry: &Registry,
    memory: MemoryBudget,
) -> Result<String> {
    let overrides = Overrides {
        memory,
        ..Overrides::default()
    };
    let is_scenario = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    if let Some(done) = validate_if_jobs(file, is_scenario, registry, overrides) {
        return done;
    }
    if !is_scenario {
        let memory = trace_memory(
            file,
            &memory,
            crate::models::scenario::footprint::check_trace_file,
        )?;
        let trace = load_trace(file)?;
        return Ok(format!("ok: {}\n{memory}", describe_trace(&trace)));
    }
    let plan = load_plan_with(file, overrides, &registry.models)?;
    let mut text = describe_plan("scenario", file, &plan, Scenario::name, |text, s| {
        describe_scenario(text, s, &memory)
    });
    if let Plan::Sweep { points, .. } = &plan {
        largest_point_memory(&mut text, points, &memory, |s| s.memory.as_ref());
    }
    Ok(text)
}

/// A sweep's point with the largest memory estimate, when it is not point
/// 0 (whose estimate the description states): each point is checked
/// with what the points before it keep (DESIGN §8.5), so the last or
/// largest points set a sweep's peak, not its first.
fn largest_point_memory<S>(
    text: &mut String,
    points: &[SweepPoint<S>],
    budget: &MemoryBudget,
    memory: impl Fn(&S) -> Option<&Estimate>,
) {
    let total = |p: &SweepPoint<S>| memory(&p.scenario).map(Estimate::total);
    let Some(largest) = points
        .iter()
        .filter(|p| total(p).is_some())
        .max_by_key(|p| {
            // The first of equal ones.
            (total(p), std::cmp::Reverse(p.index))
        })
    else {
        return;
    };
    if largest.index == 0 || total(largest) <= points.first().and_then(total) {
        return;
    }
    let values: Vec<String> = largest
        .values
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    estimate_line(
        text,
        "memory",
        &format!(
            " at point {} ({}), the sweep's largest",
            largest.index,
            values.join(", ")
        ),
        memory(&largest.scenario),
        budget,
    );
}

/// The description `validate` prints of a plan of either mode: one
/// scenario (`what`: "scenario" or "job scenario"), or a sweep's grid and
/// its point 0, each scenario described by `describe`.
fn describe_plan<S>(
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

/// Describe a model scenario; its memory estimate is read against
/// `memory`'s limit (DESIGN §8.5).
fn describe_scenario(text: &mut String, s: &Scenario, memory: &MemoryBudget) {
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
    estimate_line(text, "memory", "", s.memory.as_ref(), memory);
    for w in crate::models::warnings::setup_warnings(s) {
        line(text, format_args!("  warning: {w}"));
    }
}

/// The line `label (--threads N, --jobs)at: an estimated …, within the …
/// of …` of a scenario's memory estimate, checked against `budget`
/// (DESIGN §8.5); nothing without an estimate.
fn estimate_line(
    text: &mut String,
    label: &str,
    at: &str,
    e: Option<&Estimate>,
    budget: &MemoryBudget,
) {
    let Some(e) = e else {
        return;
    };
    let threads = match budget.threads {
        Some(t) => format!("--threads {t}"),
        None => "a thread per core".to_string(),
    };
    let jobs = if budget.keep_jobs { ", --jobs" } else { "" };
    line(
        text,
        format_args!("  {label} ({threads}{jobs}){at}: {}", within(e, budget)),
    );
}

/// Describe a job trace.
fn describe_job_trace(t: &JobTrace) -> String {
    let gpus: u64 = t.jobs().iter().map(|j| u64::from(j.gpus)).sum();
    let max_gpus = t.jobs().iter().map(|j| j.gpus).max().unwrap_or(0);
    let last = t.jobs().iter().map(|j| j.submit).max().unwrap_or(0);
    format!(
        "job trace {}: {} jobs of {} users, {} GPUs requested (largest job {}), submits over {:.0} s, {:.1} GPU-hours of work",
        t.source(),
        t.len(),
        t.users().len(),
        gpus,
        max_gpus,
        last as f64 / 1e6,
        t.total_work() as f64 / 3.6e9
    ) + &if t.type_columns().is_empty() {
        String::new()
    } else {
        format!(
            ", durations per GPU type for {}",
            t.type_columns().join(", ")
        )
    }
}

/// `tenantsim validate JOBS.csv`: the description it prints.
fn validate_job_trace(path: &Path, memory: &MemoryBudget) -> Result<String> {
    let memory = trace_memory(path, memory, crate::jobs::footprint::check_trace_file)?;
    let t = load_job_trace(path)?;
    Ok(format!("ok: {}\n{memory}", describe_job_trace(&t)))
}

/// The memory of reading the trace `file` alone, checked against
/// `budget` before it is read by the mode's `check` (its footprint's
/// `check_trace_file`): the line that states it (nothing when the file
/// cannot be scanned: the reader then says why).
fn trace_memory(
    file: &Path,
    budget: &MemoryBudget,
    check: impl FnOnce(&Path, &MemoryBudget) -> Result<Option<Estimate>>,
) -> Result<String> {
    Ok(match check(file, budget)? {
        Some(e) => format!("  memory: {}\n", within(&e, budget)),
        None => String::new(),
    })
}

fn describe_cluster(s: &JobScenario) -> String {
    let types = if s.cluster.is_typed() {
        let per: Vec<String> = s
            .cluster
            .types()
            .iter()
            .enumerate()
            .map(|(t, name)| format!("{name} {}", s.cluster.gpus_of_type(t as u16)))
            .collect();
        format!(" ({})", per.join(", "))
    } else {
        String::new()
    };
    format!(
        "cluster: {} nodes, {} GPUs{types}, placement {}{}{}",
        s.nodes.len(),
        s.gpus(),
        s.placement.name(),
        if s.restart_overhead > 0 {
            format!(", restart overhead {} s", s.restart_overhead as f64 / 1e6)
        } else {
            String::new()
        },
        match s.round {
            Some(r) => format!(", in rounds of {} s", r as f64 / 1e6),
            None => String::new(),
        }
    )
}

/// `tenantsim validate SCENARIO.toml` for a job-mode scenario (every
/// point of its `[sweep]`, if any): the description it prints.
fn validate_job_scenario(path: &Path, registry: &Registry, o: Overrides) -> Result<String> {
    let plan = load_job_plan_with(path, o, &registry.jobs)?;
    let mut text = describe_plan("job scenario", path, &plan, JobScenario::name, |text, s| {
        describe_job_scenario(text, s, &o.memory)
    });
    if let Plan::Sweep { points, .. } = &plan {
        largest_point_memory(&mut text, points, &o.memory, |s| s.memory.as_ref());
    }
    Ok(text)
}

fn validate_shared_scenario(path: &Path, registry: &Registry, o: Overrides) -> Result<String> {
    let plan = registry.shared_mode().load_plan(path, o)?;
    Ok(describe_plan(
        "shared scenario",
        path,
        &plan,
        SharedScenario::name,
        |text, s| describe_shared_scenario(text, s, &o.memory),
    ))
}

/// Describe a shared scenario; its service's memory estimate is read
/// against `memory`'s limit.
fn describe_shared_scenario(text: &mut String, s: &SharedScenario, memory: &MemoryBudget) {
    line(
        text,
        format_args!(
            "  cluster: {} node(s), {} GPUs, {} placement",
            s.cluster.nodes.len(),
            s.gpus(),
            s.placement.name()
        ),
    );
    if let Some(svc) = &s.service {
        line(
            text,
            format_args!(
                "  service: {} users × {} models, up to {} GPU(s), {} GPU(s) per job, priority {}, preempt {}",
                svc.scenario.trace.n_users(),
                svc.scenario.trace.n_models(),
                svc.max_gpus,
                svc.gpus_per_job,
                svc.priority.name(),
                svc.preempt.name()
            ),
        );
        estimate_line(
            text,
            "service memory",
            "",
            svc.scenario.memory.as_ref(),
            memory,
        );
    }
    if let Some(b) = &s.background {
        line(
            text,
            format_args!(
                "  background: {}, load {}",
                describe_job_trace(&b.trace),
                s.load
            ),
        );
        estimate_line(text, "background memory", "", b.memory.as_ref(), memory);
    }
    if let Some(w) = &s.workflows {
        let jobs = (0..s.policies().max(1))
            .map(|p| crate::shared::sim::workflow_jobs(&w.input(p, false)))
            .max()
            .unwrap_or(0);
        line(
            text,
            format_args!(
                "  workflows: {} workflow(s) of {} step(s) from {}, load {}, up to {} job(s) a run (retries and sub-jobs counted)",
                w.trace.workflows().len(),
                w.trace.steps().len(),
                w.path.display(),
                w.load,
                crate::core::limits::grouped(jobs)
            ),
        );
        estimate_line(text, "workflows memory", "", Some(&w.memory), memory);
    }
    let parts = usize::from(s.service.is_some())
        + usize::from(s.background.is_some())
        + usize::from(s.workflows.is_some());
    if parts > 1 {
        // Held at once: the sum the scenario was checked against.
        let label = if parts == 2 {
            "memory of both"
        } else {
            "memory of all three"
        };
        estimate_line(text, label, "", s.memory.as_ref(), memory);
    }
    line(
        text,
        format_args!("  seed {}, {} repetition(s)", s.seed(), s.repetitions()),
    );
    for (p, c) in s.file.policies.iter().zip(&s.cluster_policies) {
        line(
            text,
            format_args!(
                "  policy `{}`: {}cluster scheduler {}",
                p.name,
                match (&p.scheduler, &p.selector) {
                    (Some(a), Some(b)) => format!("scheduler {a}, selector {b}, "),
                    _ => String::new(),
                },
                c.spec.name
            ),
        );
    }
}

/// Append `args` and a newline to `text`.
fn line(text: &mut String, args: std::fmt::Arguments<'_>) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = text.write_fmt(args);
    text.push('\n');
}

/// Describe a job-mode scenario; its memory estimate is read against
/// `memory`'s limit (DESIGN §8.5).
fn describe_job_scenario(text: &mut String, s: &JobScenario, memory: &MemoryBudget) {
    line(text, format_args!("  {}", describe_job_trace(&s.trace)));
    line(text, format_args!("  {}", describe_cluster(s)));
    line(
        text,
        format_args!(
            "  seed {}, {} repetition(s){}",
            s.seed(),
            s.repetitions(),
            if s.is_randomised() {
                ", jobs sampled per repetition"
            } else {
                ""
            }
        ),
    );
    for p in &s.policies {
        line(
            text,
            format_args!(
                "  policy `{}`: scheduler {}{}{}",
                p.name,
                p.spec.name,
                if p.spec.preemptive {
                    " (preemptive)"
                } else {
                    ""
                },
                if p.backfill { ", backfill" } else { "" }
            ),
        );
        if p.spec.needs_rounds {
            text.pop();
            line(
                text,
                format_args!(", time-sliced in rounds, chooses GPU types itself"),
            );
        } else if s.cluster.is_typed() {
            text.pop();
            line(text, format_args!(", type policy {}", p.type_policy.name()));
        }
    }
    estimate_line(text, "memory", "", s.memory.as_ref(), memory);
    for w in &s.type_warnings {
        line(text, format_args!("  warning: {w}"));
    }
}

/// The job-mode half of `tenantsim validate FILE`: `Some(result)` when
/// `file` is a job-mode scenario (`is_scenario`) or a job trace (a CSV
/// whose header has `job_id`), `None` to let the model-mode validator
/// handle it.
/// `validate` of a workflow trace (DESIGN §14.1): read and check it, and
/// count what it holds.
fn validate_workflow_trace(file: &Path, memory: &MemoryBudget) -> Result<String> {
    let estimate = trace_memory(file, memory, |f, b| {
        Ok(crate::workflows::footprint::check_trace_file(f, b)?.map(|(_, e)| e))
    })?;
    let t = crate::workflows::trace::WorkflowTrace::read(file)?;
    let roots = t.steps().iter().filter(|s| s.parents_at.1 == 0).count();
    let keyed = t
        .steps()
        .iter()
        .filter(|s| s.cache_key != crate::workflows::trace::NO_KEY)
        .count();
    Ok(format!(
        "ok: workflow trace {}: {} workflows of {} tenant(s), {} steps ({} roots, {} with a cache key, {} distinct keys)\n{estimate}",
        t.source(),
        t.workflows().len(),
        t.tenants().len(),
        t.n_steps(),
        roots,
        keyed,
        t.cache_keys()
    ))
}

fn validate_if_jobs(
    file: &Path,
    is_scenario: bool,
    registry: &Registry,
    o: Overrides,
) -> Option<Result<String>> {
    if is_scenario {
        return match crate::core::io::scenario::scenario_mode(file) {
            Ok(crate::core::io::scenario::ScenarioMode::Jobs) => {
                Some(validate_job_scenario(file, registry, o))
            }
            Ok(crate::core::io::scenario::ScenarioMode::Shared) => {
                Some(validate_shared_scenario(file, registry, o))
            }
            Ok(crate::core::io::scenario::ScenarioMode::Models) => None,
            Err(e) => Some(Err(e)),
        };
    }
    // Only the header line is needed to tell the kinds apart; a file that
    // cannot be read is left to the model-trace loader to report.
    let input = crate::core::io::open_input(file, "trace").ok()?;
    let mut first = Vec::new();
    std::io::BufRead::read_until(
        &mut std::io::BufReader::new(std::io::Read::take(input, 64 * 1024)),
        b'\n',
        &mut first,
    )
    .ok()?;
    let header = std::str::from_utf8(&first).ok()?;
    if crate::workflows::trace::looks_like_workflow_trace(header) {
        return Some(validate_workflow_trace(file, &o.memory));
    }
    crate::jobs::trace::looks_like_job_trace(header).then(|| validate_job_trace(file, &o.memory))
}
