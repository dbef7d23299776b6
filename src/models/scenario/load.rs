//! Turning a scenario file into a validated [`Scenario`].

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    ArrivalPlan, ClusterSection, LimitsSection, LoadedTrace, OutputSection, PolicySection,
    ScenarioFile, SplitPlan, TraceSection, load_trace_source_in,
};
use crate::core::error::{Error, Result};
use crate::core::io::cluster::{ClusterSpec, groups_to_spec};
use crate::core::io::echo::{shown, shown_number};
use crate::core::io::scenario::{
    Overrides, check_common, read_scenario_text, resolve_baseline, toml_error,
};
use crate::core::limits::{
    MAX_GP_MODELS, MAX_GPUS, MAX_GRID_POINTS, MAX_THRESHOLDS, MIN_GRID_POINTS, grouped,
};
use crate::core::memory::{Estimate, Held, MemoryBudget, check, check_file_size};
use crate::models::policy::Params;
use crate::models::policy::registry::{ModelRegistry, SchedulerEntry, SelectorEntry};
use crate::models::sim::{GpuTypes, SimConfig, SpeedTable, TenantLimits};
use crate::models::sim::{SchedulerFactory, SelectorFactory};
use crate::models::trace::{Trace, TraceDigest};

/// One validated policy: its label, its scheduler and selector, and the
/// factories that build them for each repetition.
#[derive(Clone)]
pub struct Policy {
    /// Label used in every output.
    pub name: String,
    /// The scheduler's registry entry.
    pub scheduler: Arc<SchedulerEntry>,
    /// The selector's registry entry.
    pub selector: Arc<SelectorEntry>,
    /// Builds the scheduler of a repetition.
    pub make_scheduler: SchedulerFactory,
    /// Builds the selector of a repetition.
    pub make_selector: SelectorFactory,
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policy")
            .field("name", &self.name)
            .field("scheduler", &self.scheduler.name)
            .field("selector", &self.selector.name)
            .finish_non_exhaustive()
    }
}

/// A validated scenario, its trace loaded.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The scenario file.
    pub path: PathBuf,
    /// The memory estimate the scenario passed (DESIGN §8.5), with the
    /// items earlier points of a sweep keep; `None` when it was not made
    /// (a trace whose shape is not known before it is read).
    pub memory: Option<Estimate>,
    /// The file's contents after command-line overrides (the "resolved
    /// scenario" recorded in `run.json`).
    pub file: ScenarioFile,
    /// The trace file, resolved relative to the scenario (or how an
    /// imported or generated trace was made).
    pub trace_path: PathBuf,
    /// SHA-256 of the trace file's bytes (or of the canonical CSV of an
    /// imported or generated trace), hex; computed when first read for a
    /// lazy generated trace ([`TraceDigest`]).
    pub trace_sha256: TraceDigest,
    /// The trace, shared read-only by every repetition.
    pub trace: Arc<Trace>,
    /// How users split, per repetition.
    pub split: SplitPlan,
    /// Cluster and limits.
    pub config: SimConfig,
    /// The GPUs' types and the runtimes on each (untyped: one anonymous
    /// type running the trace's runtimes).
    pub gpu_types: Arc<GpuTypes>,
    /// θ values.
    pub thresholds: Vec<f64>,
    /// When tenants arrive.
    pub arrivals: ArrivalPlan,
    /// Policies in file order.
    pub policies: Vec<Policy>,
    /// Index of the baseline policy (`baseline`, default 0).
    pub baseline: usize,
}

impl Scenario {
    /// The bytes of the memory estimate it passed (DESIGN §8.5), if any.
    pub fn memory_estimate(&self) -> Option<u64> {
        self.memory.as_ref().map(Estimate::total)
    }

