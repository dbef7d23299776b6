//! Importers: turn public GPU-cluster job logs into the neutral job CSV
//! (`tenantsim import-jobs FORMAT INPUT --out JOBS.csv`).
//!
//! - [`alibaba`]: Alibaba `cluster-trace-gpu-v2023` pod lists.
//! - [`philly`]: Microsoft Philly job logs flattened to CSV.
//! - [`helios`]: SenseTime Helios `cluster_log.csv`.
//! - [`gavel`]: Gavel traces with Gavel's throughput table (per-type
//!   durations, DESIGN §11.2).
//!
//! Every importer reads columns by name, keeps the input's row order,
//! and reports what it skipped and why.

pub mod alibaba;
pub mod gavel;
pub mod helios;
mod joblog;
pub mod philly;
mod report;

pub use alibaba::Fractional;
pub use report::ImportReport;

use std::path::Path;

use super::trace::JobRow;
use crate::core::choice::Choice;
use crate::core::error::Result;

/// A job-log format (named as in [`Choice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// Alibaba GPU trace v2023 pod list (`openb_pod_list_*.csv`).
    Alibaba,
    /// Philly job log, flattened to CSV.
    Philly,
    /// Helios `cluster_log.csv`.
    Helios,
    /// Gavel `.trace` (10 tab-separated columns) with `--throughputs`.
    Gavel,
}

impl Choice for ImportFormat {
    const ALL: &'static [Self] = &[Self::Alibaba, Self::Philly, Self::Helios, Self::Gavel];

    fn name(self) -> &'static str {
        match self {
            Self::Alibaba => "alibaba",
            Self::Philly => "philly",
            Self::Helios => "helios",
            Self::Gavel => "gavel",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Alibaba => "Alibaba GPU trace v2023 pod list (`openb_pod_list_*.csv`)",
            Self::Philly => "Philly job log, flattened to CSV",
            Self::Helios => "Helios `cluster_log.csv`",
            Self::Gavel => "Gavel `.trace` with its throughput table (--throughputs)",
        }
    }
}

/// Importer options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Fractional-GPU pods (Alibaba only).
    pub fractional: Fractional,
    /// The throughput table and worker types (Gavel only).
    pub gavel: gavel::GavelOptions,
}

/// Import `input` in `format`.
pub fn import_jobs(
    format: ImportFormat,
    input: &Path,
    options: ImportOptions,
) -> Result<(Vec<JobRow>, ImportReport)> {
    match format {
        ImportFormat::Alibaba => alibaba::import(input, options.fractional),
        ImportFormat::Philly => philly::import(input),
        ImportFormat::Helios => helios::import(input),
        ImportFormat::Gavel => gavel::import(input, &options.gavel),
    }
}
