//! `tenantsim check`: compare a results folder against golden results, so
//! CI notices when a change moves a regret number.

mod stream;
mod table;
mod tolerance;

pub use stream::{Comparison, compare_dirs};
pub use table::{SummaryTable, parse_summary, read_summary};
pub use tolerance::{Drift, Tolerance, compare_summaries};