    /// Whether `tenants.csv` says why each tenant ended (its `ended`
    /// column): on a curve trace, when some policy's selector may end a
    /// tenant by its schedule (DESIGN §12.3,
    /// [`may_end_by_schedule`](crate::models::policy::selector::multi_fidelity::top_sweep::may_end_by_schedule)).
    pub fn reports_end_reasons(&self) -> bool {
        self.trace.is_curve()
            && self.file.policies.iter().any(|p| {
                crate::models::policy::selector::multi_fidelity::top_sweep::may_end_by_schedule(
                    &p.selector,
                    &p.params,
                )
            })
    }

    /// The index of the policy named `name`; an unknown name is a usage
    /// error that starts with `label` (how the caller was given the name,
    /// e.g. `--policy nope`) and lists the scenario's policies.
    pub fn policy_index(&self, name: &str, label: &str) -> Result<usize> {
        self.policies
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.policies.iter().map(|p| p.name.as_str()).collect();
                Error::usage(format!(
                    "{label}: no such policy in the scenario (its policies: {})",
                    names.join(", ")
                ))
            })
    }

    /// The scenario's name.
    pub fn name(&self) -> &str {
        &self.file.name
    }
    /// The seed after overrides.
    pub fn seed(&self) -> u64 {
        self.file.seed
    }
    /// Repetitions after overrides.
    pub fn repetitions(&self) -> u32 {
        self.file.repetitions
    }
    /// The validated `[output]` table.
    pub fn output(&self) -> &OutputSection {
        &self.file.output
    }
}

/// Traces already loaded, by resolved path, so the points of a sweep share
/// one copy of each trace.
#[derive(Debug, Default)]
pub struct TraceCache {
    loaded: HashMap<String, LoadedTrace>,
    /// Bytes the points loaded so far keep until the end, by their
    /// estimates (their distinct traces, their loss curves): the memory
    /// check of the next point counts them (DESIGN §8.5).
    earlier: u64,
    /// The shape of each `[trace]` table scanned so far, by [`Self::key`]:
    /// the points of a sweep scan a trace file once.
    shapes: HashMap<String, Option<super::footprint::TraceShape>>,
}

impl TraceCache {
    /// The shape of the `[trace]` table `section` of the scenario folder
    /// `base` ([`trace_shape`](super::footprint::trace_shape), once per
    /// table); a trace file larger than `budget` is refused by its size
    /// before it is scanned (`at` names the scenario).
    fn shape(
        &mut self,
        at: &str,
        base: &Path,
        section: &TraceSection,
        budget: &MemoryBudget,
    ) -> Result<Option<super::footprint::TraceShape>> {
        let key = Self::key(base, section);
        if let Some(shape) = self.shapes.get(&key) {
            return Ok(*shape);
        }
        if let Some(p) = &section.path {
            check_file_size(at, "trace", &base.join(p), budget)?;
        }
        let shape = super::footprint::trace_shape(base, section);
        self.shapes.insert(key, shape);
        Ok(shape)
    }

    /// The key of a `[trace]` table of the scenario folder `base`.
    fn key(base: &Path, section: &TraceSection) -> String {
        format!(
            "{}|{}",
            base.display(),
            serde_json::to_string(section).unwrap_or_default()
        )
    }

    /// Check the memory estimate of a point whose trace is `section`
    /// against `budget`, counting what earlier points keep (a trace
    /// already loaded is not counted twice); then remember what this one
    /// keeps. The estimate checked.
    fn check_memory(
        &mut self,
        at: &str,
        base: &Path,
        section: &TraceSection,
        estimate: Estimate,
        budget: &MemoryBudget,
    ) -> Result<Estimate> {
        let mut estimate = if self.loaded.contains_key(&Self::key(base, section)) {
            estimate.without(Held::Shared)
        } else {
            estimate
        };
        estimate.add_held(
            "kept by the sweep's earlier points (traces, loss curves)",
            self.earlier,
            Held::Shared,
        );
        check(at, &estimate, budget)?;
        self.earlier = estimate
            .total_held(Held::Shared)
            .saturating_add(estimate.total_held(Held::ToEnd));
        Ok(estimate)
    }

