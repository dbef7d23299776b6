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

use std::fmt;
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

/// What to do with pods that asked for a fraction of one GPU (Alibaba;
/// named as in [`Choice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fractional {
    /// Give the pod one whole GPU (the simulator does not share GPUs).
    #[default]
    Whole,
    /// Leave the pod out.
    Drop,
}

impl Choice for Fractional {
    const ALL: &'static [Self] = &[Self::Whole, Self::Drop];

    fn name(self) -> &'static str {
        match self {
            Self::Whole => "whole",
            Self::Drop => "drop",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Self::Whole => "Give the pod one whole GPU (the simulator does not share GPUs)",
            Self::Drop => "Leave the pod out",
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

/// What an import kept and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Data rows read.
    pub rows: usize,
    /// Jobs written.
    pub kept: usize,
    /// Skipped: asked for no GPU.
    pub cpu_only: usize,
    /// Skipped: never started (no start / scheduled time).
    pub never_ran: usize,
    /// Skipped: zero or negative run time.
    pub no_duration: usize,
    /// Kept with one whole GPU instead of a fraction (Alibaba, `whole`).
    pub fractional_rounded: usize,
    /// Skipped: fractional GPU (Alibaba, `drop`).
    pub fractional_dropped: usize,
    /// GPUs over the kept jobs.
    pub gpus: u64,
    /// Skipped: a duplicated line (Gavel's repeated first job).
    pub duplicates: usize,
    /// What the import could not carry or changed, one sentence each
    /// (printed as warnings).
    pub notes: Vec<String>,
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rows: {} jobs kept ({} GPUs); skipped {} with no GPU, {} that never ran, {} with no run time",
            self.rows, self.kept, self.gpus, self.cpu_only, self.never_ran, self.no_duration
        )?;
        if self.fractional_rounded > 0 {
            write!(
                f,
                "; {} fractional-GPU jobs given one whole GPU",
                self.fractional_rounded
            )?;
        }
        if self.duplicates > 0 {
            write!(f, "; {} duplicated lines dropped", self.duplicates)?;
        }
        if self.fractional_dropped > 0 {
            write!(
                f,
                "; {} fractional-GPU jobs dropped",
                self.fractional_dropped
            )?;
        }
        Ok(())
    }
}

/// Import `input` in `format`.
pub fn import_jobs(
    format: ImportFormat,
    input: &Path,
    options: ImportOptions,
) -> Result<(Vec<JobRow>, ImportReport)> {
    match format {
        ImportFormat::Alibaba => alibaba::import(input, options),
        ImportFormat::Philly => philly::import(input),
        ImportFormat::Helios => helios::import(input),
        ImportFormat::Gavel => gavel::import(input, &options.gavel),
    }
}
