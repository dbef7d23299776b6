//! `tenantsim check`: compare a results folder (one run or a sweep, either
//! mode) against golden results, exactly within a tolerance or
//! statistically (`--stat`, on a pass/fail family of metrics), so CI
//! notices when a change moves a number.

mod family;
mod folder;
mod render;
mod report;
mod stream;
mod table;
mod tolerance;
pub mod welch;

pub use family::{ALL, CHECK_FILE, Family, FamilySource, is_primary, read_check_file, resolve};
pub use folder::{Layout, layout, summary_header};
pub use render::{Format, render};
pub use report::{
    Case, Deviation, Method, ModeOf, PairedExact, Pairing, Problem, Report, StatTest, Test,
    check_folders, column, numbers, same_value,
};
pub use stream::{Comparison, compare_aligned, compare_dirs};
pub use table::{SummaryTable, parse_summary, read_summary, rep_order};
pub use tolerance::{Drift, Tolerance, compare_summaries, differences};