    /// The trace a `[trace]` table names (see [`load_trace_source`]),
    /// loaded on first use; keyed by the scenario folder and the table.
    fn get(
        &mut self,
        at: &str,
        p: &str,
        base: &Path,
        section: &TraceSection,
    ) -> Result<LoadedTrace> {
        let key = Self::key(base, section);
        if let Some(hit) = self.loaded.get(&key) {
            return Ok(hit.clone());
        }
        let loaded = load_trace_source_in(at, p, base, section)?;
        self.loaded.insert(key, loaded.clone());
        Ok(loaded)
    }
}

/// Read, parse and validate the scenario at `path` (and load its trace).
pub fn load_scenario(path: &Path, overrides: Overrides) -> Result<Scenario> {
    let text = read_scenario_text(path)?;
    parse_scenario(path, &text, overrides)
}

/// Parse and validate scenario `text` as if read from `path` (relative paths
/// inside it resolve against `path`'s folder).
pub fn parse_scenario(path: &Path, text: &str, overrides: Overrides) -> Result<Scenario> {
    parse_scenario_with(path, text, overrides, &ModelRegistry::builtin())
}

/// [`parse_scenario`], the policies named in `registry` (the built-ins
/// and any a user registered).
pub fn parse_scenario_with(
    path: &Path,
    text: &str,
    overrides: Overrides,
    registry: &ModelRegistry,
) -> Result<Scenario> {
    let at = path.display().to_string();
    let file: ScenarioFile = toml::from_str(text).map_err(|e| toml_error(&at, &e))?;
    build_scenario(path, file, overrides, &mut TraceCache::default(), registry)
}

/// Where a model-selection scenario sits in its file: at the top (model
/// mode, [`Embedding::TOP`]) or as the `[service]` of a shared scenario
/// (DESIGN §13.4), whose `[service.trace]`, `[service.split]`,
/// `[service.arrivals]` and `[service.limits]` take the keys of `[trace]`,
/// `[split]`, `[arrivals]` and `[limits]` and whose cluster is given.
#[derive(Debug, Clone, Copy)]
pub struct Embedding<'a> {
    /// Prefix of the section names in messages: `""` or `"service."`.
    pub prefix: &'a str,
    /// The table holding `max_jobs_per_tenant`: `"[cluster]"` or
    /// `"[service]"`.
    pub jobs_key: &'a str,
    /// The cluster, when the file's `[cluster]` table is not the model
    /// mode's (a shared scenario's nodes); its GPUs are numbered node by
    /// node and `file.cluster` gives only the speed factors.
    pub cluster: Option<&'a ClusterSpec>,
}

impl Embedding<'_> {
    /// A model-mode scenario file.
    pub const TOP: Embedding<'static> = Embedding {
        prefix: "",
        jobs_key: "[cluster]",
        cluster: None,
    };
}

/// Validate a deserialised scenario `file` read from `path`: apply the
/// overrides, check every key, load the trace (through `cache`) and resolve
/// split, policies (by name in `registry`) and baseline.
pub fn build_scenario(
    path: &Path,
    file: ScenarioFile,
    overrides: Overrides,
    cache: &mut TraceCache,
    registry: &ModelRegistry,
) -> Result<Scenario> {
    build_scenario_in(path, file, overrides, cache, registry, Embedding::TOP)
}

