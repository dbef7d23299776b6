//! Scenarios (DESIGN §8): the serde model of the TOML file ([`ScenarioFile`])
//! and its validated form ([`Scenario`]).

mod arrivals;
mod file;
pub mod footprint;
mod load;
mod split;
mod sweep;
mod trace_source;

pub use arrivals::{ArrivalPlan, parse_arrival_times};
pub use file::{
    ArrivalsSection, ClusterSection, GridKind, LAZY_ABOVE_CELLS, LimitsSection, OutputSection,
    PolicySection, ScenarioFile, SplitSection, SynRowsKind, TraceImportSection, TraceSection,
    TraceSynSection,
};
pub use load::{
    Embedding, Policy, Scenario, TraceCache, build_scenario, build_scenario_in, load_scenario,
    parse_scenario, parse_scenario_with,
};
pub use split::{Split, SplitPlan};
pub use sweep::{Plan, SweepPoint, load_plan, load_plan_with, parse_plan, parse_plan_with};
pub use trace_source::{LoadedTrace, load_trace_source, load_trace_source_in};
