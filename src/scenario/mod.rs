//! Scenarios (DESIGN §8): the serde model of the TOML file ([`ScenarioFile`])
//! and its validated form ([`Scenario`]).

mod file;
mod load;
mod split;
mod sweep;

pub use file::{
    ClusterSection, GridKind, OutputSection, PolicySection, ScenarioFile, SplitSection,
    TraceSection,
};
pub use load::{
    Overrides, Policy, Scenario, TraceCache, build_scenario, load_scenario, parse_scenario,
};
pub use split::{Split, SplitPlan};
pub use sweep::{Plan, SweepAxis, SweepPoint, load_plan, parse_plan, value_text};
