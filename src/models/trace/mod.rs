//! Model traces (DESIGN §1): the per-(user, model) accuracy and runtime table
//! a simulation replays.
//!
//! - [`TraceRow`] is one row of the canonical CSV, as importers and generators
//!   produce it.
//! - [`Trace`] is the validated, indexed form the simulator reads (dense,
//!   or a large generated trace's rows produced when read).
//! - [`load_trace`] reads and validates the canonical CSV; [`write_trace`]
//!   writes it (atomically).
//! - [`crate::models::import`] turns published benchmark tables (LCDB, Fernández-Delgado,
//!   plain matrices, ASlib) into trace rows; [`generate`] makes synthetic
//!   traces (`gen syn`).

mod build;
mod cells;
mod csv_read;
mod csv_write;
mod curve_csv_write;
mod curve_row;
mod curves;
mod digest;
pub mod generate;
pub mod generate_curves;
mod model_lists;
mod model_trace;
mod row;
mod syn_backing;
mod syn_trace;
mod user_ids;

pub use crate::core::sim::time::{
    MAX_RUNTIME_S, Micros, RUNTIME_FLOOR_S, micros_to_secs_string, secs_to_micros,
};
pub use build::TraceBuilder;
pub use cells::with_matrix_row;
pub use csv_read::{load_trace, parse_trace};
pub use csv_write::{trace_to_csv, write_trace};
pub use curve_csv_write::{curve_trace_to_csv, write_curve_trace};
pub use curve_row::CurveRow;
pub use curves::CostMode;
use curves::Curves;
pub use digest::TraceDigest;
pub use generate::{
    CostDist, GenSynReport, SynNames, SynParams, SynRows, generate_syn, run_gen_syn,
};
pub use model_trace::Trace;
pub use row::TraceRow;
pub use syn_backing::{SynBacking, cache_slots};
pub use syn_trace::{SynTrace, generate_syn_trace, lazy_syn_trace};
