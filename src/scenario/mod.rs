//! Scenarios (DESIGN §8): the serde model of the TOML file ([`ScenarioFile`])
//! and its validated form ([`Scenario`]).

mod file;
mod load;
mod split;
mod trace_source;

pub use file::{
    ClusterSection, PolicySection, ScenarioFile, SplitSection, TraceImportSection, TraceSection,
    TraceSynSection,
};
pub use load::{Overrides, Policy, Scenario, load_scenario, parse_scenario};
pub use split::{Split, SplitPlan};
pub use trace_source::{LoadedTrace, load_trace_source};
