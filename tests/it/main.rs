//! tenantsim's integration tests, one binary with one module per file (as
//! ripgrep and just do): the crate is linked once, not once per file.
//! `common` holds the helpers they share; tests on `../shared/data` find it
//! with `tenantsim::core::testing::shared_data` (they skip without it, and
//! fail when `TENANTSIM_REQUIRE_SHARED_DATA=1`).
//!
//! Snapshots (insta): `exact_output` and `bad_inputs` compare whole
//! outputs with the files under `tests/it/snapshots/` (one `.snap` per
//! assertion, header then the exact text). A changed output fails the
//! test; so does a missing snapshot. Locally insta then writes the new text
//! beside it as `*.snap.new` for review; with `CI` set (as CI runs) insta
//! behaves as `INSTA_UPDATE=no`: it writes nothing and fails. To accept an
//! intended change, either review it with `cargo insta review` (after
//! `cargo install cargo-insta`), or rewrite the snapshots with
//! `INSTA_UPDATE=always cargo test --test it -- exact_output:: bad_inputs::`
//! and read `git diff tests/it/snapshots` before committing: every changed
//! line is a change a user sees, and the commit says why. Delete a
//! snapshot file whose assertion you removed.

mod common;

mod aggregate;
mod architecture;
mod bad_inputs;
mod bench_cmd;
mod bounded_inputs;
mod cache;
mod check_cmd;
mod cli;
mod compare;
mod cpus;
mod curves_after_schedule;
mod curves_core;
mod curves_invariants;
mod curves_selectors;
mod custom_binary;
mod easeml_defaults;
mod easeml_dl;
mod exact_output;
mod folded_metrics;
mod fresh_clone;
mod gp_schedulers;
mod guide;
mod hand_trace;
mod html_report;
mod import_lcdb_curves;
mod import_table;
mod inputs;
mod interrupt;
mod invariants;
mod job_log;
mod job_steppable;
mod jobs_cli;
mod jobs_gavel;
mod jobs_hand;
mod jobs_hetero;
mod jobs_import;
mod jobs_invariants;
mod jobs_rounds;
mod jobs_sweep;
mod jobs_types_invariants;
mod lazy_trace;
mod lcdb_e2e;
mod limits;
mod max_min_fairness;
mod memory_estimate;
mod models_hetero;
mod online;
mod paper_view;
mod parsers_never_panic;
mod pdf;
mod plot_clearance;
mod plot_layout;
mod plots;
mod promotions_plot;
mod registry;
mod result_schema;
mod results_folder;
mod scale_scenarios;
mod scenario_messages;
mod segment_log;
mod shards;
mod shared_episode;
mod shared_mode;
mod shared_steppable;
mod shared_workflows;
mod slurm;
mod stalled_runs;
mod steppable;
mod streamed_arrivals;
mod streaming;
mod table;
mod touched_tenants;
mod trace_sources;
mod wfformat;
mod whatif;
mod workflow_rules;
mod workflow_trace;
mod workflows_memory;
mod writes_only_where_asked;
