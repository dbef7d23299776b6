//! Model traces (DESIGN §1): the per-(user, model) accuracy and runtime table
//! a simulation replays.
//!
//! - [`TraceRow`] is one row of the canonical CSV, as importers and generators
//!   produce it.
//! - [`Trace`] is the validated, dense, indexed form the simulator reads.
//! - [`load_trace`] reads and validates the canonical CSV; [`write_trace`]
//!   writes it (atomically).
//! - [`crate::models::import`] turns published benchmark tables (LCDB, Fernández-Delgado,
//!   plain matrices, ASlib) into trace rows; [`generate`] makes synthetic
//!   traces (`gen syn`).

mod build;
mod csv_read;
mod csv_write;
mod curve_csv_write;
mod curve_row;
mod curves;
pub mod generate;
pub mod generate_curves;
mod model_trace;
mod row;
mod syn_backing;

pub use crate::core::sim::time::{
    MAX_RUNTIME_S, Micros, RUNTIME_FLOOR_S, micros_to_secs_string, secs_to_micros,
};
pub use build::TraceBuilder;
pub use csv_read::{load_trace, parse_trace};
pub use csv_write::{trace_to_csv, write_trace};
pub use curve_csv_write::{curve_trace_to_csv, write_curve_trace};
pub use curve_row::CurveRow;
pub use curves::CostMode;
use curves::Curves;
pub use generate::{
    CostDist, GenSynReport, SynParams, SynRows, SynTrace, generate_syn, generate_syn_trace,
    run_gen_syn,
};
pub use model_trace::Trace;
pub use row::TraceRow;
pub use syn_backing::{SynBacking, cache_slots};
