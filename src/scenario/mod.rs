//! Scenarios (DESIGN §8): the serde model of the TOML file ([`ScenarioFile`])
//! and its validated form ([`Scenario`]).

mod file;
mod load;
mod split;

pub use file::{ClusterSection, PolicySection, ScenarioFile, SplitSection, TraceSection};
pub use load::{Overrides, Policy, Scenario, load_scenario, parse_scenario};
pub use split::{Split, SplitPlan};
