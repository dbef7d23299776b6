//! Sweeps of model-mode scenarios: [`crate::core::run::sweep`] expanding a
//! `[sweep]` into validated [`Scenario`]s, the points sharing one copy of
//! each trace.

use std::path::Path;

use serde::Deserialize as _;
use toml::{Table, Value};

use super::ScenarioFile;
use super::load::{Scenario, TraceCache, build_scenario, parse_scenario_with};
use crate::core::error::{Error, Result};
use crate::core::io::scenario::{Overrides, read_scenario_text};
use crate::core::run::sweep::{Expand, expand_plan};
use crate::models::policy::registry::ModelRegistry;

/// What a model-mode scenario file asks to run.
pub type Plan = crate::core::run::sweep::Plan<Scenario>;

/// A grid point of a model-mode sweep.
pub type SweepPoint = crate::core::run::sweep::SweepPoint<Scenario>;

/// Read the scenario at `path` and expand its `[sweep]`, if any.
pub fn load_plan(path: &Path, overrides: Overrides) -> Result<Plan> {
    let text = read_scenario_text(path)?;
    parse_plan(path, &text, overrides)
}

/// [`load_plan`] with the policies named in `registry`.
pub fn load_plan_with(path: &Path, overrides: Overrides, registry: &ModelRegistry) -> Result<Plan> {
    let text = read_scenario_text(path)?;
    parse_plan_with(path, &text, overrides, registry)
}

/// [`load_plan`] on scenario `text` as if read from `path`.
pub fn parse_plan(path: &Path, text: &str, overrides: Overrides) -> Result<Plan> {
    parse_plan_with(path, text, overrides, &ModelRegistry::builtin())
}

/// [`parse_plan`] with the policies named in `registry`.
pub fn parse_plan_with(
    path: &Path,
    text: &str,
    overrides: Overrides,
    registry: &ModelRegistry,
) -> Result<Plan> {
    let mut docs = ModelDocs {
        cache: TraceCache::default(),
        registry,
    };
    expand_plan(&mut docs, path, text, overrides)
}

/// Model-mode scenario documents, their traces loaded once.
#[derive(Debug)]
struct ModelDocs<'a> {
    cache: TraceCache,
    registry: &'a ModelRegistry,
}

impl Expand<ScenarioFile, Scenario> for ModelDocs<'_> {
    fn plain(&mut self, path: &Path, text: &str, overrides: Overrides) -> Result<Scenario> {
        parse_scenario_with(path, text, overrides, self.registry)
    }

    fn deserialize(&mut self, doc: Table) -> Result<ScenarioFile> {
        ScenarioFile::deserialize(Value::Table(doc)).map_err(|e| {
            Error::input(crate::core::io::echo::capped_lines(
                &e.to_string().trim_end().replace('\n', " "),
            ))
        })
    }

    fn build(&mut self, path: &Path, file: ScenarioFile, overrides: Overrides) -> Result<Scenario> {
        build_scenario(path, file, overrides, &mut self.cache, self.registry)
    }
}
