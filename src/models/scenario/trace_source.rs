//! Resolving a scenario's `[trace]` table into a loaded trace.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::{SynRowsKind, TraceImportSection, TraceSection, TraceSynSection};
use crate::core::choice::{Choice, choice_names, parse_choice};
use crate::core::error::{Error, Result};
use crate::core::io::hashed_input::HashedInput;
use crate::core::run::identity::hex;
use crate::models::import::{ImportFormat, ImportOptions, RuntimeModel, import_rows};
use crate::models::trace::generate::SynNames;
use crate::models::trace::generate_curves::{generate_syn_curves, validate_levels_named};
use crate::models::trace::{
    CostDist, CostMode, MAX_RUNTIME_S, SynParams, Trace, TraceBuilder, TraceDigest, TraceRow,
    curve_trace_to_csv, generate_syn_trace, lazy_syn_trace, parse_trace, secs_to_micros,
    trace_to_csv,
};

/// A trace ready for a scenario, with what identifies it in `run.json`.
#[derive(Debug, Clone)]
pub struct LoadedTrace {
    /// The trace.
    pub trace: Arc<Trace>,
    /// The file it was read from, or a description of how it was made.
    pub origin: PathBuf,
    /// SHA-256 (hex) of the trace file's bytes, or of the canonical CSV
    /// text of an imported or generated trace (deferred for a lazy
    /// generated trace, [`TraceDigest`]).
    pub sha256: TraceDigest,
}

/// Load the trace a `[trace]` table names; `at` names the scenario in
/// errors, `base` is the scenario's folder. The table's `cost` and
/// `restore_s` say how a curve trace's costs read (DESIGN §12.1).
pub fn load_trace_source(at: &str, base: &Path, section: &TraceSection) -> Result<LoadedTrace> {
    load_trace_source_in(at, "", base, section)
}

/// [`load_trace_source`] of a `[trace]` table that sits under the key
/// prefix `p` (`""` in a model-mode scenario, `"service."` in a shared
/// one): messages name `[{p}trace]`.
pub fn load_trace_source_in(
    at: &str,
    p: &str,
    base: &Path,
    section: &TraceSection,
) -> Result<LoadedTrace> {
    let cost = match section.cost.as_deref() {
        None | Some("from-scratch") => CostMode::FromScratch,
        Some("incremental") => CostMode::Incremental,
        Some(other) => {
            return Err(Error::input(format!(
                "{at}: [{p}trace].cost: expected \"from-scratch\" or \"incremental\", got {other:?}"
            )));
        }
    };
    let restore_s = section.restore_s.unwrap_or(0.0);
    if !restore_s.is_finite() || !(0.0..=MAX_RUNTIME_S).contains(&restore_s) {
        return Err(Error::input(format!(
            "{at}: [{p}trace].restore_s: expected a number of seconds >= 0 and <= {MAX_RUNTIME_S:e}, got {restore_s}"
        )));
    }
    if section.restore_s.is_some() && cost != CostMode::Incremental {
        return Err(Error::input(format!(
            "{at}: [{p}trace].restore_s: only meaningful with cost = \"incremental\" (a from-scratch job restores nothing)"
        )));
    }
    let mut loaded = load_trace_base(at, p, base, section)?;
    if cost != CostMode::FromScratch || restore_s > 0.0 {
        if !loaded.trace.is_curve() {
            return Err(Error::input(format!(
                "{at}: [{p}trace].cost = \"incremental\" needs a curve trace (one with a `fidelity` column); {} has one fidelity per pair",
                loaded.origin.display()
            )));
        }
        let mut trace = (*loaded.trace).clone();
        let restore_us = if restore_s > 0.0 {
            secs_to_micros(restore_s)
        } else {
            0
        };
        trace.set_cost_mode(cost, restore_us);
        loaded.trace = Arc::new(trace);
    }
    Ok(loaded)
}

