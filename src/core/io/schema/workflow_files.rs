//! The result files of a shared folder's `workflows/` (DESIGN §14.7,
//! written by `shared::workflows_report`). Their names carry the folder
//! (`workflows/summary.csv`...) since `summary.csv` and `jobs.csv` are
//! also model, job and shared mode's own names: [`super::find`] looks a
//! file of `workflows/` up by its path in the results folder.

use super::FileSchema;

/// Every file of `workflows/`.
pub const ALL: &[&FileSchema] = &[&summary::FILE, &workflows::FILE, &steps::FILE, &jobs::FILE];

/// `workflows/summary.csv`: the workflows' figures per policy.
pub mod summary {
    super::super::file_schema::result_file! {
        fixed Shared, "workflows/summary.csv", rows "policy (in scenario order), its figures over repetitions (DESIGN §14.7)", written "with a [workflows] workload";
        POLICY = "policy": Text, "", Always, "policy name";
        REPS = "reps": Int, "", Always, "repetitions";
        COMPLETION_RATE = "completion_rate": FloatOrNa, "", Always, "mean over the repetitions where it is defined of workflows done (within their deadline and the horizon) / workflows submitted (submit ≤ horizon); `n/a` where defined in none";
        COMPLETION_RATE_CI_LOW = "completion_rate_ci_low": FloatOrNa, "", Always, "low end of `completion_rate`'s Student-t band at `[output] confidence` (`n/a` with it)";
        COMPLETION_RATE_CI_HIGH = "completion_rate_ci_high": FloatOrNa, "", Always, "high end of `completion_rate`'s band (`n/a` with it)";
        MAKESPAN_P50_S = "makespan_p50_s": FloatOrNa, "s", Always, "mean over the repetitions where it is defined of 50th percentile (type 7) of end − submit over the done workflows; `n/a` where defined in none";
        MAKESPAN_P50_S_CI_LOW = "makespan_p50_s_ci_low": FloatOrNa, "s", Always, "low end of `makespan_p50_s`'s Student-t band at `[output] confidence` (`n/a` with it)";
        MAKESPAN_P50_S_CI_HIGH = "makespan_p50_s_ci_high": FloatOrNa, "s", Always, "high end of `makespan_p50_s`'s band (`n/a` with it)";
        MAKESPAN_P99_S = "makespan_p99_s": FloatOrNa, "s", Always, "mean over the repetitions where it is defined of 99th percentile (type 7) of end − submit over the done workflows; `n/a` where defined in none";
        MAKESPAN_P99_S_CI_LOW = "makespan_p99_s_ci_low": FloatOrNa, "s", Always, "low end of `makespan_p99_s`'s Student-t band at `[output] confidence` (`n/a` with it)";
        MAKESPAN_P99_S_CI_HIGH = "makespan_p99_s_ci_high": FloatOrNa, "s", Always, "high end of `makespan_p99_s`'s band (`n/a` with it)";
        GPU_UTILIZATION = "gpu_utilization": FloatOrNa, "", Always, "mean over the repetitions where it is defined of the workflows' busy GPU-µs / (cluster GPUs × the run's length, first submit to last workflows event); `n/a` where defined in none";
        GPU_UTILIZATION_CI_LOW = "gpu_utilization_ci_low": FloatOrNa, "", Always, "low end of `gpu_utilization`'s Student-t band at `[output] confidence` (`n/a` with it)";
        GPU_UTILIZATION_CI_HIGH = "gpu_utilization_ci_high": FloatOrNa, "", Always, "high end of `gpu_utilization`'s band (`n/a` with it)";
        CPU_UTILIZATION = "cpu_utilization": FloatOrNa, "", Always, "mean over the repetitions where it is defined of busy CPU-µs / (cluster CPUs × the run's length); `n/a` when CPUs are not counted; `n/a` where defined in none";
        CPU_UTILIZATION_CI_LOW = "cpu_utilization_ci_low": FloatOrNa, "", Always, "low end of `cpu_utilization`'s Student-t band at `[output] confidence` (`n/a` with it)";
        CPU_UTILIZATION_CI_HIGH = "cpu_utilization_ci_high": FloatOrNa, "", Always, "high end of `cpu_utilization`'s band (`n/a` with it)";
        CACHE_HIT_RATIO = "cache_hit_ratio": FloatOrNa, "", Always, "mean over the repetitions where it is defined of cache hits / (hits + misses) over ready steps with a `cache_key`; `n/a` where defined in none";
        CACHE_HIT_RATIO_CI_LOW = "cache_hit_ratio_ci_low": FloatOrNa, "", Always, "low end of `cache_hit_ratio`'s Student-t band at `[output] confidence` (`n/a` with it)";
        CACHE_HIT_RATIO_CI_HIGH = "cache_hit_ratio_ci_high": FloatOrNa, "", Always, "high end of `cache_hit_ratio`'s band (`n/a` with it)";
        BYTES_STORED = "bytes_stored": FloatOrNa, "bytes", Always, "mean over the repetitions where it is defined of the most bytes the cache held at once; `n/a` where defined in none";
        BYTES_STORED_CI_LOW = "bytes_stored_ci_low": FloatOrNa, "bytes", Always, "low end of `bytes_stored`'s Student-t band at `[output] confidence` (`n/a` with it)";
        BYTES_STORED_CI_HIGH = "bytes_stored_ci_high": FloatOrNa, "bytes", Always, "high end of `bytes_stored`'s band (`n/a` with it)";
        GPU_HOURS_SAVED = "gpu_hours_saved": FloatOrNa, "GPU-h", Always, "mean over the repetitions where it is defined of Σ over workflows of `gpus × runtime_s` of their cache hits, in hours; `n/a` where defined in none";
        GPU_HOURS_SAVED_CI_LOW = "gpu_hours_saved_ci_low": FloatOrNa, "GPU-h", Always, "low end of `gpu_hours_saved`'s Student-t band at `[output] confidence` (`n/a` with it)";
        GPU_HOURS_SAVED_CI_HIGH = "gpu_hours_saved_ci_high": FloatOrNa, "GPU-h", Always, "high end of `gpu_hours_saved`'s band (`n/a` with it)";
        CPU_HOURS_SAVED = "cpu_hours_saved": FloatOrNa, "CPU-h", Always, "mean over the repetitions where it is defined of Σ over workflows of `cpus × runtime_s` of their cache hits, in hours; `n/a` where defined in none";
        CPU_HOURS_SAVED_CI_LOW = "cpu_hours_saved_ci_low": FloatOrNa, "CPU-h", Always, "low end of `cpu_hours_saved`'s Student-t band at `[output] confidence` (`n/a` with it)";
        CPU_HOURS_SAVED_CI_HIGH = "cpu_hours_saved_ci_high": FloatOrNa, "CPU-h", Always, "high end of `cpu_hours_saved`'s band (`n/a` with it)";
    }
}

