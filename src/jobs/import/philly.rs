//! Microsoft Philly job logs (Jeon et al., ATC '19; msr-fiddle/philly-traces),
//! flattened to one CSV row per job as HeliosArtifact's `philly_trace.csv`
//! does. The original `cluster_job_log` is JSON with per-attempt GPU lists;
//! flatten it first (one row per job: GPUs of its attempts, first start,
//! last end).
//!
//! Columns read (by name; others ignored):
//! - `job_id` (or `jobid`) → `job_id`; `user` → `user`; `vc` → `group`;
//! - `gpu_num` (or `num_gpus`, `gpus`) → `gpus`;
//! - `submit_time` (or `submitted_time`) → `submit_s`, relative to the
//!   earliest kept submit;
//! - `duration` (seconds) → `duration_s`, or `end_time − start_time` when
//!   there is no `duration` column or the cell is empty;
//! - `start_time` empty or `None` means the job never ran.
//!
//! Times are `YYYY-MM-DD HH:MM:SS` or seconds. Every state (`Pass`,
//! `Killed`, `Failed`) is kept: the GPUs were held whatever the outcome.
//! Skipped: 0 GPUs, never started, run time ≤ 0.

use std::path::Path;

use super::joblog::{self, Layout};
use super::report::ImportReport;
use crate::core::error::Result;
use crate::jobs::trace::JobRow;

const LAYOUT: Layout = Layout {
    format: "Philly",
    job_id: &["job_id", "jobid"],
    user: &["user"],
    group: &["vc"],
    gpus: &["gpu_num", "num_gpus", "gpus"],
    submit: &["submit_time", "submitted_time"],
    start: &["start_time"],
    end: &["end_time"],
    duration: &["duration"],
};

/// Import a flattened Philly job log.
pub fn import(path: &Path) -> Result<(Vec<JobRow>, ImportReport)> {
    joblog::import(&LAYOUT, path)
}
