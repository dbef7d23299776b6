//! Alibaba `cluster-trace-gpu-v2023` ("openb") pod lists:
//! `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time`
//! (times in seconds from the start of the trace).
//!
//! Mapping (one pod = one job):
//! - `job_id` = `name`; `submit_s` = `creation_time`;
//!   `duration_s` = `deletion_time − scheduled_time`;
//! - `gpus` = `num_gpu`; `gpu_type` = `gpu_spec` (often empty);
//! - `cpus` = ⌈`cpu_milli` / 1000⌉, the pod's CPU request in whole CPUs
//!   (when the list has `cpu_milli`), counted on a cluster with
//!   `cpus_per_node` (DESIGN §14.6);
//! - `user` = `qos` (LS, BE, Burstable, Guaranteed): the trace has no user
//!   column, and the QoS class is the tenant-like grouping it has.
//!
//! Skipped: pods with `num_gpu = 0` (CPU-only), pods that never ran (empty
//! `scheduled_time`: the Pending pods), pods with `deletion_time ≤
//! scheduled_time`. Fractional GPUs: a pod with `num_gpu = 1` and
//! `gpu_milli < 1000` shares a GPU in the real cluster; the simulator does
//! not share GPUs, so by default it gets one whole GPU (`--fractional
//! whole`), or is left out (`--fractional drop`). Multi-GPU pods always ask
//! for whole GPUs (`gpu_milli = 1000`). Note that Running pods were still
//! alive when the trace was cut, so their `deletion_time` is the end of the
//! trace and their duration a lower bound.

use std::path::Path;

use super::report::ImportReport;
use crate::core::choice::Choice;
use crate::core::error::{Error, Result};
use crate::core::io::open_input;
use crate::jobs::trace::JobRow;

const COLUMNS: [&str; 7] = [
    "name",
    "num_gpu",
    "gpu_milli",
    "creation_time",
    "deletion_time",
    "scheduled_time",
    "qos",
];

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

/// Import an Alibaba v2023 pod list.
pub fn import(path: &Path, fractional: Fractional) -> Result<(Vec<JobRow>, ImportReport)> {
    let source = path.display().to_string();
    let file = open_input(path, "Alibaba pod list")?;
    let (mut reader, headers) = crate::core::io::csv_columns::csv_with_header(&source, file)?;
    let find = |name: &str| crate::core::io::csv_columns::find_column(&headers, &[name]);
    let mut col = [0usize; 7];
    for (slot, name) in COLUMNS.iter().enumerate() {
        col[slot] = find(name).ok_or_else(|| {
            Error::input(format!(
                "{source}: line 1: missing column `{name}`: an Alibaba v2023 pod list has name, num_gpu, gpu_milli, creation_time, deletion_time, scheduled_time, qos"
            ))
        })?;
    }
    let spec_col = find("gpu_spec");
    let cpu_col = find("cpu_milli");
    let mut rows = Vec::new();
    let mut report = ImportReport::default();
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        report.rows += 1;
        let get = |slot: usize| record.get(col[slot]).unwrap_or("");
        let int = |slot: usize| {
            crate::core::io::csv_columns::integer_field(get(slot), &source, line, COLUMNS[slot])
        };
        let num_gpu = int(1)?;
        let milli = int(2)?;
        if num_gpu < 0 || milli < 0 {
            return Err(Error::input(format!(
                "{source}: line {line}: fields `num_gpu`, `gpu_milli`: expected counts >= 0"
            )));
        }
        if num_gpu == 0 {
            report.cpu_only += 1;
            continue;
        }
        if get(5).is_empty() {
            report.never_ran += 1;
            continue;
        }
        let (created, deleted, scheduled) = (int(3)?, int(4)?, int(5)?);
        if created < 0 {
            return Err(Error::input(format!(
                "{source}: line {line}: field `creation_time`: expected seconds >= 0, got {created}"
            )));
        }
        if deleted <= scheduled {
            report.no_duration += 1;
            continue;
        }
        if num_gpu == 1 && milli < 1000 {
            match fractional {
                Fractional::Whole => report.fractional_rounded += 1,
                Fractional::Drop => {
                    report.fractional_dropped += 1;
                    continue;
                }
            }
        }
        let gpus = u32::try_from(num_gpu).map_err(|_| {
            Error::input(format!(
                "{source}: line {line}: field `num_gpu`: {num_gpu} is too large"
            ))
        })?;
        let cpus = match cpu_col {
            None => None,
            Some(c) => {
                let milli = crate::core::io::csv_columns::integer_field(
                    record.get(c).unwrap_or(""),
                    &source,
                    line,
                    "cpu_milli",
                )?;
                let cpus = u64::try_from(milli)
                    .ok()
                    .map(|m| m.div_ceil(1000))
                    .filter(|&c| c <= crate::jobs::trace::MAX_JOB_CPUS)
                    .ok_or_else(|| {
                        Error::input(format!(
                            "{source}: line {line}: field `cpu_milli`: expected thousandths of a CPU from 0 to {}, got {milli}",
                            crate::jobs::trace::MAX_JOB_CPUS * 1000
                        ))
                    })?;
                Some(cpus as u32)
            }
        };
        report.kept += 1;
        report.gpus += u64::from(gpus);
        rows.push(JobRow {
            job_id: get(0).to_string(),
            user: get(6).to_string(),
            submit_s: created as f64,
            duration_s: (deleted - scheduled) as f64,
            gpus,
            gpu_type: spec_col.map(|c| record.get(c).unwrap_or("").to_string()),
            group: None,
            type_durations: Vec::new(),
            cpus,
        });
    }
    Ok((rows, report))
}