/// [`build_scenario`] of a model-selection scenario embedded as `how`
/// says (messages name its keys where they are in the file).
pub fn build_scenario_in(
    path: &Path,
    mut file: ScenarioFile,
    overrides: Overrides,
    cache: &mut TraceCache,
    registry: &ModelRegistry,
    how: Embedding<'_>,
) -> Result<Scenario> {
    let at = path.display().to_string();
    let p = how.prefix;
    overrides.apply(
        &mut file.seed,
        &mut file.repetitions,
        &mut file.output.plots,
    );
    check_top_level(&at, &file, how.jobs_key)?;
    check_output(&at, &file.output)?;

    let base = path.parent().unwrap_or(Path::new(""));
    // Limits from memory (DESIGN §8.5): the estimate, from the keys and
    // one streaming pass over a trace file, before the trace is loaded.
    let memory = match cache.shape(&at, base, &file.trace, &overrides.memory)? {
        Some(shape) => {
            let estimate = super::footprint::estimate_in(
                &file,
                &shape,
                &overrides.memory,
                registry,
                how.cluster.is_some(),
            );
            Some(cache.check_memory(&at, base, &file.trace, estimate, &overrides.memory)?)
        }
        None => None,
    };
    let loaded = cache.get(&at, p, base, &file.trace)?;
    let trace = loaded.trace;
    let trace_path = loaded.origin;
    let trace_sha256 = loaded.sha256;

    let split = resolve_split(&at, p, &file, &trace)?;
    let gpu_types = Arc::new(match how.cluster {
        None => resolve_cluster(&at, &file.cluster, &trace)?,
        Some(spec) => {
            let speeds = SpeedTable {
                speed: file.cluster.speed.clone(),
                model_speed: file.cluster.model_speed.clone(),
            };
            GpuTypes::build(&at, spec, &trace, &speeds)?
        }
    });
    let config = SimConfig {
        gpus: gpu_types.gpus(),
        max_jobs_per_tenant: file.cluster.max_jobs_per_tenant,
        horizon: file.horizon_s.map(|h| (h * 1.0e6).round() as u64),
        limits: resolve_limits(&at, p, &file.limits)?,
    };
    let max_tenants = split.resolve(file.seed, 0).tenants.len();
    let arrivals = ArrivalPlan::from_section_in(&at, p, base, &file.arrivals, &trace, max_tenants)?;
    if let ArrivalPlan::File { times } = &arrivals {
        let fixed_prior = split.fixed_prior.as_deref().unwrap_or(&[]);
        if let Some(u) =
            (0..trace.n_users()).find(|u| !fixed_prior.contains(u) && !times.contains_key(u))
        {
            return Err(Error::input(format!(
                "{at}: [{p}arrivals].path: no arrival time for user `{}`, which can be a tenant",
                trace.user_id(u)
            )));
        }
    }
    let prior_users = split
        .fixed_prior
        .as_ref()
        .map_or(split.prior_count.unwrap_or(0), Vec::len);
    let policies = file
        .policies
        .iter()
        .enumerate()
        .map(|(i, pol)| resolve_policy(&at, p, i, pol, &trace, prior_users, registry))
        .collect::<Result<Vec<_>>>()?;
    let names: Vec<&str> = policies.iter().map(|p| p.name.as_str()).collect();
    let baseline = resolve_baseline(&at, file.baseline.as_deref(), &names)?;
    Ok(Scenario {
        arrivals,
        memory,
        path: path.to_path_buf(),
        thresholds: file.thresholds.clone(),
        file,
        trace_path,
        trace_sha256,
        trace,
        split,
        config,
        gpu_types,
        policies,
        baseline,
    })
}

