//! SenseTime Helios traces (Hu et al., SC '21; S-Lab-System-Group/HeliosData):
//! each cluster's `cluster_log.csv`,
//! `job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue`.
//!
//! Mapping: `job_id` → `job_id`; `user` → `user`; `vc` → `group`;
//! `gpu_num` → `gpus`; `submit_time` (`YYYY-MM-DD HH:MM:SS`) → `submit_s`
//! relative to the earliest kept submit; `duration` (seconds the job ran)
//! → `duration_s` (or `end_time − start_time` if empty).
//!
//! Every state (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL) is kept:
//! the GPUs were held whatever the outcome. Skipped: CPU jobs
//! (`gpu_num = 0`), jobs that never started (empty `start_time`), and
//! jobs with a run time ≤ 0. `queue` (the recorded wait) is not used.

use std::path::Path;

use super::joblog::{self, Layout};
use super::report::ImportReport;
use crate::core::error::Result;
use crate::jobs::trace::JobRow;

const LAYOUT: Layout = Layout {
    format: "Helios",
    job_id: &["job_id"],
    user: &["user"],
    group: &["vc"],
    gpus: &["gpu_num"],
    submit: &["submit_time"],
    start: &["start_time"],
    end: &["end_time"],
    duration: &["duration"],
};

/// Import a Helios `cluster_log.csv`.
pub fn import(path: &Path) -> Result<(Vec<JobRow>, ImportReport)> {
    joblog::import(&LAYOUT, path)
}