/// `workflows/workflows.csv`: one row per workflow and run.
pub mod workflows {
    super::super::file_schema::result_file! {
        fixed Shared, "workflows/workflows.csv", rows "workflow of a run (policy, repetition), in trace order", written "with a [workflows] workload";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        WORKFLOW = "workflow": Text, "", Always, "the workflow's id in the trace";
        TENANT = "tenant": Text, "", Always, "its tenant";
        SUBMIT_S = "submit_s": Seconds, "s", Always, "when it was submitted";
        END_S = "end_s": SecondsOrEmpty, "s", Always, "when its last step was done; empty unless `state` is `done`";
        STATE = "state": Text, "", Always, "`done`, `failed` (past its retries), `deadline` (past its deadline) or `unfinished` (at the horizon)";
        RETRIES = "retries": Int, "", Always, "failed attempts retried";
        CACHE_HITS = "cache_hits": Int, "", Always, "steps done by a cache hit";
        GPU_S = "gpu_s": Seconds, "GPU-s", Always, "GPU-seconds its attempts held (failed attempts and restores included)";
        CPU_S = "cpu_s": Seconds, "CPU-s", Always, "CPU-seconds its attempts held";
        GPU_S_SAVED = "gpu_s_saved": Seconds, "GPU-s", Always, "GPU-seconds its cache hits saved (`gpus × runtime_s` of each hit step)";
        CPU_S_SAVED = "cpu_s_saved": Seconds, "CPU-s", Always, "CPU-seconds its cache hits saved (`cpus × runtime_s` of each hit step)";
    }
}

/// `workflows/steps.csv` (`--jobs`): one row per step and run.
pub mod steps {
    super::super::file_schema::result_file! {
        fixed Shared, "workflows/steps.csv", rows "step of a run (policy, repetition), in trace order: its last readiness", written "with --jobs and a [workflows] workload";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        WORKFLOW = "workflow": Text, "", Always, "its workflow's id";
        STEP = "step": Text, "", Always, "the step's id in its workflow";
        READY_S = "ready_s": SecondsOrEmpty, "s", Always, "when it last became ready (its parents done); empty: never";
        START_S = "start_s": SecondsOrEmpty, "s", Always, "when its last attempt first started; empty: never, or a cache hit";
        END_S = "end_s": SecondsOrEmpty, "s", Always, "when it was last done or failed; empty: neither";
        STATE = "state": Text, "", Always, "`done`, `hit` (done by a cache hit), `failed` (its last attempt failed) or `not-done`";
        ATTEMPTS = "attempts": Int, "", Always, "attempts submitted to the cluster";
        PARTS = "parts": Int, "", Always, "sub-jobs of its last attempt (1 unless split)";
    }
}

/// `workflows/jobs.csv` (`--jobs`): job mode's columns, one row per job of
/// an attempt.
pub mod jobs {
    super::super::file_schema::result_file! {
        fixed Shared, "workflows/jobs.csv", rows "job of an attempt of a step in a run (policy, repetition), in submission order", written "with --jobs and a [workflows] workload";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        JOB_ID = "job_id": Text, "", Always, "`<workflow>/<step>`, then `#<attempt>` for a retry and `.<part>` for a sub-job of a split step";
        USER = "user": Text, "", Always, "the workflow's tenant";
        SUBMIT_S = "submit_s": Seconds, "s", Always, "when it was submitted to the cluster";
        START_S = "start_s": SecondsOrEmpty, "s", Always, "when it started; empty: never";
        END_S = "end_s": SecondsOrEmpty, "s", Always, "when it ended (done or failed); empty: never";
        GPUS = "gpus": Int, "GPUs", Always, "GPUs it requested";
    }
}