/// `[cluster]`: `gpus` identical GPUs or typed `nodes` (exactly one), the
/// speed factors, and the runtimes on each type (DESIGN §11.4).
fn resolve_cluster(at: &str, c: &ClusterSection, trace: &Trace) -> Result<GpuTypes> {
    let bad = |field: &str, msg: String| Err(Error::input(format!("{at}: {field}: {msg}")));
    let spec = match (c.gpus, &c.nodes) {
        (Some(_), Some(_)) => {
            return bad(
                "[cluster]",
                "give one of `gpus` (identical GPUs) and `nodes` (typed node groups), not both"
                    .into(),
            );
        }
        (None, None) => {
            return bad(
                "[cluster]",
                "missing `gpus` (identical GPUs, e.g. `gpus = 8`) or `nodes` (typed node groups, \
                 e.g. `nodes = [{type = \"v100\", count = 8}]`)"
                    .into(),
            );
        }
        (Some(0), None) => return bad("[cluster].gpus", "expected at least 1 GPU, got 0".into()),
        (Some(g), None) if g > MAX_GPUS => {
            return bad(
                "[cluster].gpus",
                format!(
                    "{} GPUs exceed the limit of {} GPUs",
                    grouped(g),
                    grouped(MAX_GPUS)
                ),
            );
        }
        // At most MAX_GPUS (checked above), so it fits.
        (Some(g), None) => ClusterSpec::untyped(&[u32::try_from(g).unwrap_or(u32::MAX)]),
        (None, Some(groups)) => {
            let spec = groups_to_spec(at, "[cluster].nodes", groups)?;
            if spec.gpus() > MAX_GPUS {
                return bad(
                    "[cluster].nodes",
                    format!(
                        "{} GPUs in all exceed the limit of {} GPUs",
                        grouped(spec.gpus()),
                        grouped(MAX_GPUS)
                    ),
                );
            }
            spec
        }
    };
    let speeds = SpeedTable {
        speed: c.speed.clone(),
        model_speed: c.model_speed.clone(),
    };
    GpuTypes::build(at, &spec, trace, &speeds)
}

/// Checks of `[output]`.
fn check_output(at: &str, o: &OutputSection) -> Result<()> {
    let bad =
        |field: &str, msg: String| Err(Error::input(format!("{at}: [output].{field}: {msg}")));
    if !(MIN_GRID_POINTS..=MAX_GRID_POINTS).contains(&u64::from(o.grid_points)) {
        return bad(
            "grid_points",
            format!(
                "expected between {MIN_GRID_POINTS} and {} points, got {}",
                grouped(MAX_GRID_POINTS),
                o.grid_points
            ),
        );
    }
    if !(o.confidence > 0.0 && o.confidence < 1.0) {
        return bad(
            "confidence",
            format!(
                "expected a confidence level strictly between 0 and 1 (e.g. 0.95), got {}",
                shown_number(o.confidence)
            ),
        );
    }
    match o.quantiles[..] {
        [lo, hi] if (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi) && lo < hi => {}
        _ => {
            return bad(
                "quantiles",
                format!(
                    "expected two quantile levels [low, high] with 0 <= low < high <= 1, got {:?}",
                    o.quantiles
                ),
            );
        }
    }
    match o.up_to_thetas.as_deref() {
        None => Ok(()),
        Some(&[lo, hi]) if lo > 0.0 && lo <= hi && hi <= 1.0 => Ok(()),
        Some(other) => bad(
            "up_to_thetas",
            format!(
                "expected the θ range [low, high] of the \"up to\" speedup with 0 < low <= high <= 1, got {other:?}"
            ),
        ),
    }
}

fn check_top_level(at: &str, f: &ScenarioFile, jobs_key: &str) -> Result<()> {
    let bad = |field: &str, msg: String| Err(Error::input(format!("{at}: {field}: {msg}")));
    if let Some(mode) = f.mode.as_deref().filter(|m| *m != "models") {
        return bad(
            "mode",
            format!(
                "expected \"models\" here (\"jobs\" scenarios have their own loader), got \"{mode}\""
            ),
        );
    }
    let names: Vec<&str> = f.policies.iter().map(|p| p.name.as_str()).collect();
    check_common(
        at,
        &f.name,
        f.repetitions,
        &names,
        "name, scheduler, selector",
    )?;
    if f.thresholds.is_empty() {
        return bad(
            "thresholds",
            "expected at least one loss threshold θ in (0, 1] (e.g. [0.05, 0.02, 0.01]), got []: \
             T(θ) and the speedups need one; omit the key for the default"
                .into(),
        );
    }
    if f.thresholds.len() > MAX_THRESHOLDS {
        return bad(
            "thresholds",
            format!(
                "{} thresholds exceed the limit of {MAX_THRESHOLDS}",
                f.thresholds.len()
            ),
        );
    }
    for (i, &t) in f.thresholds.iter().enumerate() {
        if !(t > 0.0 && t <= 1.0) {
            return bad(
                &format!("thresholds[{i}]"),
                format!("expected a loss threshold θ in (0, 1], got {t}"),
            );
        }
        if f.thresholds[..i].contains(&t) {
            return bad(
                &format!("thresholds[{i}]"),
                format!("θ = {t} is listed twice"),
            );
        }
    }
    if let Some(h) = f.horizon_s
        && !(h.is_finite() && h > 0.0 && h <= 1.0e12)
    {
        return bad(
            "horizon_s",
            format!("expected seconds > 0 and <= 1e12, got {}", shown_number(h)),
        );
    }
    if f.cluster.max_jobs_per_tenant == 0 {
        return bad(
            &format!("{jobs_key}.max_jobs_per_tenant"),
            "expected at least 1, got 0".into(),
        );
    }
    Ok(())
}

