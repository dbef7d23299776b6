//! Model traces (DESIGN §1): the per-(user, model) accuracy and runtime table
//! a simulation replays.
//!
//! - [`TraceRow`] is one row of the canonical CSV, as importers and generators
//!   produce it.
//! - [`Trace`] is the validated, dense, indexed form the simulator reads.
//! - [`load_trace`] reads and validates the canonical CSV; [`write_trace`]
//!   writes it (atomically).

mod build;
mod csv_read;
mod csv_write;
mod model_trace;
mod row;
mod time;

pub use build::TraceBuilder;
pub use csv_read::{csv_error as csv_error_for, load_trace, parse_trace};
pub use csv_write::{trace_to_csv, write_trace};
pub use model_trace::Trace;
pub use row::TraceRow;
pub use time::{MAX_RUNTIME_S, Micros, micros_to_secs_string, secs_to_micros};