fn load_trace_base(at: &str, p: &str, base: &Path, section: &TraceSection) -> Result<LoadedTrace> {
    let given = [
        section.path.is_some(),
        section.import.is_some(),
        section.syn.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() != 1 {
        return Err(Error::input(format!(
            "{at}: [{p}trace]: give exactly one of `path` (a trace CSV), [{p}trace.import] or [{p}trace.syn]"
        )));
    }
    if let Some(file) = &section.path {
        let path = base.join(file);
        // Parsed as it is read, and hashed as it passes (the file is
        // never held whole: core/io/hashed_input.rs).
        let mut input = HashedInput::open(&path, "trace")
            .map_err(|e| e.context(format!("{at}: [{p}trace].path")))?;
        let trace = parse_trace(&path.display().to_string(), &mut input)?;
        let sha256 = hex(&input.finish()?);
        return Ok(LoadedTrace {
            trace: Arc::new(trace),
            origin: path,
            sha256: TraceDigest::known(sha256),
        });
    }
    if let Some(syn) = &section.syn {
        let (params, origin) = syn_params(at, p, syn)?;
        let levels = syn.fidelities.unwrap_or(1);
        if levels != 1 && syn.rows == Some(SynRowsKind::Lazy) {
            return Err(Error::input(format!(
                "{at}: [{p}trace.syn].rows: `lazy` holds plain traces only, but `fidelities` is \
                 {levels}: give `rows = \"dense\"` or leave `rows` out"
            )));
        }
        if levels != 1 {
            validate_levels_named(&params, levels, SynNames::KEYS)
                .map_err(|e| Error::input(format!("{at}: [{p}trace.syn]: {}", e.message())))?;
            let origin = PathBuf::from(format!("{} --fidelities {levels}", origin.display()));
            let text = curve_trace_to_csv(&generate_syn_curves(&params, levels));
            let trace = parse_trace(&origin.display().to_string(), text.as_bytes())?;
            return Ok(LoadedTrace {
                trace: Arc::new(trace),
                origin,
                sha256: TraceDigest::known(hex(&Sha256::digest(text.as_bytes()))),
            });
        }
        let generated = if syn.is_lazy() {
            lazy_syn_trace(&params, origin.display().to_string())
        } else {
            generate_syn_trace(&params, origin.display().to_string())
        };
        return Ok(LoadedTrace {
            trace: Arc::new(generated.trace),
            origin,
            sha256: generated.csv_sha256,
        });
    }
    let Some(imp) = &section.import else {
        return Err(Error::input(format!("{at}: [{p}trace]: no trace source")));
    };
    let (rows, origin) = import(at, p, base, imp)?;
    let csv = trace_to_csv(&rows);
    let source = origin.display().to_string();
    let has_year = rows.iter().any(|r| r.model_year.is_some());
    let has_cites = rows.iter().any(|r| r.model_citations.is_some());
    let mut builder = TraceBuilder::new(source.clone(), has_year, has_cites);
    for (i, row) in rows.iter().enumerate() {
        builder.push(row, &format!("{source}: row {}", i + 1))?;
    }
    Ok(LoadedTrace {
        trace: Arc::new(builder.finish()?),
        origin,
        sha256: TraceDigest::known(hex(&Sha256::digest(csv.as_bytes()))),
    })
}

fn enum_value<T: Choice>(at: &str, p: &str, key: &str, value: &str) -> Result<T> {
    parse_choice(value).ok_or_else(|| {
        Error::input(format!(
            "{at}: [{p}trace.import].{key}: unknown value `{value}`: expected one of {}",
            choice_names::<T>()
        ))
    })
}

fn import(
    at: &str,
    p: &str,
    base: &Path,
    s: &TraceImportSection,
) -> Result<(Vec<TraceRow>, PathBuf)> {
    let format: ImportFormat = enum_value(at, p, "format", &s.format)?;
    let args = ImportOptions {
        format,
        inputs: s.inputs.iter().map(|p| base.join(p)).collect(),
        runtime: s
            .runtime
            .as_deref()
            .map(|r| enum_value::<RuntimeModel>(at, p, "runtime", r))
            .transpose()?,
        score: s
            .score
            .as_deref()
            .map(|r| enum_value(at, p, "score", r))
            .transpose()?,
        complete_only: s.complete_only,
        runtime_matrix: s.runtime_matrix.iter().map(|p| base.join(p)).collect(),
        row_labels: s.row_labels.iter().map(|p| base.join(p)).collect(),
        col_labels: s.col_labels.as_ref().map(|p| base.join(p)),
        missing: s.missing.clone(),
        model_metadata: s.model_metadata.as_ref().map(|p| base.join(p)),
        measure: s.measure.clone(),
    };
    if args.inputs.is_empty() {
        return Err(Error::input(format!(
            "{at}: [{p}trace.import].inputs: expected at least one input file"
        )));
    }
    let imported = import_rows(&args)
        .map_err(|e| Error::input(format!("{at}: [{p}trace.import]: {}", e.message())))?;
    let origin = PathBuf::from(format!(
        "import {} {}",
        format.name(),
        args.inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    ));
    Ok((imported.rows, origin))
}

/// The generator parameters of `[trace.syn]`, validated, and the
/// `gen syn` command line that makes the same trace (its origin).
fn syn_params(at: &str, p: &str, s: &TraceSynSection) -> Result<(SynParams, PathBuf)> {
    let cost = CostDist::from_str(&s.cost)
        .map_err(|e| Error::input(format!("{at}: [{p}trace.syn].cost: {e}")))?;
    let params = SynParams {
        users: s.users,
        models: s.models,
        model_sd: s.model_sd,
        user_sd: s.user_sd,
        cost,
        seed: s.seed,
    };
    params
        .validate_named(SynNames::KEYS)
        .map_err(|e| Error::input(format!("{at}: [{p}trace.syn]: {}", e.message())))?;
    let origin = PathBuf::from(format!(
        "gen syn --users {} --models {} --model-sd {} --user-sd {} --cost {} --seed {}",
        s.users, s.models, s.model_sd, s.user_sd, s.cost, s.seed
    ));
    Ok((params, origin))
}