fn user_list(at: &str, p: &str, key: &str, ids: &[String], trace: &Trace) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let u = trace.user_index(id).ok_or_else(|| {
            Error::input(format!(
                "{at}: [{p}split].{key}: unknown user `{}`: the trace {} has no such user",
                shown(id),
                trace.source()
            ))
        })?;
        if out.contains(&u) {
            return Err(Error::input(format!(
                "{at}: [{p}split].{key}: user `{}` is listed twice",
                shown(id)
            )));
        }
        out.push(u);
    }
    Ok(out)
}

fn resolve_split(at: &str, p: &str, f: &ScenarioFile, trace: &Trace) -> Result<SplitPlan> {
    let s = &f.split;
    let n = trace.n_users();
    let err = |msg: String| Err(Error::input(format!("{at}: [{p}split]: {msg}")));
    let prior_ways = [
        s.prior.is_some(),
        s.prior_fraction.is_some(),
        s.prior_count.is_some(),
    ];
    if prior_ways.iter().filter(|&&b| b).count() > 1 {
        return err("give at most one of `prior`, `prior_fraction`, `prior_count`".into());
    }
    if s.tenants.is_some() && s.tenant_count.is_some() {
        return err("give at most one of `tenants`, `tenant_count`".into());
    }
    let fixed_prior = s
        .prior
        .as_ref()
        .map(|l| user_list(at, p, "prior", l, trace))
        .transpose()?;
    let fixed_tenants = s
        .tenants
        .as_ref()
        .map(|t| user_list(at, p, "tenants", t, trace))
        .transpose()?;
    if let (Some(p), Some(t)) = (&fixed_prior, &fixed_tenants)
        && let Some(&u) = p.iter().find(|u| t.contains(u))
    {
        return err(format!(
            "user `{}` is listed both as a prior user and as a tenant",
            trace.user_id(u)
        ));
    }
    let listed =
        fixed_prior.as_ref().map_or(0, Vec::len) + fixed_tenants.as_ref().map_or(0, Vec::len);
    let pool = n - listed;
    let prior_count = match (s.prior_fraction, s.prior_count) {
        (Some(fr), _) => {
            if !(0.0..1.0).contains(&fr) {
                return err(format!(
                    "prior_fraction: expected a fraction in [0, 1), got {fr}"
                ));
            }
            Some((fr * n as f64).round() as usize)
        }
        (None, c) => c,
    };
    if let Some(c) = prior_count
        && c > pool
    {
        return err(format!(
            "{c} prior users requested but only {pool} users are available to sample from"
        ));
    }
    let left = pool - prior_count.unwrap_or(0);
    if let Some(t) = s.tenant_count {
        if t == 0 {
            return err("tenant_count: expected at least 1 tenant, got 0".into());
        }
        if t > left {
            return err(format!(
                "tenant_count = {t} but only {left} users remain after the prior users (the trace has {n} users)"
            ));
        }
    }
    let tenants = match (&fixed_tenants, s.tenant_count) {
        (Some(t), _) => t.len(),
        (None, Some(t)) => t,
        (None, None) => left,
    };
    if tenants == 0 {
        return err("the split leaves no tenants: every user is a prior user".into());
    }
    Ok(SplitPlan {
        fixed_prior,
        fixed_tenants,
        prior_count,
        tenant_count: s.tenant_count,
        n_users: n,
    })
}

