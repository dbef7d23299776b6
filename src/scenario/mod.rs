//! Scenarios (DESIGN §8): the serde model of the TOML file ([`ScenarioFile`])
//! and its validated form ([`Scenario`]).

mod arrivals;
mod file;
mod load;
mod split;
mod trace_source;

pub use arrivals::ArrivalPlan;
pub use file::{
    ArrivalsSection, ClusterSection, LimitsSection, PolicySection, ScenarioFile, SplitSection,
    TraceImportSection, TraceSection, TraceSynSection,
};
pub use load::{Overrides, Policy, Scenario, load_scenario, parse_scenario};
pub use split::{Split, SplitPlan};
pub use trace_source::{LoadedTrace, load_trace_source};