/// Resolve one `[[policy]]`; `prior_users` is the number of prior users of
/// every repetition (GP selectors need at least one).
fn resolve_policy(
    at: &str,
    section_prefix: &str,
    index: usize,
    p: &PolicySection,
    trace: &Trace,
    prior_users: usize,
    registry: &ModelRegistry,
) -> Result<Policy> {
    let context = format!("{at}: [[policy]] #{} (\"{}\")", index + 1, shown(&p.name));
    let scheduler = registry.scheduler(&p.scheduler).cloned().ok_or_else(|| {
        let unknown = registry
            .schedulers
            .unknown(&p.scheduler, &shown(&p.scheduler));
        Error::input(format!("{context}: {unknown}"))
    })?;
    let selector = registry.selector(&p.selector).cloned().ok_or_else(|| {
        let unknown = registry.selectors.unknown(&p.selector, &shown(&p.selector));
        Error::input(format!("{context}: {unknown}"))
    })?;
    if scheduler.needs_acquisition && !selector.provides_acquisition {
        let gp: Vec<&str> = registry
            .selectors
            .iter()
            .filter(|s| s.provides_acquisition)
            .map(|s| s.name.as_str())
            .collect();
        return Err(Error::input(format!(
            "{context}: scheduler `{}` needs a GP or multi-fidelity selector ({}), not `{}`",
            scheduler.name,
            gp.join(", "),
            selector.name
        )));
    }
    if selector.gp_prior && trace.n_models() > MAX_GP_MODELS {
        return Err(Error::input(format!(
            "{context}: selector `{}` keeps a GP over all {} models of the trace {}, beyond the limit of \
             {MAX_GP_MODELS} models for GP selectors (its cost grows with the cube of the models: \
             see docs/PERFORMANCE.md); use a trace with fewer models or a non-GP selector",
            selector.name,
            grouped(trace.n_models() as u64),
            trace.source()
        )));
    }
    if selector.gp_prior && prior_users == 0 {
        return Err(Error::input(format!(
            "{context}: selector `{}` builds its GP prior from the prior users, but the split has none: \
             give `prior`, `prior_fraction` or `prior_count` in [{section_prefix}split]",
            selector.name
        )));
    }
    let mut params = Params::new(context, p.params.clone());
    let make_scheduler = (scheduler.parse)(&mut params)?;
    let make_selector = (selector.parse)(&mut params, trace)?;
    params.finish(&format!(
        "scheduler `{}` and selector `{}`",
        scheduler.name, selector.name
    ))?;
    Ok(Policy {
        name: p.name.clone(),
        scheduler,
        selector,
        make_scheduler,
        make_selector,
    })
}

fn resolve_limits(at: &str, p: &str, l: &LimitsSection) -> Result<TenantLimits> {
    let secs = |key: &str, v: Option<f64>| -> Result<Option<u64>> {
        match v {
            None => Ok(None),
            Some(x) if x.is_finite() && x > 0.0 && x <= 1.0e12 => {
                Ok(Some((x * 1.0e6).round() as u64))
            }
            Some(x) => Err(Error::input(format!(
                "{at}: [{p}limits].{key}: expected seconds > 0 and <= 1e12, got {}",
                shown_number(x)
            ))),
        }
    };
    if l.max_jobs == Some(0) {
        return Err(Error::input(format!(
            "{at}: [{p}limits].max_jobs: expected at least 1 job, got 0"
        )));
    }
    Ok(TenantLimits {
        budget: secs("budget_gpu_s", l.budget_gpu_s)?,
        max_jobs: l.max_jobs,
        patience: secs("patience_s", l.patience_s)?,
    })
}
